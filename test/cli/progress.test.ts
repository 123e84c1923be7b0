import { describe, expect, test } from 'vitest';
import { parseDuration } from '../../src/cli/eval.js';
import { progressReporter } from '../../src/cli/progress.js';

describe('progress without a terminal', () => {
  test('a plain line every interval, never more often; nothing when disabled', () => {
    let now = 0;
    const lines: string[] = [];
    const p = progressReporter({ enabled: true, tty: false, intervalMs: 5000, now: () => now, write: (l) => lines.push(l) });
    const state = (value: number) => ({ label: 'runs', value, total: 10, detail: `${value} processed` });
    for (let t = 0; t <= 12_000; t += 1000) {
      now = t;
      p.update(state(t / 1000));
    }
    expect(lines).toEqual(['runs: 5/10, 5 processed (5.0 s)', 'runs: 10/10, 10 processed (10 s)']);
    const off = progressReporter({ enabled: false, tty: false, now: () => (now += 10_000), write: (l) => lines.push(l) });
    off.update(state(1));
    expect(lines).toHaveLength(2);
  });

  test('with a unit, the rate per second since the start', () => {
    let now = 0;
    const lines: string[] = [];
    const p = progressReporter({ enabled: true, tty: false, intervalMs: 1000, now: () => now, write: (l) => lines.push(l) });
    now = 4000;
    p.update({ label: 'upload', value: 50, total: 200, unit: 'items', detail: '50 created' });
    expect(lines).toEqual(['upload: 50/200 items (12.5/s), 50 created (4.0 s)']);
  });

  test('an unknown total prints the count alone', () => {
    let now = 0;
    const lines: string[] = [];
    const p = progressReporter({ enabled: true, tty: false, intervalMs: 1, now: () => (now += 2), write: (l) => lines.push(l) });
    p.update({ label: 'batch', value: 0, total: 0, detail: 'bpr_1 PROCESSING' });
    expect(lines).toEqual(['batch: 0, bpr_1 PROCESSING (0.0 s)']);
  });
});

describe('--timeout durations', () => {
  test.each([
    ['600', 600_000],
    ['90s', 90_000],
    ['15m', 900_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    [' 2H ', 7_200_000],
  ])('%j -> %i ms', (text, ms) => expect(parseDuration(text, '--timeout')).toBe(ms));

  test.each(['', '0', '-5', 'soon', '5 days', '1e3'])('%j is refused', (text) => {
    expect(() => parseDuration(text, '--timeout')).toThrow(/--timeout ".*" is not a duration[\s\S]*/);
  });
});

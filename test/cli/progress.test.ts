import { PassThrough } from 'node:stream';
import cp from 'cli-progress';
import { describe, expect, test } from 'vitest';
import { parseDuration, progressView } from '../../src/cli/eval.js';
import { barFormat, progressReporter } from '../../src/cli/progress.js';

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

  test('a new label is a new phase: its rate counts from when it began', () => {
    let now = 0;
    const lines: string[] = [];
    const p = progressReporter({ enabled: true, tty: false, intervalMs: 1000, now: () => now, write: (l) => lines.push(l) });
    now = 10_000;
    p.update({ label: 'scoring', value: 50_000, total: 0, unit: 'documents', detail: '' });
    now = 12_000;
    p.update({ label: 'report.html', value: 0, total: 100, unit: 'documents', detail: '' });
    now = 14_000;
    p.update({ label: 'report.html', value: 100, total: 100, unit: 'documents', detail: '' });
    expect(lines).toEqual(['scoring: 50000 documents (5000.0/s) (10 s)', 'report.html: 0/100 documents (0/s) (12 s)', 'report.html: 100/100 documents (50.0/s) (14 s)']);
  });

  test('an unknown total prints the count alone', () => {
    let now = 0;
    const lines: string[] = [];
    const p = progressReporter({ enabled: true, tty: false, intervalMs: 1, now: () => (now += 2), write: (l) => lines.push(l) });
    p.update({ label: 'batch', value: 0, total: 0, detail: 'bpr_1 PROCESSING' });
    expect(lines).toEqual(['batch: 0, bpr_1 PROCESSING (0.0 s)']);
  });
});

describe('progress on a terminal', () => {
  /** The last line a cli-progress bar drew with evalkit's format, on a fake terminal. */
  function drawn(total: number, value: number, payload: { label: string; detail: string; rate: string }): string {
    const out = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const bar = new cp.SingleBar({
      format: (options, params, p: { detail?: string }) => cp.Format.Formatter({ ...options, format: barFormat(params.total, params.value, p.detail ?? '') }, params, p),
      stream: out as unknown as NodeJS.WritableStream,
      forceRedraw: true,
    });
    bar.start(total, 0, payload);
    bar.update(value, payload);
    bar.stop();
    // eslint-disable-next-line no-control-regex -- the terminal's escape sequences
    const lines = text.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b[78]/g, '\n').split(/[\r\n]+/).filter((l) => l.trim() !== '');
    return lines[lines.length - 1].trimEnd();
  }

  test('an unknown total: the count and the rate, no bar, no "/0", no ETA', () => {
    const line = drawn(0, 50_000, { label: 'scoring', detail: '', rate: ' documents | 10439.8/s' });
    expect(line).toBe('scoring 50000 documents | 10439.8/s | 0s');
  });

  test('a known total: the bar, value/total, the ETA and the detail', () => {
    const line = drawn(10, 3, { label: 'runs', detail: '3 processed', rate: '' });
    expect(line).toMatch(/^runs \[[█░=\- ]+\] 3\/10 \| ETA \S+ \| 3 processed \| 0s$/);
  });

  test('nothing done yet: no ETA (cli-progress would print NFs)', () => {
    const line = drawn(12, 0, { label: 'upload', detail: '1 files uploaded', rate: ' items | 0.0/s' });
    expect(line).toMatch(/^upload \[[-=░ ]+\] 0\/12 items \| 0\.0\/s \| 1 files uploaded \| 0s$/);
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

describe('eval progress labels', () => {
  const waiting = { strategy: 'evaluation-set-run', phase: 'wait', total: 4, created: 4, ended: 1, processed: null, failed: null, elapsedMs: 10, batchRunId: 'bpr_1', status: 'PROCESSING' } as const;
  test('the evaluation set run is labelled with the command that waits for it', () => {
    expect(progressView(waiting, 'run')?.label).toBe('eval run');
    expect(progressView(waiting, 'export')?.label).toBe('eval export');
  });
});

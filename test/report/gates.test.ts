// One gate syntax for the CLI, the config file and the library (issue 35): METRIC>=N, METRIC<=N,
// and METRIC=N as an alias of >=, parsed by parseGates alone.
import { describe, expect, it } from 'vitest';
import { computeReport, parseGates } from '../../src/index.js';
import { extractExport } from '../metrics/helpers.js';

const config = { fields: [{ name: 'total', type: 'number' }, { name: 'vendor', type: 'string' }] };
// total: 3 of 4 right; vendor: 4 of 4 right: micro F1 = 2·7 / (2·7 + 1 + 1) = 0.875.
const exp = extractExport(config, [
  { e: { total: 1, vendor: 'a' }, p: { total: 1, vendor: 'a' } },
  { e: { total: 2, vendor: 'b' }, p: { total: 2, vendor: 'b' } },
  { e: { total: 3, vendor: 'c' }, p: { total: 3, vendor: 'c' } },
  { e: { total: 4, vendor: 'd' }, p: { total: 5, vendor: 'd' } },
]);

describe('parseGates', () => {
  it.each([
    ['micro.f1>=0.9', '>='],
    ['micro.f1=0.9', '>='],
    ['micro.f1 <= 0.9', '<='],
    ['latency.p95<=30000', '<='],
  ])('%s', (text, op) => {
    const [g] = parseGates([text]);
    expect(g.op).toBe(op);
    expect(g.metric).toBe(text.replace(/\s*(<=|>=|=).*$/, ''));
    expect(g.threshold).toBe(Number(text.replace(/^.*?(<=|>=|=)\s*/, '')));
  });

  it('errors name the label given, by default "gate" (no CLI flag in the library)', () => {
    expect(() => parseGates(['micro.f1'])).toThrow(/^gate "micro\.f1": expected METRIC>=N, METRIC<=N or METRIC=N/);
    expect(() => parseGates(['micro.f1'], '--fail-under')).toThrow(/^--fail-under "micro\.f1"/);
    expect(() => parseGates(['micro.f1>=90'])).toThrow(/^gate "micro\.f1>=90": the threshold must be between 0 and 1/);
  });
});

describe('computeReport gates: the same three spellings', () => {
  it.each([
    ['micro.f1>=0.9', false],
    ['micro.f1=0.9', false],
    ['micro.f1>=0.85', true],
    ['micro.f1=0.85', true],
    ['micro.f1<=0.9', true],
    ['micro.f1<=0.85', false],
  ])('%s passes: %s', (gate, passed) => {
    const r = computeReport(exp, { bootstrap: 0, gates: [gate] });
    expect(r.gates.results[0].value).toBeCloseTo(0.875, 12);
    expect(r.gates.passed).toBe(passed);
  });

  it('an unknown metric is named without a CLI flag', () => {
    expect(() => computeReport(exp, { bootstrap: 0, gates: ['micro.f2>=0.9'] })).toThrow(/^gate: no metric "micro\.f2" in this EXTRACT report/);
  });
});

// Cost and latency from the export's durationMs and credits, and their gates.
import { describe, expect, it } from 'vitest';
import { costOf } from '../../src/report/cost.js';
import { computeReport } from '../../src/report/index.js';
import { extractExport } from '../metrics/helpers.js';

describe('cost and latency', () => {
  const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } } };
  const exp = extractExport(cfg, [
    { e: { a: 'x', b: 'y' }, p: { a: 'x', b: 'y' } },
    { e: { a: 'x', b: 'y' }, p: { a: 'x', b: 'z' } },
    { e: { a: 'x', b: 'y' }, p: { a: 'x', b: 'y' } },
    { e: { a: 'x', b: 'y' }, p: { a: 'q', b: 'z' } },
  ]);
  [100, 400, 200, 1000].forEach((ms, i) => (exp.items[i].durationMs = ms));
  [1, 2, 1].forEach((c, i) => (exp.items[i].credits = c));

  it('mean, p50 and p95 with linear interpolation; credits per document and per correct field', () => {
    // Sorted 100, 200, 400, 1000: p50 at rank 1.5 = 300; p95 at rank 2.85 = 400 + 0.85 · 600 = 910.
    const c = costOf(exp.items, 'EXTRACT', 5);
    expect(c?.latency).toMatchObject({ runs: 4, mean: 425, p50: 300 });
    expect(c?.latency?.p95).toBeCloseTo(910, 9);
    expect(c?.credits).toEqual({ runs: 3, total: 4, mean: 4 / 3, perCorrect: 4 / 5, correct: 5, unit: 'field' });
    expect(costOf([], 'EXTRACT', 0)).toBeUndefined();
  });

  it('the report counts TP values as the correct fields and gates on latency and credits', () => {
    const r = computeReport(exp, { bootstrap: 0, gates: [{ gate: 'latency.p95<=900', metric: 'latency.p95', threshold: 900, op: '<=' }, { gate: 'credits.mean<=2', metric: 'credits.mean', threshold: 2, op: '<=' }] });
    expect(r.cost?.credits?.correct).toBe(5); // TP: 2 + 1 + 2 + 0
    expect(r.gates.results.map((g) => [g.gate, g.passed, g.reason])).toEqual([
      ['latency.p95<=900', false, '910 is above 900'], // 909.9999999999998 shown at three decimals
      ['credits.mean<=2', true, undefined],
    ]);
  });
});

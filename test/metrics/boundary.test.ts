// Intervals at the boundary (issue 35): no F1 interval of [1, 1] or [0, 0] from a few documents.
// Reference values: scipy.stats.binomtest(k, n).proportion_ci(0.95, 'wilson') (scipy 1.17.1):
//   n = 5: lower of 5/5 0.5655175352168251, upper of 0/5 0.43448246478317476
//   n = 15: 0.7961166989641515, 0.20388330103584862; n = 1: upper of 0/1 0.7934506856227626
import { describe, expect, it } from 'vitest';
import { documentsDefining } from '../../src/metrics/bootstrap.js';
import { boundaryInterval, clusteredProportion } from '../../src/metrics/stats.js';
import { extractExport, report } from './helpers.js';

describe('boundaryInterval', () => {
  it('widens [1, 1] and [0, 0] to the Wilson interval of the documents; leaves the others', () => {
    expect(boundaryInterval({ lower: 1, upper: 1 }, 5)).toEqual({ lower: expect.closeTo(0.5655175352168251, 14) as number, upper: 1 });
    expect(boundaryInterval({ lower: 0, upper: 0 }, 15)).toEqual({ lower: 0, upper: expect.closeTo(0.20388330103584862, 14) as number });
    expect(boundaryInterval({ lower: 0.8, upper: 1 }, 5)).toEqual({ lower: 0.8, upper: 1 });
    expect(boundaryInterval({ lower: 0.5, upper: 0.5 }, 5)).toEqual({ lower: 0.5, upper: 0.5 });
    expect(boundaryInterval(null, 5)).toBeNull();
  });
});

describe('clusteredProportion at 0 or 1: one trial per document', () => {
  it('3 documents of 4 outcomes, all right: Wilson of 3 of 3, design effect 4', () => {
    const p = clusteredProportion([4, 4, 4], [4, 4, 4]);
    expect(p.designEffect).toBe(4);
    // scipy: binomtest(3, 3).proportion_ci(0.95, 'wilson').low = 0.4385029682449546
    expect(p.interval?.lower).toBeCloseTo(0.4385029682449546, 12);
    expect(p.interval?.upper).toBe(1);
  });
});

describe('F1 intervals in a report', () => {
  const config = { fields: [{ name: 'total', type: 'number' }, { name: 'notes', type: 'string' }] };
  const exp = (n: number) =>
    extractExport(
      config,
      // total right everywhere; notes expected nowhere and predicted in document 0 only (one FA).
      Array.from({ length: n }, (_, i) => ({ e: { total: i + 1 }, p: i === 0 ? { total: i + 1, notes: 'x' } : { total: i + 1 } })),
    );

  it.each([
    [5, 0.5655175352168251],
    [15, 0.7961166989641515],
  ])('a field right on all of %i documents: [Wilson lower of n of n, 1], not [1, 1]', (n, lower) => {
    const r = report(exp(n), { bootstrap: 500 });
    const total = r.extract?.fields.find((f) => f.path === 'total');
    expect(total?.f1.value).toBe(1);
    expect(total?.f1.interval?.upper).toBe(1);
    expect(total?.f1.interval?.lower).toBeCloseTo(lower, 12);
    // notes: F1 0 from its one document with an outcome (the FA): [0, Wilson upper of 0 of 1].
    const notes = r.extract?.fields.find((f) => f.path === 'notes');
    expect(notes?.f1.value).toBe(0);
    expect(notes?.f1.interval).toEqual({ lower: 0, upper: expect.closeTo(0.7934506856227626, 12) as number });
  });
});

describe('documentsDefining', () => {
  // A model of two statistics over four documents: a = x / y (defined where y > 0), b = y / z.
  const model = {
    keys: ['a', 'b'],
    columns: [
      [1, 0, 2, 0],
      [1, 0, 3, 2],
      [0, 1, 1, 0],
    ],
    compute(s: Float64Array, out: Float64Array) {
      out[0] = s[1] > 0 ? s[0] / s[1] : NaN;
      out[1] = s[2] > 0 ? s[1] / s[2] : NaN;
    },
  };

  it('counts the documents on which each statistic is defined alone, every statistic from one pass', () => {
    expect(documentsDefining(model, 4, 0)).toBe(3);
    expect(documentsDefining(model, 4, 1)).toBe(2);
    // Over the first two documents only: counted again, not taken from the four.
    expect(documentsDefining(model, 2, 0)).toBe(1);
    expect(documentsDefining(model, 2, 1)).toBe(1);
  });
});

// The bootstrap past BOOTSTRAP_GROUPS documents resamples random groups of documents: the
// groups are equal and seeded, and the intervals agree with the documents' own bootstrap and
// with the analytic standard errors (independently computed here, not by the code under test).
import { describe, expect, it } from 'vitest';
import { BOOTSTRAP_GROUPS, bootstrap, documentBootstrap, groupBootstrap, randomGroups, type StatModel } from '../../src/metrics/bootstrap.js';
import { percentileInterval } from '../../src/metrics/stats.js';
import { seededRandom } from '../../src/util/random.js';

const sd = (xs: Float64Array): number => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
};

/** A proportion: column 0 the document's 0/1, column 1 its 1. */
function proportionModel(hits: Uint8Array): StatModel {
  return { keys: ['p'], columns: [hits, new Uint8Array(hits.length).fill(1)], compute: (s, out) => void (out[0] = s[0] / s[1]) };
}

/** A ratio of per-document counts (F1 as TP / (TP + (FP + FN) / 2)), documents of 1 to 12 values. */
function f1Model(n: number, seed: number): { model: StatModel; point: number } {
  const r = seededRandom(seed);
  const tp = new Uint8Array(n);
  const err = new Uint8Array(n);
  let T = 0;
  let E = 0;
  for (let i = 0; i < n; i++) {
    const values = 1 + Math.floor(r() * 12);
    // Documents differ in difficulty, so outcomes cluster within a document.
    const q = r() < 0.2 ? 0.5 : 0.95;
    for (let v = 0; v < values; v++) (r() < q ? tp : err)[i]++;
    T += tp[i];
    E += err[i];
  }
  return { model: { keys: ['f1'], columns: [tp, err], compute: (s, out) => void (out[0] = s[0] / (s[0] + s[1] / 2)) }, point: T / (T + E / 2) };
}

describe('bootstrap over random groups', () => {
  it('deals the documents into equal groups, the same for a seed', () => {
    const g = randomGroups(1003, 10, seededRandom(7));
    const sizes = new Array(10).fill(0);
    for (const x of g) sizes[x]++;
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(1003);
    expect(randomGroups(1003, 10, seededRandom(7))).toEqual(g);
    expect(randomGroups(1003, 10, seededRandom(8))).not.toEqual(g);
    // Not dealt in document order: the first hundred documents land in many groups.
    expect(new Set(g.slice(0, 100)).size).toBeGreaterThan(8);
  });

  it('is used past BOOTSTRAP_GROUPS documents only', () => {
    const small = proportionModel(Uint8Array.from({ length: BOOTSTRAP_GROUPS }, (_, i) => i % 3 && 1));
    const big = proportionModel(Uint8Array.from({ length: BOOTSTRAP_GROUPS + 1 }, (_, i) => i % 3 && 1));
    expect(bootstrap([big], BOOTSTRAP_GROUPS + 1, 20, 3)[0][0]).toEqual(groupBootstrap([big], BOOTSTRAP_GROUPS + 1, 20, 3, BOOTSTRAP_GROUPS)[0][0]);
    expect(bootstrap([small], BOOTSTRAP_GROUPS, 20, 3)[0][0]).not.toEqual(groupBootstrap([small], BOOTSTRAP_GROUPS, 20, 3, BOOTSTRAP_GROUPS / 2)[0][0]);
  });

  it('a proportion of 100,000 documents: the standard error sqrt(p(1-p)/n) and the interval p ± 1.96 se', () => {
    const n = 100_000;
    const r = seededRandom(11);
    const hits = Uint8Array.from({ length: n }, () => (r() < 0.9 ? 1 : 0));
    const p = hits.reduce((a, b) => a + b, 0) / n;
    const se = Math.sqrt((p * (1 - p)) / n);
    const reps = groupBootstrap([proportionModel(hits)], n, 2000, 5, BOOTSTRAP_GROUPS)[0][0];
    // 2,000 replicates estimate an SD to about 1.6% (sqrt(1/(2B))); 6% is well outside chance.
    expect(Math.abs(sd(reps) / se - 1)).toBeLessThan(0.06);
    const iv = percentileInterval(reps)!;
    expect(Math.abs(iv.lower - (p - 1.96 * se))).toBeLessThan(0.15 * 1.96 * se);
    expect(Math.abs(iv.upper - (p + 1.96 * se))).toBeLessThan(0.15 * 1.96 * se);
  });

  it('a clustered F1 of 60,000 documents: groups and documents give the same spread and interval', () => {
    const n = 60_000;
    const { model, point } = f1Model(n, 3);
    const byGroup = groupBootstrap([model], n, 1500, 9, BOOTSTRAP_GROUPS)[0][0];
    const byDocument = documentBootstrap([model], n, 1500, 9)[0][0];
    const a = sd(byGroup);
    const b = sd(byDocument);
    expect(Math.abs(a / b - 1)).toBeLessThan(0.08);
    const ig = percentileInterval(byGroup)!;
    const id = percentileInterval(byDocument)!;
    expect(ig.lower).toBeLessThan(point);
    expect(ig.upper).toBeGreaterThan(point);
    expect(Math.abs(ig.lower - id.lower)).toBeLessThan(0.3 * (point - id.lower));
    expect(Math.abs(ig.upper - id.upper)).toBeLessThan(0.3 * (id.upper - point));
  });
});

// The EXTRACT model's column sums: summed by group straight from the table's rows (sumByGroup)
// they are the sums of its materialized columns, and the statistics do not tell the two apart.
import { describe, expect, it } from 'vitest';
import { extractModel } from '../../src/metrics/models.js';
import { ExtractTable } from '../../src/metrics/table.js';
import { bootstrap, groupBootstrap, pointStats, type StatModel } from '../../src/metrics/bootstrap.js';

function table(n: number, shuffled = false): ExtractTable {
  // Fields a, b and fuzzy c (exact counts kept); each tuple [tp, tn, fa, fn, fd].
  const t = new ExtractTable(new Map([['a', 0], ['b', 1], ['c', 2]]), ['c'], false);
  for (let d = 0; d < n; d++) {
    // b's tp takes five values about equally often: its block is summed densely (columns kept);
    // one document's counts pass 255 and 65535, widening their chunk.
    const big = d === 7 ? 300 : d === 11 ? 70_000 : d % 5;
    const row = [d % 3 ? 1 : 0, 0, d % 5 === 0 ? 1 : 0, d % 7 === 0 ? 1 : 0, 0, big, 1, 0, 0, d % 11 === 0 ? 2 : 0, 3, 0, 0, 0, d % 4 === 0 ? 1 : 0];
    const id = shuffled ? `d${String((d * 7919) % n).padStart(5, '0')}` : `d${String(d).padStart(5, '0')}`;
    t.add({ id, fileId: `f${d}`, correct: d % 13 === 0, failed: false, unexpected: d % 17 === 0 ? 1 : 0 }, row, [d % 3 ? 0 : 1, 0, d % 9 === 0 ? 1 : 0, 1, d % 6 === 0 ? 1 : 0]);
  }
  t.sortById();
  return t;
}

/** The same model with its columns built once and held: the generic paths of the bootstrap. */
function withColumns(model: StatModel): StatModel {
  const groups = model.groups as number[][];
  const columns: ArrayLike<number>[] = [];
  for (const g of groups) model.materialize!(g).forEach((c, k) => (columns[g[k]] = Float64Array.from(c)));
  return { keys: model.keys, columns, compute: model.compute, groups };
}

describe('extractModel column sums', () => {
  it('sumByGroup adds up the materialized columns by group: absent fields, exact counts, counts past 255, documents out of id order', () => {
    const t = table(1000, true);
    const model = extractModel(t, ['a', 'missing', 'b', 'c'], ['c', 'also-missing']);
    const plain = withColumns(model);
    const W = plain.columns!.length;
    const group = Int32Array.from({ length: 1000 }, (_, i) => (i * 37) % 13);
    for (const [g, G] of [[null, 1], [group, 13]] as const) {
      const want = new Float64Array(W * G);
      plain.columns!.forEach((col, c) => {
        for (let i = 0; i < col.length; i++) want[c * G + (g ? g[i] : 0)] += col[i];
      });
      const got = new Float64Array(W * G);
      model.sumByGroup!(g, G, got);
      expect(Array.from(got)).toEqual(Array.from(want));
    }
  });

  it('point statistics and bootstrap replicates are the ones of columns built and held', () => {
    const t = table(3000);
    const model = extractModel(t, ['a', 'missing', 'b', 'c'], ['c']);
    const plain = withColumns(model);
    expect(Array.from(pointStats(model))).toEqual(Array.from(pointStats(plain)));
    expect(groupBootstrap([model], 3000, 50, 7, 100)).toEqual(groupBootstrap([plain], 3000, 50, 7, 100));
    expect(bootstrap([model], 3000, 20, 7)).toEqual(bootstrap([plain], 3000, 20, 7));
  });
});

// The EXTRACT model's columns: handed out afresh, or (for a caller done with them before it asks
// again) the same arrays each time, with every entry written anew; the statistics do not tell
// the two apart.
import { describe, expect, it } from 'vitest';
import { extractModel } from '../../src/metrics/models.js';
import { ExtractTable } from '../../src/metrics/table.js';
import { bootstrap, groupBootstrap, pointStats } from '../../src/metrics/bootstrap.js';

function table(n: number): ExtractTable {
  // Fields a, b and fuzzy c (exact counts kept); each tuple [tp, tn, fa, fn, fd].
  const t = new ExtractTable(new Map([['a', 0], ['b', 1], ['c', 2]]), ['c'], false);
  for (let d = 0; d < n; d++) {
    // b's tp takes five values about equally often: its block is summed densely (columns kept).
    const row = [d % 3 ? 1 : 0, 0, d % 5 === 0 ? 1 : 0, d % 7 === 0 ? 1 : 0, 0, d % 5, 1, 0, 0, d % 11 === 0 ? 2 : 0, 3, 0, 0, 0, d % 4 === 0 ? 1 : 0];
    t.add({ id: `d${String(d).padStart(5, '0')}`, fileId: `f${d}`, correct: d % 13 === 0, failed: false, unexpected: d % 17 === 0 ? 1 : 0 }, row, [d % 3 ? 0 : 1, 0, 0, 1, 0]);
  }
  t.sortById();
  return t;
}

describe('extractModel columns', () => {
  it('scratch columns are the same arrays each time, every entry rewritten: a field with no counts is zeros after one that had some', () => {
    const t = table(500);
    // `missing` has no slot: its columns are zeros.
    const model = extractModel(t, ['a', 'missing', 'b'], ['c']);
    const groups = model.groups as number[][];
    const fresh = groups.map((g) => model.materialize!(g).map((c) => Array.from(c)));
    const seen = new Set<ArrayLike<number>>();
    groups.forEach((g, k) => {
      const cols = model.materialize!(g, true);
      cols.forEach((c) => seen.add(c));
      expect(cols.map((c) => Array.from(c))).toEqual(fresh[k]);
    });
    // Three arrays serve every group (the widest has three columns).
    expect(seen.size).toBe(3);
    expect(fresh[1].flat().every((v) => v === 0)).toBe(true);
    expect(fresh[0].flat().some((v) => v !== 0)).toBe(true);
  });

  it('point statistics and bootstrap replicates are the ones of columns handed out afresh', () => {
    const t = table(3000);
    const fields = ['a', 'missing', 'b', 'c'];
    const model = extractModel(t, fields, ['c']);
    // The same model with its columns copied out once: nothing shared between groups.
    const columns = (model.groups as number[][]).flatMap((g) => model.materialize!(g).map((c) => Float64Array.from(c)));
    const order = (model.groups as number[][]).flat();
    const plain = { keys: model.keys, columns: order.map((_, k) => columns[order.indexOf(k)]), compute: model.compute, groups: model.groups };
    expect(Array.from(pointStats(model))).toEqual(Array.from(pointStats(plain)));
    expect(groupBootstrap([model], 3000, 50, 7, 100)).toEqual(groupBootstrap([plain], 3000, 50, 7, 100));
    expect(bootstrap([model], 3000, 20, 7)).toEqual(bootstrap([plain], 3000, 20, 7));
  });
});

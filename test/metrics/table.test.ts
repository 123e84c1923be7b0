// Per-document counts in chunks of bytes that widen where a value needs it.
import { describe, expect, it } from 'vitest';
import { CountStore } from '../../src/metrics/table.js';

describe('CountStore', () => {
  it('keeps every row as pushed, from typed and plain rows, across widening to 16 and 32 bits', () => {
    const store = new CountStore(3);
    const rows: number[][] = [];
    for (let d = 0; d < 40_000; d++) {
      // Values past 255 and past 65535 arrive in the middle of chunks (16,384 rows each), from
      // typed rows (odd documents) and plain ones (even).
      const big = d === 5_001 ? 300 : d === 10_000 ? 1_000 : d === 20_001 ? 70_000 : d === 33_001 ? 300 : d === 36_001 ? 70_000 : d === 30_001 ? 2 ** 31 - 1 : d % 7;
      const row = [d % 256, big, (d * 13) % 200];
      rows.push(row);
      if (d % 2) store.push(Int32Array.from([9, ...row]), 1);
      else store.push(row);
    }
    expect(store.n).toBe(40_000);
    for (const d of [0, 1, 5_000, 5_001, 5_002, 10_000, 16_383, 16_384, 20_000, 20_001, 30_001, 32_768, 33_001, 36_001, 39_999]) {
      expect([0, 1, 2].map((k) => store.get(d, k))).toEqual(rows[d]);
    }
    for (let d = 0; d < 40_000; d += 997) expect([0, 1, 2].map((k) => store.get(d, k))).toEqual(rows[d]);
  });

  it('a negative or fractional count is an internal error, whichever kind of row', () => {
    expect(() => new CountStore(2).push(Int32Array.from([1, -1]))).toThrow(/not a small whole number \(-1\)/);
    expect(() => new CountStore(2).push([1, 0.5])).toThrow(/not a small whole number/);
  });

  it('f1Columns: [tp, fa + fd, fn + fd] of one tuple for the documents in the order asked', () => {
    const store = new CountStore(10);
    store.push(Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    store.push(Int32Array.from([0, 0, 0, 0, 0, 1, 1, 300, 1, 1]));
    const tp = new Float64Array(2);
    const fp = new Float64Array(2);
    const fn = new Float64Array(2);
    store.f1Columns(5, [1, 0], tp, fp, fn);
    expect([...tp, ...fp, ...fn]).toEqual([1, 6, 301, 8 + 10, 1 + 1, 9 + 10]);
  });

  it('sumColumns: the sum of some columns of each document in the order asked, or added to what is there', () => {
    const store = new CountStore(4);
    store.push([1, 2, 3, 4]);
    store.push(Int32Array.from([10, 0, 300, 7]));
    const out = new Float64Array(2);
    store.sumColumns([1, 0], [0, 2, 3], out);
    expect([...out]).toEqual([317, 8]);
    store.sumColumns([0, 1], [1], out, true);
    expect([...out]).toEqual([319, 8]);
  });
});

/**
 * pairCells (the explorer's line and the errors file: which baseline cell a document's cell is
 * shown beside) against the pairing it replaced, written out here: a Map from each baseline
 * cell's key (cellKey) to the cell, the last of a key kept at the place of the first.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cellKey, pairCells } from '../../src/report/explorer/data.js';
import type { Cell } from '../../src/metrics/extract.js';

const PATHS = ['total', 'line_items[].amount', 'line_items[].description', 'vendor'];

function byMap(cells: readonly Cell[], baseCells: readonly Cell[]): { of: number[]; unused: number[] } {
  const pathOf = (c: Cell): string => (c.leaf < 0 ? c.path : PATHS[c.leaf]);
  const map = new Map<string, { j: number; used: boolean }>();
  baseCells.forEach((b, j) => {
    const k = cellKey(pathOf(b), b.rows);
    const had = map.get(k);
    if (had) had.j = j;
    else map.set(k, { j, used: false });
  });
  const of = cells.map((c) => {
    const b = map.get(cellKey(pathOf(c), c.rows));
    if (!b) return -1;
    b.used = true;
    return b.j;
  });
  return { of, unused: [...map.values()].filter((b) => !b.used).map((b) => b.j) };
}

const cell = (leaf: number, rows: Array<[number, number]>, path = ''): Cell => ({ leaf, path, rows, outcome: 2, expected: 'a', predicted: 'b' });

/** The cells of one document as the scorer makes them: a leaf once per row chain; keys outside the fields (leaf -1) once per row, so a path can repeat. */
const documentCells = fc
  .record({
    scalars: fc.subarray([0, 3]),
    rows: fc.array(fc.tuple(fc.integer({ min: -1, max: 5 }), fc.integer({ min: -1, max: 5 })), { maxLength: 6 }),
    stray: fc.array(fc.constantFrom('note', 'line_items[].note'), { maxLength: 4 }),
    order: fc.array(fc.nat(), { maxLength: 30 }),
  })
  .map(({ scalars, rows, stray, order }) => {
    // One row chain per expected row (or, for a row only predicted, per predicted row), as pairing makes them.
    const chains = new Map<string, [number, number]>();
    for (const [e, p] of rows) {
      const r: [number, number] = e >= 0 ? [e, p] : [-1, Math.max(p, 0)];
      chains.set(e >= 0 ? `${e}` : `+${r[1]}`, r);
    }
    const cells: Cell[] = [...scalars.map((l) => cell(l, [])), ...[...chains.values()].flatMap((r) => [cell(1, [r]), cell(2, [r])]), ...stray.map((p) => cell(-1, [], p))];
    // Mostly in the fields' order, some moved.
    for (let i = 0; i + 1 < cells.length && i < order.length; i++) if (order[i] % 4 === 0) [cells[i], cells[i + 1]] = [cells[i + 1], cells[i]];
    return cells;
  });

describe('pairCells', () => {
  it('pairs as a Map of the baseline cells by key did, with and without keys outside the fields', () => {
    fc.assert(
      fc.property(documentCells, documentCells, (cells, baseCells) => {
        const got = pairCells(cells, PATHS, baseCells, PATHS);
        const want = byMap(cells, baseCells);
        expect([...got.of]).toEqual(want.of);
        expect(got.unused).toEqual(want.unused);
      }),
      { numRuns: 2000 },
    );
  });

  it('in the same order, each cell with the baseline cell at its place; a moved or missing one found by key', () => {
    const a = [cell(0, []), cell(1, [[0, 0]]), cell(1, [[1, 2]]), cell(1, [[-1, 3]]), cell(3, [])];
    expect([...pairCells(a, PATHS, a, PATHS).of]).toEqual([0, 1, 2, 3, 4]);
    const b = [cell(3, []), cell(1, [[1, 1]]), cell(1, [[0, 5]])];
    // Row 1 and row 0 by their expected rows (the predicted row differs), row +3 only in `a`.
    expect(pairCells(a, PATHS, b, PATHS)).toEqual({ of: Int32Array.from([-1, 2, 1, -1, 0]), unused: [] });
    expect(pairCells(b, PATHS, a, PATHS)).toEqual({ of: Int32Array.from([4, 2, 1]), unused: [0, 3] });
  });
});

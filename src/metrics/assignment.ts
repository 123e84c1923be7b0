import { munkres } from 'munkres';

/**
 * A maximum-weight bipartite matching of rows to columns (the Hungarian method, from the
 * `munkres` package, on negated weights). Pairs of weight 0 are left unpaired: a row that
 * agrees with nothing is not "the same row". Returns [row, column] pairs sorted by row.
 * The result is a pure function of the matrix, so reports are reproducible.
 */
export function maxWeightPairs(weights: number[][]): Array<[number, number]> {
  if (weights.length === 0 || weights[0].length === 0) return [];
  const cost = weights.map((r) => r.map((w) => -w));
  return munkres(cost)
    .filter(([i, j]) => weights[i][j] > 0)
    .map(([i, j]): [number, number] => [i, j])
    .sort((a, b) => a[0] - b[0]);
}

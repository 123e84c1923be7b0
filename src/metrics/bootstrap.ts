/**
 * The bootstrap over documents. A statistic model turns per-document columns (counts per
 * document) into statistics through their sums; a resample draws n documents with
 * replacement (multinomial weights from the seeded PRNG) and recomputes every statistic from
 * the weighted sums. Paired comparisons give the same weights to both runs' columns.
 */
import { Rng } from './stats.js';

export interface StatModel {
  /** Statistic names, e.g. `micro.f1`, `field:total.f1`. */
  keys: string[];
  /** Per-document columns, each of length n. */
  columns: Float64Array[];
  /** Every statistic from the column sums, NaN where undefined (zero denominator). */
  compute(sums: Float64Array, out: Float64Array): void;
}

/**
 * A column as its most common value plus the documents that differ from it: a weighted sum
 * is then mode * n + sum over the differing documents, which keeps a resample of 50,000
 * mostly-correct documents cheap.
 */
interface SparseColumn {
  mode: number;
  idx: Int32Array;
  dev: Float64Array;
}

function sparsify(col: Float64Array): SparseColumn {
  const freq = new Map<number, number>();
  let mode = 0;
  let best = 0;
  for (let i = 0; i < col.length; i++) {
    const v = col[i];
    const f = (freq.get(v) ?? 0) + 1;
    freq.set(v, f);
    if (f > best) {
      best = f;
      mode = v;
    }
  }
  const m = col.length - best;
  const idx = new Int32Array(m);
  const dev = new Float64Array(m);
  let k = 0;
  for (let i = 0; i < col.length; i++) {
    if (col[i] !== mode) {
      idx[k] = i;
      dev[k] = col[i] - mode;
      k++;
    }
  }
  return { mode, idx, dev };
}

/** The statistics on the documents as they are (every weight 1). */
export function pointStats(model: StatModel): Float64Array {
  const sums = new Float64Array(model.columns.length);
  model.columns.forEach((c, i) => {
    let s = 0;
    for (let j = 0; j < c.length; j++) s += c[j];
    sums[i] = s;
  });
  const out = new Float64Array(model.keys.length);
  model.compute(sums, out);
  return out;
}

/**
 * B resamples of n documents; returns, per model and per statistic, the B resampled values
 * (NaN where undefined). All models must describe the same n documents in the same order.
 */
export function bootstrap(models: StatModel[], n: number, B: number, seed: number): Float64Array[][] {
  const rng = new Rng(seed);
  const sparse = models.map((m) => m.columns.map(sparsify));
  const sums = models.map((m) => new Float64Array(m.columns.length));
  const outs = models.map((m) => new Float64Array(m.keys.length));
  const results = models.map((m) => m.keys.map(() => new Float64Array(B)));
  const w = new Int32Array(n);
  for (let b = 0; b < B; b++) {
    w.fill(0);
    for (let j = 0; j < n; j++) w[rng.below(n)]++;
    for (let mi = 0; mi < models.length; mi++) {
      const cols = sparse[mi];
      const s = sums[mi];
      for (let c = 0; c < cols.length; c++) {
        const { mode, idx, dev } = cols[c];
        let acc = mode * n;
        for (let k = 0; k < idx.length; k++) acc += w[idx[k]] * dev[k];
        s[c] = acc;
      }
      models[mi].compute(s, outs[mi]);
      const res = results[mi];
      const out = outs[mi];
      for (let k = 0; k < out.length; k++) res[k][b] = out[k];
    }
  }
  return results;
}

/**
 * Statistics: ratios with null for zero denominators, Wilson score intervals, the exact
 * McNemar test, percentile intervals, Holm and Benjamini-Hochberg, power.
 */
import type { Interval, Proportion } from './generated/report.js';

/** The 0.975 quantile of the standard normal distribution. */
export const Z95 = 1.959963984540054;

/** k / n, or null when n is 0. */
export function ratio(k: number, n: number): number | null {
  return n === 0 ? null : k / n;
}

/** F1 = 2TP / (2TP + FP + FN): the harmonic mean of precision and recall where both exist; null when TP + FP + FN = 0. */
export function f1Score(tp: number, fp: number, fn: number): number | null {
  const d = 2 * tp + fp + fn;
  return d === 0 ? null : (2 * tp) / d;
}

/**
 * Wilson score interval for k successes in n trials:
 * (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), null when n = 0.
 */
export function wilson(k: number, n: number, z = Z95): Interval | null {
  if (n === 0) return null;
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { lower: k === 0 ? 0 : Math.max(0, center - half), upper: k === n ? 1 : Math.min(1, center + half) };
}

export function proportion(k: number, n: number): Proportion {
  return { value: ratio(k, n), k, n, interval: wilson(k, n) };
}

/**
 * Exact two-sided McNemar test: b and c are the discordant pair counts; under the null
 * hypothesis b ~ Binomial(b + c, 1/2), and p = min(1, 2 · P(X <= min(b, c))).
 * Computed in log space so that large counts neither overflow nor underflow.
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  const ln2n = n * Math.LN2;
  let logC = 0; // log C(n, 0)
  let maxLog = -Infinity;
  const logs: number[] = [];
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    const l = logC - ln2n;
    logs.push(l);
    if (l > maxLog) maxLog = l;
  }
  let sum = 0;
  for (const l of logs) sum += Math.exp(l - maxLog);
  const tail = Math.exp(maxLog + Math.log(sum));
  return Math.min(1, 2 * tail);
}

/** Quantile q of sorted values, linear interpolation between order statistics (type 7). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 1) return sorted[0];
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/**
 * 2.5% and 97.5% quantiles of the defined (non-NaN) resample values; null when fewer than
 * half of the resamples gave a value.
 */
export function percentileInterval(values: Float64Array): Interval | null {
  const defined = values.filter((v) => !Number.isNaN(v)).sort();
  if (defined.length === 0 || defined.length * 2 < values.length) return null;
  return { lower: quantileSorted(defined, 0.025), upper: quantileSorted(defined, 0.975) };
}

/**
 * A bootstrap percentile interval that collapsed at the boundary ([1, 1] or [0, 0]: every
 * resample gave the same extreme value) claims a certainty its documents cannot give. It is
 * widened to the Wilson interval of the C documents that define the statistic, each taken as one
 * trial that went all right (or all wrong): [wilson(C, C).lower, 1] or [0, wilson(0, C).upper].
 * One document per trial is the most conservative design effect (a document's outcomes fully
 * correlated), the only one the data allow when every document agrees. Other intervals are kept.
 */
export function boundaryInterval(iv: Interval | null, documents: number | (() => number)): Interval | null {
  if (!iv || iv.lower !== iv.upper || (iv.lower !== 0 && iv.lower !== 1)) return iv;
  // Counted only here: most intervals are not at the boundary.
  const C = typeof documents === 'number' ? documents : documents();
  if (C === 0) return iv;
  const w = wilson(iv.lower === 1 ? C : 0, C) as Interval;
  return iv.lower === 1 ? { lower: w.lower, upper: 1 } : { lower: 0, upper: w.upper };
}

/** The 0.8 quantile of the standard normal distribution (80% power). */
export const Z80 = 0.8416212335729143;

/**
 * Wilson interval widened for clustered outcomes. Document i contributes k_i successes in n_i
 * outcomes; when every n_i is 0 or 1 the outcomes are independent across documents and this is
 * the plain Wilson interval. Otherwise the variance of p = Σk / Σn is the cluster-robust one of
 * a ratio estimator, v = C/(C−1) · Σ(k_i − p·n_i)² / (Σn)² over the C documents with n_i > 0,
 * the design effect is deff = max(1, v / (p(1−p)/Σn)) (Σn / C when p is 0 or 1: one trial per
 * document), and the interval is Wilson's with n / deff outcomes at the same p. One document alone
 * has deff = Σn.
 */
export function clusteredProportion(k: ArrayLike<number>, n: ArrayLike<number>): Proportion {
  const sums = new ClusterSums();
  for (let i = 0; i < n.length; i++) sums.add(k[i], n[i]);
  return sums.proportion();
}

/**
 * The sums clusteredProportion needs, gathered document by document without keeping the
 * documents: Σk, Σn, Σk², Σk·n, Σn², C and whether some n_i > 1. Σ(k_i − p·n_i)² is
 * Σk² − 2p·Σk·n + p²·Σn² (exact for counts).
 */
export class ClusterSums {
  K = 0;
  N = 0;
  KK = 0;
  KN = 0;
  NN = 0;
  /** Documents with n > 0. */
  C = 0;
  clustered = false;

  add(k: number, n: number): void {
    if (n === 0) return;
    this.K += k;
    this.N += n;
    this.KK += k * k;
    this.KN += k * n;
    this.NN += n * n;
    this.C++;
    if (n > 1) this.clustered = true;
  }

  /** Members a packed copy takes in a Float64Array: K, N, KK, KN, NN, C, clustered (1 or 0). */
  static readonly PACKED = 7;

  /**
   * `add` on a packed copy at `v[o]`: the same operations in the same order (many sums updated
   * for every document cost less as one array than as one object each).
   */
  static addPacked(v: Float64Array, o: number, k: number, n: number): void {
    if (n === 0) return;
    v[o] += k;
    v[o + 1] += n;
    v[o + 2] += k * k;
    v[o + 3] += k * n;
    v[o + 4] += n * n;
    v[o + 5]++;
    if (n > 1) v[o + 6] = 1;
  }

  /** The sums of a packed copy at `v[o]`. */
  static fromPacked(v: ArrayLike<number>, o: number): ClusterSums {
    const c = new ClusterSums();
    c.K = v[o];
    c.N = v[o + 1];
    c.KK = v[o + 2];
    c.KN = v[o + 3];
    c.NN = v[o + 4];
    c.C = v[o + 5];
    c.clustered = v[o + 6] === 1;
    return c;
  }

  /** The sums of the documents in this and not in `o` (a subset of them). */
  minus(o: ClusterSums): ClusterSums {
    const r = new ClusterSums();
    r.K = this.K - o.K;
    r.N = this.N - o.N;
    r.KK = this.KK - o.KK;
    r.KN = this.KN - o.KN;
    r.NN = this.NN - o.NN;
    r.C = this.C - o.C;
    r.clustered = this.clustered;
    return r;
  }

  /** Cluster-robust variance of K/N around p: C/(C − 1) · Σ(k_i − p·n_i)² / N²; null below 2 documents. */
  robustVariance(p: number): number | null {
    const { N, C } = this;
    if (C < 2 || N === 0) return null;
    const ss = Math.max(0, this.KK - 2 * p * this.KN + p * p * this.NN);
    return ((C / (C - 1)) * ss) / (N * N);
  }

  proportion(): Proportion {
    const { K, N, C } = this;
    if (!this.clustered || N === 0) return proportion(K, N);
    const p = K / N;
    // At p = 0 or 1 every document agrees and the variance says nothing about the correlation
    // inside a document: the most conservative design effect, each document one trial (N / C).
    let deff = N / C;
    if (p > 0 && p < 1) {
      if (C < 2) deff = N;
      else deff = Math.max(1, (this.robustVariance(p) as number) / ((p * (1 - p)) / N));
    }
    const nEff = N / deff;
    return { value: p, k: K, n: N, interval: wilson(p * nEff, nEff), designEffect: deff };
  }
}

/**
 * Standard normal CDF Φ(z) = erfc(−z/√2)/2, with erfc from the Chebyshev fit of Numerical Recipes
 * (erfcc; fractional error below 1.2e-7 everywhere).
 */
export function normalCdf(z: number): number {
  const x = -z / Math.SQRT2;
  const a = Math.abs(x);
  const t = 1 / (1 + 0.5 * a);
  const y =
    t *
    Math.exp(
      -a * a -
        1.26551223 +
        t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return (x >= 0 ? y : 2 - y) / 2;
}

/** Holm's step-down adjusted p-values (same order as given): max over j ≤ i of min(1, (m − j + 1)·p_(j)). */
export function holm(ps: readonly number[]): number[] {
  const m = ps.length;
  const order = ps.map((_, i) => i).sort((a, b) => ps[a] - ps[b] || a - b);
  const out = new Array<number>(m);
  let run = 0;
  order.forEach((i, rank) => {
    run = Math.max(run, Math.min(1, (m - rank) * ps[i]));
    out[i] = run;
  });
  return out;
}

/** Benjamini-Hochberg q-values (same order as given): min over j ≥ i of min(1, m·p_(j) / j). */
export function benjaminiHochberg(ps: readonly number[]): number[] {
  const m = ps.length;
  const order = ps.map((_, i) => i).sort((a, b) => ps[a] - ps[b] || a - b);
  const out = new Array<number>(m);
  let run = 1;
  for (let rank = m - 1; rank >= 0; rank--) {
    const i = order[rank];
    run = Math.min(run, Math.min(1, (m * ps[i]) / (rank + 1)));
    out[i] = run;
  }
  return out;
}

/**
 * Minimum detectable effect of a paired comparison on per-document correctness: the smallest
 * |p01 − p10| that McNemar's test detects with 80% power at two-sided 5%, for n pairs whose
 * discordance rate is d = (b + c)/n. From n = (z₀.₉₇₅ + z₀.₈)²·d/δ², δ = z·sqrt(d/n); as a
 * change of δ needs at least δ·n discordant pairs, d is taken as at least δ, which makes
 * δ at least z²/n. At most 1 (no change is detectable); null for n = 0.
 */
export function mcnemarMde(b: number, c: number, n: number): number | null {
  if (n === 0) return null;
  const z = Z95 + Z80;
  const d = (b + c) / n;
  // A change in a rate cannot exceed 1: at 1 no change of any size is detectable.
  return Math.min(1, Math.max(z * Math.sqrt(d / n), (z * z) / n));
}

/** Pairs a McNemar comparison needs to detect a change of `effect` at 80% power (discordance d). */
export function mcnemarPairsNeeded(effect: number, d: number): number {
  const z = Z95 + Z80;
  return Math.ceil((z * z * Math.max(d, effect)) / (effect * effect));
}

/**
 * The smallest Holm-adjusted exact McNemar p that m comparisons over n paired documents can give,
 * whatever the outcomes: every document discordant in one direction (b = n, c = 0) gives
 * p = 2·2^−n, and Holm multiplies the smallest p by m: min(1, m·2^(1−n)).
 */
export function smallestHolmMcnemar(n: number, m: number): number {
  return Math.min(1, m / 2 ** (n - 1));
}

/** The fewest paired documents at which m McNemar comparisons (Holm) can reach p < alpha: the least n with m·2^(1−n) < alpha. */
export function pairsForSignificance(m: number, alpha: number): number {
  let n = 1;
  while (smallestHolmMcnemar(n, m) >= alpha) n++;
  return n;
}

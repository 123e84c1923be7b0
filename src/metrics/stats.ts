/**
 * Statistics: ratios with null for zero denominators, Wilson score intervals, the exact
 * McNemar test, percentile intervals, and the seeded PRNG behind every bootstrap.
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
 * sfc32, seeded through splitmix32: small, fast, and the same sequence on every platform,
 * so the same seed gives the same bootstrap and the same report.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let t = s ^ (s >>> 16);
      t = Math.imul(t, 0x21f0aaad);
      t ^= t >>> 15;
      t = Math.imul(t, 0x735a2d97);
      return (t ^ (t >>> 15)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor((this.u32() / 4294967296) * n);
  }
}

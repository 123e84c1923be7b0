/**
 * Confidence: how well the service's confidence predicts correctness (reliability bins, ECE,
 * Brier score, AUROC) and the auto-accept threshold sweep. Inputs are (confidence, correct)
 * pairs of predicted values; values without a confidence are counted apart, never guessed.
 */
import { isPlainObject, own } from '../util/json.js';
import type { CalibrationBin, CalibrationReport, FieldCalibration, Proportion, ThresholdPoint } from './generated/report.js';
import { proportion, wilson } from './stats.js';

export const CONFIDENCE_SOURCES = ['logprobs', 'ocr', 'review', 'min'] as const;
export type ConfidenceSource = (typeof CONFIDENCE_SOURCES)[number];

/** Reliability-diagram bins: [0, 0.1), [0.1, 0.2), ..., [0.9, 1.0]. */
export const BINS = 10;

/** A confidence as a probability: a finite number from 0 to 1; anything else is no confidence (never clamped). */
export function unit(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1 ? v : undefined;
}

/** reviewAgentScore 1..5 as 0..1: (score − 1) / 4. */
function review(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 1 && v <= 5 ? (v - 1) / 4 : undefined;
}

/**
 * The confidence of one metadata entry (`{logprobsConfidence, ocrConfidence, reviewAgentScore}`)
 * from a source; `min` is the least of those present. Undefined when the source gives none.
 */
export function confidenceFrom(entry: unknown, source: ConfidenceSource): number | undefined {
  if (!isPlainObject(entry)) return undefined;
  const lp = unit(own(entry, 'logprobsConfidence'));
  const ocr = unit(own(entry, 'ocrConfidence'));
  const rv = review(own(entry, 'reviewAgentScore'));
  switch (source) {
    case 'logprobs':
      return lp;
    case 'ocr':
      return ocr;
    case 'review':
      return rv;
    case 'min': {
      const xs = [lp, ocr, rv].filter((x): x is number => x !== undefined);
      return xs.length ? Math.min(...xs) : undefined;
    }
  }
}

/**
 * The source a report uses when none is asked for: logprobs where any metadata entry has it,
 * else OCR, else the review score; undefined when no entry has any.
 */
export function defaultSource(entries: Iterable<unknown>): ConfidenceSource | undefined {
  let ocr = false;
  let rv = false;
  for (const e of entries) {
    if (!isPlainObject(e)) continue;
    if (unit(own(e, 'logprobsConfidence')) !== undefined) return 'logprobs';
    if (unit(own(e, 'ocrConfidence')) !== undefined) ocr = true;
    if (review(own(e, 'reviewAgentScore')) !== undefined) rv = true;
  }
  return ocr ? 'ocr' : rv ? 'review' : undefined;
}

export interface Calibration {
  bins: CalibrationBin[];
  /** Expected calibration error: Σ_b (n_b / N) · |accuracy_b − mean confidence_b|. */
  ece: number | null;
  /** Mean of (confidence − correct)². */
  brier: number | null;
  /** P(a correct value's confidence > a wrong one's), ties counted half; null without both kinds. */
  auroc: number | null;
}

/** Bin of a confidence: floor(10c), with 1.0 in the last bin. */
const binOf = (c: number): number => Math.min(BINS - 1, Math.floor(c * BINS));

export function calibrate(conf: ArrayLike<number>, correct: ArrayLike<number>): Calibration {
  const N = conf.length;
  const count = new Float64Array(BINS);
  const sumConf = new Float64Array(BINS);
  const right = new Float64Array(BINS);
  let brier = 0;
  for (let i = 0; i < N; i++) {
    const b = binOf(conf[i]);
    count[b]++;
    sumConf[b] += conf[i];
    right[b] += correct[i];
    brier += (conf[i] - correct[i]) ** 2;
  }
  const bins: CalibrationBin[] = [];
  let ece = 0;
  for (let b = 0; b < BINS; b++) {
    if (count[b] === 0) continue;
    const meanConfidence = sumConf[b] / count[b];
    const accuracy = right[b] / count[b];
    ece += (count[b] / N) * Math.abs(accuracy - meanConfidence);
    bins.push({ lower: b / BINS, upper: (b + 1) / BINS, count: count[b], meanConfidence, accuracy, interval: wilson(right[b], count[b]) });
  }
  return { bins, ece: N ? ece : null, brier: N ? brier / N : null, auroc: auroc(conf, correct) };
}

/** Mann-Whitney AUROC of confidence against correctness, ties counted half (midranks). */
export function auroc(conf: ArrayLike<number>, correct: ArrayLike<number>): number | null {
  const N = conf.length;
  const order = Array.from({ length: N }, (_, i) => i).sort((a, b) => conf[a] - conf[b]);
  let pos = 0;
  let rankSum = 0;
  for (let i = 0; i < N; ) {
    let j = i;
    while (j + 1 < N && conf[order[j + 1]] === conf[order[i]]) j++;
    const mid = (i + j) / 2 + 1; // ranks are 1-based
    for (let k = i; k <= j; k++) {
      if (correct[order[k]]) {
        pos++;
        rankSum += mid;
      }
    }
    i = j + 1;
  }
  const neg = N - pos;
  if (pos === 0 || neg === 0) return null;
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
}

/**
 * The auto-accept sweep of one field. `total` counts every predicted value of the field (with a
 * confidence or not: a value without one is never accepted). At each distinct confidence t, the
 * values with confidence ≥ t are accepted: their accuracy with its Wilson interval, and the
 * coverage accepted / total. With `target`, the choice is the lowest t whose accepted set has its
 * Wilson lower bound at or above the target (null when none does): a small accepted set cannot
 * pass by luck.
 */
export function thresholdSweep(conf: ArrayLike<number>, correct: ArrayLike<number>, total: number, target?: number): { points: ThresholdPoint[]; choice: ThresholdPoint | null } {
  const order = Array.from({ length: conf.length }, (_, i) => i).sort((a, b) => conf[b] - conf[a]);
  const points: ThresholdPoint[] = [];
  let accepted = 0;
  let right = 0;
  for (let i = 0; i < order.length; ) {
    const t = conf[order[i]];
    while (i < order.length && conf[order[i]] === t) {
      accepted++;
      right += correct[order[i]];
      i++;
    }
    const iv = wilson(right, accepted);
    points.push({ threshold: t, accepted, correct: right, accuracy: right / accepted, lower: iv?.lower ?? 0, coverage: total ? accepted / total : 0 });
  }
  if (target === undefined) return { points, choice: null };
  // The lowest threshold is the last point (thresholds descend) that reaches the target.
  let chosen: ThresholdPoint | undefined;
  for (const p of points) if (p.lower >= target) chosen = p;
  return { points, choice: chosen ? { ...chosen } : null };
}

/** At most `max` points of a sweep, evenly spaced by rank, the first and last kept (for report.json). */
export function thinSweep(points: ThresholdPoint[], max = 50): ThresholdPoint[] {
  if (points.length <= max) return points;
  const out: ThresholdPoint[] = [];
  for (let k = 0; k < max; k++) out.push(points[Math.round((k * (points.length - 1)) / (max - 1))]);
  return out;
}

/**
 * Path -> confidence of one output: its `metadata` entries (JSON Schema form), or each field's
 * `confidence` in the legacy form (fieldName -> {id, value, confidence}, keyed by id).
 * Undefined when the output carries no confidence at all.
 */
export function confidenceMap(output: unknown, source: ConfidenceSource): Map<string, number> | undefined {
  if (!isPlainObject(output)) return undefined;
  const map = new Map<string, number>();
  const metadata = own(output, 'metadata');
  if (isPlainObject(metadata)) {
    for (const [path, entry] of Object.entries(metadata)) {
      const c = confidenceFrom(entry, source);
      if (c !== undefined) map.set(path, c);
    }
  } else if (!isPlainObject(own(output, 'value'))) {
    for (const name of Object.keys(output)) {
      const f = output[name];
      if (!isPlainObject(f) || !Object.hasOwn(f, 'value')) continue;
      const c = unit(own(f, 'confidence'));
      const id = own(f, 'id');
      if (c !== undefined) map.set(typeof id === 'string' && id !== '' ? id : name, c);
    }
  }
  return map.size ? map : undefined;
}

/** The metadata entries of outputs, for defaultSource. */
export function* metadataEntries(outputs: Iterable<unknown>): Iterable<unknown> {
  for (const o of outputs) {
    const m = isPlainObject(o) ? own(o, 'metadata') : undefined;
    if (isPlainObject(m)) yield* Object.values(m);
  }
}

/** Growable per-field lists of (confidence, right) and the count of values without confidence. */
export class ConfidenceLog {
  readonly conf: number[][];
  readonly right: number[][];
  readonly missing: Int32Array;
  constructor(readonly units: number) {
    this.conf = Array.from({ length: units }, () => []);
    this.right = Array.from({ length: units }, () => []);
    this.missing = new Int32Array(units);
  }
  add(unit: number, conf: number, right: number): void {
    if (Number.isNaN(conf)) this.missing[unit]++;
    else {
      this.conf[unit].push(conf);
      this.right[unit].push(right);
    }
  }
}

/** Every predicted value of every document, in document order: its unit (field) and confidence (NaN: none). */
export interface ValuesByDocument {
  start: number[];
  unit: number[];
  conf: number[];
}

/**
 * The report's confidence section from the logged values: per field (by `paths`, in that
 * order) and overall, calibration and the threshold sweep; with a target, each field's
 * threshold and the straight-through rate: the share of documents whose every predicted value
 * has a confidence at or above its field's threshold (a field without one accepts nothing; a
 * failed run is never straight-through).
 */
export function buildCalibration(
  log: ConfidenceLog,
  paths: readonly string[],
  byDoc: ValuesByDocument,
  failed: ArrayLike<number>,
  source: ConfidenceSource,
  target: number | undefined,
): CalibrationReport & { perDocument?: Uint8Array } {
  const fields: FieldCalibration[] = paths.map((path, u) => {
    const c = log.conf[u];
    const r = log.right[u];
    const { points, choice } = thresholdSweep(c, r, c.length + log.missing[u], target);
    return { path, withConfidence: c.length, withoutConfidence: log.missing[u], ...calibrate(c, r), sweep: thinSweep(points), threshold: choice };
  });
  const allConf = log.conf.flat();
  const allRight = log.right.flat();
  const missing = log.missing.reduce((a, b) => a + b, 0);
  let straightThrough: Proportion | null = null;
  let perDocument: Uint8Array | undefined;
  if (target !== undefined) {
    const thresholds = fields.map((f) => f.threshold?.threshold ?? Infinity);
    const docs = byDoc.start.length - 1;
    let accepted = 0;
    perDocument = new Uint8Array(docs);
    for (let d = 0; d < docs; d++) {
      if (failed[d]) continue;
      let all = true;
      for (let k = byDoc.start[d]; k < byDoc.start[d + 1] && all; k++) {
        const c = byDoc.conf[k];
        all = !Number.isNaN(c) && c >= thresholds[byDoc.unit[k]];
      }
      if (all) {
        accepted++;
        perDocument[d] = 1;
      }
    }
    straightThrough = proportion(accepted, docs);
  }
  return {
    perDocument,
    source,
    targetAccuracy: target ?? null,
    overall: { withConfidence: allConf.length, withoutConfidence: missing, ...calibrate(allConf, allRight) },
    fields,
    straightThrough,
  };
}

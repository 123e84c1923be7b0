/**
 * The metrics the service computes for an evaluation set run (API 2026-02-09, spec 4.2:
 * `EvaluationSetRun.metrics`), by their published definitions. One implementation serves twice:
 * the sandbox answers `GET /evaluation_set_runs/{id}` with it, and `evalkit report` recomputes the
 * service's figures from the per-item outputs to check the service's own answer.
 *
 * Where the spec says "not shown", the choices below are ours (docs/metrics.md, "The service's
 * metrics"); each is marked DECIDED.
 */

type Json = Record<string, unknown>;

export type ServiceMetricsType = 'EXTRACT' | 'CLASSIFY' | 'SPLITTER';

/** One item of the run: its expected output (2026-02-09 form, spec 3.7) and its run. */
export interface ServiceItem {
  expected: unknown;
  /** The run's status; only PROCESSED runs have an output that is scored. */
  status: string;
  /** The run's output (`{value, metadata}`, `{id, type, ...}`, `{splits}`); null when none. */
  output: unknown;
  /** Processing time of the file in ms (PROCESSED runs). */
  latencyMs?: number;
  /** Pages of the file (PROCESSED runs). */
  pages?: number;
}

export interface FieldMetric {
  countTotal: number;
  countPresent: number;
  countExpected: number;
  countAccurate: number;
  accuracy?: number;
}

export interface ClassMetric {
  countExpected: number;
  countPredicted: number;
  countCorrect: number;
  precision?: number;
  recall?: number;
  f1?: number;
}

export interface BaseMetrics {
  numFilesTotal: number;
  numFilesProcessed: number;
  /** Deprecated alias of numFilesProcessed (spec 4.2). */
  numFiles: number;
  numPages: number;
  meanLatencyMs?: number;
  p50LatencyMs?: number;
  p90LatencyMs?: number;
  p95LatencyMs?: number;
  p99LatencyMs?: number;
}

export type ServiceMetrics =
  | (BaseMetrics & { type: 'EXTRACT'; accuracy?: number; fieldMetrics: Record<string, FieldMetric> })
  | (BaseMetrics & { type: 'CLASSIFY'; accuracy?: number; classificationMetrics: Record<string, ClassMetric> })
  | (BaseMetrics & { type: 'SPLITTER'; precision?: number; recall?: number; f1?: number; numSplitsExpected: number; numSplitsPredicted: number; numSplitsCorrect: number });

/**
 * The metrics of spec 4.2 for `items` run against a config (2026-02-09 or 2025-04-21 layout: only
 * `schema`/`fields`, `classifications` are read).
 */
export function serviceMetrics(type: ServiceMetricsType, config: Json, items: readonly ServiceItem[]): ServiceMetrics {
  const acc = new ServiceMetricsAccumulator(type, config);
  for (const item of items) acc.add(item);
  return acc.result();
}

/** Whether the service scores this run: PROCESSED with an output (spec 4.2 scores only those). */
export function isScored(item: Pick<ServiceItem, 'status' | 'output'>): boolean {
  return item.status === 'PROCESSED' && item.output !== null && typeof item.output === 'object';
}

/**
 * serviceMetrics one item at a time: a report reading a JSONL export recomputes the service's
 * figures in its one scoring pass without holding the items.
 */
export class ServiceMetricsAccumulator {
  readonly #type: ServiceMetricsType;
  readonly #base = new BaseAccumulator();
  readonly #part: { add(item: ServiceItem, onField?: OnField): void; result(): object };

  constructor(type: ServiceMetricsType, config: Json) {
    this.#type = type;
    this.#part = type === 'EXTRACT' ? new ExtractAccumulator(config) : type === 'CLASSIFY' ? new ClassifyAccumulator(config) : new SplitterAccumulator();
  }

  /**
   * `onField` sees each field of a scored EXTRACT run as the metrics count it (the report's
   * reconciliation reads them rather than comparing twice).
   */
  add(item: ServiceItem, onField?: OnField): void {
    this.#base.add(item);
    if (isScored(item)) this.#part.add(item, onField);
  }

  result(): ServiceMetrics {
    return { type: this.#type, ...this.#base.result(), ...this.#part.result() } as ServiceMetrics;
  }
}

/** `a / b`, omitted (undefined) when `b` is 0: all ratios of spec 4.2 are optional. */
function ratio(a: number, b: number): number | undefined {
  return b === 0 ? undefined : a / b;
}

/** Harmonic mean of precision and recall; 0 when both are 0; omitted when either is. */
export function harmonic(p: number | undefined, r: number | undefined): number | undefined {
  if (p === undefined || r === undefined) return undefined;
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}

/**
 * DECIDED: numFilesProcessed counts runs that ended (PROCESSED, FAILED or CANCELLED): "files
 * finished so far"; numPages and the latencies count PROCESSED runs. Percentiles are nearest-rank
 * (the smallest latency with at least p% of the latencies at or below it).
 */
class BaseAccumulator {
  #total = 0;
  #done = 0;
  #pages = 0;
  readonly #lat: number[] = [];

  add(i: ServiceItem): void {
    this.#total++;
    const status = i.status;
    if (status === 'PROCESSED' || status === 'FAILED' || status === 'CANCELLED') this.#done++;
    if (status !== 'PROCESSED') return;
    this.#pages += i.pages ?? 0;
    if (typeof i.latencyMs === 'number' && Number.isFinite(i.latencyMs)) this.#lat.push(i.latencyMs);
  }

  result(): BaseMetrics {
    const out: BaseMetrics = { numFilesTotal: this.#total, numFilesProcessed: this.#done, numFiles: this.#done, numPages: this.#pages };
    const lat = [...this.#lat].sort((a, b) => a - b);
    if (lat.length) {
      out.meanLatencyMs = lat.reduce((s, v) => s + v, 0) / lat.length;
      out.p50LatencyMs = nearestRank(lat, 50);
      out.p90LatencyMs = nearestRank(lat, 90);
      out.p95LatencyMs = nearestRank(lat, 95);
      out.p99LatencyMs = nearestRank(lat, 99);
    }
    return out;
  }
}

export function nearestRank(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

// ---------------------------------------------------------------------------------------------
// EXTRACT

/**
 * Field paths of a config, dot-joined (spec 4.2). DECIDED: a plain object field is flattened into
 * its members; a field with a service custom type (`extend:type`: currency, signature, date) and an
 * array field are one field each, compared whole. A fields-form config gives its field names.
 */
export function fieldPaths(config: Json): string[] {
  const out: string[] = [];
  const schema = config.schema;
  if (schema && typeof schema === 'object') walkSchema(schema as Json, '', out);
  else if (Array.isArray(config.fields)) {
    for (const f of config.fields as Json[]) if (f && typeof f.name === 'string') out.push(f.name);
  }
  return out;
}

function walkSchema(node: Json, prefix: string, out: string[]): void {
  const props = node.properties;
  if (!props || typeof props !== 'object') return;
  for (const [key, child] of Object.entries(props as Record<string, Json>)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const types = Array.isArray(child?.type) ? (child.type as unknown[]) : [child?.type];
    const isObject = types.includes('object') && child.properties !== undefined && child['extend:type'] === undefined;
    if (isObject) walkSchema(child, path, out);
    else out.push(path);
  }
}

/** The value at a dot-joined path (keys taken whole first: a key may itself contain a dot). */
export function valueAt(value: unknown, path: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const o = value as Json;
  if (Object.hasOwn(o, path)) return o[path];
  const dot = path.indexOf('.');
  if (dot < 0) return undefined;
  for (let i = dot; i >= 0 && i < path.length; i = path.indexOf('.', i + 1)) {
    const head = path.slice(0, i);
    if (Object.hasOwn(o, head)) return valueAt(o[head], path.slice(i + 1));
  }
  return undefined;
}

/** DECIDED: "no value" is absent or JSON null; anything else (an empty string or array too) is a value. */
export function hasValue(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/**
 * DECIDED: "matched" is equality of JSON values (object key order ignored), no normalisation.
 * Called for every field of every scored run: plain loops, members that are equal primitives
 * compared in place, no arrays of keys or closures.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const isArray = Array.isArray(a);
  if (isArray !== Array.isArray(b)) return false;
  return isArray ? sameArray(a as unknown[], b as unknown[]) : sameObject(a as Json, b as Json);
}

function sameArray(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x !== y && !sameJson(x, y)) return false;
  }
  return true;
}

/** Own enumerable members alike: the same keys (any order), each with the same value. */
function sameObject(a: Json, b: Json): boolean {
  let n = 0;
  for (const k in a) {
    const x = a[k];
    const y = b[k];
    // A differing value decides at once (if the key is a's own; b's own or not, it differs).
    if (x !== y && !sameJson(x, y)) {
      if (Object.hasOwn(a, k)) return false;
      continue;
    }
    if (!Object.hasOwn(a, k)) continue;
    if (!Object.hasOwn(b, k)) return false;
    n++;
  }
  // Every own key of a is b's, with the same value: equal when b has no other.
  for (const k in b) if (Object.hasOwn(b, k) && --n < 0) return false;
  return n === 0;
}

/** The extracted record: `output.value` (schema form) or each field's `value` (fields form). */
function extractedRecord(output: unknown): unknown {
  const o = output as Json;
  if (Object.hasOwn(o, 'value') && (o.value === null || typeof o.value === 'object') && !Array.isArray(o.value)) return o.value;
  const rec: Json = {};
  for (const [k, v] of Object.entries(o)) if (v && typeof v === 'object' && Object.hasOwn(v as Json, 'value')) rec[k] = (v as Json).value;
  return rec;
}

function expectedRecord(expected: unknown): unknown {
  if (!expected || typeof expected !== 'object') return undefined;
  const e = expected as Json;
  return Object.hasOwn(e, 'value') ? e.value : undefined;
}

/**
 * countTotal: scored runs (every run's schema includes every field of the config); countPresent:
 * runs with a value; countExpected: runs whose expected output has a value; countAccurate: runs with
 * an expected value that the extracted value equals. accuracy = countAccurate / countExpected.
 * DECIDED: the aggregate `accuracy` pools every field's counts (sum of countAccurate over sum of
 * countExpected, a micro average).
 */
class ExtractAccumulator {
  readonly #paths: string[];
  /** Per path: whether it has a dot (a member of an object field, looked up by valueAt). */
  readonly #dotted: boolean[];
  /** Per path k: countPresent, countExpected, countAccurate at 3k, 3k + 1, 3k + 2. */
  readonly #counts: Float64Array;
  #scored = 0;
  /** A run's extracted and expected values per path (reused from run to run). */
  readonly #got: unknown[];
  readonly #want: unknown[];
  /** Per path without a dot: where the last extracted (expected) record had its key (records of a run share their key order). */
  readonly #gotAt: number[];
  readonly #wantAt: number[];

  constructor(config: Json) {
    this.#paths = fieldPaths(config);
    this.#dotted = this.#paths.map((p) => p.includes('.'));
    this.#counts = new Float64Array(3 * this.#paths.length);
    this.#got = this.#paths.map(() => undefined);
    this.#want = this.#paths.map(() => undefined);
    this.#gotAt = this.#paths.map((_, k) => k);
    this.#wantAt = this.#paths.map((_, k) => k);
  }

  /**
   * Each path's value in `record` into `out`. One Object.keys/Object.values of the record
   * instead of a lookup per path: a record's keys are in the order of the last one's.
   */
  #values(record: unknown, out: unknown[], at: number[]): void {
    const paths = this.#paths;
    const rec = recordObject(record);
    if (rec === undefined) {
      out.fill(undefined);
      return;
    }
    const keys = Object.keys(rec);
    const values = Object.values(rec);
    for (let k = 0; k < paths.length; k++) {
      const path = paths[k];
      if (this.#dotted[k]) {
        out[k] = valueAt(rec, path);
        continue;
      }
      let j = at[k];
      if (keys[j] !== path) at[k] = j = keys.indexOf(path);
      out[k] = j >= 0 ? values[j] : Object.hasOwn(rec, path) ? rec[path] : undefined;
    }
  }

  add(item: ServiceItem, onField?: OnField): void {
    const got = this.#got;
    const want = this.#want;
    this.#values(extractedRecord(item.output), got, this.#gotAt);
    this.#values(expectedRecord(item.expected), want, this.#wantAt);
    const c = this.#counts;
    this.#scored++;
    for (let k = 0; k < got.length; k++) {
      const g = got[k];
      const w = want[k];
      let bits = 0;
      if (g !== undefined && g !== null) {
        bits = PRESENT;
        c[3 * k]++;
      }
      if (w !== undefined && w !== null) {
        bits |= EXPECTED;
        c[3 * k + 1]++;
        if (g === w || sameJson(g, w)) {
          bits |= ACCURATE;
          c[3 * k + 2]++;
        }
      }
      if (onField) onField(k, g, w, bits);
    }
  }

  result(): { accuracy?: number; fieldMetrics: Record<string, FieldMetric> } {
    // Field paths are users' keys (`__proto__` is one): entries, made an object by fromEntries.
    const entries: Array<[string, FieldMetric]> = [];
    let accurate = 0;
    let expectedTotal = 0;
    const c = this.#counts;
    this.#paths.forEach((path, k) => {
      const m: FieldMetric = { countTotal: this.#scored, countPresent: c[3 * k], countExpected: c[3 * k + 1], countAccurate: c[3 * k + 2] };
      const acc = ratio(m.countAccurate, m.countExpected);
      if (acc !== undefined) m.accuracy = acc;
      entries.push([path, m]);
      accurate += m.countAccurate;
      expectedTotal += m.countExpected;
    });
    const fieldMetrics: Record<string, FieldMetric> = Object.fromEntries(entries);
    const accuracy = ratio(accurate, expectedTotal);
    return accuracy === undefined ? { fieldMetrics } : { accuracy, fieldMetrics };
  }
}

/** A record the fields are read from: a plain object, else none (every field absent). */
function recordObject(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

/** One scored run's field as the service counts it, as bits of `onField`. */
export const PRESENT = 1;
export const EXPECTED = 2;
/** The run has a value expected and the extracted value equals it (sameJson). */
export const ACCURATE = 4;

/**
 * Receives field k of a scored run (k: the index of its path in fieldPaths(config)): its
 * extracted and expected values (undefined when absent) and its bits (PRESENT, EXPECTED, ACCURATE).
 */
export type OnField = (k: number, got: unknown, want: unknown, bits: number) => void;

/** The extracted and expected records of a run, as the service reads them (`{value}` forms). */
export function serviceRecords(item: Pick<ServiceItem, 'output' | 'expected'>): { got: unknown; want: unknown } {
  return { got: item.output !== null && typeof item.output === 'object' ? extractedRecord(item.output) : undefined, want: expectedRecord(item.expected) };
}

// ---------------------------------------------------------------------------------------------
// CLASSIFY

export function classType(v: unknown): string | undefined {
  return v && typeof v === 'object' && typeof (v as Json).type === 'string' ? ((v as Json).type as string) : undefined;
}

/**
 * Keyed by classification type (spec 4.2). accuracy: scored runs whose predicted type equals the
 * expected type, over scored runs with an expected type. Every class of the config is listed, with
 * zero counts when it never occurs; a type outside the config that occurs is listed too.
 */
class ClassifyAccumulator {
  readonly #metrics = new Map<string, ClassMetric>();
  #correct = 0;
  #total = 0;

  constructor(config: Json) {
    for (const c of (config.classifications as Json[] | undefined) ?? []) if (c && typeof c.type === 'string') this.#get(c.type);
  }

  #get(t: string): ClassMetric {
    let m = this.#metrics.get(t);
    if (!m) this.#metrics.set(t, (m = { countExpected: 0, countPredicted: 0, countCorrect: 0 }));
    return m;
  }

  add(item: ServiceItem): void {
    const want = classType(item.expected);
    const got = classType(item.output);
    if (got !== undefined) this.#get(got).countPredicted++;
    if (want === undefined) return;
    this.#total++;
    this.#get(want).countExpected++;
    if (got === want) {
      this.#correct++;
      this.#get(want).countCorrect++;
    }
  }

  result(): { accuracy?: number; classificationMetrics: Record<string, ClassMetric> } {
    const entries: Array<[string, ClassMetric]> = [];
    for (const [t, m] of this.#metrics) {
      const precision = ratio(m.countCorrect, m.countPredicted);
      const recall = ratio(m.countCorrect, m.countExpected);
      const f1 = harmonic(precision, recall);
      entries.push([t, { ...m, ...(precision !== undefined && { precision }), ...(recall !== undefined && { recall }), ...(f1 !== undefined && { f1 }) }]);
    }
    const classificationMetrics: Record<string, ClassMetric> = Object.fromEntries(entries);
    const accuracy = ratio(this.#correct, this.#total);
    return accuracy === undefined ? { classificationMetrics } : { accuracy, classificationMetrics };
  }
}

// ---------------------------------------------------------------------------------------------
// SPLITTER

export interface PlainSplit {
  type: string;
  startPage: number;
  endPage: number;
}

export function splitsOf(v: unknown): PlainSplit[] {
  const splits = v && typeof v === 'object' ? (v as Json).splits : undefined;
  if (!Array.isArray(splits)) return [];
  return splits.filter((s): s is PlainSplit => !!s && typeof s === 'object' && typeof (s as Json).startPage === 'number' && typeof (s as Json).endPage === 'number');
}

/**
 * DECIDED: a predicted split is correct when an expected split of the same item has the same
 * `type`, `startPage` and `endPage` (each expected split matches at most one prediction).
 */
class SplitterAccumulator {
  #expected = 0;
  #predicted = 0;
  #correct = 0;

  add(item: ServiceItem): void {
    const want = splitsOf(item.expected);
    const got = splitsOf(item.output);
    this.#expected += want.length;
    this.#predicted += got.length;
    const used = new Set<number>();
    for (const g of got) {
      const i = want.findIndex((w, k) => !used.has(k) && w.type === g.type && w.startPage === g.startPage && w.endPage === g.endPage);
      if (i >= 0) {
        used.add(i);
        this.#correct++;
      }
    }
  }

  result(): { precision?: number; recall?: number; f1?: number; numSplitsExpected: number; numSplitsPredicted: number; numSplitsCorrect: number } {
    const precision = ratio(this.#correct, this.#predicted);
    const recall = ratio(this.#correct, this.#expected);
    const f1 = harmonic(precision, recall);
    return {
      ...(precision !== undefined && { precision }),
      ...(recall !== undefined && { recall }),
      ...(f1 !== undefined && { f1 }),
      numSplitsExpected: this.#expected,
      numSplitsPredicted: this.#predicted,
      numSplitsCorrect: this.#correct,
    };
  }
}

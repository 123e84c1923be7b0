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

const TERMINAL = new Set(['PROCESSED', 'FAILED', 'CANCELLED']);

/**
 * The metrics of spec 4.2 for `items` run against a config (2026-02-09 or 2025-04-21 layout: only
 * `schema`/`fields`, `classifications` are read).
 */
export function serviceMetrics(type: ServiceMetricsType, config: Json, items: readonly ServiceItem[]): ServiceMetrics {
  const base = baseMetrics(items);
  const scored = items.filter((i) => i.status === 'PROCESSED' && i.output !== null && typeof i.output === 'object');
  if (type === 'EXTRACT') return { type, ...base, ...extractMetrics(config, scored) };
  if (type === 'CLASSIFY') return { type, ...base, ...classifyMetrics(config, scored) };
  return { type, ...base, ...splitterMetrics(scored) };
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
function baseMetrics(items: readonly ServiceItem[]): BaseMetrics {
  const done = items.filter((i) => TERMINAL.has(i.status));
  const processed = items.filter((i) => i.status === 'PROCESSED');
  const out: BaseMetrics = {
    numFilesTotal: items.length,
    numFilesProcessed: done.length,
    numFiles: done.length,
    numPages: processed.reduce((s, i) => s + (i.pages ?? 0), 0),
  };
  const lat = processed.map((i) => i.latencyMs).filter((v): v is number => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (lat.length) {
    out.meanLatencyMs = lat.reduce((s, v) => s + v, 0) / lat.length;
    out.p50LatencyMs = nearestRank(lat, 50);
    out.p90LatencyMs = nearestRank(lat, 90);
    out.p95LatencyMs = nearestRank(lat, 95);
    out.p99LatencyMs = nearestRank(lat, 99);
  }
  return out;
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
function at(value: unknown, path: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const o = value as Json;
  if (Object.hasOwn(o, path)) return o[path];
  const dot = path.indexOf('.');
  if (dot < 0) return undefined;
  for (let i = dot; i >= 0 && i < path.length; i = path.indexOf('.', i + 1)) {
    const head = path.slice(0, i);
    if (Object.hasOwn(o, head)) return at(o[head], path.slice(i + 1));
  }
  return undefined;
}

/** DECIDED: "no value" is absent or JSON null; anything else (an empty string or array too) is a value. */
function hasValue(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** DECIDED: "matched" is equality of JSON values (object key order ignored), no normalisation. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => sameJson(v, bb[i]));
  }
  const ka = Object.keys(a as Json);
  const kb = Object.keys(b as Json);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b as Json, k) && sameJson((a as Json)[k], (b as Json)[k]));
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
function extractMetrics(config: Json, scored: readonly ServiceItem[]): { accuracy?: number; fieldMetrics: Record<string, FieldMetric> } {
  const paths = fieldPaths(config);
  const fieldMetrics: Record<string, FieldMetric> = {};
  let accurate = 0;
  let expectedTotal = 0;
  for (const path of paths) {
    const m: FieldMetric = { countTotal: 0, countPresent: 0, countExpected: 0, countAccurate: 0 };
    for (const item of scored) {
      const got = at(extractedRecord(item.output), path);
      const want = at(expectedRecord(item.expected), path);
      m.countTotal++;
      if (hasValue(got)) m.countPresent++;
      if (!hasValue(want)) continue;
      m.countExpected++;
      if (sameJson(got, want)) m.countAccurate++;
    }
    const acc = ratio(m.countAccurate, m.countExpected);
    if (acc !== undefined) m.accuracy = acc;
    fieldMetrics[path] = m;
    accurate += m.countAccurate;
    expectedTotal += m.countExpected;
  }
  const accuracy = ratio(accurate, expectedTotal);
  return accuracy === undefined ? { fieldMetrics } : { accuracy, fieldMetrics };
}

// ---------------------------------------------------------------------------------------------
// CLASSIFY

function classType(v: unknown): string | undefined {
  return v && typeof v === 'object' && typeof (v as Json).type === 'string' ? ((v as Json).type as string) : undefined;
}

/**
 * Keyed by classification type (spec 4.2). accuracy: scored runs whose predicted type equals the
 * expected type, over scored runs with an expected type. Every class of the config is listed, with
 * zero counts when it never occurs; a type outside the config that occurs is listed too.
 */
function classifyMetrics(config: Json, scored: readonly ServiceItem[]): { accuracy?: number; classificationMetrics: Record<string, ClassMetric> } {
  const metrics = new Map<string, ClassMetric>();
  const get = (t: string): ClassMetric => {
    let m = metrics.get(t);
    if (!m) metrics.set(t, (m = { countExpected: 0, countPredicted: 0, countCorrect: 0 }));
    return m;
  };
  for (const c of (config.classifications as Json[] | undefined) ?? []) if (c && typeof c.type === 'string') get(c.type);
  let correct = 0;
  let total = 0;
  for (const item of scored) {
    const want = classType(item.expected);
    const got = classType(item.output);
    if (got !== undefined) get(got).countPredicted++;
    if (want === undefined) continue;
    total++;
    get(want).countExpected++;
    if (got === want) {
      correct++;
      get(want).countCorrect++;
    }
  }
  const classificationMetrics: Record<string, ClassMetric> = {};
  for (const [t, m] of metrics) {
    const precision = ratio(m.countCorrect, m.countPredicted);
    const recall = ratio(m.countCorrect, m.countExpected);
    const f1 = harmonic(precision, recall);
    classificationMetrics[t] = { ...m, ...(precision !== undefined && { precision }), ...(recall !== undefined && { recall }), ...(f1 !== undefined && { f1 }) };
  }
  const accuracy = ratio(correct, total);
  return accuracy === undefined ? { classificationMetrics } : { accuracy, classificationMetrics };
}

// ---------------------------------------------------------------------------------------------
// SPLITTER

interface PlainSplit {
  type: string;
  startPage: number;
  endPage: number;
}

function splitsOf(v: unknown): PlainSplit[] {
  const splits = v && typeof v === 'object' ? (v as Json).splits : undefined;
  if (!Array.isArray(splits)) return [];
  return splits.filter((s): s is PlainSplit => !!s && typeof s === 'object' && typeof (s as Json).startPage === 'number' && typeof (s as Json).endPage === 'number');
}

/**
 * DECIDED: a predicted split is correct when an expected split of the same item has the same
 * `type`, `startPage` and `endPage` (each expected split matches at most one prediction).
 */
function splitterMetrics(scored: readonly ServiceItem[]): { precision?: number; recall?: number; f1?: number; numSplitsExpected: number; numSplitsPredicted: number; numSplitsCorrect: number } {
  let numSplitsExpected = 0;
  let numSplitsPredicted = 0;
  let numSplitsCorrect = 0;
  for (const item of scored) {
    const want = splitsOf(item.expected);
    const got = splitsOf(item.output);
    numSplitsExpected += want.length;
    numSplitsPredicted += got.length;
    const used = new Set<number>();
    for (const g of got) {
      const i = want.findIndex((w, k) => !used.has(k) && w.type === g.type && w.startPage === g.startPage && w.endPage === g.endPage);
      if (i >= 0) {
        used.add(i);
        numSplitsCorrect++;
      }
    }
  }
  const precision = ratio(numSplitsCorrect, numSplitsPredicted);
  const recall = ratio(numSplitsCorrect, numSplitsExpected);
  const f1 = harmonic(precision, recall);
  return {
    ...(precision !== undefined && { precision }),
    ...(recall !== undefined && { recall }),
    ...(f1 !== undefined && { f1 }),
    numSplitsExpected,
    numSplitsPredicted,
    numSplitsCorrect,
  };
}

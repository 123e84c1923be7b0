/**
 * Metrics of an evaluation run (batch processor run), in the shapes service-facts.md lists.
 * The real service publishes the member names but not the formulas; the sandbox's choices:
 *
 * - Only runs that reached PROCESSED count toward quality metrics; failures are reported as
 *   numFailedRuns (a sandbox addition) so a failing engine is visible without skewing recall.
 * - EXTRACT, per field (excludeFields left out entirely): recallPerc = correct / items whose
 *   expected value is present; precisionPerc = correct / items whose predicted value is present;
 *   meanConfidence = mean ocrConfidence (else logprobsConfidence) of the predicted paths.
 *   Objects nest their properties in fieldMetrics; arrays of objects nest row-aligned children.
 *   "correct" is equality after trimming and collapsing whitespace in strings; fields named
 *   in fuzzyMatchFields accept strings with normalised Levenshtein similarity >= 0.8.
 *   accuracyPerc (EXTRACT) = correct / (item, field) pairs with an expected or predicted value.
 * - arrayCardinalityMetrics per root array field: {accuracyPerc, numCorrect, numTotal} over items
 *   with an expected array: how often the number of rows was right.
 * - CLASSIFY: distribution counts predicted classes; confusionMatrix is actual -> predicted -> n.
 * - SPLITTER: a predicted sub-document is correct when an expected one has the same
 *   classificationId, startPage and endPage.
 * Percentages are 0-100 with two decimals; null when there is nothing to divide by.
 */
import { distance } from 'fastest-levenshtein';
import { dict, isPlainObject } from '../util/json.js';
import type { Json, ProcessorType } from './core.js';

export interface EvaluatedRun {
  status: string;
  expected: Json | undefined;
  output: Json | null;
  runTimeMs: number | null;
  numPages: number;
}

export interface MetricOptions {
  fuzzyMatchFields?: string[];
  excludeFields?: string[];
}

const perc = (n: number, d: number): number | null => (d === 0 ? null : Math.round((n / d) * 10000) / 100);
const mean = (xs: number[]): number | null => (xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10000) / 10000 : null);

export function computeMetrics(type: ProcessorType, runs: EvaluatedRun[], opts: MetricOptions): Json {
  const done = runs.filter((r) => r.status === 'PROCESSED' && r.output && r.expected);
  const times = runs.map((r) => r.runTimeMs).filter((t): t is number => typeof t === 'number');
  const base: Json = {
    numFiles: runs.length,
    numPages: runs.reduce((s, r) => s + r.numPages, 0),
    meanRunTimeMs: times.length ? Math.round(times.reduce((a, b) => a + b, 0) / times.length) : null,
    numFailedRuns: runs.filter((r) => r.status === 'FAILED').length,
  };
  if (type === 'CLASSIFY') return { ...base, ...classifyMetrics(done) };
  if (type === 'SPLITTER') return { ...base, ...splitterMetrics(done) };
  return { ...base, ...extractMetrics(done, opts) };
}

// ---------------------------------------------------------------------------------------------
// EXTRACT

interface Acc {
  expected: number;
  predicted: number;
  correct: number;
  confidences: number[];
  children: Map<string, Acc>;
}

const newAcc = (): Acc => ({ expected: 0, predicted: 0, correct: 0, confidences: [], children: new Map() });

function present(v: unknown): boolean {
  if (v === null || v === undefined || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isPlainObject(v)) return Object.values(v).some(present);
  return true;
}

function norm(v: unknown): unknown {
  if (typeof v === 'string') return v.trim().replace(/\s+/g, ' ');
  return v;
}

function similar(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const len = Math.max(x.length, y.length);
  return len === 0 || 1 - distance(x, y) / len >= 0.8;
}

export function valuesEqual(a: unknown, b: unknown, fuzzy = false): boolean {
  a = norm(a);
  b = norm(b);
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) < 1e-9;
  if (typeof a === 'string' && typeof b === 'string') return a === b || (fuzzy && similar(a, b));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => valuesEqual(x, b[i], fuzzy));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!valuesEqual(a[k] ?? null, b[k] ?? null, fuzzy)) return false;
    return true;
  }
  return (a ?? null) === (b ?? null);
}

function confidenceAt(meta: Json | undefined, path: string): number | undefined {
  const m = meta?.[path];
  if (!isPlainObject(m)) return undefined;
  const c = m.ocrConfidence ?? m.logprobsConfidence;
  return typeof c === 'number' ? c : undefined;
}

/** Field values of an output in either EXTRACT form: `{value: {...}}` or legacy `name -> {value}`. */
function fieldValues(doc: Json): { values: Json; meta: Json | undefined; legacy: boolean } {
  if (isPlainObject(doc.value)) return { values: doc.value, meta: isPlainObject(doc.metadata) ? doc.metadata : undefined, legacy: false };
  const values: Json = {};
  const meta: Json = {};
  for (const [k, e] of Object.entries(doc)) {
    if (k === 'metadata' || !isPlainObject(e)) continue;
    values[k] = e.value ?? null;
    if (typeof e.confidence === 'number') meta[k] = { ocrConfidence: e.confidence };
  }
  return { values, meta, legacy: true };
}

function accumulate(acc: Acc, exp: unknown, got: unknown, path: string, meta: Json | undefined, fuzzy: (p: string) => boolean, id: string): void {
  const e = present(exp);
  const g = present(got);
  if (e) acc.expected++;
  if (g) acc.predicted++;
  if (g && valuesEqual(exp, got, fuzzy(id))) acc.correct++;
  const c = confidenceAt(meta, path);
  if (g && c !== undefined) acc.confidences.push(c);
  const isCurrency = (v: unknown): boolean => isPlainObject(v) && 'amount' in v;
  if ((isPlainObject(exp) && !isCurrency(exp)) || (isPlainObject(got) && !isCurrency(got))) {
    const eo = isPlainObject(exp) ? exp : {};
    const go = isPlainObject(got) ? got : {};
    for (const k of new Set([...Object.keys(eo), ...Object.keys(go)])) {
      let child = acc.children.get(k);
      if (!child) acc.children.set(k, (child = newAcc()));
      accumulate(child, eo[k], go[k], `${path}.${k}`, meta, fuzzy, `${id}.${k}`);
    }
  } else if (Array.isArray(exp) || Array.isArray(got)) {
    const ea = Array.isArray(exp) ? exp : [];
    const ga = Array.isArray(got) ? got : [];
    for (let i = 0; i < Math.max(ea.length, ga.length); i++) {
      const er = ea[i];
      const gr = ga[i];
      if (!isPlainObject(er) && !isPlainObject(gr)) continue;
      const eo = isPlainObject(er) ? er : {};
      const go = isPlainObject(gr) ? gr : {};
      for (const k of new Set([...Object.keys(eo), ...Object.keys(go)])) {
        let child = acc.children.get(k);
        if (!child) acc.children.set(k, (child = newAcc()));
        accumulate(child, eo[k], go[k], `${path}[${i}].${k}`, meta, fuzzy, `${id}.${k}`);
      }
    }
  }
}

function render(acc: Acc): Json {
  const out: Json = {
    meanConfidence: mean(acc.confidences),
    recallPerc: perc(acc.correct, acc.expected),
    precisionPerc: perc(acc.correct, acc.predicted),
  };
  if (acc.children.size) {
    const children: Json = {};
    for (const [k, c] of acc.children) children[k] = render(c);
    out.fieldMetrics = children;
  }
  return out;
}

function extractMetrics(runs: EvaluatedRun[], opts: MetricOptions): Json {
  const excluded = new Set(opts.excludeFields ?? []);
  const fuzzySet = new Set(opts.fuzzyMatchFields ?? []);
  const fuzzy = (id: string): boolean => fuzzySet.has(id) || fuzzySet.has(id.split('.')[0]);
  const fields = new Map<string, Acc>();
  const cardinality = new Map<string, { correct: number; total: number }>();
  let pairs = 0;
  let correctPairs = 0;
  for (const r of runs) {
    const exp = fieldValues(r.expected as Json);
    const got = fieldValues(r.output as Json);
    for (const k of new Set([...Object.keys(exp.values), ...Object.keys(got.values)])) {
      if (excluded.has(k)) continue;
      let acc = fields.get(k);
      if (!acc) fields.set(k, (acc = newAcc()));
      const ev = exp.values[k];
      const gv = got.values[k];
      accumulate(acc, ev, gv, k, got.meta, fuzzy, k);
      if (present(ev) || present(gv)) {
        pairs++;
        if (valuesEqual(ev, gv, fuzzy(k))) correctPairs++;
      }
      if (Array.isArray(ev)) {
        const c = cardinality.get(k) ?? { correct: 0, total: 0 };
        c.total++;
        if (Array.isArray(gv) && gv.length === ev.length) c.correct++;
        cardinality.set(k, c);
      }
    }
  }
  const fieldMetrics: Json = {};
  for (const [k, acc] of fields) fieldMetrics[k] = render(acc);
  const arrayCardinalityMetrics: Json = {};
  for (const [k, c] of cardinality) arrayCardinalityMetrics[k] = { accuracyPerc: perc(c.correct, c.total), numCorrect: c.correct, numTotal: c.total };
  return { accuracyPerc: perc(correctPairs, pairs), fieldMetrics, arrayCardinalityMetrics };
}

// ---------------------------------------------------------------------------------------------
// CLASSIFY

function classifyMetrics(runs: EvaluatedRun[]): Json {
  const distribution = dict<number>();
  const confusionMatrix = dict<Record<string, number>>();
  const byClass = new Map<string, { n: number; correct: number }>();
  const confidences: number[] = [];
  let correct = 0;
  for (const r of runs) {
    const actual = String((r.expected as Json).id ?? '');
    const out = r.output as Json;
    const predicted = String(out.id ?? '');
    distribution[predicted] = (distribution[predicted] ?? 0) + 1;
    confusionMatrix[actual] ??= dict<number>();
    confusionMatrix[actual][predicted] = (confusionMatrix[actual][predicted] ?? 0) + 1;
    const c = byClass.get(actual) ?? { n: 0, correct: 0 };
    c.n++;
    if (actual === predicted) {
      c.correct++;
      correct++;
    }
    byClass.set(actual, c);
    if (typeof out.confidence === 'number') confidences.push(out.confidence);
  }
  const accuracyPercByClassification = dict<number | null>();
  for (const [k, c] of byClass) accuracyPercByClassification[k] = perc(c.correct, c.n);
  return { accuracyPerc: perc(correct, runs.length), meanConfidence: mean(confidences), distribution, accuracyPercByClassification, confusionMatrix };
}

// ---------------------------------------------------------------------------------------------
// SPLITTER

function splitsOf(doc: Json): Json[] {
  const list = Array.isArray(doc.splits) ? doc.splits : Array.isArray(doc.subDocumentClassifications) ? doc.subDocumentClassifications : [];
  return list.filter(isPlainObject);
}

function splitterMetrics(runs: EvaluatedRun[]): Json {
  let numExpectedDocs = 0;
  let numPredictedDocs = 0;
  let numCorrectDocs = 0;
  for (const r of runs) {
    const exp = splitsOf(r.expected as Json);
    const got = splitsOf(r.output as Json);
    numExpectedDocs += exp.length;
    numPredictedDocs += got.length;
    const unused = [...exp];
    for (const g of got) {
      const i = unused.findIndex((e) => (e.classificationId ?? e.type) === (g.classificationId ?? g.type) && e.startPage === g.startPage && e.endPage === g.endPage);
      if (i >= 0) {
        numCorrectDocs++;
        unused.splice(i, 1);
      }
    }
  }
  return {
    precisionPerc: perc(numCorrectDocs, numPredictedDocs),
    recallPerc: perc(numCorrectDocs, numExpectedDocs),
    numExpectedDocs,
    numPredictedDocs,
    numCorrectDocs,
  };
}

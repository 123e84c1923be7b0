/**
 * `--engine simulate[:seed,error-rate[,failure-rate]]`: derives each output from the truth (the
 * evaluation set item's expected output, or what the config and the text suggest when there is
 * none) and injects seeded, realistic errors at `error-rate` per field: a dropped field (null),
 * altered digits, a flipped boolean, a dropped array row, a wrong class, a wrong split type, a shifted split
 * boundary. Wrong values get lower confidences than right ones, as with a real model.
 *
 * The choices are seeded by (seed, truth key, config), so re-running an evaluation set gives
 * the same outputs, and a changed config gives different (but again reproducible) ones.
 */
import { createHash } from 'node:crypto';
import { isPlainObject } from '../../util/json.js';
import type { Json } from '../core.js';
import { addCitations } from './citations.js';
import { between, pick, rngFrom, type Rng } from './rng.js';
import { synthesize } from './synthesize.js';
import type { Engine, EngineInput, EngineResult } from './types.js';

export interface SimulateOptions {
  seed: number;
  errorRate: number;
  failureRate: number;
}

export const SIMULATE_DEFAULTS: SimulateOptions = { seed: 42, errorRate: 0.1, failureRate: 0 };

interface InjectedError {
  kind: string;
  path: string;
}

interface Walk {
  rng: Rng;
  rate: number;
  errors: InjectedError[];
  meta: Record<string, Json>;
}

export function simulateEngine(opts: SimulateOptions): Engine {
  return {
    spec: `simulate:${opts.seed},${opts.errorRate}${opts.failureRate ? `,${opts.failureRate}` : ''}`,
    run: (input) => simulate(input, opts),
  };
}

export function simulate(input: EngineInput, opts: SimulateOptions): EngineResult {
  const configHash = createHash('sha256').update(JSON.stringify(input.config)).digest('hex').slice(0, 16);
  const rng = rngFrom(opts.seed, input.truthKey, configHash);
  const label: Json = {
    engine: 'simulate',
    simulated: true,
    seed: opts.seed,
    errorRate: opts.errorRate,
    truth: input.expected ? 'expectedOutput' : 'text',
  };
  if (opts.failureRate > 0 && rng() < opts.failureRate) {
    return { ok: false, reason: 'SIMULATED_FAILURE', message: `simulated processing failure (simulate failure rate ${opts.failureRate})`, label };
  }
  const truth = input.expected ?? synthesize(input.config, input.text, input.pages);
  const w: Walk = { rng, rate: opts.errorRate, errors: [], meta: {} };
  let output: Json;
  if (input.processorType === 'CLASSIFY') output = classify(truth, input.config, w);
  else if (input.processorType === 'SPLITTER') output = split(truth, input.config, w);
  else {
    output = extract(truth, w);
    addCitations(output, input.config, input.layout);
  }
  label.errors = w.errors;
  return { ok: true, output, label };
}

// ---------------------------------------------------------------------------------------------
// EXTRACT

function extract(truth: Json, w: Walk): Json {
  if (isPlainObject(truth.value)) {
    const value: Json = {};
    for (const [k, v] of Object.entries(truth.value)) value[k] = perturb(v, k, w);
    return { value, metadata: w.meta };
  }
  // Legacy fields-array form: fieldName -> {id, value, ...}.
  const out: Json = {};
  for (const [name, entry] of Object.entries(truth)) {
    if (name === 'metadata' || !isPlainObject(entry)) continue;
    const value = perturb(entry.value ?? null, name, w);
    const conf = w.meta[name] as { ocrConfidence?: number } | undefined;
    out[name] = { id: entry.id ?? name, type: entry.type ?? typeOfValue(value), value, confidence: conf?.ocrConfidence ?? 0.9, insights: [], references: [] };
  }
  return out;
}

function typeOfValue(v: unknown): string {
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'boolean';
  if (Array.isArray(v)) return 'array';
  if (isPlainObject(v)) return 'amount' in v ? 'currency' : 'object';
  return 'string';
}

function confidence(w: Walk, path: string, right: boolean): void {
  const c = right ? between(w.rng, 0.86, 0.99) : between(w.rng, 0.35, 0.75);
  w.meta[path] = { ocrConfidence: c, logprobsConfidence: right ? between(w.rng, 0.88, 0.99) : between(w.rng, 0.3, 0.7) };
}

function perturb(v: unknown, path: string, w: Walk): unknown {
  if (v === null || v === undefined) return v ?? null;
  if (Array.isArray(v)) {
    let rows = v.map((row, i) => perturb(row, `${path}[${i}]`, w));
    if (rows.length > 0 && w.rng() < w.rate / 2) {
      rows = rows.slice(0, -1);
      w.errors.push({ kind: 'dropped_row', path: `${path}[${rows.length}]` });
    }
    return rows;
  }
  if (isPlainObject(v) && !('amount' in v && 'iso_4217_currency_code' in v)) {
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) out[k] = perturb(x, `${path}.${k}`, w);
    return out;
  }
  if (w.rng() >= w.rate) {
    confidence(w, path, true);
    return v;
  }
  confidence(w, path, false);
  if (typeof v === 'boolean') {
    w.errors.push({ kind: 'flipped_boolean', path });
    return !v;
  }
  const digits = isPlainObject(v) ? typeof v.amount === 'number' : /\d/.test(String(v));
  if (digits && w.rng() < 0.6) {
    w.errors.push({ kind: 'altered_digits', path });
    if (isPlainObject(v)) return { ...v, amount: alterNumber(v.amount as number, w.rng) };
    return typeof v === 'number' ? alterNumber(v, w.rng) : alterDigits(String(v), w.rng);
  }
  w.errors.push({ kind: 'dropped_field', path });
  return null;
}

/** Replaces one digit with another (never the same), keeping the text's shape. */
export function alterDigits(s: string, rng: Rng): string {
  const positions: number[] = [];
  for (let i = 0; i < s.length; i++) if (s[i] >= '0' && s[i] <= '9') positions.push(i);
  if (!positions.length) return s;
  const i = pick(rng, positions);
  const old = s.charCodeAt(i) - 48;
  const next = (old + 1 + Math.floor(rng() * 9)) % 10;
  return s.slice(0, i) + String(next) + s.slice(i + 1);
}

function alterNumber(n: number, rng: Rng): number {
  const text = String(n);
  if (!/\d/.test(text) || /e/i.test(text)) return n + 1;
  const altered = Number(alterDigits(text, rng));
  return Number.isFinite(altered) && altered !== n ? altered : n + 1;
}

// ---------------------------------------------------------------------------------------------
// CLASSIFY

function classify(truth: Json, config: Json, w: Walk): Json {
  const classes = (Array.isArray(config.classifications) ? config.classifications : []).filter(isPlainObject);
  let id = truth.id as string | undefined;
  let type = (truth.type as string | undefined) ?? classes.find((c) => c.id === id)?.type;
  let right = true;
  const others = classes.filter((c) => c.id !== id);
  if (others.length && w.rng() < w.rate) {
    const wrong = pick(w.rng, others);
    w.errors.push({ kind: 'wrong_class', path: '/id' });
    id = String(wrong.id);
    type = String(wrong.type ?? wrong.id);
    right = false;
  }
  const conf = right ? between(w.rng, 0.8, 0.99) : between(w.rng, 0.4, 0.7);
  return { id: id ?? null, type: type ?? null, confidence: conf, insights: [] };
}

// ---------------------------------------------------------------------------------------------
// SPLITTER

function split(truth: Json, config: Json, w: Walk): Json {
  const list = (Array.isArray(truth.splits) ? truth.splits : Array.isArray(truth.subDocumentClassifications) ? truth.subDocumentClassifications : [])
    .filter(isPlainObject)
    .map((s) => ({ ...s }));
  const classes = (Array.isArray(config.splitClassifications) ? config.splitClassifications : []).filter(isPlainObject);
  list.forEach((s, i) => {
    const others = classes.filter((c) => c.id !== s.classificationId);
    if (!others.length || w.rng() >= w.rate) return;
    const wrong = pick(w.rng, others);
    s.classificationId = String(wrong.id);
    s.type = String(wrong.type ?? wrong.id);
    w.errors.push({ kind: 'wrong_split_type', path: `/splits/${i}/type` });
  });
  for (let i = 0; i + 1 < list.length; i++) {
    if (w.rng() >= w.rate) continue;
    const a = list[i];
    const b = list[i + 1];
    const [aStart, aEnd, bStart, bEnd] = [a.startPage, a.endPage, b.startPage, b.endPage].map(Number);
    if (![aStart, aEnd, bStart, bEnd].every(Number.isInteger) || aEnd + 1 !== bStart) continue;
    const later = w.rng() < 0.5;
    if (later && bEnd > bStart) {
      a.endPage = aEnd + 1;
      b.startPage = bStart + 1;
    } else if (aEnd > aStart) {
      a.endPage = aEnd - 1;
      b.startPage = bStart - 1;
    } else continue;
    w.errors.push({ kind: 'shifted_split_boundary', path: `/splits/${i}/endPage` });
  }
  return { splits: list };
}

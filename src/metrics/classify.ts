/**
 * CLASSIFY: the class of each document, and the metrics over classes.
 */
import { dict, isPlainObject, own } from '../util/json.js';
import type { ClassifyMetrics, ClassMetrics, DocumentRecord } from './generated/report.js';
import { unit } from './calibration.js';
import { f1Score, proportion } from './stats.js';

/** Confusion-matrix label of a document without a class (failed run, output without one). */
export const NONE = '(none)';

/** Class ids and types a CLASSIFY config declares: `classifications` (2025-04-21) or `fields` (2024-11-14). */
export function configClasses(config: unknown): { types: string[]; idToType: Map<string, string> } {
  const idToType = new Map<string, string>();
  const types: string[] = [];
  if (!isPlainObject(config)) return { types, idToType };
  const list = Array.isArray(config.classifications) ? config.classifications : Array.isArray(config.fields) ? config.fields : [];
  for (const c of list) {
    if (!isPlainObject(c)) continue;
    const type = typeof c.type === 'string' && c.type.trim() !== '' ? c.type.trim() : typeof c.id === 'string' ? c.id : undefined;
    if (type === undefined) continue;
    types.push(type);
    if (typeof c.id === 'string') idToType.set(c.id, type);
  }
  return { types, idToType };
}

/** The class of an output: its `type`, else the type its `id` stands for, else the id; null when none. */
export function classOf(output: unknown, idToType: Map<string, string>): string | null {
  if (!isPlainObject(output)) return null;
  if (typeof output.type === 'string' && output.type.trim() !== '') return output.type.trim();
  if (typeof output.id === 'string' && output.id.trim() !== '') return idToType.get(output.id) ?? output.id.trim();
  return null;
}

/** The output's `confidence` when it is a probability (0 to 1); null otherwise (none, or out of range: counted without confidence). */
export function confidenceOf(output: unknown): number | null {
  return isPlainObject(output) ? (unit(own(output, 'confidence')) ?? null) : null;
}

/** Every class: declared by the config, expected or predicted (the `(none)` label is not a class). */
export function classLabels(docs: DocumentRecord[], declared: string[]): string[] {
  const set = new Set(declared);
  for (const d of docs) {
    if (d.classify?.expected) set.add(d.classify.expected);
    if (d.classify?.predicted) set.add(d.classify.predicted);
  }
  return [...set].sort();
}

/**
 * Point metrics. F1 intervals (and the macro/weighted estimates' intervals) are filled in by
 * the bootstrap afterwards; here they are null.
 */
export function classifyMetrics(docs: DocumentRecord[], classes: string[]): ClassifyMetrics {
  const tp = new Map<string, number>();
  const fp = new Map<string, number>();
  const fn = new Map<string, number>();
  const inc = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
  const matrix = dict<Record<string, number>>();
  let correct = 0;
  let confSum = 0;
  let confN = 0;
  for (const d of docs) {
    const e = d.classify?.expected ?? null;
    const p = d.classify?.predicted ?? null;
    const ek = e ?? NONE;
    const pk = p ?? NONE;
    const row = Object.hasOwn(matrix, ek) ? matrix[ek] : (matrix[ek] = dict<number>());
    row[pk] = (Object.hasOwn(row, pk) ? row[pk] : 0) + 1;
    if (d.correct) correct++;
    if (e !== null && e === p) inc(tp, e);
    else {
      if (p !== null) inc(fp, p);
      if (e !== null) inc(fn, e);
    }
    const c = d.classify?.confidence;
    if (typeof c === 'number') {
      confSum += c;
      confN++;
    }
  }
  const rows: ClassMetrics[] = classes.map((label) => {
    const t = tp.get(label) ?? 0;
    const f = fp.get(label) ?? 0;
    const m = fn.get(label) ?? 0;
    return {
      label,
      support: t + m,
      predicted: t + f,
      tp: t,
      fp: f,
      fn: m,
      precision: proportion(t, t + f),
      recall: proportion(t, t + m),
      f1: { value: f1Score(t, f, m), interval: null },
    };
  });
  return {
    accuracy: proportion(correct, docs.length),
    classes: rows,
    macro: { precision: { value: null, interval: null }, recall: { value: null, interval: null }, f1: { value: null, interval: null } },
    weighted: { f1: { value: null, interval: null } },
    confusionMatrix: matrix,
    meanConfidence: confN === 0 ? null : confSum / confN,
  };
}

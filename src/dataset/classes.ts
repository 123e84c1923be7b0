/**
 * CLASSIFY and SPLITTER cells: a class column naming a classification by id or type, and a
 * splits column holding JSON or the compact form `invoice:1-3;receipt:4-5`.
 */
import { expectedDown, expectedUp, splitId, type ProcessorType } from '../config/index.js';
import { isDeepStrictEqual } from 'node:util';
import { applyPlan, membersOf } from '../config/members.js';
import { classIndex, type Classification, type ExpectedForm } from '../expected/model.js';
import { isPlainObject } from '../util/json.js';
import { perArray } from '../util/memo.js';
import { depthProblem, type CellProblem, type CellResult } from './cells.js';

/** `Bank Statement`, `bank-statement` and `bank_statement` are one name. */
function loose(name: string): string {
  return name.trim().toLowerCase().replace(/[\s_-]+/g, '_');
}

/**
 * Exact id, exact type, else the single classification whose id or type is equal ignoring case
 * and with spaces, hyphens and underscores alike.
 */
export function matchClassification(text: string, list: readonly Classification[]): Classification | undefined {
  const { firstById, byType } = classIndex(list);
  const exactId = firstById.get(text);
  if (exactId) return exactId;
  const exactType = byType.get(text);
  if (exactType?.length === 1) return exactType[0];
  const hits = looseNamesOf(list).get(loose(text));
  return hits?.length === 1 ? hits[0] : undefined;
}

/** Each classification under the loose form of its id and of its type (once when they are alike), built once per list. */
const looseNamesOf = perArray((list: readonly Classification[]): Map<string, Classification[]> => {
  const byName = new Map<string, Classification[]>();
  const add = (key: string, c: Classification) => {
    const same = byName.get(key);
    if (same) same.push(c);
    else byName.set(key, [c]);
  };
  for (const c of list) {
    const id = loose(c.id);
    const type = loose(c.type);
    add(id, c);
    if (type !== id) add(type, c);
  }
  return byName;
});

function listOf(list: readonly Classification[]): string {
  const names = list.map((c) => (c.id === c.type ? c.id : `${c.id} (${c.type})`));
  return names.length > 10 ? `${names.slice(0, 10).join(', ')}, ...` : names.join(', ') || '(none configured)';
}

function problem(rule: string, message: string, hint?: string, at: Array<string | number> = []): CellProblem {
  return { at, rule, message, hint };
}

/** A class cell -> `{id, type}` (the CLASSIFY expected form). */
export function classCell(text: string, list: readonly Classification[]): CellResult {
  if (text.trim() === '') return { ok: false, problems: [problem('class-empty', 'the class cell is empty', 'name the classification id or type of the document')] };
  const c = matchClassification(text, list);
  if (!c) {
    return { ok: false, problems: [problem('unknown-classification', `"${text}" is not a classification of the config`, `use one of: ${listOf(list)}`)] };
  }
  return { ok: true, value: { id: c.id, type: c.type }, problems: [] };
}

export interface Split {
  id: string;
  classificationId: string;
  type: string;
  startPage: number;
  endPage: number;
  [member: string]: unknown;
}

const COMPACT_ENTRY = /^(.+?)\s*:\s*(\d+)\s*(?:-\s*(\d+))?$/;

/** `invoice:1-3;receipt:4-5` (a single page as `receipt:4`). */
export function parseCompactSplits(text: string, list: readonly Classification[]): CellResult {
  const problems: CellProblem[] = [];
  const splits: Split[] = [];
  const entries = text.split(/[;\n]/).map((e) => e.trim()).filter((e) => e !== '');
  entries.forEach((entry, i) => {
    const m = COMPACT_ENTRY.exec(entry);
    if (!m) {
      problems.push(problem('splits-syntax', `"${entry}" is not name:start-end`, 'write splits as invoice:1-3;receipt:4-5, or as a JSON array', [i]));
      return;
    }
    const c = matchClassification(m[1], list);
    if (!c) {
      problems.push(problem('unknown-classification', `"${m[1]}" is not a split classification of the config`, `use one of: ${listOf(list)}`, [i]));
      return;
    }
    const start = Number(m[2]);
    const end = m[3] === undefined ? start : Number(m[3]);
    splits.push({ id: splitId(i), classificationId: c.id, type: c.type, startPage: start, endPage: end });
  });
  if (entries.length === 0) problems.push(problem('splits-syntax', 'the splits cell is empty', 'write splits as invoice:1-3;receipt:4-5'));
  return problems.length ? { ok: false, problems } : { ok: true, value: { splits }, problems };
}

/** JSON splits: an array, `{splits: [...]}` or the old `{subDocumentClassifications: [...]}`; ids and the missing half of id/type filled in. */
export function completeJsonSplits(value: unknown, list: readonly Classification[]): unknown {
  let arr: unknown = value;
  let rest: Record<string, unknown> = {};
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const { splits, subDocumentClassifications, ...others } = value as Record<string, unknown>;
    arr = splits ?? subDocumentClassifications;
    rest = others;
    if (!Array.isArray(arr)) return value;
  }
  if (!Array.isArray(arr)) return value;
  const splits = arr.map((s, i) => {
    if (s === null || typeof s !== 'object' || Array.isArray(s)) return s;
    const out: Record<string, unknown> = { ...(s as Record<string, unknown>) };
    if (out.id === undefined) out.id = splitId(i);
    if (out.classificationId === undefined && typeof out.type === 'string') out.classificationId = matchClassification(out.type, list)?.id ?? out.type;
    if (out.type === undefined && typeof out.classificationId === 'string') out.type = matchClassification(out.classificationId, list)?.type ?? out.classificationId;
    return out;
  });
  return { ...rest, splits };
}

export function splitsCell(text: string, list: readonly Classification[]): CellResult {
  const t = text.trim();
  if (t.startsWith('[') || t.startsWith('{')) {
    try {
      const value: unknown = JSON.parse(t);
      const deep = depthProblem(value, t);
      if (deep) return { ok: false, problems: [deep] };
      return { ok: true, value: completeJsonSplits(value, list), problems: [] };
    } catch (e) {
      return { ok: false, problems: [problem('json-syntax', `the splits cell is not valid JSON: ${e instanceof Error ? e.message : String(e)}`, 'write a JSON array of splits, or the compact form invoice:1-3;receipt:4-5')] };
    }
  }
  return parseCompactSplits(t, list);
}

/**
 * A CLASSIFY or SPLITTER expected output in the form of an API version (spec 3.7), from either
 * form. Going to 2025-04-21, a split without id gets the id migrate gives it (splitId); going to
 * 2026-02-09, what drops without loss goes (`confidence: 1`, a split id equal to splitId), and
 * what would be lost (another confidence or id, `identifier`, `observation`) stays for the
 * validator to name. EXTRACT outputs and other shapes are returned as they are.
 */
export function inForm(output: Record<string, unknown>, type: ProcessorType, form: ExpectedForm): Record<string, unknown> {
  if (type === 'EXTRACT') return output;
  let edits;
  if (form === '2025-04-21') edits = expectedDown(output, type);
  else {
    const up = expectedUp(output, type, { path: [] });
    const lost = new Set(up.lossy.map((l) => l.path.join('/')));
    edits = up.edits.filter((e) => !lost.has(e.path.join('/')));
  }
  return edits.length ? applyPlan(output, membersOf(output, edits)) : output;
}

/** The processor type an item's expected output shows: `splits` -> SPLITTER, `{id, type}` strings -> CLASSIFY, else EXTRACT. */
export function outputType(output: unknown): ProcessorType {
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return 'EXTRACT';
  const o = output as Record<string, unknown>;
  if (Array.isArray(o.splits)) return 'SPLITTER';
  if (typeof o.id === 'string' && typeof o.type === 'string' && !Object.hasOwn(o, 'value')) return 'CLASSIFY';
  return 'EXTRACT';
}

/**
 * The 2025-04-21 members the 2026-02-09 form has no place for (spec 3.7): a CLASSIFY output's
 * `confidence`, a split's `id`, `identifier` and `observation`. The rest of an output (the class,
 * each split's classification and pages) is its label.
 */
const OLDER_MEMBERS: Readonly<Record<'CLASSIFY' | 'SPLITTER', readonly string[]>> = { CLASSIFY: ['confidence'], SPLITTER: ['id', 'identifier', 'observation'] };

/** Absent and null alike, as label comparisons take them. */
const present = (o: Record<string, unknown>, k: string): boolean => Object.hasOwn(o, k) && o[k] !== null && o[k] !== undefined;

/** An output with what drops without loss going to 2026-02-09 dropped (`confidence: 1`, split ids equal to splitId): one text per meaning. */
export function canonicalOutput(output: unknown, type: ProcessorType): unknown {
  return type !== 'EXTRACT' && isPlainObject(output) ? inForm(output, type, '2026-02-09') : output;
}

/** Equal outputs once what drops without loss is dropped: the same labels in either API form, nothing more or less. */
export function sameOutput(a: unknown, b: unknown, type: ProcessorType): boolean {
  return isDeepStrictEqual(canonicalOutput(a ?? null, type), canonicalOutput(b ?? null, type));
}

/** The parts of an output that older members hang on: the output itself (CLASSIFY) or each split (SPLITTER). */
function partsOf(output: Record<string, unknown>, type: 'CLASSIFY' | 'SPLITTER'): unknown[] {
  if (type === 'CLASSIFY') return [output];
  return Array.isArray(output.splits) ? output.splits : [];
}

/** Two parts equal but for older members only one of them carries. */
function samePart(a: unknown, b: unknown, older: readonly string[]): boolean {
  if (!isPlainObject(a) || !isPlainObject(b)) return isDeepStrictEqual(a ?? null, b ?? null);
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (older.includes(k) && !(present(a, k) && present(b, k))) continue;
    if (!isDeepStrictEqual(a[k] ?? null, b[k] ?? null)) return false;
  }
  return true;
}

/**
 * The same labels in either API form: equal once what drops without loss is dropped, and but for
 * older members (confidence, a split's id, identifier, observation) only one side carries, since
 * an output in the 2026-02-09 form has none of them to differ in. An older member both sides
 * carry with different values is a difference. EXTRACT outputs compare as they are.
 */
export function sameLabels(a: unknown, b: unknown, type: ProcessorType): boolean {
  const x = canonicalOutput(a ?? null, type);
  const y = canonicalOutput(b ?? null, type);
  if (type === 'EXTRACT' || !isPlainObject(x) || !isPlainObject(y)) return isDeepStrictEqual(x, y);
  const older = OLDER_MEMBERS[type];
  if (type === 'CLASSIFY') return samePart(x, y, older);
  const { splits: xs, ...xRest } = x;
  const { splits: ys, ...yRest } = y;
  if (!isDeepStrictEqual(xRest, yRest)) return false;
  if (!Array.isArray(xs) || !Array.isArray(ys)) return isDeepStrictEqual(xs ?? null, ys ?? null);
  return xs.length === ys.length && xs.every((s, i) => samePart(s, ys[i], older));
}

/**
 * `into` with the older members that `from` carries and `into` lacks (after lossless drops),
 * on each part (the CLASSIFY output, each split by position) whose label is the same in both:
 * what one side of a merge holds and the other form cannot say is carried over, not lost.
 */
export function withOlderMembers(into: Record<string, unknown>, from: unknown, type: ProcessorType): Record<string, unknown> {
  if (type === 'EXTRACT' || !isPlainObject(from)) return into;
  const older = OLDER_MEMBERS[type];
  const ci = canonicalOutput(into, type) as Record<string, unknown>;
  const cf = canonicalOutput(from, type) as Record<string, unknown>;
  const out = structuredClone(into);
  const outParts = partsOf(out, type);
  const intoParts = partsOf(ci, type);
  const fromParts = partsOf(cf, type);
  outParts.forEach((part, i) => {
    const a = intoParts[i];
    const b = fromParts[i];
    if (!isPlainObject(part) || !isPlainObject(a) || !isPlainObject(b) || !samePart(a, b, older)) return;
    for (const k of older) if (!present(a, k) && present(b, k)) part[k] = b[k];
  });
  return out;
}

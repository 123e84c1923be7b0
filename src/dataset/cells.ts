/**
 * Cell text -> typed value by the config's field type, with the value parsers of src/expected
 * (shared with `evalkit validate --fix`). JSON cells (objects, arrays, whole outputs) are parsed
 * and the strings inside them coerced the same way, so `[{"amount": "$12"}]` works too.
 */
import { parseBoolean, parseCurrency, parseDate, parseEnum, parseNumber, type Coerced, type DateOrder } from '../expected/coerce.js';
import type { EnumValue, Node } from '../expected/model.js';
import type { Segment } from './paths.js';
import { dict, isPlainObject, overflowPath } from '../util/json.js';
import { MAX_DEPTH, depthExceededPointer, mayExceedDepth } from '../util/depth.js';

export interface CoerceOptions {
  /** ISO 4217 code for amounts that name no currency (--currency). */
  currency?: string;
  /** `,` is the decimal mark (--decimal-comma); default: inferred, ambiguous forms refused. */
  decimalComma?: boolean;
  /** Order of numeric dates such as 03/04/2024 (--date-order). */
  dateOrder?: DateOrder;
}

export interface CellProblem {
  /** Path below the cell's own path (for JSON cells). */
  at: Segment[];
  rule: string;
  message: string;
  hint?: string;
}

export type CellResult = { ok: true; value: unknown; problems: CellProblem[] } | { ok: false; problems: CellProblem[] };

/**
 * An enum value: src/expected's parseEnum (exact, else case-insensitive) plus numbers and
 * booleans written as text, which parseEnum compares by identity only.
 */
export function parseEnumCell(text: string, values: readonly EnumValue[]): Coerced<EnumValue> {
  const r = parseEnum(text, values);
  if (r.ok) return r;
  const t = text.trim();
  const loose = values.filter((v) => typeof v !== 'string' && String(v) === t.toLowerCase());
  if (loose.length === 1) return { ok: true, value: loose[0] };
  return r;
}

function hintFor(rule: string, ambiguous: boolean | undefined): string | undefined {
  if (!ambiguous) return undefined;
  if (rule === 'coerce-date') return 'pass --date-order dmy or --date-order mdy, or write the date as YYYY-MM-DD';
  if (rule === 'coerce-currency') return 'pass --currency CODE for amounts without a currency, and --decimal-comma if "," is the decimal mark (--no-decimal-comma if "." is)';
  return 'pass --decimal-comma if "," is the decimal mark, --no-decimal-comma if "." is, or write the number without thousands separators';
}

function fromCoerced(r: Coerced<unknown>, rule: string): CellResult {
  if (r.ok) return { ok: true, value: r.value, problems: [] };
  return { ok: false, problems: [{ at: [], rule, message: r.reason, hint: hintFor(rule, r.ambiguous) }] };
}

/** A JSON cell nested deeper than the documented limit (every later step walks it recursively). */
export function depthProblem(value: unknown, text: string): CellProblem | undefined {
  const pointer = mayExceedDepth(text) ? depthExceededPointer(value) : undefined;
  if (pointer === undefined) return undefined;
  return { at: [], rule: 'json-depth', message: `the cell's JSON is nested more than ${MAX_DEPTH} levels deep (the limit is passed at ${pointer.length > 80 ? `${pointer.slice(0, 80)}...` : pointer})`, hint: `write values nested at most ${MAX_DEPTH} levels deep` };
}

function parseJsonCell(text: string): CellResult {
  try {
    const value: unknown = JSON.parse(text);
    const deep = depthProblem(value, text);
    if (deep) return { ok: false, problems: [deep] };
    const huge = overflowPath(value, text);
    if (huge !== undefined) {
      return { ok: false, problems: [{ at: huge, rule: 'coerce-number', message: `a number too large for a JSON number (beyond ${Number.MAX_VALUE.toPrecision(3)}); it would be stored as null`, hint: 'write the number within range, or as a string if the field is text' }] };
    }
    return { ok: true, value, problems: [] };
  } catch (e) {
    const reason = e instanceof Error ? e.message.replace(/^Unexpected token/, 'unexpected token') : String(e);
    return { ok: false, problems: [{ at: [], rule: 'json-syntax', message: `the cell is not valid JSON: ${reason}`, hint: 'write the cell as JSON (objects in {}, arrays in [], strings in double quotes)' }] };
  }
}

/** One cell of a field column. Empty -> null. */
export function coerceCell(node: Node, text: string, opts: CoerceOptions): CellResult {
  if (text.trim() === '') return { ok: true, value: null, problems: [] };
  switch (node.kind) {
    case 'string':
      return { ok: true, value: text, problems: [] };
    case 'number':
      return fromCoerced(parseNumber(text, { decimalComma: opts.decimalComma }), 'coerce-number');
    case 'currency':
      if (text.trim().startsWith('{')) return deepFromJson(node, text, opts);
      return fromCoerced(parseCurrency(text, { decimalComma: opts.decimalComma, defaultCurrency: opts.currency }), 'coerce-currency');
    case 'date':
      return fromCoerced(parseDate(text, { dateOrder: opts.dateOrder }), 'coerce-date');
    case 'boolean':
      return fromCoerced(parseBoolean(text), 'coerce-boolean');
    case 'enum':
      return fromCoerced(parseEnumCell(text, node.values), 'coerce-enum');
    case 'array':
    case 'object':
      return deepFromJson(node, text, opts);
    case 'any': {
      const t = text.trim();
      if (t.startsWith('{') || t.startsWith('[')) return deepFromJson(node, text, opts);
      return { ok: true, value: text, problems: [] };
    }
  }
}

function deepFromJson(node: Node, text: string, opts: CoerceOptions): CellResult {
  const parsed = parseJsonCell(text);
  if (!parsed.ok) return parsed;
  const problems: CellProblem[] = [];
  const value = coerceDeep(node, parsed.value, [], opts, problems);
  return problems.length ? { ok: false, problems } : { ok: true, value, problems };
}

/**
 * Coerces the strings inside a JSON value where the model expects another type. Values of the
 * wrong shape are left as they are: the validator reports them with its own rules.
 */
export function coerceDeep(node: Node, value: unknown, at: Segment[], opts: CoerceOptions, problems: CellProblem[]): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value === 'string') {
    if (node.kind === 'string' || node.kind === 'any' || node.kind === 'array' || node.kind === 'object') return value;
    if (node.kind === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
    const r = coerceCell(node, value, opts);
    if (r.ok) return r.value;
    for (const p of r.problems) problems.push({ ...p, at: [...at, ...p.at] });
    return value;
  }
  if (node.kind === 'currency' && typeof value === 'number' && opts.currency) return { amount: value, iso_4217_currency_code: opts.currency };
  if (node.kind === 'currency' && isPlainObject(value) && typeof value.amount === 'string') {
    const r = parseNumber(value.amount, { decimalComma: opts.decimalComma });
    if (r.ok) return { ...value, amount: r.value };
    problems.push({ at: [...at, 'amount'], rule: 'coerce-number', message: r.reason, hint: hintFor('coerce-number', r.ambiguous) });
    return value;
  }
  if (node.kind === 'array' && Array.isArray(value)) return value.map((v, i) => coerceDeep(node.items, v, [...at, i], opts, problems));
  if (node.kind === 'object' && isPlainObject(value)) {
    const out = dict<unknown>();
    for (const [k, v] of Object.entries(value)) {
      const child = Object.prototype.hasOwnProperty.call(node.properties, k) ? node.properties[k] : undefined;
      out[k] = child ? coerceDeep(child, v, [...at, k], opts, problems) : v;
    }
    return out;
  }
  return value;
}


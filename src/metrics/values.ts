/**
 * What "empty" means for a field value, and the normal forms the comparators work on.
 */
import { parseDate } from '../util/dates.js';

/**
 * Empty: null, absent (undefined), "" (also after trimming), [] or {}, and, recursively, an
 * array or object whose members are all empty (a currency `{amount: null,
 * iso_4217_currency_code: null}` is empty; `{amount: null, iso_4217_currency_code: "USD"}` is not).
 */
export function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') {
    // A printable ASCII character other than the space first: not blank, without trimming.
    const c = v.charCodeAt(0);
    return c > 32 && c < 127 ? false : v.trim().length === 0;
  }
  if (Array.isArray(v)) {
    for (const x of v) if (!isEmpty(x)) return false;
    return true;
  }
  if (typeof v === 'object') {
    for (const k in v as Record<string, unknown>) if (!isEmpty((v as Record<string, unknown>)[k])) return false;
    return true;
  }
  return false;
}

const ASCII = /^[\x20-\x7e]*$/;

/** Exact-comparison form of a string: Unicode NFC, trimmed. */
export function exactForm(s: string): string {
  return ASCII.test(s) ? s.trim() : s.normalize('NFC').trim();
}

const EDGE_PUNCT = /^[\p{P}\s]+|[\p{P}\s]+$/gu;

/**
 * Fuzzy-comparison form of a string: Unicode NFKC, case-folded (upper then lower case, so that
 * "ß" and "SS" agree), runs of whitespace collapsed to one space, punctuation at both edges removed.
 */
export function fuzzyForm(s: string): string {
  return s.normalize('NFKC').toUpperCase().toLowerCase().replace(/\s+/g, ' ').replace(EDGE_PUNCT, '');
}

/** A string for a scalar of another type (numbers, booleans), so string comparators can compare it. */
export function asText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** Numbers, or strings that are plain decimal numbers ("1,234.50" included). */
export function asNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string') {
    const t = v.trim().replace(/,(?=\d{3}(\D|$))/g, '');
    if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return undefined;
    const n = Number(t);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Booleans, or the strings "true"/"false" in any case. */
export function asBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (t === 'true') return true;
    if (t === 'false') return false;
  }
  return undefined;
}

/**
 * The calendar date a value names, as YYYY-MM-DD, or undefined: what `parseDate` (the parser
 * dataset coercion and validate use) reads with certainty. All-numeric dates whose day and month
 * could be swapped (03/05/2024) are ambiguous and are not read as dates.
 */
export function asDate(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const d = parseDate(v);
  return d.ok ? d.value : undefined;
}

/** Stable text of any JSON value (sorted keys), for comparing values of unknown type. */
export function canonicalJson(v: unknown): string {
  if (v === undefined) return 'null';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(',')}}`;
}

import { distance } from 'fastest-levenshtein';
import type { ValueType } from './generated/report.js';
import { asBoolean, asDate, asNumber, asText, canonicalJson, exactForm, fuzzyForm } from './values.js';

export type { ValueType };

export interface CompareOptions {
  /** Normalised Levenshtein similarity at or above which two fuzzy strings match (default 0.9). */
  fuzzyThreshold: number;
  /** Relative tolerance for numbers (default 1e-6). */
  numberTolerance: number;
}

export const DEFAULT_COMPARE: CompareOptions = { fuzzyThreshold: 0.9, numberTolerance: 1e-6 };

/**
 * A comparator in two steps: `prepare` turns a non-empty value into its comparison form once,
 * `equal` compares two prepared forms cheaply. Line-item pairing compares every expected row
 * with every predicted row, so each value is prepared once rather than once per pair.
 */
export interface Matcher {
  prepare(v: unknown): unknown;
  equal(a: unknown, b: unknown): boolean;
}

/** Decides whether two non-empty values match. */
export type Comparator = (expected: unknown, predicted: unknown) => boolean;

export function toComparator(m: Matcher): Comparator {
  return (a, b) => a === b || m.equal(m.prepare(a), m.prepare(b));
}

/** Exact form of any value: strings (and numbers, booleans as text) after NFC and trimming; other values as canonical JSON. */
function exactPrepare(v: unknown): string {
  const t = asText(v);
  return t === undefined ? `\u0000${canonicalJson(v)}` : exactForm(t);
}

/** String exact: equal after Unicode NFC and trimming. Numbers and booleans compare as their text. */
export const exactString: Matcher = { prepare: exactPrepare, equal: (a, b) => a === b };

/** Enum: the exact string (no trimming, no case folding, no normalisation); other values as canonical JSON. */
export const exactEnum: Matcher = { prepare: (v) => (typeof v === 'string' ? `s${v}` : `j${canonicalJson(v)}`), equal: (a, b) => a === b };

/** 1 - levenshtein(a', b') / max(|a'|, |b'|) on the fuzzy forms (1 when both forms are empty). */
export function similarity(a: string, b: string): number {
  return preparedSimilarity(fuzzyForm(a), fuzzyForm(b));
}

function preparedSimilarity(fa: string, fb: string): number {
  if (fa === fb) return 1;
  return 1 - distance(fa, fb) / Math.max(fa.length, fb.length);
}

/** String fuzzy: NFKC, case-folded, whitespace collapsed, edge punctuation removed, similarity >= threshold. */
export function fuzzyString(threshold: number): Matcher {
  return {
    prepare: (v) => (typeof v === 'string' ? fuzzyForm(v) : { other: exactPrepare(v) }),
    equal: (a, b) => {
      if (typeof a === 'string' && typeof b === 'string') {
        // The tiny slack keeps a score that is at the threshold in exact arithmetic a match.
        return preparedSimilarity(a, b) >= threshold - 1e-12;
      }
      return typeof a === 'object' && typeof b === 'object' && (a as { other: string }).other === (b as { other: string }).other;
    },
  };
}

/** Number: |a - b| <= tolerance * max(|a|, |b|); numeric strings are read as numbers, other values compare exactly. */
export function numberMatcher(tolerance: number): Matcher {
  return {
    prepare: (v) => asNumber(v) ?? exactPrepare(v),
    equal: (a, b) => {
      if (typeof a === 'number' && typeof b === 'number') return a === b || Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b));
      return a === b;
    },
  };
}

interface CurrencyParts {
  amount: number | null;
  code: string | null;
}

function currencyParts(v: unknown): CurrencyParts | string {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const amount = o.amount === null || o.amount === undefined ? null : asNumber(o.amount);
    if (amount === undefined) return exactPrepare(v);
    const c = o.iso_4217_currency_code;
    return { amount, code: typeof c === 'string' && c.trim() !== '' ? c.trim().toUpperCase() : null };
  }
  const n = asNumber(v);
  return n === undefined ? exactPrepare(v) : { amount: n, code: null };
}

/** Currency: amounts within 0.005 (both null also agrees) and codes equal ignoring case. */
export const currency: Matcher = {
  prepare: currencyParts,
  equal: (a, b) => {
    if (typeof a === 'string' || typeof b === 'string') return a === b;
    const x = a as CurrencyParts;
    const y = b as CurrencyParts;
    if (x.code !== y.code) return false;
    if (x.amount === null || y.amount === null) return x.amount === y.amount;
    // 1e-9 of slack so that binary floating point does not turn 10.005 vs 10.00 into a mismatch.
    return Math.abs(x.amount - y.amount) <= 0.005 + 1e-9;
  },
};

/** Date: the same calendar date (see asDate for the forms read); unreadable dates compare as exact strings. */
export const date: Matcher = {
  prepare: (v) => {
    const d = asDate(v);
    return d === undefined ? `s${exactPrepare(v)}` : `d${d}`;
  },
  equal: (a, b) => a === b,
};

/** Boolean: equal; the strings "true"/"false" count as booleans, other values compare exactly. */
export const boolean: Matcher = {
  prepare: (v) => {
    const x = asBoolean(v);
    return x === undefined ? exactPrepare(v) : x;
  },
  equal: (a, b) => a === b,
};

/** Values of a field whose type is not known: two numbers as numbers, everything else exactly. */
export function unknownMatcher(tolerance: number): Matcher {
  const num = numberMatcher(tolerance);
  return {
    prepare: (v) => (typeof v === 'number' ? v : exactPrepare(v)),
    equal: (a, b) => {
      if (typeof a === 'number' && typeof b === 'number') return num.equal(a, b);
      if (typeof a === 'number') return exactForm(String(a)) === b;
      if (typeof b === 'number') return exactForm(String(b)) === a;
      return a === b;
    },
  };
}

/** The matcher for a leaf of this type; `fuzzy` applies to string-valued leaves only. */
export function matcherFor(type: ValueType, fuzzy: boolean, opts: CompareOptions): Matcher {
  if (fuzzy && (type === 'string' || type === 'unknown')) return fuzzyString(opts.fuzzyThreshold);
  switch (type) {
    case 'number':
    case 'integer':
      return numberMatcher(opts.numberTolerance);
    case 'currency':
      return currency;
    case 'date':
      return date;
    case 'boolean':
      return boolean;
    case 'string':
      return exactString;
    case 'enum':
      return exactEnum;
    default:
      return unknownMatcher(opts.numberTolerance);
  }
}

export function comparatorFor(type: ValueType, fuzzy: boolean, opts: CompareOptions): Comparator {
  return toComparator(matcherFor(type, fuzzy, opts));
}

export const matchExactString: Comparator = toComparator(exactString);
export const matchCurrency: Comparator = toComparator(currency);
export const matchDate: Comparator = toComparator(date);
export const matchBoolean: Comparator = toComparator(boolean);

export function matchFuzzyString(a: unknown, b: unknown, threshold: number): boolean {
  return toComparator(fuzzyString(threshold))(a, b);
}

export function matchNumber(a: unknown, b: unknown, tolerance: number): boolean {
  return toComparator(numberMatcher(tolerance))(a, b);
}

/**
 * Pure parsers that turn what people type (in a JSON file or a CSV cell) into the values an
 * expectedOutput holds. Each returns `{ok: true, value}` only when the reading is certain; an
 * ambiguous text (`03/04/2024`, `1,234` as a number) fails with `ambiguous: true` and a reason
 * that names the option that settles it. Shared by `evalkit validate --fix` and the dataset upload.
 */
import { isCurrencyCode, SHARED_SYMBOLS, UNAMBIGUOUS_SYMBOLS } from './currencies.js';

// Dates have one parser, shared with the report's date comparator.
export { isIsoDate, parseDate, type DateOptions, type DateOrder } from '../util/dates.js';

export type Coerced<T> = { ok: true; value: T } | { ok: false; reason: string; ambiguous?: boolean };

export interface Currency {
  amount: number;
  iso_4217_currency_code: string;
}

export interface NumberOptions {
  /** true: `,` is the decimal mark; false: `.` is; undefined: infer, failing when ambiguous. */
  decimalComma?: boolean;
}

export interface CurrencyOptions extends NumberOptions {
  /** ISO 4217 code used when the text names no currency (and for a shared symbol such as `$`). */
  defaultCurrency?: string;
}

const ok = <T>(value: T): Coerced<T> => ({ ok: true, value });
const fail = <T>(reason: string, ambiguous = false): Coerced<T> => (ambiguous ? { ok: false, reason, ambiguous } : { ok: false, reason });

const SPACE_GROUP = /[ \u00a0\u2009\u202f'\u2019]/;

/**
 * A number written with thousands separators and a decimal mark in either convention:
 * `1,234.56`, `1.234,56`, `1 234,56`, `1'234.56`, `(12.50)` (negative), `-3`, `1e3`.
 */
export function parseNumber(text: string, opts: NumberOptions = {}): Coerced<number> {
  const r = readNumber(text, opts);
  // `1e400` (or 400 digits) reads as Infinity, which JSON writes as null: refused, never stored as an empty value.
  return r.ok && !Number.isFinite(r.value) ? fail(`"${text.trim()}" is too large for a JSON number (beyond ${Number.MAX_VALUE.toPrecision(3)})`) : r;
}

function readNumber(text: string, opts: NumberOptions): Coerced<number> {
  let s = text.trim().replace(/\u2212/g, '-');
  if (s === '') return fail('empty text is not a number');
  let negative = false;
  const paren = /^\((.*)\)$/.exec(s);
  if (paren) {
    negative = true;
    s = paren[1].trim();
  }
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = negative !== s.startsWith('-');
    s = s.slice(1).trim();
  }
  if (/^(\d+\.?\d*|\.\d+)e[+-]?\d+$/i.test(s)) return ok(signed(Number(s), negative));
  if (SPACE_GROUP.test(s)) {
    const m = /^(\d{1,3}(?:[ \u00a0\u2009\u202f'\u2019]\d{3})+)([.,]\d+)?$/.exec(s);
    if (!m) return fail(`"${text}" is not a number`);
    return ok(signed(Number(m[1].replace(/\D/g, '') + (m[2] ? '.' + m[2].slice(1) : '')), negative));
  }
  if (!/^[\d.,]+$/.test(s) || !/\d/.test(s)) return fail(`"${text}" is not a number`);

  let decimal: '.' | ',' | null;
  const dots = count(s, '.');
  const commas = count(s, ',');
  if (opts.decimalComma === true) decimal = ',';
  else if (opts.decimalComma === false) decimal = '.';
  else if (dots && commas) decimal = s.lastIndexOf('.') > s.lastIndexOf(',') ? '.' : ',';
  else if (dots > 1) decimal = null;
  else if (dots === 1) {
    // The mirror of a lone comma: `1.234` is 1.234 with a decimal point and 1234 with `.` as the
    // thousands separator (1.234.567 is read that way), a thousandfold difference.
    const [int, frac] = s.split('.');
    if (frac.length === 3 && /^[1-9]\d{0,2}$/.test(int)) {
      return fail(`"${text}" could be ${int}.${frac} or ${int}${frac}; say which decimal mark the data uses`, true);
    }
    decimal = '.';
  }
  else if (commas > 1) decimal = null;
  else if (commas === 1) {
    const [int, frac] = s.split(',');
    if (frac.length === 3 && int !== '0' && int !== '') {
      return fail(`"${text}" could be ${int}${frac} or ${int}.${frac}; say which decimal mark the data uses`, true);
    }
    decimal = ',';
  } else decimal = null;

  const group = decimal === ',' ? '.' : decimal === '.' ? ',' : dots ? '.' : ',';
  const parts = decimal ? s.split(decimal) : [s];
  if (parts.length > 2) return fail(`"${text}" has more than one decimal mark`);
  const [intPart, fracPart] = parts;
  if (fracPart !== undefined && !/^\d+$/.test(fracPart)) return fail(`"${text}" is not a number`);
  let digits: string;
  if (intPart === '') {
    if (fracPart === undefined) return fail(`"${text}" is not a number`);
    digits = '0';
  } else if (intPart.includes(group)) {
    if (!new RegExp(`^\\d{1,3}(\\${group}\\d{3})+$`).test(intPart)) return fail(`"${text}" has misplaced thousands separators`);
    digits = intPart.split(group).join('');
  } else if (/^\d+$/.test(intPart)) digits = intPart;
  else return fail(`"${text}" is not a number`);
  return ok(signed(Number(fracPart === undefined ? digits : `${digits}.${fracPart}`), negative));
}

function signed(n: number, negative: boolean): number {
  return negative && n !== 0 ? -n : n;
}

function count(s: string, ch: string): number {
  let n = 0;
  for (const c of s) if (c === ch) n++;
  return n;
}

const TRUE_WORDS = new Set(['true', 'yes', 'y', '1', 't']);
const FALSE_WORDS = new Set(['false', 'no', 'n', '0', 'f']);

/** true/false/yes/no/y/n/t/f/1/0, any case. */
export function parseBoolean(text: string): Coerced<boolean> {
  const s = text.trim().toLowerCase();
  if (TRUE_WORDS.has(s)) return ok(true);
  if (FALSE_WORDS.has(s)) return ok(false);
  return fail(`"${text}" is not a boolean (use true/false, yes/no, 1/0)`);
}

const SYMBOLS_LONGEST_FIRST = [...Object.keys(UNAMBIGUOUS_SYMBOLS), ...Object.keys(SHARED_SYMBOLS)].sort((a, b) => b.length - a.length);

function codeOfMarker(marker: string, defaultCurrency: string | undefined): string | undefined {
  const upper = marker.toUpperCase();
  if (/^[A-Z]{3}$/.test(upper) && isCurrencyCode(upper)) return upper;
  if (UNAMBIGUOUS_SYMBOLS[marker]) return UNAMBIGUOUS_SYMBOLS[marker];
  const shared = SHARED_SYMBOLS[marker];
  if (shared) return defaultCurrency && shared.users.includes(defaultCurrency) ? defaultCurrency : shared.fallback;
  return undefined;
}

/** Split a leading or trailing currency code or symbol off an amount text. */
function splitMarker(s: string): { marker?: string; rest: string; extra?: string } {
  const code = /^([A-Za-z]{3})\s*(.*)$/.exec(s);
  if (code && isCurrencyCode(code[1].toUpperCase())) return { marker: code[1], rest: code[2] };
  const tail = /^(.*?)\s*([A-Za-z]{3})$/.exec(s);
  if (tail && isCurrencyCode(tail[2].toUpperCase())) return { marker: tail[2], rest: tail[1] };
  for (const sym of SYMBOLS_LONGEST_FIRST) {
    if (s.startsWith(sym)) return { marker: sym, rest: s.slice(sym.length).trim() };
    if (s.endsWith(sym)) return { marker: sym, rest: s.slice(0, -sym.length).trim() };
  }
  return { rest: s };
}

/**
 * A money text to a currency object: `$1,234.56`, `USD 1234.56`, `EUR 12,50`, `1.234,56 EUR`,
 * `€12`, `-$5`, `($5.00)`. Without a code or symbol in the text the default currency is used;
 * without one of those either, it fails.
 */
export function parseCurrency(text: string, opts: CurrencyOptions = {}): Coerced<Currency> {
  let s = text.trim().replace(/\u2212/g, '-');
  let negative = false;
  const paren = /^\((.*)\)$/.exec(s);
  if (paren) {
    negative = true;
    s = paren[1].trim();
  }
  if (s.startsWith('-')) {
    negative = !negative;
    s = s.slice(1).trim();
  }
  const first = splitMarker(s);
  let marker = first.marker;
  let rest = first.rest;
  if (marker !== undefined) {
    if (rest.startsWith('-')) {
      negative = !negative;
      rest = rest.slice(1).trim();
    }
    const second = splitMarker(rest);
    if (second.marker !== undefined) {
      const a = codeOfMarker(marker, opts.defaultCurrency);
      const b = codeOfMarker(second.marker, opts.defaultCurrency);
      // "$12 USD" names one currency twice; "$12 EUR" contradicts itself.
      if (a !== b && !(SHARED_SYMBOLS[marker] && b && SHARED_SYMBOLS[marker].users.includes(b))) {
        return fail(`"${text}" names two currencies`);
      }
      marker = second.marker;
      rest = second.rest;
    }
  }
  const amount = parseNumber(rest, opts);
  if (!amount.ok) return amount.ambiguous ? fail(amount.reason, true) : fail(`"${text}" is not an amount of money${amount.reason.includes('too large') ? ` (${amount.reason})` : ''}`);
  const code = marker !== undefined ? codeOfMarker(marker, opts.defaultCurrency) : opts.defaultCurrency;
  if (!code) return fail(`"${text}" names no currency; give a default currency code`, true);
  if (!isCurrencyCode(code)) return fail(`"${code}" is not an ISO 4217 currency code`);
  return ok({ amount: signed(amount.value, negative), iso_4217_currency_code: code });
}

/** One of an enum's values: exact, else the only value equal ignoring case and outer spaces. */
export function parseEnum<V extends string | number | boolean | null>(text: string, values: readonly V[]): Coerced<V> {
  const exact = values.find((v) => v === text);
  if (exact !== undefined) return ok(exact);
  const wanted = text.trim().toLowerCase();
  const matches = values.filter((v) => typeof v === 'string' && v.trim().toLowerCase() === wanted);
  if (matches.length === 1) return ok(matches[0]);
  if (matches.length > 1) return fail(`"${text}" matches several values: ${matches.map((v) => JSON.stringify(v)).join(', ')}`, true);
  return fail(`"${text}" is not one of ${values.map((v) => JSON.stringify(v)).join(', ')}`);
}

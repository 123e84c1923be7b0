/**
 * What "empty" means for a field value, and the normal forms the comparators work on.
 */

/**
 * Empty: null, absent (undefined), "" (also after trimming), [] or {}, and, recursively, an
 * array or object whose members are all empty (a currency `{amount: null,
 * iso_4217_currency_code: null}` is empty; `{amount: null, iso_4217_currency_code: "USD"}` is not).
 */
export function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return v.length === 0 || v.trim().length === 0;
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

const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** 1-12 for an English month name or a prefix of it of at least three letters ("Mar", "Sept"). */
function monthOf(word: string): number | undefined {
  const w = word.toLowerCase();
  if (w.length < 3) return undefined;
  const i = MONTH_NAMES.findIndex((name) => name.startsWith(w));
  return i < 0 ? undefined : i + 1;
}

function ymd(y: number, m: number, d: number): string | undefined {
  if (m < 1 || m > 12 || d < 1) return undefined;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  if (d > days) return undefined;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/**
 * The calendar date a value names, as YYYY-MM-DD, or undefined. Accepted: ISO 8601 dates and
 * date-times (the date part as written, no time-zone shift), YYYY/MM/DD, YYYYMMDD, and dates with
 * an English month name ("5 March 2024", "March 5, 2024", "Mar 5 2024"). All-numeric day/month
 * orders such as 03/05/2024 are ambiguous and are not read as dates.
 */
export function asDate(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:$|[T ])/.exec(t) ?? /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/.exec(t) ?? /^(\d{4})(\d{2})(\d{2})$/.exec(t);
  if (m) return ymd(Number(m[1]), Number(m[2]), Number(m[3]));
  m = /^(\d{1,2})(?:st|nd|rd|th)?\.?\s+([A-Za-z]+)\.?,?\s+(\d{4})$/.exec(t);
  if (m) {
    const month = monthOf(m[2]);
    return month ? ymd(Number(m[3]), month, Number(m[1])) : undefined;
  }
  m = /^([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$/.exec(t);
  if (m) {
    const month = monthOf(m[1]);
    return month ? ymd(Number(m[3]), month, Number(m[2])) : undefined;
  }
  return undefined;
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

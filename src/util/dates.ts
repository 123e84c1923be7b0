/**
 * The one date parser: what people write for a calendar date, to ISO `YYYY-MM-DD`. Dataset
 * coercion, `validate --fix` and the report's date comparator all read dates here, so two
 * values that coerce to the same day also match in a report. The accepted forms are listed in
 * DATE_FORMS (the comparator table of docs/metrics.md is the same list).
 */

export type DateOrder = 'dmy' | 'mdy';

export interface DateOptions {
  /** Order of day and month in all-numeric dates such as 03/04/2024 (ambiguous without it). */
  dateOrder?: DateOrder;
}

export type DateResult = { ok: true; value: string } | { ok: false; reason: string; ambiguous?: boolean };

/** One example of every form parseDate reads, each naming 2024-04-17 (tests walk this list). */
export const DATE_FORMS: readonly string[] = [
  '2024-04-17',
  '2024-04-17T10:30:00Z',
  '2024-04-17 10:30',
  '2024-04-17T23:30:00-05:00',
  '2024-4-17',
  '2024/04/17',
  '2024.04.17',
  '20240417',
  '17.04.2024',
  '17/04/2024',
  '17-04-2024',
  '04/17/2024',
  '17 April 2024',
  '17th April 2024',
  '17-Apr-2024',
  '17 Apr. 2024',
  'April 17, 2024',
  'Apr 17 2024',
  'Wed, 17 April 2024',
  'Wednesday, April 17th, 2024',
  '2024 April 17',
];

const DAYS_IN_MONTH = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

export function validYmd(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= (m === 2 && !isLeapYear(y) ? 28 : DAYS_IN_MONTH[m]);
}

const ISO_DATE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/;

/** `YYYY-MM-DD` naming a real calendar day (the same test as ajv-formats' full `date`). */
export function isIsoDate(text: unknown): boolean {
  if (typeof text !== 'string') return false;
  const m = ISO_DATE.exec(text);
  return m !== null && validYmd(+m[1], +m[2], +m[3]);
}

const fail = (reason: string, ambiguous = false): DateResult => (ambiguous ? { ok: false, reason, ambiguous } : { ok: false, reason });

function iso(y: number, m: number, d: number, text: string): DateResult {
  if (!validYmd(y, m, d)) return fail(`"${text}" is not a calendar date`);
  return { ok: true, value: `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}` };
}

const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** 1-12 for an English month name or a prefix of it of at least three letters ("Mar", "Sept"). */
function monthOf(word: string): number | undefined {
  const w = word.toLowerCase();
  if (w.length < 3) return undefined;
  const i = MONTH_NAMES.findIndex((name) => name.startsWith(w));
  return i < 0 ? undefined : i + 1;
}

const WEEKDAY_PREFIX = /^(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*\.?,?\s+/i;
const SEP = '[\\s\\-./,]+';
const ORD = '(?:st|nd|rd|th)?';
const ISO_DATE_TIME = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const DAY_MONTH_YEAR = new RegExp(`^(\\d{1,2})${ORD}${SEP}([a-z]+)\\.?${SEP}(\\d{4})$`, 'i');
const MONTH_DAY_YEAR = new RegExp(`^([a-z]+)\\.?${SEP}(\\d{1,2})${ORD}${SEP}(\\d{4})$`, 'i');
const YEAR_MONTH_DAY = new RegExp(`^(\\d{4})${SEP}([a-z]+)\\.?${SEP}(\\d{1,2})$`, 'i');

/**
 * A date to ISO `YYYY-MM-DD`. Certain forms: ISO dates and date-times (the date as written, no
 * time-zone shift), Y-M-D with `-`, `/` or `.`, YYYYMMDD, English month names or their prefixes
 * of three letters or more (`17 April 2024`, `17-Apr-2024`, `April 17, 2024`, `2024 Apr 17`),
 * an optional weekday in front (`Wed, 17 April 2024`), and D/M/Y or M/D/Y with `/`, `-` or `.`
 * when one part exceeds 12 or both are equal. `03/04/2024` needs `dateOrder`; two-digit years are
 * refused.
 */
export function parseDate(text: string, opts: DateOptions = {}): DateResult {
  const s = text.trim().replace(WEEKDAY_PREFIX, '');
  let m = ISO_DATE_TIME.exec(s);
  if (m) return iso(+m[1], +m[2], +m[3], text);
  m = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$/.exec(s);
  if (m) return iso(+m[1], +m[2], +m[3], text);
  m = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  if (m) return iso(+m[1], +m[2], +m[3], text);
  m = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{2}|\d{4})$/.exec(s);
  if (m) {
    if (m[3].length === 2) return fail(`"${text}" has a two-digit year; write the full year`, true);
    const a = +m[1];
    const b = +m[2];
    const y = +m[3];
    let order: DateOrder | undefined;
    if (a === b) order = 'dmy';
    else if (a > 12 && b <= 12) order = 'dmy';
    else if (b > 12 && a <= 12) order = 'mdy';
    else if (a <= 12 && b <= 12) order = opts.dateOrder;
    if (!order) {
      if (a > 12 && b > 12) return fail(`"${text}" is not a calendar date`);
      return fail(`"${text}" could be day-month or month-day; say which order the data uses (dmy or mdy)`, true);
    }
    return order === 'dmy' ? iso(y, b, a, text) : iso(y, a, b, text);
  }
  m = DAY_MONTH_YEAR.exec(s);
  if (m && monthOf(m[2])) return iso(+m[3], monthOf(m[2]) as number, +m[1], text);
  m = MONTH_DAY_YEAR.exec(s);
  if (m && monthOf(m[1])) return iso(+m[3], monthOf(m[1]) as number, +m[2], text);
  m = YEAR_MONTH_DAY.exec(s);
  if (m && monthOf(m[2])) return iso(+m[1], monthOf(m[2]) as number, +m[3], text);
  return fail(`"${text}" is not a date evalkit can read`);
}

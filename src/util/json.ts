import { createRequire } from 'node:module';
import type * as Jsonc from 'jsonc-parser';
import type { ParseError } from 'jsonc-parser';
import { InputError } from './errors.js';
import { MAX_DEPTH, depthExceededPointer, mayExceedDepth } from './depth.js';

/** RFC 6901: escape one reference token. */
export function escapePointerToken(token: string | number): string {
  const s = String(token);
  // Most tokens need no escape: skip the two replaces (a pointer is built for every config found).
  return s.includes('~') || s.includes('/') ? s.replace(/~/g, '~0').replace(/\//g, '~1') : s;
}

/** Build a JSON pointer from path segments: ['a', 0, 'b/c'] -> '/a/0/b~1c'. */
export function toPointer(segments: ReadonlyArray<string | number>): string {
  // A loop, not map(): paths of numbers, of names and of both reach here, and map() specialised
  // on one kind of array made V8 throw away (and recompile) the migration loop it was inlined in.
  let out = '';
  for (let i = 0; i < segments.length; i++) out += '/' + escapePointerToken(segments[i]);
  return out;
}

/** Split a JSON pointer into its unescaped tokens. */
export function fromPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new InputError(`invalid JSON pointer "${pointer}": must start with "/"`);
  return pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** 1-based line and column of a character offset in a text. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

// jsonc-parser is needed only to explain a syntax error: loaded then, not at every start.
let jsonc: typeof Jsonc | undefined;
const loadJsonc = (): typeof Jsonc => (jsonc ??= createRequire(import.meta.url)('jsonc-parser') as typeof Jsonc);

// jsonc-parser's SyntaxKind and ScanError codes used by endsInside.
const EOF_TOKEN = 17;
const UNKNOWN_TOKEN = 16;
const END_OF_STRING = 2;
const END_OF_NUMBER = 3;

/**
 * Whether a syntax error at `offset` of `text` is the text ending too soon: at most one token
 * follows it, unfinished (a string or number the end cuts, a prefix of true, false or null, a
 * lone minus). A line cut short looks like that; a wrong token has more after it.
 */
export function endsInside(text: string, offset: number): boolean {
  const scanner = loadJsonc().createScanner(text.slice(offset), true);
  const first = scanner.scan() as number;
  if (first === EOF_TOKEN) return true;
  const value = scanner.getTokenValue();
  const error = scanner.getTokenError() as number;
  if ((scanner.scan() as number) !== EOF_TOKEN) return false;
  if (error === END_OF_STRING || error === END_OF_NUMBER) return true;
  return first === UNKNOWN_TOKEN && value !== '' && (value === '-' || ['true', 'false', 'null'].some((w) => w.startsWith(value)));
}

/**
 * JSON.parse with an error that names the file, line and column. `lineOffset` shifts the
 * reported line: given (0 for the first line), the text is one line of a JSONL file, parsed on
 * its own. A text that ends too soon (endsInside: an interrupted write or copy) is said to be cut
 * short.
 */
export function parseJson(text: string, file: string, lineOffset?: number): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    // V8's messages do not always carry a position; a strict second pass finds the first error.
    const errors: ParseError[] = [];
    const v8 = e instanceof Error ? e.message : String(e);
    try {
      loadJsonc().parse(body, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    } catch {
      // The tolerant parser recurses: a deeply nested invalid text overflows its stack. V8's own
      // message then says where (`... at position 12094`).
      const at = /at position (\d+)/.exec(v8);
      if (at) errors.push({ error: -1 as never, offset: Number(at[1]), length: 0 });
    }
    const first = errors[0];
    const { line, column } = lineColumnAt(body, first ? first.offset : body.length);
    const reason = first && (first.error as number) !== -1 ? describeParseError(loadJsonc().printParseErrorCode(first.error)) : v8.replace(/ in JSON at position \d+.*$/, '').replace(/^Unexpected/, 'unexpected');
    const what = lineOffset === undefined ? 'the text' : 'the line';
    const cut = body.trim() !== '' && endsInside(body, first ? first.offset : body.length);
    throw new InputError(`invalid JSON: ${reason}${cut ? `; ${what} ends too soon, as if cut short` : ''}`, {
      location: { file, line: line + (lineOffset ?? 0), column },
      hint: cut ? `an interrupted write or copy cuts a file short: write it again, or ${lineOffset === undefined ? 'complete it' : 'delete the unfinished line'}` : 'fix the JSON syntax at that position',
    });
  }
  if (mayExceedDepth(body)) {
    const pointer = depthExceededPointer(value);
    if (pointer !== undefined) throw tooDeep(file, pointer, lineOffset !== undefined ? lineOffset + 1 : undefined);
  }
  return value;
}

/** The input error for a value nested deeper than MAX_DEPTH, naming where the limit was passed. */
export function tooDeep(file: string | undefined, pointer: string, line?: number): InputError {
  return new InputError(`nested more than ${MAX_DEPTH} levels deep`, {
    location: { file, line, pointer },
    hint: `evalkit reads JSON values nested at most ${MAX_DEPTH} levels deep; flatten the value there`,
  });
}

function describeParseError(code: string): string {
  // 'PropertyNameExpected' -> 'property name expected'
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** Recursively sort object keys, for stable machine output. Arrays keep their order. */
export function sortKeysDeep<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeysDeep) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value as Record<string, unknown>).sort()) {
      const v = sortKeysDeep((value as Record<string, unknown>)[k]);
      // Assigning "__proto__" would set the prototype and drop the member (a JSON key like any other).
      if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      else out[k] = v;
    }
    return out as T;
  }
  return value;
}

/**
 * Whether two JSON values are equal, members in the same order: what comparing their
 * JSON.stringify forms says (numbers by value, so 1.0 and 1 are equal), without writing either
 * out (for values JSON.parse made: no undefined members, no NaN). Measured: two JSON.stringify calls per re-laid-out object cost more than this walk, which
 * V8 optimises within the first files of a run (it is called for every value of every object).
 */
export function identicalJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!identicalJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  // Own keys in order (for...in: Object.keys' order, as JSON.stringify writes them); a
  // "__proto__" member (JSON.parse makes it an own property) is read as the own value.
  const keys = Object.keys(y);
  let i = 0;
  for (const k in x) {
    if (!Object.hasOwn(x, k)) continue;
    if (keys[i++] !== k || !identicalJson(x[k], y[k])) return false;
  }
  return i === keys.length;
}

/** Stable JSON: sorted keys, 2-space indent, trailing newline. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value), null, 2) + '\n';
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The value at a path of member names and array indexes (own members only), or undefined. */
export function valueAt(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let cur = root;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, k)) return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

/**
 * A member of an object by a user's key (a field id, class name or metadata key), own members
 * only: `constructor`, `toString` and `__proto__` are valid keys and never reach the prototype.
 * For JSON data (plain objects and arrays, parsed, cloned or literal): an own member of such data
 * is never a function, and what a plain object or an array inherits is a function but for
 * `__proto__`, so only a function or `__proto__` is looked up again as an own member (a look-up
 * with Object.hasOwn for every member cost 3% of a report's instructions).
 */
export function own(o: unknown, key: string): unknown {
  if (o === null || typeof o !== 'object') return undefined;
  const v = (o as Record<string, unknown>)[key];
  if (v === undefined) return undefined;
  return (typeof v !== 'function' && key !== '__proto__') || Object.hasOwn(o, key) ? v : undefined;
}

/** An object keyed by users' keys: no prototype, so any key (`__proto__` too) is an ordinary member. */
export function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** Indentation and trailing newline of a JSON text, so a rewrite can keep the file's style. */
export interface JsonStyle {
  indent: string | number;
  trailingNewline: boolean;
  eol: '\n' | '\r\n';
}

export function detectJsonStyle(text: string): JsonStyle {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const m = /\n([ \t]+)["}\]0-9tfn-]/.exec(text);
  const indent = m ? (m[1].startsWith('\t') ? '\t' : m[1].length) : /\n/.test(text.trim()) ? 2 : 0;
  return { indent, trailingNewline: /\n$/.test(text), eol };
}

export function stringifyWithStyle(value: unknown, style: JsonStyle): string {
  let out = JSON.stringify(value, null, style.indent === 0 ? undefined : style.indent);
  if (style.eol === '\r\n') out = out.replace(/\n/g, '\r\n');
  return style.trailingNewline ? out + style.eol : out;
}

// Only a literal with a three-digit exponent, or of 210 digits or more (with an exponent up to 99), can overflow a double.
const MAY_OVERFLOW = /[eE][+]?\d{3}|\d{210}/;

/** False when `text` holds no JSON number literal a double cannot hold (one native search). */
export function mayOverflow(text: string): boolean {
  return MAY_OVERFLOW.test(text);
}

/**
 * The path of the first number that a JSON text held beyond a double's range (`1e400`), which
 * JSON.parse reads as Infinity and JSON.stringify then writes as null; undefined when there is
 * none. Texts without a long exponent or digit run are ruled out by one native search; a caller
 * with many values from one text searches it once (mayOverflow) and passes the answer.
 */
export function overflowPath(value: unknown, text: string | boolean): Array<string | number> | undefined {
  if (!(typeof text === 'boolean' ? text : MAY_OVERFLOW.test(text))) return undefined;
  const stack: Array<{ v: unknown; path: Array<string | number> }> = [{ v: value, path: [] }];
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, i] });
    } else if (isPlainObject(v)) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ v: v[keys[i]], path: [...path, keys[i]] });
    }
  }
  return undefined;
}

/** A decimal number text as sign, significant digits and exponent, for comparing values exactly. */
function decimalKey(t: string): string {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(t);
  if (!m) return t;
  let digits = (m[2] ?? '') + (m[3] ?? '');
  let exp = Number(m[4] ?? 0) - (m[3] ?? '').length;
  const lead = /^0*/.exec(digits)![0].length;
  digits = digits.slice(lead);
  const trail = /0*$/.exec(digits)![0].length;
  digits = digits.slice(0, digits.length - trail);
  exp += trail;
  return digits === '' ? '0' : `${m[1]}${digits}e${exp}`;
}

const NUMBER_OR_STRING = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * The first number literal of a JSON text whose value a double does not hold (`1e400` becomes
 * Infinity, `12345678901234567890123` becomes 12345678901234567000000): rewriting the text from
 * its parsed form would change it. undefined when every number survives. Only literals of 16 or
 * more digits, or with a three-digit exponent, are compared exactly.
 */
export function lossyNumber(text: string): { literal: string; becomes: string; offset: number } | undefined {
  NUMBER_OR_STRING.lastIndex = 0;
  for (let m = NUMBER_OR_STRING.exec(text); m; m = NUMBER_OR_STRING.exec(text)) {
    const t = m[0];
    if (t.charCodeAt(0) === 34 || (t.replace(/\D/g, '').length < 16 && !/[eE][+-]?\d{3}/.test(t))) continue;
    const v = Number(t);
    const becomes = Number.isFinite(v) ? String(v) : 'null';
    if (!Number.isFinite(v) || decimalKey(t) !== decimalKey(becomes.replace('e+', 'e'))) return { literal: t, becomes, offset: m.index };
  }
  return undefined;
}

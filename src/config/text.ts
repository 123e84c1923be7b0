/**
 * Migrated text from the original text, changing only what migration changes: a renamed key
 * is rewritten in place, a restructured config object is re-laid out in its own style
 * (indentation, EOL, spacing) with every value copied verbatim. Numbers, escapes, compact
 * arrays and everything outside the changed objects stay byte for byte.
 *
 * The input text is already known to be valid JSON (JSON.parse accepted it), so the scanner
 * below trusts the structure and only finds offsets.
 */
import type { Segment } from './detect.js';
import type { Member } from './plan.js';
import { identicalJson, isPlainObject, toPointer } from '../util/json.js';
import { InputError } from '../util/errors.js';

export interface Prop {
  key: string;
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
}

interface ObjectSpan {
  start: number;
  end: number;
  props: Prop[];
}

/**
 * One object to change: `path` is where it is in the text, `at` where it is in the migrated
 * document when a rename above it moved it (an expected output's split whose list was renamed).
 * `inPlace` (see inPlaceOf): every member keeps or renames a key of the object, in its order.
 */
export type TextChange =
  | { path: readonly Segment[]; at?: readonly Segment[]; members: readonly Member[]; inPlace: boolean }
  | { path: readonly Segment[]; at?: readonly Segment[]; rename: readonly [string, string] }
  /** The object's members of these keys left out, the others kept in place. */
  | { path: readonly Segment[]; at?: readonly Segment[]; drop: readonly string[] };

const SPACE = 32;
const TAB = 9;
const LF = 10;
const CR = 13;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;

function skipWs(t: string, i: number): number {
  for (;;) {
    const c = t.charCodeAt(i);
    if (c === SPACE || c === LF || c === CR || c === TAB) i++;
    else return i;
  }
}

function skipString(t: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = t.indexOf('"', j);
    if (q < 0) throw new Error('unterminated string');
    let b = q - 1;
    while (t.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/**
 * The text with, for every object and array, the offset just past its closing bracket at the
 * offset of its opening one: found in one pass, after which skipping a container costs a look-up
 * instead of a scan (a change deep in a document would otherwise rescan it at every level).
 */
interface Scanned {
  t: string;
  /** Indexed by offset; only the entries of this text's containers are meaningful (see scan). */
  ends: Int32Array;
}

// The table and the stack of open brackets are reused from text to text: a file is scanned
// whole before any look-up, and only the offsets of its own brackets are looked up, so what an
// earlier text left at other offsets is never read. (A Map per text made most of the scan's
// cost: allocation, hashing and the garbage.) A text longer than KEPT_TABLE characters gets a
// table of its own, left to the garbage collector: one large file must not pin 4 bytes per
// character of it for the rest of the process.
const KEPT_TABLE = 1 << 20;
let endsTable = new Int32Array(1 << 16);
let openStack = new Int32Array(256);

function endsTableFor(size: number): Int32Array {
  if (size <= endsTable.length) return endsTable;
  const table = new Int32Array(Math.max(size, Math.min(endsTable.length * 2, KEPT_TABLE)));
  if (table.length <= KEPT_TABLE) endsTable = table;
  return table;
}

// A loop over the characters between strings (each string is passed with a native search for its
// closing quote). Measured by instruction count over a 10,000-file run: cheaper than a native
// regex search from one quote or bracket to the next (the design before), whose per-call cost is
// paid at every key and string value; V8 optimises this loop within the first file.
function scan(t: string, from: number): Scanned {
  const n = t.length;
  const ends = endsTableFor(n + 1);
  let open = openStack;
  let depth = 0;
  for (let i = from; i < n; i++) {
    const c = t.charCodeAt(i);
    // White space first, the most common character between strings (in valid JSON nothing else
    // up to the space character appears outside them): one comparison for each.
    if (c <= SPACE) continue;
    if (c === QUOTE) i = skipString(t, i) - 1;
    else if (c === LBRACE || c === LBRACKET) {
      if (depth === open.length) {
        const grown = new Int32Array(open.length * 2);
        grown.set(open);
        openStack = open = grown;
      }
      open[depth++] = i;
    } else if (c === RBRACE || c === RBRACKET) ends[open[--depth]] = i + 1;
  }
  return { t, ends };
}

function skipValue({ t, ends }: Scanned, i: number): number {
  const c = t.charCodeAt(i);
  if (c === QUOTE) return skipString(t, i);
  if (c === LBRACE || c === LBRACKET) return ends[i];
  let j = i;
  while (j < t.length) {
    const d = t.charCodeAt(j);
    if (d === COMMA || d === RBRACE || d === RBRACKET || d === SPACE || d === LF || d === CR || d === TAB) break;
    j++;
  }
  return j;
}

function readObject(s: Scanned, start: number): ObjectSpan {
  const t = s.t;
  const props: Prop[] = [];
  let i = skipWs(t, start + 1);
  if (t.charCodeAt(i) === RBRACE) return { start, end: i + 1, props };
  for (;;) {
    const keyStart = i;
    const keyEnd = skipString(t, i);
    const raw = t.slice(keyStart + 1, keyEnd - 1);
    const key = raw.includes('\\') ? (JSON.parse(t.slice(keyStart, keyEnd)) as string) : raw;
    i = skipWs(t, keyEnd);
    i = skipWs(t, i + 1); // past ':'
    const valueStart = i;
    const valueEnd = skipValue(s, i);
    props.push({ key, keyStart, keyEnd, valueStart, valueEnd });
    i = skipWs(t, valueEnd);
    if (t.charCodeAt(i) === RBRACE) return { start, end: i + 1, props };
    i = skipWs(t, i + 1); // past ','
  }
}

function readArray(s: Scanned, start: number): Array<[number, number]> {
  const t = s.t;
  const items: Array<[number, number]> = [];
  let i = skipWs(t, start + 1);
  if (t.charCodeAt(i) === RBRACKET) return items;
  for (;;) {
    const end = skipValue(s, i);
    items.push([i, end]);
    i = skipWs(t, end);
    if (t.charCodeAt(i) === RBRACKET) return items;
    i = skipWs(t, i + 1);
  }
}

/**
 * Offsets of the values at paths, for the changes of one text in turn: a path that shares its
 * start with the one before resumes from there (the splits of one output share all but their
 * index), and the container last read is read again only when it changes. Duplicate keys resolve
 * to the last one, as JSON.parse does.
 */
class Finder {
  private path: readonly Segment[] = [];
  /** at[k]: offset of the value at path[0..k) (entries past the current path's length are stale). */
  private readonly at: number[];
  private read = -1;
  private items: Array<[number, number]> = [];
  private props: Prop[] = [];

  constructor(private readonly s: Scanned, root: number) {
    this.at = [root];
  }

  find(path: readonly Segment[]): number {
    let k = sharedStart(path, this.path);
    const at = this.at;
    let pos = at[k];
    for (; k < path.length; k++) {
      const seg = path[k];
      if (this.s.t.charCodeAt(pos) === LBRACKET) {
        if (this.read !== pos) {
          this.items = readArray(this.s, pos);
          this.read = pos;
        }
        pos = this.items[seg as number][0];
      } else {
        if (this.read !== pos) {
          this.props = readObject(this.s, pos).props;
          this.read = pos;
        }
        const key = String(seg);
        let hit: Prop | undefined;
        for (const p of this.props) if (p.key === key) hit = p;
        if (!hit) throw new Error(`no member ${key}`);
        pos = hit.valueStart;
      }
      at[k + 1] = pos;
    }
    this.path = path;
    return pos;
  }
}

/** Values of the migrated document at paths (own members only, as valueAt), found as Finder finds offsets. */
class ValueFinder {
  private path: readonly Segment[] = [];
  /** at[k]: the value at path[0..k) (entries past the current path's length are stale). */
  private readonly at: unknown[];

  constructor(root: unknown) {
    this.at = [root];
  }

  find(path: readonly Segment[]): unknown {
    let k = sharedStart(path, this.path);
    const at = this.at;
    let cur = at[k];
    for (; k < path.length; k++) {
      const seg = path[k];
      cur = cur !== null && typeof cur === 'object' && Object.hasOwn(cur, seg) ? (cur as Record<string | number, unknown>)[seg] : undefined;
      at[k + 1] = cur;
    }
    this.path = path;
    return cur;
  }
}

/** How many segments two paths share from their start (compared without a generic comparison of a number with a string). */
function sharedStart(path: readonly Segment[], prev: readonly Segment[]): number {
  const shared = Math.min(path.length, prev.length);
  let k = 0;
  while (k < shared && typeof path[k] === typeof prev[k] && path[k] === prev[k]) k++;
  return k;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Apply migration changes to a JSON text (one document or one JSONL line). `migrated` is the
 * document the text must now hold: every edit is checked against it (a re-laid-out object must
 * parse to the migrated object, key for key and in order; renamed keys must leave exactly the
 * migrated object's keys), and edits must not overlap. Everything else is the original text, byte
 * for byte, so the whole text holds the migrated document. Throws an Error naming the pointer of
 * the first edit that would not (a bug in evalkit, never a problem of the input).
 */
export function applyTextChanges(text: string, changes: readonly TextChange[], migrated: unknown): string {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const root = skipWs(text, bom);
  const scanned = scan(text, root);
  const edits: Edit[] = [];
  const finder = new Finder(scanned, root);
  const values = new ValueFinder(migrated);
  for (const change of changes) {
    const span = readObject(scanned, finder.find(change.path));
    refuseDuplicateKeys(span, change.path);
    const expected = values.find(change.at ?? change.path);
    // Renames and members left out are made in place, keeping every other byte (an object with a
    // key twice was refused above). Each kind of edit is a function apart: V8 compiles them as
    // smaller units, and when objects of a new shape reach the key check only that small function
    // is compiled again.
    if ('rename' in change) renameEdits(span, change, expected, edits);
    else if ('drop' in change) dropEdits(scanned, span, change, expected, edits);
    else if (change.inPlace) inPlaceEdits(scanned, span, change, expected, edits);
    else relayoutEdit(scanned, span, change, expected, edits);
  }
  // The text between the edits and the edits' texts, appended in order (V8 keeps the pieces and
  // copies them once, when the text is written; slicing the text edited so far at every edit copied
  // it once per edit). Changes come in document order, so their edits mostly do too: sorted only
  // when they are not.
  if (!inOrder(edits)) edits.sort(byStart);
  let out = '';
  let from = 0;
  for (const e of edits) {
    if (e.start < from) throw new Error('overlapping edits');
    out += text.slice(from, e.start) + e.text;
    from = e.end;
  }
  return out + text.slice(from);
}

function inOrder(edits: readonly Edit[]): boolean {
  for (let i = 1; i < edits.length; i++) if (edits[i].start < edits[i - 1].start) return false;
  return true;
}

function byStart(a: Edit, b: Edit): number {
  return a.start - b.start;
}

function wrongEdit(change: TextChange, what: string): Error {
  return new Error(`${toPointer(change.path) || '/'}: ${what}`);
}

/** The object re-laid out from its plan, checked: it must parse to the migrated object. */
function relayoutEdit(scanned: Scanned, span: ObjectSpan, change: Extract<TextChange, { members: readonly Member[] }>, expected: unknown, edits: Edit[]): void {
  for (const p of span.props) {
    // The character first: most members are scalars, and the walk over the members is the dearer test.
    const c = scanned.t.charCodeAt(p.valueStart);
    if ((c === LBRACE || c === LBRACKET) && !copiedWhole(change.members, p.key)) refuseDuplicatesWithin(scanned, p.valueStart, [...change.path, p.key]);
  }
  const rendered = renderObject(scanned, span, change.members, change.path);
  if (!sameDocument(rendered, expected)) throw wrongEdit(change, 'the rewritten object does not parse to the migrated one');
  edits.push({ start: span.start, end: span.end, text: rendered });
}

/** The renamed key in place, checked: the object's keys must then be the migrated object's, in order. */
function renameEdits(span: ObjectSpan, change: Extract<TextChange, { rename: readonly [string, string] }>, expected: unknown, edits: Edit[]): void {
  const props = span.props;
  const keys: string[] = [];
  for (const p of props) keys.push(p.key);
  const i = lastPropIndex(props, change.rename[0]);
  keys[i] = change.rename[1];
  edits.push({ start: props[i].keyStart, end: props[i].keyEnd, text: JSON.stringify(change.rename[1]) });
  if (!isPlainObject(expected) || !hasKeys(expected, keys)) throw wrongEdit(change, 'the renamed keys are not those of the migrated object');
}

/**
 * Members that keep or rename the object's own keys in their order, the others left out, made in
 * place: each renamed key rewritten, each member left out cut with the separator before it (the
 * first ones with the separator after), every kept member's bytes and the separators between them
 * as they were. The result is valid JSON by construction (whole members and their commas go), its
 * values are the source's bytes, so it is checked as renames are: the object's keys must then be
 * the migrated object's, in order. (The same bytes as a re-layout where the object is laid out
 * uniformly, without rendering or re-parsing anything.)
 */
function inPlaceEdits(scanned: Scanned, span: ObjectSpan, change: Extract<TextChange, { members: readonly Member[] }>, expected: unknown, edits: Edit[]): void {
  const props = span.props;
  const keys: string[] = [];
  const kept: number[] = [];
  let last = -1;
  for (const m of change.members) {
    if (!('from' in m) || m.from.length !== 1) throw wrongEdit(change, 'a member in place is not a key of the object');
    // Members come in the object's order (its keys are unique: refused above otherwise), so each
    // is looked for after the one before: linear in the object's size, not quadratic.
    const i = propIndexAfter(props, m.from[0], last);
    if (i <= last) throw wrongEdit(change, 'members in place are not in the order of the object');
    last = i;
    kept.push(i);
    keys.push(m.key);
    if (m.key !== m.from[0]) edits.push({ start: props[i].keyStart, end: props[i].keyEnd, text: JSON.stringify(m.key) });
  }
  for (let i = 0, j = 0; i < props.length; i++) {
    if (j < kept.length && kept[j] === i) j++;
    else refuseDuplicatesLeftOut(scanned, props[i], change.path);
  }
  cutEdits(span, kept, edits);
  if (!isPlainObject(expected) || !hasKeys(expected, keys)) throw wrongEdit(change, 'the keys kept in place are not those of the migrated object');
}

/** Members left out by key, the others kept in place: checked as inPlaceEdits are. */
function dropEdits(scanned: Scanned, span: ObjectSpan, change: Extract<TextChange, { drop: readonly string[] }>, expected: unknown, edits: Edit[]): void {
  const props = span.props;
  const keys: string[] = [];
  const kept: number[] = [];
  for (let i = 0; i < props.length; i++) {
    if (change.drop.includes(props[i].key)) {
      refuseDuplicatesLeftOut(scanned, props[i], change.path);
      continue;
    }
    kept.push(i);
    keys.push(props[i].key);
  }
  cutEdits(span, kept, edits);
  if (!isPlainObject(expected) || !hasKeys(expected, keys)) throw wrongEdit(change, 'the keys left in place are not those of the migrated object');
}

/** The edits that cut the members not kept (`kept`: the indexes of those kept, ascending), each with the separator before it (the first ones with the one after). */
function cutEdits(span: ObjectSpan, kept: readonly number[], edits: Edit[]): void {
  const props = span.props;
  if (kept.length === 0) {
    edits.push({ start: span.start, end: span.end, text: '{}' });
    return;
  }
  const first = kept[0];
  if (first > 0) edits.push({ start: props[0].keyStart, end: props[first].keyStart, text: '' });
  let j = 1;
  for (let i = first + 1; i < props.length; i++) {
    if (j < kept.length && kept[j] === i) j++;
    else edits.push({ start: props[i - 1].valueEnd, end: props[i].valueEnd, text: '' });
  }
}

/**
 * An object that migration rewrites must not hold a key twice: JSON.parse keeps the last value,
 * so the rewritten text would hold one of the two and the other would be gone without a word.
 * Migration is lossless or does not happen: an InputError naming the key (a bug of the input).
 */
function refuseDuplicateKeys(span: ObjectSpan, path: readonly Segment[]): void {
  if (!hasDuplicateKeys(span.props)) return;
  const seen = new Set<string>();
  const key = span.props.find((p) => (seen.has(p.key) ? true : (seen.add(p.key), false)))!.key;
  throw new InputError(`${JSON.stringify(key)} appears twice in this object: migrating it would keep the last value and drop the other`, {
    location: { pointer: toPointer(path) },
    hint: 'remove one of the two (JSON.parse and most readers keep the last), then migrate',
  });
}

/**
 * A member of a changed object whose bytes do not survive whole (dropped, replaced, rebuilt, or
 * taken apart: only members copied whole under a key keep every byte) must not hold a key twice
 * anywhere inside: its parsed value, the one listed or re-laid out, would have lost the other.
 */
function refuseDuplicatesLeftOut(scanned: Scanned, p: Prop, path: readonly Segment[]): void {
  // Scalars hold no key: most members are passed on their first character.
  const c = scanned.t.charCodeAt(p.valueStart);
  if (c === LBRACE || c === LBRACKET) refuseDuplicatesWithin(scanned, p.valueStart, [...path, p.key]);
}

/** Whether members copy the changed object's `key` whole (a path of that one key, at any depth of members). */
function copiedWhole(members: readonly Member[], key: string): boolean {
  for (const m of members) {
    if ('from' in m) {
      if (m.from.length === 1 && m.from[0] === key) return true;
    } else if ('members' in m && copiedWhole(m.members, key)) return true;
  }
  return false;
}

/** refuseDuplicateKeys for every object inside a value (the object or array at `start`). */
function refuseDuplicatesWithin(scanned: Scanned, start: number, path: Segment[]): void {
  const t = scanned.t;
  if (t.charCodeAt(start) === LBRACE) {
    const span = readObject(scanned, start);
    refuseDuplicateKeys(span, path);
    for (const p of span.props) {
      const c = t.charCodeAt(p.valueStart);
      if (c === LBRACE || c === LBRACKET) refuseDuplicatesWithin(scanned, p.valueStart, [...path, p.key]);
    }
  } else {
    const items = readArray(scanned, start);
    for (let i = 0; i < items.length; i++) {
      const c = t.charCodeAt(items[i][0]);
      if (c === LBRACE || c === LBRACKET) refuseDuplicatesWithin(scanned, items[i][0], [...path, i]);
    }
  }
}

/** Whether two members share a key; without allocating for the usual handful of members. */
function hasDuplicateKeys(props: readonly Prop[]): boolean {
  if (props.length > 16) return new Set(props.map((p) => p.key)).size !== props.length;
  for (let i = 1; i < props.length; i++) for (let j = 0; j < i; j++) if (props[i].key === props[j].key) return true;
  return false;
}

/** Whether a JSON text parses to `value`: equal values and equal key order (see identicalJson in util/json.ts). */
function sameDocument(text: string, value: unknown): boolean {
  return identicalJson(JSON.parse(text), value);
}

/** Whether `obj` has exactly `keys`, in that order (for...in: Object.keys' order, without its array). */
function hasKeys(obj: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(obj);
  if (own.length !== keys.length) return false;
  for (let i = 0; i < own.length; i++) if (own[i] !== keys[i]) return false;
  return true;
}

function keyedProp(byKey: ReadonlyMap<string, Prop>, key: string): Prop {
  const p = byKey.get(key);
  if (!p) throw new Error(`no member ${key}`);
  return p;
}

function lastProp(props: readonly Prop[], key: string): Prop {
  return props[lastPropIndex(props, key)];
}

/** The index of `key` after `after`, else lastPropIndex's (an index not after it, or the error when it is absent). */
function propIndexAfter(props: readonly Prop[], key: string, after: number): number {
  for (let i = after + 1; i < props.length; i++) if (props[i].key === key) return i;
  return lastPropIndex(props, key);
}

function lastPropIndex(props: readonly Prop[], key: string): number {
  for (let i = props.length - 1; i >= 0; i--) if (props[i].key === key) return i;
  throw new Error(`no member ${key}`);
}

interface Style {
  multiLine: boolean;
  nl: string;
  /** Indentation of the members' lines. */
  indent: string;
  /** Indentation of the closing brace's line. */
  closing: string;
  /** One level of indentation. */
  unit: string;
  colon: string;
  /** Between members of a one-line object (after the comma). */
  gap: string;
  /** Inside the braces of a one-line object. */
  pad: [string, string];
}

function styleOf(t: string, span: ObjectSpan): Style {
  const first = span.props[0];
  const last = span.props[span.props.length - 1];
  const lead = t.slice(span.start + 1, first.keyStart);
  const trail = t.slice(last.valueEnd, span.end - 1);
  const colon = t.slice(first.keyEnd, first.valueStart);
  const second = span.props[1];
  const between = second ? t.slice(first.valueEnd, second.keyStart) : colon.endsWith(' ') ? ', ' : ',';
  const multiLine = lead.includes('\n');
  const nl = lead.includes('\r\n') ? '\r\n' : '\n';
  const indent = multiLine ? lead.slice(lead.lastIndexOf('\n') + 1) : '';
  const closing = trail.includes('\n') ? trail.slice(trail.lastIndexOf('\n') + 1) : '';
  const unit = indent.startsWith(closing) && indent.length > closing.length ? indent.slice(closing.length) : '  ';
  return {
    multiLine,
    nl,
    indent,
    closing,
    unit,
    colon,
    gap: between.replace(/^\s*,/, ''),
    pad: [multiLine ? '' : lead, multiLine ? '' : trail],
  };
}

/** Re-lays out a config object from its plan; values are copied from the source text. */
function renderObject(scanned: Scanned, span: ObjectSpan, members: readonly Member[], changePath: readonly Segment[]): string {
  const t = scanned.t;
  const style = styleOf(t, span);
  const byKey = new Map<string, Prop>();
  for (const p of span.props) byKey.set(p.key, p);
  // Objects inside the config that members are copied from, by their path.
  // (A long object's members are found through a map: a config may hold thousands of keys.)
  const nested = new Map<string, { props: Prop[]; byKey: Map<string, Prop> | undefined }>();
  const source = (path: readonly string[]): { keyText: string; valueText: string } => {
    let props = span.props;
    let keyed: Map<string, Prop> | undefined = byKey;
    for (let i = 0; i < path.length - 1; i++) {
      const id = path.slice(0, i + 1).join('\u0000');
      let inner = nested.get(id);
      if (!inner) {
        const holder = keyed ? keyedProp(keyed, path[i]) : lastProp(props, path[i]);
        const read = readObject(scanned, holder.valueStart);
        refuseDuplicateKeys(read, [...changePath, ...path.slice(0, i + 1)]);
        nested.set(id, (inner = { props: read.props, byKey: read.props.length > 32 ? new Map(read.props.map((p) => [p.key, p])) : undefined }));
      }
      props = inner.props;
      keyed = inner.byKey;
    }
    const last = path[path.length - 1];
    const p = keyed ? keyedProp(keyed, last) : lastProp(props, last);
    return { keyText: t.slice(p.keyStart, p.keyEnd), valueText: t.slice(p.valueStart, p.valueEnd) };
  };
  const render = (list: readonly Member[], depth: number): string => {
    const indent = style.indent + style.unit.repeat(depth);
    const closing = depth === 0 ? style.closing : style.indent + style.unit.repeat(depth - 1);
    const parts: string[] = [];
    for (const m of list) {
      if ('members' in m) parts.push(`${JSON.stringify(m.key)}${style.colon}${render(m.members, depth + 1)}`);
      else if ('value' in m) parts.push(`${JSON.stringify(m.key)}${style.colon}${renderValue(m.value, indent, style)}`);
      else {
        const { keyText, valueText } = source(m.from);
        const keyOut = m.key === m.from[m.from.length - 1] ? keyText : JSON.stringify(m.key);
        parts.push(`${keyOut}${style.colon}${reindent(valueText, depth - (m.from.length - 1), style)}`);
      }
    }
    if (parts.length === 0) return '{}';
    if (!style.multiLine) return `{${style.pad[0]}${parts.join(`,${style.gap}`)}${style.pad[1]}}`;
    return `{${style.nl}${indent}${parts.join(`,${style.nl}${indent}`)}${style.nl}${closing}}`;
  };
  return render(members, 0);
}

/** A value that is not in the source text, in the object's style: one line, or one member a line at the object's indentation. */
function renderValue(value: unknown, indent: string, style: Style): string {
  if (!style.multiLine || value === null || typeof value !== 'object') return JSON.stringify(value);
  return JSON.stringify(value, null, style.unit).replace(/\n/g, style.nl + indent);
}

/** Shift a multi-line value by `delta` levels when it moves into or out of advancedOptions. */
function reindent(value: string, delta: number, style: Style): string {
  if (delta === 0 || !style.multiLine || !value.includes('\n')) return value;
  if (delta > 0) return value.replace(/\n/g, '\n' + style.unit.repeat(delta));
  const strip = style.unit.repeat(-delta);
  return value.split('\n').map((line, i) => (i > 0 && line.startsWith(strip) ? line.slice(strip.length) : line)).join('\n');
}

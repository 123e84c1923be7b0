/**
 * The three-way merge of one item, label by label (the way `kubectl apply` merges): the CSV's
 * expected output (desired), the one the journal recorded at this item's last sync (last
 * applied) and the service's (live).
 *
 * A label is a field of the config as a CSV column names it (`total`, `vendor.name`): objects of
 * the config are walked into, everything else (a currency, an array, a date) is one label; a
 * CLASSIFY or SPLITTER output is one label (`class`, `splits`). Per label:
 *
 *   - CSV and service agree: in sync;
 *   - no column names it: the service's value stays (--prune-fields: it is removed, a `clear`);
 *   - only the CSV changed since the last sync: the CSV's value is sent (`update`, or `clear`
 *     when a value becomes empty);
 *   - only the service changed: the service's value stays (`kept`); --overwrite sends the CSV's;
 *   - both changed, to different values: `conflict`, the item is not written; --overwrite sends
 *     the CSV's;
 *   - no record of a last sync (first sync from this journal) and a difference: nobody can say
 *     which side changed, so it is refused like a conflict (`no-record`); --overwrite sends the
 *     CSV's.
 *
 * A CLASSIFY or SPLITTER output compares in either API form (classes.ts sameOutput): a
 * `confidence: 1` or a split id `split_<n>` on one side only is no difference.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ExpectedModel, Node } from '../expected/model.js';
import { isPlainObject } from '../util/json.js';
import { sameOutput } from './classes.js';
import { shapePath } from './columns.js';
import { formatPath, type Segment } from './paths.js';

export type LabelDecision = 'update' | 'clear' | 'kept' | 'conflict' | 'no-record';

export interface LabelChange {
  /** The field as a CSV header names it (`vendor.name`); `class` / `splits` for a whole CLASSIFY / SPLITTER output. */
  label: string;
  decision: LabelDecision;
  /** The CSV's typed value (null when empty). */
  csv: unknown;
  /** The service's value before the sync (null when empty or absent). */
  service: unknown;
  /** The value at this item's last sync; absent without a record. */
  lastSynced?: unknown;
  /** The CSV cell as typed, when one column holds the label. */
  cell?: string;
  /** --overwrite sent the CSV's value over a service change, a conflict or a missing record. */
  overwrite?: true;
}

export type ItemStatus = 'in-sync' | 'update' | 'kept' | 'conflict';

export interface ItemMerge {
  status: ItemStatus;
  /** What the item gets (status update): the service's output with the CSV's changes applied. */
  output: Record<string, unknown>;
  /** The labels that differ between CSV and service, in label order. */
  labels: LabelChange[];
}

export interface MergeOptions {
  /** Shape paths (`total`, `line_items[].quantity`) that no column of the CSV names. */
  uncovered: ReadonlySet<string>;
  /** Labels no column names are removed rather than kept. */
  pruneFields?: boolean;
  /** The CSV wins over service changes, conflicts and missing records. */
  overwrite?: boolean;
  /**
   * Without a record, a difference is taken as a CSV change instead of refused: for CSVs that
   * are corrections by nature (a harvest of reviewed runs, where the latest review wins).
   */
  csvWinsWithoutRecord?: boolean;
  /** The CSV cell text of a label path (under `value` for EXTRACT). */
  cellOf?: (path: readonly Segment[]) => string | undefined;
}

interface Label {
  /** Path in the expected output. */
  at: Segment[];
  name: string;
  /** Path under `value` (EXTRACT fields), for columns and shape paths. */
  field?: Segment[];
  known: boolean;
}

const ABSENT = undefined;

/** Equal as labels: absent and null are both "no value". */
export function sameLabel(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a ?? null, b ?? null);
}

/** No value: null, absent, '', [] or an object of empty members (a currency of nulls). */
export function isEmptyLabel(v: unknown): boolean {
  if (v === null || v === undefined || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isPlainObject(v)) return Object.values(v).every(isEmptyLabel);
  return false;
}

function at(root: unknown, path: readonly Segment[]): unknown {
  let cur = root;
  for (const k of path) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, k)) return ABSENT;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

/** Own keys of the present sides, in first-seen order (a field id may be `__proto__`). */
function keysOf(...sides: unknown[]): string[] {
  const out = new Set<string>();
  for (const s of sides) if (isPlainObject(s)) for (const k of Object.keys(s)) out.add(k);
  return [...out];
}

function labelsOf(model: ExpectedModel, sides: readonly unknown[]): Label[] {
  if (model.type !== 'EXTRACT') return [{ at: [], name: model.type === 'CLASSIFY' ? 'class' : 'splits', known: true }];
  const out: Label[] = [];
  const walk = (node: Node | undefined, field: Segment[]): void => {
    const values = sides.map((s) => at(s, ['value', ...field]));
    const present = values.filter((v) => v !== ABSENT);
    if (field.length === 0 || (node?.kind === 'object' && present.length > 0 && present.every(isPlainObject))) {
      const props = field.length === 0 ? model.fields : node?.kind === 'object' ? node.properties : {};
      const keys = new Set([...Object.keys(props), ...keysOf(...present)]);
      for (const k of keys) walk(Object.hasOwn(props, k) ? props[k] : undefined, [...field, k]);
      return;
    }
    if (present.length === 0 && node === undefined) return;
    out.push({ at: ['value', ...field], name: formatPath(field), field, known: node !== undefined });
  };
  walk(undefined, []);
  // Members beside `value` (an item's `metadata`) are labels of their own.
  for (const k of keysOf(...sides)) if (k !== 'value') out.push({ at: [k], name: `(${k})`, known: false });
  return out;
}

function setPath(root: Record<string, unknown>, path: readonly Segment[], value: unknown): void {
  let cur: Record<string | number, unknown> = root;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i];
    let next = Object.hasOwn(cur, k) ? cur[k] : undefined;
    if (!isPlainObject(next) && !Array.isArray(next)) {
      next = {};
      Object.defineProperty(cur, k, { value: next, enumerable: true, writable: true, configurable: true });
    }
    cur = next as Record<string | number, unknown>;
  }
  const last = path[path.length - 1];
  if (value === ABSENT) delete cur[last];
  else Object.defineProperty(cur, last, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * An array label some of whose members no column names (`line_items[0].amount` without a
 * quantity column): the CSV's elements take those members from the service's element at the
 * same index, so that naming one member is no instruction to drop the others.
 */
function fillUnnamedMembers(desired: unknown, live: unknown, shape: string, uncovered: ReadonlySet<string>): unknown {
  if (!Array.isArray(desired) || !Array.isArray(live)) return desired;
  const members = [...uncovered].filter((u) => u.startsWith(`${shape}[].`)).map((u) => u.slice(shape.length + 3)).filter((m) => !/[.[]/.test(m));
  if (members.length === 0) return desired;
  return desired.map((el: unknown, i) => {
    const from: unknown = live[i];
    if (!isPlainObject(el) || !isPlainObject(from)) return el;
    const copy: Record<string, unknown> = { ...el };
    for (const m of members) if (Object.hasOwn(from, m) && !Object.hasOwn(copy, m)) setPath(copy, [m], from[m]);
    return copy;
  });
}

function isUnnamed(label: Label, uncovered: ReadonlySet<string>, desired: unknown): boolean {
  if (!label.field) return !label.known && at(desired, label.at) === ABSENT;
  if (!label.known) return at(desired, label.at) === ABSENT;
  const shape = shapePath(label.field);
  for (const u of uncovered) if (shape === u || shape.startsWith(`${u}.`) || shape.startsWith(`${u}[]`)) return true;
  return false;
}

/**
 * Merges one item. `last` is undefined when the journal has no record of the item's last sync.
 * Pure: the inputs are not changed.
 */
export function mergeItem(model: ExpectedModel, desired: unknown, last: unknown, live: unknown, opts: MergeOptions): ItemMerge {
  const hasRecord = last !== undefined;
  const same = model.type === 'EXTRACT' ? sameLabel : (a: unknown, b: unknown) => sameOutput(a, b, model.type);
  const labels = labelsOf(model, [desired, last, live]);
  const output: Record<string, unknown> = isPlainObject(live) ? structuredClone(live) : {};
  const changes: LabelChange[] = [];
  let sends = false;
  let blocked = false;
  let kept = false;
  for (const label of labels) {
    const serviceValue = at(live, label.at);
    const unnamed = isUnnamed(label, opts.uncovered, desired);
    if (unnamed && !opts.pruneFields) continue;
    let csvValue = unnamed ? ABSENT : at(desired, label.at);
    if (label.field && model.type === 'EXTRACT') csvValue = fillUnnamedMembers(csvValue, serviceValue, shapePath(label.field), opts.uncovered);
    if (same(csvValue, serviceValue)) continue;
    const lastValue = hasRecord ? at(last, label.at) : ABSENT;
    let decision: LabelDecision;
    // --prune-fields names what to remove: no side's history makes it keep the value.
    if (unnamed) decision = isEmptyLabel(serviceValue) ? 'update' : 'clear';
    else if (!hasRecord && !opts.csvWinsWithoutRecord) decision = 'no-record';
    else if (!hasRecord || same(lastValue, serviceValue)) decision = isEmptyLabel(csvValue) && !isEmptyLabel(serviceValue) ? 'clear' : 'update';
    else if (same(lastValue, csvValue)) decision = 'kept';
    else decision = 'conflict';
    const change: LabelChange = { label: label.name, decision, csv: csvValue ?? null, service: serviceValue ?? null };
    if (hasRecord) change.lastSynced = lastValue ?? null;
    const cell = label.field && !unnamed ? opts.cellOf?.(label.field) : undefined;
    if (cell !== undefined) change.cell = cell;
    if (decision !== 'update' && decision !== 'clear' && opts.overwrite) {
      change.overwrite = true;
      change.decision = isEmptyLabel(csvValue) && !isEmptyLabel(serviceValue) ? 'clear' : 'update';
    }
    changes.push(change);
    if (change.decision === 'update' || change.decision === 'clear') {
      sends = true;
      if (label.at.length === 0) return finish(changes, isPlainObject(csvValue) ? structuredClone(csvValue) : {}, blocked, true, kept);
      setPath(output, label.at, csvValue === ABSENT ? ABSENT : structuredClone(csvValue));
    } else if (decision === 'kept') kept = true;
    else blocked = true;
  }
  return finish(changes, output, blocked, sends, kept);
}

/**
 * What the journal records as an item's last sync: the CSV's labels, and where no column names a
 * label (left as the service has it), the service's value at this sync. The record is the common
 * ancestor of the next sync's three-way merge: had it recorded such a label as absent, a column
 * put back with an edit would read as changed on both sides (a false conflict), and `download
 * --into` would take the service's unchanged value for a change the CSV has no column for.
 * (With pruneFields the unnamed labels are removed: the CSV's output is the whole record.)
 */
export function appliedLabels(model: ExpectedModel, desired: Record<string, unknown>, live: unknown, opts: Pick<MergeOptions, 'uncovered' | 'pruneFields'>): Record<string, unknown> {
  if (opts.pruneFields || model.type !== 'EXTRACT' || !isPlainObject(live)) return desired;
  let out: Record<string, unknown> | undefined;
  for (const label of labelsOf(model, [desired, live])) {
    let value: unknown;
    if (isUnnamed(label, opts.uncovered, desired)) value = at(live, label.at);
    else if (label.field) {
      const own = at(desired, label.at);
      value = fillUnnamedMembers(own, at(live, label.at), shapePath(label.field), opts.uncovered);
      if (value === own) continue;
    } else continue;
    if (sameLabel(value, at(desired, label.at))) continue;
    out ??= structuredClone(desired);
    setPath(out, label.at, value === ABSENT ? ABSENT : structuredClone(value));
  }
  return out ?? desired;
}

function finish(labels: LabelChange[], output: Record<string, unknown>, blocked: boolean, sends: boolean, kept: boolean): ItemMerge {
  const status: ItemStatus = blocked ? 'conflict' : sends ? 'update' : kept ? 'kept' : 'in-sync';
  return { status, output, labels };
}

/** Labels a merge clears (a value becoming empty), for the --allow-clear limit. */
export function clearedLabels(m: ItemMerge): number {
  return m.status === 'update' ? m.labels.filter((l) => l.decision === 'clear').length : 0;
}

/**
 * The typed values of a row to create, label by label (the review of a dry run). Empty labels
 * are listed too: a created item expects them empty.
 */
export function labelValues(model: ExpectedModel, desired: unknown, cellOf?: (path: readonly Segment[]) => string | undefined): Array<{ label: string; value: unknown; cell?: string }> {
  return labelsOf(model, [desired])
    .filter((l) => at(desired, l.at) !== ABSENT)
    .map((l) => {
      const cell = l.field ? cellOf?.(l.field) : undefined;
      return { label: l.name, value: at(desired, l.at) ?? null, ...(cell !== undefined ? { cell } : {}) };
    });
}

/**
 * Write-back: labels that changed on the service side (a corrections upload, a download --into)
 * written into the dataset CSV, so that the CSV and the set agree and the next sync plans
 * nothing. Format-preserving: only the cells whose value changes are rewritten; every other byte
 * of the file (other rows, other cells, quoting, line breaks, BOM, column order) stays as it was.
 * Atomic: the new file is written beside the old one, synced and renamed over it.
 *
 * Rows are matched to items as `dataset upload` matches them (planSync: the file's content hash
 * or fileId). A new cell is written in a form the dataset's own reading (buildRow, the coercion
 * of cells.ts) reads back to exactly the wanted value; a row whose rewritten cells would not read
 * back to it is refused before anything is written.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import jsonpatch, { type Operation } from 'fast-json-patch';
import type { Client } from '../api/index.js';
import type { ConfigSource } from '../expected/index.js';
import type { ExpectedForm, ExpectedModel, Node } from '../expected/model.js';
import { InputError } from '../util/errors.js';
import { writeFileAtomic } from '../util/fs.js';
import { isPlainObject, sortKeysDeep, valueAt } from '../util/json.js';
import { coerceCell, type CoerceOptions } from './cells.js';
import { canonicalOutput, classCell, inForm, sameLabels, sameOutput, splitsCell, withOlderMembers } from './classes.js';
import { shapePath, type Column, type ColumnMap, type ColumnPlan } from './columns.js';
import { openCsv, type CsvRecord } from './csv.js';
import { contentIdentity } from './files.js';
import { journalPathFor, readJournal, serviceKey } from './journal.js';
import { planSync } from './plan.js';
import { prepareRows } from './prepare.js';
import { neutralise, quoteCell } from './rejects.js';
import { FileIndex, listExisting } from './remote.js';
import { buildRow } from './rows.js';
import { formOf } from './config.js';
import { formatPath } from './paths.js';
import type { ProcessorType } from '../config/index.js';

/** One value, compared as the sync compares outputs (keys sorted; absent and null alike). */
function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeysDeep(a ?? null)) === JSON.stringify(sortKeysDeep(b ?? null));
}

/** What the write-back should bring into the CSV for one item. */
export interface WriteBackTarget {
  /**
   * The item's output before the change (a corrections upload: what the set held; download
   * --into: the journal's record of the item's last sync), or undefined: make the row equal
   * `after` (download --into of an item the journal has no record of).
   */
  before?: unknown;
  after: Record<string, unknown>;
}

export interface RowEdit {
  line: number;
  item: string;
  /** Column index -> the new cell's value (as read, before quoting). */
  cells: Map<number, string>;
  /** The same cells by column name, with the text each held, in column order (for a dry run's listing). */
  changes: CellChange[];
}

/** One cell a write-back rewrites: its column's header, the text it held and the text it gets. */
export interface CellChange {
  column: string;
  from: string;
  to: string;
}

export interface WriteBackPlan {
  csv: string;
  edits: RowEdit[];
  /** Items the CSV already agrees with. */
  unchanged: number;
  /** Rows left as they are because they hold an edit not yet uploaded (only the row changed since the last sync). */
  pending: number;
  /** New rows for items the CSV has no row for (download --into, with a fileId column). */
  appended: string[][];
  /** Items of the set the CSV has no row for and that cannot be appended (no fileId column). */
  missing: string[];
  problems: Array<{ line?: number; item: string; message: string }>;
  /**
   * What a rewritten row held that the form in effect has no place for and that its new output
   * does not carry (under 2026-02-09: a CLASSIFY confidence other than 1), one entry per value.
   */
  dropped: DroppedValue[];
  delimiter: string;
  cellsChanged: number;
}

/** A value a rewritten row loses: its CSV line, its item, the member's JSON pointer in the output and the value. */
export interface DroppedValue {
  line: number;
  item: string;
  pointer: string;
  value: unknown;
}

export interface WriteBackOptions {
  /** The dataset CSV. */
  csv: string;
  config: ConfigSource;
  client: Client;
  setId: string;
  targets: ReadonlyMap<string, WriteBackTarget>;
  coerce?: CoerceOptions;
  map?: ColumnMap;
  delimiter?: string;
  allowOutside?: boolean;
  /** Items with no row become new rows (download --into); else they are problems. */
  appendMissing?: boolean;
  /** Every item of the set, for appended rows (download --into). */
  fileIdOf?: ReadonlyMap<string, string>;
  signal?: AbortSignal;
}

/** Texts a value may be written as in a cell of this type, the plainest first; each is checked by reading it back. */
function candidates(node: Node | undefined, v: unknown, coerce: CoerceOptions): string[] {
  if (v === null || v === undefined) return [''];
  const out: string[] = [];
  const num = (n: number): string[] => (coerce.decimalComma ? [String(n).replace('.', ','), String(n)] : [String(n)]);
  if (typeof v === 'string') out.push(v);
  else if (typeof v === 'number') out.push(...num(v));
  else if (typeof v === 'boolean') out.push(String(v));
  else if (node?.kind === 'currency' && typeof v === 'object' && !Array.isArray(v)) {
    const c = v as { amount?: unknown; iso_4217_currency_code?: unknown };
    if (typeof c.amount === 'number' && typeof c.iso_4217_currency_code === 'string' && Object.keys(v).length === 2) for (const n of num(c.amount)) out.push(`${n} ${c.iso_4217_currency_code}`);
  }
  out.push(JSON.stringify(v));
  return out;
}

/** The value a cell of a field column reads as; undefined when it does not read at all. */
function fieldValue(col: Column, text: string, coerce: CoerceOptions): unknown {
  const r = coerceCell(col.node!, text, coerce);
  return r.ok ? r.value : undefined;
}

/** `invoice:1-3;receipt:4`, as a compact splits cell names them (by type, or by id). */
function compactSplits(splits: unknown, by: 'type' | 'classificationId'): string | undefined {
  if (!Array.isArray(splits) || splits.length === 0) return undefined;
  const out: string[] = [];
  for (const s of splits) {
    if (!isPlainObject(s) || typeof s[by] !== 'string' || typeof s.startPage !== 'number' || typeof s.endPage !== 'number') return undefined;
    out.push(`${s[by] as string}:${s.startPage === s.endPage ? s.startPage : `${s.startPage}-${s.endPage}`}`);
  }
  return out.join(';');
}

/** The new texts of the cells of one row so that it reads as `want`; only cells whose value differs. */
function cellsFor(plan: ColumnPlan, model: ExpectedModel, cells: readonly string[], want: Record<string, unknown>, coerce: CoerceOptions): Map<number, string> {
  const edits = new Map<number, string>();
  // CLASSIFY and SPLITTER outputs read the same in either API form (a split id the reading gives, confidence 1).
  const sameOut = (a: unknown, b: unknown): boolean => (model.type === 'EXTRACT' ? same(a, b) : sameOutput(a, b, model.type));
  const put = (col: Column, options: string[], ok: (text: string) => boolean): void => {
    const text = options.find(ok);
    edits.set(col.index, text ?? options[options.length - 1]);
  };
  for (const col of plan.columns) {
    const text = cells[col.index] ?? '';
    if (col.role === 'field' && model.type === 'EXTRACT') {
      const v = valueAt(want.value, col.path!);
      if (same(fieldValue(col, text, coerce), v)) continue;
      put(col, candidates(col.node, v, coerce), (t) => same(fieldValue(col, t, coerce), v));
    } else if (col.role === 'expectedOutput') {
      let cur: unknown;
      try {
        cur = JSON.parse(text);
      } catch {
        cur = undefined;
      }
      const bare = model.type === 'EXTRACT' && cur !== null && typeof cur === 'object' && !Array.isArray(cur) && !Object.hasOwn(cur, 'value') && Object.keys(want).every((k) => k === 'value');
      const next = bare ? want.value : want;
      if (sameOut(cur, next)) continue;
      edits.set(col.index, JSON.stringify(next));
    } else if (col.role === 'class' && model.type !== 'EXTRACT') {
      const read = (t: string) => {
        const r = classCell(t, model.classifications);
        return r.ok ? r.value : undefined;
      };
      if (sameOut(read(text), want)) continue;
      put(col, [String(want.type ?? ''), String(want.id ?? '')], (t) => sameOut(read(t), want));
    } else if (col.role === 'splits' && model.type !== 'EXTRACT') {
      const read = (t: string) => {
        const r = splitsCell(t, model.classifications);
        return r.ok ? r.value : undefined;
      };
      if (sameOut(read(text), want)) continue;
      // A compact cell (invoice:1-3;receipt:4) stays compact where that says it all.
      const t = text.trim();
      const compact = t !== '' && !t.startsWith('[') && !t.startsWith('{') ? [compactSplits(want.splits, 'type'), compactSplits(want.splits, 'classificationId')].filter((c): c is string => c !== undefined) : [];
      put(col, [...compact, JSON.stringify(want.splits), JSON.stringify(want)], (c) => sameOut(read(c), want));
    }
  }
  return edits;
}

/**
 * The change a corrections upload made to the set (before -> after), applied to the row's own
 * output: what the row holds elsewhere, where it differs from the set, stays. An operation the
 * row already satisfies is skipped, so applying twice is applying once.
 */
function patchRow(row: Record<string, unknown>, before: unknown, after: Record<string, unknown>): Record<string, unknown> | Array<string | number> {
  const ops = jsonpatch.compare(before as object, after);
  const doc = structuredClone(row);
  for (const op of ops) {
    const at = op.path.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    const want = op.op === 'remove' ? undefined : (op as Operation & { value: unknown }).value;
    if (same(valueAt(doc, at), want)) continue;
    // The row changed this label too (since `before`): both sides changed it, so neither wins.
    if (!same(valueAt(doc, at), valueAt(before, at))) return conflictPath(at);
    // A key the row leaves out is set (replace needs it there); a row of an array is replaced or inserted as the set's was.
    const setKey = op.op === 'replace' && !Array.isArray(valueAt(doc, at.slice(0, -1)));
    try {
      jsonpatch.applyOperation(doc, setKey ? { op: 'add', path: op.path, value: want } : op, true, true, false);
    } catch {
      return conflictPath(at);
    }
  }
  return doc;
}

/** The field path of a conflict (under `value` for EXTRACT), array indexes as numbers. */
function conflictPath(at: readonly string[]): Array<string | number> {
  const segs = at.map((t) => (/^\d+$/.test(t) ? Number(t) : t));
  return segs[0] === 'value' ? segs.slice(1) : segs;
}

/** Whether no column of the CSV holds a field path (or the object or array it is in). */
function uncoveredPath(segs: ReadonlyArray<string | number>, uncovered: ReadonlySet<string>): boolean {
  for (let n = segs.length; n > 0; n--) if (uncovered.has(shapePath(segs.slice(0, n)))) return true;
  return false;
}

/** Plans the write-back: which cells of which rows change. Reads the CSV and the set; writes nothing. */
export async function planWriteBack(opts: WriteBackOptions): Promise<WriteBackPlan> {
  const csv = path.resolve(opts.csv);
  const coerce = opts.coerce ?? {};
  // CLASSIFY and SPLITTER cells are written in the form of the client's API version (and read in either).
  const form = formOf(opts.client);
  // Rows are read in the 2025-04-21 form, which holds every member of either form: a row the form
  // in effect cannot hold (a confidence other than 1, a split's identifier) is still matched to its
  // item and kept, not skipped as invalid. Rows and the set's outputs compare across forms.
  const prepared = await prepareRows(opts.config, { csv, delimiter: opts.delimiter, map: opts.map, coerce, allowOutside: opts.allowOutside, form: '2025-04-21' });
  if (prepared.headerInvalid) {
    const f = prepared.findings.find((x) => x.severity === 'error')!;
    throw new InputError(`the dataset CSV's columns do not fit the processor config: ${f.message}`, { location: { file: opts.csv, line: f.line, column: f.column }, hint: f.hint ?? 'fix the header of the dataset CSV, or pass --source with the CSV the set was uploaded from' });
  }
  // The set's items matched to the CSV's rows as a sync matches them.
  const service = serviceKey(opts.client.options.baseUrl);
  const { state } = await readJournal(journalPathFor(csv), service);
  const index = new FileIndex();
  if (state) for (const [sha, fileId] of state.files) index.learn(contentIdentity(sha), fileId);
  const rowFileIds = new Set<string>();
  for (const r of prepared.rows) if (r.identity.startsWith('file:')) rowFileIds.add(r.identity.slice(5));
  const existing = await listExisting(opts.client, opts.setId, index, rowFileIds, { concurrency: 8, signal: opts.signal });
  const sync = planSync(prepared.rows, existing);
  const itemOfLine = new Map<number, string>();
  prepared.rows.forEach((r, i) => {
    const a = sync.actions[i];
    if (a.kind !== 'create' && opts.targets.has(a.itemId)) itemOfLine.set(r.line, a.itemId);
  });

  const plan: WriteBackPlan = { csv: opts.csv, edits: [], unchanged: 0, pending: 0, appended: [], missing: [], problems: [], dropped: [], delimiter: prepared.source.delimiter, cellsChanged: 0 };
  const seen = new Set<string>();
  for await (const rec of prepared.source.records()) {
    const item = itemOfLine.get(rec.line);
    if (item === undefined) continue;
    seen.add(item);
    const shaped = await prepared.shape(rec);
    const t = opts.targets.get(item)!;
    const row = shaped.output ?? {};
    const type = prepared.model.type;
    let want: Record<string, unknown>;
    if (type !== 'EXTRACT') {
      const target = labelTarget(row, t, type, form);
      if (target === 'unchanged' || target === 'pending') {
        plan[target]++;
        continue;
      }
      if (target === 'conflict') {
        plan.problems.push({ line: rec.line, item, message: `${type === 'CLASSIFY' ? 'the class' : 'the splits'} changed in the row too (it holds another label than the set had), where the set's change goes` });
        continue;
      }
      want = target;
    } else if (same(row, t.after)) {
      plan.unchanged++;
      continue;
    } else if (t.before === undefined || same(row, t.before)) want = t.after;
    else {
      const patched = patchRow(row, t.before, t.after);
      if (Array.isArray(patched)) {
        const label = formatPath(patched);
        plan.problems.push({
          line: rec.line,
          item,
          message: uncoveredPath(patched, prepared.columns.uncovered)
            ? `no column holds ${label}, where the set's change goes (add its column)`
            : `${label} was changed in the row too (it holds another value than the set had there), where the set's change goes`,
        });
        continue;
      }
      want = patched;
    }
    const cells = cellsFor(prepared.columns, prepared.model, shaped.cells, want, coerce);
    const next = shaped.cells.slice();
    for (const [i, text] of cells) next[i] = text;
    const built = buildRow(next, rec.line, prepared.columns, prepared.model, coerce);
    if (!built.output || !readsAs(built.output, want, prepared.model.type)) {
      plan.problems.push({ line: rec.line, item, message: `its columns cannot hold the set's value${firstDifference(built.output, want, prepared.model.type)}` });
      continue;
    }
    if (cells.size === 0) {
      // No cell changes, though the row and the set differ: the row holds an edit of its own.
      if (readsAs(row, want, type) && !readsAs(row, t.after, type)) plan.pending++;
      else plan.unchanged++;
      continue;
    }
    if (form === '2026-02-09') for (const d of lostMembers(row, built.output, type)) plan.dropped.push({ line: rec.line, item, ...d });
    const header = prepared.source.header;
    const changes = [...cells].sort((a, b) => a[0] - b[0]).map(([i, text]) => ({ column: header[i] ?? `column ${i + 1}`, from: shaped.cells[i] ?? '', to: text }));
    plan.edits.push({ line: rec.line, item, cells, changes });
    plan.cellsChanged += cells.size;
  }
  for (const item of opts.targets.keys()) {
    if (seen.has(item)) continue;
    const fileId = opts.fileIdOf?.get(item);
    const idCol = prepared.columns.fileIdColumn;
    if (opts.appendMissing && fileId !== undefined && idCol) {
      const empty = prepared.source.header.map(() => '');
      empty[idCol.index] = fileId;
      const after = opts.targets.get(item)!.after;
      const want = prepared.model.type === 'EXTRACT' || !isPlainObject(after) ? after : inForm(after, prepared.model.type, form);
      const cells = cellsFor(prepared.columns, prepared.model, empty, want, coerce);
      for (const [i, text] of cells) empty[i] = text;
      const built = buildRow(empty, 0, prepared.columns, prepared.model, coerce);
      if (built.output && readsAs(built.output, want, prepared.model.type)) {
        plan.appended.push(empty);
        continue;
      }
      plan.problems.push({ item, message: `a new row cannot hold its value${firstDifference(built.output, want, prepared.model.type)}` });
    } else if (opts.appendMissing) plan.missing.push(item);
    else plan.problems.push({ item, message: 'no valid row of the CSV names its file' });
  }
  return plan;
}

/**
 * What a CLASSIFY or SPLITTER row should hold, its output being one label compared across API
 * forms (sameLabels): 'unchanged', 'conflict' (changed in the row and in the set since `before`),
 * or the output to write, in `form`. Nothing one side holds that the other's form cannot say is
 * lost: with the same labels the row stays as it is (it may hold a confidence or a split's
 * identifier the set's form has no place for), taking in, under 2025-04-21, what the set holds
 * more; when the set's label comes in, the row's older members go with it where a split is unchanged.
 */
export function labelTarget(row: Record<string, unknown>, t: WriteBackTarget, type: Exclude<ProcessorType, 'EXTRACT'>, form: ExpectedForm): Record<string, unknown> | 'unchanged' | 'pending' | 'conflict' {
  const after = isPlainObject(t.after) ? inForm(t.after, type, form) : {};
  if (sameLabels(row, after, type)) {
    const want = form === '2025-04-21' ? withOlderMembers(row, after, type) : row;
    return sameOutput(want, row, type) ? 'unchanged' : want;
  }
  if (t.before === undefined || sameLabels(row, t.before, type)) return withOlderMembers(after, row, type);
  // Only the row changed since the last sync: its edit stays for the next upload.
  if (sameLabels(t.before, after, type)) return 'pending';
  return 'conflict';
}

/**
 * The members a CLASSIFY row's output loses in its rewrite under 2026-02-09: a confidence other than 1 (absent,
 * null and 1 say the same: spec 3.7, as migrate's expected-output step takes it) that the
 * rewritten cells no longer read. The row is read in the 2025-04-21 form, so the member is seen
 * whichever column held it.
 */
function lostMembers(before: Record<string, unknown>, after: unknown, type: ProcessorType): Array<{ pointer: string; value: unknown }> {
  if (type !== 'CLASSIFY' || !Object.hasOwn(before, 'confidence')) return [];
  const value = before.confidence;
  if (value === null || value === undefined || value === 1) return [];
  const kept = isPlainObject(after) && Object.hasOwn(after, 'confidence') ? after.confidence : undefined;
  return isDeepStrictEqual(kept, value) ? [] : [{ pointer: '/confidence', value }];
}

/** Whether rewritten cells read back to the wanted output (CLASSIFY and SPLITTER: in either API form). */
function readsAs(got: unknown, want: unknown, type: ProcessorType): boolean {
  return type === 'EXTRACT' ? same(got, want) : sameOutput(got, want, type);
}

/** ` (field total: the cells read 12, the set holds 12.5)`: where a row would differ from the wanted output. */
function firstDifference(got: unknown, want: unknown, type: ProcessorType = 'EXTRACT'): string {
  if (type !== 'EXTRACT') {
    got = canonicalOutput(got, type);
    want = canonicalOutput(want, type);
  }
  const ops = jsonpatch.compare((got ?? {}) as object, want as object);
  if (ops.length === 0) return '';
  const at = ops[0].path.split('/').slice(1).map((t) => (/^\d+$/.test(t) ? Number(t) : t.replace(/~1/g, '/').replace(/~0/g, '~')));
  const field = formatPath(at[0] === 'value' ? at.slice(1) : at) || '(the whole output)';
  return ` at ${field}: the set holds ${JSON.stringify(valueAt(want, at)) ?? 'nothing'}, the cells would read ${JSON.stringify(valueAt(got, at)) ?? 'nothing'}`;
}

/** The write-back's problems as one input error (exit 2) naming the CSV, the line and what to do. */
export function writeBackError(plan: WriteBackPlan, hint: string): InputError {
  const shown = plan.problems.slice(0, 5).map((p) => `${p.line !== undefined ? `line ${p.line} ` : ''}(item ${p.item}): ${p.message}`);
  const more = plan.problems.length > 5 ? `; and ${plan.problems.length - 5} more` : '';
  return new InputError(`cannot write ${plan.problems.length === 1 ? 'a label' : `${plan.problems.length} labels`} into the dataset CSV: ${shown.join('; ')}${more}; nothing was written`, {
    location: { file: plan.csv, line: plan.problems[0]?.line },
    hint,
  });
}

/** A write-back that would drop values (exit 2, nothing written), each named by line, item, pointer and value. */
export function lossyWriteBackError(plan: WriteBackPlan, what = 'corrected', hint = 'pass --allow-lossy to drop them (each is listed), or remove the confidence from those rows (or the confidence column) first'): InputError {
  const shown = plan.dropped.slice(0, 5).map((d) => `line ${d.line} (item ${d.item}) ${d.pointer} ${JSON.stringify(d.value)}`);
  const more = plan.dropped.length > 5 ? `; and ${plan.dropped.length - 5} more` : '';
  const n = plan.dropped.length;
  return new InputError(`the ${what} ${n === 1 ? 'row' : 'rows'} would lose ${n === 1 ? 'a value' : `${n} values`} the 2026-02-09 expected output has no place for: ${shown.join('; ')}${more}; nothing was written`, {
    location: { file: plan.csv, line: plan.dropped[0].line },
    hint,
  });
}

/** A record's raw text split into its raw cells (quotes kept): csv-parse gives the values, not where each cell is. */
function rawCells(raw: string, delimiter: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const c of raw) {
    if (c === '"') quoted = !quoted;
    if (c === delimiter && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

const unquote = (raw: string): string => (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1).replace(/""/g, '"') : raw);

/** One record's new text: its raw cells kept, the edited ones written (quoted where needed, formulas made inert). */
function rewriteRecord(text: string, rec: CsvRecord, cells: ReadonlyMap<number, string>, delimiter: string): string {
  // Blank lines before the record and its line break after it are kept as they are.
  const lead = /^[\r\n]*/.exec(text)![0];
  const trail = /(\r\n|\n|\r)?$/.exec(text.slice(lead.length))![0];
  const body = text.slice(lead.length, text.length - trail.length);
  let raw = rawCells(body, delimiter);
  // Should the split not give back exactly what was parsed, the record is written from its values.
  if (raw.length !== rec.cells.length || raw.some((r, i) => unquote(r) !== rec.cells[i])) raw = rec.cells.map((c) => quoteCell(c, delimiter));
  const width = Math.max(raw.length, ...[...cells.keys()].map((i) => i + 1));
  while (raw.length < width) raw.push('');
  for (const [i, value] of cells) raw[i] = quoteCell(neutralise(value), delimiter);
  return lead + raw.join(delimiter) + trail;
}

/** The line break the file uses (for appended rows). */
function lineBreakOf(buf: Buffer): string {
  const text = buf.subarray(0, 64 * 1024).toString('utf8');
  return /\r\n/.test(text) ? '\r\n' : /\r(?!\n)/.test(text) ? '\r' : '\n';
}

/**
 * Writes the planned cells into the CSV: every byte outside the edited cells as it was, the
 * whole file replaced atomically (temp, fsync, rename). Returns the cells written.
 */
export async function applyWriteBack(plan: WriteBackPlan): Promise<number> {
  if (plan.edits.length === 0 && plan.appended.length === 0) return 0;
  const file = path.resolve(plan.csv);
  const buf = await fsp.readFile(file);
  const byLine = new Map(plan.edits.map((e) => [e.line, e]));
  const source = await openCsv(file, { delimiter: plan.delimiter });
  const parts: Array<string | Buffer> = [];
  let at = 0;
  let done = 0;
  for await (const rec of source.records()) {
    const e = byLine.get(rec.line);
    if (!e) continue;
    parts.push(buf.subarray(at, rec.start));
    parts.push(rewriteRecord(buf.subarray(rec.start, rec.end).toString('utf8'), rec, e.cells, plan.delimiter));
    at = rec.end;
    done++;
  }
  if (done !== plan.edits.length) throw new InputError('the dataset CSV changed while it was being written back; nothing was written', { location: { file: plan.csv }, hint: 'run the command again' });
  parts.push(buf.subarray(at));
  if (plan.appended.length > 0) {
    const nl = lineBreakOf(buf);
    const ends = buf.length === 0 || buf[buf.length - 1] === 0x0a || buf[buf.length - 1] === 0x0d;
    parts.push((ends ? '' : nl) + plan.appended.map((r) => r.map((c) => quoteCell(neutralise(c), plan.delimiter)).join(plan.delimiter) + nl).join(''));
  }
  await writeFileAtomic(file, Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p))));
  return plan.cellsChanged;
}

/**
 * A corrections upload's write-back: each updated item's change (what the set held -> the
 * corrected output) in its row of the dataset CSV. Refused (exit 2, nothing written) when a row
 * cannot take it.
 */
export async function planCorrectionsWriteBack(
  opts: { coerce?: CoerceOptions; allowOutside?: boolean; allowLossy?: boolean; signal?: AbortSignal },
  source: string,
  config: ConfigSource,
  client: Client,
  setId: string,
  updates: ReadonlyArray<{ item: string; output: Record<string, unknown> }>,
  items: ReadonlyMap<string, unknown>,
): Promise<WriteBackPlan> {
  const targets = new Map(updates.map((u) => [u.item, { before: items.get(u.item), after: u.output }]));
  const plan = await planWriteBack({ csv: source, config, client, setId, targets, coerce: opts.coerce, allowOutside: opts.allowOutside, signal: opts.signal });
  if (plan.problems.length > 0) {
    throw writeBackError(plan, `the dataset CSV must hold each corrected item's row with a column for the field: sync it first (evalkit dataset upload ${source}), pass --source with the CSV the set was uploaded from, or --no-write-back to correct the set only`);
  }
  // As migrate: what the form in effect cannot hold is refused unless dropping it is asked for.
  if (plan.dropped.length > 0 && !opts.allowLossy) throw lossyWriteBackError(plan);
  return plan;
}

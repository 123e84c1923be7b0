/**
 * The relabel loop's way back: `evalkit dataset upload errors.csv --evaluation-set ID` with the
 * errors file of `evalkit report --export-errors` (its `expected` column corrected) updates
 * exactly the items it names. Each row sets the expected value at its field path (`total`,
 * `line_items[2].amount`; `line_items[+3].amount` adds a row; `class` for CLASSIFY) in the
 * item's expectedOutput as the service holds it; the result is validated like every upload,
 * unchanged items are left alone, and each update is journaled.
 */
import { createExpectedValidator, type ConfigSource } from '../expected/index.js';
import type { ExpectedForm, ExpectedModel, Node } from '../expected/model.js';
import { isPlainObject } from '../util/json.js';
import { coerceCell, type CellResult, type CoerceOptions } from './cells.js';
import { classCell, inForm, sameOutput } from './classes.js';
import { nodeAt } from './columns.js';
import type { CsvSource } from './csv.js';
import type { RowFinding } from './findings.js';
import { digestOf } from './plan.js';
import { modelOf } from './prepare.js';
import { unneutralise } from './rejects.js';

/** The first columns of an errors file (src/report/errors.ts ERROR_COLUMNS). */
export const ERRORS_HEADER = ['item', 'file', 'fileId', 'field', 'outcome', 'expected'] as const;

export function isErrorsHeader(header: readonly string[]): boolean {
  return ERRORS_HEADER.every((h, i) => header[i]?.replace(/^\ufeff/, '').trim() === h);
}

export interface Correction {
  line: number;
  item: string;
  field: string;
  expected: string;
}

export async function readCorrections(source: CsvSource): Promise<Correction[]> {
  const out: Correction[] = [];
  for await (const rec of source.records()) {
    const cells = rec.cells.map(unneutralise);
    out.push({ line: rec.line, item: (cells[0] ?? '').trim(), field: (cells[3] ?? '').trim(), expected: cells[5] ?? '' });
  }
  return out;
}

type Seg = string | { row: number; added: boolean };

/** `line_items[2].amount` -> ['line_items', {row 2}, 'amount']; `[+3]` is a predicted row that has no expected row. */
export function fieldPath(field: string): Seg[] | undefined {
  const segs: Seg[] = [];
  const re = /([^.[\]]+)|\[(\+?)(\d+)\]|\./gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < field.length && (m = re.exec(field)) !== null) {
    at = re.lastIndex;
    if (m[1] !== undefined) segs.push(m[1]);
    else if (m[3] !== undefined) segs.push({ row: Number(m[3]), added: m[2] === '+' });
  }
  return at === field.length && segs.length > 0 && typeof segs[0] === 'string' ? segs : undefined;
}

/**
 * A value as a spreadsheet cell of an errors file: text as it is, empty for none, anything else
 * as JSON. correctedValue reads it back: a cell left as written gives the value it was written from.
 */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** A corrected cell as a value of the kind the old value has (empty: none), for fields the config does not declare. */
export function cellValue(cell: string, old: unknown): unknown {
  if (cell.trim() === '') return null;
  if (typeof old === 'string') return cell;
  if (typeof old === 'number') {
    const n = Number(cell.trim());
    return Number.isFinite(n) ? n : cell;
  }
  if (typeof old === 'boolean' && /^(true|false)$/i.test(cell.trim())) return cell.trim().toLowerCase() === 'true';
  if (/^\s*(-?\d|true\b|false\b|[{[])/.test(cell)) {
    try {
      return JSON.parse(cell) as unknown;
    } catch {
      return cell;
    }
  }
  return cell;
}

/**
 * The value a corrected cell means. A cell still as the report wrote it (the old value's
 * cellText) is the old value: an untouched errors file changes nothing, also for "", "  " and
 * text that starts like a formula. Else the dataset CSV's coercion for the field's type (one
 * parser per concept: `58.76 USD`, `11th Jan 2025` mean what they mean in data.csv), or, for a
 * field the config does not declare, a value of the kind the old value has.
 */
export function correctedValue(cell: string, old: unknown, node: Node | undefined, coerce: CoerceOptions = {}): CellResult {
  if (cell === cellText(old)) return { ok: true, value: old, problems: [] };
  if (node) return coerceCell(node, cell, coerce);
  return { ok: true, value: cellValue(cell, old), problems: [] };
}

/** How corrections are read: the config's model (field types, classifications) and the dataset's coercion options. */
export interface CorrectionContext {
  model?: ExpectedModel;
  coerce?: CoerceOptions;
}

/**
 * A field path as the report wrote it (`vendor.name`, `line_items[2].amount`) against the item's
 * expected output and the config. A field id may hold dots itself (`vendor.name` as one id): at
 * each level the longest key there (in the expected output or the config) that the rest of the
 * path starts with is one key; a path no key explains is read as fieldPath reads it.
 */
export function resolveField(field: string, root: unknown, fields: Record<string, Node> | undefined): Seg[] | undefined {
  const out: Seg[] = [];
  let cur: unknown = root;
  let node: Node | undefined = fields ? { kind: 'object', properties: fields } : undefined;
  let rest = field;
  while (rest.length > 0) {
    const row = out.length > 0 ? /^\[(\+?)(\d+)\]/.exec(rest) : null;
    if (row) {
      const seg = { row: Number(row[2]), added: row[1] === '+' };
      out.push(seg);
      cur = Array.isArray(cur) && !seg.added ? cur[seg.row] : undefined;
      node = node?.kind === 'array' ? node.items : node?.kind === 'any' ? node : undefined;
      rest = rest.slice(row[0].length);
    } else {
      const props: Record<string, Node> | undefined = node?.kind === 'object' ? node.properties : undefined;
      let key: string | undefined;
      const consider = (k: string): void => {
        if (k !== '' && (key === undefined || k.length > key.length) && rest.startsWith(k) && (rest.length === k.length || rest[k.length] === '.' || rest[k.length] === '[')) key = k;
      };
      if (isPlainObject(cur)) for (const k of Object.keys(cur)) consider(k);
      if (props) for (const k of Object.keys(props)) consider(k);
      key ??= /^[^.[\]]+/.exec(rest)?.[0];
      if (key === undefined) return undefined;
      out.push(key);
      cur = isPlainObject(cur) && Object.hasOwn(cur, key) ? cur[key] : undefined;
      node = props && Object.hasOwn(props, key) ? props[key] : node?.kind === 'currency' ? (key === 'amount' ? { kind: 'number' } : key === 'iso_4217_currency_code' ? { kind: 'string' } : undefined) : node?.kind === 'any' ? node : undefined;
      rest = rest.slice(key.length);
    }
    if (rest.startsWith('.')) {
      rest = rest.replace(/^\.+/, '');
      if (rest === '') return undefined;
    }
  }
  return out.length > 0 && typeof out[0] === 'string' ? out : undefined;
}

/** The config's node for a resolved path (rows as array items). */
function nodeOf(fields: Record<string, Node> | undefined, segs: readonly Seg[]): Node | undefined {
  return fields ? nodeAt(fields, segs.map((s) => (typeof s === 'string' ? s : 0))) : undefined;
}

/** Sets the corrections of one item in a copy of its expectedOutput. */
export function applyCorrections(expectedOutput: unknown, corrections: readonly Correction[], type: string, ctx: CorrectionContext = {}): { output: Record<string, unknown>; findings: RowFinding[] } {
  const output = structuredClone(isPlainObject(expectedOutput) ? expectedOutput : {}) as Record<string, unknown>;
  const findings: RowFinding[] = [];
  const fail = (c: Correction, message: string, hint?: string, rule = 'correction'): void => {
    findings.push({ line: c.line, field: c.field, rule, severity: 'error', message, hint });
  };
  const fields = ctx.model?.type === 'EXTRACT' ? ctx.model.fields : undefined;
  // Rows added for unpaired predicted rows: one new expected row per `[+n]`, added only when one
  // of its cells was filled in (an errors file uploaded as the report wrote it changes nothing).
  const added = new Map<string, { rows: unknown[]; row: Record<string, unknown> }>();
  for (const c of corrections) {
    if (type === 'CLASSIFY') {
      const text = c.expected.trim();
      if (c.field !== 'class') fail(c, `a CLASSIFY item has no field ${c.field}`, 'the field of a CLASSIFY errors row is class');
      else if (text === '') fail(c, 'an empty class', 'name the expected class');
      else if (c.expected === cellText(output.type) || c.expected === cellText(output.id)) continue;
      else if (ctx.model && ctx.model.type !== 'EXTRACT') {
        const r = classCell(c.expected, ctx.model.classifications);
        if (!r.ok) for (const p of r.problems) fail(c, p.message, p.hint, p.rule);
        else Object.assign(output, r.value);
      } else {
        delete output.id;
        output.type = text;
      }
      continue;
    }
    if (type !== 'EXTRACT') {
      fail(c, `corrections of ${type} items are not supported`, 'edit the splits in the dataset CSV and upload it');
      continue;
    }
    const value = isPlainObject(output.value) ? output.value : output;
    const segs = resolveField(c.field, value, fields);
    if (!segs) {
      fail(c, `the field path "${c.field}" cannot be read`, 'keep the field column as the report wrote it');
      continue;
    }
    let node: Record<string, unknown> = value;
    let ok = true;
    for (let i = 0; i < segs.length - 1 && ok; i++) {
      const s = segs[i];
      const next = segs[i + 1];
      if (typeof s !== 'string') continue;
      if (typeof next === 'string') {
        if (!isPlainObject(node[s])) node[s] = {};
        node = node[s] as Record<string, unknown>;
        continue;
      }
      if (!Array.isArray(node[s])) node[s] = [];
      const rows = node[s] as unknown[];
      if (next.added) {
        const key = `${segs.slice(0, i + 1).join('.')}[+${next.row}]`;
        let entry = added.get(key);
        if (!entry) added.set(key, (entry = { rows, row: {} }));
        node = entry.row;
      } else if (next.row < rows.length && isPlainObject(rows[next.row])) node = rows[next.row] as Record<string, unknown>;
      else {
        fail(c, `the expected output has no row ${next.row} in ${s}`, 'was the item changed since the report?');
        ok = false;
      }
    }
    const last = segs[segs.length - 1];
    if (!ok) continue;
    if (typeof last !== 'string') {
      fail(c, `"${c.field}" ends in a row, not a field`, 'corrections set one field of a row');
      continue;
    }
    const old = Object.hasOwn(node, last) ? node[last] : undefined;
    const r = correctedValue(c.expected, old, nodeOf(fields, segs), ctx.coerce);
    if (!r.ok) {
      for (const p of r.problems) fail(c, p.message, p.hint, p.rule);
      continue;
    }
    // A field the expected output leaves out stays out while its cell is empty.
    if (r.value !== undefined) node[last] = r.value;
  }
  for (const { rows, row } of added.values()) if (Object.values(row).some((v) => v !== null)) rows.push(row);
  return { output, findings };
}

export interface CorrectionPlan {
  updates: Array<{ item: string; line: number; output: Record<string, unknown> }>;
  unchanged: number;
  findings: RowFinding[];
  rows: number;
}

/**
 * Plans the updates: the corrected expectedOutput of each named item, validated with the config.
 * The set's items are read in either API form and an update is built in `form` (the API version
 * in effect's), as an upload builds its items: what that form cannot hold (a CLASSIFY confidence
 * other than 1) is an `api-version-form` finding of the item's row, never dropped. An item whose
 * corrections change no label (also: only its form differs) is unchanged and not sent.
 */
export function planCorrections(corrections: readonly Correction[], items: ReadonlyMap<string, unknown>, config: ConfigSource, coerce: CoerceOptions = {}, form: ExpectedForm = '2025-04-21'): CorrectionPlan {
  const findings: RowFinding[] = [];
  const byItem = new Map<string, Correction[]>();
  for (const c of corrections) {
    if (c.item === '') {
      findings.push({ line: c.line, rule: 'correction', severity: 'error', message: 'the item column is empty', hint: 'keep the item column as the report wrote it' });
      continue;
    }
    if (!items.has(c.item)) {
      findings.push({ line: c.line, rule: 'correction', severity: 'error', message: `the evaluation set has no item ${c.item}`, hint: 'upload the errors file into the set the report was computed from' });
      continue;
    }
    byItem.set(c.item, [...(byItem.get(c.item) ?? []), c]);
  }
  const validate = createExpectedValidator(config.config, { type: config.type, form });
  const ctx: CorrectionContext = { model: modelOf(config), coerce };
  const updates: CorrectionPlan['updates'] = [];
  let unchanged = 0;
  for (const [item, list] of byItem) {
    const old = items.get(item);
    const { output: corrected, findings: f } = applyCorrections(old, list, config.type, ctx);
    findings.push(...f);
    if (f.length) continue;
    const output = inForm(corrected, config.type, form);
    const same = config.type === 'EXTRACT' ? digestOf(output) === digestOf(old) : sameOutput(output, old, config.type);
    // An item left as it is is not sent: the form it is held in is no finding of this upload.
    const errors = validate(output).findings.filter((x) => x.severity === 'error' && !(same && x.rule === 'api-version-form'));
    if (errors.length) {
      for (const e of errors) findings.push({ line: list[0].line, field: e.pointer, rule: e.rule, severity: 'error', message: `item ${item}: ${e.message}` });
      continue;
    }
    if (same) unchanged++;
    else updates.push({ item, line: list[0].line, output });
  }
  return { updates, unchanged, findings, rows: corrections.length };
}

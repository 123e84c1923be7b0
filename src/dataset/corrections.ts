/**
 * The relabel loop's way back: `evalkit dataset upload errors.csv --evaluation-set ID` with the
 * errors file of `evalkit report --export-errors` (its `expected` column corrected) updates
 * exactly the items it names. Each row sets the expected value at its field path (`total`,
 * `line_items[2].amount`; `line_items[+3].amount` adds a row; `class` for CLASSIFY) in the
 * item's expectedOutput as the service holds it; the result is validated like every upload,
 * unchanged items are left alone, and each update is journaled.
 */
import { createExpectedValidator, type ConfigSource } from '../expected/index.js';
import { isPlainObject } from '../util/json.js';
import type { CsvSource } from './csv.js';
import type { RowFinding } from './findings.js';
import { digestOf } from './plan.js';
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

/** A corrected cell as a value of the kind the old value has (empty: none). */
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

/** Sets the corrections of one item in a copy of its expectedOutput. */
export function applyCorrections(expectedOutput: unknown, corrections: readonly Correction[], type: string): { output: Record<string, unknown>; findings: RowFinding[] } {
  const output = structuredClone(isPlainObject(expectedOutput) ? expectedOutput : {}) as Record<string, unknown>;
  const findings: RowFinding[] = [];
  const fail = (c: Correction, message: string, hint?: string): void => {
    findings.push({ line: c.line, field: c.field, rule: 'correction', severity: 'error', message, hint });
  };
  // Rows added for unpaired predicted rows: one new expected row per `[+n]`, added only when one
  // of its cells was filled in (an errors file uploaded as the report wrote it changes nothing).
  const added = new Map<string, { rows: unknown[]; row: Record<string, unknown> }>();
  for (const c of corrections) {
    if (type === 'CLASSIFY') {
      if (c.field !== 'class') fail(c, `a CLASSIFY item has no field ${c.field}`, 'the field of a CLASSIFY errors row is class');
      else if (c.expected.trim() === '') fail(c, 'an empty class', 'name the expected class');
      else {
        delete output.id;
        output.type = c.expected.trim();
      }
      continue;
    }
    if (type !== 'EXTRACT') {
      fail(c, `corrections of ${type} items are not supported`, 'edit the splits in the dataset CSV and upload it');
      continue;
    }
    const segs = fieldPath(c.field);
    if (!segs) {
      fail(c, `the field path "${c.field}" cannot be read`, 'keep the field column as the report wrote it');
      continue;
    }
    let node: Record<string, unknown> = isPlainObject(output.value) ? output.value : output;
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
    node[last] = cellValue(c.expected, node[last]);
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

/** Plans the updates: the corrected expectedOutput of each named item, validated with the config. */
export function planCorrections(corrections: readonly Correction[], items: ReadonlyMap<string, unknown>, config: ConfigSource): CorrectionPlan {
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
  const validate = createExpectedValidator(config.config, { type: config.type });
  const updates: CorrectionPlan['updates'] = [];
  let unchanged = 0;
  for (const [item, list] of byItem) {
    const old = items.get(item);
    const { output, findings: f } = applyCorrections(old, list, config.type);
    findings.push(...f);
    if (f.length) continue;
    const v = validate(output);
    const errors = v.findings.filter((x) => x.severity === 'error');
    if (errors.length) {
      for (const e of errors) findings.push({ line: list[0].line, field: e.pointer, rule: e.rule, severity: 'error', message: `item ${item}: ${e.message}` });
      continue;
    }
    if (digestOf(output) === digestOf(old)) unchanged++;
    else updates.push({ item, line: list[0].line, output });
  }
  return { updates, unchanged, findings, rows: corrections.length };
}

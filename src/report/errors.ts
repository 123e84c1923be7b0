/**
 * `report --export-errors errors.csv|.jsonl`: one row per wrong outcome (FA, FN, FD) with the
 * document, field path, expected and predicted values, the prediction's confidence and the
 * baseline's prediction; worst documents first. What a labeling team opens: cells a spreadsheet
 * would run as a formula are made inert as in the dataset's rejects file, and the `expected`
 * column, corrected, can go back through `evalkit dataset upload`.
 */
import type { DocumentRecord } from '../metrics/generated/report.js';
import { cellText } from '../dataset/corrections.js';
import { nameWithoutUploadTag } from '../dataset/files.js';
import { csvLine } from '../dataset/rejects.js';
import { UsageError } from '../util/errors.js';
import { baselineSide, currentValues, pairCells, type ExplorerInput } from './explorer/data.js';
import type { Cell, DocumentValues } from './explorer/values.js';
import { pairDocuments } from './pairing.js';

export const ERROR_COLUMNS = ['item', 'file', 'fileId', 'field', 'outcome', 'expected', 'predicted', 'confidence', 'baseline_predicted', 'document_errors'] as const;

export interface ErrorRow {
  item: string;
  file: string;
  fileId: string;
  /** Concrete path: `line_items[2].amount` (expected row 2), `line_items[+3].amount` (unpaired predicted row 3), `class`, `splits`. */
  field: string;
  outcome: 'FA' | 'FN' | 'FD';
  expected: unknown;
  predicted: unknown;
  confidence: number | null;
  /** The baseline's prediction; undefined when there is no baseline or it is a report (no values). */
  baseline_predicted?: unknown;
  document_errors: number;
}

export type ErrorsFormat = 'csv' | 'jsonl';

export function errorsFormatOf(file: string): ErrorsFormat {
  if (/\.csv$/i.test(file)) return 'csv';
  if (/\.(jsonl|ndjson)$/i.test(file)) return 'jsonl';
  throw new UsageError(`--export-errors ${file}: the file name must end in .csv or .jsonl`, { hint: 'for example --export-errors errors.csv' });
}

const OUTCOME = ['TP', 'TN', 'FA', 'FN', 'FD'] as const;

/** `line_items[].amount` with rows [[2, 4]] -> `line_items[2].amount`; an unpaired predicted row -> `[+4]`. */
export function concretePath(unit: string, rows: Cell['rows']): string {
  let k = 0;
  return unit.replace(/\[\]/g, () => {
    const r = rows[k++];
    return r === undefined ? '[]' : r[0] >= 0 ? `[${r[0]}]` : `[+${r[1]}]`;
  });
}

/** The worst first: most wrong outcomes, then the least confident (CLASSIFY: the most confident mistake), then by id. */
function worstOrder(docs: readonly DocumentRecord[], conf: ReadonlyMap<string, number | null>, classify: boolean): number[] {
  const c = (d: DocumentRecord): number => conf.get(d.id) ?? (classify ? -1 : 2);
  return docs
    .map((_, i) => i)
    .sort((a, b) => docs[b].errors - docs[a].errors || (classify ? c(docs[b]) - c(docs[a]) : c(docs[a]) - c(docs[b])) || (docs[a].id < docs[b].id ? -1 : docs[a].id > docs[b].id ? 1 : 0));
}

const splitText = (s: { type: string; startPage: number; endPage: number }): string => `${s.type} ${s.startPage}-${s.endPage}`;

/**
 * Each document's wrong outcomes, in the report's order of documents, with the lowest confidence
 * the worst-first order needs (`visit` sees each document that has a wrong outcome; the rows are
 * not kept here). Needs the values (`values`, or the export).
 */
function visitErrors(input: ExplorerInput, visit: (index: number, rows: ErrorRow[], low: number | null) => void): void {
  const { report } = input;
  const current = currentValues(input);
  if (!current) throw new Error('the errors file needs the export or its values');
  const base = baselineSide(input);
  const records = input.documents;
  const pairing = base ? pairDocuments(records, base.documents, report.options.pairBy ?? 'auto') : undefined;
  const pairOf = new Map<string, string>((pairing?.pairs ?? []).map(([i, j]) => [records[i].id, base!.documents[j].id]));
  records.forEach((d, index) => {
    if (d.errors === 0) return;
    const v = current.of(d.id);
    if (!v) return;
    const bid = pairOf.get(d.id);
    const bv: DocumentValues | undefined = bid !== undefined ? base?.values?.of(bid) : undefined;
    // The file's name as the user gave it (dataset upload's content tag left out, as the explorer shows it).
    const common = { item: d.id, file: d.fileName ? nameWithoutUploadTag(d.fileName) : d.fileId, fileId: d.fileId, document_errors: d.errors };
    const baselineValue = (x: unknown): Pick<ErrorRow, 'baseline_predicted'> => (base?.values ? { baseline_predicted: bid === undefined ? undefined : x } : {});
    const rows: ErrorRow[] = [];
    let low: number | null = null;
    if (v.type === 'EXTRACT') {
      const baseCells = bv?.type === 'EXTRACT' ? bv.cells : [];
      const paired = pairCells(v.cells, current.paths, baseCells, base?.values?.paths ?? []);
      for (let i = 0; i < v.cells.length; i++) {
        const c = v.cells[i];
        if (c.confidence !== undefined && (low === null || c.confidence < low)) low = c.confidence;
        if (c.outcome < 2) continue;
        const unit = c.leaf < 0 ? c.path : current.paths[c.leaf];
        const b = paired.of[i] >= 0 ? baseCells[paired.of[i]] : undefined;
        rows.push({ ...common, field: c.leaf < 0 ? c.path : concretePath(unit, c.rows), outcome: OUTCOME[c.outcome] as ErrorRow['outcome'], expected: c.expected, predicted: c.predicted, confidence: c.confidence ?? null, ...baselineValue(b ? b.predicted : null) });
      }
    } else if (v.type === 'CLASSIFY') {
      low = v.confidence;
      if (v.expected !== v.predicted || v.expected === null) {
        rows.push({ ...common, field: 'class', outcome: v.predicted === null ? 'FN' : 'FD', expected: v.expected, predicted: v.predicted, confidence: v.confidence, ...baselineValue(bv?.type === 'CLASSIFY' ? bv.predicted : null) });
      }
    } else {
      // Splits without an exact match on the other side: FN (expected) and FA (predicted).
      const left = (list: typeof v.expected, other: typeof v.expected) => {
        const pool = new Map<string, number>();
        for (const s of other) pool.set(splitText(s), (pool.get(splitText(s)) ?? 0) + 1);
        return list.filter((s) => {
          const n = pool.get(splitText(s)) ?? 0;
          if (n > 0) pool.set(splitText(s), n - 1);
          return n === 0;
        });
      };
      const bText = bv?.type === 'SPLITTER' ? bv.predicted.map(splitText).join('; ') : null;
      for (const s of left(v.expected, v.predicted)) rows.push({ ...common, field: 'splits', outcome: 'FN', expected: splitText(s), predicted: null, confidence: null, ...baselineValue(bText) });
      for (const s of left(v.predicted, v.expected)) rows.push({ ...common, field: 'splits', outcome: 'FA', expected: null, predicted: splitText(s), confidence: null, ...baselineValue(bText) });
    }
    visit(index, rows, low);
  });
}

/** Every wrong outcome of the report's documents, worst documents first. Needs the values (`values`, or the export). */
export function errorRows(input: ExplorerInput): ErrorRow[] {
  const perDoc = new Map<number, ErrorRow[]>();
  const conf = new Map<string, number | null>();
  visitErrors(input, (i, rows, low) => {
    perDoc.set(i, rows);
    conf.set(input.documents[i].id, low);
  });
  return worstOrder(input.documents, conf, input.report.type === 'CLASSIFY').flatMap((i) => perDoc.get(i) ?? []);
}

/**
 * The errors file (renderErrors of errorRows) made document by document: each document's rows
 * become its lines at once, so only the text is held, not a row object per wrong outcome (50,000
 * documents: 378,000 rows). Returns the text and the count of rows.
 */
export function errorsText(input: ExplorerInput, format: ErrorsFormat, baselineKind?: 'export' | 'report', viewUrl?: string): { text: string; count: number } {
  const perDoc = new Map<number, string>();
  const conf = new Map<string, number | null>();
  let count = 0;
  visitErrors(input, (i, rows, low) => {
    let text = '';
    for (const r of rows) text += errorLine(r, format, baselineKind, viewUrl);
    perDoc.set(i, text);
    conf.set(input.documents[i].id, low);
    count += rows.length;
  });
  const parts = worstOrder(input.documents, conf, input.report.type === 'CLASSIFY').map((i) => perDoc.get(i) ?? '');
  return { text: (format === 'csv' ? csvLine([...ERROR_COLUMNS, ...(viewUrl === undefined ? [] : ['view'])], ',') : '') + parts.join(''), count };
}

// One encoding of a value as a cell, shared with the reading of the corrected file (dataset upload).
export { cellText };

export function renderErrors(rows: readonly ErrorRow[], format: ErrorsFormat, baselineKind?: 'export' | 'report'): string {
  let text = format === 'csv' ? csvLine([...ERROR_COLUMNS], ',') : '';
  for (const r of rows) text += errorLine(r, format, baselineKind);
  return text;
}

/**
 * Where `evalkit view` shows a wrong value: the report's address in it (`--view-url`) with the
 * deep link of the document and, for EXTRACT, the field as the explorer names it (rows as `[]`).
 */
export function viewLink(viewUrl: string, r: Pick<ErrorRow, 'item' | 'field'>): string {
  const field = r.field === 'class' || r.field === 'splits' ? '' : r.field.replace(/\[\+?\d+\]/g, '[]');
  return `${viewUrl}#doc=${encodeURIComponent(r.item)}${field ? `&field=${encodeURIComponent(field)}` : ''}`;
}

/** One row of the errors file: a CSV line, or a JSONL line (each ends its line); with `viewUrl`, a last column `view`. */
function errorLine(r: ErrorRow, format: ErrorsFormat, baselineKind?: 'export' | 'report', viewUrl?: string): string {
  if (format === 'jsonl') {
    const out: Record<string, unknown> = {};
    for (const k of ERROR_COLUMNS) if (k !== 'baseline_predicted' || baselineKind === 'export') out[k] = r[k] ?? null;
    if (viewUrl !== undefined) out.view = viewLink(viewUrl, r);
    return JSON.stringify(out) + '\n';
  }
  const baseline = baselineKind === undefined ? '' : baselineKind === 'report' ? 'not available' : cellText(r.baseline_predicted);
  const cells = [r.item, r.file, r.fileId, r.field, r.outcome, cellText(r.expected), cellText(r.predicted), r.confidence === null ? '' : String(r.confidence), baseline, String(r.document_errors)];
  if (viewUrl !== undefined) cells.push(viewLink(viewUrl, r));
  return csvLine(cells, ',');
}

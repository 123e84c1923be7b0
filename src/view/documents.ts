/**
 * What the document pane shows of one document: its file (where it is, or why it cannot be
 * shown), the citations of the run and of the baseline (read in either API version's shape into
 * one neutral form), and, per cited field, the expected, predicted and baseline values.
 */
import type { ExportItem } from '../metrics/generated/export.js';
import { nameWithoutUploadTag } from '../dataset/files.js';
import { parsePath } from '../dataset/paths.js';
import { isPlainObject } from '../util/json.js';
import { kindOf, type FileKind } from './files.js';

export interface PaneCitation {
  /** The metadata path: `total`, `line_items[0].amount`. */
  field: string;
  side: 'run' | 'baseline';
  page: number;
  polygon: Array<{ x: number; y: number }>;
  /** The page's size in the polygon's units; undefined: the page's own (PDF points, image pixels). */
  pageWidth?: number;
  pageHeight?: number;
  text?: string;
}

export interface PaneDocument {
  id: string;
  name: string;
  kind: FileKind;
  /** Where the page fetches the file from; null with `missing`. */
  fileUrl: string | null;
  missing?: string;
  type: 'EXTRACT' | 'CLASSIFY' | 'SPLITTER';
  pageCount: number | null;
  /** A TIFF's pages in pixels: each is fetched as PNG at `fileUrl&page=<n>`. */
  pageSizes?: Array<{ width: number; height: number }>;
  citations: PaneCitation[];
  /** Per cited field: expected, predicted and the baseline's prediction (undefined: no baseline). */
  values: Record<string, { expected: unknown; predicted: unknown; baseline?: unknown }>;
  classify?: { expected: unknown; predicted: unknown; baseline?: unknown };
  splits?: { expected: Split[]; predicted: Split[]; baseline?: Split[] };
  notes: string[];
  /** The baseline's export (of a report compared with one) is not found or not readable: why; its citations and values are not shown. */
  baselineMissing?: string;
}

type Split = [type: string, start: number, end: number];

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function valueAt(root: unknown, p: string): unknown {
  const segs = parsePath(p);
  if (!segs) return undefined;
  let cur: unknown = root;
  for (const s of segs) {
    if (typeof s === 'number') {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[s];
    } else {
      if (!isPlainObject(cur) || !Object.hasOwn(cur, s)) return undefined;
      cur = cur[s];
    }
  }
  return cur;
}

/**
 * One citation in the neutral form: 2025-04-21 `{page, polygon, pageWidth, pageHeight, referenceText}`
 * or 2026-02-09 `{page: {number, width, height}, polygon, referenceText}`; undefined when it has no page or polygon.
 */
export function readCitation(c: unknown, field: string, side: PaneCitation['side']): PaneCitation | undefined {
  if (!isPlainObject(c)) return undefined;
  const page = isPlainObject(c.page) ? c.page.number : c.page;
  const width = isPlainObject(c.page) ? c.page.width : c.pageWidth;
  const height = isPlainObject(c.page) ? c.page.height : c.pageHeight;
  if (!num(page) || !Number.isInteger(page) || page < 1 || !Array.isArray(c.polygon) || c.polygon.length < 2) return undefined;
  const polygon = c.polygon.map((q) => (isPlainObject(q) && num(q.x) && num(q.y) ? { x: q.x, y: q.y } : undefined));
  if (polygon.some((q) => q === undefined)) return undefined;
  return {
    field,
    side,
    page,
    polygon: polygon as PaneCitation['polygon'],
    ...(num(width) && width > 0 && num(height) && height > 0 ? { pageWidth: width, pageHeight: height } : {}),
    ...(typeof c.referenceText === 'string' ? { text: c.referenceText } : {}),
  };
}

function citationsOf(output: unknown, side: PaneCitation['side'], notes: string[]): PaneCitation[] {
  const meta = isPlainObject(output) ? output.metadata : undefined;
  if (!isPlainObject(meta)) return [];
  const out: PaneCitation[] = [];
  for (const [field, entry] of Object.entries(meta)) {
    if (!isPlainObject(entry) || !Array.isArray(entry.citations)) continue;
    entry.citations.forEach((c, k) => {
      const read = readCitation(c, field, side);
      if (read) out.push(read);
      else notes.push(`${side === 'baseline' ? "the baseline's" : 'the'} citation ${k + 1} of ${field} has no page and polygon; not drawn`);
    });
  }
  return out;
}

const classOf = (o: unknown): unknown => (isPlainObject(o) ? (o.type ?? o.id ?? null) : null);

function splitsOf(o: unknown): Split[] {
  const list = isPlainObject(o) ? (Array.isArray(o.splits) ? o.splits : Array.isArray(o.subDocumentClassifications) ? o.subDocumentClassifications : []) : [];
  return list.filter(isPlainObject).flatMap((s) => (num(s.startPage) && num(s.endPage) ? [[String(s.type ?? s.classificationId ?? ''), s.startPage, s.endPage] as Split] : []));
}

export function paneDocument(
  type: PaneDocument['type'],
  item: ExportItem,
  baseline: ExportItem | undefined,
  file: { url: string; pages?: Array<{ width: number; height: number }> } | { missing: string },
): PaneDocument {
  const notes: string[] = [];
  const name = item.fileName ? nameWithoutUploadTag(item.fileName) : item.fileId;
  const output = (item as { output?: unknown }).output;
  const expected = (item as { expectedOutput?: unknown }).expectedOutput;
  const baseOut = baseline ? (baseline as { output?: unknown }).output : undefined;
  const doc: PaneDocument = {
    id: item.id,
    name,
    kind: kindOf(name).kind,
    fileUrl: 'url' in file ? file.url : null,
    ...('missing' in file ? { missing: file.missing } : {}),
    type,
    pageCount: 'pages' in file && file.pages ? file.pages.length : num((item as { pageCount?: unknown }).pageCount) ? ((item as { pageCount: number }).pageCount) : null,
    ...('pages' in file && file.pages ? { pageSizes: file.pages } : {}),
    citations: [],
    // Field paths are the user's keys (`__proto__` is one): a null-prototype record.
    values: Object.create(null) as PaneDocument['values'],
    notes,
  };
  if (type === 'EXTRACT') {
    doc.citations = [...citationsOf(output, 'run', notes), ...citationsOf(baseOut, 'baseline', notes)];
    const value = (o: unknown): unknown => (isPlainObject(o) ? o.value : undefined);
    for (const c of doc.citations) {
      if (Object.hasOwn(doc.values, c.field)) continue;
      doc.values[c.field] = {
        expected: valueAt(value(expected), c.field) ?? null,
        predicted: valueAt(value(output), c.field) ?? null,
        ...(baseline ? { baseline: valueAt(value(baseOut), c.field) ?? null } : {}),
      };
    }
  } else if (type === 'CLASSIFY') {
    doc.classify = { expected: classOf(expected), predicted: classOf(output), ...(baseline ? { baseline: classOf(baseOut) } : {}) };
  } else {
    doc.splits = { expected: splitsOf(expected), predicted: splitsOf(output), ...(baseline ? { baseline: splitsOf(baseOut) } : {}) };
  }
  return doc;
}

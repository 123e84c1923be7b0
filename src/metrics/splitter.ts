/**
 * SPLITTER: exact split matching (type and page range), panoptic quality and page-level
 * accuracy, per document.
 */
import { isPlainObject } from '../util/json.js';
import type { DocumentDiff, DocumentRecord } from './generated/report.js';

/** Longer page ranges are treated as invalid rather than enumerated page by page. */
export const MAX_PAGES = 100_000;

export interface Split {
  type: string;
  startPage: number;
  endPage: number;
}

/** Split types a SPLITTER config declares: `splitClassifications` (2025-04-21) or `subDocumentClassifications`. */
export function configSplitTypes(config: unknown): string[] {
  if (!isPlainObject(config)) return [];
  const list = Array.isArray(config.splitClassifications)
    ? config.splitClassifications
    : Array.isArray(config.subDocumentClassifications)
      ? config.subDocumentClassifications
      : [];
  return list.filter(isPlainObject).flatMap((c) => (typeof c.type === 'string' && c.type.trim() !== '' ? [c.type.trim()] : []));
}

/**
 * The splits of an output: `splits` (2025-04-21) or `subDocumentClassifications` (before).
 * A split's type is its `type`, else its `classificationId`; splits without a type or with
 * an invalid page range (not integers, end before start, more than MAX_PAGES pages) are only
 * counted, in `invalid`.
 */
export function splitsOf(output: unknown): { splits: Split[]; invalid: number } {
  if (!isPlainObject(output)) return { splits: [], invalid: 0 };
  const list = Array.isArray(output.splits) ? output.splits : Array.isArray(output.subDocumentClassifications) ? output.subDocumentClassifications : [];
  const splits: Split[] = [];
  let invalid = 0;
  for (const s of list) {
    if (!isPlainObject(s)) {
      invalid++;
      continue;
    }
    const type = typeof s.type === 'string' && s.type.trim() !== '' ? s.type.trim() : typeof s.classificationId === 'string' ? s.classificationId : '';
    const { startPage, endPage } = s;
    if (type === '' || !Number.isInteger(startPage) || !Number.isInteger(endPage)) {
      invalid++;
      continue;
    }
    const span = (endPage as number) - (startPage as number);
    if (span < 0 || span >= MAX_PAGES) {
      invalid++;
      continue;
    }
    splits.push({ type, startPage: startPage as number, endPage: endPage as number });
  }
  return { splits, invalid };
}

/** Intersection over union of the page sets of two splits. */
export function pageIou(a: Split, b: Split): number {
  const inter = Math.max(0, Math.min(a.endPage, b.endPage) - Math.max(a.startPage, b.startPage) + 1);
  const union = a.endPage - a.startPage + 1 + (b.endPage - b.startPage + 1) - inter;
  return inter / union;
}

/** A document's splitter record (the report's shape) and its differences. */
export type SplitterDoc = NonNullable<DocumentRecord['splitter']> & { diffs: DocumentDiff[] };

const key = (s: Split): string => `${s.type}\u0000${s.startPage}\u0000${s.endPage}`;
const show = (s: Split): Split => ({ type: s.type, startPage: s.startPage, endPage: s.endPage });

export function scoreSplitterDoc(E: Split[], P: Split[]): SplitterDoc {
  // Exact matches: same type and page range, each split used at most once.
  const pool = new Map<string, number[]>();
  P.forEach((s, j) => {
    const k = key(s);
    const list = pool.get(k);
    if (list) list.push(j);
    else pool.set(k, [j]);
  });
  const matchedP = new Uint8Array(P.length);
  const types: Record<string, [number, number, number]> = {};
  const t = (type: string): [number, number, number] => (types[type] ??= [0, 0, 0]);
  const diffs: DocumentDiff[] = [];
  let correct = 0;
  for (const s of E) {
    t(s.type)[0]++;
    const j = pool.get(key(s))?.shift();
    if (j === undefined) {
      diffs.push({ path: 'splits', outcome: 'FN', expected: show(s), predicted: null });
      continue;
    }
    matchedP[j] = 1;
    correct++;
    t(s.type)[2]++;
  }
  P.forEach((s, j) => {
    t(s.type)[1]++;
    if (!matchedP[j]) diffs.push({ path: 'splits', outcome: 'FA', expected: null, predicted: show(s) });
  });

  // Panoptic quality: same-type segments match when their page-set IoU exceeds 0.5.
  const candidates: Array<[number, number, number]> = [];
  E.forEach((e, i) =>
    P.forEach((p, j) => {
      if (e.type !== p.type) return;
      const iou = pageIou(e, p);
      if (iou > 0.5) candidates.push([iou, i, j]);
    }),
  );
  // With non-overlapping segments on each side a match is unique; for overlapping predictions
  // the highest IoU wins (ties by position), so the result does not depend on the input order.
  candidates.sort((a, b) => b[0] - a[0] || a[1] - b[1] || a[2] - b[2]);
  const usedE = new Uint8Array(E.length);
  const usedP = new Uint8Array(P.length);
  let pqTp = 0;
  let iouSum = 0;
  for (const [iou, i, j] of candidates) {
    if (usedE[i] || usedP[j]) continue;
    usedE[i] = usedP[j] = 1;
    pqTp++;
    iouSum += iou;
  }

  // Page-level accuracy over every page some expected or predicted split covers.
  const labelOf = (splits: Split[]): Map<number, string> => {
    const m = new Map<number, string>();
    for (const s of splits) for (let pg = s.startPage; pg <= s.endPage; pg++) if (!m.has(pg)) m.set(pg, s.type);
    return m;
  };
  const el = labelOf(E);
  const pl = labelOf(P);
  const pages = new Set([...el.keys(), ...pl.keys()]);
  let pagesCorrect = 0;
  for (const pg of pages) if (el.get(pg) === pl.get(pg)) pagesCorrect++;

  return {
    expected: E.length,
    predicted: P.length,
    correct,
    pqTp,
    pqFp: P.length - pqTp,
    pqFn: E.length - pqTp,
    iouSum,
    pages: pages.size,
    pagesCorrect,
    types,
    diffs,
  };
}

/**
 * SPLITTER: exact split matching (type and page range), panoptic quality and page-level
 * accuracy, per document.
 */
import { dict, isPlainObject } from '../util/json.js';
import type { DocumentDiff, DocumentRecord } from './generated/report.js';
import { maxWeightPairs } from './assignment.js';

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

/** Why splits were left out, counted. */
export interface InvalidSplits {
  /** No `type` and no `classificationId`, or not an object. */
  noType: number;
  /** startPage or endPage not an integer. */
  notInteger: number;
  /** startPage below 1. */
  startBelowOne: number;
  /** endPage before startPage. */
  badRange: number;
  /** More than MAX_PAGES pages (not enumerated page by page for page accuracy). */
  tooLong: number;
  /** endPage past the document's page count (when the export gives it). */
  pastLastPage: number;
}

export const noInvalidSplits = (): InvalidSplits => ({ noType: 0, notInteger: 0, startBelowOne: 0, badRange: 0, tooLong: 0, pastLastPage: 0 });

/**
 * The splits of an output: `splits` (2025-04-21) or `subDocumentClassifications` (before).
 * A split's type is its `type`, else its `classificationId`. Splits without a type, with pages
 * that are not integers, a startPage below 1, an endPage before the startPage (or more than
 * MAX_PAGES pages), or an endPage past `pageCount` are left out and counted in `invalid`.
 */
export function splitsOf(output: unknown, pageCount?: number, invalid: InvalidSplits = noInvalidSplits()): { splits: Split[]; invalid: InvalidSplits } {
  if (!isPlainObject(output)) return { splits: [], invalid };
  const list = Array.isArray(output.splits) ? output.splits : Array.isArray(output.subDocumentClassifications) ? output.subDocumentClassifications : [];
  const splits: Split[] = [];
  for (const s of list) {
    if (!isPlainObject(s)) {
      invalid.noType++;
      continue;
    }
    const type = typeof s.type === 'string' && s.type.trim() !== '' ? s.type.trim() : typeof s.classificationId === 'string' ? s.classificationId : '';
    const { startPage, endPage } = s;
    if (type === '') invalid.noType++;
    else if (!Number.isInteger(startPage) || !Number.isInteger(endPage)) invalid.notInteger++;
    else if ((startPage as number) < 1) invalid.startBelowOne++;
    else if ((endPage as number) < (startPage as number)) invalid.badRange++;
    else if ((endPage as number) - (startPage as number) >= MAX_PAGES) invalid.tooLong++;
    else if (pageCount !== undefined && (endPage as number) > pageCount) invalid.pastLastPage++;
    else splits.push({ type, startPage: startPage as number, endPage: endPage as number });
  }
  return { splits, invalid };
}

/** "3 without a type, 1 with startPage below 1": the reasons that occurred, for a warning. */
export function describeInvalid(x: InvalidSplits): string {
  const parts: string[] = [];
  if (x.noType) parts.push(`${x.noType} without a type`);
  if (x.notInteger) parts.push(`${x.notInteger} with pages that are not whole numbers`);
  if (x.startBelowOne) parts.push(`${x.startBelowOne} with startPage below 1`);
  if (x.badRange) parts.push(`${x.badRange} with endPage before startPage`);
  if (x.tooLong) parts.push(`${x.tooLong} longer than ${MAX_PAGES.toLocaleString('en-US')} pages`);
  if (x.pastLastPage) parts.push(`${x.pastLastPage} past the document's last page`);
  return parts.join(', ');
}

export function invalidCount(x: InvalidSplits): number {
  return x.noType + x.notInteger + x.startBelowOne + x.badRange + x.tooLong + x.pastLastPage;
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
  const types = dict<[number, number, number]>();
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

  // Panoptic quality: same-type segments match when their page-set IoU exceeds 0.5. Where
  // segments overlap a segment may qualify for several; the matching is the one with the most
  // pairs, then the largest IoU sum (a maximum-weight assignment with weight M + IoU, M above any
  // IoU sum), so the result depends on the splits, never on their order.
  const M = Math.min(E.length, P.length) + 1;
  let any = false;
  const weights = E.map((e) =>
    P.map((p) => {
      if (e.type !== p.type) return 0;
      const iou = pageIou(e, p);
      if (iou <= 0.5) return 0;
      any = true;
      return M + iou;
    }),
  );
  let pqTp = 0;
  let iouSum = 0;
  if (any) {
    // Added smallest first: in the pairs' order, the same IoUs could sum to 1.9500000000000002
    // or 1.95 as the splits come.
    const ious = maxWeightPairs(weights).map(([i, j]) => pageIou(E[i], P[j]));
    ious.sort((a, b) => a - b);
    pqTp = ious.length;
    for (const iou of ious) iouSum += iou;
  }

  // Page-level accuracy over every page some expected or predicted split covers: a page is
  // right when the types covering it are the same set on both sides (overlaps included).
  const labelOf = (splits: Split[]): Map<number, string> => {
    const sets = new Map<number, Set<string>>();
    for (const s of splits) {
      for (let pg = s.startPage; pg <= s.endPage; pg++) {
        const set = sets.get(pg);
        if (set) set.add(s.type);
        else sets.set(pg, new Set([s.type]));
      }
    }
    return new Map([...sets].map(([pg, set]) => [pg, set.size === 1 ? [...set][0] : JSON.stringify([...set].sort())]));
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

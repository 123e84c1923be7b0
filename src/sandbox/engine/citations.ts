/**
 * Citations of the simulated outputs: where on its page each predicted value is printed. The
 * finding works on a neutral layout (text runs with boxes, top-left origin) and returns a neutral
 * citation per value; `citation20250421` shapes one for the 2025-04-21 output metadata (the form
 * runs are stored in) and `citation20260209` for 2026-02-09 answers. Another API version is one
 * more serializer beside them, never a second finder.
 *
 * Layouts: a PDF's text runs as pdf.js positions them (PDF points at scale 1); a text file's lines
 * in character cells (x: column, y: line, each line one cell high), so a viewer draws a box at
 * x / pageWidth of a monospace page. Within a PDF run the characters are placed by the widths of
 * Helvetica's glyphs (the demo's PDFs use it; most sans-serif text is near it), scaled to the
 * run's width; within a text line, one cell each. Values the document does not contain get no
 * citation.
 */
import type * as PdfJsModule from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface TextRun {
  str: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** Where each character starts, from `x`, and where the last ends (`str.length + 1` entries, the last `w`); none: all alike wide. */
  edges?: number[];
}

export interface PageLayout {
  width: number;
  height: number;
  runs: TextRun[];
}

export interface Point {
  x: number;
  y: number;
}

/** One place a value is printed: page (1-based), the polygon around its text, and the page's size in the polygon's units. */
export interface Citation {
  page: number;
  polygon: Point[];
  referenceText: string;
  pageWidth: number;
  pageHeight: number;
}

/** A text file's pages as lines in character cells. */
export function textLayout(pages: readonly string[]): PageLayout[] {
  return pages.map((text) => {
    const lines = text.split(/\r?\n/);
    const runs = lines.map((str, y) => ({ str, x: 0, y, w: str.length, h: 1 }));
    return { width: Math.max(1, ...lines.map((l) => l.length)), height: Math.max(1, lines.length), runs };
  });
}

/**
 * Widths of the standard 14 font Helvetica's glyphs (its AFM, 1/1000 em) for ASCII 32-126 (`'`
 * and `` ` `` as WinAnsiEncoding prints them: quotesingle, grave); other characters `HELVETICA_OTHER`.
 */
// prettier-ignore
const HELVETICA_ASCII = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space ! " # $ % & ' ( ) * + , - . /
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0-9 : ; < = > ?
  1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ A-O
  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P-Z [ \ ] ^ _
  333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` a-o
  556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p-z { | } ~
];
const HELVETICA_OTHER = 556;

function helveticaWidth(ch: string): number {
  const code = ch.charCodeAt(0);
  return code >= 32 && code <= 126 ? HELVETICA_ASCII[code - 32] : HELVETICA_OTHER;
}

/** A run's character edges by Helvetica's widths, scaled so that they end at `w`. */
export function helveticaEdges(str: string, w: number): number[] {
  const edges = [0];
  for (const ch of str) {
    const adv = helveticaWidth(ch);
    // A character of two UTF-16 units (outside the BMP) takes its width on its first unit.
    edges.push(edges[edges.length - 1] + adv);
    if (ch.length > 1) edges.push(edges[edges.length - 1]);
  }
  const total = edges[edges.length - 1];
  return edges.map((e) => (total > 0 ? (e / total) * w : 0));
}

type PdfJs = typeof PdfJsModule;
let pdfjs: Promise<PdfJs> | undefined;

/** A PDF's text runs per page, top-left origin, in points; undefined for a file pdf.js cannot read. */
export async function pdfLayout(bytes: Uint8Array): Promise<PageLayout[] | undefined> {
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  const lib = await pdfjs;
  let doc: Awaited<ReturnType<PdfJs['getDocument']>['promise']> | undefined;
  try {
    doc = await lib.getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
    const pages: PageLayout[] = [];
    for (let p = 1; p <= doc.numPages; p++) {
      const page = await doc.getPage(p);
      const vp = page.getViewport({ scale: 1 });
      const runs: TextRun[] = [];
      const content = await page.getTextContent();
      for (const item of content.items) {
        if (!('str' in item) || item.str === '') continue;
        const t = lib.Util.transform(vp.transform, item.transform) as number[];
        const h = Math.hypot(t[2], t[3]) || item.height;
        // A monospace font's characters are alike wide; any other's placed as Helvetica's.
        const mono = content.styles[item.fontName]?.fontFamily === 'monospace';
        runs.push({ str: item.str, x: t[4], y: t[5] - h, w: item.width, h, ...(mono ? {} : { edges: helveticaEdges(item.str, item.width) }) });
      }
      pages.push({ width: vp.width, height: vp.height, runs });
      page.cleanup();
    }
    return pages;
  } catch {
    return undefined;
  } finally {
    await doc?.destroy().catch(() => undefined);
  }
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The ways a value may be printed, most specific first. */
export function spellings(value: unknown): string[] {
  if (value === null || value === undefined || typeof value === 'boolean') return [];
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    return Object.hasOwn(v, 'amount') ? spellings(v.amount) : [];
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return [];
    const two = value.toFixed(2);
    const [int, frac] = two.split('.');
    const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return [...new Set([`${grouped}.${frac}`, `${grouped.replace(/,/g, '.')},${frac}`, two, String(value)])];
  }
  const s = String(value).trim();
  if (s === '') return [];
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (iso) {
    const [, y, m, d] = iso;
    const month = MONTHS[Number(m) - 1] ?? '';
    const day = String(Number(d));
    return [s, `${d}.${m}.${y}`, `${day} ${month} ${y}`, `${month} ${day}, ${y}`, `${d}/${m}/${y}`, `${m}/${d}/${y}`, `${day} ${month.slice(0, 3)} ${y}`];
  }
  return [s];
}

const norm = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ');

/** One line of a page: its runs' text joined by spaces, and which run and character each position is. */
interface Line {
  page: number;
  text: string;
  lower: string;
  owner: Array<[TextRun, number]>;
}

function linesOf(layout: readonly PageLayout[]): Line[] {
  const out: Line[] = [];
  for (let p = 0; p < layout.length; p++) {
    // Runs on the same line joined, so that a value split over runs ("1,316.40" "EUR") is found.
    const lines = new Map<number, TextRun[]>();
    for (const r of layout[p].runs) {
      const key = Math.round(r.y * 2) / 2;
      const list = lines.get(key) ?? [];
      list.push(r);
      lines.set(key, list);
    }
    for (const runs of lines.values()) {
      runs.sort((a, b) => a.x - b.x);
      let text = '';
      const owner: Array<[TextRun, number]> = [];
      for (const r of runs) {
        if (text) {
          text += ' ';
          owner.push([r, -1]);
        }
        for (let i = 0; i < r.str.length; i++) owner.push([r, i]);
        text += r.str;
      }
      out.push({ page: p, text, lower: text.toLowerCase(), owner });
    }
  }
  return out;
}

const ALNUM = /[\p{L}\p{N}]/u;
const DIGIT = /\p{N}/u;

/**
 * Whether `s[at, at + len)` stands as a token of its own: no letter or digit beside it, nor a
 * decimal or group mark that goes on into a digit (the "1" of "1,800.00" is part of a number).
 */
function wholeAt(s: string, at: number, len: number): boolean {
  const before = s[at - 1] ?? '';
  const after = s[at + len] ?? '';
  if (ALNUM.test(before) || ALNUM.test(after)) return false;
  if ((before === '.' || before === ',') && DIGIT.test(s[at - 2] ?? '')) return false;
  if ((after === '.' || after === ',') && DIGIT.test(s[at + len + 1] ?? '')) return false;
  return true;
}

/** Where `w` occurs in `s`: only as a whole token, or anywhere. */
function occurrences(s: string, w: string, whole: boolean): number[] {
  const out: number[] = [];
  for (let at = s.indexOf(w); at >= 0; at = s.indexOf(w, at + 1)) if (!whole || wholeAt(s, at, w.length)) out.push(at);
  return out;
}

/**
 * Where a value is printed: a run (or runs on one line, joined by a space) whose text contains one
 * of its spellings, as a whole token (no letter or digit beside it) wherever the document prints
 * it so, else as part of a longer one; the polygon spans those characters, placed by the runs'
 * `edges` (a PDF's) or one alike share of the run's width each (a text line's). Of several places, the
 * first on the line with most of `near` (the values printed beside it: a line item's other
 * fields), then with most words of `hint` (the field's path: a total's amount is the one beside
 * "Total"); a place inside a longer printing of one of `near` (the "2" of "Workshop (2 days)")
 * is that value's, not this one's. A place that overlaps one of `taken` (the citations of the same
 * line item's fields before this one) is chosen only when the line prints the value nowhere else:
 * a unit price and amount that print alike ("| 1 | 12.50 | 12.50") cite the first and the second.
 */
export function findCitation(layout: readonly PageLayout[], value: unknown, hint = '', near: readonly unknown[] = [], taken: readonly Citation[] = []): Citation | undefined {
  const wanted = spellings(value).map(norm).filter((s) => s.length > 0);
  if (!wanted.length) return undefined;
  const words = (hint.toLowerCase().match(/[a-z]{3,}/g) ?? []).filter((w) => w !== 'items');
  const beside = near.map((v) => spellings(v).map(norm).filter((s) => s.length > 0)).filter((s) => s.length > 0);
  const lines = linesOf(layout);
  for (const whole of [true, false]) {
    let best: { c: Citation; score: [number, number, number] } | undefined;
    for (const line of lines) {
      const { lower } = line;
      // The places of the values beside this one on the line, as whole tokens.
      const spans: Array<[number, number]> = [];
      let nearCount = 0;
      for (const forms of beside) {
        let seen = false;
        for (const f of forms) {
          for (const at of occurrences(lower, f, true)) {
            spans.push([at, at + f.length]);
            seen = true;
          }
        }
        if (seen) nearCount++;
      }
      // The first place of the first spelling printed on the line, a place not yet taken first.
      let found: Citation | undefined;
      let free = 0;
      for (const w of wanted) {
        for (const at of occurrences(lower, w, whole)) {
          if (spans.some(([s, e]) => e - s > w.length && s <= at && at + w.length <= e)) continue;
          const c = polygonOf(line.owner.slice(at, at + w.length), line.text.slice(at, at + w.length), line.page + 1, layout[line.page]);
          if (!taken.some((t) => overlaps(t, c))) {
            found = c;
            free = 1;
            break;
          }
          found ??= c;
        }
        if (free) break;
      }
      if (!found) continue;
      const score: [number, number, number] = [nearCount, free, words.filter((x) => lower.includes(x)).length];
      if (best && !better(score, best.score)) continue;
      best = { c: found, score };
    }
    if (best) return best.c;
  }
  return undefined;
}

/** Whether score `a` beats `b`: the first component that differs is greater. */
function better(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return false;
}

/** Whether two citations' boxes share some area on one page. */
function overlaps(a: Citation, b: Citation): boolean {
  if (a.page !== b.page) return false;
  const xs = (c: Citation): number[] => c.polygon.map((q) => q.x);
  const ys = (c: Citation): number[] => c.polygon.map((q) => q.y);
  return Math.min(...xs(a)) < Math.max(...xs(b)) && Math.min(...xs(b)) < Math.max(...xs(a)) && Math.min(...ys(a)) < Math.max(...ys(b)) && Math.min(...ys(b)) < Math.max(...ys(a));
}

function polygonOf(owned: Array<[TextRun, number]>, referenceText: string, page: number, layout: PageLayout): Citation {
  let x0 = Infinity;
  let x1 = -Infinity;
  let y0 = Infinity;
  let y1 = -Infinity;
  for (const [r, i] of owned) {
    if (i < 0) continue;
    const cw = r.w / Math.max(1, r.str.length);
    x0 = Math.min(x0, r.x + (r.edges?.[i] ?? i * cw));
    x1 = Math.max(x1, r.x + (r.edges?.[i + 1] ?? (i + 1) * cw));
    y0 = Math.min(y0, r.y);
    y1 = Math.max(y1, r.y + r.h);
  }
  const round = (n: number): number => Math.round(n * 100) / 100;
  return {
    page,
    polygon: [
      { x: round(x0), y: round(y0) },
      { x: round(x1), y: round(y0) },
      { x: round(x1), y: round(y1) },
      { x: round(x0), y: round(y1) },
    ],
    referenceText,
    pageWidth: round(layout.width),
    pageHeight: round(layout.height),
  };
}

/** The 2025-04-21 citation (service facts: `{page, referenceText, polygon:[{x,y}], pageWidth, pageHeight}`). */
export function citation20250421(c: Citation): Record<string, unknown> {
  return { page: c.page, referenceText: c.referenceText, polygon: c.polygon.map((q) => ({ x: q.x, y: q.y })), pageWidth: c.pageWidth, pageHeight: c.pageHeight };
}

/**
 * The 2026-02-09 citation (spec 3.8: `{fileId?, page?: {number, width?, height?}, referenceText?,
 * polygon?}`): the page size moves into `page`, and `fileId` names the file the page belongs to
 * (left out when the run read raw text and has no file).
 */
export function citation20260209(c: Citation, fileId?: string): Record<string, unknown> {
  return {
    ...(fileId ? { fileId } : {}),
    page: { number: c.page, width: c.pageWidth, height: c.pageHeight },
    referenceText: c.referenceText,
    polygon: c.polygon.map((q) => ({ x: q.x, y: q.y })),
  };
}

/** A citation's polygon as points; undefined when it is not an array of {x, y} numbers. */
function pointsOf(v: unknown): Point[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const polygon: Point[] = [];
  for (const q of v as unknown[]) {
    const p = q as Partial<Point> | null;
    if (!p || typeof p.x !== 'number' || typeof p.y !== 'number') return undefined;
    polygon.push({ x: p.x, y: p.y });
  }
  return polygon;
}

/**
 * A 2026-02-09 citation (`citation20260209`) back in the neutral form, its page counted from
 * `pageOffset` (the pages of the package's files before the citation's file); undefined when it
 * is not one.
 */
export function citationFrom20260209(o: unknown, pageOffset = 0): Citation | undefined {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return undefined;
  const c = o as Record<string, unknown>;
  const page = c.page as Record<string, unknown> | null | undefined;
  if (page === null || typeof page !== 'object' || typeof page.number !== 'number') return undefined;
  const polygon = pointsOf(c.polygon);
  if (!polygon) return undefined;
  return {
    page: page.number + pageOffset,
    polygon,
    referenceText: typeof c.referenceText === 'string' ? c.referenceText : '',
    pageWidth: typeof page.width === 'number' ? page.width : 0,
    pageHeight: typeof page.height === 'number' ? page.height : 0,
  };
}

/**
 * A citation as runs store it (the 2025-04-21 shape `citation20250421` wrote) back in the neutral
 * form; undefined when it is not one (a replayed output may carry anything).
 */
export function citationFrom20250421(o: unknown): Citation | undefined {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return undefined;
  const c = o as Record<string, unknown>;
  if (typeof c.page !== 'number') return undefined;
  const polygon = pointsOf(c.polygon);
  if (!polygon) return undefined;
  return {
    page: c.page,
    polygon,
    referenceText: typeof c.referenceText === 'string' ? c.referenceText : '',
    pageWidth: typeof c.pageWidth === 'number' ? c.pageWidth : 0,
    pageHeight: typeof c.pageHeight === 'number' ? c.pageHeight : 0,
  };
}

/** The value at a metadata path such as `line_items[0].description` (undefined: none). */
export function valueAt(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const part of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (part.startsWith('[')) {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[Number(part.slice(1, -1))];
    } else {
      if (Array.isArray(cur) || !Object.hasOwn(cur, part)) return undefined;
      cur = (cur as Record<string, unknown>)[part];
    }
  }
  return cur;
}

/**
 * Adds `citations` to each metadata entry of an EXTRACT output `{value, metadata}` whose value is
 * printed in the document (2025-04-21 shape); when the config asks for them
 * (`advancedOptions.citationsEnabled`), as the service does.
 */
export function addCitations(output: unknown, config: unknown, layout: readonly PageLayout[] | undefined): void {
  const enabled = (config as { advancedOptions?: { citationsEnabled?: unknown } } | null)?.advancedOptions?.citationsEnabled === true;
  if (!enabled || !layout || output === null || typeof output !== 'object') return;
  const { value, metadata } = output as { value?: unknown; metadata?: unknown };
  if (metadata === null || typeof metadata !== 'object') return;
  // Per line item, the places its fields cited so far: a value printed twice on the item's line
  // (unit price and amount of a quantity of 1) cites the first place, then the second.
  const cited = new Map<string, Citation[]>();
  for (const [path, entry] of Object.entries(metadata as Record<string, unknown>)) {
    if (entry === null || typeof entry !== 'object') continue;
    // A value under an array (a line item's) is looked for beside the item's other values.
    const item = /^(.*\[\d+\])\.[^.[\]]+$/.exec(path)?.[1];
    const of = item === undefined ? undefined : valueAt(value, item);
    const field = path.slice((item ?? '').length + 1);
    const near = of !== null && typeof of === 'object' && !Array.isArray(of) ? Object.entries(of).filter(([k]) => k !== field).map(([, v]) => v) : [];
    const taken = item === undefined ? [] : (cited.get(item) ?? []);
    const c = findCitation(layout, valueAt(value, path), path, near, taken);
    if (!c) continue;
    (entry as Record<string, unknown>).citations = [citation20250421(c)];
    if (item !== undefined) cited.set(item, [...taken, c]);
  }
}

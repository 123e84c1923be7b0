/**
 * The explorer's data: one index (documents as columns, fields with their metrics) and one
 * line of values per document, parsed by the page only when the document is opened. Records
 * (outcomes) and values (from the export) are obtained in `ExplorerInput` alone, so that a
 * streamed source of records can replace the array.
 */
import type { EvaluationExport } from '../../metrics/generated/export.js';
import type { DocumentRecord, Report } from '../../metrics/generated/report.js';
import { nameWithoutUploadTag } from '../../dataset/files.js';
import { DEFAULT_COMPARE } from '../../metrics/comparators.js';
import { ExtractRecord, tupleOf } from '../../metrics/records.js';
import type { BaselineInput } from '../build.js';
import { pairDocuments } from '../pairing.js';
import { recordsOfExport } from '../scored.js';
import { valueSource, type Cell, type DocumentValues, type ValueSource } from './values.js';
import { identicalJson } from '../../util/json.js';

export interface ExplorerInput {
  report: Report;
  /** The per-document records (today `report.documents`), in the report's order. */
  documents: readonly DocumentRecord[];
  /** The export the report was computed from: without it (or `values`) documents show outcomes, not values. */
  export?: EvaluationExport;
  /** The values of the report's documents, when the export is not held in memory (fileValueSource): used instead of `export`'s. */
  values?: ValueSource;
  /** The baseline: an export gives its predictions beside this run's, a report.json only outcome changes. */
  baseline?: BaselineInput;
  /**
   * A baseline export read item by item (`baseline.kind` 'stream'): its records and values, read
   * ahead (the CLI: recordsOfSource and fileValueSource). Without it such a baseline shows nothing.
   */
  streamedBaseline?: { documents: readonly DocumentRecord[]; values: ValueSource };
  /** Hook for the history store: entries shown as they are in a History tab. */
  history?: readonly unknown[];
  /** Why the document list is empty though the report has documents (too many to list, records not kept). */
  omitted?: string;
  /** Hook for slices: document id -> the slices it belongs to (a Slice filter appears). */
  documentSlices?: ReadonlyMap<string, readonly string[]>;
  /** Called as the documents' lines are built (every 1,000 documents, and at the end): for a progress bar. */
  onProgress?: (done: number, total: number) => void;
}

/** Outcome bits of a document's field in `docs.mask` (one hex digit per field). */
export const BIT = { TP: 1, FA: 2, FN: 4, FD: 8 } as const;
const WRONG = BIT.FA | BIT.FN | BIT.FD;
/** A mask's digit (masks are below 16). */
const HEX = '0123456789abcdef';

export interface FieldRow {
  name: string;
  f1: number | null;
  lo: number | null;
  hi: number | null;
  precision: number | null;
  recall: number | null;
  tp: number;
  fa: number;
  fn: number;
  fd: number;
  tn: number;
  delta: number | null;
  verdict: string | null;
}

export interface ExplorerIndex {
  type: Report['type'];
  /** Fields (EXTRACT), classes (CLASSIFY) or split types (SPLITTER): the mask's digits. */
  units: string[];
  fields: FieldRow[];
  /** Whether each document has a line of values. */
  values: boolean;
  /** Characters per unit in an EXTRACT line's unit string. */
  unitWidth: number;
  baseline: { file: string; kind: 'export' | 'report'; values: boolean } | null;
  docs: {
    id: string[];
    name: string[];
    errors: number[];
    /** Per document one digit: 1 failed, 2 correct, 4 straight-through. */
    flags: string;
    mask: string[];
    /** The document's wrong outcomes by kind, three numbers per document: FA, FN, FD (a unit may hold several: line-item rows, splits of a type). */
    wrong: number[];
    /** The document's lowest confidence (EXTRACT: of its predicted values; CLASSIFY: of its class). */
    conf: Array<number | null>;
    /** Against the baseline, per document one letter: f fixed, b broke, r right in both, w wrong in both, u unpaired. */
    change: string;
    /** The same per field ('.' where neither run has an outcome). */
    fchange: string[];
    slices?: number[][];
  };
  sliceNames: string[];
  history: readonly unknown[] | null;
}

export interface ExplorerData {
  index: ExplorerIndex;
  /** One JSON line per document (values as `cellRow` / `classRow` / `splitRow` encode them), '' without values. */
  details: string[];
}

const r4 = (v: number): number => Math.round(v * 1e4) / 1e4;

function fieldRows(r: Report): FieldRow[] {
  const rows = new Map((r.baseline?.rows ?? []).map((x) => [x.key, x]));
  const cmp = (key: string): Pick<FieldRow, 'delta' | 'verdict'> => {
    const row = rows.get(key);
    return { delta: row?.delta ?? null, verdict: row?.verdict ?? null };
  };
  if (r.extract) {
    return r.extract.fields.map((f) => ({
      name: f.path,
      f1: f.f1.value,
      lo: f.f1.interval?.lower ?? null,
      hi: f.f1.interval?.upper ?? null,
      precision: f.precision.value,
      recall: f.recall.value,
      tp: f.counts.tp,
      fa: f.counts.fa,
      fn: f.counts.fn,
      fd: f.counts.fd,
      tn: f.counts.tn,
      ...cmp(`field:${f.path}.f1`),
    }));
  }
  if (r.classify) {
    return r.classify.classes.map((c) => ({
      name: c.label,
      f1: c.f1.value,
      lo: c.f1.interval?.lower ?? null,
      hi: c.f1.interval?.upper ?? null,
      precision: c.precision.value,
      recall: c.recall.value,
      tp: c.tp,
      fa: c.fp,
      fn: c.fn,
      fd: 0,
      tn: 0,
      ...cmp(`class:${c.label}.f1`),
    }));
  }
  return (r.splitter?.types ?? []).map((t) => ({
    name: t.type,
    f1: t.f1.value,
    lo: t.f1.interval?.lower ?? null,
    hi: t.f1.interval?.upper ?? null,
    precision: t.precision.value,
    recall: t.recall.value,
    tp: t.correct,
    fa: t.predicted - t.correct,
    fn: t.expected - t.correct,
    fd: 0,
    tn: 0,
    ...cmp(`type:${t.type}.f1`),
  }));
}

/**
 * A document's units with outcome bits other than 0, in unit order, as [unit, bits] pairs. A
 * CLASSIFY document has at most two (its expected and its predicted class), found through
 * `unitIndex` rather than by a pass over every class (thousands of them, per document).
 */
function outcomesOf(type: Report['type'], d: DocumentRecord, units: readonly string[], unitIndex: ReadonlyMap<string, number>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (type === 'CLASSIFY') {
    const c = d.classify;
    if (!c) return out;
    const e = c.expected === null ? undefined : unitIndex.get(c.expected);
    const p = c.predicted === null ? undefined : unitIndex.get(c.predicted);
    if (e !== undefined && e === p) out.push([e, BIT.TP]);
    else {
      if (e !== undefined) out.push([e, BIT.FN]);
      if (p !== undefined) out.push([p, BIT.FA]);
      if (out.length === 2 && out[0][0] > out[1][0]) out.reverse();
    }
    return out;
  }
  units.forEach((u, k) => {
    let bits = 0;
    if (type === 'EXTRACT') {
      if (d instanceof ExtractRecord) bits = d.outcomeBits(u, BIT.TP, BIT.FA, BIT.FN, BIT.FD);
      else {
        const t = tupleOf(d, u);
        bits = t ? (t[0] ? BIT.TP : 0) | (t[2] ? BIT.FA : 0) | (t[3] ? BIT.FN : 0) | (t[4] ? BIT.FD : 0) : 0;
      }
    } else {
      const t = d.splitter?.types && Object.hasOwn(d.splitter.types, u) ? d.splitter.types[u] : undefined;
      bits = t ? (t[2] ? BIT.TP : 0) | (t[1] - t[2] > 0 ? BIT.FA : 0) | (t[0] - t[2] > 0 ? BIT.FN : 0) : 0;
    }
    if (bits) out.push([k, bits]);
  });
  return out;
}

/**
 * A document's FA, FN and FD counts (pushed onto `out`): EXTRACT FN and FD from its fields' counts
 * (FA the rest of its `errors`: keys outside the fields included), SPLITTER from its split counts
 * (they sum to `errors`); CLASSIFY per class, as its outcome digits say: a wrong class is an FN of
 * the expected class and an FA of the predicted one (one wrong outcome of the document).
 */
function wrongByKind(type: Report['type'], d: DocumentRecord, units: readonly string[], out: number[]): void {
  let fn = 0;
  let fd = 0;
  if (type === 'EXTRACT') {
    const sum = [0, 0, 0, 0, 0];
    if (d instanceof ExtractRecord) for (const u of units) d.addTo(u, sum);
    else for (const u of units) {
      const t = tupleOf(d, u);
      if (t) for (let k = 0; k < 5; k++) sum[k] += t[k];
    }
    fn = sum[3];
    fd = sum[4];
  } else if (type === 'SPLITTER') fn = d.splitter ? d.splitter.expected - d.splitter.correct : 0;
  else {
    const c = d.classify;
    const wrong = c !== undefined && c.expected !== c.predicted;
    out.push(wrong && c.predicted !== null ? 1 : 0, wrong && c.expected !== null ? 1 : 0, 0);
    return;
  }
  out.push(d.errors - fn - fd, fn, fd);
}

/** `fill` repeated `count` times, cut from a string kept per fill character. */
function run(fill: string, count: number): string {
  let s = RUNS.get(fill) ?? '';
  if (s.length < count) RUNS.set(fill, (s = fill.repeat(Math.max(count, 2 * s.length))));
  return s.slice(0, count);
}
const RUNS = new Map<string, string>();

/** One hex digit of outcome bits per unit ('0' where none). */
function maskText(outcomes: ReadonlyArray<[number, number]>, U: number): string {
  let s = '';
  let at = 0;
  for (const [k, bits] of outcomes) {
    s += run('0', k - at) + HEX[bits];
    at = k + 1;
  }
  return s + run('0', U - at);
}

/** changeOf per unit, '.' where neither run has an outcome. */
function changeText(cur: ReadonlyArray<[number, number]>, base: ReadonlyArray<[number, number]>, U: number): string {
  let s = '';
  let at = 0;
  let i = 0;
  let j = 0;
  while (i < cur.length || j < base.length) {
    const k = Math.min(i < cur.length ? cur[i][0] : U, j < base.length ? base[j][0] : U);
    const c = i < cur.length && cur[i][0] === k ? cur[i++][1] : 0;
    const b = j < base.length && base[j][0] === k ? base[j++][1] : 0;
    s += run('.', k - at) + changeOf(c, b);
    at = k + 1;
  }
  return s + run('.', U - at);
}

function changeOf(cur: number, base: number): string {
  if (cur === 0 && base === 0) return '.';
  const nowWrong = (cur & WRONG) !== 0;
  const wasWrong = (base & WRONG) !== 0;
  return wasWrong ? (nowWrong ? 'w' : 'f') : nowWrong ? 'b' : 'r';
}

/**
 * The baseline's records and values (values only when it is an export). A streamed baseline
 * export without its `streamedBaseline`, or a report of more documents than the explorer lists
 * (kept as a table of counts), shows no baseline.
 */
export function baselineSide(input: ExplorerInput): { documents: readonly DocumentRecord[]; values?: ValueSource } | undefined {
  const b = input.baseline;
  if (!b) return undefined;
  if (b.kind === 'stream') return input.streamedBaseline;
  if (b.kind === 'report') return Array.isArray(b.documents) ? { documents: b.documents } : undefined;
  const o = input.report.options;
  const cmp = { fuzzyThreshold: o.fuzzyThreshold ?? DEFAULT_COMPARE.fuzzyThreshold, numberTolerance: o.numberTolerance ?? DEFAULT_COMPARE.numberTolerance };
  return { documents: recordsOfExport(b.export, cmp, { source: input.report.calibration?.source }), values: valueSource(b.export, o, input.report.calibration?.source) };
}

/** The values of the report's own documents: `values`, else those of `export`, else none. */
export function currentValues(input: Pick<ExplorerInput, 'report' | 'export' | 'values'>): ValueSource | undefined {
  if (input.values) return input.values;
  return input.export ? valueSource(input.export, input.report.options, input.report.calibration?.source) : undefined;
}

/** `3` (expected and predicted row 3), `3>4`, `>5` (an unpaired predicted row), `2>` (an unpaired expected row); levels joined by `,`. */
export function rowsText(rows: Cell['rows']): string {
  return rows.map(([e, p]) => (e === p ? String(e) : `${e < 0 ? '' : e}>${p < 0 ? '' : p}`)).join(',');
}

export const cellKey = (path: string, rows: Cell['rows']): string => `${path}|${rows.map(([e, p]) => (e >= 0 ? e : `+${p}`)).join(',')}`;

/** Characters per unit in a line's unit string: unit + 1 in base 36, 0 for a key outside the fields. */
export const unitWidth = (units: number): number => (units + 1).toString(36).length;

/**
 * The baseline cell each cell of a document pairs with: the one of the same key (cellKey: the same
 * path, the same expected row at each level or, for a row only predicted, the same predicted row),
 * as an index into `baseCells` (-1: none), and the baseline cells no cell took, in their order.
 * Keys outside the fields (`leaf` -1) can repeat (one per row of a list): the last baseline cell of
 * a key is the one paired and listed, at the place of the first. Without such keys every key is
 * once on each side, and the two lists, made by walking the same fields, mostly come in the same
 * order: each cell is compared with the baseline cell after the one paired last before any key is
 * written (at 75 cells a document, writing two keys a cell was most of the explorer's time).
 */
export function pairCells(cells: readonly Cell[], paths: readonly string[], baseCells: readonly Cell[], basePaths: readonly string[]): { of: Int32Array; unused: number[] } {
  const of = new Int32Array(cells.length).fill(-1);
  const used = new Uint8Array(baseCells.length);
  const pathOf = (c: Cell, ps: readonly string[]): string => (c.leaf < 0 ? c.path : ps[c.leaf]);
  let byKey: Map<string, number> | undefined;
  const keyed = (): Map<string, number> => {
    if (!byKey) {
      byKey = new Map();
      for (let j = 0; j < baseCells.length; j++) byKey.set(cellKey(pathOf(baseCells[j], basePaths), baseCells[j].rows), j);
    }
    return byKey;
  };
  const repeats = cells.some((c) => c.leaf < 0) || baseCells.some((c) => c.leaf < 0);
  let next = 0;
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i];
    const path = pathOf(c, paths);
    let j = -1;
    if (!repeats && next < baseCells.length && sameCellKey(path, c.rows, pathOf(baseCells[next], basePaths), baseCells[next].rows)) j = next;
    else j = keyed().get(cellKey(path, c.rows)) ?? -1;
    if (j >= 0) {
      of[i] = j;
      used[j] = 1;
      next = j + 1;
    }
  }
  // In the Map's order when there are repeats (or it was built); otherwise the keys are unique and that order is the list's.
  const unused: number[] = [];
  if (byKey || repeats) {
    for (const j of keyed().values()) if (!used[j]) unused.push(j);
  } else {
    for (let j = 0; j < baseCells.length; j++) if (!used[j]) unused.push(j);
  }
  return { of, unused };
}

/** Whether two cells' keys (cellKey) are the same, without writing them. */
function sameCellKey(pathA: string, rowsA: Cell['rows'], pathB: string, rowsB: Cell['rows']): boolean {
  if (pathA !== pathB || rowsA.length !== rowsB.length) return false;
  for (let k = 0; k < rowsA.length; k++) {
    const a = rowsA[k];
    const b = rowsB[k];
    if (a[0] >= 0 ? a[0] !== b[0] : b[0] >= 0 || a[1] !== b[1]) return false;
  }
  return true;
}

/**
 * An EXTRACT document's line, one entry per cell in columns (they compress far better than
 * a tuple per cell): `[units, rows, outcomes, expected, predicted, confidence, baseline, stray]`.
 * `units`: unit + 1 in base 36 per cell, `unitWidth` characters each (0: a key outside the fields); `rows`: rowsText per cell, joined by spaces;
 * `outcomes`: one digit per cell, the outcome (0 TP .. 4 FD) plus 5 when the predicted value
 * differs from the expected one and so is the next entry of `predicted`; `confidence`: one per
 * cell (null: none) or 0 when no cell has one; `baseline`: 0, or `[outcomes, predicted]` coded
 * like this run's but against this run's prediction ('-': the baseline has no such cell);
 * `stray`: the paths of keys outside the fields, in order, or 0.
 */
function extractLine(values: DocumentValues & { type: 'EXTRACT' }, paths: readonly string[], unitIndex: ReadonlyMap<string, number>, width: number, base?: { values: DocumentValues & { type: 'EXTRACT' }; paths: readonly string[] }): unknown[] {
  const baseCells = base ? base.values.cells : [];
  const paired = base ? pairCells(values.cells, paths, baseCells, base.paths) : undefined;
  const units: string[] = [];
  const rows: string[] = [];
  const outcomes: string[] = [];
  const E: unknown[] = [];
  const P: unknown[] = [];
  const C: Array<number | null> = [];
  let anyConf = false;
  const bo: string[] = [];
  const BP: unknown[] = [];
  const stray: string[] = [];
  const add = (c: Cell, path: string, b: Cell | undefined | null): void => {
    const u = c.leaf < 0 ? -1 : (unitIndex.get(path) ?? -1);
    units.push((u + 1).toString(36).padStart(width, '0'));
    if (u < 0) stray.push(path);
    rows.push(u < 0 ? '' : rowsText(c.rows));
    const differs = !identicalJson(c.expected, c.predicted);
    outcomes.push(String(c.outcome + (differs ? 5 : 0)));
    E.push(c.expected);
    if (differs) P.push(c.predicted);
    C.push(c.confidence === undefined ? null : r4(c.confidence));
    if (c.confidence !== undefined) anyConf = true;
    if (base) {
      if (!b) bo.push('-');
      else {
        const bDiffers = !identicalJson(b.predicted, c.predicted);
        bo.push(String(b.outcome + (bDiffers ? 5 : 0)));
        if (bDiffers) BP.push(b.predicted);
      }
    }
  };
  const cells = values.cells;
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i];
    const j = paired ? paired.of[i] : -1;
    add(c, c.leaf < 0 ? c.path : paths[c.leaf], j >= 0 ? baseCells[j] : null);
  }
  // Baseline outcomes where this run has none (its TN): shown beside an empty current value.
  for (const j of paired?.unused ?? []) {
    const b = baseCells[j];
    const path = b.leaf < 0 ? b.path : (base as { paths: readonly string[] }).paths[b.leaf];
    add({ leaf: b.leaf < 0 ? -1 : 0, path, rows: b.rows, outcome: 1, expected: b.expected, predicted: null }, path, b);
  }
  return [units.join(''), rows.join(' '), outcomes.join(''), E, P, anyConf ? C : 0, base ? [bo.join(''), BP] : 0, stray.length ? stray : 0];
}

export function buildExplorerData(input: ExplorerInput): ExplorerData {
  const { report } = input;
  const type = report.type;
  const fields = fieldRows(report);
  const units = fields.map((f) => f.name);
  const unitIndex = new Map(units.map((u, i) => [u, i]));
  const current = currentValues(input);
  const base = baselineSide(input);
  const docs: ExplorerIndex['docs'] = { id: [], name: [], errors: [], flags: '', mask: [], wrong: [], conf: [], change: '', fchange: [] };
  const flags: string[] = [];
  const change: string[] = [];
  const details: string[] = [];
  const records = input.documents;
  const pairing = base ? pairDocuments(records, base.documents, report.options.pairBy ?? 'auto') : undefined;
  const pairOf = new Int32Array(records.length).fill(-1);
  for (const [i, j] of pairing?.pairs ?? []) pairOf[i] = j;
  const sliceNames: string[] = [];
  const sliceIndex = new Map<string, number>();
  if (input.documentSlices) docs.slices = [];

  records.forEach((d, i) => {
    if (i % 1000 === 0) input.onProgress?.(i, records.length);
    docs.id.push(d.id);
    // The user's file name, without the content tag `dataset upload` puts in uploaded names (.ek<hex>).
    docs.name.push(d.fileName ? nameWithoutUploadTag(d.fileName) : d.fileId);
    docs.errors.push(d.errors);
    flags.push(String((d.failed ? 1 : 0) | (d.correct ? 2 : 0) | (d.straightThrough ? 4 : 0)));
    const mask = outcomesOf(type, d, units, unitIndex);
    docs.mask.push(maskText(mask, units.length));
    wrongByKind(type, d, units, docs.wrong);
    if (base) {
      const j = pairOf[i];
      if (j < 0) {
        change.push('u');
        docs.fchange.push('');
      } else {
        const bd = base.documents[j];
        change.push(bd.correct ? (d.correct ? 'r' : 'b') : d.correct ? 'f' : 'w');
        docs.fchange.push(changeText(mask, outcomesOf(type, bd, units, unitIndex), units.length));
      }
    }
    if (docs.slices) {
      docs.slices.push(
        (input.documentSlices?.get(d.id) ?? []).map((s) => {
          let k = sliceIndex.get(s);
          if (k === undefined) sliceIndex.set(s, (k = sliceNames.push(s) - 1));
          return k;
        }),
      );
    }
    let conf: number | null = type === 'CLASSIFY' ? (d.classify?.confidence ?? null) : null;
    const v = current?.of(d.id);
    const j = pairOf[i];
    const bv = base?.values && j >= 0 ? base.values.of(base.documents[j].id) : undefined;
    if (!v) details.push('');
    else if (v.type === 'EXTRACT') {
      for (const c of v.cells) if (c.confidence !== undefined && (conf === null || c.confidence < conf)) conf = c.confidence;
      details.push(JSON.stringify(extractLine(v, (current as ValueSource).paths, unitIndex, unitWidth(units.length), bv?.type === 'EXTRACT' ? { values: bv, paths: (base?.values as ValueSource).paths } : undefined)));
    } else if (v.type === 'CLASSIFY') {
      const line: unknown[] = [v.expected, v.predicted, v.confidence];
      if (bv?.type === 'CLASSIFY') line.push(bv.predicted, bv.confidence);
      details.push(JSON.stringify(line));
    } else {
      const splits = (s: readonly { type: string; startPage: number; endPage: number }[]): unknown[] => s.map((x) => [x.type, x.startPage, x.endPage]);
      const line: unknown[] = [v.pageCount, splits(v.expected), splits(v.predicted)];
      if (bv?.type === 'SPLITTER') line.push(splits(bv.predicted));
      details.push(JSON.stringify(line));
    }
    docs.conf.push(conf === null ? null : r4(conf));
  });
  if (records.length) input.onProgress?.(records.length, records.length);
  docs.flags = flags.join('');
  docs.change = change.join('');
  return {
    index: {
      type,
      units,
      fields,
      values: current !== undefined,
      unitWidth: unitWidth(units.length),
      baseline: input.baseline && base ? { file: input.baseline.file, kind: input.baseline.kind === 'report' ? 'report' : 'export', values: base.values !== undefined } : null,
      docs,
      sliceNames,
      history: input.history ?? null,
    },
    details,
  };
}

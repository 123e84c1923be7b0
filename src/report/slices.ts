/**
 * Slices: the headline metrics per group of documents (a metadata value, a file type, a page-count
 * bucket), each with its interval, and a one-sided test of every slice against the rest of the
 * run, Holm-corrected across all slices of all keys. Gathered document by document
 * (`SliceAccumulator.add`), so it needs neither the whole export nor all records at once.
 *
 * Every headline metric here is a ratio of per-document sums, Σk / Σm:
 *   EXTRACT   f1 = TP / (TP + (FA + FN)/2 + FD)   (= 2TP / (2TP + FP + FN + FD), the report's micro F1)
 *             precision = TP / (TP + FA + FD), recall = TP / (TP + FN + FD)   (unexpected keys count as FA)
 *   CLASSIFY  accuracy = correct documents / documents
 *   SPLITTER  f1 = correct / ((expected + predicted)/2), pageAccuracy = correct pages / pages
 *   all       documentAccuracy = correct documents / documents
 * so the interval is the report's clustered one (Wilson widened by the design effect) and the test
 * is a cluster-robust z-test of the ratio (README: Slices).
 */
import type { DocumentRecord, ReportProcessorType, Slice, SliceEstimate, SliceGroup, SliceReport } from '../metrics/generated/report.js';
import type { ExportItem } from '../metrics/generated/export.js';
import { ClusterSums, holm, normalCdf } from '../metrics/stats.js';
import { UsageError } from '../util/errors.js';
import { own } from '../util/json.js';

export const SLICE_ALPHA = 0.05;
/** Past this many values of one key, the smallest slices are merged into `(other)`. */
export const MAX_SLICES_PER_KEY = 50;
export const DEFAULT_PAGE_EDGES = [1, 2, 5, 10, 20];
export const MISSING = '(none)';
export const OTHER = '(other)';

export type SliceKey =
  | { spec: string; kind: 'metadata'; path: string[] }
  | { spec: string; kind: 'fileType' }
  | { spec: string; kind: 'pageCount'; edges: number[] };

/** The metric each type's slices are tested on, and the metrics each slice shows. */
const METRICS: Record<ReportProcessorType, { test: string; names: string[] }> = {
  EXTRACT: { test: 'f1', names: ['f1', 'precision', 'recall', 'documentAccuracy'] },
  CLASSIFY: { test: 'accuracy', names: ['accuracy'] },
  SPLITTER: { test: 'f1', names: ['f1', 'pageAccuracy', 'documentAccuracy'] },
};

/**
 * `metadata.vendor` (a path into the item's metadata; a bare `vendor` means the same), `fileType`,
 * `pageCount` (buckets 1, 2, 3-5, 6-10, 11-20, 21+) or `pageCount:1,3,10` (upper bounds of the buckets).
 */
export function parseSliceKeys(specs: readonly string[]): SliceKey[] {
  const keys: SliceKey[] = [];
  const seen = new Set<string>();
  for (const raw of specs.flatMap((s) => s.split(','))) {
    const spec = raw.trim();
    if (spec === '') continue;
    let key: SliceKey;
    if (spec === 'fileType') key = { spec, kind: 'fileType' };
    else if (spec === 'pageCount' || spec.startsWith('pageCount:')) key = { spec, kind: 'pageCount', edges: pageEdges(spec) };
    else {
      const path = (spec.startsWith('metadata.') ? spec.slice('metadata.'.length) : spec).split('.');
      if (path.some((p) => p === '')) throw new UsageError(`--slice-by ${spec}: empty segment in the metadata path`, { hint: 'for example --slice-by metadata.vendor' });
      key = { spec: `metadata.${path.join('.')}`, kind: 'metadata', path };
    }
    if (seen.has(key.spec)) continue;
    seen.add(key.spec);
    keys.push(key);
  }
  return keys;
}

function pageEdges(spec: string): number[] {
  if (spec === 'pageCount') return DEFAULT_PAGE_EDGES;
  const parts = spec.slice('pageCount:'.length).split(/[;\s]+|(?<=\d),(?=\d)/).filter((s) => s !== '');
  const edges = parts.map(Number);
  const ok = edges.length > 0 && edges.every((e, i) => Number.isInteger(e) && e >= 1 && (i === 0 || e > edges[i - 1]));
  if (!ok) throw new UsageError(`--slice-by ${spec}: bucket bounds must be increasing whole numbers from 1`, { hint: "for example --slice-by 'pageCount:1;3;10' gives 1, 2-3, 4-10, 11+" });
  return edges;
}

const EXTENSION_TYPES: Record<string, string> = {
  pdf: 'PDF',
  png: 'IMG',
  jpg: 'IMG',
  jpeg: 'IMG',
  gif: 'IMG',
  tif: 'IMG',
  tiff: 'IMG',
  webp: 'IMG',
  bmp: 'IMG',
  heic: 'IMG',
  doc: 'DOCX',
  docx: 'DOCX',
  xls: 'EXCEL',
  xlsx: 'EXCEL',
  csv: 'CSV',
  txt: 'TXT',
};

/** The item's file type: the export's `fileType`, else from the file name's extension. */
export function fileTypeOf(item: Pick<ExportItem, 'fileType' | 'fileName'>): string | undefined {
  if (item.fileType) return item.fileType;
  const m = /\.([A-Za-z0-9]+)$/.exec(item.fileName ?? '');
  if (!m) return undefined;
  const ext = m[1].toLowerCase();
  return (own(EXTENSION_TYPES, ext) as string | undefined) ?? ext.toUpperCase();
}

function bucketOf(pages: number, edges: readonly number[]): string {
  let lo = 1;
  for (const hi of edges) {
    if (pages <= hi) return lo === hi ? String(hi) : `${lo}-${hi}`;
    lo = hi + 1;
  }
  return `${lo}+`;
}

/** The slice a document falls in for one key; `(none)` when the item has no such value. */
export function sliceLabel(key: SliceKey, item: ExportItem): string {
  switch (key.kind) {
    case 'fileType':
      return fileTypeOf(item) ?? MISSING;
    case 'pageCount':
      return item.pageCount === undefined ? MISSING : bucketOf(item.pageCount, key.edges);
    case 'metadata': {
      let v: unknown = item.metadata;
      for (const p of key.path) {
        if (v === null || typeof v !== 'object' || Array.isArray(v)) return MISSING;
        v = own(v as Record<string, unknown>, p);
      }
      if (v === undefined || v === null || v === '') return MISSING;
      return typeof v === 'object' ? JSON.stringify(v) : String(v);
    }
  }
}

/** A document's [k, m] for each metric of its type, in METRICS order. */
function ratios(type: ReportProcessorType, r: DocumentRecord): Array<[number, number]> {
  const doc: [number, number] = [r.correct ? 1 : 0, 1];
  if (type === 'CLASSIFY') return [doc];
  if (type === 'SPLITTER') {
    const s = r.splitter;
    if (!s) return [[0, 0], [0, 0], doc];
    return [[s.correct, (s.expected + s.predicted) / 2], [s.pagesCorrect, s.pages], doc];
  }
  let tp = 0;
  let fa = r.unexpected ?? 0;
  let fn = 0;
  let fd = 0;
  const fields = r.fields ?? {};
  for (const f of Object.keys(fields)) {
    const t = fields[f];
    tp += t[0];
    fa += t[2];
    fn += t[3];
    fd += t[4];
  }
  return [[tp, tp + (fa + fn) / 2 + fd], [tp, tp + fa + fd], [tp, tp + fn + fd], doc];
}

/** Per slice: its documents, and each metric's sums over them. */
class Cell {
  documents = 0;
  failed = 0;
  readonly sums: ClusterSums[];
  constructor(metrics: number) {
    this.sums = Array.from({ length: metrics }, () => new ClusterSums());
  }
  absorb(o: Cell): void {
    this.documents += o.documents;
    this.failed += o.failed;
    this.sums.forEach((s, j) => {
      const x = o.sums[j];
      s.K += x.K;
      s.N += x.N;
      s.KK += x.KK;
      s.KN += x.KN;
      s.NN += x.NN;
      s.C += x.C;
      s.clustered ||= x.clustered;
    });
  }
}

export class SliceAccumulator {
  private readonly cells: Array<Map<string, Cell>>;
  private readonly all: Cell;
  private readonly names: string[];
  private readonly testIndex: number;

  constructor(
    private readonly type: ReportProcessorType,
    private readonly keys: readonly SliceKey[],
  ) {
    this.names = METRICS[type].names;
    this.testIndex = this.names.indexOf(METRICS[type].test);
    this.cells = keys.map(() => new Map());
    this.all = new Cell(this.names.length);
  }

  add(item: ExportItem, record: DocumentRecord): void {
    this.addLabelled(this.keys.map((key) => sliceLabel(key, item)), record);
  }

  /** A document whose labels (one per key, as sliceLabel gives them) were taken from its item earlier. */
  addLabelled(labels: readonly string[], record: DocumentRecord): void {
    const rs = ratios(this.type, record);
    const put = (c: Cell): void => {
      c.documents++;
      if (record.failed) c.failed++;
      for (let i = 0; i < rs.length; i++) c.sums[i].add(rs[i][0], rs[i][1]);
    };
    put(this.all);
    this.keys.forEach((_key, i) => {
      const label = labels[i];
      let c = this.cells[i].get(label);
      if (!c) this.cells[i].set(label, (c = new Cell(this.names.length)));
      put(c);
    });
  }

  result(): SliceReport {
    const t = this.testIndex;
    const whole = this.all.sums[t];
    const pooled = whole.N === 0 ? null : whole.K / whole.N;
    const groups: SliceGroup[] = [];
    const tested: Slice[] = [];
    const warnings: string[] = [];
    this.keys.forEach((key, i) => {
      const cells = mergeSmall(this.cells[i], this.names.length);
      // Every document without the value: the export's items carry no such metadata (it is joined
      // from the dataset CSV when the export is made), and one (none) slice would compare nothing.
      if (key.kind === 'metadata' && this.all.documents > 0 && this.cells[i].size === 1 && this.cells[i].has(MISSING)) {
        warnings.push(`--slice-by ${key.spec}: no document has this metadata, so all ${this.all.documents} are in one ${MISSING} slice; item metadata comes from the dataset CSV's metadata.${key.path.join('.')} column when the export is made (eval run --metadata CSV; with a config file that names slices, eval run reads its dataset's csv)`);
      }
      if (cells.size < this.cells[i].size) warnings.push(`--slice-by ${key.spec}: ${this.cells[i].size} values; the smallest ${this.cells[i].size - cells.size + 1} are merged into ${OTHER}`);
      const slices: Slice[] = [];
      for (const [label, c] of cells) {
        const metrics = Object.create(null) as Record<string, SliceEstimate>;
        this.names.forEach((name, j) => (metrics[name] = estimate(c.sums[j])));
        const rest = whole.minus(c.sums[t]);
        const restValue = rest.N === 0 ? null : rest.K / rest.N;
        const value = metrics[this.names[t]].value;
        const s: Slice = { label, documents: c.documents, failed: c.failed, metrics, rest: restValue, delta: value !== null && restValue !== null ? value - restValue : null, p: null, pHolm: null, flagged: false };
        const p = zTest(c.sums[t], rest, pooled);
        if (p !== null) {
          s.p = p;
          tested.push(s);
        }
        slices.push(s);
      }
      // Largest first; the merged rest last.
      slices.sort((a, b) => Number(a.label === OTHER) - Number(b.label === OTHER) || b.documents - a.documents || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
      groups.push({ key: key.spec, slices });
    });
    const adjusted = holm(tested.map((s) => s.p as number));
    tested.forEach((s, i) => {
      s.pHolm = adjusted[i];
      s.flagged = adjusted[i] < SLICE_ALPHA && (s.delta ?? 0) < 0;
    });
    return { metric: this.names[t], alpha: SLICE_ALPHA, tested: tested.length, groups, warnings };
  }
}

/** Σk/Σm with the report's clustered Wilson interval (Wilson on the effective counts, which for EXTRACT F1 need not be whole). */
function estimate(sums: ClusterSums): SliceEstimate {
  const p = sums.proportion();
  const out: SliceEstimate = { value: p.value, interval: p.interval };
  if (p.designEffect !== undefined) out.designEffect = p.designEffect;
  return out;
}

/**
 * One-sided p-value that the slice's ratio is below the rest's: z = (r_s − r_r) / √(v_s + v_r),
 * where v_g = C_g/(C_g − 1) · Σ_g (k_i − p₀·m_i)² / (Σ_g m_i)² is the cluster-robust variance of
 * group g's ratio under the null (p₀ the pooled ratio of all documents; C_g its documents with
 * m > 0), and p = Φ(z). Null when either side has fewer than 2 such documents.
 */
export function zTest(slice: ClusterSums, rest: ClusterSums, p0: number | null): number | null {
  if (p0 === null) return null;
  const vs = slice.robustVariance(p0);
  const vr = rest.robustVariance(p0);
  if (vs === null || vr === null) return null;
  const rs = slice.K / slice.N;
  const rr = rest.K / rest.N;
  const se = Math.sqrt(vs + vr);
  if (se === 0) return rs < rr ? 0 : 1;
  return normalCdf((rs - rr) / se);
}

/** Keeps the MAX_SLICES_PER_KEY − 1 largest slices and merges the others into `(other)`. */
function mergeSmall(cells: Map<string, Cell>, metrics: number): Map<string, Cell> {
  if (cells.size <= MAX_SLICES_PER_KEY) return cells;
  const sorted = [...cells].sort(([a, x], [b, y]) => y.documents - x.documents || (a < b ? -1 : 1));
  const out = new Map(sorted.slice(0, MAX_SLICES_PER_KEY - 1));
  const other = out.get(OTHER) ?? new Cell(metrics);
  for (const [, c] of sorted.slice(MAX_SLICES_PER_KEY - 1)) other.absorb(c);
  out.set(OTHER, other);
  return out;
}

/** For the explorer's Slice filter: each item's slices, as `KEY=LABEL`. */
export function documentSlicesOf(specs: readonly string[], items: readonly ExportItem[]): Map<string, string[]> {
  const labels = documentSliceLabels(specs);
  return new Map(items.map((item) => [item.id, labels(item)]));
}

/** One item's slices, as `KEY=LABEL` (documentSlicesOf for items read one at a time). */
export function documentSliceLabels(specs: readonly string[]): (item: ExportItem) => string[] {
  const keys = parseSliceKeys(specs);
  return (item) => keys.map((k) => `${k.spec}=${sliceLabel(k, item)}`);
}

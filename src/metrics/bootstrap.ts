/**
 * The bootstrap over documents. A statistic model turns per-document columns (counts per
 * document) into statistics through their sums; a resample draws n documents with
 * replacement (multinomial weights from the seeded generator of util/random) and recomputes every statistic from
 * the weighted sums. Paired comparisons give the same weights to both runs' columns.
 */
import { SeededGenerator, seededRandom } from '../util/random.js';
import { RESAMPLE_WASM } from './generated/resample-wasm.js';

export interface StatModel {
  /** Statistic names, e.g. `micro.f1`, `field:total.f1`. */
  keys: string[];
  /** Per-document columns, each of length n (or `width` and `materialize` instead). */
  columns?: ArrayLike<number>[];
  /** The number of columns, when they are materialized on demand. */
  width?: number;
  /**
   * The asked columns, built on demand: a million documents x 100 columns of doubles would take
   * 800 MB, so models over many documents build one group at a time and the bootstrap keeps
   * only its blocks.
   */
  materialize?(cols: number[]): ArrayLike<number>[];
  /** Every statistic from the column sums, NaN where undefined (zero denominator). */
  compute(sums: Float64Array, out: Float64Array): void;
  /**
   * Adds each document's columns into `out[c * G + group[i]]` (document i of the model's order;
   * with `group` null every document into `out[c]`, G being 1): what summing the materialized
   * columns gives, in one pass over the documents (a million documents x 100 columns built one
   * by one and scattered into the groups cost a second). Optional; only for whole-number columns,
   * whose sums do not depend on the order they are added in.
   */
  sumByGroup?(group: Int32Array | null, G: number, out: Float64Array): void;
  /**
   * Columns to sum in one pass (those that vary in the same documents, such as a field's tp, fp
   * and fn); every column in exactly one group. Default: each column alone.
   */
  groups?: number[][];
  /**
   * The documents whose own outcomes enter statistic k (its denominator is positive on them
   * alone). Optional: without it, documentsDefining computes each document's statistic alone
   * from `columns`.
   */
  informative?(k: number): number;
  /**
   * Each document's nonzero columns, whole numbers, for a model whose documents each touch a few
   * of many columns (CLASSIFY: a class's tp, fp, fn are 0 in every document but the ones of that
   * class). Optional; with it the model needs neither `columns` nor `materialize`, and the
   * bootstrap resamples its entries instead of a table of every column in every group when they
   * are much fewer (sparseBootstrap).
   */
  rows?: SparseRows;
}

/** Document i's entries at start[i] .. start[i + 1] - 1 of `col` (column) and `val` (its value). */
export interface SparseRows {
  start: Int32Array;
  col: Int32Array;
  val: Float64Array;
}

/**
 * The documents that define statistic k on their own (docs/metrics.md#intervals: the count a
 * bootstrap interval collapsed at 0 or 1 is widened by).
 */
export function documentsDefining(model: StatModel, n: number, k: number): number {
  if (model.informative) return model.informative(k);
  const cols = model.columns;
  const rows = model.rows;
  if (!cols && !rows) return n;
  // Every statistic's count in one pass over the documents, kept for the model's other statistics
  // (a report asks for each collapsed interval: per class, hundreds of them).
  let counts = DEFINING.get(model);
  if (!counts || counts.n !== n) {
    const sums = new Float64Array(widthOf(model));
    const out = new Float64Array(model.keys.length);
    const c = new Int32Array(model.keys.length);
    for (let i = 0; i < n; i++) {
      if (cols) for (let j = 0; j < cols.length; j++) sums[j] = cols[j][i];
      else if (rows) for (let e = rows.start[i]; e < rows.start[i + 1]; e++) sums[rows.col[e]] += rows.val[e];
      model.compute(sums, out);
      for (let s = 0; s < out.length; s++) if (!Number.isNaN(out[s])) c[s]++;
      if (rows && !cols) for (let e = rows.start[i]; e < rows.start[i + 1]; e++) sums[rows.col[e]] = 0;
    }
    DEFINING.set(model, (counts = { n, c }));
  }
  return counts.c[k];
}

const DEFINING = new WeakMap<StatModel, { n: number; c: Int32Array }>();

function widthOf(model: StatModel): number {
  return model.columns?.length ?? model.width ?? 0;
}

function columnsOf(model: StatModel, cols: number[]): ArrayLike<number>[] {
  if (model.columns) return cols.map((c) => (model.columns as ArrayLike<number>[])[c]);
  if (model.rows) return rowColumns(model.rows, cols);
  if (!model.materialize) throw new Error('a statistic model needs columns or materialize');
  return model.materialize(cols);
}

/** Columns `cols` built from sparse rows. */
function rowColumns({ start, col, val }: SparseRows, cols: number[]): Float64Array[] {
  const n = start.length - 1;
  const out = cols.map(() => new Float64Array(n));
  const at = new Map(cols.map((c, k) => [c, k]));
  for (let i = 0; i < n; i++) {
    for (let e = start[i]; e < start[i + 1]; e++) {
      const k = at.get(col[e]);
      if (k !== undefined) out[k][i] += val[e];
    }
  }
  return out;
}

function groupsOf(model: StatModel): number[][] {
  return model.groups ?? Array.from({ length: widthOf(model) }, (_, c) => [c]);
}

/**
 * Columns summed together. A resample's weighted sum of a column is mode · n plus the weights
 * of the documents whose value differs from the column's most common one, times the
 * difference: a sparse block keeps only those documents (the union over its columns, so each
 * weight is read once for all of them), which keeps a resample of 50,000 mostly-right
 * documents cheap. A block where most documents differ is summed densely, in document order.
 */
type Block =
  | { kind: 'sparse'; cols: number[]; modes: Float64Array; idx: Int32Array; dev: Float64Array }
  | { kind: 'dense'; cols: number[]; values: ArrayLike<number>[] };

function modeOf(col: ArrayLike<number>): number {
  const freq = new Map<number, number>();
  let mode = 0;
  let best = 0;
  for (let i = 0; i < col.length; i++) {
    const v = col[i];
    const f = (freq.get(v) ?? 0) + 1;
    freq.set(v, f);
    if (f > best) {
      best = f;
      mode = v;
    }
  }
  return mode;
}

function blockOf(values: ArrayLike<number>[], cols: number[], n: number): Block {
  const modes = Float64Array.from(values.map(modeOf));
  const idx: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let g = 0; g < values.length; g++) {
      if (values[g][i] !== modes[g]) {
        idx.push(i);
        break;
      }
    }
  }
  // Sparse reads its weights at random; past about two thirds of the documents, reading all in order is cheaper.
  if (idx.length * 3 > n * 2) return { kind: 'dense', cols, values };
  const G = cols.length;
  const dev = new Float64Array(idx.length * G);
  idx.forEach((i, k) => {
    for (let g = 0; g < G; g++) dev[k * G + g] = values[g][i] - modes[g];
  });
  return { kind: 'sparse', cols, modes, idx: Int32Array.from(idx), dev };
}

function addBlock(b: Block, w: Int32Array, n: number, sums: Float64Array): void {
  const G = b.cols.length;
  if (b.kind === 'dense') {
    if (G === 2) {
      const [v0, v1] = b.values;
      let a0 = 0;
      let a1 = 0;
      for (let i = 0; i < n; i++) {
        const wi = w[i];
        a0 += wi * v0[i];
        a1 += wi * v1[i];
      }
      sums[b.cols[0]] = a0;
      sums[b.cols[1]] = a1;
      return;
    }
    if (G === 3) {
      const [v0, v1, v2] = b.values;
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      for (let i = 0; i < n; i++) {
        const wi = w[i];
        a0 += wi * v0[i];
        a1 += wi * v1[i];
        a2 += wi * v2[i];
      }
      sums[b.cols[0]] = a0;
      sums[b.cols[1]] = a1;
      sums[b.cols[2]] = a2;
      return;
    }
    for (let g = 0; g < G; g++) {
      const v = b.values[g];
      let acc = 0;
      for (let i = 0; i < n; i++) acc += w[i] * v[i];
      sums[b.cols[g]] = acc;
    }
    return;
  }
  const { idx, dev, modes } = b;
  if (G === 3) {
    // The common case (a field's tp, fp, fn): unrolled.
    let a0 = modes[0] * n;
    let a1 = modes[1] * n;
    let a2 = modes[2] * n;
    for (let k = 0, o = 0; k < idx.length; k++, o += 3) {
      // No test for a zero weight: a third of the weights are 0, at random, and the branch
      // mispredicts more than the multiplications cost.
      const wk = w[idx[k]];
      a0 += wk * dev[o];
      a1 += wk * dev[o + 1];
      a2 += wk * dev[o + 2];
    }
    sums[b.cols[0]] = a0;
    sums[b.cols[1]] = a1;
    sums[b.cols[2]] = a2;
    return;
  }
  for (let g = 0; g < G; g++) sums[b.cols[g]] = modes[g] * n;
  for (let k = 0; k < idx.length; k++) {
    const wk = w[idx[k]];
    for (let g = 0; g < G; g++) sums[b.cols[g]] += wk * dev[k * G + g];
  }
}

/** The statistics on the documents as they are (every weight 1). */
export function pointStats(model: StatModel): Float64Array {
  const sums = new Float64Array(widthOf(model));
  if (model.sumByGroup) model.sumByGroup(null, 1, sums);
  else if (model.rows) {
    const { col, val } = model.rows;
    for (let e = 0; e < col.length; e++) sums[col[e]] += val[e];
  } else for (const cols of groupsOf(model)) {
    columnsOf(model, cols).forEach((c, g) => {
      let s = 0;
      for (let j = 0; j < c.length; j++) s += c[j];
      sums[cols[g]] = s;
    });
  }
  const out = new Float64Array(model.keys.length);
  model.compute(sums, out);
  return out;
}

/**
 * Past this many documents the bootstrap resamples groups of documents rather than documents:
 * the documents are dealt at random (seeded) into this many groups of equal size (give or take
 * one), each group's column sums are formed once, and a resample draws this many groups with
 * replacement. Documents are exchangeable, so random groups are independent and identically
 * distributed and their resampling estimates the same sampling distribution of the
 * statistics (ratios of sums) as the documents' own; a resample then costs the groups, not the
 * documents (a million documents: 10,000 groups of 100). docs/metrics.md#intervals.
 */
export const BOOTSTRAP_GROUPS = 10_000;

/**
 * B resamples of n documents; returns, per model and per statistic, the B resampled values
 * (NaN where undefined). All models must describe the same n documents in the same order.
 * Up to BOOTSTRAP_GROUPS documents each resample draws documents; past it, groups.
 */
export function bootstrap(models: StatModel[], n: number, B: number, seed: number): Float64Array[][] {
  if (sparseFits(models, n)) return sparseBootstrap(models, n, B, seed);
  if (n > BOOTSTRAP_GROUPS) return groupBootstrap(models, n, B, seed, BOOTSTRAP_GROUPS);
  return kernelDocumentBootstrap(models, n, B, seed) ?? documentBootstrap(models, n, B, seed);
}

/**
 * documentBootstrap through the WebAssembly kernel, each document its own group (in order, no
 * shuffle): the same numbers from the same generator, each resample's n draws after the last, so
 * the same weights; and whole-number columns sum exactly either way, so the results are
 * documentBootstrap's to the bit (test/metrics/bootstrap-wasm.test.ts). Undefined where the kernel
 * cannot take the columns (not whole numbers, or resampled sums past 32 bits) or does not run.
 */
function kernelDocumentBootstrap(models: StatModel[], n: number, B: number, seed: number): Float64Array[][] | undefined {
  if (n === 0 || B === 0) return undefined;
  const own = new Int32Array(n);
  for (let i = 0; i < n; i++) own[i] = i;
  const tables = groupTables(models, own, n, n);
  const fit = kernelFit(tables, n);
  if (!fit) return undefined;
  const results = models.map((m) => m.keys.map(() => new Float64Array(B)));
  simdResamples(fit.kernel, models, tables, n, B, new SeededGenerator(seed), results, fit.narrow);
  return results;
}

export function documentBootstrap(models: StatModel[], n: number, B: number, seed: number): Float64Array[][] {
  const random = seededRandom(seed);
  const blocks = models.map((m) => groupsOf(m).map((cols) => blockOf(columnsOf(m, cols), cols, n)));
  const sums = models.map((m) => new Float64Array(widthOf(m)));
  const outs = models.map((m) => new Float64Array(m.keys.length));
  const results = models.map((m) => m.keys.map(() => new Float64Array(B)));
  const w = new Int32Array(n);
  for (let b = 0; b < B; b++) {
    w.fill(0);
    for (let j = 0; j < n; j++) w[Math.floor(random() * n)]++;
    for (let mi = 0; mi < models.length; mi++) {
      const s = sums[mi];
      for (const block of blocks[mi]) addBlock(block, w, n, s);
      models[mi].compute(s, outs[mi]);
      const res = results[mi];
      const out = outs[mi];
      for (let k = 0; k < out.length; k++) res[k][b] = out[k];
    }
  }
  return results;
}

/** Document i's group: a seeded shuffle of the documents, dealt in order into G equal runs. */
export function randomGroups(n: number, G: number, random: () => number): Int32Array {
  const perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  const group = new Int32Array(n);
  for (let k = 0; k < n; k++) group[perm[k]] = Math.floor((k * G) / n);
  return group;
}

/** Resamples computed together by groupBootstrap: each group sum read once serves all of them. */
const BLOCK = 4;

/** The bootstrap over G random groups of the n documents (exported for tests). */
export function groupBootstrap(
  models: StatModel[],
  n: number,
  B: number,
  seed: number,
  G: number,
  opts: { wasm?: boolean; narrow?: boolean; totals?: Array<Float64Array | undefined> } = {},
): Float64Array[][] {
  const generator = new SeededGenerator(seed);
  const random = () => generator.next();
  const group = randomGroups(n, G, random);
  const tables = groupTables(models, group, G, n);
  if (opts.totals) for (let mi = 0; mi < models.length; mi++) opts.totals.push(integralTotals(tables[mi], widthOf(models[mi]), G));
  const results = models.map((m) => m.keys.map(() => new Float64Array(B)));
  const fit = opts.wasm === false ? undefined : kernelFit(tables, G);
  if (fit) simdResamples(fit.kernel, models, tables, G, B, generator, results, fit.narrow && opts.narrow !== false);
  else scalarResamples(models, tables, G, B, random, results);
  return results;
}

/** Per model, each column's sums over the groups (document i in group[i]): column c of group g at [c * G + g]. */
function groupTables(models: StatModel[], group: Int32Array, G: number, n: number): Float64Array[] {
  return models.map((m) => {
    const t = new Float64Array(widthOf(m) * G);
    if (m.sumByGroup) {
      m.sumByGroup(group, G, t);
      return t;
    }
    if (m.rows) {
      const { start, col, val } = m.rows;
      for (let i = 0; i < n; i++) for (let e = start[i]; e < start[i + 1]; e++) t[col[e] * G + group[i]] += val[e];
      return t;
    }
    for (const cols of groupsOf(m)) {
      columnsOf(m, cols).forEach((col, k) => {
        const base = cols[k] * G;
        for (let i = 0; i < n; i++) t[base + group[i]] += col[i];
      });
    }
    return t;
  });
}

/**
 * Each column's total over the groups, when every group sum is a whole number (the totals are
 * then exact, the same as summing the documents); undefined otherwise.
 */
function integralTotals(t: Float64Array, W: number, G: number): Float64Array | undefined {
  const totals = new Float64Array(W);
  for (let c = 0; c < W; c++) {
    let s = 0;
    for (let g = c * G, end = g + G; g < end; g++) {
      if (!Number.isInteger(t[g])) return undefined;
      s += t[g];
    }
    if (!Number.isSafeInteger(s)) return undefined;
    totals[c] = s;
  }
  return totals;
}

/**
 * The statistics of one model on the documents as they are, and B bootstrap replicates of each
 * (none when B or n is 0). Past BOOTSTRAP_GROUPS documents the point statistics come from the
 * group sums the bootstrap forms anyway (whole numbers: exact), so the columns are built once.
 */
export function pointAndBootstrap(model: StatModel, n: number, B: number, seed: number): { point: Float64Array; replicates: Float64Array[] | null } {
  if (B > 0 && n > BOOTSTRAP_GROUPS && !sparseFits([model], n)) {
    const totals: Array<Float64Array | undefined> = [];
    const replicates = groupBootstrap([model], n, B, seed, BOOTSTRAP_GROUPS, { totals })[0];
    const sums = totals[0];
    if (!sums) return { point: pointStats(model), replicates };
    const point = new Float64Array(model.keys.length);
    model.compute(sums, point);
    return { point, replicates };
  }
  return { point: pointStats(model), replicates: B > 0 && n > 0 ? bootstrap([model], n, B, seed)[0] : null };
}

/**
 * Whether the bootstrap resamples these models through their sparse rows: each has them, and
 * they hold under a hundredth of the cells of the tables the dense loops would sum (every column
 * in every group). About there the scalar loop over the entries starts to beat the SIMD kernel
 * over the tables (CLASSIFY, 2,000 or 20,000 documents: at 100 and 200 classes); at 2,000 classes
 * it takes 1.4 s where the kernel takes 16 s, and the tables (6,000 columns x 10,000 groups,
 * 480 MB) are never built.
 */
function sparseFits(models: StatModel[], n: number): boolean {
  let entries = 0;
  let cells = 0;
  for (const m of models) {
    if (!m.rows) return false;
    entries += m.rows.col.length;
    cells += widthOf(m) * Math.min(n, BOOTSTRAP_GROUPS);
  }
  return entries * 100 < cells;
}

/**
 * The bootstrap through sparse rows: the same groups (up to BOOTSTRAP_GROUPS documents, each
 * document its own, in order; past it, the seeded shuffle of randomGroups), the same draws from
 * the same generator in the same order and, the entries being whole numbers, the same exact
 * sums as the dense loops, so the same results to the bit (test/metrics/bootstrap-sparse.test.ts).
 * A resample costs the groups' entries, not every column of every group.
 */
export function sparseBootstrap(models: StatModel[], n: number, B: number, seed: number): Float64Array[][] {
  const generator = new SeededGenerator(seed);
  const G = Math.min(n, BOOTSTRAP_GROUPS);
  const group = n > BOOTSTRAP_GROUPS ? randomGroups(n, G, () => generator.next()) : null;
  // Each model's entries ordered by group (counting sort; a group's entries in document order).
  const tables = models.map((m) => {
    const { start, col, val } = m.rows as SparseRows;
    if (!group) return { at: start, col, val };
    const at = new Int32Array(G + 1);
    for (let i = 0; i < n; i++) at[group[i] + 1] += start[i + 1] - start[i];
    for (let g = 0; g < G; g++) at[g + 1] += at[g];
    const fill = at.slice(0, G);
    const gcol = new Int32Array(col.length);
    const gval = new Float64Array(col.length);
    for (let i = 0; i < n; i++) {
      for (let e = start[i]; e < start[i + 1]; e++) {
        const k = fill[group[i]]++;
        gcol[k] = col[e];
        gval[k] = val[e];
      }
    }
    return { at, col: gcol, val: gval };
  });
  const sums = models.map((m) => new Float64Array(widthOf(m)));
  const outs = models.map((m) => new Float64Array(m.keys.length));
  const results = models.map((m) => m.keys.map(() => new Float64Array(B)));
  const w = new Int32Array(G);
  for (let b = 0; b < B; b++) {
    w.fill(0);
    for (let x = 0; x < G; x++) w[Math.floor(generator.next() * G)]++;
    for (let mi = 0; mi < models.length; mi++) {
      const { at, col, val } = tables[mi];
      const s = sums[mi];
      s.fill(0);
      for (let g = 0; g < G; g++) {
        const wg = w[g];
        if (wg === 0) continue;
        for (let e = at[g], end = at[g + 1]; e < end; e++) s[col[e]] += wg * val[e];
      }
      const out = outs[mi];
      models[mi].compute(s, out);
      const res = results[mi];
      for (let q = 0; q < out.length; q++) res[q][b] = out[q];
    }
  }
  return results;
}

/** The largest magnitude of the table's entries, Infinity when one is not a whole number. */
function largestInteger(t: Float64Array): number {
  let max = 0;
  for (let i = 0; i < t.length; i++) {
    const v = t[i];
    if (!Number.isInteger(v)) return Infinity;
    const a = Math.abs(v);
    if (a > max) max = a;
  }
  return max;
}

const INT16_MAX = 2 ** 15 - 1;

/**
 * The kernel for tables over G groups, when it can sum them exactly: whole numbers whose
 * resampled sums stay 32-bit integers (the weights of a resample add up to G), and `narrow` when
 * the tables and the weights (each at most G) fit in 16 bits. Undefined otherwise, or where
 * WebAssembly SIMD does not run.
 */
function kernelFit(tables: readonly Float64Array[], G: number): { kernel: ResampleKernel; narrow: boolean } | undefined {
  let largest = 0;
  for (const t of tables) largest = Math.max(largest, largestInteger(t));
  const kernel = largest * G < 2 ** 31 ? resampleKernel() : undefined;
  return kernel && { kernel, narrow: largest <= INT16_MAX && G <= INT16_MAX };
}

// The little of the WebAssembly API used here (the project's type libraries do not declare it).
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

/** The compiled src/metrics/wasm/resample.wat, or null where WebAssembly SIMD is not available. */
let resampleModule: object | null | undefined;

interface ResampleKernel {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  sums8(t: number, w: number, out: number, W: number, G: number): void;
  sums8n(t: number, w: number, out: number, W: number, G: number): void;
  /** k resamples' draws of G groups into the weights at w (laid out for sums8n when narrow is 1), from the generator's state; returns the state after them. */
  draws(state: number, G: number, k: number, w: number, narrow: number): number;
}

/** The kernel draws groups for G below this: (u * G) >> 32 is then Math.floor(u / 2^32 * G) exactly (u * G < 2^53). */
const DRAWS_BOUND = 2 ** 21;

/** An instance of the resample kernel with its own memory (freed with it). */
function resampleKernel(): ResampleKernel | undefined {
  if (resampleModule === undefined) {
    try {
      resampleModule = wasmApi ? new wasmApi.Module(Buffer.from(RESAMPLE_WASM, 'base64')) : null;
    } catch {
      resampleModule = null;
    }
  }
  if (!resampleModule) return undefined;
  return new (wasmApi as WasmApi).Instance(resampleModule).exports as ResampleKernel;
}

/** Whether this runtime runs the WebAssembly kernel (Node 20 does; exported for tests). */
export function hasResampleKernel(): boolean {
  return resampleKernel() !== undefined;
}

/** Resamples computed together by the WebAssembly kernel (its memory layout is described in resample.wat). */
const SIMD_BLOCK = 8;

/**
 * The resamples through the WebAssembly kernel: the group sums as 32-bit integers, four groups per
 * SIMD operation, or `narrow`, as 16-bit integers, eight groups per operation (exact: every sum
 * fits, see largestInteger), eight resamples per pass over the table. The same random numbers in
 * the same order as scalarResamples, and exact integer sums, so the same results
 * (test/metrics/bootstrap-wasm.test.ts).
 */
function simdResamples(kernel: ResampleKernel, models: StatModel[], tables: Float64Array[], G: number, B: number, generator: SeededGenerator, results: Float64Array[][], narrow: boolean): void {
  // A SIMD operation covers `lanes` groups of `bytes` bytes each (16 bytes).
  const lanes = narrow ? 8 : 4;
  const bytes = narrow ? 2 : 4;
  const Gp = Math.ceil(G / lanes) * lanes;
  const widths = models.map(widthOf);
  // Byte offsets: each model's table, then the weights, then each model's sums.
  const tableAt: number[] = [];
  let at = 0;
  for (const W of widths) {
    tableAt.push(at);
    at += W * Gp * bytes;
  }
  const weightsAt = at;
  at += SIMD_BLOCK * Gp * bytes;
  const outAt: number[] = [];
  for (const W of widths) {
    outAt.push(at);
    at += W * SIMD_BLOCK * 4;
  }
  const { memory } = kernel;
  const pages = Math.ceil(at / 65536) - memory.buffer.byteLength / 65536;
  if (pages > 0) memory.grow(pages);
  const heap = new Int32Array(memory.buffer);
  const cells = narrow ? new Int16Array(memory.buffer) : heap;
  tables.forEach((t, mi) => {
    const base = tableAt[mi] / bytes;
    for (let c = 0; c < widths[mi]; c++) for (let g = 0; g < G; g++) cells[base + c * Gp + g] = t[c * G + g];
  });
  const w = cells.subarray(weightsAt / bytes, weightsAt / bytes + SIMD_BLOCK * Gp);
  const sums = models.map((_, mi) => new Float64Array(widths[mi]));
  const outs = models.map((m) => new Float64Array(m.keys.length));
  for (let b0 = 0; b0 < B; b0 += SIMD_BLOCK) {
    const k = Math.min(SIMD_BLOCK, B - b0);
    w.fill(0);
    // The draws in the kernel too, where its integer form of Math.floor(random() * G) is exact
    // (a narrow table has G <= INT16_MAX, so only the wide layout is ever drawn here).
    if (G < DRAWS_BOUND) generator.state = kernel.draws(generator.state, G, k, weightsAt, narrow ? 1 : 0) >>> 0;
    else {
      for (let j = 0; j < k; j++) {
        for (let x = 0; x < G; x++) {
          const g = Math.floor(generator.next() * G);
          w[((g >> 2) << 5) + (j << 2) + (g & 3)]++;
        }
      }
    }
    for (let mi = 0; mi < models.length; mi++) {
      const W = widths[mi];
      if (narrow) kernel.sums8n(tableAt[mi], weightsAt, outAt[mi], W, Gp);
      else kernel.sums8(tableAt[mi], weightsAt, outAt[mi], W, Gp);
      const o = outAt[mi] / 4;
      const s = sums[mi];
      const out = outs[mi];
      const res = results[mi];
      for (let j = 0; j < k; j++) {
        for (let c = 0; c < W; c++) s[c] = heap[o + c * SIMD_BLOCK + j];
        models[mi].compute(s, out);
        for (let q = 0; q < out.length; q++) res[q][b0 + j] = out[q];
      }
    }
  }
}

/** The resamples in JavaScript, BLOCK at a time (where the WebAssembly kernel cannot be used). */
function scalarResamples(models: StatModel[], tables: Float64Array[], G: number, B: number, random: () => number, results: Float64Array[][]): void {
  const sums = models.map((m) => Array.from({ length: BLOCK }, () => new Float64Array(widthOf(m))));
  const outs = models.map((m) => new Float64Array(m.keys.length));
  // Weights of BLOCK resamples at a time; each resample draws its G groups in turn, so the
  // random numbers (and so the result) are those of one resample after the other.
  const [w0, w1, w2, w3] = Array.from({ length: BLOCK }, () => new Float64Array(G));
  const ws = [w0, w1, w2, w3];
  for (let b0 = 0; b0 < B; b0 += BLOCK) {
    const k = Math.min(BLOCK, B - b0);
    for (let j = 0; j < BLOCK; j++) {
      const w = ws[j];
      w.fill(0);
      if (j < k) for (let x = 0; x < G; x++) w[Math.floor(random() * G)]++;
    }
    for (let mi = 0; mi < models.length; mi++) {
      const t = tables[mi];
      const [s0, s1, s2, s3] = sums[mi];
      for (let c = 0, base = 0; c < s0.length; c++, base += G) {
        let a0 = 0;
        let a1 = 0;
        let a2 = 0;
        let a3 = 0;
        for (let g = 0; g < G; g++) {
          const v = t[base + g];
          a0 += w0[g] * v;
          a1 += w1[g] * v;
          a2 += w2[g] * v;
          a3 += w3[g] * v;
        }
        s0[c] = a0;
        s1[c] = a1;
        s2[c] = a2;
        s3[c] = a3;
      }
      const res = results[mi];
      const out = outs[mi];
      for (let j = 0; j < k; j++) {
        models[mi].compute(sums[mi][j], out);
        for (let q = 0; q < out.length; q++) res[q][b0 + j] = out[q];
      }
    }
  }
}

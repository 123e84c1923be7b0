/**
 * Per-document sufficient statistics in typed arrays: what the intervals, the bootstrap, the
 * pairing with a baseline and the gates need of each EXTRACT document, without its record.
 * A million documents x 30 fields as Int32 counts would take 600 MB; small counts are stored in
 * chunks of bytes that widen (to 16 or 32 bits) only where a value needs it.
 */
import { InternalError } from '../util/errors.js';
import type { DocumentRecord } from './generated/report.js';
import { tupleOf } from './records.js';

/** What pairing reads of a document (src/report/pairing.ts). */
export interface Pairable {
  id: string;
  fileId: string;
  fileName?: string;
  contentHash?: string;
}

const CHUNK_BITS = 14;
const CHUNK = 1 << CHUNK_BITS;
const MASK = CHUNK - 1;

type Narrow = Uint8Array | Uint16Array | Int32Array;

/** Rows of `width` non-negative integers, appended one document at a time. */
export class CountStore {
  private readonly chunks: Narrow[] = [];
  n = 0;
  constructor(readonly width: number) {}

  push(row: ArrayLike<number>, from = 0): void {
    const c = this.n >>> CHUNK_BITS;
    if (c === this.chunks.length) this.chunks.push(new Uint8Array(CHUNK * this.width));
    let chunk = this.chunks[c];
    const w = this.width;
    const o = (this.n & MASK) * w;
    for (let k = 0; k < w; k++) {
      const v = row[from + k];
      if (v > 255 && chunk instanceof Uint8Array) chunk = this.widen(c, v);
      else if (v > 65535 && chunk instanceof Uint16Array) chunk = this.widen(c, v);
      if (!(v >= 0) || v !== Math.floor(v) || v > 0x7fffffff) throw new InternalError(`a per-document count is not a small whole number (${v})`);
      chunk[o + k] = v;
    }
    this.n++;
  }

  private widen(c: number, v: number): Narrow {
    const old = this.chunks[c];
    const wide = v > 65535 ? new Int32Array(old.length) : new Uint16Array(old.length);
    wide.set(old);
    this.chunks[c] = wide;
    return wide;
  }

  get(d: number, k: number): number {
    return this.chunks[d >>> CHUNK_BITS][(d & MASK) * this.width + k];
  }

  /** The chunk holding document d's row, which starts at rowOffset(d): for loops over whole rows. */
  chunkOf(d: number): ArrayLike<number> {
    return this.chunks[d >>> CHUNK_BITS];
  }

  rowOffset(d: number): number {
    return (d & MASK) * this.width;
  }

  /**
   * The [tp, fp = fa + fd, fnAll = fn + fd] of the tuple at column `o` of each document
   * `index[i]`, into the three columns (what a field's F1 needs, for the bootstrap's model).
   */
  f1Columns(o: number, index: ArrayLike<number>, tp: Float64Array, fp: Float64Array, fnAll: Float64Array): void {
    const w = this.width;
    for (let i = 0; i < index.length; i++) {
      const d = index[i];
      const chunk = this.chunks[d >>> CHUNK_BITS];
      const at = (d & MASK) * w + o;
      const fd = chunk[at + 4];
      tp[i] = chunk[at];
      fp[i] = chunk[at + 2] + fd;
      fnAll[i] = chunk[at + 3] + fd;
    }
  }

  /**
   * For each i, the sum of the values at `columns` of document `index[i]`, into `out[i]`
   * (added to it with `add`): one chunk lookup per document for all the columns.
   */
  sumColumns(index: ArrayLike<number>, columns: readonly number[], out: Float64Array, add = false): void {
    const w = this.width;
    const K = columns.length;
    for (let i = 0; i < index.length; i++) {
      const d = index[i];
      const chunk = this.chunks[d >>> CHUNK_BITS];
      const at = (d & MASK) * w;
      let s = add ? out[i] : 0;
      for (let k = 0; k < K; k++) s += chunk[at + columns[k]];
      out[i] = s;
    }
  }

  /** Sets one value of a stored row (flags decided after the document was stored). */
  set(d: number, k: number, v: number): void {
    const c = d >>> CHUNK_BITS;
    if (v > 255 && this.chunks[c] instanceof Uint8Array) this.widen(c, v);
    if (v > 65535 && this.chunks[c] instanceof Uint16Array) this.widen(c, v);
    this.chunks[c][(d & MASK) * this.width + k] = v;
  }
}

/**
 * A copy of a string that shares no memory with the text it was parsed from: V8 may hand out a
 * long string as a slice of its parent (the export's line and the chunk read), and an id kept
 * for a million documents must not keep their lines alive.
 */
export function detach(s: string): string {
  return s.length < 13 ? s : Buffer.from(s, 'utf16le').toString('utf16le');
}

/** Columns of the per-document scalars of an ExtractTable. */
export const META = { correct: 0, failed: 1, unexpected: 2, straightThrough: 3 } as const;
/** straightThrough in META: not known for this document. */
export const ABSENT = 2;

/**
 * EXTRACT documents in arrival order: per field slot [tp, tn, fa, fn, fd] (and the exact
 * matcher's of fuzzy fields), the document's scalars (META) and what pairing needs. `order` is
 * the documents in id order (the order the statistics see them in).
 */
export class ExtractTable {
  readonly counts: CountStore;
  readonly exact: CountStore | undefined;
  readonly meta = new CountStore(4);
  readonly ids: string[] = [];
  /** File id, name and content hash of each document, kept only when a baseline will pair with them. */
  readonly keys: Pairable[] | undefined;
  order: Int32Array = new Int32Array(0);

  /** Fuzzy field path -> slot in `exact`. */
  readonly exactSlot: ReadonlyMap<string, number>;

  constructor(
    /** Field path -> slot. */
    readonly slot: ReadonlyMap<string, number>,
    /** Paths of the fuzzy fields, whose exact-match counts are kept too. */
    exactPaths: readonly string[],
    keepKeys: boolean,
  ) {
    this.counts = new CountStore(slot.size * 5);
    this.exactSlot = new Map(exactPaths.map((p, s) => [p, s]));
    this.exact = exactPaths.length ? new CountStore(exactPaths.length * 5) : undefined;
    this.keys = keepKeys ? [] : undefined;
  }

  get n(): number {
    return this.meta.n;
  }

  get width(): number {
    return this.slot.size;
  }

  add(doc: Pairable & { correct: boolean; failed: boolean; unexpected: number; straightThrough?: boolean }, counts: ArrayLike<number>, exact?: ArrayLike<number>): void {
    this.counts.push(counts);
    if (this.exact) this.exact.push(exact as ArrayLike<number>);
    this.meta.push([doc.correct ? 1 : 0, doc.failed ? 1 : 0, doc.unexpected, doc.straightThrough === undefined ? ABSENT : doc.straightThrough ? 1 : 0]);
    const id = detach(doc.id);
    this.ids.push(id);
    if (this.keys) {
      const k: Pairable = { id, fileId: detach(doc.fileId) };
      if (doc.fileName !== undefined) k.fileName = detach(doc.fileName);
      if (doc.contentHash !== undefined) k.contentHash = detach(doc.contentHash);
      this.keys.push(k);
    }
  }

  /** The documents sorted by id (stable); the index of the first duplicate pair when ids repeat. */
  sortById(): { duplicate?: [number, number] } {
    const ids = this.ids;
    // Exports list their items by id as a rule: then the order is the arrival order, and a
    // million ids need no comparison sort.
    let sorted = true;
    for (let k = 1; k < ids.length && sorted; k++) sorted = ids[k - 1] < ids[k];
    if (sorted) {
      this.order = Int32Array.from({ length: ids.length }, (_, i) => i);
      return {};
    }
    const order = Array.from({ length: ids.length }, (_, i) => i).sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : a - b));
    this.order = Int32Array.from(order);
    for (let k = 1; k < order.length; k++) if (ids[order[k]] === ids[order[k - 1]]) return { duplicate: [order[k - 1], order[k]] };
    return {};
  }

  /** Whether every document of `docs` (table indices) carries a straight-through flag. */
  straightThrough(d: number): boolean | undefined {
    const v = this.meta.get(d, META.straightThrough);
    return v === ABSENT ? undefined : v === 1;
  }

  /** A table of records (a baseline report's), fields in the given order; ids sorted as given. */
  static fromRecords(records: Iterable<DocumentRecord>, fields: readonly string[]): ExtractTable {
    const t = new ExtractTable(new Map(fields.map((f, s) => [f, s])), [], true);
    for (const r of records) t.addRecord(r, fields);
    t.order = Int32Array.from({ length: t.n }, (_, i) => i);
    return t;
  }

  addRecord(r: DocumentRecord, fields: readonly string[]): void {
    const row = new Int32Array(fields.length * 5);
    fields.forEach((f, s) => {
      const t = tupleOf(r, f);
      if (t) row.set(t, s * 5);
    });
    this.add({ ...r, unexpected: r.unexpected ?? 0 }, row);
  }
}

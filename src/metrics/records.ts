/**
 * EXTRACT document records whose per-field counts stay in a dense typed array: the scorer's
 * own while the record's line is written, a shared chunk (CountArena) for a record that is kept.
 * A report of 50,000 documents x 30 fields would otherwise hold 1.5 million small arrays for
 * the whole run (most of the scoring time went to garbage collection); here `fields` is built
 * when read, and `toJSON` gives the plain record the JSON renderer writes.
 */
import type { DocumentRecord, OutcomeTuple } from './generated/report.js';

/** What the records of one run share: their fields and where each field's counts are. */
export interface RecordLayout {
  /** Field paths in sorted order and the slot of each in a document's counts. */
  paths: readonly string[];
  slots: readonly number[];
  slotOf: ReadonlyMap<string, number>;
  /** `"path":[` for each path, for jsonText. */
  keys: readonly string[];
  /**
   * Per path, the UTF-8 bytes of its member for the tuples seen so far (`,"path":[1,0,0,0,0]`,
   * without the comma when it is the record's first member), by the counts packed 4 bits each
   * and bit 20 for a first member: most documents repeat a handful of tuples per field, and
   * building each member anew was most of what writing the side file allocated. Shared by the
   * records of a run.
   */
  texts?: Array<Map<number, Uint8Array>>;
}

/** Tuples a field keeps the text of (beyond them members are built each time). */
const TEXTS_PER_FIELD = 256;

/**
 * `s` written as UTF-8 into `out` from `p`: the offset past it, or -1 when it did not all fit
 * (Buffer#write stops short silently, and at most 3 bytes short of the end).
 */
function put(out: Buffer, s: string, p: number): number {
  if (p > out.length) return -1;
  const n = out.write(s, p);
  return p + n <= out.length - 4 || Buffer.byteLength(s) === n ? p + n : -1;
}

/** Where jsonText has a line written, grown when a line does not fit (and kept up to 1 MiB). */
let lineBuffer = Buffer.allocUnsafe(1 << 16);
const KEPT_LINE_BUFFER = 1 << 20;

export class ExtractRecord {
  // Private fields: no member of the record as JSON, and no per-record property definition.
  readonly #data: Int32Array | Uint8Array;
  readonly #offset: number;
  readonly #layout: RecordLayout;
  readonly contentHash?: string;
  readonly correct: boolean;
  readonly errors: number;
  readonly failed: boolean;
  readonly fileId: string;
  readonly fileName?: string;
  readonly id: string;
  /** Predicted values under keys outside the fields (only when there are any). */
  readonly unexpected?: number;
  /** Set after scoring, with --target-accuracy. */
  straightThrough?: boolean;

  /** The document's counts are `data[offset + slot * 5 + kind]` (kept where they were written: see CountArena). */
  constructor(
    base: { contentHash?: string; correct: boolean; errors: number; failed: boolean; fileId: string; fileName?: string; id: string; unexpected: number },
    layout: RecordLayout,
    data: Int32Array | Uint8Array,
    offset = 0,
  ) {
    if (base.contentHash !== undefined) this.contentHash = base.contentHash;
    this.correct = base.correct;
    this.errors = base.errors;
    this.failed = base.failed;
    this.fileId = base.fileId;
    if (base.fileName !== undefined) this.fileName = base.fileName;
    this.id = base.id;
    if (base.unexpected > 0) this.unexpected = base.unexpected;
    this.#data = data;
    this.#offset = offset;
    this.#layout = layout;
  }

  /** field path -> [tp, tn, fa, fn, fd], fields without outcomes left out, keys sorted. */
  get fields(): Record<string, OutcomeTuple> {
    const data = this.#data;
    const offset = this.#offset;
    const { paths, slots } = this.#layout;
    // No prototype: a field path `__proto__` or `constructor` is an ordinary member.
    const out = Object.create(null) as Record<string, OutcomeTuple>;
    for (let i = 0; i < paths.length; i++) {
      const o = offset + slots[i] * 5;
      if (data[o] + data[o + 1] + data[o + 2] + data[o + 3] + data[o + 4] === 0) continue;
      out[paths[i]] = [data[o], data[o + 1], data[o + 2], data[o + 3], data[o + 4]];
    }
    return out;
  }

  /** Every field path of the run, sorted (the same array for every record of a run). */
  get paths(): readonly string[] {
    return this.#layout.paths;
  }

  /** Adds the counts of one field to `sum` ([tp, tn, fa, fn, fd]) without building a tuple. */
  addTo(path: string, sum: number[]): void {
    const s = this.#layout.slotOf.get(path);
    if (s === undefined) return;
    const o = this.#offset + s * 5;
    for (let i = 0; i < 5; i++) sum[i] += this.#data[o + i];
  }

  /** The counts of one field without building the whole map. */
  tuple(path: string): OutcomeTuple | undefined {
    const data = this.#data;
    const offset = this.#offset;
    const { slotOf } = this.#layout;
    const s = slotOf.get(path);
    if (s === undefined) return undefined;
    const o = offset + s * 5;
    if (data[o] + data[o + 1] + data[o + 2] + data[o + 3] + data[o + 4] === 0) return undefined;
    return [data[o], data[o + 1], data[o + 2], data[o + 3], data[o + 4]];
  }

  /**
   * Which outcomes a field had, as bits (`tp`, `fa`, `fn`, `fd` for TP, FA, FN, FD; TN has
   * none), without building its tuple: the explorer reads this for every field of every document.
   */
  outcomeBits(path: string, tp: number, fa: number, fn: number, fd: number): number {
    const data = this.#data;
    const offset = this.#offset;
    const { slotOf } = this.#layout;
    const s = slotOf.get(path);
    if (s === undefined) return 0;
    const o = offset + s * 5;
    return (data[o] ? tp : 0) | (data[o + 2] ? fa : 0) | (data[o + 3] ? fn : 0) | (data[o + 4] ? fd : 0);
  }

  /**
   * `JSON.stringify(this.toJSON())` without building the record (the renderer writes one line
   * per document, and a report of 50,000 documents would otherwise allocate millions of small
   * arrays only to turn them into text): writeJson's bytes, decoded.
   */
  jsonText(): string {
    let buf = lineBuffer;
    for (;;) {
      const end = this.writeJson(buf, 0);
      if (end >= 0) return buf.toString('utf8', 0, end);
      buf = Buffer.allocUnsafe(buf.length * 2);
      // Kept for the next lines only while small: one huge record must not pin its buffer.
      if (buf.length <= KEPT_LINE_BUFFER) lineBuffer = buf;
    }
  }

  /**
   * The record's line (jsonText, as UTF-8) written into `out` from `at`, without making it a
   * string first: returns the offset just past it, or -1 when it does not fit (what was written
   * past `at` is then meaningless). The side file's writer calls this for every document; the
   * string, then its encoding, cost twice as much.
   */
  writeJson(out: Buffer, at: number): number {
    const data = this.#data;
    const offset = this.#offset;
    const { paths, slots, keys, texts } = this.#layout;
    const end = out.length;
    const head = `${this.contentHash === undefined ? '{' : `{"contentHash":${JSON.stringify(this.contentHash)},`}"correct":${this.correct},"errors":${this.errors},"failed":${this.failed},"fields":{`;
    let p = put(out, head, at);
    if (p < 0) return -1;
    let first = 1 << 20;
    for (let i = 0; i < paths.length; i++) {
      const o = offset + slots[i] * 5;
      const tp = data[o];
      const tn = data[o + 1];
      const fa = data[o + 2];
      const fn = data[o + 3];
      const fd = data[o + 4];
      if (tp + tn + fa + fn + fd === 0) continue;
      if (texts && (tp | tn | fa | fn | fd) < 16) {
        const cache = texts[i];
        const k = tp | (tn << 4) | (fa << 8) | (fn << 12) | (fd << 16) | first;
        let t = cache.get(k);
        if (t === undefined) {
          t = Buffer.from(`${first ? '' : ','}${keys[i]}${tp},${tn},${fa},${fn},${fd}]`);
          if (cache.size < TEXTS_PER_FIELD) cache.set(k, t);
        }
        if (p + t.length > end) return -1;
        out.set(t, p);
        p += t.length;
      } else {
        p = put(out, `${first ? '' : ','}${keys[i]}${tp},${tn},${fa},${fn},${fd}]`, p);
        if (p < 0) return -1;
      }
      first = 0;
    }
    let tail = `},"fileId":${JSON.stringify(this.fileId)}`;
    if (this.fileName !== undefined) tail += `,"fileName":${JSON.stringify(this.fileName)}`;
    tail += `,"id":${JSON.stringify(this.id)}`;
    if (this.straightThrough !== undefined) tail += `,"straightThrough":${this.straightThrough}`;
    if (this.unexpected !== undefined) tail += `,"unexpected":${this.unexpected}`;
    return put(out, `${tail}}`, p);
  }

  /** The plain record, keys in sorted order. */
  toJSON(): DocumentRecord {
    const r: DocumentRecord = {
      contentHash: this.contentHash,
      correct: this.correct,
      errors: this.errors,
      failed: this.failed,
      fields: this.fields,
      fileId: this.fileId,
      fileName: this.fileName,
      id: this.id,
      straightThrough: this.straightThrough,
      unexpected: this.unexpected,
    };
    for (const k of ['contentHash', 'fileName', 'straightThrough', 'unexpected'] as const) if (r[k] === undefined) delete r[k];
    return r;
  }
}

/**
 * Records whose counts are kept (the side file's sink keeps up to RECORDS_MAX for the explorer):
 * rows of counts that fit in a byte are copied into shared chunks, not a typed array per record
 * (each one an object, a buffer and a finalizer for the garbage collector, which made the
 * collections of a 50,000-document report 2.5x as costly).
 */
export class CountArena {
  private chunk: Uint8Array;
  private used = 0;

  constructor(
    private readonly width: number,
    private readonly rows = 4096,
  ) {
    this.chunk = new Uint8Array(width * rows);
  }

  /** A record with its own copy of `counts` (`width` of them). */
  record(base: ConstructorParameters<typeof ExtractRecord>[0], layout: RecordLayout, counts: Int32Array): ExtractRecord {
    const w = this.width;
    for (let i = 0; i < w; i++) if (counts[i] > 255 || counts[i] < 0) return new ExtractRecord(base, layout, counts.slice(0, w));
    if (this.used + w > this.chunk.length) {
      this.chunk = new Uint8Array(w * this.rows);
      this.used = 0;
    }
    const at = this.used;
    this.chunk.set(counts.subarray(0, w), at);
    this.used += w;
    return new ExtractRecord(base, layout, this.chunk, at);
  }
}

/** The [tp, tn, fa, fn, fd] of a field in a record of either kind (undefined: no outcomes). */
export function tupleOf(d: DocumentRecord, path: string): OutcomeTuple | undefined {
  return d instanceof ExtractRecord ? d.tuple(path) : d.fields && Object.hasOwn(d.fields, path) ? d.fields[path] : undefined;
}

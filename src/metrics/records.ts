/**
 * EXTRACT document records whose per-field counts stay in the dense typed array they were
 * scored into. A report of 50,000 documents x 30 fields would otherwise hold 1.5 million
 * small arrays for the whole run (most of the scoring time went to garbage collection);
 * here `fields` is built when read, and `toJSON` gives the plain record the JSON renderer writes.
 */
import type { DocumentRecord, OutcomeTuple } from './generated/report.js';

const SOURCE = Symbol('dense counts');

interface Source {
  data: Int32Array | Uint8Array;
  offset: number;
  /** Field paths in sorted order and the slot of each in the document's counts. */
  paths: readonly string[];
  slots: readonly number[];
  slotOf: ReadonlyMap<string, number>;
  /** `"path":[` for each path, for jsonText. */
  keys: readonly string[];
  /**
   * Per path, the text of its member for the tuples seen so far (`"path":[1,0,0,0,0]`), by the
   * counts packed 4 bits each: most documents repeat a handful of tuples per field, and building
   * each member anew was most of what writing the side file allocated. Shared by the records of a run.
   */
  texts?: Array<Map<number, string>>;
}

/** Tuples a field keeps the text of (beyond them members are built each time). */
const TEXTS_PER_FIELD = 256;

export class ExtractRecord {
  declare readonly [SOURCE]: Source;
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

  constructor(
    base: { contentHash?: string; correct: boolean; errors: number; failed: boolean; fileId: string; fileName?: string; id: string; unexpected: number },
    source: Source,
  ) {
    if (base.contentHash !== undefined) this.contentHash = base.contentHash;
    this.correct = base.correct;
    this.errors = base.errors;
    this.failed = base.failed;
    this.fileId = base.fileId;
    if (base.fileName !== undefined) this.fileName = base.fileName;
    this.id = base.id;
    if (base.unexpected > 0) this.unexpected = base.unexpected;
    Object.defineProperty(this, SOURCE, { value: source, enumerable: false });
  }

  /** field path -> [tp, tn, fa, fn, fd], fields without outcomes left out, keys sorted. */
  get fields(): Record<string, OutcomeTuple> {
    const { data, offset, paths, slots } = this[SOURCE];
    // No prototype: a field path `__proto__` or `constructor` is an ordinary member.
    const out = Object.create(null) as Record<string, OutcomeTuple>;
    for (let i = 0; i < paths.length; i++) {
      const o = offset + slots[i] * 5;
      if (data[o] + data[o + 1] + data[o + 2] + data[o + 3] + data[o + 4] === 0) continue;
      out[paths[i]] = [data[o], data[o + 1], data[o + 2], data[o + 3], data[o + 4]];
    }
    return out;
  }

  /** The counts of one field without building the whole map. */
  tuple(path: string): OutcomeTuple | undefined {
    const { data, offset, slotOf } = this[SOURCE];
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
    const { data, offset, slotOf } = this[SOURCE];
    const s = slotOf.get(path);
    if (s === undefined) return 0;
    const o = offset + s * 5;
    return (data[o] ? tp : 0) | (data[o + 2] ? fa : 0) | (data[o + 3] ? fn : 0) | (data[o + 4] ? fd : 0);
  }

  /**
   * `JSON.stringify(this.toJSON())` without building the record: the renderer writes one line
   * per document, and a report of 50,000 documents would otherwise allocate millions of small
   * arrays only to turn them into text.
   */
  jsonText(): string {
    const { data, offset, paths, slots, keys, texts } = this[SOURCE];
    // Parts joined once (a flat string), not a chain of `+=` (a rope the final join must flatten).
    const parts = [this.contentHash === undefined ? '{' : `{"contentHash":${JSON.stringify(this.contentHash)},`, `"correct":${this.correct},"errors":${this.errors},"failed":${this.failed},"fields":{`];
    let members = 0;
    for (let i = 0; i < paths.length; i++) {
      const o = offset + slots[i] * 5;
      const tp = data[o];
      const tn = data[o + 1];
      const fa = data[o + 2];
      const fn = data[o + 3];
      const fd = data[o + 4];
      if (tp + tn + fa + fn + fd === 0) continue;
      if (members++ > 0) parts.push(',');
      if (texts && (tp | tn | fa | fn | fd) < 16) {
        const cache = texts[i];
        const k = tp | (tn << 4) | (fa << 8) | (fn << 12) | (fd << 16);
        let t = cache.get(k);
        if (t === undefined) {
          t = `${keys[i]}${tp},${tn},${fa},${fn},${fd}]`;
          if (cache.size < TEXTS_PER_FIELD) cache.set(k, t);
        }
        parts.push(t);
      } else parts.push(`${keys[i]}${tp},${tn},${fa},${fn},${fd}]`);
    }
    parts.push('},"fileId":', JSON.stringify(this.fileId));
    if (this.fileName !== undefined) parts.push(',"fileName":', JSON.stringify(this.fileName));
    parts.push(',"id":', JSON.stringify(this.id));
    if (this.straightThrough !== undefined) parts.push(',"straightThrough":', String(this.straightThrough));
    if (this.unexpected !== undefined) parts.push(',"unexpected":', String(this.unexpected));
    parts.push('}');
    return parts.join('');
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

/** The [tp, tn, fa, fn, fd] of a field in a record of either kind (undefined: no outcomes). */
export function tupleOf(d: DocumentRecord, path: string): OutcomeTuple | undefined {
  return d instanceof ExtractRecord ? d.tuple(path) : d.fields && Object.hasOwn(d.fields, path) ? d.fields[path] : undefined;
}

/**
 * Pairing a run's documents with a baseline's. Item ids pair runs of the same evaluation set;
 * a set that was re-created (same files, new items) pairs by file id, by file name (without the
 * content tag `dataset upload` adds to names) or by content hash. Each key is tried in turn on
 * the documents still unpaired, and pairs only where it is unique on both sides.
 */
import { identityOfUploadName, nameWithoutUploadTag } from '../dataset/files.js';
import { UsageError } from '../util/errors.js';
import type { Pairable } from '../metrics/table.js';

export const PAIR_BY = ['auto', 'id', 'file', 'name'] as const;
export type PairBy = (typeof PAIR_BY)[number];
export type PairKey = 'id' | 'file' | 'name' | 'hash';

export type { Pairable } from '../metrics/table.js';

export interface Pairing {
  /** [current index, baseline index], by current index. */
  pairs: Array<[number, number]>;
  byKey: Record<PairKey, number>;
  onlyInCurrent: number[];
  onlyInBaseline: number[];
}

/** Hex digits of a content hash that identify a file (what upload names carry). */
const HASH_DIGITS = 24;

const KEY_OF: Record<PairKey, (d: Pairable) => string | undefined> = {
  id: (d) => d.id,
  file: (d) => d.fileId,
  name: (d) => (d.fileName ? nameWithoutUploadTag(d.fileName).normalize('NFC') : undefined),
  hash: (d) => {
    if (d.contentHash) return d.contentHash.slice(0, HASH_DIGITS).toLowerCase();
    const tagged = d.fileName ? identityOfUploadName(d.fileName) : undefined;
    return tagged?.slice('sha256:'.length);
  },
};

const ORDER: Record<PairBy, PairKey[]> = { auto: ['id', 'file', 'name', 'hash'], id: ['id'], file: ['file'], name: ['name'] };

export function pairDocuments(current: readonly Pairable[], baseline: readonly Pairable[], by: PairBy): Pairing {
  const curFree = new Uint8Array(current.length).fill(1);
  const baseFree = new Uint8Array(baseline.length).fill(1);
  const pairs: Array<[number, number]> = [];
  const byKey: Record<PairKey, number> = { id: 0, file: 0, name: 0, hash: 0 };
  for (const key of ORDER[by]) {
    const index = (docs: readonly Pairable[], free: Uint8Array): Map<string, number[]> => {
      const m = new Map<string, number[]>();
      docs.forEach((d, i) => {
        if (!free[i]) return;
        const k = KEY_OF[key](d);
        if (k === undefined || k === '') return;
        const list = m.get(k);
        if (list) list.push(i);
        else m.set(k, [i]);
      });
      return m;
    };
    const cur = index(current, curFree);
    const base = index(baseline, baseFree);
    for (const [k, ci] of cur) {
      const bi = base.get(k);
      if (ci.length !== 1 || bi?.length !== 1) continue;
      pairs.push([ci[0], bi[0]]);
      curFree[ci[0]] = 0;
      baseFree[bi[0]] = 0;
      byKey[key]++;
    }
  }
  pairs.sort((a, b) => a[0] - b[0]);
  const onlyInCurrent = [...curFree.keys()].filter((i) => curFree[i]);
  const onlyInBaseline = [...baseFree.keys()].filter((i) => baseFree[i]);
  return { pairs, byKey, onlyInCurrent, onlyInBaseline };
}

/**
 * `--min-paired`: a count (`10`) or a share of this run's documents (`90%`, `0.9`); at least 1,
 * so that a comparison never passes on nothing.
 */
export function minPairedOf(spec: number | string | undefined, documents: number): number {
  const text = spec === undefined ? '90%' : String(spec).trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(text);
  let n: number;
  if (pct) n = Math.ceil((Number(pct[1]) / 100) * documents - 1e-9);
  else if (/^\d+$/.test(text)) n = Number(text);
  else if (/^0?\.\d+$|^1(\.0+)?$/.test(text)) n = Math.ceil(Number(text) * documents - 1e-9);
  else throw new UsageError(`--min-paired "${text}": expected a number of documents (10) or a share of this run's (90%)`, { hint: 'the default is 90%' });
  if (pct && Number(pct[1]) > 100) throw new UsageError(`--min-paired "${text}": a share above 100%`, { hint: 'the default is 90%' });
  return Math.max(1, n);
}

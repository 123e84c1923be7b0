import { createHash, randomBytes } from 'node:crypto';

/**
 * Identifier prefixes of the real service (service-facts.md); `bpr_`, `workflow_run_` and the
 * webhook prefixes are the sandbox's choice.
 */
export const ID_PREFIX = {
  processor: 'dp_',
  version: 'dpv_',
  run: 'dpr_',
  file: 'file_',
  evaluationSet: 'ev_',
  evaluationSetItem: 'evi_',
  workflow: 'workflow_',
  batch: 'batch_',
  batchProcessorRun: 'bpr_',
  workflowRun: 'workflow_run_',
  webhookEndpoint: 'whe_',
  webhookEvent: 'evt_',
  webhookDelivery: 'whd_',
  // A processor created through the 2026-02-09 routes (and its versions): one object, two routes.
  extractor: 'ex_',
  extractorVersion: 'exv_',
  classifier: 'cl_',
  classifierVersion: 'clv_',
  splitter: 'spl_',
  splitterVersion: 'splv_',
  // 2026-02-09 runs (spec 1.4): the same processor runs, minted under the run routes of that version.
  extractRun: 'exr_',
  classifyRun: 'clr_',
  splitRun: 'splr_',
  batchRun: 'bpr_',
  webhookSubscription: 'whes_',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Mints the ids of one sandbox: `dp_` + 20 base62 characters (~119 bits). */
export type IdSource = (kind: IdKind) => string;

function encode(kind: IdKind, bytes: Uint8Array): string {
  let out: string = ID_PREFIX[kind];
  for (let i = 0; i < 20; i++) out += ALPHABET[bytes[i] % 62];
  return out;
}

export const randomIds: IdSource = (kind) => encode(kind, randomBytes(20));

/**
 * The n-th id of a kind is a hash of (seed, kind, n): the same requests in the same order give
 * the same ids, so a scripted run (the demo, a test) is reproducible byte for byte. Only for a
 * sandbox in memory: a restarted store would mint its ids again.
 */
export function seededIds(seed: string): IdSource {
  const counts = new Map<IdKind, number>();
  return (kind) => {
    const n = counts.get(kind) ?? 0;
    counts.set(kind, n + 1);
    return encode(kind, createHash('sha256').update(`${seed}:${kind}:${n}`).digest());
  };
}

/**
 * Ids the sandbox accepts anywhere (path or body): letters, digits, `_` and `-`, at most 128
 * characters. A well-formed id that does not exist is a 404; a malformed one is a 400, so a
 * typo like a pasted URL or quotes is reported as such instead of "not found".
 */
const ID_RE = /^[A-Za-z0-9_-]{1,128}$/;

export function isValidId(id: string): boolean {
  return ID_RE.test(id);
}

/**
 * Timestamps are strictly increasing within a process, so sorting by createdAt/updatedAt is a
 * total order (two runs finishing in the same millisecond still sort in completion order).
 */
let last = 0;
export function nowIso(): string {
  let t = Date.now();
  if (t <= last) t = last + 1;
  last = t;
  return new Date(t).toISOString();
}

/** Seed the clock from persisted data so timestamps stay increasing across restarts. */
export function advanceClockTo(iso: string | undefined | null): void {
  if (!iso) return;
  const t = Date.parse(iso);
  if (Number.isFinite(t) && t > last) last = t;
}

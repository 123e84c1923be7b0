import { randomBytes } from 'node:crypto';

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
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `dp_` + 20 base62 characters (~119 bits). */
export function newId(kind: IdKind): string {
  const bytes = randomBytes(20);
  let out: string = ID_PREFIX[kind];
  for (let i = 0; i < 20; i++) out += ALPHABET[bytes[i] % 62];
  return out;
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

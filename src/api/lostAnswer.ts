/**
 * After a request that is not idempotent lost its answer (ApiError `outcomeUnknown`), the caller
 * reads the state back instead of sending it again blindly: these are the two steps every such
 * caller shares (a pause, so a service still finishing the work shows it; and the error that
 * says what may have happened when the state does not tell).
 */
import { backoffMs } from '../util/backoff.js';
import { EvalkitError } from '../util/errors.js';
import type { Client } from './client.js';
import type { ApiError } from './errors.js';

/** The client's backoff for the attempt-th read-back (1-based). */
export async function pauseBeforeReadBack(client: Client, attempt: number, signal?: AbortSignal): Promise<void> {
  const o = client.options;
  await o.clock.sleep(backoffMs(attempt - 1, { baseMs: o.retryBaseMs, capMs: o.retryMaxDelayMs, jitter: 'full' }, o.random), signal);
}

/** Exit 2: the request, that its answer was lost, what may have happened (`what`) and what to check (`hint`). */
export function lostAnswerError(e: ApiError, what: string, hint: string): EvalkitError {
  return new EvalkitError(`${e.method} ${e.path}: the answer was lost (${e.kind === 'http' ? `HTTP ${e.status}` : e.kind}); ${what}`, { exitCode: 2, hint, cause: e });
}

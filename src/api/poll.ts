import { ApiError } from './errors.js';
import type { Clock } from './http.js';
import { backoffMs } from '../util/backoff.js';

export interface WaitOptions<T> {
  /** Overall time to wait for a terminal status; default 10 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called after every poll with the latest state (progress display). */
  onPoll?: (value: T, poll: number) => void;
  /** First pause between polls; default 500 ms. */
  intervalMs?: number;
  /** Pauses grow by half each poll up to this; default 5 s. */
  maxIntervalMs?: number;
}

export interface PollSpec<T> {
  get: () => Promise<T>;
  done: (value: T) => boolean;
  /** For the timeout error: what is being waited for and its current state. */
  describe: (value: T) => string;
  method: string;
  path: string;
  clock: Clock;
  random: () => number;
}

/**
 * Polls until `done`, with growing pauses (jittered by up to 20% so many waiters do not poll
 * in lockstep) and an overall deadline. The last poll happens at the deadline itself.
 */
export async function pollUntil<T>(spec: PollSpec<T>, opts: WaitOptions<T> = {}): Promise<T> {
  const { clock } = spec;
  const timeoutMs = opts.timeoutMs ?? 600_000;
  const maxInterval = opts.maxIntervalMs ?? 5_000;
  const deadline = clock.now() + timeoutMs;
  const pauses = { baseMs: opts.intervalMs ?? 500, capMs: maxInterval, factor: 1.5, jitter: [0.8, 1] as const };
  for (let poll = 1; ; poll++) {
    if (opts.signal?.aborted) throw aborted(spec, poll - 1, opts.signal.reason);
    const value = await spec.get();
    opts.onPoll?.(value, poll);
    if (spec.done(value)) return value;
    const left = deadline - clock.now();
    if (left <= 0) {
      throw new ApiError(`${spec.describe(value)} after waiting ${Math.round(timeoutMs / 1000)} s`, {
        kind: 'timeout',
        method: spec.method,
        path: spec.path,
        retryable: true,
        attempts: poll,
        hint: 'it is still running on the service; wait longer (raise the timeout) or check it again later',
      });
    }
    const pause = Math.min(left, backoffMs(poll - 1, pauses, spec.random));
    try {
      await clock.sleep(pause, opts.signal);
    } catch (e) {
      throw aborted(spec, poll, e);
    }
  }
}

function aborted(spec: { method: string; path: string }, polls: number, cause: unknown): ApiError {
  return new ApiError(`${spec.method} ${spec.path}: waiting aborted`, { kind: 'aborted', method: spec.method, path: spec.path, attempts: polls, cause });
}

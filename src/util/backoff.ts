/**
 * The one backoff formula: the client's retries, polling for a run, and the sandbox's webhook
 * redeliveries all wait `min(cap, base * factor^step)`, jittered, for their step-th wait.
 */
export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
  /** Growth per step (default 2). */
  factor?: number;
  /**
   * `full`: uniform in [0, ceiling) (AWS "full jitter", for retries of many clients at once);
   * `[lo, hi]`: uniform in [lo, hi] times the ceiling (for pauses that must keep their size).
   */
  jitter: 'full' | readonly [number, number];
}

/** Milliseconds to wait before the step-th retry or poll (0-based). */
export function backoffMs(step: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * (policy.factor ?? 2) ** step);
  if (policy.jitter === 'full') return Math.floor(random() * ceiling);
  const [lo, hi] = policy.jitter;
  return Math.round(ceiling * (lo + (hi - lo) * random()));
}

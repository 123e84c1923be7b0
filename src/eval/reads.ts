/**
 * Many GETs of one kind (the items of a set, the item runs of an evaluation), `width` at a time.
 * The client retries a 429 after its Retry-After (every request of the client waits at its gate);
 * a read that still ends 429 (the retries ran out while the others kept the limit busy) is read
 * again, later, and the reads go on at half the width (down to one at a time), so a modest rate
 * limit slows the reads down instead of failing the command.
 */
import { isApiError } from '../api/index.js';

/** How many times one read is put back after a 429 (each time after the service's Retry-After). */
const MAX_REQUEUES = 8;

function rateLimited(e: unknown): boolean {
  return isApiError(e) && e.kind === 'http' && e.status === 429;
}

export async function readEach<T, R>(inputs: readonly T[], width: number, read: (x: T) => Promise<R>, signal?: AbortSignal): Promise<R[]> {
  const out = new Array<R>(inputs.length);
  // The next input by position, and those put back after a 429 first (no shift(): sets run to tens of thousands of items).
  let next = 0;
  const again: number[] = [];
  const take = (): number | undefined => (again.length ? again.pop() : next < inputs.length ? next++ : undefined);
  const requeued = new Array<number>(inputs.length).fill(0);
  let allowed = Math.max(1, Math.floor(width));
  let running = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    running++;
    try {
      while (!failed && running <= allowed) {
        const i = take();
        if (i === undefined) return;
        try {
          out[i] = await read(inputs[i]);
        } catch (e) {
          if (!rateLimited(e) || ++requeued[i] > MAX_REQUEUES || signal?.aborted) {
            failed = true;
            throw e;
          }
          allowed = Math.max(1, Math.floor(allowed / 2));
          again.push(i);
        }
      }
    } finally {
      running--;
    }
  };
  await Promise.all(Array.from({ length: Math.min(allowed, inputs.length) }, worker));
  return out;
}

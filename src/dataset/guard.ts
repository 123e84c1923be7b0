/**
 * A fetch wrapper under the API client, for the upload only:
 *
 * - Creating requests (file upload, item create) whose outcome is unknown (no answer, a
 *   timeout, a 5xx) are not retried blindly: a retry after a lost answer would create the
 *   item twice. They come back as a 409 marked UNCERTAIN, which the client does not retry; the
 *   upload then asks the service what exists (reconciliation) and creates only what is missing.
 *   429 passes through untouched: the service refused the request, so the client's retry and
 *   shared 429 gate handle it.
 * - Optional pacing (--max-rps): requests leave at most that often, so a known rate limit is
 *   met without paying the 429 pauses.
 * - Counts requests and 429s for the tally and the benchmark.
 */
import type { FetchLike } from '../api/index.js';

export const UNCERTAIN = 'evalkit: outcome unknown';

export interface RequestStats {
  requests: number;
  rateLimited: number;
  uncertain: number;
}

export interface GuardOptions {
  /** Requests per second at most (client side); 0 or undefined: no pacing. */
  maxRps?: number;
  /** Which requests create something (their lost answers must not be retried blindly). */
  creates?: (method: string, url: string) => boolean;
}

// 2025-04-21 `/evaluation_set_items(/bulk)`; 2026-02-09 nests the item create under its set
// (`/evaluation_sets/{id}/items`; an item's own path is its idempotent update, not a create).
const CREATE_PATHS = /\/(files\/upload|evaluation_set_items(\/bulk)?|evaluation_sets|evaluation_sets\/[^/?]+\/items)(\?|$)/;

export function isCreateRequest(method: string, url: string): boolean {
  return method === 'POST' && CREATE_PATHS.test(url);
}

export function guardFetch(inner: FetchLike, opts: GuardOptions = {}): { fetch: FetchLike; stats: RequestStats } {
  const stats: RequestStats = { requests: 0, rateLimited: 0, uncertain: 0 };
  const creates = opts.creates ?? isCreateRequest;
  const interval = opts.maxRps && opts.maxRps > 0 ? 1000 / opts.maxRps : 0;
  let next = 0;

  async function pace(signal: AbortSignal | null | undefined): Promise<void> {
    if (interval === 0) return;
    const now = performance.now();
    const at = Math.max(now, next);
    next = at + interval;
    const wait = at - now;
    if (wait >= 1) {
      await new Promise<void>((resolve) => {
        const onAbort = (): void => {
          clearTimeout(t);
          resolve();
        };
        const t = setTimeout(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, wait);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  function uncertain(why: string): Response {
    stats.uncertain++;
    return new Response(JSON.stringify({ success: false, error: `${UNCERTAIN} (${why})` }), { status: 409, headers: { 'content-type': 'application/json' } });
  }

  const fetch: FetchLike = async (url, init) => {
    await pace(init.signal);
    stats.requests++;
    const method = (init.method ?? 'GET').toUpperCase();
    if (!creates(method, url)) {
      const res = await inner(url, init);
      if (res.status === 429) stats.rateLimited++;
      return res;
    }
    let res: Response;
    try {
      res = await inner(url, init);
    } catch (e) {
      return uncertain(e instanceof Error ? e.name === 'AbortError' || e.name === 'TimeoutError' ? 'no answer in time or aborted' : e.message : String(e));
    }
    if (res.status === 429) stats.rateLimited++;
    if (res.status >= 500) {
      await res.body?.cancel().catch(() => undefined);
      return uncertain(`HTTP ${res.status}`);
    }
    return res;
  };
  return { fetch, stats };
}

export function isUncertain(e: unknown): boolean {
  return e instanceof Error && 'serviceError' in e && typeof (e as { serviceError?: unknown }).serviceError === 'string' && ((e as { serviceError: string }).serviceError).startsWith(UNCERTAIN);
}

import { EvalkitError } from '../util/errors.js';
import type { Page } from './model.js';

/** Fetches one page; `pageToken` is undefined for the first page. */
export type PageFetcher<T> = (pageToken: string | undefined) => Promise<Page<T>>;

export interface PaginateOptions {
  signal?: AbortSignal;
  /** Stop after this many items (the last page is not fetched past it). */
  limit?: number;
}

/**
 * Iterates every item of a list endpoint, following `nextPageToken` until the service stops
 * sending one. Pages are fetched lazily, one at a time, so breaking out of the loop stops paging.
 *
 *   for await (const p of paginate((t) => client.processors.list({ nextPageToken: t }))) ...
 */
export async function* paginate<T>(fetchPage: PageFetcher<T>, opts: PaginateOptions = {}): AsyncGenerator<T, void, undefined> {
  const limit = opts.limit ?? Infinity;
  const seen = new Set<string>();
  let token: string | undefined;
  let count = 0;
  for (;;) {
    opts.signal?.throwIfAborted();
    const page = await fetchPage(token);
    for (const item of page.items) {
      if (count >= limit) return;
      count++;
      yield item;
    }
    const next = page.nextPageToken;
    if (next === null || next === undefined || next === '' || count >= limit) return;
    // A service that hands back a token it already gave would loop forever.
    if (seen.has(next)) throw new EvalkitError(`paging did not advance: the service returned page token "${next}" twice`, {
        hint: 'the service is misbehaving; report it, or narrow the list with filters',
      });
    seen.add(next);
    token = next;
  }
}

/** Collects every item into an array (for small lists). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

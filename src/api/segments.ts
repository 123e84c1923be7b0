import { UsageError } from '../util/errors.js';
import type { Page } from './model.js';

/** Encodes one path segment; an empty id would silently address the list route instead. */
export function seg(id: string, what: string): string {
  if (typeof id !== 'string' || id === '') throw new UsageError(`${what} must be a non-empty string`);
  return encodeURIComponent(id);
}

export function page<T>(items: T[], nextPageToken: string | null | undefined): Page<T> {
  return { items, nextPageToken: nextPageToken ?? null };
}

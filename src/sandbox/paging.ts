import { badRequest } from './http.js';

/**
 * Paging everywhere (service-facts.md): `maxPageSize` and `nextPageToken` in, `nextPageToken`
 * out (null on the last page). The page size is not published: the sandbox uses 100 by default
 * and accepts 1 to 1000. Tokens are opaque keyset cursors (sort value + row sequence), so pages
 * stay exact while runs are being created, and a token only fits the sort it came from.
 */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export interface PageParams {
  limit: number;
  sortBy: string;
  sortCol: string;
  dir: 'asc' | 'desc';
  after?: { value: string | number; seq: number };
}

export function pageParams(q: URLSearchParams, sorts: Record<string, string>, defaultSort: string, defaultDir: 'asc' | 'desc'): PageParams {
  const sizeText = q.get('maxPageSize');
  let limit = DEFAULT_PAGE_SIZE;
  if (sizeText !== null && sizeText !== '') {
    limit = Number(sizeText);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) throw badRequest(`maxPageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  const sortBy = q.get('sortBy') || defaultSort;
  // The query is the user's: `constructor` and `__proto__` are not sort keys.
  if (!Object.hasOwn(sorts, sortBy)) throw badRequest(`sortBy must be one of ${Object.keys(sorts).join(', ')}`);
  const dirText = q.get('sortDir') || defaultDir;
  if (dirText !== 'asc' && dirText !== 'desc') throw badRequest('sortDir must be asc or desc');
  const p: PageParams = { limit, sortBy, sortCol: sorts[sortBy], dir: dirText };
  const token = q.get('nextPageToken');
  if (token) p.after = decodeToken(token, sortBy, dirText);
  return p;
}

function decodeToken(token: string, sortBy: string, dir: string): { value: string | number; seq: number } {
  let t: unknown;
  try {
    t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('nextPageToken is not a token this sandbox issued');
  }
  if (!Array.isArray(t) || t.length !== 4 || typeof t[3] !== 'number' || (typeof t[2] !== 'string' && typeof t[2] !== 'number')) {
    throw badRequest('nextPageToken is not a token this sandbox issued');
  }
  if (t[0] !== sortBy || t[1] !== dir) throw badRequest('nextPageToken belongs to another sortBy/sortDir; repeat the query with the parameters of the first page');
  return { value: t[2], seq: t[3] };
}

/** Call with `limit + 1` rows fetched: trims and returns the token for the next page. */
export function pageOf<T extends { seq: number }>(rows: T[], p: PageParams, sortValue: (row: T) => string | number): { rows: T[]; nextPageToken: string | null } {
  if (rows.length <= p.limit) return { rows, nextPageToken: null };
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  const token = Buffer.from(JSON.stringify([p.sortBy, p.dir, sortValue(last), last.seq])).toString('base64url');
  return { rows: page, nextPageToken: token };
}

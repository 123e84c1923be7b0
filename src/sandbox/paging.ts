import { createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest, type Req } from './http.js';

/**
 * Paging everywhere (service-facts.md): `maxPageSize` and `nextPageToken` in, `nextPageToken`
 * out (null on the last page). The page size is not published: the sandbox uses 100 by default
 * and accepts 1 to 1000. Tokens are opaque keyset cursors (sort value + row sequence), so pages
 * stay exact while runs are being created. A token is signed with the sandbox's secret (kept in
 * the store, so tokens outlive a restart) and tied to the list it came from: its path and its
 * filters (every query parameter but the token, the page size and the sort, which the token holds
 * itself). A forged or altered token, or one from another list, is a 400, as the service's is.
 */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export interface PageParams {
  limit: number;
  sortBy: string;
  sortCol: string;
  dir: 'asc' | 'desc';
  after?: { value: string | number; seq: number };
  /** Signs the next page's token: the secret and the list's tag (see listTag). */
  signer: { secret: string; tag: string };
}

/** Query parameters that may change from page to page of one list. */
const PAGE_PARAMS = new Set(['nextPageToken', 'maxPageSize', 'sortBy', 'sortDir']);

/** A short tag of the list a request reads: its path and its filters, in a fixed order. */
function listTag(req: Pick<Req, 'path' | 'query'>, secret: string): string {
  const filters = [...req.query].filter(([k]) => !PAGE_PARAMS.has(k)).sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return mac(secret, `list\n${req.path}\n${JSON.stringify(filters)}`).slice(0, 12);
}

function mac(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('base64url');
}

export function pageParams(req: Pick<Req, 'path' | 'query'>, secret: string, sorts: Record<string, string>, defaultSort: string, defaultDir: 'asc' | 'desc'): PageParams {
  const q = req.query;
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
  const p: PageParams = { limit, sortBy, sortCol: sorts[sortBy], dir: dirText, signer: { secret, tag: listTag(req, secret) } };
  const token = q.get('nextPageToken');
  if (token) p.after = decodeToken(token, p);
  return p;
}

const NOT_OURS = 'nextPageToken is not a token this sandbox issued (altered, or from another sandbox store); repeat the query without it for the first page';

function decodeToken(token: string, p: PageParams): { value: string | number; seq: number } {
  const dot = token.indexOf('.');
  const body = dot < 0 ? '' : token.slice(0, dot);
  const sig = Buffer.from(token.slice(dot + 1));
  const want = Buffer.from(mac(p.signer.secret, body));
  if (dot < 0 || sig.length !== want.length || !timingSafeEqual(sig, want)) throw badRequest(NOT_OURS);
  let t: unknown;
  try {
    t = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw badRequest(NOT_OURS);
  }
  if (!Array.isArray(t) || t.length !== 5 || typeof t[3] !== 'number' || (typeof t[2] !== 'string' && typeof t[2] !== 'number')) throw badRequest(NOT_OURS);
  if (t[4] !== p.signer.tag) throw badRequest('nextPageToken belongs to another list (another path or other filters); repeat the query with the parameters of the first page');
  if (t[0] !== p.sortBy || t[1] !== p.dir) throw badRequest('nextPageToken belongs to another sortBy/sortDir; repeat the query with the parameters of the first page');
  return { value: t[2], seq: t[3] };
}

/** Call with `limit + 1` rows fetched: trims and returns the token for the next page. */
export function pageOf<T extends { seq: number }>(rows: T[], p: PageParams, sortValue: (row: T) => string | number): { rows: T[]; nextPageToken: string | null } {
  if (rows.length <= p.limit) return { rows, nextPageToken: null };
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  const body = Buffer.from(JSON.stringify([p.sortBy, p.dir, sortValue(last), last.seq, p.signer.tag])).toString('base64url');
  const token = `${body}.${mac(p.signer.secret, body)}`;
  return { rows: page, nextPageToken: token };
}

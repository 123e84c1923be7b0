/**
 * The edge of API version 2026-02-09 (api-2026-02-09.md sections 1 and 7): what every route of
 * the `current` family shares. The core below it (store, engine, configs in the 2025-04-21 hub
 * layout) is one for every version; a 2026-02-09 route parses its request into a core operation
 * and renders the result with these helpers, the way a 2025-04-21 route renders `{success, ...}`.
 *
 * - Answers: a bare object, a list `{object: "list", data, nextPageToken?}` (absent on the last
 *   page), a deletion `{id}`.
 * - Errors: `ApiError {code, message, retryable, requestId}` (server.ts renders every HttpError
 *   of a current-family request with `apiErrorBody`).
 * - Configs: stored in the hub layout (2025-04-21, `type` inside); the members only 2026-02-09 has
 *   (`citationMode`, `memoryEnabled`, `identifierKey`, `parseConfig.engine`...) are kept beside it
 *   under `EXTRAS` as [pointer in the 2026-02-09 layout, value] pairs, so a config sent to
 *   `/extractors` comes back member for member, and the legacy routes never show them.
 */
import { randomBytes } from 'node:crypto';
import type { TokenRecord } from './auth.js';
import type { Ctx } from './context.js';
import type { Json, ProcessorType } from './core.js';
import type { FileRow } from './store.js';

// ---------------------------------------------------------------------------------------------
// Answers

export interface ListAnswer<T> {
  object: 'list';
  data: T[];
  nextPageToken?: string;
}

/** `nextPageToken` is left out (not null) on the last page (spec 1.3). */
export function listAnswer<T>(data: T[], nextPageToken: string | null | undefined): ListAnswer<T> {
  return nextPageToken ? { object: 'list', data, nextPageToken } : { object: 'list', data };
}

export function deletedAnswer(id: string): { id: string } {
  return { id };
}

/** `CreatedBy` of spec 7: the sandbox's callers are API tokens, named as in the tokens file. */
export function createdBy(token: TokenRecord): { type: 'api_key'; name: string } {
  return { type: 'api_key', name: token.name };
}

/** `FileSummary` of spec 7. */
export function fileSummary(f: FileRow): Json {
  const metadata: Json = f.metadata ? (JSON.parse(f.metadata) as Json) : {};
  if (metadata.pageCount === undefined && f.num_pages) metadata.pageCount = f.num_pages;
  return { object: 'file', id: f.id, name: f.name, type: f.type, parentFileId: f.parent_file_id, metadata, createdAt: f.created_at, updatedAt: f.updated_at };
}

// ---------------------------------------------------------------------------------------------
// Errors

/**
 * `ApiError.code` per status. The docs name INVALID_REQUEST, UNAUTHORIZED, NOT_FOUND,
 * RATE_LIMIT_EXCEEDED and USAGE_BLOCKED (spec 1.2, list incomplete); the others are the sandbox's,
 * in the same style. `retryable` is true where retrying the same request may succeed.
 */
const CODES: Record<number, [string, boolean]> = {
  400: ['INVALID_REQUEST', false],
  401: ['UNAUTHORIZED', false],
  402: ['USAGE_BLOCKED', false],
  403: ['FORBIDDEN', false],
  404: ['NOT_FOUND', false],
  405: ['METHOD_NOT_ALLOWED', false],
  409: ['CONFLICT', false],
  413: ['PAYLOAD_TOO_LARGE', false],
  422: ['UNPROCESSABLE_ENTITY', false],
  429: ['RATE_LIMIT_EXCEEDED', true],
  500: ['INTERNAL_ERROR', true],
  501: ['NOT_IMPLEMENTED', false],
  502: ['BAD_GATEWAY', true],
  503: ['SERVICE_UNAVAILABLE', true],
  504: ['GATEWAY_TIMEOUT', true],
};

export function errorCode(status: number): { code: string; retryable: boolean } {
  const known = CODES[status];
  if (known) return { code: known[0], retryable: known[1] };
  return { code: status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST', retryable: status >= 500 };
}

/** `req_` and 24 random characters, like the docs' examples. */
export function requestId(): string {
  return `req_${randomBytes(18).toString('base64url')}`;
}

export function apiErrorBody(status: number, message: string, code?: string): string {
  const c = errorCode(status);
  return JSON.stringify({ code: code ?? c.code, message, retryable: c.retryable, requestId: requestId() });
}

// ---------------------------------------------------------------------------------------------
// Configs

/** The member of a stored config that keeps its 2026-02-09-only members (see the module comment). */
export const EXTRAS = '@2026-02-09';

type Extras = Array<[string, unknown]>;

/** A stored config as the legacy routes (and the engine) see it: the hub layout, nothing more. */
export function legacyConfig(stored: Json): Json {
  if (!Object.hasOwn(stored, EXTRAS)) return stored;
  const out: Json = { ...stored };
  delete out[EXTRAS];
  return out;
}

/** Splices text of a stored document: true when its configs may carry 2026-02-09 members. */
export function mayHaveExtras(text: string): boolean {
  return text.includes(`"${EXTRAS}"`);
}

/**
 * A config from a 2026-02-09 request (no `type`, `parseConfig`...) -> the stored form: the hub
 * layout (migrated down the chain, defaults to be filled in by the caller) plus its 2026-only members.
 * Throws a 400 (via the core) for a config that is not in the 2026-02-09 layout; messages point
 * into the request body at `at` (`/config`, `/extractor/overrideConfig`). With `base` (a stored
 * config in the 2026-02-09 layout), `config`'s top-level members replace base's (core.fromCurrent).
 */
export function storedFromCurrent(ctx: Ctx, config: Json, type: ProcessorType, at = '/config', base?: Json): Json {
  const { hub, extras } = ctx.core.fromCurrent(config, type, at, base);
  return extras.length ? { ...hub, [EXTRAS]: extras } : hub;
}

/** A stored config -> the 2026-02-09 layout (`ExtractConfig`, `ClassifyConfig`, `SplitConfig`). */
export function currentFromStored(ctx: Ctx, stored: Json, type: ProcessorType): Json {
  const extras = (stored[EXTRAS] as Extras | undefined) ?? [];
  const out = ctx.core.toCurrent(legacyConfig(stored), type);
  for (const [pointer, value] of extras) setPointer(out, pointer, value);
  return out;
}

/** Sets `value` at an RFC 6901 pointer, creating the objects on the way (arrays must exist). */
function setPointer(doc: Json, pointer: string, value: unknown): void {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let at: Record<string, unknown> | unknown[] = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const key = parts[i];
    const next: unknown = Array.isArray(at) ? at[Number(key)] : at[key];
    if (next === undefined || next === null || typeof next !== 'object') {
      if (Array.isArray(at)) return; // the array item is gone: nothing to put the member in
      const created: Json = {};
      at[key] = created;
      at = created;
    } else at = next as Record<string, unknown> | unknown[];
  }
  const last = parts[parts.length - 1];
  if (Array.isArray(at)) at[Number(last)] = value;
  else at[last] = value;
}

import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { ApiVersion, Family } from './versioning.js';
import type { Layout } from './core.js';
import type { TokenRecord } from './auth.js';
import { isValidId } from './ids.js';
import { isPlainObject } from '../util/json.js';

/**
 * An error answered as `{success: false, error}` with its status (part 7), or, to a 2026-02-09
 * caller, as `ApiError {code, message, retryable, requestId}` (current.ts; `code` overrides the
 * status's default code).
 */
export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly code: string | undefined;
  constructor(status: number, message: string, headers: Record<string, string> = {}, code?: string) {
    super(message);
    this.status = status;
    this.headers = headers;
    this.code = code;
  }
}

export const badRequest = (msg: string): HttpError => new HttpError(400, msg);
export const notFound = (msg: string): HttpError => new HttpError(404, msg);
export const forbidden = (msg: string): HttpError => new HttpError(403, msg);

/** A response body serialised ahead of time (hot GET paths splice stored JSON). */
export class RawJson {
  constructor(readonly text: string, readonly status = 200) {}
}

/** Raw bytes (presigned file downloads). */
export class BinaryBody {
  constructor(readonly bytes: Buffer, readonly mime: string, readonly name: string) {}
}

export interface Reply {
  status: number;
  body: unknown;
}

export type HandlerResult = RawJson | BinaryBody | Reply | Record<string, unknown>;

/** What a route handler receives. */
export interface Req {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  token: TokenRecord;
  version: ApiVersion;
  /** `current` when 2026-02-09 is in effect (bare answers, ApiError bodies; current.ts). */
  family: Family;
  /** Config/output layout of the caller's API version (the legacy routes'). */
  layout: Layout;
  /** Parsed JSON body ({} when empty); only for routes declared with body 'json'. */
  body: unknown;
  /** Raw body bytes; only for routes declared with body 'raw'. */
  rawBody: Buffer | undefined;
  raw: IncomingMessage;
}

// ---------------------------------------------------------------------------------------------
// Small validators for request bodies. Messages name the member the way a caller wrote it.

export function objectBody(body: unknown, what = 'request body'): Record<string, unknown> {
  if (!isPlainObject(body)) throw badRequest(`${what} must be a JSON object`);
  return body;
}

export function reqString(o: Record<string, unknown>, key: string, prefix = ''): string {
  const v = o[key];
  if (v === undefined || v === null) throw badRequest(`${prefix}${key} is required`);
  if (typeof v !== 'string' || v.trim() === '') throw badRequest(`${prefix}${key} must be a non-empty string`);
  return v;
}

export function optString(o: Record<string, unknown>, key: string, prefix = ''): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw badRequest(`${prefix}${key} must be a string`);
  return v;
}

export function optBool(o: Record<string, unknown>, key: string, prefix = ''): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw badRequest(`${prefix}${key} must be a boolean`);
  return v;
}

export function optObject(o: Record<string, unknown>, key: string, prefix = ''): Record<string, unknown> | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) throw badRequest(`${prefix}${key} must be an object`);
  return v;
}

export function optStringArray(o: Record<string, unknown>, key: string, prefix = ''): string[] | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw badRequest(`${prefix}${key} must be an array of strings`);
  return v as string[];
}

/** An id from the body or path: 400 when malformed (a well-formed unknown id is the caller's 404). */
export function checkId(id: string, what: string): string {
  if (!isValidId(id)) throw badRequest(`${what} "${clip(id)}" is not a valid id (letters, digits, "_" and "-", at most 128)`);
  return id;
}

export function reqId(o: Record<string, unknown>, key: string, prefix = ''): string {
  return checkId(reqString(o, key, prefix), `${prefix}${key}`);
}

export function clip(s: string, n = 60): string {
  return s.length > n ? s.slice(0, n) + '...' : s;
}

/** `?flag`, `?flag=true|1` -> true; `false|0` -> false; absent -> false; anything else 400. */
export function queryFlag(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null || v === 'false' || v === '0') return false;
  if (v === '' || v === 'true' || v === '1') return true;
  throw badRequest(`query parameter ${name} must be true or false`);
}

export function queryEnum<T extends string>(q: URLSearchParams, name: string, values: readonly T[]): T | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!(values as readonly string[]).includes(v)) throw badRequest(`query parameter ${name} must be one of ${values.join(', ')}`);
  return v as T;
}

export function queryId(q: URLSearchParams, name: string): string | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  return checkId(v, `query parameter ${name}`);
}

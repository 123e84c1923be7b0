import type { z } from 'zod';
import { EvalkitError } from '../util/errors.js';
import { toPointer } from '../util/json.js';
import { apiErrorBodySchema, type ApiErrorBody } from './model-2026-02-09.js';

/**
 * What went wrong with one API call:
 * - `http`: the service answered with a non-2xx status;
 * - `network`: no answer (connection refused or reset, DNS...);
 * - `timeout`: no answer within the per-call timeout, or a run did not finish within waitFor's timeout;
 * - `aborted`: the caller's AbortSignal fired;
 * - `invalid-response`: a 2xx answer that is not JSON or does not match the resource model.
 */
export type ApiErrorKind = 'http' | 'network' | 'timeout' | 'aborted' | 'invalid-response';

export interface ApiErrorInit {
  kind: ApiErrorKind;
  method: string;
  /** Path and query relative to the base URL; never the base URL (it may carry credentials). */
  path: string;
  status?: number | null;
  serviceError?: string;
  /** The `code` of a 2026-02-09 `ApiError` body (INVALID_REQUEST, NOT_FOUND, RATE_LIMIT_EXCEEDED...). */
  code?: string;
  /** The `requestId` of a 2026-02-09 `ApiError` body: quote it to the service's support. */
  requestId?: string;
  retryable?: boolean;
  attempts?: number;
  hint?: string;
  cause?: unknown;
  /** Only for invalid-response: one line per zod issue. */
  issues?: string[];
  /** The request is not idempotent and failed in a way that does not prove it was not carried out. */
  outcomeUnknown?: boolean;
}

/**
 * The one error class of the client. It never holds request headers, so the token cannot
 * leak through `message`, `hint`, `cause` or a JSON dump of the error.
 */
export class ApiError extends EvalkitError {
  readonly kind: ApiErrorKind;
  /** HTTP status, or null when there was no answer. */
  readonly status: number | null;
  /** The service's `error` text (part 7), when it sent one. */
  readonly serviceError: string | undefined;
  /** The service's error code (2026-02-09 `ApiError` bodies), when it sent one. */
  readonly code: string | undefined;
  /** The service's request id (2026-02-09 `ApiError` bodies), when it sent one. */
  readonly requestId: string | undefined;
  readonly method: string;
  readonly path: string;
  /** True for network errors, timeouts, 408, 429 and 5xx: trying again later may succeed. */
  readonly retryable: boolean;
  /** How many attempts were made (1 = no retry). */
  readonly attempts: number;
  readonly issues: string[];
  /**
   * True when a request that is not idempotent (a create, a publish) failed after it may have
   * been carried out (no answer, a timeout, a 5xx): it was not sent again, and the service may
   * or may not hold what it creates. Read the state back before sending it again.
   */
  readonly outcomeUnknown: boolean;

  constructor(message: string, init: ApiErrorInit) {
    super(message, { exitCode: 2, hint: init.hint, cause: init.cause });
    this.kind = init.kind;
    this.status = init.status ?? null;
    this.serviceError = init.serviceError;
    this.code = init.code;
    this.requestId = init.requestId;
    this.method = init.method;
    this.path = init.path;
    this.retryable = init.retryable ?? false;
    this.attempts = init.attempts ?? 1;
    this.issues = init.issues ?? [];
    this.outcomeUnknown = init.outcomeUnknown ?? false;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      message: this.message,
      status: this.status,
      serviceError: this.serviceError,
      code: this.code,
      requestId: this.requestId,
      method: this.method,
      path: this.path,
      retryable: this.retryable,
      attempts: this.attempts,
      outcomeUnknown: this.outcomeUnknown,
      hint: this.hint,
    };
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

/** 408, 429 and 5xx may succeed later; every other status will not. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'bad request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not found',
  408: 'request timeout',
  409: 'conflict',
  413: 'request body too large',
  429: 'rate limited',
  500: 'internal server error',
  502: 'bad gateway',
  503: 'service unavailable',
  504: 'gateway timeout',
};

/** What the user should check for a given status. */
function hintFor(status: number, path: string, versionHeader: string, serviceError: string | undefined): string | undefined {
  switch (status) {
    case 400: {
      // A service that wants the version under another header name: the name is the problem, not the value.
      const wanted = /missing header ([!#$%&'*+.^_`|~0-9A-Za-z-]+)/.exec(serviceError ?? '')?.[1]?.toLowerCase();
      if (wanted && wanted !== versionHeader) return `the service reads the API version from header ${wanted}, but it was sent in ${versionHeader}: set EVALKIT_VERSION_HEADER=${wanted}`;
      if (wanted) return `set EVALKIT_API_VERSION to the API version to send in ${versionHeader}`;
      return `fix the request the message names; if it mentions a version, set EVALKIT_API_VERSION (sent in ${versionHeader})`;
    }
    case 401:
      return 'check that EVALKIT_API_TOKEN holds a valid, unexpired token for this EVALKIT_BASE_URL';
    case 403:
      return 'the token is valid but may not use this resource: check that the token (and its workspace) has access to the processor or workflow; an API key scoped to an organization needs the workspace (EVALKIT_WORKSPACE_ID or --workspace-id)';
    case 404:
      return `check the id(s) in ${path.split('?')[0]}: the resource does not exist for this token and EVALKIT_BASE_URL`;
    case 408:
      return 'the service gave up waiting for the request; retry later';
    case 429:
      return 'the service asked to slow down (rate limit); retry later, or make fewer requests at once (--concurrency, where the command has it)';
    default:
      return status >= 500 ? 'the service failed; retry later' : undefined;
  }
}

/**
 * Builds the error for a non-2xx answer. `secrets` are removed from the service's text. A
 * 2026-02-09 `ApiError` body (`{code, message, retryable, requestId?}`) gives the message, code
 * and request id, and its `retryable` decides whether the call is tried again; any other body
 * (2025-04-21's `{success: false, error}`, text) gives the text, and the status decides.
 */
export function httpError(opts: {
  method: string;
  path: string;
  status: number;
  bodyText: string;
  attempts: number;
  versionHeader: string;
  secrets: readonly string[];
}): ApiError {
  const { method, path, status } = opts;
  const body = apiErrorBody(opts.bodyText);
  const serviceError = scrub(body ? body.message : extractServiceError(opts.bodyText), opts.secrets);
  const code = scrub(body?.code, opts.secrets);
  const requestId = scrub(body?.requestId, opts.secrets);
  const label = STATUS_TEXT[status] ?? 'error';
  const retried = opts.attempts > 1 ? ` (after ${opts.attempts} attempts)` : '';
  const said = serviceError ? `: ${code ? `${code}: ` : ''}${serviceError}` : code ? `: ${code}` : '';
  const message = `${method} ${path}: ${status} ${label}${said}${requestId ? ` (request ${requestId})` : ''}${retried}`;
  return new ApiError(message, {
    kind: 'http',
    method,
    path,
    status,
    serviceError,
    code,
    requestId,
    retryable: body ? body.retryable : isRetryableStatus(status),
    attempts: opts.attempts,
    hint: hintFor(status, path, opts.versionHeader, serviceError),
  });
}

/** The body as a 2026-02-09 `ApiError`, when it is one. */
function apiErrorBody(text: string): ApiErrorBody | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    const r = apiErrorBodySchema.safeParse(JSON.parse(text));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/** `{success: false, error}` per part 7; anything else: the start of the text. */
function extractServiceError(text: string): string | undefined {
  if (text === '') return undefined;
  try {
    const body: unknown = JSON.parse(text);
    if (body !== null && typeof body === 'object') {
      const e = (body as { error?: unknown; message?: unknown }).error ?? (body as { message?: unknown }).message;
      if (typeof e === 'string') return e;
      if (e !== undefined) return JSON.stringify(e).slice(0, 300);
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

/** Removes secrets (the token) from text that came from elsewhere, for example a service that echoes headers. */
export function scrub<T extends string | undefined>(text: T, secrets: readonly string[]): T {
  if (text === undefined) return text;
  let out: string = text;
  for (const s of secrets) if (s.length > 0 && out.includes(s)) out = out.split(s).join('***');
  return out as T;
}

/** One readable line per zod issue: `/processorRun/status: Invalid option ...`. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], limit = 5): string[] {
  const flat = flattenUnions(issues, []);
  const lines = flat.slice(0, limit).map((i) => `${toPointer(i.path) || '/'}: ${i.message}`);
  if (flat.length > limit) lines.push(`... and ${flat.length - limit} more`);
  return lines;
}

/** "Invalid input" at a union says nothing; report the issues of the branch that came closest. */
function flattenUnions(issues: readonly z.core.$ZodIssue[], prefix: Array<string | number>): Array<{ path: Array<string | number>; message: string }> {
  const out: Array<{ path: Array<string | number>; message: string }> = [];
  for (const i of issues) {
    const path = [...prefix, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    if (i.code === 'invalid_union' && i.errors.length > 0) {
      const closest = i.errors.reduce((a, b) => (b.length < a.length ? b : a));
      out.push(...flattenUnions(closest, path));
    } else out.push({ path, message: i.message });
  }
  return out;
}

export function invalidResponseError(opts: {
  method: string;
  path: string;
  status: number;
  what: string;
  issues?: string[];
  apiVersion: string;
  cause?: unknown;
}): ApiError {
  const issues = opts.issues ?? [];
  const detail = issues.length > 0 ? `: ${issues.join('; ')}` : '';
  return new ApiError(`${opts.method} ${opts.path}: ${opts.what}${detail}`, {
    kind: 'invalid-response',
    method: opts.method,
    path: opts.path,
    status: opts.status,
    retryable: false,
    issues,
    cause: opts.cause,
    hint: `the service answered in a shape evalkit does not expect; check EVALKIT_BASE_URL points at the service and EVALKIT_API_VERSION (${opts.apiVersion}) is a version evalkit supports`,
  });
}

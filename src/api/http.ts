/**
 * Transport: one function that sends a request with auth and version headers, retries what may
 * succeed later, honours Retry-After, pauses every request of the client while the service
 * rate-limits (the shared gate), and parses the answer with a prebuilt zod schema.
 *
 * The hot path (a GET that succeeds at once) does: one string concat for the URL, a seat in a
 * shared timeout group (no AbortController or timer of its own, see TimeoutGroups), fetch,
 * text(), JSON.parse, validate (zod, or once the schema is hot a compiled check without copies:
 * fastValidate.ts). Headers are built once per client; schemas once per process.
 */
import type { z } from 'zod';
import { ApiError, describeIssues, httpError, invalidResponseError, scrub } from './errors.js';
import { backoffMs } from '../util/backoff.js';
import { validate } from './fastValidate.js';

/** The workspace header of 2026-02-09 (spec 1.1). */
export const WORKSPACE_HEADER = 'x-extend-workspace-id';

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Time source and sleeper; tests inject fakes so nothing waits for real. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface RetryInfo {
  method: string;
  path: string;
  /** The attempt that failed (1-based). */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  status: number | null;
  reason: string;
}

export interface TransportOptions {
  baseUrl: string;
  token?: string;
  apiVersion: string;
  versionHeader: string;
  /** Sent as `x-extend-workspace-id` when set (spec 1.1: organization-scoped keys need it). */
  workspaceId?: string;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Per attempt, including reading the body. 0 disables. */
  timeoutMs: number;
  /** First backoff step; the n-th retry waits a random time in [0, min(cap, base * 2^n)). */
  retryBaseMs: number;
  retryMaxDelayMs: number;
  /** A Retry-After longer than this is not waited for; the call fails with a retryable error. */
  maxRetryAfterMs: number;
  userAgent: string;
  fetch: FetchLike;
  clock: Clock;
  random: () => number;
  onRetry?: (info: RetryInfo) => void;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout for this call. */
  timeoutMs?: number;
  /** Overrides the client's retry count for this call (0: one attempt only). */
  maxRetries?: number;
}

export interface RequestSpec<S extends z.ZodType> {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** Starts with '/'; ids already encoded. */
  path: string;
  query?: Record<string, string | number | boolean | null | undefined>;
  /** JSON body. */
  body?: unknown;
  /** Multipart body; fetch sets the content type with its boundary. */
  form?: FormData;
  /** A body already encoded, with its content type (a multipart body built in one buffer). */
  encoded?: { data: Uint8Array; contentType: string };
  /**
   * Whether sending the request twice does what sending it once does. Default: true for GET,
   * PUT and DELETE, false for POST. A request that is not idempotent is sent again only after a
   * failure that proves the service did not act on it (see provesNotActed); after any other
   * failure it throws an ApiError with `outcomeUnknown`, and the caller reads the state back.
   */
  idempotent?: boolean;
  /**
   * What a DELETE answers when it succeeded: parsed in place of the 404 that a DELETE sent again
   * after a lost answer gets. Default `{success: true}` (2025-04-21); 2026-02-09 answers `{id}`.
   */
  goneBody?: unknown;
  schema: S;
}

/** Connection errors raised before a byte of the request left: the service cannot have acted. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function causeCode(e: unknown): string | undefined {
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 4; c = (c as { cause?: unknown }).cause, depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return code;
  }
  return undefined;
}

/**
 * Failures after which the service has certainly not carried a request out: the connection was
 * never made, or it answered 429 (rate limited), 408 (it gave up waiting for the request) or
 * another 4xx (a refusal, retried only when a 2026-02-09 `ApiError` body says `retryable`), which
 * refuse a request before any work. A timeout, a reset connection or a 5xx prove nothing: the
 * work may be done and only its answer lost.
 */
export function provesNotActed(failure: { kind: string; cause: unknown } | undefined, status: number): boolean {
  if (failure !== undefined) return failure.kind === 'network' && causeCode(failure.cause) !== undefined;
  return status >= 400 && status < 500;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * Retry-After is either delta-seconds or an HTTP date (RFC 9110 10.2.3). Returns milliseconds
 * from now, or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (/^\d+\.\d+$/.test(v)) return Math.ceil(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** Full jitter (AWS architecture blog): uniform in [0, min(cap, base * 2^retry)); util/backoff's formula. */
export function backoffDelay(retry: number, baseMs: number, capMs: number, random: () => number): number {
  return backoffMs(retry, { baseMs, capMs, jitter: 'full' }, random);
}

export function buildQuery(query: RequestSpec<z.ZodType>['query']): string {
  if (query === undefined) return '';
  let out = '';
  for (const key in query) {
    const v = query[key];
    if (v === undefined || v === null) continue;
    out += `${out === '' ? '?' : '&'}${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`;
  }
  return out;
}

const TIMEOUT = Symbol('timeout');

/** Attempts per shared timeout group; undici walks a signal's listeners on each join. */
const GROUP_SIZE = 16;
/** How long a group takes new attempts: at most this, and at most a tenth of the timeout. */
const GROUP_WINDOW_MS = 100;

export interface TimeoutGroup {
  readonly signal: AbortSignal;
  readonly controller: AbortController;
  timer: ReturnType<typeof setTimeout> | undefined;
  readonly timeoutMs: number;
  readonly openUntil: number;
  joined: number;
  pending: number;
}

function abortForTimeout(controller: AbortController): void {
  controller.abort(TIMEOUT);
}

/**
 * Per-attempt timeouts without an AbortController and a timer per attempt. Handing fetch a
 * signal of its own costs undici a WeakRef, a finalizer and listener bookkeeping per request,
 * and the fresh controller (a transferable object) and timer cost more still: together about
 * a tenth of a GET's CPU time against the sandbox (bench/client.bench.mjs).
 *
 * Attempts that start within a window (GROUP_WINDOW_MS or a tenth of the timeout, whichever is
 * shorter; at most GROUP_SIZE of them) share one controller whose timer fires `timeoutMs +
 * window` after the group opened. Every attempt still running then has run at least timeoutMs,
 * so aborting them all is right; a timeout fires at most one window late, never early. The
 * timer is cleared when the group's last attempt ends, so finished work leaves no timer behind.
 * Attempts with a caller's signal keep a controller of their own (see request()).
 */
export class TimeoutGroups {
  private open: TimeoutGroup | undefined;
  constructor(private readonly now: () => number = () => performance.now()) {}

  join(timeoutMs: number): TimeoutGroup {
    let g = this.open;
    const now = this.now();
    if (g === undefined || g.timeoutMs !== timeoutMs || g.joined >= GROUP_SIZE || now >= g.openUntil || g.signal.aborted) {
      const window = Math.min(GROUP_WINDOW_MS, Math.ceil(timeoutMs / 10));
      const controller = new AbortController();
      g = { signal: controller.signal, controller, timer: undefined, timeoutMs, openUntil: now + window, joined: 0, pending: 0 };
      g.timer = setTimeout(abortForTimeout, timeoutMs + window, controller);
      this.open = g;
    }
    g.joined++;
    g.pending++;
    return g;
  }

  leave(g: TimeoutGroup): void {
    if (--g.pending !== 0) return;
    clearTimeout(g.timer);
    g.timer = undefined;
    if (this.open === g) this.open = undefined;
  }
}

/**
 * When any request gets 429, the gate closes until the service's Retry-After (or the backoff)
 * has passed; every request of the client waits at the gate before its next attempt, so
 * concurrent workers back off as one instead of each hammering the service.
 */
export class Gate {
  private openAt = 0;
  constructor(private readonly clock: Clock) {}

  closeFor(ms: number): void {
    const until = this.clock.now() + ms;
    if (until > this.openAt) this.openAt = until;
  }

  /** Undefined (no promise, no allocation) when the gate is open: the common case. */
  wait(signal?: AbortSignal): Promise<void> | undefined {
    if (this.openAt === 0 || this.clock.now() >= this.openAt) return undefined;
    return this.waitLoop(signal);
  }

  private async waitLoop(signal?: AbortSignal): Promise<void> {
    // The gate can be pushed further while we sleep; check again after each sleep.
    for (let left = this.openAt - this.clock.now(); left > 0; left = this.openAt - this.clock.now()) {
      await this.clock.sleep(left, signal);
    }
  }
}

export interface Transport {
  request<S extends z.ZodType>(spec: RequestSpec<S>, opts?: RequestOptions): Promise<z.infer<S>>;
  readonly gate: Gate;
  readonly options: Readonly<Omit<TransportOptions, 'token'>>;
}

export function createTransport(options: TransportOptions): Transport {
  const { token, ...publicOptions } = options;
  const { baseUrl, clock, versionHeader } = options;
  const secrets: readonly string[] = token ? [token] : [];
  const gate = new Gate(clock);
  const timeouts = new TimeoutGroups();

  // Built once: fetch copies them into its own Headers per request.
  const baseHeaders: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent };
  if (options.apiVersion) baseHeaders[versionHeader] = options.apiVersion;
  if (options.workspaceId) baseHeaders[WORKSPACE_HEADER] = options.workspaceId;
  if (token) baseHeaders.authorization = `Bearer ${token}`;
  const jsonHeaders: Record<string, string> = { ...baseHeaders, 'content-type': 'application/json' };

  function fail(method: string, path: string, kind: 'network' | 'timeout' | 'aborted', attempts: number, cause: unknown, timeoutMs: number): ApiError {
    if (kind === 'aborted') {
      return new ApiError(`${method} ${path}: aborted`, { kind, method, path, attempts, retryable: false, cause: scrubCause(cause, secrets) });
    }
    if (kind === 'timeout') {
      return new ApiError(`${method} ${path}: no answer within ${timeoutMs} ms${attempts > 1 ? ` (after ${attempts} attempts)` : ''}`, {
        kind, method, path, attempts, retryable: true,
        hint: 'the service is slow or unreachable; retry later or raise the timeout',
      });
    }
    const detail = describeNetworkError(cause, secrets);
    return new ApiError(`${method} ${path}: network error: ${detail}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}`, {
      kind, method, path, attempts, retryable: true, cause: scrubCause(cause, secrets),
      hint: 'check that EVALKIT_BASE_URL is right and the service is reachable',
    });
  }

  async function request<S extends z.ZodType>(spec: RequestSpec<S>, opts: RequestOptions = {}): Promise<z.infer<S>> {
    const { method, schema } = spec;
    const path = spec.query === undefined ? spec.path : spec.path + buildQuery(spec.query);
    const url = baseUrl + path;
    const userSignal = opts.signal;
    const timeoutMs = opts.timeoutMs ?? options.timeoutMs;
    const maxRetries = opts.maxRetries ?? options.maxRetries;
    const idempotent = spec.idempotent ?? method !== 'POST';
    let lostEarlier = false;
    let body: string | FormData | Uint8Array | undefined;
    let headers = baseHeaders;
    if (spec.form !== undefined) body = spec.form;
    else if (spec.encoded !== undefined) {
      body = spec.encoded.data;
      headers = { ...baseHeaders, 'content-type': spec.encoded.contentType };
    } else if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers = jsonHeaders;
    }

    for (let attempt = 1; ; attempt++) {
      const waiting = gate.wait(userSignal);
      if (waiting !== undefined) {
        try {
          await waiting;
        } catch (e) {
          throw fail(method, path, 'aborted', attempt - 1, e, timeoutMs);
        }
      }
      if (userSignal?.aborted) throw fail(method, path, 'aborted', attempt - 1, userSignal.reason, timeoutMs);

      // Without a caller's signal (the common case) the attempt joins a shared timeout group;
      // with one, it gets a controller of its own that either the timer or the caller aborts.
      let group: TimeoutGroup | undefined;
      let signal: AbortSignal | undefined;
      let controller: AbortController | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let onUserAbort: (() => void) | undefined;
      if (userSignal === undefined) {
        if (timeoutMs > 0) {
          group = timeouts.join(timeoutMs);
          signal = group.signal;
        }
      } else {
        const own = new AbortController();
        controller = own;
        signal = own.signal;
        if (timeoutMs > 0) timer = setTimeout(abortForTimeout, timeoutMs, own);
        onUserAbort = () => own.abort(userSignal.reason);
        userSignal.addEventListener('abort', onUserAbort, { once: true });
      }

      let status = 0;
      let text: string;
      let retryAfter: string | null = null;
      let failure: { kind: 'network' | 'timeout' | 'aborted'; cause: unknown } | undefined;
      try {
        const res = await options.fetch(url, { method, headers, body, signal });
        status = res.status;
        if (status >= 400) retryAfter = res.headers.get('retry-after');
        text = await res.text();
      } catch (e) {
        text = '';
        const timedOut = (group ?? controller)?.signal.reason === TIMEOUT;
        failure = { kind: timedOut ? 'timeout' : userSignal?.aborted ? 'aborted' : 'network', cause: e };
      } finally {
        if (group !== undefined) timeouts.leave(group);
        if (timer !== undefined) clearTimeout(timer);
        if (onUserAbort !== undefined) userSignal!.removeEventListener('abort', onUserAbort);
      }

      if (failure === undefined && status >= 200 && status < 300) return parseBody(method, path, status, text, schema);
      // A DELETE sent again after its answer was lost finds the resource gone: the first one did it.
      if (failure === undefined && status === 404 && method === 'DELETE' && lostEarlier) return parseBody(method, path, 200, JSON.stringify(spec.goneBody ?? { success: true }), schema);

      // Not a success: decide whether to try again, and when.
      if (failure?.kind === 'aborted') throw fail(method, path, 'aborted', attempt, failure.cause, timeoutMs);
      const error = failure
        ? fail(method, path, failure.kind, attempt, failure.cause, timeoutMs)
        : httpError({ method, path, status, bodyText: text, attempts: attempt, versionHeader, secrets });
      // The status decides, unless a 2026-02-09 ApiError body says otherwise (httpError).
      if (!error.retryable) throw error;
      if (!idempotent && !provesNotActed(failure, status)) throw outcomeUnknown(error);
      if (!provesNotActed(failure, status)) lostEarlier = true;

      let delay = backoffDelay(attempt - 1, options.retryBaseMs, options.retryMaxDelayMs, options.random);
      const asked = parseRetryAfter(retryAfter, clock.now());
      if (asked !== undefined) delay = asked;
      // The rate limit holds for every request of this client, also when this one gives up.
      if (status === 429) gate.closeFor(Math.min(delay, options.maxRetryAfterMs));
      if (attempt > maxRetries) throw error;
      if (asked !== undefined) {
        if (asked > options.maxRetryAfterMs) {
          throw new ApiError(`${error.message}; the service asked to wait ${Math.ceil(asked / 1000)} s, longer than the ${Math.ceil(options.maxRetryAfterMs / 1000)} s evalkit waits`, {
            kind: 'http', method, path, status, serviceError: error.serviceError, code: error.code, requestId: error.requestId, attempts: attempt, retryable: true, hint: error.hint,
          });
        }
      }
      options.onRetry?.({ method, path, attempt, delayMs: delay, status: failure ? null : status, reason: failure ? failure.kind : `HTTP ${status}` });
      if (status !== 429) {
        try {
          await clock.sleep(delay, userSignal);
        } catch (e) {
          throw fail(method, path, 'aborted', attempt, e, timeoutMs);
        }
      }
      // After a 429 the loop's gate.wait() does the waiting, together with every other request.
    }
  }

  /** The failure of a request that may have been carried out: never sent again blindly. */
  function outcomeUnknown(error: ApiError): ApiError {
    return new ApiError(`${error.message}; the service may have carried it out (its answer was lost), so it was not sent again`, {
      kind: error.kind, method: error.method, path: error.path, status: error.status, serviceError: error.serviceError, code: error.code, requestId: error.requestId, attempts: error.attempts,
      retryable: false, outcomeUnknown: true, cause: error.cause,
      hint: 'this request is not safe to repeat blindly: check what the service holds (list what it would have created) before sending it again',
    });
  }

  function parseBody<S extends z.ZodType>(method: string, path: string, status: number, text: string, schema: S): z.infer<S> {
    let json: unknown;
    try {
      json = text === '' ? {} : JSON.parse(text);
    } catch (e) {
      throw invalidResponseError({ method, path, status, what: `${status} response is not JSON`, apiVersion: options.apiVersion, cause: e });
    }
    const parsed = validate(schema, json);
    if (parsed.success) return parsed.data;
    const serviceError = (json as { success?: unknown; error?: unknown } | null);
    if (serviceError !== null && typeof serviceError === 'object' && serviceError.success === false && typeof serviceError.error === 'string') {
      throw new ApiError(`${method} ${path}: ${status} with success false: ${scrub(serviceError.error, secrets)}`, {
        kind: 'http', method, path, status, serviceError: scrub(serviceError.error, secrets), retryable: false,
      });
    }
    throw invalidResponseError({
      method, path, status, what: 'response does not match the resource model',
      issues: describeIssues(parsed.error.issues), apiVersion: options.apiVersion,
    });
  }

  return { request, gate, options: publicOptions };
}

function describeNetworkError(e: unknown, secrets: readonly string[]): string {
  if (!(e instanceof Error)) return scrub(String(e), secrets);
  // undici: TypeError('fetch failed') with the real reason (ECONNREFUSED...) as cause.
  const cause = (e as { cause?: unknown }).cause;
  const inner = cause instanceof Error ? `${(cause as { code?: string }).code ?? cause.name}: ${cause.message}` : undefined;
  return scrub(inner ? `${e.message} (${inner})` : e.message, secrets);
}

/** Keeps the cause chain for debugging but drops it when it mentions a secret. */
function scrubCause(cause: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return cause;
  try {
    const text = cause instanceof Error ? `${cause.message} ${String((cause as { cause?: unknown }).cause ?? '')} ${cause.stack ?? ''}` : JSON.stringify(cause);
    if (text !== undefined && secrets.some((s) => text.includes(s))) return undefined;
  } catch {
    return undefined;
  }
  return cause;
}

/**
 * A resource rendered exactly as a GET of API 2026-02-09 answers it, by dispatching the retrieve
 * route through the router (family `current`) inside the process: webhook payloads and workflow
 * step results use it, so they never carry a second serializer of a shape another route owns.
 */
import type { IncomingMessage } from 'node:http';
import type { TokenRecord } from './auth.js';
import type { Ctx } from './context.js';
import { BinaryBody, HttpError, RawJson, type HandlerResult, type Req } from './http.js';
import { LATEST_VERSION, layoutOf } from './versioning.js';

/** The caller of internal GETs: sees the whole workspace. Never authenticates a request. */
const INTERNAL: TokenRecord = { token: '', name: 'sandbox', createdAt: LATEST_VERSION, processors: '*', workflows: '*', apiVersion: LATEST_VERSION };

export type Rendered =
  | { ok: true; text: string }
  /** No 2026-02-09 route retrieves this resource (yet): the caller decides what to do without it. */
  | { ok: false; reason: 'unrouted' | 'gone' | 'error'; message: string };

function textOf(result: HandlerResult): string | undefined {
  if (result instanceof RawJson) return result.status === 200 ? result.text : undefined;
  if (result instanceof BinaryBody) return undefined;
  if ('status' in result && 'body' in result && typeof result.status === 'number') return result.status === 200 ? JSON.stringify(result.body) : undefined;
  return JSON.stringify(result);
}

function settle(path: string, run: () => HandlerResult | Promise<HandlerResult>): Rendered | Promise<Rendered> {
  const fail = (e: unknown): Rendered => {
    if (e instanceof HttpError && e.status === 404) return { ok: false, reason: 'gone', message: `GET ${path}: ${e.message}` };
    return { ok: false, reason: 'error', message: `GET ${path}: ${e instanceof Error ? e.message : String(e)}` };
  };
  const done = (r: HandlerResult): Rendered => {
    const text = textOf(r);
    return text === undefined ? { ok: false, reason: 'error', message: `GET ${path} did not answer a JSON resource` } : { ok: true, text };
  };
  try {
    const r = run();
    return r instanceof Promise ? r.then(done, fail) : done(r);
  } catch (e) {
    return fail(e);
  }
}

/**
 * `GET <path>` as a 2026-02-09 caller with a workspace-wide token would get it. Synchronous when
 * the route's handler is (every retrieve route of the sandbox today), else a promise.
 */
export function currentGet(ctx: Ctx, path: string): Rendered | Promise<Rendered> {
  const segments = path.split('/').filter(Boolean);
  const match = ctx.router?.match('GET', segments, 'current');
  if (!match || !('route' in match)) return { ok: false, reason: 'unrouted', message: `no 2026-02-09 route answers GET ${path}` };
  const { route, params } = match;
  const req: Req = {
    method: 'GET', path, params, query: new URLSearchParams(), headers: {}, token: INTERNAL, version: LATEST_VERSION, family: 'current',
    layout: layoutOf(LATEST_VERSION), body: undefined, rawBody: undefined, raw: undefined as unknown as IncomingMessage,
  };
  return settle(path, () => route.handler(req, ctx));
}

/**
 * The HTTP layer: node:http, one pipeline per request:
 *
 *   path (optional /v1 prefix) -> injected latency -> public route? -> injected faults (429,
 *   402, 5xx: faults.ts) -> token (401) -> API version (400) -> route (404/405) -> body (413/400)
 *   -> handler -> `{success: true, ...}` or `{success: false, error}`
 *
 * Injected faults happen before any work, so a retried request never runs twice; except `drop`,
 * which loses the answer after the work (what a client must not meet with a blind retry).
 * Unexpected errors answer 500 without details; the stack goes to the `log` callback only.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { TokenRecord, TokenRegistry } from './auth.js';
import type { Ctx } from './context.js';
import { familyOf, layoutOf, resolveVersion, type VersionInEffect } from './versioning.js';
import { apiErrorBody } from './current.js';
import { BinaryBody, HttpError, RawJson, type HandlerResult, type Req } from './http.js';
import type { Router } from './router.js';
import { retryHeaders, type Faults } from './faults.js';
import { contentDisposition } from '../util/disposition.js';
import { BodyLimitError, bodyReader, limitConnections, refusalHeaders, type BodyLimits, type BodyReader } from '../util/bodyLimits.js';
import { MAX_DEPTH, depthExceededPointer, mayExceedDepth } from '../util/depth.js';
import { parseJson } from '../util/json.js';
import { EvalkitError } from '../util/errors.js';

export interface ServerOptions {
  router: Router;
  registry: TokenRegistry;
  /** Names the API version is read from (lowercase); see versioning.ts. */
  versionHeaders: readonly string[];
  /** Injected faults (rate limits, errors, latency): faults.ts. */
  faults: Faults;
  log?: (line: string) => void;
  /** Body size, buffering, timeout and connection limits (util/bodyLimits); maxBodyBytes is ctx's. */
  bodyLimits?: Partial<BodyLimits>;
}

const PUBLIC_TOKEN: TokenRecord = { token: '', name: 'public', createdAt: '1970-01-01', processors: new Set(), workflows: new Set() };

export function createSandboxServer(ctx: Ctx, opts: ServerOptions): Server {
  const limits = { ...opts.bodyLimits, maxBodyBytes: ctx.maxBodyBytes };
  const bodies = bodyReader({ maxBufferedBytes: 4 * ctx.maxBodyBytes, ...limits }, "the sandbox's");
  const server = createServer({ keepAlive: true }, (req, res) => {
    handle(ctx, opts, bodies, req, res).catch((e: unknown) => {
      opts.log?.(`sandbox: unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      if (!res.headersSent) sendJson(res, 500, '{"success":false,"error":"internal sandbox error"}');
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  limitConnections(server, limits);
  return server;
}

async function handle(ctx: Ctx, opts: ServerOptions, bodies: BodyReader, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let inEffect: VersionInEffect | undefined;
  // Error bodies: ApiError for a 2026-02-09 caller, except on the legacy routes it kept, which keep
  // `{success: false, error}` (spec 1.2 INFERRED; docs/sandbox-api.md).
  let apiErrors = false;
  try {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let path = q < 0 ? url : url.slice(0, q);
    if (path === '/v1' || path.startsWith('/v1/')) path = path.slice(3) || '/';
    const method = req.method ?? 'GET';
    const delay = opts.faults.size ? opts.faults.delayMs(method, path) : 0;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    const segments = splitPath(path);
    if (segments.length === 1 && segments[0] === 'healthz' && method === 'GET') {
      sendJson(res, 200, '{"success":true,"status":"ok"}');
      return;
    }
    let match = opts.router.match(method, segments);
    const isPublic = match !== undefined && 'route' in match && match.route.public === true;
    let token = PUBLIC_TOKEN;
    if (!isPublic) {
      // Until the version is settled, the header alone says which error body the caller reads.
      apiErrors = saysCurrent(req, opts.versionHeaders);
      if (opts.faults.size) opts.faults.check(method, path, req.headers.authorization ?? `addr:${req.socket.remoteAddress ?? ''}`);
      token = opts.registry.authenticate(req.headers.authorization);
      inEffect = resolveVersion(req.headers, token, opts.versionHeaders);
      apiErrors = familyOf(inEffect.version) === 'current';
      if (apiErrors) match = opts.router.match(method, segments, 'current');
    }
    if (!match) throw new HttpError(404, `no such endpoint: ${method} ${path}`);
    if ('otherFamily' in match) {
      throw new HttpError(
        404,
        match.otherFamily === 'legacy'
          ? `no such endpoint in API version ${inEffect?.version ?? ''}: ${method} ${path} is a route of API version 2025-04-21 and older (docs/sandbox-api.md lists its 2026-02-09 counterpart)`
          : `no such endpoint in API version ${inEffect?.version ?? ''}: ${method} ${path} is a route of API version 2026-02-09; send x-extend-api-version: 2026-02-09`,
      );
    }
    if ('allowed' in match) throw new HttpError(405, `method ${method} is not allowed on ${path}; use ${match.allowed.join(' or ')}`, { allow: match.allowed.join(', ') });
    const route = match.route;
    if (apiErrors && route.versions === 'both' && !route.public) apiErrors = route.apiErrors === true;
    const version = inEffect?.version;
    const r: Req = {
      method,
      path,
      params: match.params,
      query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)),
      headers: req.headers,
      token,
      version: version ?? '2025-04-21',
      family: familyOf(version ?? '2025-04-21'),
      layout: layoutOf(version ?? '2025-04-21'),
      body: undefined,
      rawBody: undefined,
      raw: req,
    };
    if (route.body === 'json' || route.body === 'raw') {
      const buf = await bodies.read(req).catch((e: unknown) => {
        throw e instanceof BodyLimitError ? new HttpError(e.status, e.message, refusalHeaders(e)) : e;
      });
      if (route.body === 'raw') r.rawBody = buf;
      else r.body = parseBody(req, buf);
    }
    if (!ctx.coreLoaded) await ctx.ready;
    const result = await route.handler(r, ctx);
    // An injected lost answer (faults.ts `drop`): the work is done, the connection closes unanswered.
    if (opts.faults.size && opts.faults.dropsAnswer(method, path)) {
      req.socket.destroy();
      return;
    }
    reply(res, result, inEffect);
  } catch (caught) {
    if (!(caught instanceof HttpError) && res.headersSent) throw caught;
    // Unexpected: logged with its stack, answered without details, in the caller's error form.
    if (!(caught instanceof HttpError)) opts.log?.(`sandbox: unexpected error: ${caught instanceof Error ? (caught.stack ?? caught.message) : String(caught)}`);
    const e = caught instanceof HttpError ? caught : new HttpError(500, 'internal sandbox error');
    // Every 429 says when to come back, whoever raised it.
    const headers: Record<string, string> = e.status === 429 && !e.headers['retry-after'] ? { ...retryHeaders(1), ...e.headers } : { ...e.headers };
    if (e.status === 413) headers.connection = 'close';
    const body = apiErrors ? apiErrorBody(e.status, e.message, e.code) : JSON.stringify({ success: false, error: e.message });
    sendJson(res, e.status, body, inEffect, headers);
    if (e.status === 413) req.resume();
  }
}

/** True when a version header names 2026-02-09 or later (used before the token is known). */
function saysCurrent(req: IncomingMessage, names: readonly string[]): boolean {
  for (const name of names) {
    const raw = req.headers[name];
    const v = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (v && /^\d{4}-\d{2}-\d{2}$/.test(v)) return familyOf(v as never) === 'current';
  }
  return false;
}

/** Path segments, percent-decoded; 400 for a malformed escape. */
function splitPath(path: string): string[] {
  const out: string[] = [];
  for (const s of path.split('/')) {
    if (s === '') continue;
    if (s.includes('%')) {
      try {
        out.push(decodeURIComponent(s));
      } catch {
        throw new HttpError(400, 'malformed percent-encoding in the request path');
      }
    } else out.push(s);
  }
  return out;
}

function parseBody(req: IncomingMessage, buf: Buffer): unknown {
  const ct = req.headers['content-type'];
  if (ct && !/^application\/([\w.+-]+\+)?json\b/i.test(ct)) throw new HttpError(400, `Content-Type must be application/json (got ${ct.split(';')[0]})`);
  if (buf.length === 0) return {};
  const text = buf.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // A second, tolerant pass finds the first error's line and column (util/json.ts).
    try {
      parseJson(text, 'request body');
    } catch (e) {
      if (e instanceof EvalkitError) {
        const { line, column } = e.location;
        throw new HttpError(400, `invalid JSON in request body at line ${line}, column ${column}: ${e.message.replace(/^invalid JSON: /, '')}`);
      }
    }
    throw new HttpError(400, 'invalid JSON in request body');
  }
  // Checked before any handler walks the body recursively (a 5,000-deep schema was a 500).
  const deep = mayExceedDepth(text) ? depthExceededPointer(value) : undefined;
  if (deep !== undefined) throw new HttpError(400, `request body is nested more than ${MAX_DEPTH} levels deep; the limit is passed at ${deep}`);
  return value;
}

/** The version in effect, echoed under the name it was sent (or every accepted name). */
type Echo = VersionInEffect | undefined;

function reply(res: ServerResponse, result: HandlerResult, version: Echo): void {
  if (result instanceof RawJson) sendJson(res, result.status, result.text, version);
  else if (result instanceof BinaryBody) {
    res.writeHead(200, {
      'content-type': result.mime,
      'content-length': result.bytes.length,
      'content-disposition': contentDisposition(result.name),
    });
    res.end(result.bytes);
  } else if ('status' in result && 'body' in result && typeof result.status === 'number') sendJson(res, result.status, JSON.stringify(result.body), version);
  else sendJson(res, 200, JSON.stringify(result), version);
}

function sendJson(res: ServerResponse, status: number, text: string, version?: Echo, extra?: Record<string, string>): void {
  const headers: Record<string, string | number> = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) };
  if (version) for (const name of version.echo) headers[name] = version.version;
  if (extra) Object.assign(headers, extra);
  res.writeHead(status, headers);
  res.end(text);
}

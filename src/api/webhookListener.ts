/**
 * A webhook receiver: an HTTP server that verifies every POSTed event with verifyWebhook and
 * hands verified events and rejections to callbacks (it prints nothing itself). Used by
 * `evalkit webhooks listen`, and usable in tests of a pipeline's own handling.
 *
 * Answers: 200 verified (also a repeated eventId, reported once as a duplicate); 401 unsigned,
 * expired, future-dated or tampered; 400 malformed signature headers or a signed body that is
 * not an event; 405 other methods; 413 bodies over the limit (a declared length at once); 408 a
 * body that has not arrived in full within the body timeout; 503 while too many bytes are buffered.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../util/errors.js';
import { BodyLimitError, bodyReader, DEFAULT_BODY_LIMITS, limitConnections, refusalHeaders, type BodyLimits } from '../util/bodyLimits.js';
import { verifyWebhook, WebhookVerificationError, type WebhookErrorKind, type WebhookEvent } from './webhooks.js';

export interface ReceivedInfo {
  method: string;
  path: string;
  /** The version header the sender named (x-service-api-version), if any. */
  apiVersion: string | undefined;
}

export interface WebhookListenerOptions {
  secret: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  toleranceSeconds?: number;
  /** Default 32 MiB. */
  maxBodyBytes?: number;
  /** Bodies buffered at once (default 128 MiB; 503 beyond), body timeout (30 s; 408), connections (256). */
  bodyLimits?: Partial<Omit<BodyLimits, 'maxBodyBytes'>>;
  versionHeader?: string;
  onEvent: (event: WebhookEvent, info: ReceivedInfo & { duplicate: boolean }) => void;
  onReject: (reason: { status: number; kind: WebhookErrorKind | 'method' | 'too-large' | 'timeout' | 'busy'; message: string }, info: ReceivedInfo) => void;
}

export interface WebhookListener {
  url: string;
  port: number;
  close(): Promise<void>;
}

const STATUS: Record<WebhookErrorKind, number> = { unsigned: 401, expired: 401, future: 401, tampered: 401, malformed: 400, 'invalid-body': 400 };
const SEEN_LIMIT = 100_000;

export async function startWebhookListener(o: WebhookListenerOptions): Promise<WebhookListener> {
  const limits = { ...o.bodyLimits, maxBodyBytes: o.maxBodyBytes ?? DEFAULT_BODY_LIMITS.maxBodyBytes };
  const bodies = bodyReader(limits);
  const versionHeader = (o.versionHeader ?? 'x-service-api-version').toLowerCase();
  const seen = new Set<string>();
  const answer = (res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    // The configured name, else the real service's name for the same header.
    const raw = req.headers[versionHeader] ?? req.headers['x-extend-api-version'];
    const info: ReceivedInfo = { method: req.method ?? '', path: req.url ?? '/', apiVersion: Array.isArray(raw) ? raw[0] : raw };
    let event: WebhookEvent;
    try {
      event = verifyWebhook(o.secret, req.headers, body, { toleranceSeconds: o.toleranceSeconds });
    } catch (e) {
      if (!(e instanceof WebhookVerificationError)) throw e;
      o.onReject({ status: STATUS[e.kind], kind: e.kind, message: e.message }, info);
      answer(res, STATUS[e.kind], { received: false, error: `${e.kind}: ${e.message}` });
      return;
    }
    // Retries may deliver an event again (when an answer was lost): acknowledged, reported once.
    const duplicate = seen.has(event.eventId);
    if (!duplicate) {
      if (seen.size >= SEEN_LIMIT) seen.clear();
      seen.add(event.eventId);
    }
    o.onEvent(event, { ...info, duplicate });
    answer(res, 200, { received: true });
  };
  const server = createServer((req, res) => {
    const info = (): ReceivedInfo => ({ method: req.method ?? '', path: req.url ?? '/', apiVersion: undefined });
    if (req.method !== 'POST') {
      o.onReject({ status: 405, kind: 'method', message: `method ${req.method ?? ''} is not allowed; events are POSTed` }, info());
      answer(res, 405, { received: false, error: 'POST events here' }, { allow: 'POST' });
      req.resume();
      return;
    }
    // Refused at once when the declared length is over the limit; slow and oversized bodies are
    // cut off, and what all senders buffer together is bounded (util/bodyLimits).
    bodies.read(req).then(
      (body) => handle(req, res, body),
      (e: unknown) => {
        if (!(e instanceof BodyLimitError)) throw e;
        const kind = e.status === 413 ? 'too-large' : e.status === 408 ? 'timeout' : 'busy';
        o.onReject({ status: e.status, kind, message: e.message }, info());
        if (!res.headersSent && !res.destroyed) answer(res, e.status, { received: false, error: e.message }, refusalHeaders(e));
      },
    ).catch(() => res.destroy());
  });
  limitConnections(server, limits);
  const host = o.host ?? '127.0.0.1';
  const port = o.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new UsageError(`port ${port} on ${host} is already in use`, { hint: 'pick another --port, or 0 for any free port' }) : e),
    );
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shown}:${addr.port}`,
    port: addr.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

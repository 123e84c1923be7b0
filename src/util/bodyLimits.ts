/**
 * What one HTTP server of ours (the sandbox, `evalkit webhooks listen`) buffers, and for how
 * long: a body declared larger than the limit is refused before a byte is read (413), a body
 * that grows past it is refused when it does, a body that has not arrived in full in time is a
 * 408, the bodies being buffered at once share one byte budget (503 when it is spent, so 40 slow
 * senders cannot take 1.4 GB), and the server keeps a bounded number of connections open, making
 * room for a new one by closing the oldest idle one (limitConnections).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface BodyLimits {
  /** One request body, in bytes. */
  maxBodyBytes: number;
  /** Every body being received at once, together, in bytes. */
  maxBufferedBytes: number;
  /** From the request's headers to the last byte of its body. */
  bodyTimeoutMs: number;
  /** Open connections; beyond, the oldest without a request in progress is closed (else the new one). */
  maxConnections: number;
}

export const DEFAULT_BODY_LIMITS: BodyLimits = {
  maxBodyBytes: 32 * 1024 * 1024,
  maxBufferedBytes: 128 * 1024 * 1024,
  bodyTimeoutMs: 30_000,
  maxConnections: 256,
};

/** A body that is refused: answer with `status` and close the connection. */
export class BodyLimitError extends Error {
  constructor(readonly status: 408 | 413 | 503, message: string) {
    super(message);
  }
}

export interface BodyReader {
  readonly limits: BodyLimits;
  /** The whole body, or a BodyLimitError. */
  read(req: IncomingMessage): Promise<Buffer>;
  /** Bytes held by bodies being read now. */
  readonly buffered: number;
}

/** `whose`: how messages name the limit's owner ("the sandbox's limit of ... bytes"). */
export function bodyReader(limits: Partial<BodyLimits> = {}, whose = 'the'): BodyReader {
  const l: BodyLimits = { ...DEFAULT_BODY_LIMITS, ...limits };
  let buffered = 0;
  return {
    limits: l,
    get buffered() {
      return buffered;
    },
    read(req) {
      const declared = Number(req.headers['content-length']);
      if (declared > l.maxBodyBytes) return Promise.reject(new BodyLimitError(413, `request body of ${declared} bytes is larger than ${whose} limit of ${l.maxBodyBytes} bytes`));
      return new Promise<Buffer>((resolve, reject) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let settled = false;
        const finish = (e?: BodyLimitError): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          buffered -= size;
          req.off('data', onData);
          if (e) {
            // Nothing more is read: the answer goes out with `connection: close`.
            req.pause();
            reject(e);
          } else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
        };
        const onData = (c: Buffer): void => {
          if (settled) return;
          if (size + c.length > l.maxBodyBytes) return finish(new BodyLimitError(413, `request body is larger than ${whose} limit of ${l.maxBodyBytes} bytes`));
          if (buffered + c.length > l.maxBufferedBytes) return finish(new BodyLimitError(503, 'too many request bodies are being received at once; retry shortly'));
          size += c.length;
          buffered += c.length;
          chunks.push(c);
        };
        const timer = setTimeout(() => finish(new BodyLimitError(408, `the request body did not arrive within ${l.bodyTimeoutMs / 1000} s`)), l.bodyTimeoutMs);
        req.on('data', onData);
        req.once('end', () => finish());
        req.once('error', () => finish(new BodyLimitError(408, 'the request body was cut off')));
        req.once('close', () => finish(new BodyLimitError(408, 'the connection closed before the body arrived')));
      });
    },
  };
}

/**
 * Connection cap and header timeout of a server (bodies are timed by the reader).
 *
 * Not `server.maxConnections`: that refuses the newest connection, so 256 sockets that never
 * finish their headers locked every sender out until Node's header timeout closed them (30 s,
 * checked every 30 s: about 45 s). Here, at the cap, the oldest connection with no request in
 * progress (one still sending its headers, or idle between keep-alive requests) is closed to make
 * room; a new connection is refused only when every open one has a request in progress.
 */
export function limitConnections(server: Server, limits: Partial<BodyLimits> = {}): void {
  const l: BodyLimits = { ...DEFAULT_BODY_LIMITS, ...limits };
  // Oldest first (a Map keeps insertion order); the value counts the requests in progress.
  const open = new Map<Socket, { busy: number }>();
  server.on('connection', (socket: Socket) => {
    if (open.size >= l.maxConnections) {
      let idle: Socket | undefined;
      for (const [s, st] of open) {
        if (st.busy === 0) {
          idle = s;
          break;
        }
      }
      if (!idle) {
        socket.destroy();
        return;
      }
      open.delete(idle);
      idle.destroy();
    }
    open.set(socket, { busy: 0 });
    socket.once('close', () => open.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const st = open.get(req.socket);
    if (!st) return;
    st.busy++;
    res.once('close', () => st.busy--);
  });
  server.headersTimeout = Math.min(server.headersTimeout, l.bodyTimeoutMs);
}

/** Headers of an answer that refuses a body: the rest of it is not read, so the connection ends. */
export function refusalHeaders(e: BodyLimitError): Record<string, string> {
  return e.status === 503 ? { connection: 'close', 'retry-after': '1' } : { connection: 'close' };
}

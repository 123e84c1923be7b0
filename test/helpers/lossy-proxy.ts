// A proxy on 127.0.0.1 that forwards every request to the service and, for the requests a test
// picks, lets the service do the work and then drops the connection instead of answering: the
// client sees a reset connection after its request was carried out (issue 36).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ForwardedRequest {
  method: string;
  /** Path and query as the client sent them. */
  url: string;
  body: string;
  /** The service's status (the client never sees it when the answer is dropped). */
  status: number;
}

export interface LossyProxy {
  url: string;
  /** Every request that reached the service, in order. */
  forwarded: ForwardedRequest[];
  /** The requests whose answers were dropped (or held) after the service did the work. */
  dropped: ForwardedRequest[];
  /** Resolves when a request is held (a 'hold' rule fired). */
  held: Promise<ForwardedRequest>;
  close(): Promise<void>;
}

/**
 * `drop(req, n)`: true drops this answer (the connection is closed), 'hold' keeps it (the client
 * waits until it is killed or gives up); `n` counts earlier requests of the same method and path.
 */
export type DropRule = (req: ForwardedRequest, n: number) => boolean | 'hold';

/** Drops answers of `method path` (the path without its query) when `which(n)` says so. */
export function dropAnswers(method: string, pathRe: RegExp, which: (n: number) => boolean = () => true): DropRule {
  return (r, n) => r.method === method && r.status < 300 && pathRe.test(r.url.split('?')[0]) && which(n);
}

export async function lossyProxy(target: string, drop: DropRule): Promise<LossyProxy> {
  const forwarded: ForwardedRequest[] = [];
  const dropped: ForwardedRequest[] = [];
  const seen = new Map<string, number>();
  let onHeld!: (r: ForwardedRequest) => void;
  const held = new Promise<ForwardedRequest>((r) => (onHeld = r));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = v;
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(target + (req.url ?? ''), { method: req.method, headers, body });
        const text = Buffer.from(await answer.arrayBuffer());
        const rec: ForwardedRequest = { method: req.method ?? '', url: req.url ?? '', body: body?.toString('utf8') ?? '', status: answer.status };
        forwarded.push(rec);
        const key = `${rec.method} ${rec.url.split('?')[0]}`;
        const n = seen.get(key) ?? 0;
        seen.set(key, n + 1);
        const verdict = drop(rec, n);
        if (verdict) {
          dropped.push(rec);
          if (verdict === 'hold') onHeld(rec);
          else req.socket.destroy();
          return;
        }
        const out: Record<string, string> = {};
        answer.headers.forEach((v, k) => {
          if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection' && k !== 'keep-alive') out[k] = v;
        });
        res.writeHead(answer.status, out);
        res.end(text);
      })().catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    dropped,
    held,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

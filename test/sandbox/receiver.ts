import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as received. */
  body: string;
}

/** What the receiver does with one request: a status, or hang (no answer), or drop the connection. */
export type Answer = number | 'hang' | 'destroy';

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 whose answers the test scripts (200 by default). */
export async function startReceiver(answer: (r: Received, index: number) => Answer = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const a = answer(r, received.push(r) - 1);
      if (a === 'hang') return;
      if (a === 'destroy') return req.socket.destroy();
      res.writeHead(a, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

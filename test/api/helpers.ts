import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../src/api/index.js';

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Objects are sent as JSON, strings as they are. */
  body?: unknown;
  /** Never answer (the socket stays open until the server closes). */
  hang?: boolean;
  /** Drop the connection without an answer (a network error for the client). */
  destroy?: boolean;
}

export type Handler = (req: Recorded, index: number) => Reply | Promise<Reply>;

export interface ScriptedServer {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

/** A tiny HTTP server on 127.0.0.1:0 whose answers the test scripts. */
export async function startScripted(handler: Handler): Promise<ScriptedServer> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const index = requests.push(rec) - 1;
      void Promise.resolve(handler(rec, index)).then((reply) => {
        if (reply.destroy) return req.socket.destroy();
        if (reply.hang) return;
        const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? { success: true });
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        res.end(text);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A clock whose sleeps return at once and move time forward; records every sleep. */
export function instantClock(start = 1_700_000_000_000): Clock & { sleeps: number[]; time(): number } {
  let t = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    time: () => t,
    now: () => t,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      t += ms;
    },
  };
}

/** A clock whose sleeps wait until the test calls advance(); lets a test observe who is waiting. */
export function manualClock(start = 1_700_000_000_000) {
  let t = start;
  const waiting: Array<{ until: number; resolve: () => void }> = [];
  const clock: Clock = {
    now: () => t,
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        waiting.push({ until: t + ms, resolve });
      }),
  };
  return {
    clock,
    /** How many sleeps are pending. */
    pending: () => waiting.length,
    advance(ms: number) {
      t += ms;
      for (let i = waiting.length - 1; i >= 0; i--) {
        if (waiting[i].until <= t) waiting.splice(i, 1)[0].resolve();
      }
    },
  };
}

/** Waits (in real time, briefly) until a condition holds; fails the test if it never does. */
export async function until(cond: () => boolean, what: string, limitMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > limitMs) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const ts = '2025-05-01T00:00:00.000Z';
const extractConfig = { type: 'EXTRACT', schema: { type: 'object', properties: {} } };

/** Minimal valid resources, one per kind. */
export const fx = {
  processor: (over: object = {}) => ({ object: 'document_processor', id: 'dp_1', name: 'Invoices', type: 'EXTRACT', createdAt: ts, updatedAt: ts, ...over }),
  version: (over: object = {}) => ({
    object: 'document_processor_version', id: 'dpv_1', processorId: 'dp_1', processorType: 'EXTRACT', description: null,
    version: '1.0', config: extractConfig, createdAt: ts, updatedAt: ts, ...over,
  }),
  run: (over: object = {}) => ({ object: 'document_processor_run', id: 'dpr_1', status: 'PROCESSING', output: null, processorId: 'dp_1', ...over }),
  file: (over: object = {}) => ({ object: 'file', id: 'file_1', name: 'a.pdf', type: 'PDF', createdAt: ts, updatedAt: ts, ...over }),
  evaluationSet: (over: object = {}) => ({ object: 'evaluation_set', id: 'ev_1', name: 'Set', processorId: 'dp_1', createdAt: ts, updatedAt: ts, ...over }),
  item: (over: object = {}) => ({
    object: 'evaluation_set_item', id: 'evi_1', evaluationSetId: 'ev_1', fileId: 'file_1', expectedOutput: { value: {} },
    createdAt: ts, updatedAt: ts, ...over,
  }),
  batch: (over: object = {}) => ({
    object: 'batch_processor_run', id: 'bpr_1', processorId: 'dp_1', processorVersionId: 'dpv_1', status: 'PROCESSING',
    source: 'EVAL_SET', sourceId: 'ev_1', runCount: 2, options: {}, metrics: null, createdAt: ts, updatedAt: ts, ...over,
  }),
  workflowRun: (over: object = {}) => ({ object: 'workflow_run', id: 'workflow_run_1', status: 'PROCESSED', ...over }),
};

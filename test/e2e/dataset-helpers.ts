// Shared by the `evalkit dataset upload` end-to-end tests: a real sandbox on 127.0.0.1, temp
// dataset folders, the built CLI, and a view of what the service holds.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { createClient, type Client } from '../../src/api/index.js';
import type { PlanSummary, Tally, UploadResult } from '../../src/dataset/index.js';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { createProcessor, start, type TestSandbox } from '../sandbox/helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A temp folder holding the given files (paths relative to it). */
export function folder(files: Record<string, string | Buffer> = {}): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'evalkit-upload-'));
  dirs.push(d);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(d, rel)), { recursive: true });
    writeFileSync(path.join(d, rel), content);
  }
  return d;
}

/** `n` small distinct documents files/doc-0.txt ... (an object for folder()). */
export function docs(n: number, prefix = 'doc'): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[`files/${prefix}-${i}.txt`] = `INVOICE ${prefix.toUpperCase()}-${i}\nTotal due: EUR ${i + 10}.50\n`;
  return out;
}

export interface Service {
  t: TestSandbox;
  client: Client;
  /** Environment for the CLI child: where the service is and its token. */
  env: Record<string, string>;
  /** A client of the same service speaking `apiVersion` (to set up or read a set in that version's form). */
  at(apiVersion: string): Client;
  processor(type: string, config: unknown): Promise<string>;
  /** Runs `evalkit dataset upload ...args` in `cwd`. */
  upload(args: string[], cwd: string, input?: string): Promise<CliResult>;
  /**
   * The set's items: the name of the file each one names (as the CSV named it) and its expected
   * output in the form of the client's API version (the default, or `apiVersion`), sorted.
   */
  items(setId: string, apiVersion?: string): Promise<Item[]>;
  /** Every file the service holds. */
  fileCount(): Promise<number>;
  close(): Promise<void>;
}

export interface Item {
  id: string;
  file: string;
  expectedOutput: unknown;
  /** 2025-04-21 only: 2026-02-09 items carry none (''). */
  updatedAt: string;
}

export async function service(opts: SandboxOptions = {}): Promise<Service> {
  const t = await start(opts);
  const client = createClient({ baseUrl: t.url, token: t.token, maxRetries: 8, retryBaseMs: 20 });
  const env = { EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token };
  const at = (apiVersion: string) => createClient({ baseUrl: t.url, token: t.token, apiVersion, maxRetries: 8, retryBaseMs: 20 });
  return {
    t,
    client,
    env,
    at,
    processor: (type, config) => createProcessor(t, type, config),
    upload: (args, cwd, input) => runCli(['dataset', 'upload', ...args], { cwd, env, input }),
    async items(setId, apiVersion) {
      // Through the facade, so the view speaks the version in effect (or the one named): on
      // 2026-02-09 list rows carry no expectedOutput and each item is read.
      const c = apiVersion === undefined ? client : at(apiVersion);
      const ops = c.items(setId);
      const out: Item[] = [];
      const names = new Map<string, string>();
      for await (const row of ops.listAll({ maxPageSize: 1000 })) {
        const it = ops.listHasOutputs ? row : await ops.retrieve(row.id);
        let name = it.fileName ?? names.get(it.fileId);
        if (name === undefined) names.set(it.fileId, (name = (await c.files.retrieve(it.fileId)).name));
        // evalkit names uploads `<stem>.ek<content hash><ext>`. 2026-02-09 items have no updatedAt ('').
        out.push({ id: it.id, file: name.replace(/\.ek[0-9a-f]{24}/, ''), expectedOutput: it.expectedOutput, updatedAt: String(it.raw.updatedAt ?? '') });
      }
      return out.sort((a, b) => a.file.localeCompare(b.file) || JSON.stringify(a.expectedOutput).localeCompare(JSON.stringify(b.expectedOutput)));
    },
    async fileCount() {
      let n = 0;
      for await (const _ of client.files.listAll({ maxPageSize: 1000 })) n++;
      return n;
    },
    close: () => t.close(),
  };
}

/** What `--format json` prints for a run that reached the service. */
export type UploadJson = Omit<UploadResult, 'set' | 'tally' | 'plan'> & { set: { id: string; name: string; created: boolean }; tally: Tally; plan: PlanSummary };

/** The JSON a `--format json` run printed. */
export function json(r: CliResult): UploadJson {
  try {
    return JSON.parse(r.stdout) as UploadJson;
  } catch {
    throw new Error(`not JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
}

export const CURRENCY = {
  type: 'object',
  'extend:type': 'currency',
  properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } },
};

/** One field of each type, a nested object and line items. */
export const INVOICE = {
  type: 'EXTRACT',
  schema: {
    type: 'object',
    properties: {
      invoice_number: { type: ['string', 'null'] },
      invoice_date: { type: ['string', 'null'], format: 'date' },
      paid: { type: ['boolean', 'null'] },
      pages: { type: ['integer', 'null'] },
      weight: { type: ['number', 'null'] },
      status: { enum: ['Open', 'Paid', 'Void', null] },
      total: CURRENCY,
      vendor: { type: 'object', properties: { name: { type: ['string', 'null'] }, country: { type: ['string', 'null'] } } },
      line_items: {
        type: 'array',
        items: { type: 'object', properties: { description: { type: ['string', 'null'] }, quantity: { type: ['number', 'null'] }, amount: CURRENCY } },
      },
    },
  },
};

/** A small EXTRACT config for the upload mechanics tests. */
export const SIMPLE = {
  type: 'EXTRACT',
  schema: { type: 'object', properties: { invoice_number: { type: ['string', 'null'] }, total: CURRENCY } },
};

export const CLASSIFY = {
  type: 'CLASSIFY',
  classifications: [
    { id: 'invoice', type: 'invoice', description: 'An invoice' },
    { id: 'rcpt', type: 'receipt', description: 'A receipt' },
    { id: 'bank_statement', type: 'bank_statement', description: 'A bank statement' },
  ],
};

export const SPLITTER = {
  type: 'SPLITTER',
  splitClassifications: [
    { id: 'invoice', type: 'invoice', description: 'An invoice' },
    { id: 'receipt', type: 'receipt', description: 'A receipt' },
  ],
};

/** `n` rows of SIMPLE naming docs(files) in turn. */
export function simpleCsv(n: number, files: number, total = (i: number) => `EUR ${i + 1}.50`): string {
  const lines = ['file,invoice_number,total'];
  for (let i = 0; i < n; i++) lines.push(`files/doc-${i % files}.txt,N-${i},${total(i)}`);
  return lines.join('\n') + '\n';
}

export interface Proxy {
  url: string;
  /** Resolves once an answer was held back: the service did the work, the client never hears of it. */
  held: Promise<string>;
  close(): Promise<void>;
}

/**
 * A forwarding proxy in front of the sandbox that, for the first request `hold` picks, lets
 * the service do the work and then keeps its answer: `drop` closes the connection (the client
 * sees a network error), otherwise the request hangs until the client gives up or dies.
 */
export async function answerLosingProxy(target: string, hold: (method: string, url: string) => boolean, drop = false): Promise<Proxy> {
  const { createServer } = await import('node:http');
  let heldOne = false;
  let resolveHeld!: (what: string) => void;
  const held = new Promise<string>((r) => (resolveHeld = r));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = v;
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(target + req.url, { method: req.method, headers, body });
        const text = Buffer.from(await answer.arrayBuffer());
        if (!heldOne && answer.status < 300 && hold(req.method ?? '', req.url ?? '')) {
          heldOne = true;
          resolveHeld(`${req.method} ${req.url}`);
          if (drop) req.socket.destroy();
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
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    held,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

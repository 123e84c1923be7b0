import { afterAll, beforeAll } from 'vitest';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';

export interface Res<T = Record<string, unknown>> {
  status: number;
  body: T & { success?: boolean; error?: string };
  headers: Headers;
}

export interface CallOptions {
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string | Uint8Array;
  /** Token to send; null sends no Authorization header. Default: the sandbox's token. */
  token?: string | null;
  /** API version header; null sends none. Default 2025-04-21. */
  version?: string | null;
  headers?: Record<string, string>;
}

export interface TestSandbox {
  sb: SandboxHandle;
  url: string;
  token: string;
  call<T = Record<string, unknown>>(method: string, path: string, o?: CallOptions): Promise<Res<T>>;
  close(): Promise<void>;
}

/** The real sandbox on 127.0.0.1, a free port, fast engine. */
export async function start(opts: SandboxOptions = {}): Promise<TestSandbox> {
  const sb = await startSandbox({ port: 0, host: '127.0.0.1', engineDelayMs: 2, engineConcurrency: 4, ...opts });
  const call = async <T>(method: string, path: string, o: CallOptions = {}): Promise<Res<T>> => {
    const headers: Record<string, string> = { ...o.headers };
    const token = o.token === undefined ? sb.token : o.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const version = o.version === undefined ? '2025-04-21' : o.version;
    if (version !== null) headers['x-service-api-version'] = version;
    let body: string | Uint8Array | undefined = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const r = await fetch(sb.url + path, { method, headers, body });
    const text = await r.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { text };
    }
    return { status: r.status, body: parsed as Res<T>['body'], headers: r.headers };
  };
  return { sb, url: sb.url, token: sb.token, call, close: () => sb.close() };
}

/**
 * One sandbox for a test file's tests (started before them, closed after them), and `call`, a
 * request speaking API 2026-02-09 with an optional JSON body. `sandbox()` is the sandbox itself.
 */
export function sandboxFor2026Tests(opts: SandboxOptions = {}): {
  sandbox: () => TestSandbox;
  call: <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => Promise<Res<T>>;
} {
  let t: TestSandbox | undefined;
  beforeAll(async () => {
    t = await start(opts);
  });
  afterAll(() => t?.close());
  const sandbox = (): TestSandbox => {
    if (!t) throw new Error('the sandbox starts before the tests');
    return t;
  };
  return {
    sandbox,
    call: (method, path, body) => sandbox().call(method, path, { version: '2026-02-09', ...(body === undefined ? {} : { body }) }),
  };
}

export const INVOICE_CONFIG = {
  type: 'EXTRACT',
  schema: {
    type: 'object',
    properties: {
      invoice_number: { type: ['string', 'null'] },
      total: { type: ['number', 'null'] },
      paid: { type: ['boolean', 'null'] },
      amount_due: {
        type: 'object',
        'extend:type': 'currency',
        properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } },
      },
      line_items: {
        type: 'array',
        items: { type: 'object', properties: { description: { type: ['string', 'null'] }, quantity: { type: ['number', 'null'] } } },
      },
    },
  },
};

export const CLASSIFY_CONFIG = {
  type: 'CLASSIFY',
  classifications: [
    { id: 'invoice', type: 'invoice', description: 'An invoice' },
    { id: 'receipt', type: 'receipt', description: 'A receipt' },
    { id: 'contract', type: 'contract', description: 'A contract' },
  ],
};

export const SPLITTER_CONFIG = {
  type: 'SPLITTER',
  splitClassifications: [
    { id: 'invoice', type: 'invoice', description: 'An invoice' },
    { id: 'receipt', type: 'receipt', description: 'A receipt' },
  ],
};

export async function createProcessor(t: TestSandbox, type: string, config?: unknown, name = 'test'): Promise<string> {
  const r = await t.call<{ processor: { id: string } }>('POST', '/processors', { body: { name, type, ...(config ? { config } : {}) } });
  if (r.status !== 200) throw new Error(`create processor: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.processor.id;
}

export async function uploadText(t: TestSandbox, name: string, text: string | Uint8Array): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([text]), name);
  const r = await fetch(`${t.url}/files/upload`, { method: 'POST', headers: { authorization: `Bearer ${t.token}`, 'x-service-api-version': '2025-04-21' }, body: form });
  const body = (await r.json()) as { file: { id: string } };
  if (r.status !== 200) throw new Error(`upload: ${r.status} ${JSON.stringify(body)}`);
  return body.file.id;
}

/** Polls a run until it leaves PROCESSING (the sandbox's idle() is used where possible). */
export async function settled(t: TestSandbox, runId: string): Promise<Record<string, unknown>> {
  await t.sb.idle();
  const r = await t.call<{ processorRun: Record<string, unknown> }>('GET', `/processor_runs/${runId}`);
  return r.body.processorRun;
}

/** A minimal PDF with a text layer, one page per string (for file content tests). */
export function makePdf(pages: string[]): Buffer {
  const objs: string[] = [];
  objs.push('<< /Type /Catalog /Pages 2 0 R >>');
  const kids = pages.map((_, i) => `${3 + i * 2} 0 R`).join(' ');
  objs.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  const fontId = 3 + pages.length * 2;
  pages.forEach((text, i) => {
    const lines = text.split('\n');
    const content = 'BT /F1 12 Tf 72 720 Td 14 TL ' + lines.map((l) => `(${l.replace(/([()\\])/g, '\\$1')}) Tj T*`).join(' ') + ' ET';
    objs.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${fontId} 0 R >> >> /Contents ${4 + i * 2} 0 R >>`);
    objs.push(`<< /Length ${Buffer.byteLength(content)} >>\nstream\n${content}\nendstream`);
  });
  objs.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n` + offsets.map((o) => String(o).padStart(10, '0') + ' 00000 n \n').join('');
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

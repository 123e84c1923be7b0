/**
 * Evaluation sets in a real sandbox: one processor per type with a published 1.0 and a draft
 * that differs from it, files, a set and its items.
 */
import { createClient, type Client, type FetchLike } from '../../src/api/index.js';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, SPLITTER_CONFIG, createProcessor, makePdf, uploadText, type TestSandbox } from '../sandbox/helpers.js';

type Json = Record<string, unknown>;
export type Type = 'EXTRACT' | 'CLASSIFY' | 'SPLITTER';

export interface SeededSet {
  type: Type;
  processorId: string;
  setId: string;
  itemIds: string[];
  fileIds: string[];
}

export const CONFIGS: Record<Type, Json> = { EXTRACT: INVOICE_CONFIG, CLASSIFY: CLASSIFY_CONFIG, SPLITTER: SPLITTER_CONFIG };

export function expectedFor(type: Type, n: number): Json {
  if (type === 'EXTRACT') {
    return {
      value: {
        invoice_number: `INV-${n}`,
        total: 100 + n,
        paid: n % 2 === 0,
        amount_due: { amount: 10 + n, iso_4217_currency_code: 'EUR' },
        line_items: [{ description: 'Widget', quantity: n }, { description: 'Gadget', quantity: 1 }],
      },
    };
  }
  if (type === 'CLASSIFY') {
    const cls = ['invoice', 'receipt', 'contract'][n % 3];
    return { id: cls, type: cls };
  }
  return {
    splits: [
      { id: `s${n}a`, classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 2 },
      { id: `s${n}b`, classificationId: 'receipt', type: 'receipt', startPage: 3, endPage: 3 },
    ],
  };
}

async function ok<T = Json>(t: TestSandbox, method: string, path: string, body?: unknown): Promise<T> {
  const r = await t.call<T>(method, path, { body });
  if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as T;
}

/**
 * A set of `n` items. With `publish`, version 1.0 is published and the draft then gets other
 * rules, so draft and 1.0 differ.
 */
export async function seedSet(t: TestSandbox, type: Type, n: number, opts: { publish?: boolean; name?: string } = {}): Promise<SeededSet> {
  const processorId = await createProcessor(t, type, CONFIGS[type], opts.name ?? `${type.toLowerCase()} processor`);
  if (opts.publish) {
    await ok(t, 'POST', `/processors/${processorId}/publish`, { releaseType: 'major', description: 'first' });
    const rules = type === 'EXTRACT' ? { extractionRules: 'draft rules' } : type === 'CLASSIFY' ? { classificationRules: 'draft rules' } : { splitRules: 'draft rules' };
    await ok(t, 'POST', `/processors/${processorId}`, { config: { ...CONFIGS[type], ...rules } });
  }
  const fileIds: string[] = [];
  for (let i = 1; i <= n; i++) {
    if (type === 'SPLITTER') fileIds.push(await uploadText(t, `packet-${i}.pdf`, makePdf([`Invoice ${i}`, `Invoice ${i} page 2`, `Receipt ${i}`])));
    else fileIds.push(await uploadText(t, `doc-${i}.txt`, type === 'EXTRACT' ? `Invoice number: INV-${i}\nTotal: ${100 + i}` : `This is a document number ${i}`));
  }
  const set = await ok<{ evaluationSet: { id: string } }>(t, 'POST', '/evaluation_sets', { name: `${type} set`, description: 'test', processorId });
  const setId = set.evaluationSet.id;
  const bulk = await ok<{ evaluationSetItems: Array<{ id: string }> }>(t, 'POST', '/evaluation_set_items/bulk', {
    evaluationSetId: setId,
    items: fileIds.map((fileId, i) => ({ fileId, expectedOutput: expectedFor(type, i + 1) })),
  });
  return { type, processorId, setId, itemIds: bulk.evaluationSetItems.map((i) => i.id), fileIds };
}

/**
 * A client of the sandbox; `fetch` lets a test watch or change what goes over the wire;
 * `apiVersion` pins a test of a one-version behaviour (default: the API version in effect).
 */
export function clientOf(t: TestSandbox, fetch?: FetchLike, apiVersion?: string): Client {
  return createClient({ baseUrl: t.url, token: t.token, fetch, retryBaseMs: 5, ...(apiVersion ? { apiVersion } : {}) });
}

/** The API version of evalkit's own evaluation strategies (batch, per-item); tests of them pin it. */
export const V2025 = '2025-04-21';

export interface Recorder {
  fetch: FetchLike;
  calls: Array<{ method: string; path: string }>;
}

/** Records every request; `override` may answer one instead of the sandbox. */
export function recorder(override?: (method: string, path: string) => Response | undefined): Recorder {
  const calls: Recorder['calls'] = [];
  const fetchLike: FetchLike = async (url, init) => {
    const u = new URL(String(url));
    const method = (init?.method ?? 'GET').toUpperCase();
    calls.push({ method, path: u.pathname + u.search });
    return override?.(method, u.pathname) ?? fetch(url, init);
  };
  return { fetch: fetchLike, calls };
}

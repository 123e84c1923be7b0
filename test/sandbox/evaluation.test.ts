import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, SPLITTER_CONFIG, createProcessor, start, uploadText, type TestSandbox } from './helpers.js';

type Json = Record<string, unknown>;
let t: TestSandbox;
let pid: string;
let fileId: string;
beforeAll(async () => {
  t = await start();
  pid = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
  fileId = await uploadText(t, 'inv.txt', 'Invoice number: 1');
});
afterAll(() => t.close());

const expected = (n: number): Json => ({
  value: {
    invoice_number: `INV-${n}`,
    total: 100 + n,
    paid: n % 2 === 0,
    amount_due: { amount: 10 + n, iso_4217_currency_code: 'EUR' },
    line_items: [{ description: 'Widget', quantity: n }, { description: 'Gadget', quantity: 1 }],
  },
});

async function createSet(processorId = pid): Promise<string> {
  const r = await t.call<{ evaluationSet: { id: string } }>('POST', '/evaluation_sets', { body: { name: 'set', description: 'd', processorId } });
  expect(r.status).toBe(200);
  return r.body.evaluationSet.id;
}

describe('evaluation sets', () => {
  test('create, get, list by processor', async () => {
    const id = await createSet();
    expect(id).toMatch(/^ev_/);
    const got = await t.call<{ evaluationSet: Json }>('GET', `/evaluation_sets/${id}`);
    expect(got.body.evaluationSet).toMatchObject({ object: 'evaluation_set', id, name: 'set', description: 'd', processorId: pid });
    const list = await t.call<{ evaluationSets: Json[] }>('GET', `/evaluation_sets?processorId=${pid}`);
    expect(list.body.evaluationSets.map((s) => s.id)).toContain(id);
  });

  test.each([
    ['no name', { processorId: 'PID' }, 400, /name is required/],
    ['no processorId', { name: 'x' }, 400, /processorId is required/],
    ['unknown processor', { name: 'x', processorId: 'dp_missing' }, 404, /processor dp_missing not found/],
  ])('%s -> %i', async (_n, body, status, msg) => {
    const r = await t.call('POST', '/evaluation_sets', { body: JSON.parse(JSON.stringify(body).replace('"PID"', JSON.stringify(pid))) });
    expect(r.status).toBe(status);
    expect(r.body.error).toMatch(msg);
  });

  test('404 for an unknown set', async () => {
    expect((await t.call('GET', '/evaluation_sets/ev_missing')).status).toBe(404);
    expect((await t.call('GET', '/evaluation_sets/ev_missing/items')).status).toBe(404);
  });
});

describe('evaluation set items (4.12, 4.13)', () => {
  test('create, get, update, delete', async () => {
    const setId = await createSet();
    const c = await t.call<{ evaluationSetItem: Json }>('POST', '/evaluation_set_items', { body: { evaluationSetId: setId, fileId, expectedOutput: expected(1) } });
    expect(c.status).toBe(200);
    const item = c.body.evaluationSetItem;
    expect(item).toMatchObject({ object: 'evaluation_set_item', evaluationSetId: setId, fileId, expectedOutput: expected(1) });
    expect(item.id).toMatch(/^evi_/);
    const u = await t.call<{ evaluationSetItem: Json }>('POST', `/evaluation_set_items/${String(item.id)}`, { body: { expectedOutput: expected(2) } });
    expect(u.status).toBe(200);
    expect(u.body.evaluationSetItem.expectedOutput).toEqual(expected(2));
    expect(String(u.body.evaluationSetItem.updatedAt) > String(item.updatedAt)).toBe(true);
    expect((await t.call<{ evaluationSetItem: Json }>('GET', `/evaluation_set_items/${String(item.id)}`)).body.evaluationSetItem.expectedOutput).toEqual(expected(2));
    expect((await t.call('DELETE', `/evaluation_set_items/${String(item.id)}`)).status).toBe(200);
    for (const [m, body] of [['GET', undefined], ['POST', { expectedOutput: expected(1) }], ['DELETE', undefined]] as const) {
      expect((await t.call(m, `/evaluation_set_items/${String(item.id)}`, { body })).status).toBe(404);
    }
  });

  test.each([
    ['missing expectedOutput', { fileId: 'FILE' }, 400, /expectedOutput is required/],
    ['no value wrapper', { fileId: 'FILE', expectedOutput: { invoice_number: 'x' } }, 400, /rule value-wrapper/],
    ['unknown field id', { fileId: 'FILE', expectedOutput: { value: { nope: 1 } } }, 400, /\/expectedOutput\/value\/nope.*rule unknown-field/],
    ['bare number for a currency', { fileId: 'FILE', expectedOutput: { value: { amount_due: 12 } } }, 400, /amount_due/],
    ['expectedOutput not an object', { fileId: 'FILE', expectedOutput: [1] }, 400, /expectedOutput must be an object/],
    ['missing fileId', { expectedOutput: expected(1) }, 400, /fileId is required/],
    ['unknown fileId', { fileId: 'file_missing', expectedOutput: expected(1) }, 400, /fileId file_missing does not exist/],
  ])('%s -> %i', async (_n, body, status, msg) => {
    const setId = await createSet();
    const b = JSON.parse(JSON.stringify({ evaluationSetId: setId, ...body }).replace('"FILE"', JSON.stringify(fileId))) as Json;
    const r = await t.call('POST', '/evaluation_set_items', { body: b });
    expect(r.status).toBe(status);
    expect(r.body.error).toMatch(msg);
  });

  test('404 for an unknown evaluation set', async () => {
    const r = await t.call('POST', '/evaluation_set_items', { body: { evaluationSetId: 'ev_missing', fileId, expectedOutput: expected(1) } });
    expect(r.status).toBe(404);
  });

  test('bulk create is all or nothing; items list pages in creation order', async () => {
    const setId = await createSet();
    const bad = await t.call('POST', '/evaluation_set_items/bulk', {
      body: { evaluationSetId: setId, items: [{ fileId, expectedOutput: expected(1) }, { fileId, expectedOutput: { value: { nope: 1 } } }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/\/items\/1\/expectedOutput\/value\/nope/);
    expect((await t.call<{ evaluationSetItems: Json[] }>('GET', `/evaluation_sets/${setId}/items`)).body.evaluationSetItems).toEqual([]);
    const items = Array.from({ length: 5 }, (_, i) => ({ fileId, expectedOutput: expected(i) }));
    const ok = await t.call<{ evaluationSetItems: Json[] }>('POST', '/evaluation_set_items/bulk', { body: { evaluationSetId: setId, items } });
    expect(ok.status).toBe(200);
    expect(ok.body.evaluationSetItems).toHaveLength(5);
    const seen: unknown[] = [];
    let token: string | null = null;
    do {
      const r: { body: { evaluationSetItems: Json[]; nextPageToken: string | null } } = await t.call('GET', `/evaluation_sets/${setId}/items?maxPageSize=2${token ? `&nextPageToken=${token}` : ''}`);
      seen.push(...r.body.evaluationSetItems.map((i) => i.id));
      token = r.body.nextPageToken;
    } while (token);
    expect(seen).toEqual(ok.body.evaluationSetItems.map((i) => i.id));
  });

  test.each([
    ['items missing', {}, /items is required/],
    ['no items', { items: [] }, /items must hold from 1 to 1000 elements/],
    ['too many items', { items: Array.from({ length: 1001 }, () => ({})) }, /items must hold from 1 to 1000 elements \(got 1001\)/],
    ['item not an object', { items: [3] }, /items\[0\] must be a JSON object/],
  ])('bulk 400: %s', async (_n, body, msg) => {
    const setId = await createSet();
    const r = await t.call('POST', '/evaluation_set_items/bulk', { body: { evaluationSetId: setId, ...body } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(msg);
  });

  test('splitter expected outputs are stored with splits and served in the caller\'s layout', async () => {
    const sp = await createProcessor(t, 'SPLITTER', SPLITTER_CONFIG);
    const setId = await createSet(sp);
    const old = { subDocumentClassifications: [{ id: 's1', classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 1 }] };
    const r = await t.call<{ evaluationSetItem: { id: string; expectedOutput: Json } }>('POST', '/evaluation_set_items', { version: '2024-12-23', body: { evaluationSetId: setId, fileId, expectedOutput: old } });
    expect(r.status).toBe(200);
    expect(r.body.evaluationSetItem.expectedOutput).toEqual(old);
    const now = await t.call<{ evaluationSetItem: { expectedOutput: Json } }>('GET', `/evaluation_set_items/${r.body.evaluationSetItem.id}`);
    expect(now.body.evaluationSetItem.expectedOutput).toEqual({ splits: old.subDocumentClassifications });
  });
});

describe('batch processor runs (evaluation runs, a sandbox extension)', () => {
  test('end to end through the client: set + items + batch run -> runs by batchProcessorRunId -> PROCESSED with metrics', async () => {
    // 2025-04-21: batch processor runs are that version's evaluation runs (2026-02-09's, POST /evaluation_set_runs: evaluation-set-runs.test.ts).
    const client = createClient({ baseUrl: t.url, token: t.token, maxRetries: 0, apiVersion: '2025-04-21' });
    const proc = await client.processors.create({ name: 'eval', type: 'EXTRACT', config: INVOICE_CONFIG });
    await client.processors.publish(proc.id, { releaseType: 'major' });
    const set = await client.sets.create({ name: 'golden', entityId: proc.id });
    const files = await Promise.all(Array.from({ length: 6 }, (_, i) => client.files.upload({ name: `doc-${i}.txt`, data: `Invoice number: INV-${i}` })));
    const items = await client.items(set.id).create(files.map((f, i) => ({ fileId: f.id, expectedOutput: expected(i) })));
    const batch = await client.batchProcessorRuns.create({ evaluationSetId: set.id, version: '1.0', options: { excludeFields: ['paid'], fuzzyMatchFields: ['invoice_number'] } });
    expect(batch).toMatchObject({ object: 'batch_processor_run', status: 'PROCESSING', source: 'EVAL_SET', sourceId: set.id, runCount: 6, processorId: proc.id, options: { excludeFields: ['paid'] } });
    expect(batch.id).toMatch(/^bpr_/);

    const runs = [];
    for await (const r of client.processorRuns.listAll({ batchProcessorRunId: batch.id, maxPageSize: 4 })) runs.push(r);
    expect(runs).toHaveLength(6);
    expect(new Set(runs.map((r) => (r as Json).evaluationSetItemId))).toEqual(new Set(items.map((i) => i.id)));
    expect(runs.every((r) => r.batchProcessorRunId === batch.id)).toBe(true);

    const done = await client.batchProcessorRuns.waitFor(batch.id, { timeoutMs: 20_000, intervalMs: 20, maxIntervalMs: 100 });
    expect(done.status).toBe('PROCESSED');
    const m = done.metrics as Json & { fieldMetrics: Record<string, Json>; arrayCardinalityMetrics: Record<string, Json> };
    expect(m).toMatchObject({ numFiles: 6, numPages: 6, meanRunTimeMs: expect.any(Number), accuracyPerc: expect.any(Number) });
    expect(Object.keys(m.fieldMetrics).sort()).toEqual(['amount_due', 'invoice_number', 'line_items', 'total']);
    expect(m.fieldMetrics.total).toEqual({ meanConfidence: expect.any(Number), recallPerc: expect.any(Number), precisionPerc: expect.any(Number) });
    expect(m.fieldMetrics.line_items.fieldMetrics).toHaveProperty('description');
    expect(m.arrayCardinalityMetrics.line_items).toMatchObject({ numTotal: 6 });
    const all = await client.processorRuns.list({ batchProcessorRunId: batch.id, status: 'PROCESSED' });
    expect(all.items).toHaveLength(6);
  });

  test('error rate 0: every field right, recall and precision 100', async () => {
    const s = await start({ engine: 'simulate:1,0' });
    try {
      const p = await createProcessor(s, 'EXTRACT', INVOICE_CONFIG);
      const f = await uploadText(s, 'a.txt', 'x');
      const set = (await s.call<{ evaluationSet: { id: string } }>('POST', '/evaluation_sets', { body: { name: 's', processorId: p } })).body.evaluationSet.id;
      await s.call('POST', '/evaluation_set_items/bulk', { body: { evaluationSetId: set, items: [0, 1, 2].map((i) => ({ fileId: f, expectedOutput: expected(i) })) } });
      const b = await s.call<{ batchProcessorRun: { id: string } }>('POST', '/batch_processor_runs', { body: { evaluationSetId: set } });
      await s.sb.idle();
      const done = await s.call<{ batchProcessorRun: { status: string; metrics: Json & { fieldMetrics: Record<string, Json> } } }>('GET', `/batch_processor_runs/${b.body.batchProcessorRun.id}`);
      expect(done.body.batchProcessorRun.status).toBe('PROCESSED');
      expect(done.body.batchProcessorRun.metrics.accuracyPerc).toBe(100);
      for (const f of Object.values(done.body.batchProcessorRun.metrics.fieldMetrics)) expect(f).toMatchObject({ recallPerc: 100, precisionPerc: 100 });
    } finally {
      await s.close();
    }
  });

  test('CLASSIFY and SPLITTER metrics have the service\'s members', async () => {
    const s = await start({ engine: 'simulate:3,0.5' });
    try {
      const f = await uploadText(s, 'a.txt', 'x');
      const run = async (type: string, config: Json, outputs: Json[]): Promise<Json> => {
        const p = await createProcessor(s, type, config);
        const set = (await s.call<{ evaluationSet: { id: string } }>('POST', '/evaluation_sets', { body: { name: 's', processorId: p } })).body.evaluationSet.id;
        const bulk = await s.call('POST', '/evaluation_set_items/bulk', { body: { evaluationSetId: set, items: outputs.map((o) => ({ fileId: f, expectedOutput: o })) } });
        expect(bulk.status).toBe(200);
        const b = await s.call<{ batchProcessorRun: { id: string } }>('POST', '/batch_processor_runs', { body: { evaluationSetId: set } });
        await s.sb.idle();
        return (await s.call<{ batchProcessorRun: { metrics: Json } }>('GET', `/batch_processor_runs/${b.body.batchProcessorRun.id}`)).body.batchProcessorRun.metrics;
      };
      const classes = ['invoice', 'receipt', 'contract'];
      const cm = await run('CLASSIFY', CLASSIFY_CONFIG, Array.from({ length: 12 }, (_, i) => ({ id: classes[i % 3], type: classes[i % 3] })));
      expect(cm).toMatchObject({ numFiles: 12, accuracyPerc: expect.any(Number), meanConfidence: expect.any(Number), distribution: expect.any(Object), accuracyPercByClassification: expect.any(Object), confusionMatrix: expect.any(Object) });
      expect(cm.accuracyPerc).toBeLessThan(100);
      const total = Object.values(cm.confusionMatrix as Record<string, Record<string, number>>).flatMap((row) => Object.values(row)).reduce((a, b) => a + b, 0);
      expect(total).toBe(12);
      const splits = [{ id: 's1', classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 2 }, { id: 's2', classificationId: 'receipt', type: 'receipt', startPage: 3, endPage: 4 }];
      const sm = await run('SPLITTER', SPLITTER_CONFIG, Array.from({ length: 10 }, () => ({ splits })));
      expect(sm).toMatchObject({ numExpectedDocs: 20, numPredictedDocs: 20, precisionPerc: expect.any(Number), recallPerc: expect.any(Number), numCorrectDocs: expect.any(Number) });
      expect(sm.numCorrectDocs).toBeLessThan(20);
    } finally {
      await s.close();
    }
  });

  test.each([
    ['no evaluationSetId', {}, 400, /evaluationSetId is required/],
    ['unknown set', { evaluationSetId: 'ev_missing' }, 404, /evaluationSetId ev_missing not found/],
    ['bad version', { evaluationSetId: 'SET', version: 'newest' }, 400, /version must be/],
    ['unknown version', { evaluationSetId: 'SET', version: '7.0' }, 404, /version 7.0/],
    ['unknown option', { evaluationSetId: 'SET', options: { fuzzy: true } }, 400, /options.fuzzy is not a known option/],
    ['bad option', { evaluationSetId: 'SET', options: { excludeFields: 'total' } }, 400, /options.excludeFields must be an array of strings/],
    ['empty set', { evaluationSetId: 'SET' }, 400, /has no items/],
  ])('POST /batch_processor_runs %s -> %i', async (_n, body, status, msg) => {
    const setId = await createSet();
    const r = await t.call('POST', '/batch_processor_runs', { body: JSON.parse(JSON.stringify(body).replace('"SET"', JSON.stringify(setId))) });
    expect(r.status).toBe(status);
    expect(r.body.error).toMatch(msg);
  });

  test('GET /batch_processor_runs/:id 404', async () => {
    expect((await t.call('GET', '/batch_processor_runs/bpr_missing')).status).toBe(404);
  });
});

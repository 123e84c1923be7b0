/**
 * 2026-02-09 evaluation sets and nested items (spec 3.7, 4.1, 7): answers member for member,
 * expected outputs in the 2026-02-09 form, stored once with the 2025-04-21 routes.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, SPLITTER_CONFIG, createProcessor, start, uploadText, type TestSandbox } from './helpers.js';

type Json = Record<string, unknown>;
let t: TestSandbox;
const V26 = '2026-02-09';
const call = <T = Json>(method: string, path: string, body?: unknown) => t.call<T>(method, path, { version: V26, ...(body === undefined ? {} : { body }) });
let fileId: string;
let exId: string;

const SET_KEYS = ['createdAt', 'createdBy', 'description', 'entity', 'id', 'name', 'object', 'updatedAt'];
const ITEM_KEYS = ['createdBy', 'evaluationSetId', 'expectedOutput', 'file', 'id', 'object'];
const keys = (o: unknown): string[] => Object.keys(o as Json).sort();

beforeAll(async () => {
  t = await start();
  fileId = await uploadText(t, 'inv.txt', 'Invoice number: 1');
  const { type: _t, ...schemaConfig } = INVOICE_CONFIG;
  const e = await call<Json>('POST', '/extractors', { name: 'Invoices', config: schemaConfig });
  exId = e.body.id as string;
});
afterAll(() => t?.close());

async function newSet(entityId: string, extra: Json = {}): Promise<Json> {
  const r = await call<Json>('POST', '/evaluation_sets', { name: 'set', entityId, ...extra });
  expect(r.status).toBe(200);
  return r.body;
}

describe('evaluation sets', () => {
  test('create answers a bare EvaluationSet with its entity summary', async () => {
    const s = await newSet(exId);
    expect(keys(s)).toEqual(SET_KEYS);
    expect(s).toMatchObject({ object: 'evaluation_set', name: 'set', description: '', createdBy: { type: 'api_key', name: 'default dev token' } });
    expect(s.id).toMatch(/^ev_/);
    expect(s.entity).toEqual({ object: 'extractor', id: exId, name: 'Invoices', createdAt: expect.any(String), updatedAt: expect.any(String) });
    const got = await call<Json>('GET', `/evaluation_sets/${String(s.id)}`);
    expect(got.body).toEqual(s);
  });

  test('an entity of any kind and family: a dp_ CLASSIFY processor is a classifier entity', async () => {
    const dp = await createProcessor(t, 'CLASSIFY', CLASSIFY_CONFIG, 'kinds');
    const s = await newSet(dp, { description: 'about kinds' });
    expect(s.entity).toMatchObject({ object: 'classifier', id: dp, name: 'kinds' });
    expect(s.description).toBe('about kinds');
  });

  test('list by entityId with paging; the legacy routes read the same set', async () => {
    const a = await newSet(exId);
    const b = await newSet(exId);
    const p1 = await call<Json>('GET', `/evaluation_sets?entityId=${exId}&maxPageSize=1&sortBy=createdAt&sortDir=desc`);
    expect(p1.body.object).toBe('list');
    expect((p1.body.data as Json[]).map((s) => s.id)).toEqual([b.id]);
    const p2 = await call<Json>('GET', `/evaluation_sets?entityId=${exId}&maxPageSize=1&sortBy=createdAt&sortDir=desc&nextPageToken=${String(p1.body.nextPageToken)}`);
    expect((p2.body.data as Json[]).map((s) => s.id)).toEqual([a.id]);
    const legacy = await t.call<{ evaluationSet: Json }>('GET', `/evaluation_sets/${String(a.id)}`);
    expect(legacy.body.evaluationSet).toMatchObject({ id: a.id, processorId: exId, description: null });
  });

  test('bad input: processorId, unknown entity, oversized page', async () => {
    const old = await call<Json>('POST', '/evaluation_sets', { name: 'x', processorId: exId });
    expect(old.status).toBe(400);
    expect(old.body.message).toContain('send entityId');
    const missing = await call<Json>('POST', '/evaluation_sets', { name: 'x', entityId: 'ex_missing' });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'NOT_FOUND', message: 'entityId ex_missing not found' });
    const q = await call<Json>('GET', `/evaluation_sets?processorId=${exId}`);
    expect(q.status).toBe(400);
    expect((await call<Json>('GET', '/evaluation_sets?maxPageSize=1001')).status).toBe(400);
    // ... and the reverse: a 2026-02-09 body sent as 2025-04-21.
    const reverse = await t.call<Json>('POST', '/evaluation_sets', { body: { name: 'x', entityId: exId } });
    expect(reverse.status).toBe(400);
    expect(reverse.body.error).toContain('send processorId');
  });
});

describe('evaluation set items', () => {
  const expected = { value: { invoice_number: 'INV-1', total: 10, paid: null, amount_due: { amount: 1, iso_4217_currency_code: 'EUR' }, line_items: [] } };

  test('create (1..100) answers {evaluationSetItems}; list summaries; retrieve, update, delete', async () => {
    const s = await newSet(exId);
    const setId = String(s.id);
    const c = await call<Json>('POST', `/evaluation_sets/${setId}/items`, { items: [{ fileId, expectedOutput: expected }] });
    expect(c.status).toBe(200);
    expect(keys(c.body)).toEqual(['evaluationSetItems']);
    const item = (c.body.evaluationSetItems as Json[])[0];
    expect(keys(item)).toEqual(ITEM_KEYS);
    expect(item).toMatchObject({ object: 'evaluation_set_item', evaluationSetId: setId, expectedOutput: expected, createdBy: { type: 'api_key', name: 'default dev token' } });
    expect(item.id).toMatch(/^evi_/);
    expect(item.file).toMatchObject({ object: 'file', id: fileId, name: 'inv.txt', type: 'TXT', parentFileId: null });
    expect(keys(item.file)).toEqual(['createdAt', 'id', 'metadata', 'name', 'object', 'parentFileId', 'type', 'updatedAt']);

    const list = await call<Json>('GET', `/evaluation_sets/${setId}/items`);
    const rows = list.body.data as Json[];
    expect(rows).toHaveLength(1);
    expect(keys(rows[0])).toEqual(['createdBy', 'file', 'id', 'object']);
    expect(rows[0].createdBy).toEqual({ type: 'api_key', name: 'default dev token' });

    const itemPath = `/evaluation_sets/${setId}/items/${String(item.id)}`;
    expect((await call<Json>('GET', itemPath)).body).toEqual(item);
    const changed = { value: { ...expected.value, total: 11 } };
    const u = await call<Json>('POST', itemPath, { expectedOutput: changed });
    expect(u.status).toBe(200);
    expect(u.body.expectedOutput).toEqual(changed);
    // The legacy route reads the same item.
    const legacy = await t.call<{ evaluationSetItem: Json }>('GET', `/evaluation_set_items/${String(item.id)}`);
    expect(legacy.body.evaluationSetItem).toMatchObject({ fileId, expectedOutput: changed });

    const other = await newSet(exId);
    const wrongSet = await call<Json>('GET', `/evaluation_sets/${String(other.id)}/items/${String(item.id)}`);
    expect(wrongSet.status).toBe(404);
    expect(wrongSet.body.message).toContain(`not found in evaluation set ${String(other.id)}`);

    const d = await call<Json>('DELETE', itemPath);
    expect(d.body).toEqual({ id: item.id });
    expect((await call<Json>('GET', itemPath)).status).toBe(404);
  });

  test('expectedOutput is checked against the entity\'s config, with the pointer into the body; all or nothing', async () => {
    const s = await newSet(exId);
    const r = await call<Json>('POST', `/evaluation_sets/${String(s.id)}/items`, {
      items: [{ fileId, expectedOutput: expected }, { fileId, expectedOutput: { value: { nope: 1 } } }],
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/\/items\/1\/expectedOutput\/value\/nope.*rule unknown-field/);
    expect(r.body.message).toContain(`extractor ${exId}`);
    const list = await call<Json>('GET', `/evaluation_sets/${String(s.id)}/items`);
    expect(list.body.data).toEqual([]);
    const fieldsForm = await call<Json>('POST', `/evaluation_sets/${String(s.id)}/items`, { items: [{ fileId, expectedOutput: { invoice_number: { id: 'invoice_number', value: 'x' } } }] });
    expect(fieldsForm.status).toBe(400);
    expect(fieldsForm.body.message).toContain('/items/0/expectedOutput/invoice_number');
  });

  test('an entity whose config has 2026-only members checks expected outputs the same way', async () => {
    const { type: _t, ...schemaConfig } = INVOICE_CONFIG;
    const e = await call<Json>('POST', '/extractors', { name: 'x', config: { ...schemaConfig, parseConfig: { target: 'markdown', engine: 'parse_light' }, advancedOptions: { citationsEnabled: true, citationMode: 'word' } } });
    expect(e.status).toBe(200);
    const s = await newSet(e.body.id as string);
    const ok = await call<Json>('POST', `/evaluation_sets/${String(s.id)}/items`, { items: [{ fileId, expectedOutput: expected }] });
    expect(ok.status).toBe(200);
    const bad = await call<Json>('POST', `/evaluation_sets/${String(s.id)}/items`, { items: [{ fileId, expectedOutput: { value: { nope: 1 } } }] });
    expect(bad.body.message).toMatch(/\/items\/0\/expectedOutput\/value\/nope.*rule unknown-field/);
  });

  test('1 to 100 items per call; an unknown file is a 400 naming the item', async () => {
    const s = await newSet(exId);
    const path = `/evaluation_sets/${String(s.id)}/items`;
    const none = await call<Json>('POST', path, { items: [] });
    expect(none.status).toBe(400);
    const many = await call<Json>('POST', path, { items: Array.from({ length: 101 }, () => ({ fileId, expectedOutput: expected })) });
    expect(many.status).toBe(400);
    expect(many.body.message).toBe('items must hold from 1 to 100 elements (got 101); send larger sets in several calls');
    const hundred = await call<Json>('POST', path, { items: Array.from({ length: 100 }, () => ({ fileId, expectedOutput: expected })) });
    expect(hundred.status).toBe(200);
    const file = await call<Json>('POST', path, { items: [{ fileId: 'file_missing', expectedOutput: expected }] });
    expect(file.status).toBe(400);
    expect(file.body.message).toContain('items[0].fileId file_missing does not exist');
    const oldBody = await call<Json>('POST', path, { evaluationSetId: s.id, fileId, expectedOutput: expected });
    expect(oldBody.status).toBe(400);
    expect(oldBody.body.message).toContain('{items: [{fileId, expectedOutput}]}');
  });
});

describe('expected outputs between the two forms (spec 3.7)', () => {
  test('CLASSIFY: confidence is refused going in; a legacy item\'s confidence is not shown', async () => {
    const dp = await createProcessor(t, 'CLASSIFY', CLASSIFY_CONFIG);
    const s = await newSet(dp);
    const path = `/evaluation_sets/${String(s.id)}/items`;
    const bad = await call<Json>('POST', path, { items: [{ fileId, expectedOutput: { id: 'invoice', type: 'invoice', confidence: 1 } }] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^\/items\/0\/expectedOutput\/confidence: confidence is the 2025-04-21 form/);
    const legacy = await t.call<{ evaluationSetItem: Json }>('POST', '/evaluation_set_items', { body: { evaluationSetId: s.id, fileId, expectedOutput: { id: 'receipt', type: 'receipt', confidence: 0.9 } } });
    expect(legacy.status).toBe(200);
    const got = await call<Json>('GET', `${path}/${String(legacy.body.evaluationSetItem.id)}`);
    expect(got.body.expectedOutput).toEqual({ id: 'receipt', type: 'receipt' });
    const ok = await call<Json>('POST', path, { items: [{ fileId, expectedOutput: { id: 'invoice', type: 'invoice' } }] });
    expect((ok.body.evaluationSetItems as Json[])[0].expectedOutput).toEqual({ id: 'invoice', type: 'invoice' });
  });

  test('SPLITTER: a split id is refused going in; stored splits get split_<n> ids the legacy routes show', async () => {
    const dp = await createProcessor(t, 'SPLITTER', SPLITTER_CONFIG);
    const s = await newSet(dp);
    const path = `/evaluation_sets/${String(s.id)}/items`;
    const split = (extra: Json = {}) => ({ classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 2, ...extra });
    const bad = await call<Json>('POST', path, { items: [{ fileId, expectedOutput: { splits: [split(), split({ id: 'x' })] } }] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^\/items\/0\/expectedOutput\/splits\/1\/id: a split's id is the 2025-04-21 form/);
    const ok = await call<Json>('POST', path, { items: [{ fileId, expectedOutput: { splits: [split(), split({ startPage: 3, endPage: 3 })] } }] });
    expect(ok.status).toBe(200);
    const item = (ok.body.evaluationSetItems as Json[])[0];
    expect(item.expectedOutput).toEqual({ splits: [split(), split({ startPage: 3, endPage: 3 })] });
    const legacy = await t.call<{ evaluationSetItem: Json }>('GET', `/evaluation_set_items/${String(item.id)}`);
    expect(legacy.body.evaluationSetItem.expectedOutput).toEqual({ splits: [split({ id: 'split_1' }), split({ startPage: 3, endPage: 3, id: 'split_2' })] });
  });
});

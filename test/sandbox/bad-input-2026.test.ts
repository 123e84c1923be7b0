/**
 * Bad input on the 2026-02-09 routes answers 400/404 in the version's error shape, never a 500
 * (found by fuzzing: user keys as sort names, a config the expected-output rules cannot read), and
 * what is still unexpected answers 500 in the caller's error shape, without details.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { Store } from '../../src/sandbox/store.js';
import { start, uploadText, type TestSandbox } from './helpers.js';

type Json = Record<string, unknown>;

let t: TestSandbox;
const V26 = '2026-02-09';
const call = <T = Json>(method: string, path: string, body?: unknown) => t.call<T>(method, path, { version: V26, ...(body === undefined ? {} : { body }) });
const API_ERROR = { code: expect.any(String), message: expect.any(String), retryable: expect.any(Boolean), requestId: expect.stringMatching(/^req_/) };

beforeAll(async () => {
  t = await start();
});
afterAll(() => t?.close());
afterEach(() => {
  vi.restoreAllMocks();
});

describe('sortBy is a name from a list, not a key of an object', () => {
  const lists = ['/extractors', '/classifiers', '/splitters', '/evaluation_sets', '/extract_runs', '/split_runs', '/workflows', '/workflow_runs'];
  test.each(lists.flatMap((l) => ['constructor', '__proto__', 'toString'].map((k) => [l, k])))('GET %s?sortBy=%s is a 400 naming the accepted sorts', async (list, key) => {
    const r = await call<Json>('GET', `${list}?sortBy=${key}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ ...API_ERROR, code: 'INVALID_REQUEST', retryable: false, message: expect.stringMatching(/^sortBy must be one of createdAt, updatedAt/) });
  });

  test('the legacy routes too, in their shape', async () => {
    const r = await t.call<Json>('GET', '/processors?sortBy=constructor');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: expect.stringMatching(/^sortBy must be one of/) });
  });
});

test('items for an extractor whose schema has no properties (the default config): {} is taken, a field is a 400 naming its pointer', async () => {
  const ex = await call<Json>('POST', '/extractors', { name: 'empty', config: { schema: { type: 'object', properties: {} } } });
  expect(ex.status).toBe(200);
  const set = await call<Json>('POST', '/evaluation_sets', { name: 's', entityId: ex.body.id });
  const fileId = await uploadText(t, 'a.txt', 'a: 1');
  const bad = await call<Json>('POST', `/evaluation_sets/${String(set.body.id)}/items`, { items: [{ fileId, expectedOutput: { value: { total: 1 } } }] });
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/\/items\/0\/expectedOutput\/value\/total: "total" is not a field of the config \(rule unknown-field\)/) });
  expect((await call<Json>('GET', `/evaluation_sets/${String(set.body.id)}/items`)).body.data).toEqual([]);
  const ok = await call<Json>('POST', `/evaluation_sets/${String(set.body.id)}/items`, { items: [{ fileId, expectedOutput: { value: {} } }] });
  expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  expect(((await call<Json>('GET', `/evaluation_sets/${String(set.body.id)}/items`)).body.data as unknown[]).length).toBe(1);
});

describe('an unexpected error is a 500 in the caller\'s error shape, with no details', () => {
  test('2026-02-09: ApiError INTERNAL_ERROR, retryable', async () => {
    vi.spyOn(Store.prototype, 'list').mockImplementationOnce(() => {
      throw new Error('boom: secret detail');
    });
    const r = await call<Json>('GET', '/extractors');
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ ...API_ERROR, code: 'INTERNAL_ERROR', retryable: true, message: 'internal sandbox error' });
  });

  test('2025-04-21: {success: false, error}', async () => {
    vi.spyOn(Store.prototype, 'list').mockImplementationOnce(() => {
      throw new Error('boom: secret detail');
    });
    const r = await t.call<Json>('GET', '/processors');
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ success: false, error: 'internal sandbox error' });
  });
});

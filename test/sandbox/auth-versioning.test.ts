import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { INVOICE_CONFIG, SPLITTER_CONFIG, createProcessor, start, type TestSandbox } from './helpers.js';

const NEW = 'tok_new_0123456789';
const OLD = 'tok_old_0123456789';
const SCOPED = 'tok_scoped_0123456789';
const PINNED = 'tok_pinned_0123456789';

let t: TestSandbox;
let allowed: string;
let other: string;

beforeAll(async () => {
  t = await start({
    tokens: [
      { token: NEW, createdAt: '2025-05-01' },
      { token: OLD, createdAt: '2024-06-01' },
      { token: PINNED, createdAt: '2025-06-01', apiVersion: '2024-12-23' },
      // Only the processor created below (its id is known after start: see the scoped tests).
      { token: SCOPED, createdAt: '2025-05-01', processors: ['dp_placeholder'] },
    ],
  });
  allowed = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
  other = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
});
afterAll(() => t.close());

describe('authentication (part 5)', () => {
  test.each([
    ['no Authorization header', null, /missing Authorization header/],
    ['unknown token', 'tok_unknown_0123', /invalid API token/],
  ])('401 for %s', async (_name, token, msg) => {
    const r = await t.call('GET', '/processors', { token });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ success: false, error: expect.stringMatching(msg) });
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  test('401 for a malformed Authorization header, and the token never appears in the error', async () => {
    const r = await t.call('GET', '/processors', { token: null, headers: { authorization: `Basic ${NEW}` } });
    expect(r.status).toBe(401);
    expect(JSON.stringify(r.body)).not.toContain(NEW);
  });

  test('401 on every route, also under /v1 and for unknown paths', async () => {
    for (const path of ['/processor_runs/dpr_x', '/v1/files', '/evaluation_sets', '/batch_processor_runs/bpr_x', '/nope']) {
      expect((await t.call('GET', path, { token: null })).status).toBe(401);
    }
  });

  test('/healthz needs no token', async () => {
    const r = await t.call('GET', '/healthz', { token: null, version: null });
    expect(r).toMatchObject({ status: 200, body: { success: true } });
  });
});

describe('403 for a token scoped to other processors', () => {
  const scoped = { token: SCOPED };
  test.each([
    ['POST', '/processor_runs', () => ({ processorId: other, rawText: 'x' })],
    ['POST', '/processors/:id', () => ({ name: 'renamed' })],
    ['POST', '/processors/:id/publish', () => ({ releaseType: 'major' })],
    ['GET', '/processors/:id/versions', () => undefined],
    ['GET', '/processors/:id/versions/draft', () => undefined],
    ['POST', '/evaluation_sets', () => ({ name: 's', processorId: other })],
  ])('%s %s', async (method, path, body) => {
    const r = await t.call(method, path.replace(':id', other), { ...scoped, body: body() });
    expect(r.status).toBe(403);
    expect(r.body.error).toContain(other);
  });

  test('POST /processors (a clone of another or not): creating needs a workspace-wide token, it could not use what it made', async () => {
    const r = await t.call('POST', '/processors', { ...scoped, body: { name: 'c', type: 'EXTRACT', cloneProcessorId: other } });
    expect(r.status).toBe(403);
    expect(r.body.error).toContain('creating a processor needs a workspace-wide API token');
  });

  test('lists only show what the token may use', async () => {
    const r = await t.call<{ processors: unknown[] }>('GET', '/processors', scoped);
    expect(r.status).toBe(200);
    expect(r.body.processors).toEqual([]);
    const all = await t.call<{ processors: Array<{ id: string }> }>('GET', '/processors');
    expect(all.body.processors.map((p) => p.id)).toEqual(expect.arrayContaining([allowed, other]));
  });

  test('a run of a processor the token may not use is 403, not 404', async () => {
    const run = await t.call<{ processorRun: { id: string } }>('POST', '/processor_runs', { body: { processorId: other, rawText: 'Total: 1' } });
    expect(run.status).toBe(200);
    expect((await t.call('GET', `/processor_runs/${run.body.processorRun.id}`, scoped)).status).toBe(403);
  });
});

describe('versioning (part 9)', () => {
  test('a token created on or after 2025-04-21 without the header: 400 naming the header', async () => {
    const r = await t.call('GET', '/processors', { token: NEW, version: null });
    expect(r.status).toBe(400);
    expect(r.body.error).toContain('x-service-api-version');
  });

  test('an older token without the header is pinned to 2024-12-23', async () => {
    const r = await t.call('GET', '/processors', { token: OLD, version: null });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-service-api-version')).toBe('2024-12-23');
  });

  test('a token with an operator-set default version uses it without the header', async () => {
    const r = await t.call('GET', '/processors', { token: PINNED, version: null });
    expect(r.headers.get('x-service-api-version')).toBe('2024-12-23');
  });

  test.each(['x-service-api-version', 'X-Service-Api-Version', 'X-SERVICE-API-VERSION'])('header name is case-insensitive: %s', async (name) => {
    const r = await t.call('GET', '/processors', { token: NEW, version: null, headers: { [name]: '2024-11-14' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-service-api-version')).toBe('2024-11-14');
  });

  test.each([
    ['2023-01-01', /unsupported API version "2023-01-01"/],
    ['latest', /must be an API version date/],
  ])('400 for version %s', async (v, msg) => {
    const r = await t.call('GET', '/processors', { version: v });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(msg);
  });

  test('configs are stored in the 2025-04-21 layout and served in the caller\'s layout', async () => {
    const id = await createProcessor(t, 'SPLITTER', { ...SPLITTER_CONFIG, splitRules: 'split at headers' });
    const newer = await t.call<{ version: { config: Record<string, unknown> } }>('GET', `/processors/${id}/versions/draft`);
    expect(newer.body.version.config).toMatchObject({ splitClassifications: SPLITTER_CONFIG.splitClassifications, splitRules: 'split at headers' });
    const older = await t.call<{ version: { config: Record<string, unknown> } }>('GET', `/processors/${id}/versions/draft`, { version: '2024-12-23' });
    expect(older.body.version.config).toMatchObject({ subDocumentClassifications: SPLITTER_CONFIG.splitClassifications, customSplitterRules: 'split at headers' });
    expect(older.body.version.config).not.toHaveProperty('splitClassifications');
  });

  test('a caller of an older version may send the old layout; it is stored in the new one', async () => {
    const r = await t.call<{ processor: { id: string } }>('POST', '/processors', {
      version: '2024-12-23',
      body: { name: 'old', type: 'CLASSIFY', config: { fields: [{ id: 'a', type: 'a', description: 'A' }], customClassificationRules: 'r' } },
    });
    expect(r.status).toBe(200);
    const v = await t.call<{ version: { config: Record<string, unknown> } }>('GET', `/processors/${r.body.processor.id}/versions/draft`);
    expect(v.body.version.config).toMatchObject({ classifications: [{ id: 'a', type: 'a', description: 'A' }], classificationRules: 'r' });
  });
});

describe('/v1 prefix parity', () => {
  test.each([
    ['GET', '/processors'],
    ['GET', '/files'],
    ['GET', '/evaluation_sets'],
    ['GET', '/processor_runs'],
    ['GET', '/batch_processor_runs'],
    ['GET', '/processors/dp_missing/versions'],
    ['GET', '/processor_runs/dpr_missing'],
    ['GET', '/files/file_missing'],
    ['GET', '/evaluation_sets/ev_missing'],
    ['GET', '/evaluation_set_items/evi_missing'],
    ['GET', '/batch_processor_runs/bpr_missing'],
    ['POST', '/processor_runs'],
    ['POST', '/processors'],
    ['POST', '/evaluation_set_items'],
  ])('%s %s answers the same with and without /v1', async (method, path) => {
    const body = method === 'POST' ? {} : undefined;
    const a = await t.call(method, path, { body });
    const b = await t.call(method, `/v1${path}`, { body });
    expect(b.status).toBe(a.status);
    expect(Object.keys(b.body).sort()).toEqual(Object.keys(a.body).sort());
    if (a.status >= 400) expect(b.body.error).toBe(a.body.error);
  });

  test('a resource created under /v1 is the same resource without it', async () => {
    const c = await t.call<{ processor: { id: string } }>('POST', '/v1/processors', { body: { name: 'v1', type: 'EXTRACT', config: INVOICE_CONFIG } });
    const versions = await t.call<{ versions: Array<{ version: string }> }>('GET', `/processors/${c.body.processor.id}/versions`);
    expect(versions.body.versions.map((v) => v.version)).toEqual(['draft']);
  });
});

describe('a deployment with another version header name', () => {
  test('the configured name is read, required and echoed', async () => {
    const s = await start({ versionHeader: 'X-Extend-API-Version' });
    try {
      const missing = await s.call('GET', '/processors', { version: null });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toContain('x-extend-api-version');
      const ok = await s.call('GET', '/processors', { version: null, headers: { 'x-extend-api-version': '2024-12-23' } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-extend-api-version')).toBe('2024-12-23');
    } finally {
      await s.close();
    }
  });
});

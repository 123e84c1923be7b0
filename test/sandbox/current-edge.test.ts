/**
 * The 2026-02-09 edge (current.ts, router families, server error bodies): the version is
 * accepted, the legacy routes it kept answer as before, other routes and errors answer in the
 * 2026-02-09 forms, and configs keep their 2026-only members through the hub layout.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadCore } from '../../src/sandbox/core.js';
import { EXTRAS, apiErrorBody, currentFromStored, legacyConfig, listAnswer, storedFromCurrent } from '../../src/sandbox/current.js';
import type { Ctx } from '../../src/sandbox/context.js';
import { start, INVOICE_CONFIG, type TestSandbox } from './helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await start();
});
afterAll(() => t?.close());

const V26 = '2026-02-09';

describe('API version 2026-02-09 on the wire', () => {
  test('the legacy /processors routes are served under 2026-02-09 with their 2025-04-21 answers', async () => {
    const r = await t.call('POST', '/processors', { version: V26, body: { name: 'Legacy', type: 'EXTRACT', config: INVOICE_CONFIG } });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.headers.get('x-service-api-version')).toBe(V26);
    const bad = await t.call('POST', '/processors', { version: V26, body: { name: 'x' } });
    expect(bad.status).toBe(400);
    // The legacy routes keep `{success: false, error}` (spec 1.2, INFERRED).
    expect(bad.body).toEqual({ success: false, error: 'type is required' });
  });

  test('errors of other routes are ApiError bodies: code, message, retryable, requestId', async () => {
    const r = await t.call('GET', '/no_such_thing', { version: V26 });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'NOT_FOUND', retryable: false });
    expect(r.body).not.toHaveProperty('success');
    expect(String((r.body as Record<string, unknown>).requestId)).toMatch(/^req_[\w-]{24}$/);
    const unauthorized = await t.call('GET', '/processors', { version: V26, token: 'nope' });
    expect(unauthorized.status).toBe(401);
    // Before the token is known, the header alone picks the body; /processors is legacy, but the
    // route is not settled when authentication fails.
    expect(unauthorized.body).toMatchObject({ code: 'UNAUTHORIZED', retryable: false });
  });

  test('a 2025-04-21 route that 2026-02-09 moved is a 404 that says so', async () => {
    const r = await t.call('POST', '/evaluation_set_items', { version: V26, body: {} });
    expect(r.status).toBe(404);
    expect(String((r.body as Record<string, unknown>).message)).toContain('is a route of API version 2025-04-21 and older');
  });

  test('2025-04-21 callers are unchanged, and unknown versions still name the supported ones', async () => {
    const r = await t.call('GET', '/no_such_thing');
    expect(r.body).toEqual({ success: false, error: 'no such endpoint: GET /no_such_thing' });
    const bad = await t.call('GET', '/processors', { version: '2027-01-01' });
    expect(bad.status).toBe(400);
    // A version date after 2026-02-09 reads as a current caller: the answer is an ApiError.
    expect(String((bad.body as Record<string, unknown>).message)).toContain('2025-04-21, 2026-02-09');
  });
});

describe('edge helpers', () => {
  test('lists leave nextPageToken out on the last page', () => {
    expect(listAnswer([1], null)).toEqual({ object: 'list', data: [1] });
    expect(listAnswer([1], 'abc')).toEqual({ object: 'list', data: [1], nextPageToken: 'abc' });
  });

  test('ApiError codes and retryable per status', () => {
    expect(JSON.parse(apiErrorBody(429, 'slow down'))).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', retryable: true, message: 'slow down' });
    expect(JSON.parse(apiErrorBody(400, 'bad'))).toMatchObject({ code: 'INVALID_REQUEST', retryable: false });
    expect(JSON.parse(apiErrorBody(503, 'x'))).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryable: true });
    expect(JSON.parse(apiErrorBody(400, 'x', 'CUSTOM'))).toMatchObject({ code: 'CUSTOM' });
  });

  test('2026-only config members survive the hub layout and stay out of legacy views', async () => {
    const ctx = { core: await loadCore() } as unknown as Ctx;
    const cfg = {
      schema: INVOICE_CONFIG.schema,
      parseConfig: { target: 'markdown', engine: 'parse_light' },
      advancedOptions: { citationsEnabled: true, citationMode: 'word' },
    };
    const stored = storedFromCurrent(ctx, cfg, 'EXTRACT');
    expect(stored.type).toBe('EXTRACT');
    expect(stored.parser).toEqual({ target: 'markdown' });
    expect(stored[EXTRAS]).toEqual(expect.arrayContaining([['/parseConfig/engine', 'parse_light'], ['/advancedOptions/citationMode', 'word']]));
    expect(legacyConfig(stored)).not.toHaveProperty(EXTRAS);
    expect(currentFromStored(ctx, JSON.parse(JSON.stringify(stored)) as Record<string, unknown>, 'EXTRACT')).toEqual(cfg);
  });

  test('a config with a type or parser is not a 2026-02-09 config: 400 naming the member', async () => {
    const ctx = { core: await loadCore() } as unknown as Ctx;
    expect(() => storedFromCurrent(ctx, { type: 'EXTRACT', schema: {} }, 'EXTRACT')).toThrow(/\/config\/type/);
    expect(() => storedFromCurrent(ctx, { parser: { target: 'markdown' }, schema: INVOICE_CONFIG.schema, parseConfig: {} }, 'EXTRACT')).toThrow(/\/config\/parser/);
    expect(() => storedFromCurrent(ctx, { schema: INVOICE_CONFIG.schema, advancedOptions: { fixedPageLimit: 3 } }, 'EXTRACT')).toThrow(/fixedPageLimit/);
  });
});

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient, isApiError } from '../../src/api/index.js';
import { INVOICE_CONFIG, createProcessor, start, type TestSandbox } from './helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await start({ maxBodyBytes: 4096 });
});
afterAll(() => t.close());

describe('input hygiene', () => {
  test('413 for a body over the cap (declared or streamed)', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(10_000), type: 'EXTRACT' });
    const r = await t.call('POST', '/processors', { raw: big, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(413);
    expect(r.body.error).toMatch(/larger than the sandbox's limit of 4096 bytes/);
    const form = new FormData();
    form.append('file', new Blob(['y'.repeat(10_000)]), 'big.txt');
    const up = await fetch(`${t.url}/files/upload`, { method: 'POST', headers: { authorization: `Bearer ${t.token}`, 'x-service-api-version': '2025-04-21' }, body: form });
    expect(up.status).toBe(413);
  });

  test.each([
    ['{"name": "x",\n  "type": }', /invalid JSON in request body at line 2, column 11/],
    ['{"name": "x"', /invalid JSON in request body at line 1, column 13/],
    ['nope', /invalid JSON in request body at line 1, column 1/],
  ])('400 with the position for malformed JSON %#', async (raw, msg) => {
    const r = await t.call('POST', '/processors', { raw, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: expect.stringMatching(msg) });
  });

  test('400 for a non-JSON content type', async () => {
    const r = await t.call('POST', '/processors', { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/Content-Type must be application\/json/);
  });

  test('404 for unknown routes, 405 for a wrong method (with Allow)', async () => {
    const a = await t.call('GET', '/widgets');
    expect(a.status).toBe(404);
    expect(a.body.error).toMatch(/no such endpoint: GET \/widgets/);
    const b = await t.call('DELETE', '/processors');
    expect(b.status).toBe(405);
    expect(b.headers.get('allow')).toBe('POST, GET');
  });

  test('400 for a malformed percent escape in the path', async () => {
    expect((await t.call('GET', '/processor_runs/%E0%A4%A')).status).toBe(400);
  });

  test('no error carries a stack trace', async () => {
    const bodies = await Promise.all([
      t.call('POST', '/processors', { raw: '{', headers: { 'content-type': 'application/json' } }),
      t.call('POST', '/processor_runs', { body: { processorId: 5 } }),
      t.call('GET', '/processors?maxPageSize=-1'),
    ]);
    for (const r of bodies) {
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).not.toMatch(/\bat .*\.(ts|js):\d+|node_modules|Error:/);
      expect(Object.keys(r.body).sort()).toEqual(['error', 'success']);
    }
  });
});

describe('--rate-limit', () => {
  test('429 with Retry-After above the rate', async () => {
    const s = await start({ rateLimit: 2 });
    try {
      const rs = await Promise.all(Array.from({ length: 8 }, () => s.call('GET', '/processors')));
      const limited = rs.filter((r) => r.status === 429);
      expect(rs.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(2);
      expect(limited.length).toBeGreaterThan(0);
      for (const r of limited) {
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(r.body).toEqual({ success: false, error: expect.stringMatching(/rate limit exceeded: at most 2 requests per second/) });
      }
    } finally {
      await s.close();
    }
  });

  test('a client that honours Retry-After gets every answer', async () => {
    const s = await start({ rateLimit: 4 });
    try {
      let retries = 0;
      const client = createClient({ baseUrl: s.url, token: s.token, maxRetries: 4, retryBaseMs: 10, onRetry: () => retries++ });
      const pages = await Promise.all(Array.from({ length: 8 }, () => client.processors.list()));
      expect(pages).toHaveLength(8);
      expect(retries).toBeGreaterThan(0);
    } finally {
      await s.close();
    }
  });
});

describe('rateLimit from code, as --rate-limit and --fault limit=N', () => {
  test.each([0, -3, Number.NaN, Number.POSITIVE_INFINITY, 2e6])('rateLimit %s is refused with the reason (0 is not "no limit")', async (rateLimit) => {
    const e = await start({ rateLimit }).then(
      async (s) => (await s.close(), undefined),
      (x: unknown) => x as { message: string; hint?: string; exitCode: number },
    );
    const why = rateLimit === 2e6 ? 'must be at most 1000000 requests per second' : 'must be a number of requests per second > 0';
    expect(e).toMatchObject({ message: `rate limit ${why} (got ${String(rateLimit)})`, exitCode: 2, hint: 'leave rateLimit out for no limit' });
  });

  test('the same values are refused as a fault rule, in the same words', async () => {
    await expect(start({ faults: [{ status: 429, limit: 0 }] })).rejects.toThrow(/limit must be a number of requests per second > 0/);
    await expect(start({ faults: [{ status: 429, limit: Number.POSITIVE_INFINITY }] })).rejects.toThrow(/limit must be a number of requests per second > 0/);
    await expect(start({ faults: ['status=429,limit=0'] })).rejects.toThrow(/limit must be a number of requests per second > 0/);
  });

  test('left out (undefined): no limit', async () => {
    const s = await start({ rateLimit: undefined });
    try {
      const rs = await Promise.all(Array.from({ length: 20 }, () => s.call('GET', '/processors')));
      expect(rs.every((r) => r.status === 200)).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe('--fail-rate', () => {
  test('fail rate 1: every request is an injected 500, nothing is created', async () => {
    const s = await start({ failRate: 1 });
    try {
      const r = await s.call('POST', '/processors', { body: { name: 'x', type: 'EXTRACT' } });
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ success: false, error: expect.stringMatching(/injected fault/) });
      expect((await s.call('GET', '/healthz', { token: null })).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  test('fail rate 0.5: reads are retried to completion; a create answered 500 is not resent (its outcome is unknown to the client) and happened at most once', async () => {
    const s = await start({ failRate: 0.5, failSeed: 7 });
    try {
      let retries = 0;
      const client = createClient({ baseUrl: s.url, token: s.token, maxRetries: 10, retryBaseMs: 1, retryMaxDelayMs: 5, onRetry: () => retries++ });
      const created = [];
      let unknown = 0;
      for (let i = 0; i < 10; i++) {
        try {
          created.push(await client.processors.create({ name: `p${i}`, type: 'EXTRACT', config: INVOICE_CONFIG }));
        } catch (e) {
          expect(isApiError(e) && e.status === 500 && e.outcomeUnknown).toBe(true);
          unknown++;
        }
      }
      expect(unknown).toBeGreaterThan(0);
      expect(created.length).toBeGreaterThan(0);
      // The injected 500 comes before the work: the creates it answered made nothing.
      retries = 0;
      const all = [];
      for await (const p of client.processors.listAll({ maxPageSize: 3 })) all.push(p.id);
      expect(retries).toBeGreaterThan(0);
      expect(all.sort()).toEqual(created.map((p) => p.id).sort());
    } finally {
      await s.close();
    }
  });
});

describe('--latency-ms', () => {
  test('requests still succeed with added latency', async () => {
    const s = await start({ latencyMs: 5 });
    try {
      const id = await createProcessor(s, 'EXTRACT', INVOICE_CONFIG);
      expect(id).toMatch(/^dp_/);
    } finally {
      await s.close();
    }
  });
});

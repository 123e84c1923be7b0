import { describe, expect, test } from 'vitest';
import { Faults, parseFaultRule } from '../../src/sandbox/faults.js';
import type { HttpError } from '../../src/sandbox/http.js';
import { start } from './helpers.js';

describe('fault rules', () => {
  test.each([
    ['status=429,rate=0.1,retryAfter=2', { status: 429, rate: 0.1, retryAfter: 2 }],
    ['status=503, rate=0.05, route=POST /processor_runs*', { status: 503, rate: 0.05, route: 'POST /processor_runs*' }],
    ['status=429,limit=10', { status: 429, limit: 10 }],
    ['latency=200,jitter=100', { latency: 200, jitter: 100 }],
    ['status=402', { status: 402 }],
  ])('%s parses', (text, rule) => {
    expect(parseFaultRule(text)).toEqual(rule);
  });

  test.each([
    ['status=429,rate=0.1,limit=2', /rate .* or limit .*, not both/],
    ['rate=0.5', /need a status/],
    ['latency=10,jitter=20', /jitter must not exceed latency/],
    ['status=429,retryAfter=1.5', /retryAfter must be whole seconds/],
    ['status', /is not key=value/],
    ['status=abc', /status must be a number/],
  ])('%s is refused', (text, message) => {
    expect(() => parseFaultRule(text)).toThrow(message);
  });

  function outcome(f: Faults, method: string, path: string): number {
    try {
      f.check(method, path, 'k');
      return 200;
    } catch (e) {
      return (e as HttpError).status;
    }
  }

  test('routes match by method and path glob, with or without /v1', () => {
    const f = new Faults([parseFaultRule('status=503,route=POST /processor_runs*'), parseFaultRule('status=402,route=/v1/workflow_runs/batch')]);
    expect(outcome(f, 'POST', '/processor_runs')).toBe(503);
    expect(outcome(f, 'POST', '/processor_runs/dpr_1/cancel')).toBe(503);
    expect(outcome(f, 'GET', '/processor_runs')).toBe(200);
    expect(outcome(f, 'POST', '/workflow_runs/batch')).toBe(402);
    expect(outcome(f, 'GET', '/workflow_runs/batch')).toBe(402);
    expect(outcome(f, 'POST', '/workflow_runs')).toBe(200);
  });

  test('a rate fires on about that share of requests, the same ones for the same seed', () => {
    const run = (seed: number) => {
      const f = new Faults([parseFaultRule('status=429,rate=0.2')], seed);
      return Array.from({ length: 2000 }, () => outcome(f, 'GET', '/processors'));
    };
    const a = run(7);
    expect(a.filter((s) => s === 429).length).toBeGreaterThan(300);
    expect(a.filter((s) => s === 429).length).toBeLessThan(500);
    expect(run(7)).toEqual(a);
  });

  test('every 429 carries Retry-After and X-RateLimit-Reset; other statuses only when retryAfter is given', () => {
    const err = (rule: string): HttpError => {
      try {
        new Faults([parseFaultRule(rule)]).check('GET', '/x', 'k');
      } catch (e) {
        return e as HttpError;
      }
      throw new Error('no fault');
    };
    const now = Math.ceil(Date.now() / 1000);
    expect(err('status=429').headers).toEqual({ 'retry-after': '1', 'x-ratelimit-reset': expect.stringMatching(/^\d+$/) });
    expect(Number(err('status=429,retryAfter=5').headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(now + 5);
    expect(err('status=503').headers).toEqual({});
    expect(err('status=503,retryAfter=2').headers['retry-after']).toBe('2');
  });

  test('latency with jitter stays within latency +- jitter, and only on matching routes', () => {
    const f = new Faults([parseFaultRule('latency=100,jitter=40,route=GET /files*')], 3);
    const ds = Array.from({ length: 200 }, () => f.delayMs('GET', '/files/file_1'));
    expect(Math.min(...ds)).toBeGreaterThanOrEqual(60);
    expect(Math.max(...ds)).toBeLessThanOrEqual(140);
    expect(new Set(ds).size).toBeGreaterThan(10);
    expect(f.delayMs('GET', '/processors')).toBe(0);
  });
});

describe('faults in a running sandbox', () => {
  test('--rate-limit is a fault rule: its 429s carry X-RateLimit-Reset too; faults and shorthands combine', async () => {
    const s = await start({ rateLimit: 1, faults: [{ status: 503, rate: 1, route: 'GET /evaluation_sets' }] });
    try {
      const before = Date.now() / 1000;
      const rs = await Promise.all(Array.from({ length: 4 }, () => s.call('GET', '/processors')));
      const limited = rs.filter((r) => r.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      for (const r of limited) expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(Math.floor(before) + 1);
      await new Promise((r) => setTimeout(r, 1100));
      const down = await s.call('GET', '/evaluation_sets');
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ success: false, error: 'service unavailable (injected fault status=503); retry the request' });
    } finally {
      await s.close();
    }
  });

  test('an invalid rule stops the start', async () => {
    await expect(start({ faults: ['status=700'] })).rejects.toThrow(/status must be an HTTP error status/);
  });
});

describe('drop: the answer lost after the work (issue 36)', () => {
  test.each([
    ['drop=1', { drop: 1 }],
    ['drop=1,rate=0.5,route=POST /processors', { drop: 1, rate: 0.5, route: 'POST /processors' }],
  ])('%s parses', (text, rule) => {
    expect(parseFaultRule(text)).toEqual(rule);
  });

  test.each([
    ['drop=2', /drop must be 1/],
    ['drop=1,status=500', /drop takes rate and route only/],
  ])('%s is refused', (text, message) => {
    expect(() => parseFaultRule(text)).toThrow(message);
  });

  test('the create is done, its connection closed without an answer; other routes answer', async () => {
    const t = await start({ faults: ['drop=1,route=POST /processors'] });
    try {
      await expect(t.call('POST', '/processors', { body: { name: 'lost', type: 'EXTRACT' } })).rejects.toThrow();
      const list = await t.call<{ processors: Array<{ name: string }> }>('GET', '/processors');
      expect(list.status).toBe(200);
      expect(list.body.processors.map((p) => p.name)).toEqual(['lost']);
    } finally {
      await t.close();
    }
  });
});

import { inspect } from 'node:util';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ApiError, clientFromEnv, createClient, type ClientOptions, type RetryInfo } from '../../src/api/index.js';
import { TimeoutGroups } from '../../src/api/http.js';
import { UsageError } from '../../src/util/errors.js';
import { fx, instantClock, manualClock, startScripted, until, type Handler, type ScriptedServer } from './helpers.js';

const TOKEN = 'sk_test_SECRET_token_42';
let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(handler: Handler, opts: Partial<ClientOptions> = {}) {
  server = await startScripted(handler);
  const clock = instantClock();
  const client = createClient({ baseUrl: server.url, token: TOKEN, clock, random: () => 0.5, ...opts });
  return { server, client, clock };
}

const ok = () => ({ body: { success: true, processorRun: fx.run() } });

async function catchError(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected the call to fail');
}

describe('headers', () => {
  test('sends the bearer token, the version header and accepts JSON', async () => {
    const { server, client } = await setup(ok);
    await client.processorRuns.get('dpr_1');
    const h = server.requests[0].headers;
    expect(h.authorization).toBe(`Bearer ${TOKEN}`);
    // The default API version (2026-02-09) goes in the SDK 1.x header; 2025-04-21 used x-service-api-version.
    expect(h['x-extend-api-version']).toBe('2026-02-09');
    expect(h['x-service-api-version']).toBeUndefined();
    expect(h.accept).toBe('application/json');
    expect(server.requests[0].url).toBe('/processor_runs/dpr_1');
  });

  test('the version header name and value are configurable', async () => {
    const { server, client } = await setup(ok, { versionHeader: 'Extend-API-Version', apiVersion: '2024-12-23' });
    await client.processorRuns.get('dpr_1');
    expect(server.requests[0].headers['extend-api-version']).toBe('2024-12-23');
    expect(server.requests[0].headers['x-service-api-version']).toBeUndefined();
  });

  test('an empty API version sends no version header', async () => {
    const { server, client } = await setup(ok, { apiVersion: '' });
    await client.processorRuns.get('dpr_1');
    expect(server.requests[0].headers['x-service-api-version']).toBeUndefined();
  });

  test('JSON bodies carry content-type; a base URL path prefix is kept', async () => {
    server = await startScripted(ok);
    const client = createClient({ baseUrl: `${server.url}/v1/`, token: TOKEN });
    await client.processorRuns.create({ processorId: 'dp_1', rawText: 'hello' });
    expect(server.requests[0].url).toBe('/v1/processor_runs');
    expect(server.requests[0].headers['content-type']).toBe('application/json');
    expect(JSON.parse(server.requests[0].body)).toEqual({ processorId: 'dp_1', rawText: 'hello' });
  });

  test.each([
    ['not a url', 'not a valid URL'],
    ['ftp://example.com', 'must use http or https'],
    ['http://user:sk_pw_SECRET@127.0.0.1:1', 'holds a user name or password'],
    ['http://sk_pw_SECRET@127.0.0.1:1', 'holds a user name or password'],
    ['http://127.0.0.1:1/?token=sk_pw_SECRET', 'has a query string or fragment'],
    ['http://127.0.0.1:1/v1#x', 'has a query string or fragment'],
  ])('base URL %s is refused, and never quoted back', (baseUrl, message) => {
    expect(() => createClient({ baseUrl })).toThrow(message);
    try {
      createClient({ baseUrl });
    } catch (e) {
      const text = `${(e as Error).message} ${(e as { hint?: string }).hint ?? ''}`;
      expect(text).not.toContain('sk_pw_SECRET');
    }
  });

  test('an API version that is not a date is refused', () => {
    expect(() => createClient({ baseUrl: 'http://127.0.0.1:1', apiVersion: 'latest' })).toThrow(/YYYY-MM-DD/);
  });
});

describe('retry policy', () => {
  test.each([400, 401, 403, 404, 409, 413, 422])('%i is not retried', async (status) => {
    const { server, client } = await setup(() => ({ status, body: { success: false, error: 'nope' } }));
    const e = await catchError(client.processorRuns.get('dpr_1'));
    expect(server.requests).toHaveLength(1);
    expect(e.status).toBe(status);
    expect(e.retryable).toBe(false);
    expect(e.serviceError).toBe('nope');
    expect(e.method).toBe('GET');
    expect(e.path).toBe('/processor_runs/dpr_1');
  });

  test.each([408, 429, 500, 502, 503, 504])('%i is retried, then the call succeeds', async (status) => {
    const { server, client, clock } = await setup((_r, i) => (i === 0 ? { status, body: { success: false, error: 'later' } } : ok()));
    const run = await client.processorRuns.get('dpr_1');
    expect(run.id).toBe('dpr_1');
    expect(server.requests).toHaveLength(2);
    expect(clock.sleeps.length).toBe(1);
  });

  test('gives up after maxRetries with a retryable error that counts the attempts', async () => {
    const retries: RetryInfo[] = [];
    const { server, client } = await setup(() => ({ status: 500, body: { success: false, error: 'boom' } }), {
      maxRetries: 2,
      onRetry: (i) => retries.push(i),
    });
    const e = await catchError(client.processorRuns.get('dpr_1'));
    expect(server.requests).toHaveLength(3);
    expect(e).toMatchObject({ status: 500, retryable: true, attempts: 3, kind: 'http' });
    expect(e.message).toBe('GET /processor_runs/dpr_1: 500 internal server error: boom (after 3 attempts)');
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
  });

  test('a per-call maxRetries of 0 makes one attempt', async () => {
    const { server, client } = await setup(() => ({ status: 503 }));
    await catchError(client.processorRuns.get('dpr_1', { maxRetries: 0 }));
    expect(server.requests).toHaveLength(1);
  });

  test('network errors are retried', async () => {
    const { server, client } = await setup((_r, i) => (i === 0 ? { destroy: true } : ok()));
    await client.processorRuns.get('dpr_1');
    expect(server.requests).toHaveLength(2);
  });

  test('a refused connection ends in a network error that names the base URL variable', async () => {
    const probe = await startScripted(ok);
    const url = probe.url;
    await probe.close();
    const client = createClient({ baseUrl: url, token: TOKEN, maxRetries: 1, clock: instantClock() });
    const e = await catchError(client.processorRuns.get('dpr_1'));
    expect(e).toMatchObject({ kind: 'network', status: null, retryable: true, attempts: 2 });
    expect(e.hint).toContain('EVALKIT_BASE_URL');
  });

  test('backoff is full jitter, doubling and capped', async () => {
    const { client, clock } = await setup(() => ({ status: 500 }), { maxRetries: 4, retryBaseMs: 100, retryMaxDelayMs: 300, random: () => 0.5 });
    await catchError(client.processorRuns.get('dpr_1'));
    // random 0.5 of min(300, 100 * 2^n) for n = 0..3
    expect(clock.sleeps).toEqual([50, 100, 150, 150]);
  });
});

describe('Retry-After', () => {
  test('seconds form is honoured', async () => {
    const { client, clock } = await setup((_r, i) => (i === 0 ? { status: 429, headers: { 'retry-after': '2' } } : ok()));
    await client.processorRuns.get('dpr_1');
    expect(clock.sleeps).toEqual([2000]);
  });

  test('HTTP-date form is honoured', async () => {
    const clock = instantClock(Date.parse('2025-05-01T10:00:00Z'));
    const { client } = await setup((_r, i) => (i === 0 ? { status: 503, headers: { 'retry-after': 'Thu, 01 May 2025 10:00:03 GMT' } } : ok()), { clock });
    await client.processorRuns.get('dpr_1');
    expect(clock.sleeps).toEqual([3000]);
  });

  test('a Retry-After beyond maxRetryAfterMs fails at once, retryable', async () => {
    const { server, client } = await setup(() => ({ status: 429, headers: { 'retry-after': '3600' } }), { maxRetryAfterMs: 10_000 });
    const e = await catchError(client.processorRuns.get('dpr_1'));
    expect(server.requests).toHaveLength(1);
    expect(e.retryable).toBe(true);
    expect(e.message).toContain('asked to wait 3600 s');
  });
});

describe('shared gate', () => {
  test('after one request gets 429, every request of the client waits until the gate opens', async () => {
    const manual = manualClock();
    let first = true;
    server = await startScripted(() => {
      if (first) {
        first = false;
        return { status: 429, headers: { 'retry-after': '2' }, body: { success: false, error: 'slow down' } };
      }
      return ok();
    });
    const client = createClient({ baseUrl: server.url, token: TOKEN, clock: manual.clock });
    const a = client.processorRuns.get('dpr_1');
    await until(() => manual.pending() === 1, 'request A to wait at the gate');
    const b = client.processorRuns.get('dpr_2');
    await until(() => manual.pending() === 2, 'request B to wait at the gate');
    // Neither A's retry nor B reached the server while the gate is closed.
    expect(server.requests).toHaveLength(1);
    manual.advance(1999);
    expect(manual.pending()).toBe(2);
    manual.advance(1);
    await Promise.all([a, b]);
    expect(server.requests).toHaveLength(3);
  });

  test('a request that gives up on 429 still closes the gate for the others', async () => {
    const manual = manualClock();
    server = await startScripted((_r, i) => (i === 0 ? { status: 429, headers: { 'retry-after': '3' } } : ok()));
    const client = createClient({ baseUrl: server.url, token: TOKEN, clock: manual.clock });
    await catchError(client.processorRuns.get('dpr_1', { maxRetries: 0 }));
    const b = client.processorRuns.get('dpr_2');
    await until(() => manual.pending() === 1, 'the next request to wait at the gate');
    expect(server.requests).toHaveLength(1);
    manual.advance(3000);
    await b;
    expect(server.requests).toHaveLength(2);
  });

  test('a second 429 while the gate is closed pushes the opening further out', async () => {
    const manual = manualClock();
    server = await startScripted((_r, i) => (i < 2 ? { status: 429, headers: { 'retry-after': i === 0 ? '1' : '5' } } : ok()));
    const client = createClient({ baseUrl: server.url, token: TOKEN, clock: manual.clock });
    const a = client.processorRuns.get('dpr_1');
    const b = client.processorRuns.get('dpr_2');
    await until(() => server!.requests.length === 2 && manual.pending() === 2, 'both requests to be rate limited');
    manual.advance(1000);
    // The gate now opens at +5 s: both sleep again.
    await until(() => manual.pending() === 2, 'both requests to wait again');
    expect(server.requests).toHaveLength(2);
    manual.advance(4000);
    await Promise.all([a, b]);
    expect(server.requests).toHaveLength(4);
  });
});

describe('timeout and abort', () => {
  test('an attempt without an answer times out, and a timeout is retried', async () => {
    const { server, client } = await setup((_r, i) => (i === 0 ? { hang: true } : ok()), { timeoutMs: 500 });
    await client.processorRuns.get('dpr_1');
    // On a loaded machine a later attempt may time out too; the first one always does.
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
  });

  test('the timeout error says how long it waited', async () => {
    const { client } = await setup(() => ({ hang: true }), { timeoutMs: 50, maxRetries: 0 });
    const e = await catchError(client.processorRuns.get('dpr_1'));
    expect(e).toMatchObject({ kind: 'timeout', retryable: true, status: null });
    expect(e.message).toBe('GET /processor_runs/dpr_1: no answer within 50 ms');
  });

  test('a per-call timeout overrides the client timeout', async () => {
    const { client } = await setup(() => ({ hang: true }), { timeoutMs: 60_000, maxRetries: 0 });
    const e = await catchError(client.processorRuns.get('dpr_1', { timeoutMs: 30 }));
    expect(e.kind).toBe('timeout');
  });

  test('aborting an in-flight call stops it without a retry', async () => {
    const { server, client } = await setup(() => ({ hang: true }));
    const ac = new AbortController();
    const p = client.processorRuns.get('dpr_1', { signal: ac.signal });
    await until(() => server.requests.length === 1, 'the request to arrive');
    ac.abort();
    const e = await catchError(p);
    expect(e).toMatchObject({ kind: 'aborted', retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  test('an already aborted signal sends nothing', async () => {
    const { server, client } = await setup(ok);
    const e = await catchError(client.processorRuns.get('dpr_1', { signal: AbortSignal.abort() }));
    expect(e.kind).toBe('aborted');
    expect(server.requests).toHaveLength(0);
  });
});

describe('shared timeout groups', () => {
  test('concurrent calls share timeouts: the hanging ones time out, the answered ones succeed', async () => {
    const { client } = await setup((_r, i) => (i % 2 === 1 ? { hang: true } : ok()), { timeoutMs: 1000, maxRetries: 0 });
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => client.processorRuns.get('dpr_1')));
    const kinds = results.map((r) => (r.status === 'fulfilled' ? 'ok' : (r.reason as ApiError).kind)).sort();
    expect(kinds).toEqual(['ok', 'ok', 'ok', 'ok', 'timeout', 'timeout', 'timeout', 'timeout']);
  });

  test('a call with its own signal still times out', async () => {
    const { client } = await setup(() => ({ hang: true }), { timeoutMs: 50, maxRetries: 0 });
    const e = await catchError(client.processorRuns.get('dpr_1', { signal: new AbortController().signal }));
    expect(e).toMatchObject({ kind: 'timeout', retryable: true });
  });

  test('attempts within the window share a signal that fires one window after the timeout, never early', () => {
    vi.useFakeTimers();
    try {
      const groups = new TimeoutGroups(() => Date.now()); // faked
      const a = groups.join(1000);
      vi.advanceTimersByTime(60);
      const b = groups.join(1000);
      expect(b).toBe(a);
      vi.advanceTimersByTime(40); // the window (min(100 ms, a tenth of the timeout)) has passed
      const c = groups.join(1000);
      expect(c).not.toBe(a);
      vi.advanceTimersByTime(999);
      expect(a.signal.aborted).toBe(false); // b has run 1039 ms of its 1000: late is allowed, early is not
      vi.advanceTimersByTime(1);
      expect(a.signal.aborted).toBe(true);
      expect(c.signal.aborted).toBe(false);
      groups.leave(a);
      groups.leave(a);
      groups.leave(c);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  test('a group takes at most 16 attempts, a different timeout opens its own group, and the last leave clears the timer', () => {
    vi.useFakeTimers();
    try {
      const groups = new TimeoutGroups(() => 0);
      const joined = Array.from({ length: 17 }, () => groups.join(5000));
      expect(new Set(joined.slice(0, 16)).size).toBe(1);
      expect(joined[16]).not.toBe(joined[0]);
      const other = groups.join(100);
      expect(other).not.toBe(joined[16]);
      expect(vi.getTimerCount()).toBe(3);
      for (const g of [...joined, other]) groups.leave(g);
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(10_000);
      expect(joined.some((g) => g.signal.aborted) || other.signal.aborted).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('error messages', () => {
  test.each([
    [401, 'EVALKIT_API_TOKEN'],
    [403, 'access to the processor'],
    [404, 'check the id(s) in /processor_runs/dpr_1'],
  ])('%i tells the user what to check', async (status, hint) => {
    const { client } = await setup(() => ({ status, body: { success: false, error: 'denied' } }));
    const e = await catchError(client.processorRuns.get('dpr_1'));
    expect(e.hint).toContain(hint);
    expect(e.describe()).toContain(`GET /processor_runs/dpr_1: ${status}`);
  });

  test('429 names only remedies that exist (there is no retry-limit setting)', async () => {
    const { client } = await setup(() => ({ status: 429, body: { success: false, error: 'slow down' } }));
    const e = await catchError(client.processorRuns.get('dpr_1', { maxRetries: 0 }));
    expect(e.hint).toContain('--concurrency');
    expect(e.hint).not.toContain('retry limit');
  });

  test('a non-JSON error body is quoted briefly', async () => {
    const { client } = await setup(() => ({ status: 400, body: '<html>Bad   gateway\n page</html>' }));
    const e = await catchError(client.processorRuns.get('dpr_1'));
    expect(e.serviceError).toBe('<html>Bad gateway page</html>');
  });

  test('a 200 answer with success false is an error with the service text', async () => {
    const { client } = await setup(() => ({ status: 200, body: { success: false, error: 'quota exceeded' } }));
    const e = await catchError(client.processorRuns.get('dpr_1'));
    expect(e.serviceError).toBe('quota exceeded');
  });
});

describe('the token never leaks', () => {
  const leaky: Array<[string, Handler, Partial<ClientOptions>]> = [
    ['401 echoing the header', (r) => ({ status: 401, body: { success: false, error: `bad token ${r.headers.authorization}` } }), {}],
    ['500 echoing the header as text', (r) => ({ status: 500, body: `upstream said ${r.headers.authorization}` }), { maxRetries: 1 }],
    ['invalid response echoing the header', (r) => ({ body: { success: true, processorRun: { status: r.headers.authorization } } }), {}],
    ['network error', () => ({ destroy: true }), { maxRetries: 1 }],
    ['timeout', () => ({ hang: true }), { maxRetries: 0, timeoutMs: 30 }],
  ];
  test.each(leaky)('%s', async (_name, handler, opts) => {
    const { client } = await setup(handler, opts);
    const e = await catchError(client.processorRuns.get('dpr_1'));
    for (const text of [e.message, e.describe(), String(e.hint), JSON.stringify(e), inspect(e, { depth: 10, showHidden: true }), String(e.stack)]) {
      expect(text).not.toContain(TOKEN);
    }
  });

  test('the client object does not hold the token where inspection would show it', async () => {
    const { client } = await setup(ok);
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(TOKEN);
    expect(JSON.stringify(client.options)).not.toContain(TOKEN);
  });
});

describe('clientFromEnv', () => {
  test.each([
    [{}, 'EVALKIT_BASE_URL'],
    [{ EVALKIT_BASE_URL: 'http://127.0.0.1:8787' }, 'EVALKIT_API_TOKEN'],
    [{ EVALKIT_BASE_URL: 'http://127.0.0.1:8787', EVALKIT_API_TOKEN: 't', EVALKIT_API_VERSION: 'soon' }, 'EVALKIT_API_VERSION'],
  ])('%o -> usage error naming %s', (env, variable) => {
    let err: unknown;
    try {
      clientFromEnv({}, env);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).describe()).toContain(variable);
  });

  test('a bad apiVersion option is named as the option, not as the variable it overrides', () => {
    const env = { EVALKIT_BASE_URL: 'http://127.0.0.1:8787', EVALKIT_API_TOKEN: 't', EVALKIT_API_VERSION: '2025-04-21' };
    let err: unknown;
    try {
      clientFromEnv({ apiVersion: 'bad' }, env);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe('the apiVersion option "bad" is not a date (YYYY-MM-DD)');
    expect((err as UsageError).describe()).not.toContain('EVALKIT_API_VERSION');
  });

  test('reads all four variables; overrides win', async () => {
    server = await startScripted(ok);
    const env = { EVALKIT_BASE_URL: 'http://127.0.0.1:1', EVALKIT_API_TOKEN: TOKEN, EVALKIT_API_VERSION: '2024-12-23', EVALKIT_VERSION_HEADER: 'X-Api-Version' };
    const client = clientFromEnv({ baseUrl: server.url }, env);
    await client.processorRuns.get('dpr_1');
    expect(server.requests[0].headers['x-api-version']).toBe('2024-12-23');
    expect(server.requests[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
  });
});

describe('requests that are not idempotent (issue 36)', () => {
  const created = () => ({ body: { success: true, processor: fx.processor() } });

  test.each([
    ['a dropped connection after the request was sent', { destroy: true }],
    ['a 500', { status: 500 }],
    ['a 503', { status: 503 }],
    ['a 504', { status: 504 }],
  ])('a POST that creates is sent once after %s: the error says the outcome is unknown', async (_what, reply) => {
    const { server, client } = await setup((_r, i) => (i === 0 ? reply : created()));
    const e = await catchError(client.processors.create({ name: 'x', type: 'EXTRACT' }));
    expect(server.requests).toHaveLength(1);
    expect(e).toMatchObject({ outcomeUnknown: true, retryable: false, method: 'POST', path: '/processors' });
    expect(e.message).toContain('may have carried it out');
    expect(e.toJSON()).toMatchObject({ outcomeUnknown: true });
  });

  test('a timeout of a publish is not sent again', async () => {
    const { server, client } = await setup((_r, i) => (i === 0 ? { hang: true } : { body: { success: true, processorVersion: fx.version() } }), { timeoutMs: 100 });
    const e = await catchError(client.processors.publish('dp_1', { releaseType: 'major' }));
    expect(server.requests).toHaveLength(1);
    expect(e).toMatchObject({ kind: 'timeout', outcomeUnknown: true });
  });

  test('a 429 or 408 refused the request before any work: it is sent again', async () => {
    const { server, client } = await setup((_r, i) => (i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : i === 1 ? { status: 408 } : created()));
    expect((await client.processors.create({ name: 'x', type: 'EXTRACT' })).id).toBe('dp_1');
    expect(server.requests).toHaveLength(3);
  });

  test('a refused connection proves nothing was sent: a create is retried, and fails as a plain network error', async () => {
    const probe = await startScripted(created);
    const url = probe.url;
    await probe.close();
    const client = createClient({ baseUrl: url, token: TOKEN, maxRetries: 2, clock: instantClock() });
    const e = await catchError(client.processors.create({ name: 'x', type: 'EXTRACT' }));
    expect(e).toMatchObject({ kind: 'network', attempts: 3, outcomeUnknown: false, retryable: true });
  });

  test('idempotent POSTs (updates) are still retried after a lost answer', async () => {
    const { server, client } = await setup((_r, i) => (i === 0 ? { destroy: true } : created()));
    await client.processors.update('dp_1', { name: 'y' });
    expect(server.requests).toHaveLength(2);
  });

  test('a DELETE whose answer was lost, sent again, finds the resource gone: that is success', async () => {
    const { server, client } = await setup((_r, i) => (i === 0 ? { destroy: true } : { status: 404, body: { success: false, error: 'not found' } }));
    await client.files.delete('file_1');
    expect(server.requests).toHaveLength(2);
  });

  test('a DELETE of what is not there is still a 404', async () => {
    const { client } = await setup(() => ({ status: 404, body: { success: false, error: 'not found' } }));
    expect((await catchError(client.files.delete('file_1'))).status).toBe(404);
  });
});

import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchLoopback } from '../../src/sandbox/files.js';
import { HttpError } from '../../src/sandbox/http.js';
import { isLoopbackAddress, notLoopback } from '../../src/sandbox/loopback.js';
import { CLASSIFY_CONFIG, createProcessor, start, type TestSandbox } from '../sandbox/helpers.js';

/** A file server: /missing is 404, /slow/* trickles a byte every 50 ms for a minute. */
let server: Server;
let base: string;
const open = new Set<ServerResponse>();
let started = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/missing') return void res.writeHead(404).end();
    started++;
    open.add(res);
    res.writeHead(200, { 'content-type': 'text/plain' });
    const timer = setInterval(() => res.write('x'), 50);
    res.on('close', () => {
      clearInterval(timer);
      open.delete(res);
    });
    setTimeout(() => res.end(), 60_000).unref();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function allClosed(withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (open.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  return open.size === 0;
}

describe('a file URL whose body trickles', () => {
  it('is a 400 naming the host and the reason, not a 500', async () => {
    const e = await fetchLoopback(`${base}/slow/a.txt`, 'file.fileUrl', 1 << 20, 300).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).status).toBe(400);
    expect((e as HttpError).message).toBe(`file.fileUrl could not be downloaded from ${base.slice(7)}: no complete answer within 0.3 s (the body arrives too slowly)`);
    expect(await allClosed(2000)).toBe(true);
  });
});

describe('downloads of a request that failed or was abandoned', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await start();
  });
  afterAll(() => t.close());

  it('stop the moment the request gets its 400', async () => {
    const processorId = await createProcessor(t, 'CLASSIFY', CLASSIFY_CONFIG);
    const wf = await t.call<{ workflow: { id: string } }>('POST', '/workflows', { body: { name: 'dl', steps: [{ processorId }] } });
    const before = started;
    const files = [1, 2, 3, 4, 5, 6].map((i) => ({ fileName: `f${i}.txt`, fileUrl: `${base}/slow/f${i}.txt` }));
    // The slow downloads start first; the missing file fails while they are running.
    const pending = t.call('POST', '/workflow_runs', { body: { workflowId: wf.body.workflow.id, files: [...files, { fileName: 'm.txt', fileUrl: `${base}/missing` }] } });
    const r = await pending;
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/fileUrl could not be downloaded from 127\.0\.0\.1:\d+: HTTP 404|HTTP 404/);
    expect(started - before).toBeGreaterThan(0);
    expect(await allClosed(1500)).toBe(true);
  });

  it('stop when the client goes away', async () => {
    const processorId = await createProcessor(t, 'CLASSIFY', CLASSIFY_CONFIG);
    const ac = new AbortController();
    const before = started;
    const req = fetch(`${t.url}/processor_runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json', 'x-service-api-version': '2025-04-21' },
      body: JSON.stringify({ processorId, file: { fileName: 'a.txt', fileUrl: `${base}/slow/gone.txt` } }),
      signal: ac.signal,
    }).catch(() => undefined);
    while (started === before) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    await req;
    expect(await allClosed(1500)).toBe(true);
  });
});

describe('loopback checks on addresses', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['[::ffff:7f00:1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['localhost', false],
  ])('%s -> %s', (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });

  it('resolves names: a *.localhost name that resolves elsewhere is refused, one that resolves to loopback is taken', async () => {
    const elsewhere = (async () => [{ address: '93.184.216.34', family: 4 }]) as never;
    const home = (async () => [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]) as never;
    expect(await notLoopback('evil.localhost', elsewhere)).toBe('"evil.localhost" resolves to 93.184.216.34, which is not a loopback address');
    expect(await notLoopback('app.localhost', home)).toBeUndefined();
    expect(await notLoopback('[::ffff:127.0.0.1]')).toBeUndefined();
  });

  it('the sandbox downloads from [::ffff:127.0.0.1]', async () => {
    const port = (server.address() as { port: number }).port;
    const e = await fetchLoopback(`http://[::ffff:127.0.0.1]:${port}/missing`, 'file.fileUrl', 1 << 20, 2000).catch((x: unknown) => x);
    // Reached the server (its 404), rather than refused as off loopback.
    expect((e as HttpError).message).toContain('HTTP 404');
  });
});

import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startWebhookListener, type WebhookListener } from '../../src/api/webhookListener.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';

const closers: Array<() => Promise<void>> = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const c of closers.splice(0)) await c();
});

async function listener(bodyLimits = {}): Promise<{ l: WebhookListener; rejects: Array<{ status: number; kind: string }> }> {
  const rejects: Array<{ status: number; kind: string }> = [];
  const l = await startWebhookListener({ secret: 'whsec_test', onEvent: () => undefined, onReject: (r) => rejects.push(r), bodyLimits });
  closers.push(() => l.close());
  return { l, rejects };
}

/** Sends `head` (and `body`) on a raw connection; resolves with what came back when it closes or after `waitMs`. */
function raw(url: string, head: string, body = '', waitMs = 3000): { answer: Promise<string>; socket: net.Socket } {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  sockets.push(socket);
  socket.write(head + body);
  const answer = new Promise<string>((resolve) => {
    let got = '';
    const timer = setTimeout(() => resolve(got), waitMs);
    socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    socket.on('error', () => undefined);
  });
  return { answer, socket };
}

const post = (len: number, path = '/hooks'): string => `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${len}\r\n\r\n`;

describe('evalkit webhooks listen', () => {
  it('answers a declared 10 GiB body with 413 at once, reading none of it', async () => {
    const { l, rejects } = await listener();
    const started = Date.now();
    const answer = await raw(l.url, post(10 * 1024 ** 3)).answer;
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(Date.now() - started).toBeLessThan(2500);
    expect(rejects).toEqual([expect.objectContaining({ status: 413, kind: 'too-large' })]);
  });

  it('times out a body that trickles (408)', async () => {
    const { l, rejects } = await listener({ bodyTimeoutMs: 300 });
    const { answer, socket } = raw(l.url, post(100), '{"eventId"');
    const timer = setInterval(() => socket.writable && socket.write(' '), 50);
    try {
      expect(await answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(timer);
    }
    expect(rejects).toEqual([expect.objectContaining({ status: 408, kind: 'timeout' })]);
  });

  it('bounds what slow senders buffer together (503) and the connections it takes', async () => {
    const { l } = await listener({ maxBufferedBytes: 1000, maxConnections: 3, bodyTimeoutMs: 5000 });
    const a = raw(l.url, post(900), 'x'.repeat(700));
    await new Promise((r) => setTimeout(r, 100));
    const b = raw(l.url, post(900), 'y'.repeat(700), 1500);
    expect(await b.answer).toMatch(/^HTTP\/1\.1 503/);
    // Two connections are open (a, and c below): a fourth beyond the cap of 3 is closed at once.
    const c = raw(l.url, post(10), '', 1500);
    const d = raw(l.url, post(10), '', 1500);
    const e = raw(l.url, post(10), '', 1500);
    const answers = await Promise.all([d.answer, e.answer]);
    expect(answers.filter((x) => x === '')).not.toHaveLength(0);
    a.socket.destroy();
    c.socket.destroy();
  });
});

describe('connections that never finish their headers', () => {
  // 256 (the default cap) sockets each holding an unfinished request head: a signed event, and a
  // sandbox request, still get their answer (the oldest idle socket makes room), the attackers
  // get nothing. The 10 s abort only bounds the test; before, the answer took about 45 s.
  async function flood(url: string): Promise<net.Socket[]> {
    const { hostname, port } = new URL(url);
    const opened = Array.from({ length: 256 }, () => {
      const s = net.connect(Number(port), hostname);
      s.on('error', () => undefined);
      sockets.push(s);
      return new Promise<net.Socket>((resolve) => s.once('connect', () => s.write('POST /hooks HTTP/1.1\r\nhost: x\r\n', () => resolve(s))));
    });
    return Promise.all(opened);
  }

  it('do not lock signed events out of webhooks listen', async () => {
    const { signWebhook } = await import('../../src/api/index.js');
    const events: string[] = [];
    const l = await startWebhookListener({ secret: 'whsec_test', onEvent: (e) => events.push(e.eventId), onReject: () => undefined });
    closers.push(() => l.close());
    const attackers = await flood(l.url);
    const body = JSON.stringify({ eventId: 'evt_1', eventType: 'processor_run.processed', payload: {} });
    const ts = Math.floor(Date.now() / 1000);
    const headers = { 'content-type': 'application/json', 'x-service-webhook-timestamp': String(ts), 'x-service-webhook-signature': signWebhook('whsec_test', ts, body) };
    const r = await fetch(l.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
    expect(r.status).toBe(200);
    expect(events).toEqual(['evt_1']);
    // Room was made by closing attackers', not by letting 257 connections in.
    await new Promise((res) => setTimeout(res, 50));
    expect(attackers.filter((s) => s.destroyed || s.readyState === 'closed').length).toBeGreaterThan(0);
  });

  it('do not lock requests out of the sandbox', async () => {
    const t: TestSandbox = await start();
    closers.push(() => t.close());
    await flood(t.url);
    const r = await fetch(`${t.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
    expect(r.status).toBe(200);
  });
});

describe('sandbox', () => {
  let t: TestSandbox;
  afterEach(async () => {
    await t?.close();
  });

  it('answers a declared 10 GiB body with 413 and a trickling body with 408', async () => {
    t = await start({ bodyLimits: { bodyTimeoutMs: 300 } });
    await t.call('GET', '/processors'); // the sandbox's core is loaded (lazily, after listen)
    const auth = `authorization: Bearer ${t.token}\r\nx-service-api-version: 2025-04-21\r\n`;
    const big = await raw(t.url, post(10 * 1024 ** 3, '/processors').replace('\r\n\r\n', `\r\n${auth}\r\n`)).answer;
    expect(big).toMatch(/^HTTP\/1\.1 413/);
    const slow = raw(t.url, post(100, '/processors').replace('\r\n\r\n', `\r\n${auth}\r\n`), '{"name"');
    const timer = setInterval(() => slow.socket.writable && slow.socket.write(' '), 50);
    try {
      const answer = await slow.answer;
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(answer).toContain('did not arrive within 0.3 s');
    } finally {
      clearInterval(timer);
    }
  });
});

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient, verifyWebhook, ApiError, signWebhook, startWebhookListener } from '../../src/api/index.js';
import { INVOICE_CONFIG, SPLITTER_CONFIG, createProcessor, start, type TestSandbox } from './helpers.js';
import { startReceiver } from './receiver.js';

const NEW = 'tok_new_0123456789';
const OLD = 'tok_old_0123456789';
const PINNED = 'tok_pinned_0123456789';

let t: TestSandbox;
beforeAll(async () => {
  t = await start({
    tokens: [
      { token: NEW, createdAt: '2025-05-01' },
      { token: OLD, createdAt: '2024-06-01' },
      { token: PINNED, createdAt: '2025-06-01', apiVersion: '2024-12-23' },
    ],
  });
});
afterAll(() => t.close());

describe('version headers: the spec name and the real service name, both by default', () => {
  test('x-extend-api-version (the official SDK) is read and echoed under the name it was sent', async () => {
    const r = await t.call('GET', '/processors', { version: null, headers: { 'X-Extend-API-Version': '2025-04-21' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-extend-api-version')).toBe('2025-04-21');
    expect(r.headers.get('x-service-api-version')).toBeNull();
    const s = await t.call('GET', '/processors');
    expect(s.headers.get('x-service-api-version')).toBe('2025-04-21');
    expect(s.headers.get('x-extend-api-version')).toBeNull();
  });

  test('a missing header names both accepted names', async () => {
    const r = await t.call('GET', '/processors', { version: null });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/missing header x-service-api-version or x-extend-api-version/);
  });

  test('the same version under both names is fine; two different versions are a 400', async () => {
    const same = await t.call('GET', '/processors', { headers: { 'x-extend-api-version': '2025-04-21' } });
    expect(same.status).toBe(200);
    const diff = await t.call('GET', '/processors', { headers: { 'x-extend-api-version': '2024-12-23' } });
    expect(diff.status).toBe(400);
    expect(diff.body.error).toMatch(/conflicting API versions/);
  });

  test('an explicit header always beats a token\'s stored default (and the pre-2025-04-21 pin)', async () => {
    const id = await createProcessor(t, 'SPLITTER', SPLITTER_CONFIG);
    for (const token of [PINNED, OLD]) {
      const sdk = await t.call<{ versions: Array<{ config: Record<string, unknown> }> }>('GET', `/processors/${id}/versions`, {
        token,
        version: null,
        headers: { 'x-extend-api-version': '2025-04-21' },
      });
      expect(sdk.status).toBe(200);
      expect(sdk.body.versions[0].config).toHaveProperty('splitClassifications');
      const none = await t.call<{ versions: Array<{ config: Record<string, unknown> }> }>('GET', `/processors/${id}/versions`, { token, version: null });
      expect(none.body.versions[0].config).toHaveProperty('subDocumentClassifications');
      // Without a header the version in effect is echoed under every accepted name.
      expect(none.headers.get('x-extend-api-version')).toBe('2024-12-23');
      expect(none.headers.get('x-service-api-version')).toBe('2024-12-23');
    }
  });
});

describe('versionHeaders option', () => {
  test('only the configured names are read', async () => {
    const s = await start({ versionHeaders: ['X-Custom-Version'] });
    try {
      const sdk = await s.call('GET', '/processors', { version: null, headers: { 'x-extend-api-version': '2025-04-21' } });
      expect(sdk.status).toBe(400);
      expect(sdk.body.error).toMatch(/missing header x-custom-version:/);
      const ok = await s.call('GET', '/processors', { version: null, headers: { 'x-custom-version': '2025-04-21' } });
      expect(ok.headers.get('x-custom-version')).toBe('2025-04-21');
    } finally {
      await s.close();
    }
  });

  test('the client hint names the header the service wants when the name is the problem', async () => {
    const s = await start({ versionHeaders: ['x-extend-api-version'] });
    try {
      // Pinned to 2025-04-21: its client sends x-service-api-version; on 2026-02-09 the client sends the SDK's x-extend-api-version, so the name is not the problem there.
      const client = createClient({ baseUrl: s.url, token: s.token, maxRetries: 0, apiVersion: '2025-04-21' });
      const e = await client.processors.list().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).hint).toBe('the service reads the API version from header x-extend-api-version, but it was sent in x-service-api-version: set EVALKIT_VERSION_HEADER=x-extend-api-version');
      const fixed = createClient({ baseUrl: s.url, token: s.token, versionHeader: 'x-extend-api-version', apiVersion: '2025-04-21' });
      await expect(fixed.processors.list()).resolves.toBeDefined();
    } finally {
      await s.close();
    }
  });
});

describe('versionHeaders option, on the default API version', () => {
  test('a 2026-02-09 client sends x-extend-api-version; a service reading another name gets the same hint', async () => {
    const s = await start({ versionHeaders: ['x-service-api-version'] });
    try {
      const client = createClient({ baseUrl: s.url, token: s.token, maxRetries: 0 });
      const e = await client.entities('EXTRACT').list().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).hint).toBe('the service reads the API version from header x-service-api-version, but it was sent in x-extend-api-version: set EVALKIT_VERSION_HEADER=x-service-api-version');
      const fixed = createClient({ baseUrl: s.url, token: s.token, versionHeader: 'x-service-api-version' });
      await expect(fixed.entities('EXTRACT').list()).resolves.toBeDefined();
    } finally {
      await s.close();
    }
  });
});

describe('webhook deliveries under both header names', () => {
  test('each delivery is signed under evalkit\'s and the real service\'s names; verifyWebhook accepts either pair', async () => {
    const rx = await startReceiver();
    const secret = 'whsec_0123456789abcdef';
    const s = await start({ webhooks: { endpoints: [{ url: rx.url, secret, events: ['processor.created'] }] } });
    try {
      await createProcessor(s, 'EXTRACT', INVOICE_CONFIG);
      await s.sb.idle();
      expect(rx.received).toHaveLength(1);
      const h = rx.received[0].headers;
      expect(h['x-extend-request-signature']).toBe(h['x-service-webhook-signature']);
      expect(h['x-extend-request-timestamp']).toBe(h['x-service-webhook-timestamp']);
      expect(h['x-extend-api-version']).toBe(h['x-service-api-version']);
      const only = (names: string[]) => Object.fromEntries(Object.entries(h).filter(([k]) => names.includes(k))) as Record<string, string>;
      const real = only(['x-extend-request-signature', 'x-extend-request-timestamp']);
      expect(verifyWebhook(secret, real, rx.received[0].body).eventType).toBe('processor.created');
      const ours = only(['x-service-webhook-signature', 'x-service-webhook-timestamp']);
      expect(verifyWebhook(secret, ours, rx.received[0].body).eventType).toBe('processor.created');
      expect(() => verifyWebhook(secret, { ...real, 'x-extend-request-signature': '0'.repeat(64) }, rx.received[0].body)).toThrow(/signature does not match/);
      expect(() => verifyWebhook(secret, {}, rx.received[0].body)).toThrow(/x-extend-request-timestamp/);
    } finally {
      await s.close();
      await rx.close();
    }
  });

  test('webhooks listen accepts events signed under the real service\'s header names, and reads its version header', async () => {
    const secret = 'whsec_0123456789abcdef';
    const got: Array<{ type: string; version: string | undefined }> = [];
    const l = await startWebhookListener({ secret, onEvent: (e, info) => got.push({ type: e.eventType, version: info.apiVersion }), onReject: () => undefined });
    try {
      const body = JSON.stringify({ eventId: 'evt_1', eventType: 'processor.created', payload: {} });
      const ts = String(Math.floor(Date.now() / 1000));
      const r = await fetch(l.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-extend-api-version': '2025-04-21', 'x-extend-request-timestamp': ts, 'x-extend-request-signature': signWebhook(secret, ts, body) },
        body,
      });
      expect(r.status).toBe(200);
      expect(got).toEqual([{ type: 'processor.created', version: '2025-04-21' }]);
    } finally {
      await l.close();
    }
  });
});

import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { signWebhook, verifyWebhook, WebhookVerificationError, type WebhookErrorKind } from '../../src/api/index.js';
import { verifyWebhook as fromPackage } from '../../src/index.js';

const SECRET = 'whsec_unit_test_secret';
const NOW = 1_750_000_000_000;
const TS = Math.floor(NOW / 1000);
const BODY = JSON.stringify({ eventId: 'evt_1', eventType: 'workflow_run.completed', payload: { id: 'workflow_run_1', batchId: 'batch_1', metadata: { row: 1 } } });

function headers(ts: number | string = TS, body: string = BODY, secret = SECRET): Record<string, string> {
  return { 'x-service-webhook-timestamp': String(ts), 'x-service-webhook-signature': signWebhook(secret, ts, body) };
}

function kindOf(f: () => unknown): WebhookErrorKind | 'none' {
  try {
    f();
    return 'none';
  } catch (e) {
    if (e instanceof WebhookVerificationError) return e.kind;
    throw e;
  }
}

describe('verifyWebhook', () => {
  test('accepts a correctly signed event and returns its envelope; exported from the package root', () => {
    expect(fromPackage).toBe(verifyWebhook);
    const e = verifyWebhook(SECRET, headers(), BODY, { now: NOW });
    expect(e).toEqual({ eventId: 'evt_1', eventType: 'workflow_run.completed', payload: { id: 'workflow_run_1', batchId: 'batch_1', metadata: { row: 1 } } });
  });

  test('the signature is hex HMAC-SHA256 of "v0:" + timestamp + ":" + raw body', () => {
    expect(signWebhook(SECRET, TS, BODY)).toBe(createHmac('sha256', SECRET).update(`v0:${TS}:${BODY}`).digest('hex'));
  });

  test('headers as a fetch Headers object, in any case, and bodies as bytes', () => {
    const h = headers();
    const mixed = { 'X-Service-Webhook-Timestamp': h['x-service-webhook-timestamp'], 'X-SERVICE-WEBHOOK-SIGNATURE': [h['x-service-webhook-signature']] };
    expect(verifyWebhook(SECRET, new Headers(h), Buffer.from(BODY), { now: NOW }).eventId).toBe('evt_1');
    expect(verifyWebhook(SECRET, mixed, new TextEncoder().encode(BODY), { now: NOW }).eventId).toBe('evt_1');
  });

  test.each<[string, () => unknown, WebhookErrorKind]>([
    ['no headers at all', () => verifyWebhook(SECRET, {}, BODY, { now: NOW }), 'unsigned'],
    ['no signature', () => verifyWebhook(SECRET, { 'x-service-webhook-timestamp': String(TS) }, BODY, { now: NOW }), 'unsigned'],
    ['no timestamp', () => verifyWebhook(SECRET, { 'x-service-webhook-signature': signWebhook(SECRET, TS, BODY) }, BODY, { now: NOW }), 'unsigned'],
    ['a timestamp that is not a number', () => verifyWebhook(SECRET, { ...headers(), 'x-service-webhook-timestamp': 'yesterday' }, BODY, { now: NOW }), 'malformed'],
    ['a signature that is not hex', () => verifyWebhook(SECRET, { ...headers(), 'x-service-webhook-signature': 'v0=abc' }, BODY, { now: NOW }), 'malformed'],
    ['a changed body', () => verifyWebhook(SECRET, headers(), BODY.replace('"row":1', '"row":2'), { now: NOW }), 'tampered'],
    ['another secret', () => verifyWebhook('whsec_another_secret__', headers(), BODY, { now: NOW }), 'tampered'],
    ['a changed timestamp', () => verifyWebhook(SECRET, { ...headers(), 'x-service-webhook-timestamp': String(TS + 1) }, BODY, { now: NOW }), 'tampered'],
    ['an event 301 s old', () => verifyWebhook(SECRET, headers(TS - 301), BODY, { now: NOW }), 'expired'],
    ['an event 61 s in the future', () => verifyWebhook(SECRET, headers(TS + 61), BODY, { now: NOW }), 'future'],
    ['a signed body that is not JSON', () => verifyWebhook(SECRET, headers(TS, 'not json'), 'not json', { now: NOW }), 'invalid-body'],
    ['a signed body that is not an envelope', () => verifyWebhook(SECRET, headers(TS, '{"id":1}'), '{"id":1}', { now: NOW }), 'invalid-body'],
  ])('rejects %s', (_n, f, kind) => {
    expect(kindOf(f)).toBe(kind);
  });

  test('the limits: 300 s old and 60 s ahead pass; toleranceSeconds changes the first', () => {
    expect(kindOf(() => verifyWebhook(SECRET, headers(TS - 300), BODY, { now: NOW }))).toBe('none');
    expect(kindOf(() => verifyWebhook(SECRET, headers(TS + 60), BODY, { now: NOW }))).toBe('none');
    expect(kindOf(() => verifyWebhook(SECRET, headers(TS - 30), BODY, { now: NOW, toleranceSeconds: 10 }))).toBe('expired');
  });

  test('errors never include the secret', () => {
    try {
      verifyWebhook(SECRET, headers(TS, BODY, 'whsec_other_secret_value'), BODY, { now: NOW });
    } catch (e) {
      expect(JSON.stringify({ m: (e as Error).message, h: (e as WebhookVerificationError).hint })).not.toContain(SECRET);
    }
    expect(() => verifyWebhook('', headers(), BODY)).toThrow(TypeError);
  });

  test('property: any signed body verifies; changing any one byte of it does not', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.jsonValue(), fc.nat(), (secret, payload, pick) => {
        const body = JSON.stringify({ eventId: 'evt_p', eventType: 'processor.updated', payload: { v: payload } });
        const h = headers(TS, body, secret);
        expect(verifyWebhook(secret, h, body, { now: NOW }).eventId).toBe('evt_p');
        const bytes = Buffer.from(body);
        const i = pick % bytes.length;
        bytes[i] = bytes[i] ^ 0x01;
        expect(kindOf(() => verifyWebhook(secret, h, bytes, { now: NOW }))).toBe('tampered');
      }),
      { numRuns: 200 },
    );
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '../../src/api/webhooks.js';
import { INVOICE_CONFIG, SPLITTER_CONFIG, createProcessor, start, type TestSandbox } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

type Json = Record<string, unknown>;
const SECRET = 'whsec_test_0123456789abcdef';
const FAST = { baseDelayMs: 5, maxDelayMs: 20 };

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const rx = await startReceiver(answer);
  cleanup.push(() => rx.close());
  return rx;
}

async function sandbox(opts: Parameters<typeof start>[0]): Promise<TestSandbox> {
  const t = await start({ engineDelayMs: 1, ...opts });
  cleanup.push(() => t.close());
  return t;
}

async function workflowOf(t: TestSandbox, processorId: string): Promise<string> {
  return (await t.call<{ workflow: { id: string } }>('POST', '/workflows', { body: { name: 'hooks', steps: [{ processorId }] } })).body.workflow.id;
}

interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  endpointId: string;
  nextAttemptAt: string | null;
  attempts: Array<{ attempt: number; ok: boolean; statusCode: number | null; error: string | null }>;
}

async function deliveries(t: TestSandbox, query = ''): Promise<Delivery[]> {
  const r = await t.call<{ webhookDeliveries: Delivery[] }>('GET', `/webhook_deliveries?maxPageSize=1000${query}`);
  expect(r.status).toBe(200);
  return r.body.webhookDeliveries;
}

test('a loopback receiver gets every event exactly once, validly signed; a tampered body fails verification', async () => {
  const rx = await receiver();
  const t = await sandbox({ webhooks: { endpoints: [{ url: `${rx.url}/hooks`, secret: SECRET }], delivery: FAST } });
  const pid = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
  await t.call('POST', `/processors/${pid}`, { body: { name: 'renamed' } });
  await t.call('POST', `/processors/${pid}/publish`, { body: { releaseType: 'major' } });
  const wf = await workflowOf(t, pid);
  const batch = await t.call<{ batchId: string }>('POST', '/workflow_runs/batch', { body: { workflowId: wf, inputs: Array.from({ length: 25 }, (_, i) => ({ rawText: `Invoice ${i}`, metadata: { row: i } })) } });
  await t.sb.idle();

  const events = rx.received.map((r) => {
    expect(r.path).toBe('/hooks');
    expect(r.headers['x-service-api-version']).toBe('2025-04-21');
    expect(r.headers['content-type']).toBe('application/json');
    return verifyWebhook(SECRET, r.headers, r.body);
  });
  expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
  const byType = (type: string): WebhookEvent[] => events.filter((e) => e.eventType === type);
  expect(events.map((e) => e.eventType).sort()).toEqual(
    ['processor.created', 'processor.updated', 'processor.version.published', ...Array(25).fill('processor_run.processed'), ...Array(25).fill('workflow_run.completed')].sort(),
  );
  for (const e of byType('workflow_run.completed')) expect(e.payload).toMatchObject({ object: 'workflow_run', status: 'PROCESSED', batchId: batch.body.batchId });
  expect(new Set(byType('workflow_run.completed').map((e) => (e.payload.metadata as { row: number }).row)).size).toBe(25);
  for (const e of byType('processor_run.processed')) expect(e.payload).toMatchObject({ object: 'document_processor_run', status: 'PROCESSED', metadata: { row: expect.any(Number) } });
  expect(byType('processor.updated')[0].payload).toMatchObject({ id: pid, name: 'renamed', draftVersion: { version: 'draft' } });
  expect(byType('processor.version.published')[0].payload).toMatchObject({ processorId: pid, version: '1.0' });

  const sample = rx.received[rx.received.length - 1];
  const tampered = sample.body.replace(/"status":"PROCESSED"/, '"status":"FAILED"');
  expect(tampered).not.toBe(sample.body);
  expect(() => verifyWebhook(SECRET, sample.headers, tampered)).toThrow(expect.objectContaining({ kind: 'tampered' }) as unknown as WebhookVerificationError);
  expect(() => verifyWebhook('another secret of the same kind', sample.headers, sample.body)).toThrow(WebhookVerificationError);

  const all = await deliveries(t);
  expect(all).toHaveLength(events.length);
  for (const d of all) expect(d).toMatchObject({ status: 'DELIVERED', attempts: [{ attempt: 1, ok: true, statusCode: 200, error: null }] });
});

test('a receiver that fails twice still gets the event; every attempt is recorded', async () => {
  const tries = new Map<string, number>();
  const rx = await receiver((r) => {
    const id = (JSON.parse(r.body) as { eventId: string }).eventId;
    const n = (tries.get(id) ?? 0) + 1;
    tries.set(id, n);
    return n === 1 ? 500 : n === 2 ? 'destroy' : 200;
  });
  const t = await sandbox({ webhooks: { endpoints: [{ url: rx.url, secret: SECRET, events: ['workflow_run.completed'] }], delivery: { ...FAST, maxAttempts: 5 } } });
  const wf = await workflowOf(t, await createProcessor(t, 'EXTRACT', INVOICE_CONFIG));
  await t.call('POST', '/workflow_runs', { body: { workflowId: wf, rawTexts: ['x'] } });
  await t.sb.idle();

  expect(rx.received).toHaveLength(3);
  for (const r of rx.received) expect(verifyWebhook(SECRET, r.headers, r.body).eventType).toBe('workflow_run.completed');
  expect(new Set(rx.received.map((r) => r.body)).size).toBe(1);
  const [d] = await deliveries(t);
  expect(d).toMatchObject({ status: 'DELIVERED', eventType: 'workflow_run.completed', nextAttemptAt: null });
  expect(d.attempts.map((a) => [a.attempt, a.ok, a.statusCode])).toEqual([[1, false, 500], [2, false, null], [3, true, 200]]);
  expect(d.attempts[0].error).toBe('HTTP 500');
  expect(d.attempts[1].error).toBeTruthy();
  const one = await t.call<{ webhookDelivery: Json }>('GET', `/webhook_deliveries/${d.id}`);
  expect(one.body.webhookDelivery).toMatchObject({ id: d.id, event: { eventId: d.eventId, eventType: 'workflow_run.completed' } });
});

test('a receiver slower than timeoutMs counts as a failed attempt and is retried', async () => {
  const rx = await receiver((_r, i) => (i === 0 ? 'hang' : 200));
  const t = await sandbox({ webhooks: { endpoints: [{ url: rx.url, secret: SECRET, events: ['processor.created'] }], delivery: { ...FAST, timeoutMs: 100 } } });
  await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
  await t.sb.idle();
  const [d] = await deliveries(t);
  expect(d.status).toBe('DELIVERED');
  expect(d.attempts.map((a) => [a.ok, a.error])).toEqual([[false, 'no answer within 100 ms'], [true, null]]);
});

test('retries are bounded: after maxAttempts the delivery is FAILED', async () => {
  const rx = await receiver(() => 503);
  const t = await sandbox({ webhooks: { endpoints: [{ url: rx.url, secret: SECRET, events: ['processor.created'] }], delivery: { ...FAST, maxAttempts: 3 } } });
  await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
  await t.sb.idle();
  expect(rx.received).toHaveLength(3);
  const [d] = await deliveries(t, '&status=FAILED');
  expect(d.attempts.map((a) => a.statusCode)).toEqual([503, 503, 503]);
  expect(d.nextAttemptAt).toBeNull();
});

test('an endpoint pinned to 2024-12-23 gets the old layout and names its version; one on 2025-04-21 the new', async () => {
  const rx = await receiver();
  const t = await sandbox({ webhooks: { endpoints: [{ url: `${rx.url}/new`, secret: SECRET, events: ['processor.updated', 'workflow_run.completed'] }], delivery: FAST } });
  const created = await t.call<{ webhookEndpoint: Json }>('POST', '/webhook_endpoints', { body: { url: `${rx.url}/old`, apiVersion: '2024-12-23', events: ['processor.updated', 'workflow_run.completed'] } });
  expect(created.status).toBe(200);
  const oldSecret = created.body.webhookEndpoint.secret as string;
  expect(oldSecret).toMatch(/^whsec_/);
  expect(created.body.webhookEndpoint).toMatchObject({ apiVersion: '2024-12-23', source: 'api' });

  const pid = await createProcessor(t, 'SPLITTER', SPLITTER_CONFIG);
  await t.call('POST', `/processors/${pid}`, { body: { config: { ...SPLITTER_CONFIG, splitRules: 'split at cover pages' } } });
  const wf = await workflowOf(t, pid);
  await t.call('POST', '/workflow_runs', { body: { workflowId: wf, rawTexts: ['one\ftwo'] } });
  await t.sb.idle();

  const got = (p: string, type: string): { version: unknown; event: WebhookEvent } => {
    const r = rx.received.find((x) => x.path === p && x.body.includes(`"eventType":"${type}"`));
    if (!r) throw new Error(`no ${type} at ${p}`);
    return { version: r.headers['x-service-api-version'], event: verifyWebhook(p === '/old' ? oldSecret : SECRET, r.headers, r.body) };
  };
  const oldUpdate = got('/old', 'processor.updated');
  expect(oldUpdate.version).toBe('2024-12-23');
  const oldConfig = (oldUpdate.event.payload.draftVersion as { config: Json }).config;
  expect(oldConfig).toMatchObject({ subDocumentClassifications: SPLITTER_CONFIG.splitClassifications, customSplitterRules: 'split at cover pages' });
  expect(oldConfig).not.toHaveProperty('splitClassifications');
  const newUpdate = got('/new', 'processor.updated');
  expect(newUpdate.version).toBe('2025-04-21');
  expect((newUpdate.event.payload.draftVersion as { config: Json }).config).toMatchObject({ splitClassifications: SPLITTER_CONFIG.splitClassifications, splitRules: 'split at cover pages' });
  expect(newUpdate.event.eventId).toBe(oldUpdate.event.eventId);

  const oldRun = got('/old', 'workflow_run.completed').event.payload as { outputs: Array<{ output: Json }> };
  expect(oldRun.outputs[0].output).toHaveProperty('subDocumentClassifications');
  expect(oldRun.outputs[0].output).not.toHaveProperty('splits');
  expect((got('/new', 'workflow_run.completed').event.payload as { outputs: Array<{ output: Json }> }).outputs[0].output).toHaveProperty('splits');
});

describe('webhook endpoints (sandbox extension)', () => {
  test('registration: loopback only, the secret shown once, delete stops deliveries; workspace tokens only', async () => {
    const rx = await receiver();
    const t = await sandbox({});
    expect((await t.call('POST', '/webhook_endpoints', { body: { url: 'https://hooks.example.com/x' } })).body.error).toMatch(/only to loopback addresses .* not "hooks.example.com"/);
    expect((await t.call('POST', '/webhook_endpoints', { body: { url: rx.url, events: ['run.done'] } })).body.error).toMatch(/^invalid webhook endpoint at \/events/);
    expect((await t.call('POST', '/webhook_endpoints', { body: { url: rx.url, secret: 'short' } })).body.error).toMatch(/at \/secret: a secret must have at least 16 characters/);
    const ep = (await t.call<{ webhookEndpoint: Json }>('POST', '/webhook_endpoints', { body: { url: rx.url, secret: SECRET } })).body.webhookEndpoint;
    expect(ep).not.toHaveProperty('secret');
    expect(ep.apiVersion).toBe('2025-04-21');
    const listed = await t.call<{ webhookEndpoints: Json[] }>('GET', '/webhook_endpoints');
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);
    expect(listed.body.webhookEndpoints.map((e) => e.id)).toEqual([ep.id]);
    await createProcessor(t, 'EXTRACT');
    await t.sb.idle();
    expect(rx.received).toHaveLength(1);
    expect((await t.call('DELETE', `/webhook_endpoints/${String(ep.id)}`)).body).toEqual({ success: true, id: ep.id, deleted: true });
    await createProcessor(t, 'EXTRACT');
    await t.sb.idle();
    expect(rx.received).toHaveLength(1);
    expect((await t.call('GET', `/webhook_endpoints/${String(ep.id)}`)).status).toBe(404);

    const scoped = await sandbox({ tokens: [{ token: 'sk_scoped_111111', createdAt: '2025-05-01', processors: ['dp_1'] }] });
    expect((await scoped.call('GET', '/webhook_deliveries')).status).toBe(403);
    expect((await scoped.call('POST', '/webhook_endpoints', { body: { url: rx.url } })).status).toBe(403);
  });

  test('a receiver that never answers blocks neither requests nor the engine', async () => {
    const rx = await receiver(() => 'hang');
    const t = await start({ engineDelayMs: 1, webhooks: { endpoints: [{ url: rx.url, secret: SECRET }], delivery: { timeoutMs: 600_000, concurrency: 1 } } });
    cleanup.push(() => rx.close());
    try {
      const wf = await workflowOf(t, await createProcessor(t, 'EXTRACT', INVOICE_CONFIG));
      const runs = (await t.call<{ workflowRuns: Array<{ id: string }> }>('POST', '/workflow_runs', { body: { workflowId: wf, rawTexts: ['a', 'b', 'c'] } })).body.workflowRuns;
      const statuses = async (): Promise<string[]> => Promise.all(runs.map(async (r) => (await t.call<{ workflowRun: { status: string } }>('GET', `/workflow_runs/${r.id}`)).body.workflowRun.status));
      let last: string[] = [];
      for (let i = 0; i < 500; i++) {
        last = await statuses();
        if (last.every((s) => s === 'PROCESSED')) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(last).toEqual(['PROCESSED', 'PROCESSED', 'PROCESSED']);
      expect(rx.received).toHaveLength(1);
      const pending = await deliveries(t, '&status=PENDING');
      expect(pending.length).toBeGreaterThan(1);
    } finally {
      await t.close();
    }
  });
});

test('workflow runs and deliveries persist across a restart with a data dir; pending deliveries resume', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-webhooks-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  // A port nobody listens on: every attempt before the restart fails to connect.
  const down = await startReceiver();
  const deadUrl = down.url;
  await down.close();
  const webhooks = (url: string) => ({ endpoints: [{ id: 'whe_main', url, secret: SECRET, events: ['workflow_run.completed' as const] }], delivery: { baseDelayMs: 20, maxDelayMs: 40, maxAttempts: 50 } });

  const a = await start({ dataDir: dir, engineDelayMs: 1, webhooks: webhooks(deadUrl) });
  const wf = await workflowOf(a, await createProcessor(a, 'EXTRACT', INVOICE_CONFIG));
  const batchId = (await a.call<{ batchId: string }>('POST', '/workflow_runs/batch', { body: { workflowId: wf, inputs: [{ rawText: 'a' }, { rawText: 'b' }, { rawText: 'c' }] } })).body.batchId;
  let before: Delivery[] = [];
  for (let i = 0; i < 500 && !(before.length === 3 && before.every((d) => d.attempts.length >= 1)); i++) {
    await new Promise((r) => setTimeout(r, 10));
    before = await deliveries(a);
  }
  expect(before.map((d) => d.status)).toEqual(['PENDING', 'PENDING', 'PENDING']);
  expect(before.every((d) => d.attempts.every((x) => !x.ok))).toBe(true);
  await a.close();

  const rx = await receiver();
  const b = await start({ dataDir: dir, engineDelayMs: 1, webhooks: webhooks(rx.url) });
  try {
    await b.sb.idle();
    const runs = (await b.call<{ workflowRuns: Array<{ id: string; status: string }> }>('GET', `/workflow_runs?batchId=${batchId}`)).body.workflowRuns;
    expect(runs.map((r) => r.status)).toEqual(['PROCESSED', 'PROCESSED', 'PROCESSED']);
    const events = rx.received.map((r) => verifyWebhook(SECRET, r.headers, r.body));
    expect(events.map((e) => (e.payload as { id: string }).id).sort()).toEqual(runs.map((r) => r.id).sort());
    const after = await deliveries(b);
    expect(after.map((d) => d.id).sort()).toEqual(before.map((d) => d.id).sort());
    for (const d of after) {
      expect(d.status).toBe('DELIVERED');
      expect(d.attempts.length).toBeGreaterThanOrEqual(2);
      expect(d.attempts.slice(0, -1).every((x) => !x.ok)).toBe(true);
      expect(d.attempts.map((x) => x.attempt)).toEqual(d.attempts.map((_, i) => i + 1));
    }
  } finally {
    await b.close();
  }
});

/**
 * Webhook endpoints and subscriptions under API 2026-02-09 (spec 6 and 7), and deliveries to a
 * 2026-02-09 endpoint: 1.x event names, payloads as a 2026-02-09 GET answers them, same signing.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { signWebhook } from '../../src/api/signing.js';
import type { Ctx } from '../../src/sandbox/context.js';
import { Store } from '../../src/sandbox/store.js';
import { currentEventOf, payloadOf } from '../../src/sandbox/webhooks/current.js';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, createProcessor, start, type TestSandbox } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

type Json = Record<string, unknown>;
const V26 = '2026-02-09';
const FAST = { baseDelayMs: 5, maxDelayMs: 20 };

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Json }>;

async function setup(): Promise<{ t: TestSandbox; rx: Receiver; logs: string[]; call: Call }> {
  const rx = await startReceiver();
  cleanup.push(() => rx.close());
  const logs: string[] = [];
  const t = await start({ engineDelayMs: 1, webhooks: { endpoints: [], delivery: FAST }, log: (l) => logs.push(l) });
  cleanup.push(() => t.close());
  const call: Call = (m, p, b) => t.call<Json>(m, p, { version: V26, ...(b === undefined ? {} : { body: b }) });
  return { t, rx, logs, call };
}

async function endpoint(call: Call, url: string, enabledEvents: string[], extra: Json = {}): Promise<Json> {
  const r = await call('POST', '/webhook_endpoints', { url, name: 'hooks', enabledEvents, apiVersion: V26, ...extra });
  if (r.status !== 200) throw new Error(`create endpoint: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

function received(rx: Receiver): Array<{ eventId: string; eventType: string; payload: Json }> {
  return rx.received.map((r) => JSON.parse(r.body) as { eventId: string; eventType: string; payload: Json });
}

describe('webhook endpoints', () => {
  test('create answers WebhookEndpointCreate with signingSecret once; retrieve, list, update, delete', async () => {
    const { rx, call } = await setup();
    const created = await endpoint(call, `${rx.url}/h`, ['extract_run.processed', 'extractor.created'], { advancedOptions: { headers: { 'x-team': 'a' } } });
    const id = String(created.id);
    expect(created).toEqual({
      object: 'webhook_endpoint', id: expect.stringMatching(/^whe_/), url: `${rx.url}/h`, name: 'hooks', status: 'enabled',
      enabledEvents: ['extract_run.processed', 'extractor.created'], apiVersion: V26, advancedOptions: { headers: { 'x-team': 'a' } },
      signingSecret: expect.stringMatching(/^whsec_/), createdAt: expect.any(String), createdBy: { type: 'api_key', name: expect.any(String) },
    });
    const { signingSecret: _s, ...shown } = created;
    expect((await call('GET', `/webhook_endpoints/${id}`)).body).toEqual(shown);
    const list = await call('GET', '/webhook_endpoints?status=enabled');
    expect(list.body).toEqual({ object: 'list', data: [shown] });
    expect(JSON.stringify(list.body)).not.toContain(String(created.signingSecret));
    const up = await call('POST', `/webhook_endpoints/${id}`, { name: 'renamed', status: 'disabled', enabledEvents: ['split_run.failed'] });
    expect(up.body).toMatchObject({ name: 'renamed', status: 'disabled', enabledEvents: ['split_run.failed'], apiVersion: V26, advancedOptions: { headers: { 'x-team': 'a' } } });
    expect((await call('GET', '/webhook_endpoints?status=enabled')).body).toEqual({ object: 'list', data: [] });
    expect((await call('GET', '/webhook_endpoints?status=disabled')).body.data).toHaveLength(1);
    const sameVersion = await call('POST', `/webhook_endpoints/${id}`, { apiVersion: V26 });
    expect(sameVersion.status).toBe(200);
    const change = await call('POST', `/webhook_endpoints/${id}`, { apiVersion: '2025-04-21' });
    expect(change.status).toBe(400);
    expect(change.body).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/apiVersion cannot change after creation/) });
    expect((await call('DELETE', `/webhook_endpoints/${id}`)).body).toEqual({ id });
    expect((await call('GET', `/webhook_endpoints/${id}`)).status).toBe(404);
  });

  test.each([
    ['an unknown event', { enabledEvents: ['extract_run.done'] }, /\/enabledEvents\/0: unknown endpoint event type "extract_run.done"/],
    ['a subscription event', { enabledEvents: ['workflow_run.completed'] }, /\/enabledEvents\/0: workflow_run.completed is a subscription event/],
    ['a 2025-04-21 name', { enabledEvents: ['processor_run.processed'] }, /\/enabledEvents\/0: processor_run.processed is an event name of API 2025-04-21/],
    ['another version', { apiVersion: '2025-04-21' }, /apiVersion must be "2026-02-09" here/],
    ['no name', { name: undefined }, /invalid webhook endpoint at \/name/],
    ['a non-loopback url', { url: 'https://example.com/h' }, /only to loopback addresses/],
    ['url payloads', { advancedOptions: { payload: { format: 'url' } } }, /"url" .* is not emulated/],
    ['an unknown member', { secret: 'whsec_mine_0123456789' }, /unknown member "secret"/],
  ])('%s is a 400 naming the member', async (_n, patch, msg) => {
    const { rx, call } = await setup();
    const r = await call('POST', '/webhook_endpoints', { url: `${rx.url}/h`, name: 'n', enabledEvents: ['extractor.created'], apiVersion: V26, ...patch });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'INVALID_REQUEST', retryable: false, message: expect.stringMatching(msg) });
  });

  test('ids of another kind and bad cursors: 404/400 in ApiError shape', async () => {
    const { call } = await setup();
    const r = await call('GET', '/webhook_endpoints/whes_abc');
    expect(r.status).toBe(404);
    expect(r.body.message).toMatch(/webhook endpoint ids start with whe_/);
    expect((await call('GET', '/webhook_subscriptions/whe_abc')).body.message).toMatch(/webhook subscription ids start with whes_/);
    for (const p of ['/webhook_endpoints?nextPageToken=x', '/webhook_subscriptions?nextPageToken=x', '/webhook_endpoints?status=on']) {
      const b = await call('GET', p);
      expect(b.status, p).toBe(400);
      expect(b.body, p).toMatchObject({ code: 'INVALID_REQUEST' });
    }
  });
});

describe('webhook subscriptions', () => {
  test('create, the same endpoint+resource pair updated (not duplicated), list filters, update, delete', async () => {
    const { t, rx, call } = await setup();
    const ep = await endpoint(call, `${rx.url}/h`, []);
    const pid = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    const s1 = await call('POST', '/webhook_subscriptions', { webhookEndpointId: ep.id, resourceType: 'extractor', resourceId: pid, enabledEvents: ['extract_run.processed'] });
    expect(s1.body).toEqual({ object: 'webhook_subscription', id: expect.stringMatching(/^whes_/), webhookEndpointId: ep.id, resourceType: 'extractor', resourceId: pid, enabledEvents: ['extract_run.processed'], createdAt: expect.any(String) });
    const s2 = await call('POST', '/webhook_subscriptions', { webhookEndpointId: ep.id, resourceType: 'extractor', resourceId: pid, enabledEvents: ['extract_run.failed'] });
    expect(s2.body).toMatchObject({ id: s1.body.id, enabledEvents: ['extract_run.failed'] });
    expect((await call('GET', `/webhook_subscriptions?webhookEndpointId=${String(ep.id)}`)).body.data).toHaveLength(1);
    expect((await call('GET', `/webhook_subscriptions?resourceId=${pid}`)).body.data).toHaveLength(1);
    expect((await call('GET', '/webhook_subscriptions?resourceId=dp_other')).body.data).toHaveLength(0);
    const up = await call('POST', `/webhook_subscriptions/${String(s1.body.id)}`, { enabledEvents: ['extract_run.processed', 'batch_processor_run.processed'] });
    expect(up.body.enabledEvents).toEqual(['extract_run.processed', 'batch_processor_run.processed']);
    expect((await call('GET', `/webhook_subscriptions/${String(s1.body.id)}`)).body).toEqual(up.body);
    expect((await call('DELETE', `/webhook_subscriptions/${String(s1.body.id)}`)).body).toEqual({ id: s1.body.id });
    expect((await call('GET', `/webhook_subscriptions/${String(s1.body.id)}`)).status).toBe(404);
  });

  test('events are checked against the subscription enum and the resource type; resources must exist', async () => {
    const { t, rx, call } = await setup();
    const ep = await endpoint(call, `${rx.url}/h`, []);
    const pid = await createProcessor(t, 'CLASSIFY', CLASSIFY_CONFIG);
    const bad = async (body: Json) => call('POST', '/webhook_subscriptions', { webhookEndpointId: ep.id, resourceType: 'classifier', resourceId: pid, enabledEvents: ['classify_run.processed'], ...body });
    expect((await bad({ enabledEvents: ['extractor.created'] })).body.message).toMatch(/\/enabledEvents\/0: unknown subscription event type "extractor.created"/);
    expect((await bad({ enabledEvents: ['extract_run.processed'] })).body.message).toMatch(/\/enabledEvents\/0: extract_run.processed does not concern a classifier; a classifier subscription takes /);
    const xid = await createProcessor(t, 'EXTRACT', { schema: { type: 'object', properties: { total: { type: 'number' } } } });
    expect((await bad({ resourceType: 'extractor', resourceId: xid, enabledEvents: ['classify_run.processed'] })).body.message).toMatch(/does not concern an extractor; an extractor subscription takes /);
    expect((await bad({ resourceType: 'extractor', enabledEvents: ['extract_run.processed'] })).body.message).toMatch(/is a classifier, not an extractor; use resourceType "classifier"/);
    expect((await bad({ resourceType: 'workflow', resourceId: 'workflow_missing', enabledEvents: ['workflow_run.completed'] })).status).toBe(404);
    expect((await bad({ resourceType: 'project' })).body.message).toMatch(/invalid webhook subscription at \/resourceType/);
    expect((await bad({ webhookEndpointId: 'whe_missing' })).status).toBe(404);
  });
});

describe('deliveries to a 2026-02-09 endpoint', () => {
  test('workflow_run.* comes through a workflow subscription: 1.x names, the run as GET answers it, signed as before', async () => {
    const { t, rx, call } = await setup();
    const pid = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    const wf = await call('POST', '/workflows', { name: 'hooks', steps: [{ type: 'EXTRACT', name: 'Extract', config: { extractor: { id: pid } } }] });
    const other = await call('POST', '/workflows', { name: 'other', steps: [{ type: 'EXTRACT', name: 'Extract', config: { extractor: { id: pid } } }] });
    const ep = await endpoint(call, `${rx.url}/h`, []);
    const secret = String(ep.signingSecret);
    await call('POST', '/webhook_subscriptions', { webhookEndpointId: ep.id, resourceType: 'workflow', resourceId: wf.body.id, enabledEvents: ['workflow_run.completed', 'workflow_run.step_run.processed', 'workflow_run.cancelled'] });
    const run = await call('POST', '/workflow_runs', { workflow: { id: wf.body.id }, file: { text: 'Invoice number: A' } });
    await call('POST', '/workflow_runs', { workflow: { id: other.body.id }, file: { text: 'Invoice number: B' } });
    await t.sb.idle();
    const got = received(rx);
    expect(got.map((e) => e.eventType).sort()).toEqual(['workflow_run.completed', 'workflow_run.step_run.processed']);
    const completed = got.find((e) => e.eventType === 'workflow_run.completed') as { eventId: string; payload: Json };
    expect(completed.eventId).toMatch(/^evt_/);
    expect(completed.payload).toEqual((await call('GET', `/workflow_runs/${String(run.body.id)}`)).body);
    const step = got.find((e) => e.eventType === 'workflow_run.step_run.processed') as { payload: Json };
    expect(step.payload).toMatchObject({ object: 'workflow_step_run', workflowRunId: run.body.id, status: 'PROCESSED', stepType: 'EXTRACT', step: { name: 'Extract' } });
    // The delivery log takes the 2026-02-09 names as filters.
    const logged = await call('GET', '/webhook_deliveries?eventType=workflow_run.completed');
    expect(logged.status).toBe(200);
    expect((logged.body.webhookDeliveries as Json[]).map((d) => d.eventId)).toEqual([completed.eventId]);
    for (const r of rx.received) {
      const ts = String(r.headers['x-extend-request-timestamp']);
      expect(r.headers['x-extend-request-signature']).toBe(signWebhook(secret, ts, r.body));
      expect(r.headers['x-extend-api-version']).toBe(V26);
    }

    // Cancelled runs raise workflow_run.cancelled; a disabled endpoint gets nothing.
    t.sb.pauseEngine();
    const c = await call('POST', '/workflow_runs', { workflow: { id: wf.body.id }, file: { text: 'x' } });
    await call('POST', `/workflow_runs/${String(c.body.id)}/cancel`);
    t.sb.resumeEngine();
    await t.sb.idle();
    expect(received(rx).filter((e) => e.eventType === 'workflow_run.cancelled').map((e) => e.payload.id)).toEqual([c.body.id]);
    await call('POST', `/webhook_endpoints/${String(ep.id)}`, { status: 'disabled' });
    const before = rx.received.length;
    await call('POST', '/workflow_runs', { workflow: { id: wf.body.id }, file: { text: 'y' } });
    await t.sb.idle();
    expect(rx.received.length).toBe(before);
  });

  test('workflow.created and workflow.deployed (either version\'s routes): the Workflow as GET /workflows/{id} answers it', async () => {
    const { t, rx, call } = await setup();
    await endpoint(call, `${rx.url}/h`, ['workflow.created', 'workflow.deployed']);
    const pid = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    const wf = await call('POST', '/workflows', { name: 'w', steps: [{ type: 'EXTRACT', name: 'E', config: { extractor: { id: pid } } }] });
    await t.sb.idle();
    await call('POST', `/workflows/${String(wf.body.id)}/versions`, {});
    const legacy = await t.call<{ workflow: { id: string } }>('POST', '/workflows', { body: { name: 'old', steps: [{ processorId: pid }] } });
    await t.call('POST', `/workflows/${legacy.body.workflow.id}/publish`, { body: {} });
    await t.sb.idle();
    const got = received(rx).map((e) => [e.eventType, e.payload.object, e.payload.id]);
    // Delivery order is not guaranteed (docs): compared as a set.
    expect(got).toHaveLength(4);
    expect(got).toEqual(
      expect.arrayContaining([
        ['workflow.created', 'workflow', wf.body.id],
        ['workflow.deployed', 'workflow', wf.body.id],
        ['workflow.created', 'workflow', legacy.body.workflow.id],
        ['workflow.deployed', 'workflow', legacy.body.workflow.id],
      ]),
    );
    const deployed = received(rx).find((e) => e.eventType === 'workflow.deployed' && e.payload.id === legacy.body.workflow.id);
    expect(deployed?.payload).toEqual((await call('GET', `/workflows/${legacy.body.workflow.id}`)).body);
  });

  test('run and extractor events of a processor created through /processors: 1.x eventType, payload from the 2026-02-09 route or not delivered with a logged reason', async () => {
    const { t, rx, logs, call } = await setup();
    await endpoint(call, `${rx.url}/h`, ['extractor.created', 'extractor.version.published', 'extract_run.processed', 'classify_run.processed']);
    const pid = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    await t.call('POST', `/processors/${pid}/publish`, { body: { releaseType: 'major' } });
    const run = await t.call<{ processorRun: { id: string } }>('POST', '/processor_runs', { body: { processorId: pid, rawText: 'Invoice number: A', sync: true } });
    await t.sb.idle();
    const runId = run.body.processorRun.id;
    const expected: Array<[string, string]> = [
      ['extractor.created', `/extractors/${pid}`],
      ['extract_run.processed', `/extract_runs/${runId}`],
    ];
    for (const [eventType, path] of expected) {
      const direct = await call('GET', path);
      const delivered = received(rx).filter((e) => e.eventType === eventType);
      if (direct.status === 200) {
        // The route exists: the payload is its answer.
        expect(delivered.map((e) => e.payload.id)).toEqual([direct.body.id]);
      } else {
        // No 2026-02-09 route retrieves it yet: not delivered, and the log says which event and why.
        expect(direct.status).toBe(404);
        expect(delivered).toEqual([]);
        expect(logs.some((l) => l.includes(`${eventType} (evt_`) && l.includes(`no 2026-02-09 route answers GET ${path}`))).toBe(true);
      }
    }
    expect(received(rx).map((e) => e.eventType)).not.toContain('processor_run.processed');
  });

  test('the mapping table: each internal event, its 1.x name, resource and payload route', () => {
    const store = new Store();
    cleanup.push(() => store.close());
    const now = '2026-02-09T00:00:00.000Z';
    for (const [id, type] of [['dp_ex', 'EXTRACT'], ['dp_cl', 'CLASSIFY'], ['dp_sp', 'SPLITTER']]) {
      store.st('INSERT INTO processors (id, name, type, draft_version_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(id, id, type, `${id}_draft`, now, now);
      store
        .st("INSERT INTO processor_runs (id, processor_id, processor_type, processor_version_id, status, priority, source, created_at, updated_at, doc, job) VALUES (?, ?, ?, 'dpv_1', 'PROCESSED', 50, 'API', ?, ?, '{}', '{}')")
        .run(`dpr_${id.slice(3)}`, id, type, now, now);
    }
    store.st("INSERT INTO workflow_runs (id, workflow_id, status, created_at, updated_at, doc, job) VALUES ('workflow_run_1', 'workflow_1', 'PROCESSED', ?, ?, '{}', '{}')").run(now, now);
    store
      .st("INSERT INTO batch_processor_runs (id, processor_id, processor_version_id, processor_name, status, source, source_id, run_count, done_count, options, metrics, created_at, updated_at) VALUES ('bpr_1', 'dp_cl', 'dpv_1', 'c', 'PROCESSED', 'EVAL_SET', 'ev_1', 1, 1, '{}', '{}', ?, ?)")
      .run(now, now);
    const ctx = { store } as unknown as Ctx;
    const table: Array<[Parameters<typeof currentEventOf>[1], ReturnType<typeof currentEventOf>]> = [
      [{ type: 'processor_run.processed', runId: 'dpr_ex' }, { type: 'extract_run.processed', resourceId: 'dp_ex', path: '/extract_runs/dpr_ex' }],
      [{ type: 'processor_run.failed', runId: 'dpr_cl' }, { type: 'classify_run.failed', resourceId: 'dp_cl', path: '/classify_runs/dpr_cl' }],
      [{ type: 'processor_run.processed', runId: 'dpr_sp' }, { type: 'split_run.processed', resourceId: 'dp_sp', path: '/split_runs/dpr_sp' }],
      [{ type: 'processor.created', processorId: 'dp_cl' }, { type: 'classifier.created', resourceId: 'dp_cl', path: '/classifiers/dp_cl' }],
      [{ type: 'processor.updated', processorId: 'dp_sp' }, { type: 'splitter.updated', resourceId: 'dp_sp', path: '/splitters/dp_sp' }],
      [{ type: 'processor.version.published', processorId: 'dp_ex', versionId: 'dpv_1' }, { type: 'extractor.version.published', resourceId: 'dp_ex', path: '/extractors/dp_ex/versions/dpv_1' }],
      [{ type: 'workflow_run.completed', workflowRunId: 'workflow_run_1' }, { type: 'workflow_run.completed', resourceId: 'workflow_1', path: '/workflow_runs/workflow_run_1' }],
      [{ type: 'workflow_run.failed', workflowRunId: 'workflow_run_1' }, { type: 'workflow_run.failed', resourceId: 'workflow_1', path: '/workflow_runs/workflow_run_1' }],
      [{ type: 'workflow_run.cancelled', workflowRunId: 'workflow_run_1' }, { type: 'workflow_run.cancelled', resourceId: 'workflow_1', path: '/workflow_runs/workflow_run_1' }],
      [
        { type: 'workflow_run.step_run.processed', workflowRunId: 'workflow_run_1', runId: 'dpr_ex' },
        { type: 'workflow_run.step_run.processed', resourceId: 'workflow_1', path: '/workflow_runs/workflow_run_1', stepRunId: 'workflow_step_run_dpr_ex' },
      ],
      [{ type: 'batch_processor_run.processed', batchProcessorRunId: 'bpr_1' }, { type: 'batch_processor_run.processed', resourceId: 'dp_cl', path: '/batch_runs/bpr_1' }],
      [{ type: 'workflow.created', workflowId: 'workflow_gone' }, undefined],
      [{ type: 'processor_run.processed', runId: 'dpr_gone' }, undefined],
    ];
    for (const [e, want] of table) expect(currentEventOf(ctx, e), JSON.stringify(e)).toEqual(want);
    expect(payloadOf({ type: 't', resourceId: 'w', path: '/p', stepRunId: 's2' }, JSON.stringify({ stepRuns: [{ id: 's1' }, { id: 's2', n: 2 }] }))).toBe('{"id":"s2","n":2}');
    expect(payloadOf({ type: 't', resourceId: 'w', path: '/p' }, '{"id":"r"}')).toBe('{"id":"r"}');
  });
});

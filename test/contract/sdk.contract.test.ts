/**
 * The official SDK (npm extend-ai 0.0.12, API 2025-04-21) against `evalkit sandbox`, as a user
 * would point it: only `baseUrl` and `token` changed, no other client or request options.
 * Every method of the client is called; each answer is checked at run time against a JSON
 * Schema generated from the SDK's own .d.ts (sdk-schemas.ts), and the error paths the SDK
 * types (400, 401, 404, 429 with Retry-After) are checked to arrive as its typed errors.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Extend, ExtendClient, ExtendError } from 'extend-ai';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, SPLITTER_CONFIG } from '../sandbox/helpers.js';
import { RESPONSE_TYPES, responseChecker, typedErrors, type ResponseChecker, type SdkMethod } from './sdk-schemas.js';

let sb: SandboxHandle;
let client: ExtendClient;
let checker: ResponseChecker;
const TYPED = typedErrors();
const called = new Set<SdkMethod>();

/** Calls one SDK method and checks its answer against the SDK's type. */
async function call<T>(method: SdkMethod, p: Promise<T>): Promise<T> {
  const data = await p;
  checker.check(method, data);
  called.add(method);
  return data;
}

const INVOICE_TEXT = 'Invoice number: INV-7\nTotal: 120.50\nPaid: no\n';
const EXTRACT = INVOICE_CONFIG as unknown as Extend.ProcessorCreateRequestConfig;

/** Sandbox extension endpoints used only to set up what the SDK cannot (workflow steps, evaluation runs). */
async function extension(method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(sb.url + path, {
    method,
    headers: { authorization: `Bearer ${sb.token}`, 'x-extend-api-version': '2025-04-21', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await r.json()) as Record<string, unknown>;
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

beforeAll(async () => {
  [checker, sb] = await Promise.all([responseChecker(), startSandbox({ port: 0, host: '127.0.0.1', engineDelayMs: 2 })]);
  client = new ExtendClient({ baseUrl: sb.url, token: sb.token });
}, 60_000);
afterAll(() => sb?.close());

describe('every SDK method, happy path, answers in the SDK\'s types', () => {
  const ids: Record<string, string> = {};

  test('processor: create, update, list; processorVersion: create, list, get', async () => {
    const created = await call('processor.create', client.processor.create({ name: 'Invoices', type: 'EXTRACT', config: EXTRACT }));
    ids.processor = created.processor.id;
    const updated = await call('processor.update', client.processor.update(ids.processor, { name: 'Invoices v2', config: EXTRACT as Extend.ProcessorUpdateRequestConfig }));
    expect(updated.processor.draftVersion.version).toBe('draft');
    const published = await call('processorVersion.create', client.processorVersion.create(ids.processor, { releaseType: 'major', description: 'first' }));
    expect(published.processorVersion.version).toBe('1.0');
    ids.version = published.processorVersion.id;
    const list = await call('processor.list', client.processor.list());
    const mine = list.processors.find((p) => p.id === ids.processor);
    expect(mine?.versions.map((v) => v.version).sort()).toEqual(['1.0', 'draft']);
    const versions = await call('processorVersion.list', client.processorVersion.list(ids.processor));
    expect(versions.versions).toHaveLength(2);
    const one = await call('processorVersion.get', client.processorVersion.get(ids.processor, ids.version));
    expect(one.version.id).toBe(ids.version);
  });

  test('file: upload, list, get (with raw text), delete', async () => {
    const up = await call('file.upload', client.file.upload(new File([INVOICE_TEXT], 'invoice-7.txt', { type: 'text/plain' })));
    ids.file = up.file.id;
    const list = await call('file.list', client.file.list({ nameContains: 'invoice-7' }));
    expect(list.files.map((f) => f.id)).toEqual([ids.file]);
    const got = await call('file.get', client.file.get(ids.file, { rawText: true }));
    expect(got.file.contents?.rawText).toBe(INVOICE_TEXT);
    const spare = await client.file.upload(new File(['x'], 'spare.txt'));
    const del = await call('file.delete', client.file.delete(spare.file.id));
    expect(del.fileId).toBe(spare.file.id);
  });

  test('processorRun: create (async and sync), get, list, cancel, delete', async () => {
    const queued = await call('processorRun.create', client.processorRun.create({ processorId: ids.processor, file: { fileId: ids.file }, metadata: { order: 7 } }));
    expect(queued.processorRun.status).toBe('PROCESSING');
    const sync = await client.processorRun.create({ processorId: ids.processor, rawText: INVOICE_TEXT, sync: true });
    checker.check('processorRun.create', sync);
    expect(sync.processorRun.status).toBe('PROCESSED');
    await sb.idle();
    const got = await call('processorRun.get', client.processorRun.get(queued.processorRun.id));
    expect(got.processorRun.status).toBe('PROCESSED');
    expect(got.processorRun.metadata).toMatchObject({ order: 7 });
    const list = await call('processorRun.list', client.processorRun.list({ processorId: ids.processor }));
    expect(list.processorRuns.length).toBe(2);
    sb.pauseEngine();
    try {
      const pending = await client.processorRun.create({ processorId: ids.processor, rawText: INVOICE_TEXT });
      const cancelled = await call('processorRun.cancel', client.processorRun.cancel(pending.processorRun.id));
      expect(cancelled.processorRun.status).toBe('CANCELLED');
    } finally {
      sb.resumeEngine();
    }
    const del = await call('processorRun.delete', client.processorRun.delete(sync.processorRun.id));
    expect(del.documentProcessorRunId).toBe(sync.processorRun.id);
  });

  test.each([
    ['CLASSIFY', CLASSIFY_CONFIG, 'This is an invoice for services.'],
    ['SPLITTER', SPLITTER_CONFIG, 'Invoice 1\nReceipt 2'],
  ] as const)('processorRun: %s outputs (sync) answer in the SDK\'s output types', async (type, config, text) => {
    const p = await client.processor.create({ name: type, type, config: config as unknown as Extend.ProcessorCreateRequestConfig });
    const run = await call('processorRun.create', client.processorRun.create({ processorId: p.processor.id, rawText: text, sync: true }));
    expect(run.processorRun.status).toBe('PROCESSED');
    expect(run.processorRun.type).toBe(type);
  });

  test('evaluationSet: create, list, get; evaluationSetItem: create, createBatch, list, update, delete; batchProcessorRun: get', async () => {
    const set = await call('evaluationSet.create', client.evaluationSet.create({ name: 'invoices', description: 'golden', processorId: ids.processor }));
    ids.set = set.evaluationSet.id;
    await call('evaluationSet.list', client.evaluationSet.list({ processorId: ids.processor }));
    await call('evaluationSet.get', client.evaluationSet.get(ids.set));
    const expected = { value: { invoice_number: 'INV-7', total: 120.5 } };
    const item = await call('evaluationSetItem.create', client.evaluationSetItem.create({ evaluationSetId: ids.set, fileId: ids.file, expectedOutput: expected }));
    const more = await call('evaluationSetItem.createBatch', client.evaluationSetItem.createBatch({ evaluationSetId: ids.set, items: [{ fileId: ids.file, expectedOutput: expected }] }));
    expect(more.evaluationSetItems).toHaveLength(1);
    const list = await call('evaluationSetItem.list', client.evaluationSetItem.list(ids.set));
    expect(list.evaluationSetItems).toHaveLength(2);
    const upd = await call('evaluationSetItem.update', client.evaluationSetItem.update(item.evaluationSetItem.id, { expectedOutput: { value: { invoice_number: 'INV-7', total: 120.5, paid: false } } }));
    expect(upd.evaluationSetItem.expectedOutput).toEqual({ value: { invoice_number: 'INV-7', total: 120.5, paid: false } });
    const del = await call('evaluationSetItem.delete', client.evaluationSetItem.delete(more.evaluationSetItems[0].id));
    expect(del.evaluationSetItemId).toBe(more.evaluationSetItems[0].id);
    const batch = (await extension('POST', '/batch_processor_runs', { evaluationSetId: ids.set })) as { batchProcessorRun: { id: string } };
    await sb.idle();
    const got = await call('batchProcessorRun.get', client.batchProcessorRun.get(batch.batchProcessorRun.id));
    expect(got.batchProcessorRun.status).toBe('PROCESSED');
  });

  test('workflow: create; workflowRun: create, get, list, update, cancel, delete; batchWorkflowRun: create; workflowRunOutput: update', async () => {
    const wf = await call('workflow.create', client.workflow.create({ name: 'Invoice intake' }));
    ids.workflow = wf.workflow.id;
    await extension('POST', `/workflows/${ids.workflow}`, { steps: [{ processorId: ids.processor, version: 'draft' }] });
    const created = await call('workflowRun.create', client.workflowRun.create({ workflowId: ids.workflow, rawTexts: [INVOICE_TEXT], metadata: { source: 'contract' } }));
    const runId = created.workflowRuns[0].id;
    await sb.idle();
    const got = await call('workflowRun.get', client.workflowRun.get(runId));
    expect(got.workflowRun.status).toBe('PROCESSED');
    const updated = await call('workflowRun.update', client.workflowRun.update(runId, { name: 'first', metadata: { checked: true } }));
    expect(updated.workflowRun.metadata).toEqual({ source: 'contract', checked: true });
    const batch = await call('batchWorkflowRun.create', client.batchWorkflowRun.create({ workflowId: ids.workflow, inputs: [{ rawText: INVOICE_TEXT, metadata: { n: 1 } }] }));
    await sb.idle();
    const list = await call('workflowRun.list', client.workflowRun.list({ batchId: batch.batchId }));
    expect(list.workflowRuns).toHaveLength(1);
    expect(list.workflowRuns[0].workflowId).toBe(ids.workflow);
    const output = got.workflowRun.outputs[0];
    const reviewed = await call(
      'workflowRunOutput.update',
      client.workflowRunOutput.update(runId, output.id, { reviewedOutput: { value: { invoice_number: 'INV-7', total: 120.5 } } }),
    );
    expect(reviewed.workflowRun.outputs[0].reviewedOutput).toMatchObject({ value: { invoice_number: 'INV-7', total: 120.5 } });
    sb.pauseEngine();
    try {
      const pending = await client.workflowRun.create({ workflowId: ids.workflow, rawTexts: [INVOICE_TEXT] });
      const cancelled = await call('workflowRun.cancel', client.workflowRun.cancel(pending.workflowRuns[0].id));
      expect(cancelled.workflowRun.status).toBe('CANCELLED');
    } finally {
      sb.resumeEngine();
    }
    const del = await call('workflowRun.delete', client.workflowRun.delete(runId));
    expect(del.workflowRunId).toBe(runId);
  });
});

/** Methods the sandbox does not emulate: a 501 naming the endpoint, never a misleading 404/405. */
const NOT_EMULATED: ReadonlyArray<[SdkMethod, (c: ExtendClient) => Promise<unknown>, string]> = [
  ['parse', (c) => c.parse({ file: { fileId: 'file_x' } }), 'POST /parse'],
  ['parseAsync', (c) => c.parseAsync({ file: { fileId: 'file_x' } }), 'POST /parse/async'],
  ['parserRun.get', (c) => c.parserRun.get('parser_run_x'), 'GET /parser_runs/:id'],
  ['parserRun.delete', (c) => c.parserRun.delete('parser_run_x'), 'DELETE /parser_runs/:id'],
];

describe('endpoints the sandbox does not emulate', () => {
  test.concurrent.each(NOT_EMULATED)('%s answers 501 {success: false, error} naming the endpoint', async (method, fn, endpoint) => {
    const e = await fn(client).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ExtendError);
    expect((e as ExtendError).statusCode).toBe(501);
    expect((e as ExtendError).body).toEqual({ success: false, error: expect.stringContaining(endpoint) });
    called.add(method);
  });
});

/** Every method, with ids that do not exist (and bodies that pass the body checks). */
const MISSING: Record<SdkMethod, (c: ExtendClient) => Promise<unknown>> = {
  'workflowRun.list': (c) => c.workflowRun.list(),
  'workflowRun.create': (c) => c.workflowRun.create({ workflowId: 'workflow_missing', rawTexts: ['x'] }),
  'workflowRun.get': (c) => c.workflowRun.get('workflow_run_missing'),
  'workflowRun.update': (c) => c.workflowRun.update('workflow_run_missing', { name: 'x' }),
  'workflowRun.delete': (c) => c.workflowRun.delete('workflow_run_missing'),
  'workflowRun.cancel': (c) => c.workflowRun.cancel('workflow_run_missing'),
  'batchWorkflowRun.create': (c) => c.batchWorkflowRun.create({ workflowId: 'workflow_missing', inputs: [{ rawText: 'x' }] }),
  'processorRun.list': (c) => c.processorRun.list(),
  'processorRun.create': (c) => c.processorRun.create({ processorId: 'dp_missing', rawText: 'x' }),
  'processorRun.get': (c) => c.processorRun.get('dpr_missing'),
  'processorRun.delete': (c) => c.processorRun.delete('dpr_missing'),
  'processorRun.cancel': (c) => c.processorRun.cancel('dpr_missing'),
  'processor.list': (c) => c.processor.list(),
  'processor.create': (c) => c.processor.create({ name: 'x', type: 'EXTRACT', cloneProcessorId: 'dp_missing' }),
  'processor.update': (c) => c.processor.update('dp_missing', { name: 'x' }),
  'processorVersion.get': (c) => c.processorVersion.get('dp_missing', 'dpv_missing'),
  'processorVersion.list': (c) => c.processorVersion.list('dp_missing'),
  'processorVersion.create': (c) => c.processorVersion.create('dp_missing', { releaseType: 'major' }),
  'parserRun.get': (c) => c.parserRun.get('parser_run_missing'),
  'parserRun.delete': (c) => c.parserRun.delete('parser_run_missing'),
  'file.list': (c) => c.file.list(),
  'file.get': (c) => c.file.get('file_missing'),
  'file.delete': (c) => c.file.delete('file_missing'),
  'file.upload': (c) => c.file.upload(new File(['x'], 'x.txt')),
  'evaluationSet.list': (c) => c.evaluationSet.list(),
  'evaluationSet.create': (c) => c.evaluationSet.create({ name: 'x', description: 'x', processorId: 'dp_missing' }),
  'evaluationSet.get': (c) => c.evaluationSet.get('ev_missing'),
  'evaluationSetItem.list': (c) => c.evaluationSetItem.list('ev_missing'),
  'evaluationSetItem.create': (c) => c.evaluationSetItem.create({ evaluationSetId: 'ev_missing', fileId: 'file_missing', expectedOutput: { value: {} } }),
  'evaluationSetItem.update': (c) => c.evaluationSetItem.update('evi_missing', { expectedOutput: { value: {} } }),
  'evaluationSetItem.delete': (c) => c.evaluationSetItem.delete('evi_missing'),
  'evaluationSetItem.createBatch': (c) => c.evaluationSetItem.createBatch({ evaluationSetId: 'ev_missing', items: [{ fileId: 'file_missing', expectedOutput: { value: {} } }] }),
  'workflowRunOutput.update': (c) => c.workflowRunOutput.update('workflow_run_missing', 'dpr_missing', { reviewedOutput: { value: {} } }),
  'batchProcessorRun.get': (c) => c.batchProcessorRun.get('bpr_missing'),
  'workflow.create': (c) => c.workflow.create({ name: 'x' }),
  parse: (c) => c.parse({ file: { fileId: 'file_missing' } }),
  parseAsync: (c) => c.parseAsync({ file: { fileId: 'file_missing' } }),
};

describe('typed error paths', () => {
  test('400: a body the service rejects is an Extend.BadRequestError with {success: false, error} naming the rule', async () => {
    const e = await client.processorRun.create({ processorId: 'dp_nothing' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Extend.BadRequestError);
    expect((e as ExtendError).body).toEqual({ success: false, error: 'one of file or rawText is required' });
  });

  /** Expects `status`, as the SDK's typed error when the method's doc comment names it, else as ExtendError with the status. */
  function expectError(method: SdkMethod, e: unknown, status: number, typed: string): void {
    expect(e, method).toBeInstanceOf(ExtendError);
    expect((e as ExtendError).statusCode, method).toBe(status);
    expect((e as ExtendError).body, method).toEqual({ success: false, error: expect.any(String) });
    if (TYPED.get(method)?.has(typed)) expect((e as Error).constructor.name, method).toBe(typed);
  }

  test('401: an unknown token, on every method (Extend.UnauthorizedError where the SDK types it)', async () => {
    const bad = new ExtendClient({ baseUrl: sb.url, token: 'sk_not_a_token' });
    const results = await Promise.all(Object.entries(MISSING).map(async ([m, fn]) => [m, await fn(bad).catch((x: unknown) => x)] as const));
    expect(results).toHaveLength(Object.keys(RESPONSE_TYPES).length);
    for (const [m, e] of results) expectError(m as SdkMethod, e, 401, 'UnauthorizedError');
  });

  test('404: unknown ids, on every method that takes one (Extend.NotFoundError where the SDK types it)', async () => {
    const withIds = Object.entries(MISSING).filter(([m]) => !NOT_EMULATED.some(([n]) => n === m) && !/\.(list|create|createBatch|upload)$/.test(m));
    const results = await Promise.all(withIds.map(async ([m, fn]) => [m, await fn(client).catch((x: unknown) => x)] as const));
    for (const [m, e] of results) expectError(m as SdkMethod, e, 404, 'NotFoundError');
    // Ids named in bodies too.
    expectError('processorRun.create', await client.processorRun.create({ processorId: 'dp_missing', rawText: 'x' }).catch((x: unknown) => x), 404, 'NotFoundError');
    expectError('workflowRun.create', await client.workflowRun.create({ workflowId: 'workflow_missing', rawTexts: ['x'] }).catch((x: unknown) => x), 404, 'NotFoundError');
  });

  test('400: malformed ids, bodies and queries (Extend.BadRequestError where the SDK types it)', async () => {
    const { processor } = await client.processor.create({ name: 'for 400s', type: 'CLASSIFY' });
    const cases: Array<[SdkMethod, () => Promise<unknown>]> = [
      ['processorRun.get', () => client.processorRun.get('not an id!')],
      ['processor.list', () => client.processor.list({ maxPageSize: 0 })],
      ['processor.create', () => client.processor.create({ name: '', type: 'EXTRACT' })],
      ['processorVersion.create', () => client.processorVersion.create(processor.id, { releaseType: 'patch' as never })],
      ['workflowRun.create', () => client.workflowRun.create({ workflowId: 'workflow_x' })],
      ['batchWorkflowRun.create', () => client.batchWorkflowRun.create({ workflowId: 'workflow_x', inputs: [] })],
      ['evaluationSetItem.createBatch', () => client.evaluationSetItem.createBatch({ evaluationSetId: 'ev_x', items: [] })],
      ['file.list', () => client.file.list({ maxPageSize: 5000 })],
      ['workflowRun.list', () => client.workflowRun.list({ status: 'DONE' as never })],
    ];
    for (const [m, fn] of cases) expectError(m, await fn().catch((x: unknown) => x), 400, 'BadRequestError');
  });

  test('429: an injected rate limit carries Retry-After and X-RateLimit-Reset; the SDK honours them and then throws Extend.TooManyRequestsError', async () => {
    const limited = await startSandbox({ port: 0, host: '127.0.0.1', devToken: sb.token, faults: ['status=429,rate=1,retryAfter=1,route=GET /processors'] });
    try {
      const c = new ExtendClient({ baseUrl: limited.url, token: limited.token });
      const t0 = performance.now();
      const e = await c.processor.list().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Extend.TooManyRequestsError);
      const raw = (e as ExtendError).rawResponse;
      expect(raw?.headers.get('retry-after')).toBe('1');
      expect(Number(raw?.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 5);
      expect((e as ExtendError).body).toEqual({ success: false, error: expect.stringMatching(/rate limit/) });
      // Two retries (the SDK's default), each after the 1 s the sandbox asked for.
      expect(performance.now() - t0).toBeGreaterThanOrEqual(1900);
      // Other routes are not affected by the pattern.
      await expect(c.workflowRun.list()).resolves.toMatchObject({ success: true });
    } finally {
      await limited.close();
    }
  });
});

test('the suite called every method of the SDK client (as the SDK\'s .d.ts lists them)', () => {
  expect([...TYPED.keys()].sort()).toEqual(Object.keys(RESPONSE_TYPES).sort());
  expect([...called].sort()).toEqual(Object.keys(RESPONSE_TYPES).sort());
});

// The client on API version 2026-02-09 against a scripted server answering in the spec's
// section-7 shapes: headers per version, the workspace header, cursor paging, ApiError bodies,
// retries, deletions, and the facade that picks the route family by version.
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, clientFromEnv, collect, createClient, runBody2026, typeOfId, type Client, type ClientOptions } from '../../src/api/index.js';
import { UsageError } from '../../src/util/errors.js';
import { instantClock, startScripted, type Handler, type ScriptedServer } from './helpers.js';

const ts = '2026-03-01T00:00:00.000Z';
const TOKEN = 'sk-live-very-secret-0123456789';
const fx = {
  extractor: (over: object = {}) => ({ object: 'extractor', id: 'ex_1', name: 'Invoices', createdAt: ts, updatedAt: ts, ...over }),
  extractorFull: (over: object = {}) => ({ ...fx.extractor(), draftVersion: { object: 'extractor_version', id: 'exv_1', description: null, version: 'draft', extractorId: 'ex_1', config: {}, createdAt: ts, createdBy: null }, ...over }),
  classifierVersion: (over: object = {}) => ({ object: 'classifier_version', id: 'clv_1', description: null, version: 'draft', classifierId: 'cl_1', createdAt: ts, createdBy: null, ...over }),
  classifier: (over: object = {}) => ({ object: 'classifier', id: 'cl_1', name: 'Docs', createdAt: ts, updatedAt: ts, draftVersion: fx.classifierVersion({ config: { classifications: [] } }), ...over }),
  /** Every member the spec's section 7 requires of a run summary (ClassifyRunSummary...), as the sandbox sends them. */
  runSummary: (object: string, over: object = {}) => ({
    object, status: 'PROCESSING', failureReason: null, failureMessage: null, metadata: null, reviewed: false, edited: false,
    file: null, parseRunId: null, dashboardUrl: 'https://dashboard/x', usage: null, createdAt: ts, updatedAt: ts, ...over,
  }),
  /** A full run: the summary's members, the outputs and the config. */
  run: (object: string, over: object = {}) => fx.runSummary(object, { output: null, initialOutput: null, reviewedOutput: null, config: {}, ...over }),
  extractRun: (over: object = {}) => fx.run('extract_run', { id: 'exr_1', extractor: fx.extractor(), extractorVersion: null, files: [], edits: null, ...over }),
};

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(handler: Handler, opts: Partial<ClientOptions> = {}): Promise<{ client: Client; s: ScriptedServer }> {
  server = await startScripted(handler);
  const client = createClient({ baseUrl: server.url, token: TOKEN, apiVersion: '2026-02-09', clock: instantClock(), random: () => 0.5, ...opts });
  return { client, s: server };
}

describe('headers per API version', () => {
  it('2026-02-09 sends x-extend-api-version and no x-service-api-version; 2025-04-21 the other way round', async () => {
    const { client, s } = await setup(() => ({ body: { object: 'list', data: [] } }));
    await client.extractors.list();
    expect(s.requests[0].headers['x-extend-api-version']).toBe('2026-02-09');
    expect(s.requests[0].headers['x-service-api-version']).toBeUndefined();
    const old = createClient({ baseUrl: s.url, token: TOKEN, apiVersion: '2025-04-21' });
    await old.request({ method: 'GET', path: '/x', schema: (await import('zod')).z.unknown() });
    expect(s.requests[1].headers['x-service-api-version']).toBe('2025-04-21');
    expect(s.requests[1].headers['x-extend-api-version']).toBeUndefined();
  });

  it('a header name set explicitly (EVALKIT_VERSION_HEADER) wins on 2026-02-09 too', async () => {
    const { client, s } = await setup(() => ({ body: { object: 'list', data: [] } }), { versionHeader: 'X-Api-Version' });
    await client.extractors.list();
    expect(s.requests[0].headers['x-api-version']).toBe('2026-02-09');
    expect(s.requests[0].headers['x-extend-api-version']).toBeUndefined();
  });

  it('x-extend-workspace-id is sent when configured (option or EVALKIT_WORKSPACE_ID), never otherwise', async () => {
    const { client, s } = await setup(() => ({ body: { object: 'list', data: [] } }), { workspaceId: 'ws_42' });
    await client.classifiers.list();
    expect(s.requests[0].headers['x-extend-workspace-id']).toBe('ws_42');
    const env = { EVALKIT_BASE_URL: s.url, EVALKIT_API_TOKEN: TOKEN, EVALKIT_API_VERSION: '2026-02-09', EVALKIT_WORKSPACE_ID: 'ws_env' };
    await clientFromEnv({}, env).splitters.list();
    expect(s.requests[1].headers['x-extend-workspace-id']).toBe('ws_env');
    await clientFromEnv({}, { ...env, EVALKIT_WORKSPACE_ID: '' }).splitters.list();
    expect(s.requests[2].headers).not.toHaveProperty('x-extend-workspace-id');
  });

  it('a workspace id a header cannot carry is a usage error before any request', () => {
    expect(() => createClient({ baseUrl: 'http://127.0.0.1:1', workspaceId: 'ws_1\r\nx-evil: 1' })).toThrow(UsageError);
    expect(() => createClient({ baseUrl: 'http://127.0.0.1:1', workspaceId: ' ' })).toThrow(/workspace id/);
  });
});

describe('cursor paging', () => {
  it('listAll follows nextPageToken across 3 pages and stops when the token is absent', async () => {
    const pages = [
      { object: 'list', data: [fx.extractor({ id: 'ex_1' }), fx.extractor({ id: 'ex_2' })], nextPageToken: 'p2' },
      { object: 'list', data: [fx.extractor({ id: 'ex_3' })], nextPageToken: 'p3' },
      { object: 'list', data: [fx.extractor({ id: 'ex_4' })] },
    ];
    const { client, s } = await setup((_r, i) => ({ body: pages[i] }));
    const all = await collect(client.extractors.listAll({ maxPageSize: 2, sortDir: 'asc' }));
    expect(all.map((e) => e.id)).toEqual(['ex_1', 'ex_2', 'ex_3', 'ex_4']);
    expect(s.requests.map((r) => r.url)).toEqual([
      '/extractors?maxPageSize=2&sortDir=asc',
      '/extractors?maxPageSize=2&sortDir=asc&nextPageToken=p2',
      '/extractors?maxPageSize=2&sortDir=asc&nextPageToken=p3',
    ]);
  });

  it('a 2025-04-21 envelope on a 2026-02-09 route is an invalid response naming the pointer', async () => {
    const { client } = await setup(() => ({ body: { success: true, processors: [] } }));
    const e = await client.extractors.list().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).kind).toBe('invalid-response');
    expect((e as ApiError).message).toMatch(/\/object: .*\/data: /s);
  });

  it('a member the spec requires as nullable is required: a run without initialOutput or dashboardUrl is an invalid response naming each', async () => {
    const { initialOutput: _i, dashboardUrl: _d, ...broken } = fx.extractRun() as Record<string, unknown>;
    const { client } = await setup(() => ({ body: broken }));
    const e = await client.extractRuns.retrieve('exr_1').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).kind).toBe('invalid-response');
    expect((e as ApiError).message).toMatch(/\/initialOutput/);
    expect((e as ApiError).message).toMatch(/\/dashboardUrl/);
  });
});

describe('ApiError bodies', () => {
  it('become ApiError with the message, code and requestId; the token never shows', async () => {
    const { client, s } = await setup(() => ({ status: 400, body: { code: 'INVALID_REQUEST', message: `name is required (you sent Bearer ${TOKEN})`, retryable: false, requestId: 'req_abc' } }));
    const e = (await client.extractors.create({ name: '' }).catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(400);
    expect(e.code).toBe('INVALID_REQUEST');
    expect(e.requestId).toBe('req_abc');
    expect(e.serviceError).toBe('name is required (you sent Bearer ***)');
    expect(e.message).toBe('POST /extractors: 400 bad request: INVALID_REQUEST: name is required (you sent Bearer ***) (request req_abc)');
    expect(JSON.stringify(e.toJSON()) + e.message + (e.hint ?? '')).not.toContain(TOKEN);
    expect(e.toJSON()).toMatchObject({ code: 'INVALID_REQUEST', requestId: 'req_abc' });
    expect(s.requests).toHaveLength(1);
  });

  it('a 429 RATE_LIMIT_EXCEEDED (retryable) is retried, also for a POST, and then succeeds', async () => {
    const { client, s } = await setup((_r, i) =>
      i === 0 ? { status: 429, body: { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down', retryable: true, requestId: 'req_1' } } : { body: fx.extractRun() },
    );
    const run = await client.extractRuns.create({ extractor: { id: 'ex_1' }, file: { id: 'file_1' } });
    expect(run.id).toBe('exr_1');
    expect(s.requests).toHaveLength(2);
  });

  it('`retryable` decides: a 503 that says false is not retried, a GET 409 that says true is', async () => {
    const { client, s } = await setup((_r, i) =>
      i === 0 ? { status: 503, body: { code: 'MAINTENANCE', message: 'down for good', retryable: false } }
        : i === 1 ? { status: 409, body: { code: 'CONFLICT', message: 'busy', retryable: true } }
          : { body: fx.extractorFull() },
    );
    const e = (await client.extractors.retrieve('ex_1').catch((x: unknown) => x)) as ApiError;
    expect(e.status).toBe(503);
    expect(e.retryable).toBe(false);
    expect(s.requests).toHaveLength(1);
    expect((await client.extractors.retrieve('ex_1')).id).toBe('ex_1');
    expect(s.requests).toHaveLength(3);
  });

  it('a 2025-04-21 error body still gives its text, and the status decides', async () => {
    const { client, s } = await setup((_r, i) => (i === 0 ? { status: 500, body: { success: false, error: 'boom' } } : { body: fx.extractorFull() }));
    expect((await client.extractors.retrieve('ex_1')).id).toBe('ex_1');
    expect(s.requests).toHaveLength(2);
  });
});

describe('deletions and runs', () => {
  it('a deletion answers {id}', async () => {
    const { client, s } = await setup(() => ({ body: { id: 'clr_9' } }));
    expect(await client.classifyRuns.delete('clr_9')).toEqual({ id: 'clr_9' });
    expect(s.requests[0]).toMatchObject({ method: 'DELETE', url: '/classify_runs/clr_9' });
  });

  it('a deletion whose answer was lost and that then finds the run gone counts as done', async () => {
    const { client, s } = await setup((_r, i) => (i === 0 ? { destroy: true } : { status: 404, body: { code: 'NOT_FOUND', message: 'no such run', retryable: false } }));
    expect(await client.splitRuns.delete('splr_1')).toEqual({ id: 'splr_1' });
    expect(s.requests).toHaveLength(2);
  });

  it('list filters: entityId goes out as the kind\'s id key, batchId as is', async () => {
    const { client, s } = await setup(() => ({ body: { object: 'list', data: [] } }));
    await client.extractRuns.list({ entityId: 'ex_1', batchId: 'bpr_1', status: 'PROCESSED' });
    expect(s.requests[0].url).toBe('/extract_runs?batchId=bpr_1&status=PROCESSED&extractorId=ex_1');
  });

  it('createBatch answers a BatchRun, which /batch_runs/{id} polls', async () => {
    const batch = { object: 'batch_run', id: 'bpr_1', status: 'PROCESSED', runCount: 2, createdAt: ts };
    const { client, s } = await setup(() => ({ body: batch }));
    expect(await client.classifyRuns.createBatch({ classifier: { id: 'cl_1' }, inputs: [{ file: { id: 'file_1' } }, { file: { id: 'file_2' } }] })).toEqual(batch);
    expect((await client.batchRuns.waitFor('bpr_1')).status).toBe('PROCESSED');
    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /classify_runs/batch', 'GET /batch_runs/bpr_1']);
  });
});

describe('the facade', () => {
  it('entities(type) reaches /classifiers on 2026-02-09 and /processors?type= on 2025-04-21, in one neutral shape', async () => {
    const { client, s } = await setup((r) =>
      r.url.startsWith('/classifiers') ? { body: { object: 'list', data: [fx.classifier()] } }
        : { body: { success: true, processors: [{ object: 'document_processor', id: 'dp_1', name: 'Docs', type: 'CLASSIFY', createdAt: ts, updatedAt: ts }] } },
    );
    const now = (await client.entities('CLASSIFY').list()).items[0];
    expect(now).toMatchObject({ noun: 'classifier', id: 'cl_1', type: 'CLASSIFY', draft: { id: 'clv_1', entityId: 'cl_1', version: 'draft', config: { classifications: [] } } });
    const old = createClient({ baseUrl: s.url, token: TOKEN, apiVersion: '2025-04-21' });
    const before = (await old.entities('CLASSIFY').list()).items[0];
    expect(before).toMatchObject({ noun: 'processor', id: 'dp_1', type: 'CLASSIFY' });
    expect(s.requests.map((r) => r.url)).toEqual(['/classifiers', '/processors?type=CLASSIFY']);
  });

  it('findEntity: an ex_/cl_/spl_ id names its route; a dp_ id is tried on each route until one has it', async () => {
    const { client, s } = await setup((r) => (r.url === '/classifiers/dp_7' ? { body: fx.classifier({ id: 'dp_7' }) } : { status: 404, body: { code: 'NOT_FOUND', message: 'not found', retryable: false } }));
    expect((await client.findEntity('dp_7')).type).toBe('CLASSIFY');
    expect(s.requests.map((r) => r.url)).toEqual(['/extractors/dp_7', '/classifiers/dp_7']);
    const e = (await client.findEntity('spl_1').catch((x: unknown) => x)) as ApiError;
    expect(e.status).toBe(404);
    expect(s.requests.at(-1)!.url).toBe('/splitters/spl_1');
    await expect(client.entityOps('ex_1', 'SPLITTER')).rejects.toThrow(/^ex_1 is an EXTRACT id \(extractor\), not SPLITTER$/);
    // The article goes with the type: a SPLITTER, a CLASSIFY.
    await expect(client.entityOps('spl_1', 'EXTRACT')).rejects.toThrow(/^spl_1 is a SPLITTER id \(splitter\), not EXTRACT$/);
    await expect(client.entityOps('cl_1', 'EXTRACT')).rejects.toThrow(/^cl_1 is a CLASSIFY id \(classifier\), not EXTRACT$/);
  });

  it('runs(type).create maps a 2025-04-21 run request to 2026-02-09 (spec 2.1); sync goes to /extract', async () => {
    const { client, s } = await setup(() => ({ body: fx.extractRun({ status: 'PROCESSED', output: { value: { total: 1 } } }) }));
    const run = await client.runs('EXTRACT').create({ entityId: 'ex_1', version: 'draft', file: { fileName: 'a.pdf', fileUrl: 'https://x/a.pdf' }, config: { extractionRules: 'r' }, metadata: { k: 1 }, sync: true });
    expect(run).toMatchObject({ id: 'exr_1', type: 'EXTRACT', status: 'PROCESSED', output: { value: { total: 1 } }, entityId: 'ex_1', entityVersionId: null });
    expect(s.requests[0].url).toBe('/extract');
    expect(JSON.parse(s.requests[0].body)).toEqual({ extractor: { id: 'ex_1', version: 'draft', overrideConfig: { extractionRules: 'r' } }, file: { url: 'https://x/a.pdf', name: 'a.pdf' }, metadata: { k: 1 } });
  });

  it('runs(type).list maps the filters per version: /classify_runs?classifierId= on 2026-02-09, /processor_runs?processorType&processorId&batchProcessorRunId on 2025-04-21', async () => {
    const clr = fx.runSummary('classify_run', { id: 'clr_1', status: 'PROCESSED', classifier: { object: 'classifier', id: 'cl_1', name: 'n', createdAt: ts, updatedAt: ts }, classifierVersion: null });
    const dpr = { object: 'document_processor_run', id: 'dpr_1', status: 'PROCESSED', output: null, processorId: 'dp_1', processorVersionId: 'dpv_1' };
    const { client, s } = await setup((r) => (r.url.startsWith('/classify_runs') ? { body: { object: 'list', data: [clr] } } : { body: { success: true, processorRuns: [dpr] } }));
    const now = (await client.runs('CLASSIFY').list({ entityId: 'cl_1', batchId: 'bpr_1' })).items[0];
    expect(now).toMatchObject({ id: 'clr_1', type: 'CLASSIFY', status: 'PROCESSED', entityId: 'cl_1', entityVersionId: null });
    expect(now).not.toHaveProperty('output');
    const old = createClient({ baseUrl: s.url, token: TOKEN, apiVersion: '2025-04-21' });
    const before = (await old.runs('CLASSIFY').list({ entityId: 'dp_1', batchId: 'bpr_1' })).items[0];
    expect(before).toMatchObject({ id: 'dpr_1', type: 'CLASSIFY', entityId: 'dp_1', entityVersionId: 'dpv_1', output: null });
    expect(s.requests.map((r) => r.url)).toEqual([
      '/classify_runs?batchId=bpr_1&classifierId=cl_1',
      '/processor_runs?processorType=CLASSIFY&processorId=dp_1&batchProcessorRunId=bpr_1',
    ]);
    await expect(old.runs('CLASSIFY').createBatch({ entityId: 'dp_1', inputs: [] })).rejects.toThrow(/run batches need API version 2026-02-09/);
  });

  it('runs(type).waitFor polls the kind\'s route until a terminal status; cancel and delete use it too', async () => {
    const statuses = ['PROCESSING', 'PROCESSING', 'PROCESSED'];
    const { client, s } = await setup((r, i) =>
      r.method === 'DELETE' ? { body: { id: 'splr_1' } } : { body: fx.run('split_run', { id: 'splr_1', status: statuses[Math.min(i, 2)], splitter: null, splitterVersion: null }) },
    );
    expect((await client.runs('SPLITTER').waitFor('splr_1')).status).toBe('PROCESSED');
    await client.runs('SPLITTER').cancel('splr_1');
    await client.runs('SPLITTER').delete('splr_1');
    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /split_runs/splr_1', 'GET /split_runs/splr_1', 'GET /split_runs/splr_1', 'POST /split_runs/splr_1/cancel', 'DELETE /split_runs/splr_1']);
  });

  it('runBody2026: fileId -> {id}, rawText -> {text}; base64 and text for a splitter are refused with the fix', () => {
    expect(runBody2026('classifier', { entityId: 'cl_1', file: { fileId: 'file_1' } })).toEqual({ classifier: { id: 'cl_1' }, file: { id: 'file_1' } });
    expect(runBody2026('extractor', { entityId: 'ex_1', rawText: 'Invoice 42' })).toEqual({ extractor: { id: 'ex_1' }, file: { text: 'Invoice 42' } });
    expect(() => runBody2026('extractor', { entityId: 'ex_1', file: { fileName: 'a.pdf', fileBase64: 'AAAA' } })).toThrow(expect.objectContaining({ message: 'API version 2026-02-09 takes no base64 file in a run', hint: expect.stringContaining('upload the file first') }));
    expect(() => runBody2026('splitter', { entityId: 'spl_1', rawText: 'x' })).toThrow(/split runs do not take text/);
  });
});

describe('ids', () => {
  it.each([
    ['ex_1', 'EXTRACT'], ['exv_1', 'EXTRACT'], ['exr_1', 'EXTRACT'],
    ['cl_1', 'CLASSIFY'], ['cls_abc123', 'CLASSIFY'], ['clv_1', 'CLASSIFY'], ['clr_1', 'CLASSIFY'],
    ['spl_1', 'SPLITTER'], ['splv_1', 'SPLITTER'], ['splr_1', 'SPLITTER'],
    ['dp_1', undefined], ['dpv_1', undefined], ['extra_1', undefined], ['file_1', undefined],
  ])('%s -> %s', (id, type) => {
    expect(typeOfId(id)).toBe(type);
  });
});

describe('evaluation set runs (spec 4.1, 4.2, 7)', () => {
  const evalRun = (over: object = {}) => ({
    object: 'evaluation_set_run', id: 'bpr_1', evaluationSetId: 'ev_1', entity: fx.extractor(),
    entityVersion: { object: 'extractor_version', id: 'exv_1', description: null, version: '1.0', extractorId: 'ex_1', createdAt: ts, createdBy: null },
    metrics: { type: 'EXTRACT', numFilesTotal: 2, numFilesProcessed: 0 }, status: 'PENDING', options: {}, createdAt: ts, updatedAt: ts, ...over,
  });

  it('create sends the body as given; waitFor polls until an end status, each poll seen with its progress', async () => {
    const statuses = ['PROCESSING', 'PROCESSING', 'FAILED'];
    const { client, s } = await setup((req, i) => (req.method === 'POST' ? { body: evalRun() } : { body: evalRun({ status: statuses[i - 1], metrics: { type: 'EXTRACT', numFilesTotal: 2, numFilesProcessed: i } }) }));
    const made = await client.evaluationSetRuns.create({ evaluationSetId: 'ev_1', entity: { id: 'ex_1', version: '1.0' } });
    expect(made.status).toBe('PENDING');
    expect(JSON.parse(s.requests[0].body)).toEqual({ evaluationSetId: 'ev_1', entity: { id: 'ex_1', version: '1.0' } });
    const seen: number[] = [];
    const end = await client.evaluationSetRuns.waitFor('bpr_1', { onPoll: (r) => seen.push(Number(r.metrics?.numFilesProcessed)) });
    expect(end.status).toBe('FAILED');
    expect(seen).toEqual([1, 2, 3]);
    expect(s.requests.slice(1).map((r) => `${r.method} ${r.url}`)).toEqual(Array(3).fill('GET /evaluation_set_runs/bpr_1'));
  });

  it('metrics are typed by type, every member optional: a metric of the wrong type is an invalid response naming its pointer', async () => {
    const { client } = await setup((_req, i) => ({
      body: i === 0 ? evalRun({ metrics: { type: 'CLASSIFY' } }) : i === 1 ? evalRun({ metrics: undefined }) : evalRun({ metrics: { type: 'EXTRACT', fieldMetrics: { total: { accuracy: '0.5' } } } }),
    }));
    expect((await client.evaluationSetRuns.retrieve('bpr_1')).metrics).toEqual({ type: 'CLASSIFY' });
    expect((await client.evaluationSetRuns.retrieve('bpr_1')).metrics).toBeUndefined();
    const e = await client.evaluationSetRuns.retrieve('bpr_1').catch((x: unknown) => x);
    expect((e as ApiError).kind).toBe('invalid-response');
    expect((e as ApiError).message).toContain('/metrics');
  });
});

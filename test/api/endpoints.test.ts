import { afterEach, describe, expect, test } from 'vitest';
import { ApiError, collect, createClient, paginate, type Client } from '../../src/api/index.js';
import { fx, instantClock, startScripted, type Handler, type ScriptedServer } from './helpers.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// The scripted answers are in the 2025-04-21 shapes (the 2026-02-09 client has tests of its own).
async function setup(handler: Handler) {
  server = await startScripted(handler);
  const clock = instantClock();
  return { server, clock, client: createClient({ baseUrl: server.url, token: 't0ken', clock, random: () => 0.5, apiVersion: '2025-04-21' }) };
}

interface Route {
  name: string;
  call: (c: Client) => Promise<unknown>;
  method: string;
  url: string;
  body?: unknown;
  reply: unknown;
  want: (result: unknown) => void;
}

const item = { fileId: 'file_1', expectedOutput: { value: { total: 1 } } };

/** One row per endpoint: what the client sends and what it returns from a valid answer. */
const routes: Route[] = [
  {
    name: 'processors.create', call: (c) => c.processors.create({ name: 'Invoices', type: 'EXTRACT' }),
    method: 'POST', url: '/processors', body: { name: 'Invoices', type: 'EXTRACT' },
    reply: { success: true, processor: fx.processor() }, want: (r) => expect(r).toMatchObject({ id: 'dp_1' }),
  },
  {
    name: 'processors.update', call: (c) => c.processors.update('dp_1', { name: 'New' }),
    method: 'POST', url: '/processors/dp_1', body: { name: 'New' },
    reply: { success: true, processor: fx.processor({ draftVersion: { id: 'dpv_d', version: 'draft', config: { type: 'EXTRACT' } } }) },
    want: (r) => expect(r).toMatchObject({ draftVersion: { version: 'draft' } }),
  },
  {
    name: 'processors.publish', call: (c) => c.processors.publish('dp_1', { releaseType: 'minor', description: 'd' }),
    method: 'POST', url: '/processors/dp_1/publish', body: { releaseType: 'minor', description: 'd' },
    reply: { success: true, processorVersion: fx.version({ version: '1.1' }) }, want: (r) => expect(r).toMatchObject({ version: '1.1' }),
  },
  {
    name: 'processors.list', call: (c) => c.processors.list({ type: 'CLASSIFY', maxPageSize: 10 }),
    method: 'GET', url: '/processors?type=CLASSIFY&maxPageSize=10',
    reply: { success: true, processors: [fx.processor()], nextPageToken: 'p2' }, want: (r) => expect(r).toMatchObject({ items: [{ id: 'dp_1' }], nextPageToken: 'p2' }),
  },
  {
    name: 'processors.listVersions', call: (c) => c.processors.listVersions('dp_1'),
    method: 'GET', url: '/processors/dp_1/versions',
    reply: { success: true, versions: [fx.version({ version: 'draft' })] }, want: (r) => expect(r).toMatchObject({ items: [{ version: 'draft' }], nextPageToken: null }),
  },
  {
    name: 'processors.getVersion', call: (c) => c.processors.getVersion('dp_1', 'dpv_1'),
    method: 'GET', url: '/processors/dp_1/versions/dpv_1',
    reply: { success: true, version: fx.version() }, want: (r) => expect(r).toMatchObject({ id: 'dpv_1' }),
  },
  {
    name: 'processorRuns.create', call: (c) => c.processorRuns.create({ processorId: 'dp_1', file: { fileId: 'file_1' }, priority: 10 }),
    method: 'POST', url: '/processor_runs', body: { processorId: 'dp_1', file: { fileId: 'file_1' }, priority: 10 },
    reply: { success: true, processorRun: fx.run() }, want: (r) => expect(r).toMatchObject({ status: 'PROCESSING', output: null }),
  },
  {
    name: 'processorRuns.get', call: (c) => c.processorRuns.get('dpr 1/x'),
    method: 'GET', url: '/processor_runs/dpr%201%2Fx',
    reply: { success: true, processorRun: fx.run({ status: 'FAILED', failureReason: 'OCR', failureMessage: 'unreadable' }) },
    want: (r) => expect(r).toMatchObject({ failureMessage: 'unreadable' }),
  },
  {
    name: 'processorRuns.list', call: (c) => c.processorRuns.list({ batchProcessorRunId: 'bpr_1', status: 'PROCESSED' }),
    method: 'GET', url: '/processor_runs?batchProcessorRunId=bpr_1&status=PROCESSED',
    reply: { success: true, processorRuns: [fx.run()], nextPageToken: null }, want: (r) => expect(r).toMatchObject({ items: [{ id: 'dpr_1' }] }),
  },
  {
    name: 'files.retrieve', call: (c) => c.files.retrieve('file_1', {}, { rawText: true, markdown: true }),
    method: 'GET', url: '/files/file_1?rawText=true&markdown=true',
    reply: { success: true, file: fx.file({ contents: { rawText: 'hi', pages: [{ pageNumber: 1, markdown: '# hi' }] } }) },
    want: (r) => expect(r).toMatchObject({ raw: { contents: { rawText: 'hi' } } }),
  },
  {
    name: 'files.retrieve (bare file)', call: (c) => c.files.retrieve('file_1'),
    method: 'GET', url: '/files/file_1',
    reply: fx.file({ name: 'bare.pdf' }), want: (r) => expect(r).toMatchObject({ name: 'bare.pdf' }),
  },
  {
    name: 'files.list', call: (c) => c.files.list({ nameContains: 'inv oice', nextPageToken: 'abc' }),
    method: 'GET', url: '/files?nameContains=inv%20oice&nextPageToken=abc',
    reply: { success: true, files: [fx.file()] }, want: (r) => expect(r).toMatchObject({ items: [{ id: 'file_1' }] }),
  },
  {
    name: 'files.delete', call: (c) => c.files.delete('file_1'),
    method: 'DELETE', url: '/files/file_1',
    reply: { success: true, fileId: 'file_1' }, want: (r) => expect(r).toBeUndefined(),
  },
  {
    name: 'sets.create', call: (c) => c.sets.create({ name: 'Set', entityId: 'dp_1' }),
    method: 'POST', url: '/evaluation_sets', body: { name: 'Set', processorId: 'dp_1' },
    reply: { success: true, evaluationSet: fx.evaluationSet() }, want: (r) => expect(r).toMatchObject({ id: 'ev_1', entityId: 'dp_1' }),
  },
  {
    name: 'sets.retrieve', call: (c) => c.sets.retrieve('ev_1'),
    method: 'GET', url: '/evaluation_sets/ev_1',
    reply: { success: true, evaluationSet: fx.evaluationSet() }, want: (r) => expect(r).toMatchObject({ name: 'Set' }),
  },
  {
    name: 'sets.list', call: (c) => c.sets.list({ entityId: 'dp_1' }),
    method: 'GET', url: '/evaluation_sets?processorId=dp_1',
    reply: { success: true, evaluationSets: [fx.evaluationSet()] }, want: (r) => expect(r).toMatchObject({ items: [{ id: 'ev_1' }] }),
  },
  {
    name: 'items.list', call: (c) => c.items('ev_1').list({ maxPageSize: 50 }),
    method: 'GET', url: '/evaluation_sets/ev_1/items?maxPageSize=50',
    reply: { success: true, evaluationSetItems: [fx.item()] }, want: (r) => expect(r).toMatchObject({ items: [{ id: 'evi_1' }] }),
  },
  {
    name: 'items.create (one)', call: (c) => c.items('ev_1').create([item]),
    method: 'POST', url: '/evaluation_set_items', body: { evaluationSetId: 'ev_1', ...item },
    reply: { success: true, evaluationSetItem: fx.item() }, want: (r) => expect(r).toMatchObject([{ id: 'evi_1' }]),
  },
  {
    name: 'items.create (bulk)', call: (c) => c.items('ev_1').create([item, item]),
    method: 'POST', url: '/evaluation_set_items/bulk', body: { evaluationSetId: 'ev_1', items: [item, item] },
    reply: { success: true, evaluationSetItems: [fx.item(), fx.item({ id: 'evi_2' })] }, want: (r) => expect(r).toHaveLength(2),
  },
  {
    name: 'items.update', call: (c) => c.items('ev_1').update('evi_1', { expectedOutput: { value: {} } }),
    method: 'POST', url: '/evaluation_set_items/evi_1', body: { expectedOutput: { value: {} } },
    reply: { success: true, evaluationSetItem: fx.item() }, want: (r) => expect(r).toMatchObject({ id: 'evi_1' }),
  },
  {
    name: 'items.delete', call: (c) => c.items('ev_1').delete('evi_1'),
    method: 'DELETE', url: '/evaluation_set_items/evi_1',
    reply: { success: true }, want: (r) => expect(r).toBeUndefined(),
  },
  {
    name: 'batchProcessorRuns.get', call: (c) => c.batchProcessorRuns.get('bpr_1'),
    method: 'GET', url: '/batch_processor_runs/bpr_1',
    reply: { success: true, batchProcessorRun: fx.batch({ status: 'PROCESSED', metrics: { numFiles: 2, fieldMetrics: { total: { recallPerc: 50, fieldMetrics: {} } } } }) },
    want: (r) => expect(r).toMatchObject({ metrics: { numFiles: 2 } }),
  },
  {
    name: 'batchProcessorRuns.create', call: (c) => c.batchProcessorRuns.create({ evaluationSetId: 'ev_1', options: { excludeFields: ['x'] } }),
    method: 'POST', url: '/batch_processor_runs', body: { evaluationSetId: 'ev_1', options: { excludeFields: ['x'] } },
    reply: { success: true, batchProcessorRun: fx.batch() }, want: (r) => expect(r).toMatchObject({ source: 'EVAL_SET', runCount: 2 }),
  },
  {
    name: 'batchProcessorRuns.list', call: (c) => c.batchProcessorRuns.list({ sourceId: 'ev_1' }),
    method: 'GET', url: '/batch_processor_runs?sourceId=ev_1',
    reply: { success: true, batchProcessorRuns: [fx.batch()], nextPageToken: null }, want: (r) => expect(r).toMatchObject({ items: [{ id: 'bpr_1' }] }),
  },
  {
    name: 'workflowRuns.batch', call: (c) => c.workflowRuns.batch({ workflowId: 'workflow_1', inputs: [{ rawText: 'x' }] }),
    method: 'POST', url: '/workflow_runs/batch', body: { workflowId: 'workflow_1', inputs: [{ rawText: 'x' }] },
    reply: { success: true, batchId: 'batch_1' }, want: (r) => expect(r).toBe('batch_1'),
  },
  {
    name: 'workflowRuns.list', call: (c) => c.workflowRuns.list({ batchId: 'batch_1' }),
    method: 'GET', url: '/workflow_runs?batchId=batch_1',
    reply: { success: true, workflowRuns: [fx.workflowRun({ batchId: 'batch_1' })] }, want: (r) => expect(r).toMatchObject({ items: [{ batchId: 'batch_1' }] }),
  },
  {
    name: 'workflowRuns.get', call: (c) => c.workflowRuns.get('workflow_run_1'),
    method: 'GET', url: '/workflow_runs/workflow_run_1',
    reply: { success: true, workflowRun: fx.workflowRun() }, want: (r) => expect(r).toMatchObject({ status: 'PROCESSED' }),
  },
  {
    name: 'workflowRuns.update', call: (c) => c.workflowRuns.update('workflow_run_1', { metadata: { a: 1 } }),
    method: 'POST', url: '/workflow_runs/workflow_run_1', body: { metadata: { a: 1 } },
    reply: { success: true, workflowRun: fx.workflowRun({ metadata: { a: 1 } }) }, want: (r) => expect(r).toMatchObject({ metadata: { a: 1 } }),
  },
];

describe('endpoints', () => {
  test.each(routes.map((r) => [r.name, r] as const))('%s', async (_name, route) => {
    const { server, client } = await setup(() => ({ body: route.reply }));
    route.want(await route.call(client));
    expect(server.requests).toHaveLength(1);
    const sent = server.requests[0];
    expect(`${sent.method} ${sent.url}`).toBe(`${route.method} ${route.url}`);
    if (route.body !== undefined) expect(JSON.parse(sent.body)).toEqual(route.body);
  });

  test('unknown members pass through every level', async () => {
    const { client } = await setup(() => ({
      body: { success: true, extra: 1, processorRun: fx.run({ novel: { deep: true }, config: { type: 'EXTRACT', futureOption: 3 } }) },
    }));
    const run = await client.processorRuns.get('dpr_1');
    expect(run.novel).toEqual({ deep: true });
    expect(run.config?.futureOption).toBe(3);
  });

  test('an empty id is refused before any request', async () => {
    const { server, client } = await setup(() => ({}));
    await expect(client.processorRuns.get('')).rejects.toThrow('processor run id must be a non-empty string');
    expect(server.requests).toHaveLength(0);
  });

  test('files.upload sends multipart form data with the file name and type', async () => {
    const { server, client } = await setup(() => ({ body: { success: true, file: fx.file({ name: 'rows.csv', type: 'CSV' }) } }));
    const file = await client.files.upload({ name: 'rows.csv', data: 'a,b\n1,2\n' });
    expect(file.type).toBe('CSV');
    const sent = server.requests[0];
    expect(sent.url).toBe('/files/upload');
    expect(sent.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent.body).toContain('name="file"; filename="rows.csv"');
    expect(sent.body).toContain('Content-Type: text/csv');
    expect(sent.body).toContain('a,b\n1,2\n');
  });
});

describe('response validation', () => {
  test('a mismatching answer names method, path and the JSON pointer of the problem', async () => {
    const { client } = await setup(() => ({ body: { success: true, processorRun: fx.run({ status: 'WEIRD', processorId: 7 }) } }));
    const e = await client.processorRuns.get('dpr_1').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    const err = e as ApiError;
    expect(err.kind).toBe('invalid-response');
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/^GET \/processor_runs\/dpr_1: response does not match the resource model: /);
    expect(err.issues.map((i) => i.split(':')[0]).sort()).toEqual(['/processorRun/processorId', '/processorRun/status']);
    expect(err.hint).toContain('EVALKIT_API_VERSION');
  });

  test('files.retrieve reports the problems of the closer shape, not just "invalid input"', async () => {
    const { client } = await setup(() => ({ body: { success: true, file: fx.file({ name: 3 }) } }));
    const err = (await client.files.retrieve('file_1').catch((x: unknown) => x)) as ApiError;
    expect(err.issues[0]).toMatch(/^\/file\/name: /);
  });

  test('a missing envelope key is reported at its pointer', async () => {
    const { client } = await setup(() => ({ body: { success: true } }));
    const err = (await client.sets.retrieve('ev_1').catch((x: unknown) => x)) as ApiError;
    expect(err.issues[0]).toMatch(/^\/evaluationSet: /);
  });

  test('a 2xx answer that is not JSON is an invalid-response error', async () => {
    const { client } = await setup(() => ({ body: '<html>hello</html>' }));
    const err = (await client.processorRuns.get('dpr_1').catch((x: unknown) => x)) as ApiError;
    expect(err.kind).toBe('invalid-response');
    expect(err.message).toBe('GET /processor_runs/dpr_1: 200 response is not JSON');
  });
});

describe('paging', () => {
  const all = Array.from({ length: 5 }, (_, i) => fx.processor({ id: `dp_${i}` }));
  const pager: Handler = (req) => {
    const u = new URL(req.url, 'http://x');
    const start = Number(u.searchParams.get('nextPageToken') ?? '0');
    const size = Number(u.searchParams.get('maxPageSize') ?? '2');
    const end = start + size;
    return { body: { success: true, processors: all.slice(start, end), nextPageToken: end < all.length ? String(end) : null } };
  };

  test('listAll follows nextPageToken to the end', async () => {
    const { server, client } = await setup(pager);
    const ids = (await collect(client.processors.listAll({ type: 'EXTRACT', maxPageSize: 2 }))).map((p) => p.id);
    expect(ids).toEqual(['dp_0', 'dp_1', 'dp_2', 'dp_3', 'dp_4']);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/processors?type=EXTRACT&maxPageSize=2',
      '/processors?type=EXTRACT&maxPageSize=2&nextPageToken=2',
      '/processors?type=EXTRACT&maxPageSize=2&nextPageToken=4',
    ]);
  });

  test('paginate stops fetching at the limit and when the loop breaks', async () => {
    const { server, client } = await setup(pager);
    const three = await collect(paginate((t) => client.processors.list({ nextPageToken: t }), { limit: 3 }));
    expect(three).toHaveLength(3);
    expect(server.requests).toHaveLength(2);
    for await (const p of client.processors.listAll()) {
      expect(p.id).toBe('dp_0');
      break;
    }
    expect(server.requests).toHaveLength(3);
  });

  test('a token handed out twice stops paging with an error instead of looping', async () => {
    const { client } = await setup(() => ({ body: { success: true, processors: [fx.processor()], nextPageToken: 'same' } }));
    await expect(collect(client.processors.listAll())).rejects.toThrow('paging did not advance');
  });
});

describe('waitFor', () => {
  test('polls with growing pauses until a terminal status and returns the run', async () => {
    const statuses = ['PENDING', 'PROCESSING', 'PROCESSING', 'PROCESSED'];
    const { server, client, clock } = await setup((_r, i) => ({ body: { success: true, processorRun: fx.run({ status: statuses[i], output: i === 3 ? { value: {} } : null }) } }));
    const seen: string[] = [];
    const run = await client.processorRuns.waitFor('dpr_1', { intervalMs: 100, maxIntervalMs: 200, onPoll: (r) => seen.push(r.status) });
    expect(run.status).toBe('PROCESSED');
    expect(seen).toEqual(statuses);
    expect(server.requests).toHaveLength(4);
    // random 0.5 -> 90% of the interval: 100, 150, 200 (capped)
    expect(clock.sleeps).toEqual([90, 135, 180]);
  });

  test.each(['FAILED', 'CANCELLED'])('returns a %s run instead of throwing', async (status) => {
    const { client } = await setup(() => ({ body: { success: true, processorRun: fx.run({ status, failureReason: 'x' }) } }));
    expect((await client.processorRuns.waitFor('dpr_1')).status).toBe(status);
  });

  test('gives up at the overall timeout with a timeout error', async () => {
    const { client } = await setup(() => ({ body: { success: true, processorRun: fx.run() } }));
    const err = (await client.processorRuns.waitFor('dpr_1', { timeoutMs: 3_000, intervalMs: 1_000 }).catch((x: unknown) => x)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.kind).toBe('timeout');
    expect(err.message).toBe('processor run dpr_1 is still PROCESSING after waiting 3 s');
  });

  test('stops when the signal aborts', async () => {
    const { client } = await setup(() => ({ body: { success: true, processorRun: fx.run() } }));
    const ac = new AbortController();
    const err = (await client.processorRuns
      .waitFor('dpr_1', { signal: ac.signal, onPoll: (_r, n) => n === 2 && ac.abort() })
      .catch((x: unknown) => x)) as ApiError;
    expect(err.kind).toBe('aborted');
  });

  test('batchProcessorRuns.waitFor ends at PROCESSED with metrics', async () => {
    const { client } = await setup((_r, i) => ({ body: { success: true, batchProcessorRun: fx.batch(i < 2 ? {} : { status: 'PROCESSED', metrics: { numFiles: 2 } }) } }));
    const b = await client.batchProcessorRuns.waitFor('bpr_1');
    expect(b.metrics?.numFiles).toBe(2);
  });
});

import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, SPLITTER_CONFIG, createProcessor, start, uploadText, type TestSandbox } from './helpers.js';

type Json = Record<string, unknown>;
type Run = Json & { id: string; status: string; outputs: Json[]; metadata: Json; files: Array<{ id: string; name: string }> };

let t: TestSandbox;
let classify: string;
let extract: string;
let fileServer: Server;
let fileBase: string;
let fetches = 0;

beforeAll(async () => {
  t = await start({ engineDelayMs: 1, engineConcurrency: 8 });
  classify = await createProcessor(t, 'CLASSIFY', CLASSIFY_CONFIG, 'doc type');
  extract = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG, 'invoice fields');
  fileServer = createServer((req, res) => {
    fetches++;
    if (req.url === '/invoice.txt') res.end('Invoice number: INV-7\nTotal: 12.50');
    else if (req.url?.startsWith('/big/')) res.end('x'.repeat(1000));
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', r));
  fileBase = `http://127.0.0.1:${(fileServer.address() as { port: number }).port}`;
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => fileServer.close(r));
});

async function workflow(body: Json): Promise<string> {
  const r = await t.call<{ workflow: { id: string } }>('POST', '/workflows', { body });
  if (r.status !== 200) throw new Error(`create workflow: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.workflow.id;
}

async function listAll(query: string, pageSize: number): Promise<Run[]> {
  const out: Run[] = [];
  let token: string | null = null;
  do {
    const r: { status: number; body: { workflowRuns: Run[]; nextPageToken: string | null } } = await t.call('GET', `/workflow_runs?${query}&maxPageSize=${pageSize}${token ? `&nextPageToken=${token}` : ''}`);
    expect(r.status).toBe(200);
    out.push(...r.body.workflowRuns);
    token = r.body.nextPageToken;
  } while (token);
  return out;
}

describe('workflow definitions (sandbox extension)', () => {
  test('create, update the draft, publish; versions newest first with the draft on top', async () => {
    const id = await workflow({ name: 'intake', steps: [{ processorId: classify }] });
    expect(id).toMatch(/^workflow_/);
    const up = await t.call<{ workflow: Json }>('POST', `/workflows/${id}`, { body: { name: 'intake v2', steps: [{ processorId: classify }, { processorId: extract, version: 'draft' }] } });
    expect(up.body.workflow).toMatchObject({ name: 'intake v2', versions: [{ version: 'draft', steps: [{ processorId: classify, version: 'latest' }, { processorId: extract, version: 'draft' }] }] });
    const pub = await t.call<{ workflow: { versions: Json[] }; version: string }>('POST', `/workflows/${id}/publish`, { body: {} });
    expect(pub.body.version).toBe('1');
    const again = await t.call<{ version: string }>('POST', `/workflows/${id}/publish`, { body: { steps: [{ processorId: extract }] } });
    expect(again.body.version).toBe('2');
    const got = await t.call<{ workflow: { versions: Array<{ version: string; steps: Json[] }> } }>('GET', `/workflows/${id}`);
    expect(got.body.workflow.versions.map((v) => [v.version, v.steps.length])).toEqual([['draft', 2], ['2', 1], ['1', 2]]);
    const listed = await t.call<{ workflows: Json[] }>('GET', '/workflows');
    expect(listed.body.workflows.map((w) => w.id)).toContain(id);
  });

  test.each([
    ['an id without the workflow_ prefix', { id: 'wf_1', name: 'x', steps: [{ processorId: 'dp_x' }] }, 400, /at \/id: must start with "workflow_"/],
    ['both steps and versions', { name: 'x', steps: [{ processorId: 'dp_x' }], versions: [{ version: 1, steps: [{ processorId: 'dp_x' }] }] }, 400, /give either steps .* or versions/],
    ['no steps', { name: 'x', steps: [] }, 400, /at \/steps: a workflow needs at least 1 step/],
    ['a bad step version', { name: 'x', steps: [{ processorId: 'dp_x', version: 'v1' }] }, 400, /at \/steps\/0\/version: must be "latest", "draft"/],
    ['a version listed twice', { name: 'x', versions: [{ version: 1, steps: [{ processorId: 'dp_x' }] }, { version: '1', steps: [{ processorId: 'dp_x' }] }] }, 400, /version 1 is listed twice/],
    ['an unknown member', { name: 'x', steps: [{ processorId: 'dp_x' }], colour: 'red' }, 400, /unknown member "colour"/],
    ['an unknown processor', { name: 'x', steps: [{ processorId: 'dp_missing' }] }, 404, /\/steps\/0\/processorId: processor dp_missing not found/],
  ])('%s is refused', async (_n, body, status, msg) => {
    const r = await t.call('POST', '/workflows', { body });
    expect(r.status).toBe(status);
    expect(r.body.error).toMatch(msg);
  });

  test('a token scoped to some workflows may neither create nor see others', async () => {
    const id = await workflow({ name: 'hidden', steps: [{ processorId: extract }] });
    const s = await start({ tokens: [{ token: 'sk_scoped_000000', createdAt: '2025-05-01', workflows: ['workflow_other'] }] });
    try {
      const r = await s.call('POST', '/workflows', { body: { name: 'x', steps: [{ processorId: 'dp_x' }] } });
      expect(r.status).toBe(403);
      expect((await s.call('GET', `/workflows/${id}`)).status).toBe(403);
    } finally {
      await s.close();
    }
  });
});

describe('POST /workflow_runs (4.2)', () => {
  test('returns the created runs at once; each file is parsed once and every step reads it', async () => {
    const id = await workflow({ name: 'classify then extract', steps: [{ processorId: classify }, { processorId: extract }] });
    const fileId = await uploadText(t, 'known.txt', 'Invoice number: INV-9');
    const before = fetches;
    const r = await t.call<{ workflowRuns: Run[] }>('POST', '/workflow_runs', {
      body: {
        workflowId: id,
        files: [{ fileName: 'a.txt', fileUrl: `${fileBase}/invoice.txt` }, { fileName: 'a.txt', fileUrl: `${fileBase}/invoice.txt` }, { fileId }],
        rawTexts: ['Invoice number: INV-1'],
        metadata: { customer: 'acme' },
      },
    });
    expect(r.status).toBe(200);
    const runs = r.body.workflowRuns;
    expect(runs).toHaveLength(4);
    expect(fetches - before).toBe(1);
    for (const run of runs) {
      expect(run).toMatchObject({ object: 'workflow_run', status: 'PROCESSING', metadata: { customer: 'acme' }, workflow: { object: 'workflow', id, version: 'draft' } });
      expect(run).not.toHaveProperty('batchId');
      // The first step is running: no output yet, so no outputs item (stepRuns in 2026-02-09).
      expect(run.outputs).toEqual([]);
    }
    expect(runs[0].files[0].id).toBe(runs[1].files[0].id);
    expect(runs[2].files[0].id).toBe(fileId);
    expect(runs[3].files).toEqual([]);

    await t.sb.idle();
    for (const first of runs) {
      const run = (await t.call<{ workflowRun: Run }>('GET', `/workflow_runs/${first.id}`)).body.workflowRun;
      expect(run.status).toBe('PROCESSED');
      expect(run.endTime).toBeTruthy();
      expect(run.outputs.map((o) => o.type)).toEqual(['CLASSIFY', 'EXTRACT']);
      for (const o of run.outputs) {
        expect(o).toMatchObject({ object: 'document_processor_run', status: 'PROCESSED', edited: false, reviewedOutput: null });
        expect(o.output).toEqual(o.initialOutput);
        const pr = (await t.call<{ processorRun: Json }>('GET', `/processor_runs/${String(o.id)}`)).body.processorRun;
        expect(pr).toMatchObject({ source: 'WORKFLOW_RUN', sourceId: run.id, metadata: { customer: 'acme' } });
        expect(pr.files).toEqual(run.files.map((f) => expect.objectContaining({ id: f.id })));
      }
    }
  });

  test('the version: absent means the newest published; processor versions are pinned per workflow version', async () => {
    const p = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG, 'pinned');
    await t.call('POST', `/processors/${p}/publish`, { body: { releaseType: 'major' } });
    await t.call('POST', `/processors/${p}/publish`, { body: { releaseType: 'major' } });
    const id = await workflow({ name: 'pinned', versions: [{ version: 1, steps: [{ processorId: p, version: '1.0' }] }, { version: 'draft', steps: [{ processorId: p, version: 'draft' }] }] });
    const run = async (version?: unknown): Promise<Run> => {
      const created = (await t.call<{ workflowRuns: Run[] }>('POST', '/workflow_runs', { body: { workflowId: id, rawTexts: ['x'], ...(version === undefined ? {} : { version }) } })).body.workflowRuns[0];
      await t.sb.idle();
      return (await t.call<{ workflowRun: Run }>('GET', `/workflow_runs/${created.id}`)).body.workflowRun;
    };
    expect((await run()).outputs[0]).toMatchObject({ processorVersion: '1.0' });
    expect((await run(1)).outputs[0]).toMatchObject({ processorVersion: '1.0' });
    expect((await run('draft')).outputs[0]).toMatchObject({ processorVersion: 'draft' });
    const missing = await t.call('POST', '/workflow_runs', { body: { workflowId: id, rawTexts: ['x'], version: '7' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/version 7 of workflow .* not found/);
  });

  test('a failing step fails the run; later steps are not run', async () => {
    const s = await start({ engine: 'simulate:1,0,1', engineDelayMs: 1 });
    try {
      const a = await createProcessor(s, 'CLASSIFY', CLASSIFY_CONFIG);
      const b = await createProcessor(s, 'EXTRACT', INVOICE_CONFIG);
      const id = (await s.call<{ workflow: { id: string } }>('POST', '/workflows', { body: { name: 'f', steps: [{ processorId: a }, { processorId: b }] } })).body.workflow.id;
      const created = (await s.call<{ workflowRuns: Run[] }>('POST', '/workflow_runs', { body: { workflowId: id, rawTexts: ['x'] } })).body.workflowRuns[0];
      await s.sb.idle();
      const run = (await s.call<{ workflowRun: Run }>('GET', `/workflow_runs/${created.id}`)).body.workflowRun;
      expect(run).toMatchObject({ status: 'FAILED', failureReason: 'SIMULATED_FAILURE' });
      expect(run.failureMessage).toMatch(/^step 1 \(processor dp_\w+\) failed: /);
      // The failed step has no output: not an outputs item; its processor run says FAILED.
      expect(run.outputs).toEqual([]);
      expect((await s.call<{ processorRuns: Json[] }>('GET', `/processor_runs?sourceId=${created.id}`)).body.processorRuns.map((r) => r.status)).toEqual(['FAILED']);
      expect((await s.call<{ workflowRuns: Run[] }>('GET', '/workflow_runs?status=FAILED')).body.workflowRuns.map((r) => r.id)).toEqual([created.id]);
    } finally {
      await s.close();
    }
  });

  test('callers of 2024-12-23 see splitter outputs as subDocumentClassifications', async () => {
    const sp = await createProcessor(t, 'SPLITTER', SPLITTER_CONFIG, 'splitter');
    const id = await workflow({ name: 'split', steps: [{ processorId: sp }] });
    const created = (await t.call<{ workflowRuns: Run[] }>('POST', '/workflow_runs', { body: { workflowId: id, rawTexts: ['page one\fpage two'] } })).body.workflowRuns[0];
    await t.sb.idle();
    const old = (await t.call<{ workflowRun: Run }>('GET', `/workflow_runs/${created.id}`, { version: '2024-12-23' })).body.workflowRun;
    expect(old.outputs[0].output).toHaveProperty('subDocumentClassifications');
    expect(old.outputs[0].output).not.toHaveProperty('splits');
    const now = (await t.call<{ workflowRun: Run }>('GET', `/workflow_runs/${created.id}`)).body.workflowRun;
    expect(now.outputs[0].output).toHaveProperty('splits');
  });
});

describe('POST /workflow_runs/batch (4.1) and GET /workflow_runs (4.3)', () => {
  test('a batch of 1,000 inputs completes; every run is listed by batchId exactly once', async () => {
    const id = await workflow({ name: 'bulk', steps: [{ processorId: extract }] });
    const inputs = Array.from({ length: 1000 }, (_, i) => ({ rawText: `Invoice number: B-${i}`, metadata: { row: i } }));
    const r = await t.call<{ batchId: string }>('POST', '/workflow_runs/batch', { body: { workflowId: id, inputs } });
    expect(r.status).toBe(200);
    expect(r.body.batchId).toMatch(/^batch_/);
    // Another batch queued right behind it must not leak into the first one's listing.
    const other = await t.call<{ batchId: string }>('POST', '/workflow_runs/batch', { body: { workflowId: id, inputs: inputs.slice(0, 5) } });
    expect(other.status).toBe(200);
    await t.sb.idle();
    const runs = await listAll(`batchId=${r.body.batchId}`, 137);
    expect(runs).toHaveLength(1000);
    expect(new Set(runs.map((x) => x.id)).size).toBe(1000);
    expect(new Set(runs.map((x) => (x.metadata as { row: number }).row)).size).toBe(1000);
    for (const run of runs) expect(run).toMatchObject({ status: 'PROCESSED', batchId: r.body.batchId });
    expect(await listAll(`batchId=${other.body.batchId}`, 2)).toHaveLength(5);
  });

  test.each([
    ['1,001 inputs', { inputs: Array.from({ length: 1001 }, () => ({ rawText: 'x' })) }, 'inputs must contain at most 1000 elements (got 1001)'],
    ['0 inputs', { inputs: [] }, 'inputs must contain at least 1 element'],
    ['no inputs', {}, 'inputs is required'],
    ['inputs not an array', { inputs: { rawText: 'x' } }, 'inputs must be an array'],
    ['an input with neither file nor rawText', { inputs: [{ rawText: 'x' }, { metadata: {} }] }, 'inputs[1] needs either file or rawText'],
    ['an input with both', { inputs: [{ rawText: 'x', file: { fileId: 'file_1' } }] }, 'inputs[0]: give either file or rawText, not both'],
    ['metadata not an object', { inputs: [{ rawText: 'x', metadata: [1] }] }, 'inputs[0].metadata must be an object'],
    ['a file with fileBase64', { inputs: [{ file: { fileName: 'a.txt', fileBase64: 'YQ==' } }] }, 'inputs[0].file.fileBase64 is not accepted'],
    ['a file without fileName', { inputs: [{ file: { fileUrl: 'http://127.0.0.1/a.txt' } }] }, 'inputs[0].file.fileName is required with fileUrl'],
    ['an unsupported file type', { inputs: [{ file: { fileName: 'a.exe', fileUrl: 'http://127.0.0.1/a.exe' } }] }, 'unsupported file type ".exe" for inputs[0].file.fileName'],
    ['an empty rawText', { inputs: [{ rawText: ' ' }] }, 'inputs[0].rawText must be a non-empty string'],
    ['priority 0', { priority: 0, inputs: [{ rawText: 'x' }] }, 'priority must be an integer from 1 to 100'],
    ['a malformed version', { version: 'v2', inputs: [{ rawText: 'x' }] }, 'version must be "draft", "latest" or a whole number'],
    ['an unknown member', { inputs: [{ rawText: 'x' }], callback: 'x' }, 'callback is not accepted'],
    ['an unknown fileId', { inputs: [{ file: { fileId: 'file_missing' } }] }, 'inputs[0].file.fileId file_missing does not exist'],
    ['an unreachable fileUrl', { inputs: [{ rawText: 'x' }, { file: { fileName: 'a.txt', fileUrl: 'http://127.0.0.1:1/a.txt' } }] }, 'inputs[1].file.fileUrl could not be downloaded'],
    ['a fileUrl off loopback', { inputs: [{ file: { fileName: 'a.txt', fileUrl: 'http://example.com/a.txt' } }] }, 'inputs[0].file.fileUrl: the sandbox downloads files only from loopback'],
  ])('400 for %s, naming the rule and parameter', async (_n, body, msg) => {
    const id = await workflow({ name: 'v', steps: [{ processorId: extract }] });
    const before = (await listAll(`workflowId=${id}`, 1000)).length;
    const r = await t.call('POST', '/workflow_runs/batch', { body: { workflowId: id, ...body } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ success: false, error: expect.stringContaining(msg) });
    expect(await listAll(`workflowId=${id}`, 1000)).toHaveLength(before);
  });

  test('the files of one request are capped at 4 request bodies together; nothing is stored', async () => {
    const s = await start({ maxBodyBytes: 1024 });
    try {
      const p = await createProcessor(s, 'EXTRACT', INVOICE_CONFIG);
      const wf = (await s.call<{ workflow: { id: string } }>('POST', '/workflows', { body: { name: 'big', steps: [{ processorId: p }] } })).body.workflow.id;
      const inputs = [1, 2, 3, 4, 5].map((i) => ({ file: { fileName: `big${i}.txt`, fileUrl: `${fileBase}/big/${i}` } }));
      const r = await s.call('POST', '/workflow_runs/batch', { body: { workflowId: wf, inputs } });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/^inputs\[\d\]\.file\.fileUrl: the files of one request exceed 4096 bytes together; upload large files with POST \/files\/upload/);
      expect((await s.call<{ files: unknown[] }>('GET', '/files')).body.files).toEqual([]);
      expect((await s.call('POST', '/workflow_runs/batch', { body: { workflowId: wf, inputs: inputs.slice(0, 4) } })).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  test('404 for an unknown workflow or version, 403 for a token that may not use the workflow, 429 past the rate limit', async () => {
    expect((await t.call('POST', '/workflow_runs/batch', { body: { workflowId: 'workflow_nope', inputs: [{ rawText: 'x' }] } })).body.error).toBe('workflow workflow_nope not found');
    const id = await workflow({ name: 'v', steps: [{ processorId: extract }] });
    const v = await t.call('POST', '/workflow_runs/batch', { body: { workflowId: id, version: 3, inputs: [{ rawText: 'x' }] } });
    expect([v.status, v.body.error]).toEqual([404, `version 3 of workflow ${id} not found`]);
    const s = await start({ rateLimit: 2, tokens: [{ token: 'sk_limited_00000', createdAt: '2025-05-01', workflows: ['workflow_allowed'] }] });
    try {
      const forbidden = await s.call('POST', '/workflow_runs/batch', { body: { workflowId: 'workflow_secret', inputs: [{ rawText: 'x' }] } });
      expect([forbidden.status, forbidden.body.error]).toEqual([403, 'this API token may not use workflow workflow_secret']);
      let limited;
      for (let i = 0; i < 5 && !limited; i++) {
        const r = await s.call('POST', '/workflow_runs/batch', { body: { workflowId: 'workflow_allowed', inputs: [{ rawText: 'x' }] } });
        if (r.status === 429) limited = r;
      }
      expect(limited?.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await s.close();
    }
  });

  test('filters: workflowId, status, fileNameContains, sortDir; bad filters are 400s', async () => {
    const id = await workflow({ name: 'filters', steps: [{ processorId: extract }] });
    const fileId = await uploadText(t, 'needle-report.txt', 'Invoice number: N-1');
    await t.call('POST', '/workflow_runs', { body: { workflowId: id, rawTexts: ['a', 'b'], files: [{ fileId }] } });
    await t.sb.idle();
    const all = await listAll(`workflowId=${id}&sortDir=asc`, 2);
    expect(all).toHaveLength(3);
    expect(all.map((r) => r.createdAt)).toEqual([...all.map((r) => r.createdAt)].sort());
    expect((await listAll(`workflowId=${id}&fileNameContains=needle`, 10)).map((r) => r.files[0]?.id)).toEqual([fileId]);
    expect(await listAll(`workflowId=${id}&status=PROCESSED`, 10)).toHaveLength(3);
    expect((await t.call('GET', '/workflow_runs?status=DONE')).body.error).toBe('query parameter status must be one of PROCESSING, PROCESSED, FAILED, CANCELLED');
    expect((await t.call('GET', '/workflow_runs?sortBy=name')).status).toBe(400);
  });
});

describe('GET and POST /workflow_runs/:id (4.4, 4.5)', () => {
  test('metadata is merged, the new value winning on the same key; name is set', async () => {
    const id = await workflow({ name: 'meta', steps: [{ processorId: extract }] });
    const run = (await t.call<{ workflowRuns: Run[] }>('POST', '/workflow_runs', { body: { workflowId: id, rawTexts: ['x'], metadata: { a: 1, b: { keep: true } } } })).body.workflowRuns[0];
    const u = await t.call<{ workflowRun: Run }>('POST', `/workflow_runs/${run.id}`, { body: { name: 'reviewed batch', metadata: { a: 2, c: 'new' } } });
    expect(u.status).toBe(200);
    expect(u.body.workflowRun).toMatchObject({ name: 'reviewed batch', metadata: { a: 2, b: { keep: true }, c: 'new' } });
    const again = await t.call<{ workflowRun: Run }>('POST', `/workflow_runs/${run.id}`, { body: { metadata: { b: null } } });
    expect(again.body.workflowRun.metadata).toEqual({ a: 2, b: null, c: 'new' });
    expect(again.body.workflowRun.name).toBe('reviewed batch');
    await t.sb.idle();
    // The engine's later writes keep the merged metadata.
    expect((await t.call<{ workflowRun: Run }>('GET', `/workflow_runs/${run.id}`)).body.workflowRun).toMatchObject({ status: 'PROCESSED', metadata: { a: 2, c: 'new' } });
  });

  test.each([
    ['an empty body', {}, 400, 'supply name or metadata'],
    ['metadata not an object', { metadata: 'x' }, 400, 'metadata must be an object'],
    ['an unknown member', { status: 'PROCESSED' }, 400, 'status is not accepted'],
  ])('update with %s is refused', async (_n, body, status, msg) => {
    const id = await workflow({ name: 'u', steps: [{ processorId: extract }] });
    const run = (await t.call<{ workflowRuns: Run[] }>('POST', '/workflow_runs', { body: { workflowId: id, rawTexts: ['x'] } })).body.workflowRuns[0];
    const r = await t.call('POST', `/workflow_runs/${run.id}`, { body });
    expect(r.status).toBe(status);
    expect(r.body.error).toContain(msg);
  });

  test('unknown and malformed ids', async () => {
    expect((await t.call('GET', '/workflow_runs/workflow_run_missing')).status).toBe(404);
    expect((await t.call('GET', '/workflow_runs/a%20b')).status).toBe(400);
    expect((await t.call('GET', '/v1/workflow_runs/workflow_run_missing')).body.error).toBe('workflow run workflow_run_missing not found');
  });
});

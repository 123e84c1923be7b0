/**
 * Workflows, workflow versions and workflow runs under API 2026-02-09 (spec 2 and 7), the 501s of
 * parse/edit/form detection, and bad input answered as ApiError.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, createProcessor, start, uploadText, type TestSandbox } from './helpers.js';

type Json = Record<string, unknown>;
const V26 = '2026-02-09';

let t: TestSandbox;
let extract: string;
let classify: string;
beforeAll(async () => {
  t = await start({ engineDelayMs: 1 });
  extract = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG, 'invoice fields');
  classify = await createProcessor(t, 'CLASSIFY', CLASSIFY_CONFIG, 'doc type');
});
afterAll(() => t.close());

const call = <T = Json>(method: string, path: string, body?: unknown) => t.call<T>(method, path, { version: V26, ...(body === undefined ? {} : { body }) });

function steps(...ids: Array<[string, string, string?]>): Json[] {
  return ids.map(([type, id, name]) => ({ type, name: name ?? `${type} ${id}`, config: { [type === 'EXTRACT' ? 'extractor' : type === 'CLASSIFY' ? 'classifier' : 'splitter']: { id, version: 'draft' } } }));
}

async function workflow(name: string, body: Json[]): Promise<Json> {
  const r = await call('POST', '/workflows', { name, steps: body });
  if (r.status !== 200) throw new Error(`create workflow: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

describe('workflows and versions', () => {
  test('create answers a bare Workflow with its draftVersion, createdBy and the steps as definitions', async () => {
    const wf = await workflow('intake', steps(['CLASSIFY', classify, 'Classify'], ['EXTRACT', extract, 'Extract']));
    const id = String(wf.id);
    expect(wf).toEqual({
      object: 'workflow', id, name: 'intake', createdAt: expect.any(String), updatedAt: expect.any(String),
      createdBy: { type: 'api_key', name: expect.any(String) },
      draftVersion: {
        object: 'workflow_version', id: `${id}_vdraft`, version: 'draft', name: null, createdAt: expect.any(String), createdBy: { type: 'api_key', name: expect.any(String) },
        steps: [
          { type: 'TRIGGER', name: 'Trigger', next: [{ step: 'Classify' }] },
          { type: 'CLASSIFY', name: 'Classify', config: { classifier: { id: classify, version: 'draft' } }, next: [{ step: 'Extract' }] },
          { type: 'EXTRACT', name: 'Extract', config: { extractor: { id: extract, version: 'draft' } } },
        ],
      },
    });
    expect(wf).not.toHaveProperty('success');
    // The same workflow through the 2025-04-21 route: the same steps, in its own shape.
    const legacy = await t.call<{ workflow: { versions: Array<{ steps: Json[] }> } }>('GET', `/workflows/${id}`);
    expect(legacy.body.workflow.versions[0].steps.map((s) => s.processorId)).toEqual([classify, extract]);
  });

  test('{name} alone is an empty draft; update changes name and draft; versions publish the draft with a name', async () => {
    const created = await call('POST', '/workflows', { name: 'empty' });
    expect((created.body.draftVersion as Json).steps).toEqual([]);
    const id = String(created.body.id);
    const noSteps = await call('POST', `/workflows/${id}/versions`, {});
    expect(noSteps.status).toBe(400);
    expect(noSteps.body).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/has no steps in its draft/) });
    const up = await call('POST', `/workflows/${id}`, { name: 'renamed', steps: steps(['EXTRACT', extract]) });
    expect(up.body).toMatchObject({ name: 'renamed', draftVersion: { steps: [{ type: 'TRIGGER' }, { type: 'EXTRACT' }] } });
    const v1 = await call('POST', `/workflows/${id}/versions`, { name: 'first' });
    expect(v1.body).toMatchObject({ object: 'workflow_version', id: `${id}_v1`, version: '1', name: 'first', steps: [{ type: 'TRIGGER' }, { type: 'EXTRACT' }] });
    const v2 = await call('POST', `/workflows/${id}/versions`, { steps: steps(['CLASSIFY', classify]) });
    expect(v2.body).toMatchObject({ version: '2', name: null });
    const list = await call<{ object: string; data: Json[]; nextPageToken?: string }>('GET', `/workflows/${id}/versions`);
    expect(list.body.object).toBe('list');
    expect(list.body.data.map((v) => v.version)).toEqual(['draft', '2', '1']);
    expect(list.body).not.toHaveProperty('nextPageToken');
    const page1 = await call<{ data: Json[]; nextPageToken: string }>('GET', `/workflows/${id}/versions?maxPageSize=2&sortDir=asc`);
    expect(page1.body.data.map((v) => v.version)).toEqual(['1', '2']);
    const page2 = await call<{ data: Json[]; nextPageToken?: string }>('GET', `/workflows/${id}/versions?maxPageSize=2&sortDir=asc&nextPageToken=${page1.body.nextPageToken}`);
    expect(page2.body.data.map((v) => v.version)).toEqual(['draft']);
    expect(page2.body).not.toHaveProperty('nextPageToken');
    expect((await call('GET', `/workflows/${id}/versions/${id}_v1`)).body).toEqual(v1.body);
    expect((await call('GET', `/workflows/${id}/versions/1`)).body).toEqual(v1.body);
    const missing = await call('GET', `/workflows/${id}/versions/${id}_v9`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining(`${id}_v<version>`) });
  });

  test('createdBy: the token that created the workflow or version through either version; null for --workflows FILE', async () => {
    const legacy = await t.call<{ workflow: { id: string } }>('POST', '/workflows', { body: { name: 'old route', steps: [{ processorId: extract }] } });
    const id = legacy.body.workflow.id;
    await t.call('POST', `/workflows/${id}/publish`, { body: {} });
    const got = await call('GET', `/workflows/${id}`);
    expect(got.body.createdBy).toEqual({ type: 'api_key', name: expect.any(String) });
    expect((await call('GET', `/workflows/${id}/versions/1`)).body.createdBy).toEqual(got.body.createdBy);
    const s = await start({ workflows: [{ id: 'workflow_from_file', name: 'file', steps: [{ processorId: 'dp_later' }] }] });
    try {
      const fromFile = await s.call('GET', '/workflows/workflow_from_file', { version: V26 });
      expect(fromFile.body).toMatchObject({ createdBy: null, draftVersion: { createdBy: null } });
    } finally {
      await s.close();
    }
  });

  test('list: summaries without draftVersion, cursor paging', async () => {
    await workflow('a', steps(['EXTRACT', extract]));
    await workflow('b', steps(['EXTRACT', extract]));
    const first = await call<{ data: Json[]; nextPageToken: string }>('GET', '/workflows?maxPageSize=1');
    expect(first.body.data).toHaveLength(1);
    expect(first.body.data[0]).toEqual({ object: 'workflow', id: expect.any(String), name: 'b', createdAt: expect.any(String), updatedAt: expect.any(String), createdBy: expect.any(Object) });
    const second = await call<{ data: Json[] }>('GET', `/workflows?maxPageSize=1&nextPageToken=${first.body.nextPageToken}`);
    expect(second.body.data[0].name).toBe('a');
  });

  test.each([
    ['an unknown step type', [{ type: 'PARSE', name: 'p' }], 400, /\/steps\/0\/type: PARSE steps are not emulated/],
    ['an inline config', [{ type: 'EXTRACT', name: 'e', config: { extractorConfig: { schema: {} } } }], 400, /\/steps\/0\/config\/extractorConfig: inline configs are not emulated/],
    ['no reference', [{ type: 'EXTRACT', name: 'e', config: {} }], 400, /\/steps\/0\/config\/extractor is required/],
    ['a missing extractor', [{ type: 'EXTRACT', name: 'e', config: { extractor: { id: 'ex_missing', version: 'latest' } } }], 404, /\/steps\/0\/config\/extractor\/id: extractor ex_missing not found/],
    ['an unknown member', [{ type: 'TRIGGER', name: 't', colour: 1 }], 400, /invalid step at \/steps\/0: unknown member "colour"/],
    ['a next naming no step', [{ type: 'TRIGGER', name: 't', next: [{ step: 'nowhere' }] }], 400, /\/steps\/0\/next\/0\/step: no step is named "nowhere"/],
    ['a bad version', [{ type: 'TRIGGER', name: 't' }, { type: 'EXTRACT', name: 'e', config: { extractor: { id: 'dp_x', version: 'v1' } } }], 400, /\/steps\/1\/config\/extractor\/version: must be "latest"/],
  ])('%s is refused with an ApiError naming the pointer', async (_n, body, status, msg) => {
    const r = await call('POST', '/workflows', { name: 'bad', steps: body });
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ code: status === 400 ? 'INVALID_REQUEST' : 'NOT_FOUND', retryable: false, message: expect.stringMatching(msg) });
  });

  test('a classifier named in an EXTRACT step is a 400 that says which step type fits', async () => {
    const r = await call('POST', '/workflows', { name: 'bad', steps: [{ type: 'EXTRACT', name: 'e', config: { extractor: { id: classify } } }] });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/is a CLASSIFY classifier, not an extractor; use a CLASSIFY step/);
    // And the other way, with "an" before the vowels.
    const x = await call('POST', '/workflows', { name: 'bad', steps: [{ type: 'CLASSIFY', name: 'c', config: { classifier: { id: extract } } }] });
    expect(x.status).toBe(400);
    expect(x.body.message).toMatch(/is an EXTRACT extractor, not a classifier; use an EXTRACT step/);
  });

  test('ids of another kind and malformed cursors are 404/400, never 500', async () => {
    const other = await call('GET', `/workflows/${extract}`);
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ code: 'NOT_FOUND' });
    const run = await call('GET', `/workflow_runs/${extract}`);
    expect(run.status).toBe(404);
    expect(run.body.message).toMatch(/workflow run ids start with workflow_run_/);
    for (const path of ['/workflows?nextPageToken=garbage', '/workflow_runs?nextPageToken=garbage', '/workflow_runs?status=DONE', '/workflows/x/versions?sortBy=createdAt']) {
      const r = await call('GET', path);
      expect(r.status, path).toBeGreaterThanOrEqual(400);
      expect(r.status, path).toBeLessThan(500);
      expect(r.body, path).toMatchObject({ code: expect.any(String), message: expect.any(String), retryable: false });
    }
  });
});

describe('workflow runs', () => {
  test('create answers ONE bare WorkflowRun; stepRuns carry the running step, outputs are gone', async () => {
    const wf = await workflow('runs', steps(['CLASSIFY', classify, 'Classify'], ['EXTRACT', extract, 'Extract']));
    t.sb.pauseEngine();
    const r = await call('POST', '/workflow_runs', { workflow: { id: wf.id }, file: { text: 'Invoice number: INV-1', name: 'inv.txt' }, metadata: { customer: 'acme' }, secrets: { apiKey: 'hidden-1234' } });
    expect(r.status).toBe(200);
    const run = r.body;
    const runId = String(run.id);
    expect(run).toEqual({
      object: 'workflow_run', id: expect.stringMatching(/^workflow_run_/),
      workflow: { object: 'workflow', id: wf.id, name: 'runs', createdAt: expect.any(String), updatedAt: expect.any(String), createdBy: expect.any(Object) },
      workflowVersion: { object: 'workflow_version', id: `${String(wf.id)}_vdraft`, version: 'draft', name: null, createdAt: expect.any(String), createdBy: expect.any(Object) },
      dashboardUrl: `${t.url}/workflow_runs/${runId}`, status: 'PROCESSING', metadata: { customer: 'acme' }, batchId: null, files: [],
      failureReason: null, failureMessage: null, initialRunAt: expect.any(String), reviewedByUser: null, reviewed: false, rejectionNote: null,
      reviewedAt: null, startTime: expect.any(String), endTime: null, usage: null,
      stepRuns: [
        {
          object: 'workflow_step_run', id: expect.stringMatching(/^workflow_step_run_dpr_/), workflowRunId: runId, status: 'PROCESSING', files: [],
          stepType: 'CLASSIFY', step: { object: 'workflow_step', id: 'step_1', name: 'Classify', type: 'CLASSIFY' }, result: null,
        },
      ],
    });
    expect(JSON.stringify(run)).not.toContain('hidden-1234');
    t.sb.resumeEngine();
    await t.sb.idle();
    const done = (await call<Json & { stepRuns: Json[] }>('GET', `/workflow_runs/${runId}`)).body;
    expect(done.status).toBe('PROCESSED');
    expect(done.endTime).toEqual(expect.any(String));
    expect(done.stepRuns.map((s) => [s.stepType, s.status, (s.step as Json).name])).toEqual([['CLASSIFY', 'PROCESSED', 'Classify'], ['EXTRACT', 'PROCESSED', 'Extract']]);
    expect(done).not.toHaveProperty('outputs');
  });

  test('a file by id, a package of files, list filters, update, cancel and delete', async () => {
    const wf = await workflow('files', steps(['EXTRACT', extract]));
    const a = await uploadText(t, 'a.txt', 'Invoice number: A');
    const b = await uploadText(t, 'b.txt', 'Invoice number: B');
    const one = (await call('POST', '/workflow_runs', { workflow: { id: wf.id, version: 'draft' }, file: { id: a } })).body;
    expect((one.files as Json[]).map((f) => [f.object, f.id, f.name, f.type])).toEqual([['file', a, 'a.txt', 'TXT']]);
    const pkg = await call('POST', '/workflow_runs', { workflow: { id: wf.id }, package: { files: [{ id: a }, { id: b }] } });
    expect(pkg.status).toBe(200);
    expect((pkg.body.files as Json[]).map((f) => f.id)).toEqual([a, b]);
    await t.sb.idle();

    const list = await call<{ object: string; data: Json[] }>('GET', `/workflow_runs?workflowId=${String(wf.id)}&status=PROCESSED`);
    expect(list.body.object).toBe('list');
    expect(list.body.data.map((r) => r.id)).toEqual([pkg.body.id, one.id]);
    expect(Object.keys(list.body.data[0]).sort()).toEqual(
      ['object', 'id', 'status', 'workflow', 'workflowVersion', 'dashboardUrl', 'reviewedByUser', 'reviewedAt', 'initialRunAt', 'startTime', 'endTime', 'batchId', 'rejectionNote', 'files', 'createdAt', 'updatedAt', 'usage'].sort(),
    );
    // A package run is found by the name of its first file (docs/sandbox-api.md).
    expect((await call<{ data: Json[] }>('GET', `/workflow_runs?workflowId=${String(wf.id)}&fileNameContains=a.txt`)).body.data).toHaveLength(2);
    expect((await call<{ data: Json[] }>('GET', `/workflow_runs?workflowId=${String(wf.id)}&fileNameContains=b.txt`)).body.data).toHaveLength(0);

    const up = await call('POST', `/workflow_runs/${String(one.id)}`, { name: 'renamed', metadata: { k: 1 } });
    expect(up.body).toMatchObject({ object: 'workflow_run', metadata: { k: 1 } });

    t.sb.pauseEngine();
    const c = (await call('POST', '/workflow_runs', { workflow: { id: wf.id }, file: { text: 'x' } })).body;
    const del = await call('DELETE', `/workflow_runs/${String(c.id)}`);
    expect(del.status).toBe(400);
    const cancelled = await call<Json & { stepRuns: Json[] }>('POST', `/workflow_runs/${String(c.id)}/cancel`);
    expect(cancelled.body.status).toBe('CANCELLED');
    expect(cancelled.body.stepRuns.map((s) => s.status)).toEqual(['CANCELLED']);
    t.sb.resumeEngine();
    const again = await call('POST', `/workflow_runs/${String(c.id)}/cancel`);
    expect(again.status).toBe(400);
    expect(again.body.message).toMatch(/is CANCELLED; only a PROCESSING run can be cancelled/);
    expect((await call('DELETE', `/workflow_runs/${String(c.id)}`)).body).toEqual({ id: c.id });
    expect((await call('GET', `/workflow_runs/${String(c.id)}`)).status).toBe(404);
  });

  test('batch: {batchId}; its runs listed by batchId with the input metadata', async () => {
    const wf = await workflow('batch', steps(['EXTRACT', extract]));
    const r = await call('POST', '/workflow_runs/batch', { workflow: { id: wf.id }, inputs: [{ file: { text: 'one' }, metadata: { n: 1 } }, { file: { text: 'two' }, metadata: { n: 2 }, secrets: { s: 'x' } }] });
    expect(r.body).toEqual({ batchId: expect.stringMatching(/^batch_/) });
    await t.sb.idle();
    const runs = await call<{ data: Json[] }>('GET', `/workflow_runs?batchId=${String(r.body.batchId)}`);
    expect(runs.body.data).toHaveLength(2);
    for (const s of runs.body.data) expect(s).toMatchObject({ batchId: r.body.batchId, status: 'PROCESSED' });
    const full = await Promise.all(runs.body.data.map(async (s) => (await call('GET', `/workflow_runs/${String(s.id)}`)).body.metadata));
    expect(full).toEqual(expect.arrayContaining([{ n: 1 }, { n: 2 }]));
  });

  test.each([
    ['no workflow', { file: { text: 'x' } }, /workflow is required/],
    ['the 2025-04-21 body', { workflowId: 'workflow_x', rawTexts: ['x'] }, /workflowId is not accepted: POST \/workflow_runs takes workflow, file, package/],
    ['file and package', { workflow: { id: 'workflow_x' }, file: { text: 'x' }, package: { files: [] } }, /give either file or package/],
    ['a package of one', { workflow: { id: 'workflow_x' }, package: { files: [{ id: 'file_a' }] } }, /package.files must contain 2 to 50 files \(got 1\)/],
    ['text in a package', { workflow: { id: 'workflow_x' }, package: { files: [{ text: 'a' }, { text: 'b' }] } }, /package.files\[0\] is \{url, name\?\} or \{id\}/],
    ['two kinds of file', { workflow: { id: 'workflow_x' }, file: { id: 'file_a', text: 'x' } }, /file is \{url, name\?\}, \{id\} or \{text, name\?\}: give exactly one/],
    ['provided outputs', { workflow: { id: 'workflow_x' }, file: { text: 'x' }, outputs: [{ processorId: 'dp_x', output: {} }] }, /outputs .* are not emulated/],
    ['a bad version', { workflow: { id: 'workflow_x', version: 'v2' }, file: { text: 'x' } }, /workflow.version must be "draft", "latest" or a whole number/],
  ])('%s: 400 in ApiError shape', async (_n, body, msg) => {
    const r = await call('POST', '/workflow_runs', body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(msg) });
  });

  test('an unknown workflow is a 404; a batch of 1001 inputs a 400', async () => {
    const r = await call('POST', '/workflow_runs', { workflow: { id: 'workflow_missing' }, file: { text: 'x' } });
    expect(r.status).toBe(404);
    const big = await call('POST', '/workflow_runs/batch', { workflow: { id: 'workflow_missing' }, inputs: Array.from({ length: 1001 }, () => ({ file: { text: 'x' } })) });
    expect(big.status).toBe(400);
    expect(big.body.message).toMatch(/at most 1000 elements \(got 1001\)/);
  });
});

describe('parse, edit and form detection under 2026-02-09', () => {
  test.each([
    ['POST', '/parse'], ['GET', '/parse_runs'], ['POST', '/parse_runs'], ['POST', '/parse_runs/batch'], ['GET', '/parse_runs/pr_1'], ['DELETE', '/parse_runs/pr_1'],
    ['POST', '/parse_runs/pr_1/cancel'], ['POST', '/edit'], ['POST', '/edit_runs'], ['GET', '/edit_runs/edr_1'], ['DELETE', '/edit_runs/edr_1'],
    ['GET', '/edit_templates/et_1'], ['POST', '/edit_schemas/generate'], ['POST', '/detect_form'], ['POST', '/form_detection_runs'], ['GET', '/form_detection_runs/sgr_1'],
  ])('%s %s answers 501 with an ApiError naming the endpoint', async (method, path) => {
    const r = await t.call(method, path, { version: V26, ...(method === 'POST' ? { body: {} } : {}) });
    expect(r.status).toBe(501);
    expect(r.body).toMatchObject({ code: 'NOT_IMPLEMENTED', retryable: false, message: expect.stringContaining('the sandbox does not emulate') });
    expect(r.body).not.toHaveProperty('success');
  });

  test('2025-04-21 callers keep their 501 for /parse', async () => {
    const r = await t.call('POST', '/parse', { body: {} });
    expect(r.status).toBe(501);
    expect(r.body.success).toBe(false);
  });
});

/** Behaviour added for the official SDK (issue 15) that the contract suite does not pin down. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { INVOICE_CONFIG, SPLITTER_CONFIG, createProcessor, settled, start, uploadText, type TestSandbox } from './helpers.js';

type Json = Record<string, unknown>;
let t: TestSandbox;
beforeAll(async () => {
  t = await start();
});
afterAll(() => t.close());

describe('cancel and delete', () => {
  test('only a PROCESSING run is cancelled; a PROCESSING run is not deleted', async () => {
    const p = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    t.sb.pauseEngine();
    const r = await t.call<{ processorRun: Json }>('POST', '/processor_runs', { body: { processorId: p, rawText: 'Total: 1' } });
    const id = String(r.body.processorRun.id);
    const del = await t.call('DELETE', `/processor_runs/${id}`);
    expect(del.status).toBe(400);
    expect(del.body.error).toMatch(/still PROCESSING; cancel it first/);
    expect((await t.call<{ processorRun: Json }>('POST', `/processor_runs/${id}/cancel`)).body.processorRun.status).toBe('CANCELLED');
    t.sb.resumeEngine();
    await t.sb.idle();
    expect((await settled(t, id)).status).toBe('CANCELLED');
    const again = await t.call('POST', `/processor_runs/${id}/cancel`);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe(`processor run ${id} is CANCELLED; only a PROCESSING run can be cancelled`);
    expect((await t.call('DELETE', `/processor_runs/${id}`)).body).toEqual({ success: true, documentProcessorRunId: id, message: `processor run ${id} deleted` });
    expect((await t.call('GET', `/processor_runs/${id}`)).status).toBe(404);
  });

  test('a cancelled run of an evaluation run counts as ended: the batch finishes', async () => {
    const p = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    const set = await t.call<{ evaluationSet: { id: string } }>('POST', '/evaluation_sets', { body: { name: 's', description: '', processorId: p } });
    const fileId = await uploadText(t, 'a.txt', 'Invoice number: A');
    await t.call('POST', '/evaluation_set_items', { body: { evaluationSetId: set.body.evaluationSet.id, fileId, expectedOutput: { value: { invoice_number: 'A' } } } });
    t.sb.pauseEngine();
    const b = await t.call<{ batchProcessorRun: { id: string } }>('POST', '/batch_processor_runs', { body: { evaluationSetId: set.body.evaluationSet.id } });
    const runs = await t.call<{ processorRuns: Json[] }>('GET', `/processor_runs?batchProcessorRunId=${b.body.batchProcessorRun.id}`);
    await t.call('POST', `/processor_runs/${String(runs.body.processorRuns[0].id)}/cancel`);
    t.sb.resumeEngine();
    const got = await t.call<{ batchProcessorRun: Json }>('GET', `/batch_processor_runs/${b.body.batchProcessorRun.id}`);
    // Ended, and FAILED: no run of it was processed, so there is nothing to score (docs/sandbox-api.md).
    expect(got.body.batchProcessorRun).toMatchObject({ status: 'FAILED', runCount: 1, endedRunCount: 1 });
  });

  test('a workflow run is cancelled with its current step, then deleted with its steps', async () => {
    const p = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    const wf = await t.call<{ workflow: { id: string; version: string } }>('POST', '/workflows', { body: { name: 'sdk' } });
    expect(wf.body.workflow.version).toBe('draft');
    expect((await t.call('POST', '/workflows', { body: { name: ' ' } })).body.error).toBe('invalid workflow at /name: must be a non-empty string of at most 256 characters');
    const wid = wf.body.workflow.id;
    expect((await t.call('POST', '/workflow_runs', { body: { workflowId: wid, rawTexts: ['x'] } })).body.error).toMatch(/has no steps/);
    expect((await t.call('POST', `/workflows/${wid}/publish`, { body: {} })).body.error).toMatch(/has no steps in its draft/);
    await t.call('POST', `/workflows/${wid}`, { body: { steps: [{ processorId: p }, { processorId: p }] } });
    t.sb.pauseEngine();
    const run = (await t.call<{ workflowRuns: Json[] }>('POST', '/workflow_runs', { body: { workflowId: wid, rawTexts: ['Total: 3'] } })).body.workflowRuns[0];
    const c = await t.call<{ workflowRun: Json }>('POST', `/workflow_runs/${String(run.id)}/cancel`);
    t.sb.resumeEngine();
    await t.sb.idle();
    expect(c.body.workflowRun.status).toBe('CANCELLED');
    // The cancelled step produced no output: it is not an `outputs` item with `output: null` (the
    // SDK types output as an object); its processor run says CANCELLED.
    expect(c.body.workflowRun.outputs).toEqual([]);
    const outputs = (await t.call<{ processorRuns: Json[] }>('GET', `/processor_runs?sourceId=${String(run.id)}`)).body.processorRuns;
    expect(outputs.map((o) => o.status)).toEqual(['CANCELLED']);
    expect((await t.call<{ workflowRun: Json }>('GET', `/workflow_runs/${String(run.id)}`)).body.workflowRun.status).toBe('CANCELLED');
    expect((await t.call('GET', `/workflow_runs?workflowId=${wid}&status=CANCELLED`)).body.workflowRuns).toHaveLength(1);
    expect((await t.call('DELETE', `/workflow_runs/${String(run.id)}`)).body).toMatchObject({ success: true, workflowRunId: run.id });
    expect((await t.call('GET', `/processor_runs/${String(outputs[0].id)}`)).status).toBe(404);
  });
});

describe('workflow run outputs', () => {
  test('a step that has not produced its output is not an outputs item; finished steps are', async () => {
    const p = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    const wf = await t.call<{ workflow: { id: string } }>('POST', '/workflows', { body: { name: 'two steps', steps: [{ processorId: p }, { processorId: p }] } });
    t.sb.pauseEngine();
    const run = (await t.call<{ workflowRuns: Json[] }>('POST', '/workflow_runs', { body: { workflowId: wf.body.workflow.id, rawTexts: ['Total: 3'] } })).body.workflowRuns[0];
    expect(run.outputs).toEqual([]);
    const got = await t.call<{ workflowRun: Json }>('GET', `/workflow_runs/${String(run.id)}`);
    expect(got.body.workflowRun.outputs).toEqual([]);
    const listed = await t.call<{ workflowRuns: Json[] }>('GET', `/workflow_runs?workflowId=${wf.body.workflow.id}`);
    expect(listed.body.workflowRuns).toHaveLength(1);
    t.sb.resumeEngine();
    await t.sb.idle();
    const done = (await t.call<{ workflowRun: Json }>('GET', `/workflow_runs/${String(run.id)}`)).body.workflowRun;
    expect(done.status).toBe('PROCESSED');
    const outputs = done.outputs as Json[];
    expect(outputs.map((o) => o.status)).toEqual(['PROCESSED', 'PROCESSED']);
    for (const o of outputs) expect(o.output).toEqual(expect.objectContaining({ value: expect.any(Object) }));
  });
});

describe('SDK shapes', () => {
  test('splits carry identifier, observation and the fileId of a derived file with the split\'s pages', async () => {
    const p = await createProcessor(t, 'SPLITTER', SPLITTER_CONFIG);
    const fileId = await uploadText(t, 'pack.txt', 'Invoice page\fReceipt page');
    const r = await t.call<{ processorRun: Json }>('POST', '/processor_runs', { body: { processorId: p, file: { fileId }, sync: true } });
    const splits = (r.body.processorRun.output as { splits: Json[] }).splits;
    expect(splits.length).toBeGreaterThan(0);
    for (const s of splits) {
      expect(s).toMatchObject({ identifier: expect.any(String), observation: expect.any(String), fileId: expect.stringMatching(/^file_/) });
      const f = await t.call<{ file: Json }>('GET', `/files/${String(s.fileId)}?rawText=true`);
      expect(f.body.file).toMatchObject({ type: 'TXT', parentFileId: fileId, metadata: { parentSplit: { id: s.id, type: s.type, startPage: s.startPage, endPage: s.endPage } } });
    }
  });

  test('workflow run outputs are whole processor runs, in the caller\'s layout', async () => {
    const p = await createProcessor(t, 'SPLITTER', SPLITTER_CONFIG);
    const wf = await t.call<{ workflow: { id: string } }>('POST', '/workflows', { body: { name: 'split', steps: [{ processorId: p }] } });
    const run = (await t.call<{ workflowRuns: Json[] }>('POST', '/workflow_runs', { body: { workflowId: wf.body.workflow.id, rawTexts: ['a receipt'] } })).body.workflowRuns[0];
    await t.sb.idle();
    const now = (await t.call<{ workflowRun: Json }>('GET', `/workflow_runs/${String(run.id)}`)).body.workflowRun;
    expect(now).toMatchObject({ name: 'rawText', reviewed: false, stepRuns: [], url: `${t.url}/workflow_runs/${String(run.id)}` });
    const out = (now.outputs as Json[])[0];
    expect(out).toMatchObject({ reviewed: false, edits: {}, mergedProcessors: [], url: `${t.url}/processor_runs/${String(out.id)}`, config: { splitClassifications: expect.any(Array) } });
    const old = (await t.call<{ workflowRun: Json }>('GET', `/workflow_runs/${String(run.id)}`, { version: '2024-12-23' })).body.workflowRun;
    const oldOut = (old.outputs as Json[])[0];
    expect(oldOut.config).toHaveProperty('subDocumentClassifications');
    expect(oldOut.output).toHaveProperty('subDocumentClassifications');
  });

  test('processor lists carry each processor\'s versions, the draft included', async () => {
    const p = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG, 'listed');
    await t.call('POST', `/processors/${p}/publish`, { body: { releaseType: 'minor' } });
    const list = await t.call<{ processors: Array<{ id: string; versions: Json[] }> }>('GET', '/processors?maxPageSize=1000');
    const versions = list.body.processors.find((x) => x.id === p)?.versions ?? [];
    expect(versions).toHaveLength(2);
    expect(versions).toEqual(expect.arrayContaining([{ id: expect.stringMatching(/^dpv_/), version: '0.1' }, { id: expect.stringMatching(/^dpv_/), version: 'draft' }]));
  });
});

describe('urls after a restart on another address', () => {
  test('a workflow run and its outputs are served with the new address', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-sdk-urls-'));
    try {
      const a = await start({ dataDir });
      const p = await createProcessor(a, 'EXTRACT', INVOICE_CONFIG);
      const wf = await a.call<{ workflow: { id: string } }>('POST', '/workflows', { body: { name: 'w', steps: [{ processorId: p }] } });
      const run = (await a.call<{ workflowRuns: Json[] }>('POST', '/workflow_runs', { body: { workflowId: wf.body.workflow.id, rawTexts: ['Total: 1'] } })).body.workflowRuns[0];
      await a.sb.idle();
      const before = (await a.call<{ workflowRun: Json }>('GET', `/workflow_runs/${String(run.id)}`)).body.workflowRun;
      expect(before.url).toBe(`${a.url}/workflow_runs/${String(run.id)}`);
      await a.close();
      const b = await start({ dataDir });
      try {
        const after = (await b.call<{ workflowRun: Json }>('GET', `/workflow_runs/${String(run.id)}`)).body.workflowRun;
        expect(after.url).toBe(`${b.url}/workflow_runs/${String(run.id)}`);
        expect((after.outputs as Json[]).map((o) => o.url)).toEqual((before.outputs as Json[]).map((o) => `${b.url}/processor_runs/${String(o.id)}`));
        expect({ ...after, url: before.url, outputs: before.outputs }).toEqual(before);
      } finally {
        await b.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

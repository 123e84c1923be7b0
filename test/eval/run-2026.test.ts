/**
 * `eval run` / `eval export` on API 2026-02-09 against a stub answering spec-7 shapes
 * (test/helpers/stub-eval-2026.ts): the evaluation set run started for the set's entity at the
 * version asked, its item runs read into the same export items as the 2025-04-21 path, the
 * service's run recorded as answered; FAILED runs, missing metrics, items deleted in flight and
 * run ids of the wrong kind.
 */
import { existsSync, readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { exportEvaluationSetRun, runEvaluation, wrongRunIdKind } from '../../src/eval/index.js';
import { inFlightDir } from '../../src/eval/inflight.js';
import { startEvalStub, type EvalStub, type EvalStubOptions, type StubItem } from '../helpers/stub-eval-2026.js';

let stub: EvalStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const EXTRACT_CONFIG = { schema: { type: 'object', properties: { total: { type: ['number', 'null'] }, vendor: { type: ['string', 'null'] } } } };
const CLASSIFY_CONFIG = { classifications: [{ id: 'invoice', type: 'invoice', description: 'an invoice' }, { id: 'receipt', type: 'receipt', description: 'a receipt' }] };
const SPLITTER_CONFIG = { splitClassifications: [{ id: 'invoice', type: 'invoice', description: 'an invoice' }, { id: 'receipt', type: 'receipt', description: 'a receipt' }] };

const item = (n: number, expected: Record<string, unknown>, output: Record<string, unknown> | null): StubItem => ({ id: `evi_${n}`, fileId: `file_${n}`, fileName: `doc-${n}.pdf`, expected, output });

async function start(o: EvalStubOptions) {
  stub = await startEvalStub(o);
  return createClient({ baseUrl: stub.url, token: stub.token, apiVersion: '2026-02-09', maxRetries: 0 });
}

const fast = { pollIntervalMs: 1, maxPollIntervalMs: 2 };

describe('eval run on 2026-02-09 (evaluation set run)', () => {
  it('EXTRACT: starts the run at the asked version, polls with progress, exports every item and the service run as answered', async () => {
    const metrics = { accuracy: 0.5, fieldMetrics: { total: { countTotal: 2, countPresent: 2, countExpected: 2, countAccurate: 1, accuracy: 0.5 } }, meanLatencyMs: 12 };
    const client = await start({
      type: 'EXTRACT', config: EXTRACT_CONFIG, metrics,
      items: [
        item(1, { value: { total: 10, vendor: 'A' } }, { value: { total: 10, vendor: 'A' }, metadata: {} }),
        item(2, { value: { total: 20, vendor: 'B' } }, { value: { total: 21, vendor: 'B' }, metadata: {} }),
      ],
    });
    const progress: Array<{ phase: string; ended: number | null; total: number }> = [];
    const r = await runEvaluation(client, { evaluationSetId: 'ev_stub1', version: '1', ...fast }, { onProgress: (p) => progress.push({ phase: p.phase, ended: p.ended, total: p.total }) });
    const create = stub!.requests.find((q) => q.method === 'POST' && q.url === '/evaluation_set_runs')!;
    expect(JSON.parse(create.body)).toEqual({ evaluationSetId: 'ev_stub1', entity: { id: 'ex_stub1', version: '1.0' }, evaluationSetItemIds: ['evi_1', 'evi_2'] });
    expect(r.strategy).toBe('evaluation-set-run');
    expect(r.batchRunId).toBe('bpr_stub1');
    expect(r.serviceStatus).toBe('PROCESSED');
    // Progress from numFilesProcessed / numFilesTotal while it ran.
    expect(progress.filter((p) => p.phase === 'wait').map((p) => p.ended)).toEqual([0, 1, 2, 2]);
    const exp = r.export as typeof r.export & { service: Record<string, unknown> };
    expect(exp.processor).toMatchObject({ id: 'ex_stub1', name: 'Stub entity', type: 'EXTRACT', version: '1.0', versionId: 'exv_1' });
    expect(exp.processor.config).toMatchObject({ type: 'EXTRACT', schema: EXTRACT_CONFIG.schema });
    expect(exp.source).toMatchObject({ evaluationSetId: 'ev_stub1', batchProcessorRunId: 'bpr_stub1' });
    expect(exp.items).toEqual([
      { id: 'evi_1', fileId: 'file_1', fileName: 'doc-1.pdf', expectedOutput: { value: { total: 10, vendor: 'A' } }, output: { value: { total: 10, vendor: 'A' }, metadata: {} }, status: 'PROCESSED', runId: 'exr_1', durationMs: 2000, credits: 1, pageCount: 2 },
      { id: 'evi_2', fileId: 'file_2', fileName: 'doc-2.pdf', expectedOutput: { value: { total: 20, vendor: 'B' } }, output: { value: { total: 21, vendor: 'B' }, metadata: {} }, status: 'PROCESSED', runId: 'exr_2', durationMs: 2000, credits: 1, pageCount: 2 },
    ]);
    expect(exp.service).toEqual({
      evaluationSetRunId: 'bpr_stub1', status: 'PROCESSED',
      entity: { object: 'extractor', id: 'ex_stub1', name: 'Stub entity', createdAt: '2026-03-01T00:00:00.000Z', updatedAt: '2026-03-01T00:00:00.000Z' },
      entityVersion: { object: 'extractor_version', id: 'exv_1', version: '1.0', description: 'first', extractorId: 'ex_stub1', createdAt: '2026-03-01T00:00:00.000Z', createdBy: null },
      metrics: { type: 'EXTRACT', numFilesTotal: 2, numFilesProcessed: 2, ...metrics },
      options: {},
    });
    expect(r.notices).toEqual([]);
  });

  it('CLASSIFY: a failed item run is exported FAILED with its reason; the draft is run when asked', async () => {
    const client = await start({
      type: 'CLASSIFY', config: CLASSIFY_CONFIG, metrics: { accuracy: 1 },
      items: [item(1, { id: 'invoice', type: 'invoice' }, { id: 'invoice', type: 'invoice', confidence: 0.9, insights: [] }), item(2, { id: 'receipt', type: 'receipt' }, null)],
    });
    const r = await runEvaluation(client, { evaluationSetId: 'ev_stub1', version: 'draft', ...fast });
    expect(JSON.parse(stub!.requests.find((q) => q.url === '/evaluation_set_runs')!.body).entity).toEqual({ id: 'cl_stub1', version: 'draft' });
    expect(r.counts).toEqual({ items: 2, processed: 1, failed: 1, timedOut: 0 });
    expect(r.export.items.map((i) => [i.id, i.status, i.runId, i.failureReason ?? null, i.output])).toEqual([
      ['evi_1', 'PROCESSED', 'clr_1', null, { id: 'invoice', type: 'invoice', confidence: 0.9, insights: [] }],
      ['evi_2', 'FAILED', 'clr_2', 'SIMULATED_FAILURE', null],
    ]);
    expect(r.export.items[0].expectedOutput).toEqual({ id: 'invoice', type: 'invoice' });
    expect(r.export.processor.type).toBe('CLASSIFY');
  });

  it('SPLITTER: expected splits get their 2025-04-21 ids back (split_<n>), as the export has them', async () => {
    const expected = { splits: [{ classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 2 }, { classificationId: 'receipt', type: 'receipt', startPage: 3, endPage: 3 }] };
    const output = { splits: [{ id: 's1', classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 3, identifier: '', observation: '', fileId: 'file_1' }] };
    const client = await start({ type: 'SPLITTER', config: SPLITTER_CONFIG, metrics: { precision: 0, recall: 0, numSplitsExpected: 2, numSplitsPredicted: 1, numSplitsCorrect: 0 }, items: [item(1, expected, output)] });
    const r = await runEvaluation(client, { evaluationSetId: 'ev_stub1', ...fast });
    expect(r.export.items[0].expectedOutput).toEqual({
      splits: [
        { id: 'split_1', classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 2 },
        { id: 'split_2', classificationId: 'receipt', type: 'receipt', startPage: 3, endPage: 3 },
      ],
    });
    expect(r.export.items[0].output).toEqual(output);
    // latest: the newest published version.
    expect(r.export.processor.version).toBe('1.0');
    expect((r.export as unknown as { service: { metrics: Record<string, unknown> } }).service.metrics).toMatchObject({ type: 'SPLITTER', numSplitsCorrect: 0 });
  });

  it('a run that ends FAILED: the export records service.status FAILED and the result says so', async () => {
    const client = await start({ type: 'CLASSIFY', config: CLASSIFY_CONFIG, endStatus: 'FAILED', items: [item(1, { id: 'invoice', type: 'invoice' }, null)] });
    const notices: string[] = [];
    const r = await runEvaluation(client, { evaluationSetId: 'ev_stub1', ...fast }, { onNotice: (m) => notices.push(m) });
    expect(r.serviceStatus).toBe('FAILED');
    expect((r.export as unknown as { service: { status: string } }).service.status).toBe('FAILED');
    expect(notices.join('\n')).toContain('evaluation set run bpr_stub1 ended FAILED');
  });

  it('metrics missing from the answer: recorded as absent, with a notice', async () => {
    const client = await start({ type: 'CLASSIFY', config: CLASSIFY_CONFIG, metrics: null, items: [item(1, { id: 'invoice', type: 'invoice' }, { id: 'invoice', type: 'invoice', confidence: 1, insights: [] })] });
    const r = await runEvaluation(client, { evaluationSetId: 'ev_stub1', ...fast });
    const service = (r.export as unknown as { service: Record<string, unknown> }).service;
    expect(Object.hasOwn(service, 'metrics')).toBe(false);
    expect(r.notices.join('\n')).toMatch(/bpr_stub1 has no metrics; the export records them as absent/);
  });

  it('an item deleted while the run is in flight: kept with the expected output read before the start, and named in a notice', async () => {
    const client = await start({
      type: 'CLASSIFY', config: CLASSIFY_CONFIG, deleteWhileRunning: 'evi_2',
      items: [item(1, { id: 'invoice', type: 'invoice' }, { id: 'invoice', type: 'invoice', confidence: 1, insights: [] }), item(2, { id: 'receipt', type: 'receipt' }, { id: 'invoice', type: 'invoice', confidence: 1, insights: [] })],
    });
    const r = await runEvaluation(client, { evaluationSetId: 'ev_stub1', ...fast });
    expect(r.export.items.map((i) => i.id)).toEqual(['evi_1', 'evi_2']);
    expect(r.export.items[1].expectedOutput).toEqual({ id: 'receipt', type: 'receipt' });
    expect(r.notices.join('\n')).toContain('1 item was deleted from ev_stub1 while the run was in flight: evi_2');
  });

  it('a run still going at --timeout: exit 2, nothing returned, the hint names the export command that gets it later', async () => {
    const client = await start({ type: 'CLASSIFY', config: CLASSIFY_CONFIG, polls: 1_000_000, items: [item(1, { id: 'invoice', type: 'invoice' }, null)] });
    await expect(runEvaluation(client, { evaluationSetId: 'ev_stub1', timeoutMs: 50, ...fast })).rejects.toMatchObject({
      exitCode: 2, message: expect.stringContaining('evaluation set run bpr_stub1 did not finish within'), hint: expect.stringContaining('evalkit eval export bpr_stub1 --wait'),
    });
  });

  it('stopped while waiting (Ctrl-C): interrupted, the run goes on, the hint names the export command', async () => {
    const client = await start({ type: 'CLASSIFY', config: CLASSIFY_CONFIG, polls: 1_000_000, items: [item(1, { id: 'invoice', type: 'invoice' }, null)] });
    const ac = new AbortController();
    const r = runEvaluation(client, { evaluationSetId: 'ev_stub1', ...fast }, { signal: ac.signal, onProgress: (p) => p.phase === 'wait' && ac.abort() });
    await expect(r).rejects.toMatchObject({ exitCode: 1, message: expect.stringContaining('evaluation set run bpr_stub1 keeps running on the service'), hint: expect.stringContaining('evalkit eval export bpr_stub1 --wait') });
  });

  it('a lost answer to the start, on a service that lists no evaluation set runs (404): stops (exit 2) without starting another', async () => {
    await start({ type: 'EXTRACT', config: EXTRACT_CONFIG, items: [item(1, { value: { total: 10 } }, { value: { total: 10 }, metadata: {} })] });
    // The service does the work; the answer never arrives.
    const lose: typeof fetch = async (url, init) => {
      const r = await fetch(url, init);
      if (init?.method === 'POST' && new URL(String(url)).pathname === '/evaluation_set_runs') throw new TypeError('fetch failed');
      return r;
    };
    const client = createClient({ baseUrl: stub!.url, token: stub!.token, apiVersion: '2026-02-09', maxRetries: 2, retryBaseMs: 1, fetch: lose });
    await expect(runEvaluation(client, { evaluationSetId: 'ev_stub1', ...fast })).rejects.toMatchObject({
      exitCode: 2, message: expect.stringMatching(/answer was lost[\s\S]*an evaluation set run of ev_stub1 may have been started/), hint: expect.stringContaining("check the service's dashboard"),
    });
    expect(stub!.requests.filter((q) => q.method === 'POST' && q.url === '/evaluation_set_runs')).toHaveLength(1);
  });

  it('the export written before the record is removed: a failed write (onResult throws) leaves the run to take up, not to start again', async () => {
    const client = await start({ type: 'CLASSIFY', config: CLASSIFY_CONFIG, items: [item(1, { id: 'invoice', type: 'invoice' }, { id: 'invoice', type: 'invoice', confidence: 1, insights: [] })] });
    const records = (): string[] => (existsSync(inFlightDir()) ? readdirSync(inFlightDir()).filter((f) => f.endsWith('.json')) : []);
    const before = records();
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    await expect(runEvaluation(client, { evaluationSetId: 'ev_stub1', ...fast }, { onResult: () => Promise.reject(full) })).rejects.toBe(full);
    const left = records().filter((f) => !before.includes(f));
    expect(left).toHaveLength(1);
    // eval export of that run, whose write fails too: the record stays.
    await expect(exportEvaluationSetRun(client, 'bpr_stub1', {}, { onResult: () => Promise.reject(full) })).rejects.toBe(full);
    expect(records().filter((f) => !before.includes(f))).toEqual(left);
    // Run again: the same evaluation set run is exported (no second start), and its record goes once written.
    const notices: string[] = [];
    const written: string[] = [];
    const r = await runEvaluation(client, { evaluationSetId: 'ev_stub1', ...fast }, { onNotice: (m) => notices.push(m), onResult: (x) => void written.push(x.batchRunId ?? '') });
    expect(notices.join('\n')).toContain('going on with evaluation set run bpr_stub1');
    expect(written).toEqual(['bpr_stub1']);
    expect(r.batchRunId).toBe('bpr_stub1');
    expect(stub!.requests.filter((q) => q.method === 'POST' && q.url === '/evaluation_set_runs')).toHaveLength(1);
    expect(records().filter((f) => !before.includes(f))).toEqual([]);
  });

  it('refuses the 2025-04-21-only options before any request', async () => {
    const client = await start({ type: 'CLASSIFY', config: CLASSIFY_CONFIG, items: [] });
    await expect(runEvaluation(client, { evaluationSetId: 'ev_stub1', strategy: 'batch' })).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('--strategy batch is a 2025-04-21 strategy') });
    await expect(runEvaluation(client, { evaluationSetId: 'ev_stub1', priority: 10 })).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('--priority is not sent to an evaluation set run'), hint: expect.stringContaining('--strategy per-item') });
    expect(stub!.requests).toEqual([]);
  });
});

describe('eval export on 2026-02-09', () => {
  it('builds the same export from an existing evaluation set run as eval run wrote', async () => {
    const client = await start({
      type: 'CLASSIFY', config: CLASSIFY_CONFIG, metrics: { accuracy: 0.5 },
      items: [item(1, { id: 'invoice', type: 'invoice' }, { id: 'invoice', type: 'invoice', confidence: 1, insights: [] }), item(2, { id: 'receipt', type: 'receipt' }, { id: 'invoice', type: 'invoice', confidence: 1, insights: [] })],
    });
    const made = await runEvaluation(client, { evaluationSetId: 'ev_stub1', ...fast });
    const again = await exportEvaluationSetRun(client, 'bpr_stub1');
    expect(again.export.items).toEqual(made.export.items);
    expect((again.export as unknown as { service: unknown }).service).toEqual((made.export as unknown as { service: unknown }).service);
  });

  it('an item deleted since the run: its run is left out of the export and named (item and run)', async () => {
    const client = await start({
      type: 'CLASSIFY', config: CLASSIFY_CONFIG, deleteWhileRunning: 'evi_2',
      items: [item(1, { id: 'invoice', type: 'invoice' }, { id: 'invoice', type: 'invoice', confidence: 1, insights: [] }), item(2, { id: 'receipt', type: 'receipt' }, { id: 'invoice', type: 'invoice', confidence: 1, insights: [] })],
    });
    await client.evaluationSetRuns.create({ evaluationSetId: 'ev_stub1' });
    const r = await exportEvaluationSetRun(client, 'bpr_stub1', { wait: true, ...fast });
    expect(r.export.items.map((i) => i.id)).toEqual(['evi_1']);
    expect(r.notices.join('\n')).toContain("1 run belongs to an item no longer in evaluation set ev_stub1: evi_2 (run clr_2); it is left out of the export (its expected output is gone), while the service's metrics still count it");
  });

  it('refuses a PENDING/PROCESSING run without --wait, and waits for it with', async () => {
    const client = await start({ type: 'CLASSIFY', config: CLASSIFY_CONFIG, polls: 3, items: [item(1, { id: 'invoice', type: 'invoice' }, { id: 'invoice', type: 'invoice', confidence: 1, insights: [] })] });
    await client.evaluationSetRuns.create({ evaluationSetId: 'ev_stub1' });
    await expect(exportEvaluationSetRun(client, 'bpr_stub1')).rejects.toMatchObject({ exitCode: 2, message: 'evaluation set run bpr_stub1 is still PROCESSING' });
    const r = await exportEvaluationSetRun(client, 'bpr_stub1', { wait: true, ...fast });
    expect(r.serviceStatus).toBe('PROCESSED');
    expect(r.export.items).toHaveLength(1);
  });

  it('a run id of the wrong kind is exit 2 naming what was expected, before any request', async () => {
    const client = await start({ type: 'CLASSIFY', config: CLASSIFY_CONFIG, items: [] });
    await expect(exportEvaluationSetRun(client, 'exr_123')).rejects.toMatchObject({ exitCode: 2, message: 'exr_123 is an extract run id, not an evaluation set run id (bpr_...)' });
    await expect(exportEvaluationSetRun(client, 'ev_123')).rejects.toMatchObject({ exitCode: 2, message: 'ev_123 is an evaluation set id, not an evaluation set run id (bpr_...)' });
    expect(stub!.requests).toEqual([]);
    expect(wrongRunIdKind('bpr_1')).toBeUndefined();
    expect(wrongRunIdKind('eval_set_run_1')).toBeUndefined();
    expect(wrongRunIdKind('splr_1')).toBe('a split run id');
  });
});

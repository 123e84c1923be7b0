/**
 * 2026-02-09 evaluation set runs (spec 4, 4.2, 7): the metrics of spec 4.2 hand-computed on small
 * sets run by an engine whose outputs the test sets (by file name), progress while running, the
 * version run, item subsets, item runs listed by batchId, the item copy taken at the start, the
 * internal events, one object under two routes, and every refusal.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { ServiceMetricsAccumulator } from '../../src/metrics/service.js';
import type { Engine, EngineInput, EngineResult } from '../../src/sandbox/engine/types.js';
import type { SandboxEvent } from '../../src/sandbox/index.js';
import { makePdf, start, uploadText, type TestSandbox } from './helpers.js';

type Json = Record<string, unknown>;
const V26 = '2026-02-09';

/** Outputs by file name; a name mapped to a string fails the run with that reason. */
const OUTPUTS = new Map<string, Json | string>();
const engine: Engine = {
  spec: 'test',
  run(input: EngineInput): EngineResult {
    const out = OUTPUTS.get(input.fileName ?? '');
    if (out === undefined || typeof out === 'string') return { ok: false, reason: out ?? 'NO_OUTPUT', message: 'the test engine fails this file', label: { engine: 'test' } };
    return { ok: true, output: out, label: { engine: 'test' } };
  },
};

let t: TestSandbox;
const call = <T = Json>(method: string, path: string, body?: unknown) => t.call<T>(method, path, { version: V26, ...(body === undefined ? {} : { body }) });

async function ok<T = Json>(method: string, path: string, body?: unknown): Promise<T> {
  const r = await call<T>(method, path, body);
  if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as T;
}

async function file(name: string, text: string | Uint8Array, output: Json | string): Promise<string> {
  OUTPUTS.set(name, output);
  return uploadText(t, name, text);
}

const extract = (value: Json): Json => ({ value, metadata: {} });

const EXTRACT_SCHEMA = {
  type: 'object',
  properties: {
    invoice_number: { type: ['string', 'null'] },
    total: { type: ['number', 'null'] },
    po_number: { type: ['string', 'null'] },
    notes: { type: ['string', 'null'] },
  },
};

let exId: string;
let setId: string;
const items: Record<string, string> = {};

beforeAll(async () => {
  t = await start({ engine, engineConcurrency: 1 });
  exId = (await ok<Json>('POST', '/extractors', { name: 'Invoices', config: { schema: EXTRACT_SCHEMA } })).id as string;
  setId = (await ok<Json>('POST', '/evaluation_sets', { name: 'invoices', entityId: exId })).id as string;
  const a = await file('a.txt', 'Invoice A-1', extract({ invoice_number: 'A-1', total: 10, po_number: 'P-9', notes: 'invented' }));
  const b = await file('b.txt', 'Invoice B-2', extract({ invoice_number: 'B-2', total: 21, po_number: null, notes: 'keep dry' }));
  const c = await file('c.txt', 'Invoice C-3', 'CORRUPT_FILE');
  const made = await ok<{ evaluationSetItems: Json[] }>('POST', `/evaluation_sets/${setId}/items`, {
    items: [
      { fileId: a, expectedOutput: { value: { invoice_number: 'A-1', total: 10, notes: null } } },
      { fileId: b, expectedOutput: { value: { invoice_number: 'B-2', total: 20, notes: 'keep dry' } } },
      { fileId: c, expectedOutput: { value: { invoice_number: 'C-3', total: 30, notes: null } } },
    ],
  });
  [items.a, items.b, items.c] = made.evaluationSetItems.map((i) => i.id as string);
});
afterAll(() => t?.close());

async function runToEnd(body: Json): Promise<Json> {
  const created = await ok<Json>('POST', '/evaluation_set_runs', body);
  await t.sb.idle();
  return ok<Json>('GET', `/evaluation_set_runs/${String(created.id)}`);
}

describe('EXTRACT metrics (spec 4.2), by hand', () => {
  test('a field never expected, a value invented for an empty field, a failed item run', async () => {
    const run = await runToEnd({ evaluationSetId: setId });
    expect(Object.keys(run).sort()).toEqual(['createdAt', 'entity', 'entityVersion', 'evaluationSetId', 'id', 'metrics', 'object', 'options', 'status', 'updatedAt']);
    expect(run).toMatchObject({ object: 'evaluation_set_run', evaluationSetId: setId, status: 'PROCESSED', options: {} });
    expect(run.id).toMatch(/^bpr_/);
    expect(run.entity).toMatchObject({ object: 'extractor', id: exId, name: 'Invoices' });
    expect(run.entityVersion).toMatchObject({ object: 'extractor_version', version: 'draft', extractorId: exId });
    const m = run.metrics as Json;
    // Scored: a and b (c FAILED). invoice_number 2/2; total 1/2 (b: 21 vs 20); po_number never
    // expected: present once (a), no accuracy; notes: a's invented value counts as present, not
    // as expected; b's is accurate. Pooled accuracy (2 + 1 + 0 + 1) / (2 + 2 + 0 + 1) = 0.8.
    expect(m.fieldMetrics).toEqual({
      invoice_number: { countTotal: 2, countPresent: 2, countExpected: 2, countAccurate: 2, accuracy: 1 },
      total: { countTotal: 2, countPresent: 2, countExpected: 2, countAccurate: 1, accuracy: 0.5 },
      po_number: { countTotal: 2, countPresent: 1, countExpected: 0, countAccurate: 0 },
      notes: { countTotal: 2, countPresent: 2, countExpected: 1, countAccurate: 1, accuracy: 1 },
    });
    expect(m).toMatchObject({ type: 'EXTRACT', accuracy: 0.8, numFilesTotal: 3, numFilesProcessed: 3, numFiles: 3, numPages: 2 });
    // Latency: the two PROCESSED runs' processing times, nearest rank: p50 is the smaller, p90..p99 the larger.
    const lat = [m.p50LatencyMs, m.p90LatencyMs] as number[];
    expect(lat[0]).toBeLessThanOrEqual(lat[1]);
    expect(m.meanLatencyMs).toBe((lat[0] + lat[1]) / 2);
    expect([m.p95LatencyMs, m.p99LatencyMs]).toEqual([lat[1], lat[1]]);
  });

  test('one object: the same bpr_ id is the legacy batch processor run, and its item runs are listed by batchId', async () => {
    const run = await runToEnd({ evaluationSetId: setId });
    const legacy = await call<{ success: boolean; batchProcessorRun: Json }>('GET', `/batch_processor_runs/${String(run.id)}`);
    expect(legacy.status).toBe(200);
    expect(legacy.body.batchProcessorRun).toMatchObject({ object: 'batch_processor_run', id: run.id, status: 'PROCESSED', source: 'EVAL_SET', sourceId: setId, runCount: 3, processorId: exId });
    expect((legacy.body.batchProcessorRun.metrics as Json).numFailedRuns).toBe(1);
    // ... and a BatchRun (spec 1.4: bpr_; the payload spec 6 gives batch_processor_run.* events).
    expect(await ok('GET', `/batch_runs/${String(run.id)}`)).toEqual({ object: 'batch_run', id: run.id, status: 'PROCESSED', runCount: 3, createdAt: run.createdAt });
    const list = await ok<{ data: Json[] }>('GET', `/extract_runs?batchId=${String(run.id)}&sortDir=asc`);
    expect(list.data.map((r) => (r.metadata as Json).evaluationSetItemId)).toEqual([items.a, items.b, items.c]);
    expect(list.data.map((r) => r.status)).toEqual(['PROCESSED', 'PROCESSED', 'FAILED']);
    expect(list.data[0].id).toMatch(/^exr_/);
    expect(list.data[0].metadata).toMatchObject({ evaluationSetId: setId, evaluationSetItemId: items.a });
  });
});

describe('CLASSIFY and SPLITTER metrics, by hand', () => {
  test('a class never predicted', async () => {
    const classes = ['invoice', 'receipt', 'contract'].map((c) => ({ id: c, type: c, description: `A ${c}` }));
    const cl = await ok<Json>('POST', '/classifiers', { name: 'kinds', config: { classifications: classes } });
    const set = await ok<Json>('POST', '/evaluation_sets', { name: 'kinds', entityId: cl.id });
    const cases: Array<[string, string]> = [['invoice', 'invoice'], ['receipt', 'invoice'], ['contract', 'receipt'], ['invoice', 'invoice']];
    const list = [];
    for (const [i, [want, got]] of cases.entries()) {
      const f = await file(`cls-${i}.txt`, `document ${i}`, { id: got, type: got, confidence: 0.9, insights: [] });
      list.push({ fileId: f, expectedOutput: { id: want, type: want } });
    }
    await ok('POST', `/evaluation_sets/${String(set.id)}/items`, { items: list });
    const run = await runToEnd({ evaluationSetId: set.id });
    // invoice: expected 2, predicted 3, correct 2 -> precision 2/3, recall 1, f1 0.8.
    // receipt: expected 1, predicted 1, correct 0 -> 0, 0, 0. contract: never predicted -> no precision, no f1.
    expect(run.metrics).toMatchObject({
      type: 'CLASSIFY',
      accuracy: 0.5,
      classificationMetrics: {
        invoice: { countExpected: 2, countPredicted: 3, countCorrect: 2, precision: 2 / 3, recall: 1, f1: expect.closeTo(0.8, 12) },
        receipt: { countExpected: 1, countPredicted: 1, countCorrect: 0, precision: 0, recall: 0, f1: 0 },
        contract: { countExpected: 1, countPredicted: 0, countCorrect: 0, recall: 0 },
      },
    });
    const contract = ((run.metrics as Json).classificationMetrics as Json).contract as Json;
    expect(contract).not.toHaveProperty('precision');
    expect(contract).not.toHaveProperty('f1');
    expect(run.entity).toMatchObject({ object: 'classifier', id: cl.id });
  });

  test('a split off by one page', async () => {
    const kinds = ['invoice', 'receipt'].map((c) => ({ id: c, type: c, description: `A ${c}` }));
    const sp = await ok<Json>('POST', '/splitters', { name: 'packs', config: { splitClassifications: kinds } });
    const set = await ok<Json>('POST', '/evaluation_sets', { name: 'packs', entityId: sp.id });
    const pdf = makePdf(['one', 'two', 'three', 'four']);
    const split = (type: string, startPage: number, endPage: number, n: number): Json => ({ id: `s${n}`, type, classificationId: type, startPage, endPage, identifier: '', observation: '' });
    const one = await file('pack-1.pdf', pdf, { splits: [split('invoice', 1, 2, 1), split('receipt', 4, 4, 2)] });
    const two = await file('pack-2.pdf', pdf, { splits: [split('invoice', 1, 3, 1), split('receipt', 4, 4, 2)] });
    const want = (type: string, startPage: number, endPage: number): Json => ({ classificationId: type, type, startPage, endPage });
    await ok('POST', `/evaluation_sets/${String(set.id)}/items`, {
      items: [
        { fileId: one, expectedOutput: { splits: [want('invoice', 1, 2), want('receipt', 3, 4)] } },
        { fileId: two, expectedOutput: { splits: [want('invoice', 1, 4)] } },
      ],
    });
    const run = await runToEnd({ evaluationSetId: set.id });
    // Expected 3, predicted 4, correct 1 (invoice 1-2; receipt 4-4 is one page off 3-4):
    // precision 1/4, recall 1/3, f1 2 * (1/4) * (1/3) / (1/4 + 1/3) = 2/7.
    expect(run.metrics).toMatchObject({
      type: 'SPLITTER', numSplitsExpected: 3, numSplitsPredicted: 4, numSplitsCorrect: 1, precision: 0.25, recall: 1 / 3, f1: expect.closeTo(2 / 7, 12),
      numFilesTotal: 2, numFilesProcessed: 2, numPages: 8,
    });
  });
});

describe('running', () => {
  test('PENDING at creation, PROCESSING with progress, then PROCESSED', async () => {
    t.sb.pauseEngine();
    const created = await ok<Json>('POST', '/evaluation_set_runs', { evaluationSetId: setId });
    expect(created.status).toBe('PENDING');
    expect(created.metrics).toMatchObject({ type: 'EXTRACT', numFilesTotal: 3, numFilesProcessed: 0, numPages: 0 });
    const id = String(created.id);
    expect((await ok<Json>('GET', `/evaluation_set_runs/${id}`)).status).toBe('PENDING');
    // Let exactly one item run through (concurrency 1): pause again as soon as it has ended.
    const off = t.sb.onEvent((e) => {
      if (e.type === 'processor_run.processed' || e.type === 'processor_run.failed') t.sb.pauseEngine();
    });
    t.sb.resumeEngine();
    await t.sb.idle();
    off();
    const mid = await ok<Json>('GET', `/evaluation_set_runs/${id}`);
    expect(mid.status).toBe('PROCESSING');
    // Progress only while running: the ended item run and its pages; nothing is scored yet.
    expect(mid.metrics).toMatchObject({ numFilesTotal: 3, numFilesProcessed: 1, numFiles: 1, numPages: 1 });
    expect(mid.metrics).not.toHaveProperty('accuracy');
    expect(((mid.metrics as Json).fieldMetrics as Json).invoice_number).toEqual({ countTotal: 0, countPresent: 0, countExpected: 0, countAccurate: 0 });
    t.sb.resumeEngine();
    await t.sb.idle();
    const end = await ok<Json>('GET', `/evaluation_set_runs/${id}`);
    expect(end.status).toBe('PROCESSED');
    expect(end.metrics).toMatchObject({ numFilesTotal: 3, numFilesProcessed: 3, accuracy: 0.8 });
    expect(((end.metrics as Json).fieldMetrics as Json).invoice_number).toEqual({ countTotal: 2, countPresent: 2, countExpected: 2, countAccurate: 2, accuracy: 1 });
  });

  test('the figures are computed once, when the run ends, and served as stored', async () => {
    const run = await runToEnd({ evaluationSetId: setId });
    const add = vi.spyOn(ServiceMetricsAccumulator.prototype, 'add');
    try {
      const again = await ok<Json>('GET', `/evaluation_set_runs/${String(run.id)}`);
      expect(again.metrics).toEqual(run.metrics);
      expect(add).not.toHaveBeenCalled();
    } finally {
      add.mockRestore();
    }
  });

  test('after the end, editing an item and deleting an item run change nothing: the figures are those of the run as it ended', async () => {
    const run = await runToEnd({ evaluationSetId: setId, evaluationSetItemIds: [items.a, items.b] });
    expect(run.metrics).toMatchObject({ numFilesTotal: 2, numFilesProcessed: 2, accuracy: 0.8 });
    // The run copied the expected outputs at its start (spec 4): an edit afterwards is not scored ...
    await ok('POST', `/evaluation_sets/${setId}/items/${items.a}`, { expectedOutput: { value: { invoice_number: 'changed', total: 0, notes: null } } });
    try {
      // ... and an item run deleted after the end stays in the figures it was part of.
      const runs = await ok<{ data: Json[] }>('GET', `/extract_runs?batchId=${String(run.id)}&sortDir=asc`);
      await ok('DELETE', `/extract_runs/${String(runs.data[1].id)}`);
      const after = await ok<Json>('GET', `/evaluation_set_runs/${String(run.id)}`);
      expect(after.metrics).toEqual(run.metrics);
    } finally {
      await ok('POST', `/evaluation_sets/${setId}/items/${items.a}`, { expectedOutput: { value: { invoice_number: 'A-1', total: 10, notes: null } } });
    }
  });

  test('the internal event the legacy batch run emits: batch_processor_run.processed once; .failed when no item run was processed', async () => {
    const seen: SandboxEvent[] = [];
    const off = t.sb.onEvent((e) => {
      if (e.type.startsWith('batch_processor_run.')) seen.push(e);
    });
    const done = await runToEnd({ evaluationSetId: setId, evaluationSetItemIds: [items.a] });
    const failed = await runToEnd({ evaluationSetId: setId, evaluationSetItemIds: [items.c] });
    off();
    expect(failed.status).toBe('FAILED');
    expect(failed.metrics).toMatchObject({ numFilesTotal: 1, numFilesProcessed: 1, numPages: 0 });
    expect(seen).toEqual([
      { type: 'batch_processor_run.processed', batchProcessorRunId: done.id },
      { type: 'batch_processor_run.failed', batchProcessorRunId: failed.id },
    ]);
  });

  test('FAILED when no item run was processed: one failed, one cancelled (the legacy record ends the same)', async () => {
    t.sb.pauseEngine();
    const created = await ok<Json>('POST', '/evaluation_set_runs', { evaluationSetId: setId, evaluationSetItemIds: [items.a, items.c] });
    const runs = await ok<{ data: Json[] }>('GET', `/extract_runs?batchId=${String(created.id)}&sortDir=asc`);
    await ok('POST', `/extract_runs/${String(runs.data[0].id)}/cancel`);
    t.sb.resumeEngine();
    await t.sb.idle();
    const run = await ok<Json>('GET', `/evaluation_set_runs/${String(created.id)}`);
    expect(run.status).toBe('FAILED');
    expect(run.metrics).toMatchObject({ numFilesTotal: 2, numFilesProcessed: 2, numPages: 0 });
    expect(run.metrics).not.toHaveProperty('accuracy');
    const legacy = await call<{ batchProcessorRun: Json }>('GET', `/batch_processor_runs/${String(created.id)}`);
    expect(legacy.body.batchProcessorRun.status).toBe('FAILED');
  });

  test('an item subset, in the order given', async () => {
    const run = await runToEnd({ evaluationSetId: setId, evaluationSetItemIds: [items.b, items.a] });
    expect(run.metrics).toMatchObject({ numFilesTotal: 2, accuracy: 0.8 });
    const list = await ok<{ data: Json[] }>('GET', `/extract_runs?batchId=${String(run.id)}&sortDir=asc`);
    expect(list.data.map((r) => (r.metadata as Json).evaluationSetItemId)).toEqual([items.b, items.a]);
  });

  test('draft by default; entity.version picks latest or a published number', async () => {
    // Publish 1.0, then change the draft's schema: the draft lacks `notes`.
    const v1 = await ok<Json>('POST', `/extractors/${exId}/versions`, { releaseType: 'major' });
    const { notes: _n, ...rest } = EXTRACT_SCHEMA.properties;
    await ok('POST', `/extractors/${exId}`, { config: { schema: { type: 'object', properties: rest } } });
    const draft = await runToEnd({ evaluationSetId: setId, evaluationSetItemIds: [items.a] });
    expect(draft.entityVersion).toMatchObject({ version: 'draft' });
    expect(Object.keys((draft.metrics as Json).fieldMetrics as Json)).toEqual(['invoice_number', 'total', 'po_number']);
    const sameDraft = await runToEnd({ evaluationSetId: setId, entity: { id: exId }, evaluationSetItemIds: [items.a] });
    expect(sameDraft.entityVersion).toMatchObject({ version: 'draft' });
    for (const version of ['1.0', 'latest']) {
      const run = await runToEnd({ evaluationSetId: setId, entity: { id: exId, version }, evaluationSetItemIds: [items.a] });
      expect(run.entityVersion).toMatchObject({ object: 'extractor_version', id: v1.id, version: '1.0' });
      expect(Object.keys((run.metrics as Json).fieldMetrics as Json)).toContain('notes');
      const runs = await ok<{ data: Json[] }>('GET', `/extract_runs?batchId=${String(run.id)}`);
      expect(runs.data[0].extractorVersion).toMatchObject({ id: v1.id });
    }
    // Back to the first schema for the other tests.
    await ok('POST', `/extractors/${exId}`, { config: { schema: EXTRACT_SCHEMA } });
  });

  test('an item edited or deleted while the run is in flight: the run scores the copy taken at its start', async () => {
    const d = await file('d.txt', 'Invoice D-4', extract({ invoice_number: 'D-4', total: 40, po_number: null, notes: null }));
    const [item] = (await ok<{ evaluationSetItems: Json[] }>('POST', `/evaluation_sets/${setId}/items`, {
      items: [{ fileId: d, expectedOutput: { value: { invoice_number: 'D-4', total: 40, notes: null } } }],
    })).evaluationSetItems;
    t.sb.pauseEngine();
    const created = await ok<Json>('POST', '/evaluation_set_runs', { evaluationSetId: setId, evaluationSetItemIds: [items.a, item.id] });
    await ok('POST', `/evaluation_sets/${setId}/items/${items.a}`, { expectedOutput: { value: { invoice_number: 'changed', total: 0, notes: null } } });
    await ok('DELETE', `/evaluation_sets/${setId}/items/${String(item.id)}`);
    t.sb.resumeEngine();
    await t.sb.idle();
    const run = await ok<Json>('GET', `/evaluation_set_runs/${String(created.id)}`);
    expect(run.status).toBe('PROCESSED');
    expect(run.metrics).toMatchObject({ numFilesTotal: 2, numFilesProcessed: 2, accuracy: 1 });
    expect(((run.metrics as Json).fieldMetrics as Json).total).toEqual({ countTotal: 2, countPresent: 2, countExpected: 2, countAccurate: 2, accuracy: 1 });
    const legacy = await call<{ batchProcessorRun: { metrics: Json } }>('GET', `/batch_processor_runs/${String(created.id)}`);
    // The legacy metrics score the same copies: pairs with an expected or predicted value, a: 2 of 4
    // (po_number and the invented notes are wrong), d: 2 of 2 -> 4 / 6 (with the edited a and the
    // deleted d it would be 0 of 4).
    expect(legacy.body.batchProcessorRun.metrics).toMatchObject({ accuracyPerc: 66.67, numFiles: 2 });
    await ok('POST', `/evaluation_sets/${setId}/items/${items.a}`, { expectedOutput: { value: { invoice_number: 'A-1', total: 10, notes: null } } });
  });
});

describe('refusals: ApiError, nothing started', () => {
  const count = async (): Promise<number> => (await call<{ batchProcessorRuns: Json[] }>('GET', '/batch_processor_runs?maxPageSize=1000')).body.batchProcessorRuns.length;

  test.each([
    ['no evaluationSetId', {}, 400, 'evaluationSetId is required'],
    ['an unknown set', { evaluationSetId: 'ev_missing' }, 404, 'evaluationSetId ev_missing not found'],
    ['options', { evaluationSetId: 'SET', options: { excludeFields: ['total'] } }, 400, 'options cannot be set'],
    ['an unknown member', { evaluationSetId: 'SET', priority: 1 }, 400, 'priority is not a member of POST /evaluation_set_runs'],
    ['entity not an object', { evaluationSetId: 'SET', entity: 'EX' }, 400, 'entity must be an object'],
    ['an unknown entity', { evaluationSetId: 'SET', entity: { id: 'ex_missing' } }, 404, 'entity.id ex_missing not found'],
    ['a malformed version', { evaluationSetId: 'SET', entity: { id: 'EX', version: 'newest' } }, 400, 'entity.version must be "latest", "draft"'],
    ['an unpublished version', { evaluationSetId: 'SET', entity: { id: 'EX', version: '9.0' } }, 404, 'version 9.0 of extractor'],
    ['an empty item list', { evaluationSetId: 'SET', evaluationSetItemIds: [] }, 400, 'omit it to run every item'],
    ['an unknown item', { evaluationSetId: 'SET', evaluationSetItemIds: ['ITEM', 'evi_missing'] }, 404, 'evaluationSetItemIds[1]: evaluation set item evi_missing not found'],
    ['an item twice', { evaluationSetId: 'SET', evaluationSetItemIds: ['ITEM', 'ITEM'] }, 400, 'is listed twice'],
  ])('%s', async (_name, raw, status, message) => {
    const body = JSON.parse(JSON.stringify(raw).replaceAll('"SET"', JSON.stringify(setId)).replaceAll('"EX"', JSON.stringify(exId)).replaceAll('"ITEM"', JSON.stringify(items.a))) as Json;
    const before = await count();
    const r = await call<Json>('POST', '/evaluation_set_runs', body);
    expect(r.status).toBe(status);
    expect(Object.keys(r.body).sort()).toEqual(['code', 'message', 'requestId', 'retryable']);
    expect(r.body.code).toBe(status === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST');
    expect(r.body.message).toContain(message);
    expect(await count()).toBe(before);
  });

  test('an entity of another kind than the set\'s, an item of another set, an empty set', async () => {
    const cl = await ok<Json>('POST', '/classifiers', { name: 'other', config: { classifications: [{ id: 'x', type: 'x', description: 'x' }] } });
    const other = await ok<Json>('POST', '/evaluation_sets', { name: 'other', entityId: exId });
    const f = await file('other.txt', 'other', extract({}));
    const [foreign] = (await ok<{ evaluationSetItems: Json[] }>('POST', `/evaluation_sets/${String(other.id)}/items`, { items: [{ fileId: f, expectedOutput: { value: {} } }] })).evaluationSetItems;
    const empty = await ok<Json>('POST', '/evaluation_sets', { name: 'empty', entityId: exId });
    const before = await count();
    const kind = await call<Json>('POST', '/evaluation_set_runs', { evaluationSetId: setId, entity: { id: cl.id } });
    expect(kind.status).toBe(400);
    expect(kind.body.message).toBe(`entity.id ${String(cl.id)} is a classifier, but evaluation set ${setId} holds expected outputs for an extractor (${exId}); pass an extractor id, or omit entity to run ${exId}`);
    const moved = await call<Json>('POST', '/evaluation_set_runs', { evaluationSetId: setId, evaluationSetItemIds: [foreign.id] });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toBe(`evaluationSetItemIds[0]: item ${String(foreign.id)} belongs to evaluation set ${String(other.id)}, not ${setId}; remove it or run that set`);
    const none = await call<Json>('POST', '/evaluation_set_runs', { evaluationSetId: empty.id });
    expect(none.status).toBe(400);
    expect(none.body.message).toContain(`evaluation set ${String(empty.id)} has no items; add items (POST /evaluation_sets/${String(empty.id)}/items)`);
    expect(await count()).toBe(before);
  });

  test('GET: an id of another kind is a 404 naming its route; unknown ids; the legacy version', async () => {
    const run = await ok<Json>('POST', '/extract_runs', { extractor: { id: exId }, file: { text: 'x' } });
    const wrong = await call<Json>('GET', `/evaluation_set_runs/${String(run.id)}`);
    expect(wrong.status).toBe(404);
    expect(wrong.body.message).toBe(`evaluation set run ${String(run.id)} not found: it is an extract run; use /extract_runs/${String(run.id)}`);
    const batch = await ok<Json>('POST', '/extract_runs/batch', { extractor: { id: exId }, inputs: [{ file: { text: 'y' } }] });
    const notEval = await call<Json>('GET', `/evaluation_set_runs/${String(batch.id)}`);
    expect(notEval.status).toBe(404);
    expect(notEval.body.message).toBe(`evaluation set run ${String(batch.id)} not found: it is a batch run; use /batch_runs/${String(batch.id)}`);
    const missing = await call<Json>('GET', '/evaluation_set_runs/bpr_missing');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'NOT_FOUND', message: 'evaluation set run bpr_missing not found' });
    const legacy = await t.call<Json>('POST', '/evaluation_set_runs', { body: { evaluationSetId: setId } });
    expect(legacy.status).toBe(404);
    expect(legacy.body.success).toBe(false);
    await t.sb.idle();
  });
});

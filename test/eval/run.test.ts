import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { exportBatchRun, InterruptedError, runEvaluation, type EvalProgress } from '../../src/eval/index.js';
import { parseExport } from '../../src/report/index.js';
import { InputError, UsageError, type EvalkitError } from '../../src/util/errors.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';
import { CONFIGS, clientOf, expectedFor, recorder, seedSet, V2025, type SeededSet } from './helpers.js';

type Json = Record<string, unknown>;
const FAST = { pollIntervalMs: 10, maxPollIntervalMs: 50 };
/**
 * The strategies `batch` and `per-item`, `--config` and `--priority` are evalkit's own evaluation runs
 * on API 2025-04-21 (on 2026-02-09 the service runs the evaluation: run-2026.test.ts, and the tests
 * below that run on the default): the tests of them pin that version.
 */
const v25 = (s: TestSandbox, fetch?: Parameters<typeof clientOf>[1]) => clientOf(s, fetch, V2025);

let t: TestSandbox;
let ex: SeededSet;
beforeAll(async () => {
  t = await start();
  ex = await seedSet(t, 'EXTRACT', 5, { publish: true });
});
afterAll(() => t.close());

async function runsOf(query: string): Promise<Json[]> {
  const r = await t.call<{ processorRuns: Json[] }>('GET', `/processor_runs?maxPageSize=1000&${query}`);
  return r.body.processorRuns;
}

// 2025-04-21 (v25): --strategy batch, --priority and the batch processor run are that version's; exportBatchRun is version-agnostic.
describe('runEvaluation: batch strategy (the sandbox has POST /batch_processor_runs)', () => {
  test('one batch run; every item paired with its run; options recorded; schema-valid export', async () => {
    const phases: EvalProgress['phase'][] = [];
    const rec = recorder();
    const r = await runEvaluation(v25(t, rec.fetch), { evaluationSetId: ex.setId, fuzzyMatchFields: ['invoice_number'], excludeFields: ['paid'], priority: 20, ...FAST }, {
      onProgress: (p) => phases.push(p.phase),
    });
    expect(r.strategy).toBe('batch');
    expect(r.batchRunId).toMatch(/^bpr_/);
    expect(r.counts).toEqual({ items: 5, processed: 5, failed: 0, timedOut: 0 });
    const e = r.export;
    expect(e.processor).toMatchObject({ id: ex.processorId, name: 'extract processor', type: 'EXTRACT', version: '1.0' });
    expect(e.processor.config).toMatchObject({ type: 'EXTRACT', schema: CONFIGS.EXTRACT.schema });
    expect(e.processor.config.extractionRules).toBeUndefined(); // 1.0, not the draft
    expect(e.options).toEqual({ fuzzyMatchFields: ['invoice_number'], excludeFields: ['paid'] });
    expect(e.source).toMatchObject({ evaluationSetId: ex.setId, batchProcessorRunId: r.batchRunId });
    expect(e.items.map((i) => i.id)).toEqual(ex.itemIds);
    const runs = await runsOf(`batchProcessorRunId=${r.batchRunId}`);
    for (const [k, item] of e.items.entries()) {
      expect(item).toMatchObject({ fileId: ex.fileIds[k], fileName: `doc-${k + 1}.txt`, status: 'PROCESSED', expectedOutput: expectedFor('EXTRACT', k + 1) });
      const run = runs.find((x) => x.id === item.runId);
      expect(run).toMatchObject({ evaluationSetItemId: item.id, output: item.output, priority: 20 });
    }
    // The batch carries the options; the runs are read with one list call, not one GET per run.
    const batch = await t.call<{ batchProcessorRun: Json }>('GET', `/batch_processor_runs/${r.batchRunId}`);
    expect(batch.body.batchProcessorRun.options).toEqual({ fuzzyMatchFields: ['invoice_number'], excludeFields: ['paid'] });
    expect(rec.calls.filter((c) => c.method === 'GET' && /^\/processor_runs\/dpr_/.test(c.path))).toEqual([]);
    expect(rec.calls.filter((c) => c.path.startsWith('/processor_runs?'))).toHaveLength(1);
    expect(phases[0]).toBe('start');
    expect(phases).toContain('collect');
    expect(phases.at(-1)).toBe('done');
    await expect(parseExport(JSON.stringify(e), 'x.json')).resolves.toBeTruthy();
  });

  test('1,001 runs are read in two pages, paired with their items', async () => {
    const set = await t.call<{ evaluationSet: { id: string } }>('POST', '/evaluation_sets', { body: { name: 'large', processorId: ex.processorId } });
    const setId = set.body.evaluationSet.id;
    for (const [from, n] of [[0, 1000], [1000, 1]]) {
      const items = Array.from({ length: n }, (_, k) => ({ fileId: ex.fileIds[(from + k) % ex.fileIds.length], expectedOutput: expectedFor('EXTRACT', from + k) }));
      expect((await t.call('POST', '/evaluation_set_items/bulk', { body: { evaluationSetId: setId, items } })).status).toBe(200);
    }
    const rec = recorder();
    const r = await runEvaluation(v25(t, rec.fetch), { evaluationSetId: setId, ...FAST });
    expect(r.counts).toMatchObject({ items: 1001, processed: 1001 });
    expect(rec.calls.filter((c) => c.path.startsWith('/processor_runs?'))).toHaveLength(2);
    expect(rec.calls.filter((c) => /^\/processor_runs\/dpr_/.test(c.path))).toEqual([]);
    expect(new Set(r.export.items.map((i) => i.runId)).size).toBe(1001);
    expect(r.export.items.map((i) => i.expectedOutput)).toEqual(Array.from({ length: 1001 }, (_, k) => expectedFor('EXTRACT', k)));
  });

  test('exportBatchRun of the same batch gives the same items', async () => {
    const r = await runEvaluation(clientOf(t), { evaluationSetId: ex.setId, version: 'draft', ...FAST });
    const again = await exportBatchRun(clientOf(t), r.batchRunId as string);
    expect(again.export.items).toEqual(r.export.items);
    expect(again.export.processor).toEqual(r.export.processor);
    expect(again.export.processor.version).toBe('draft');
    expect(again.counts).toEqual(r.counts);
  });

  test('--config with --strategy batch is refused before anything runs', async () => {
    const before = (await runsOf(`sourceId=${ex.setId}`)).length;
    await expect(runEvaluation(v25(t), { evaluationSetId: ex.setId, strategy: 'batch', config: CONFIGS.EXTRACT })).rejects.toThrow(/--config cannot be used with --strategy batch/);
    expect((await runsOf(`sourceId=${ex.setId}`)).length).toBe(before);
  });
});

// 2025-04-21 (v25): per-item runs and --config overrides exist on that version only (2026-02-09 refuses them: run-2026.test.ts).
describe('runEvaluation: per-item strategy', () => {
  test('a config override is sent with every run and recorded as the export\'s config', async () => {
    const override = { ...CONFIGS.EXTRACT, extractionRules: 'candidate rules' };
    const notices: string[] = [];
    const r = await runEvaluation(v25(t), { evaluationSetId: ex.setId, version: '1.0', config: override, concurrency: 2, priority: 7, ...FAST }, { onNotice: (m) => notices.push(m) });
    expect(r.strategy).toBe('per-item');
    expect(r.batchRunId).toBeNull();
    expect(notices.join('\n')).toMatch(/one processor run per item/);
    expect(r.export.processor).toMatchObject({ version: '1.0', config: { extractionRules: 'candidate rules' } });
    expect(r.counts.processed).toBe(5);
    for (const item of r.export.items) {
      const run = (await t.call<{ processorRun: Json }>('GET', `/processor_runs/${item.runId}`)).body.processorRun;
      expect(run).toMatchObject({ status: 'PROCESSED', priority: 7, config: { extractionRules: 'candidate rules' }, metadata: { evaluationSetId: ex.setId, evaluationSetItemId: item.id } });
      expect(run.processorVersion).toBe('1.0');
      expect(item.output).toEqual(run.output);
    }
  });

  test('auto falls back to per-item runs when the service has no batch endpoint (404); batch then says why', async () => {
    const rec = recorder((m, p) => (m === 'POST' && p === '/batch_processor_runs' ? new Response('{"success":false,"error":"not found"}', { status: 404 }) : undefined));
    const notices: string[] = [];
    const r = await runEvaluation(v25(t, rec.fetch), { evaluationSetId: ex.setId, ...FAST }, { onNotice: (m) => notices.push(m) });
    expect(r.strategy).toBe('per-item');
    expect(notices.join('\n')).toMatch(/cannot start evaluation runs \(POST \/batch_processor_runs: 404\)/);
    expect(r.counts).toMatchObject({ items: 5, processed: 5 });
    expect(rec.calls.filter((c) => c.method === 'POST' && c.path === '/processor_runs')).toHaveLength(5);
    await expect(runEvaluation(v25(t, rec.fetch), { evaluationSetId: ex.setId, strategy: 'batch' })).rejects.toThrow(/no POST \/batch_processor_runs \(404\)/);
  });

  test('on 2026-02-09 (the default) --config makes the runs on the legacy routes it kept: set and items on its routes, no evaluation set run', async () => {
    const rec = recorder();
    // A 2026-02-09-layout override (no `type` inside): sent to /processor_runs in the 2025-04-21 layout.
    const override: Json = { ...CONFIGS.EXTRACT, extractionRules: 'candidate rules 2026' };
    delete override.type;
    const notices: string[] = [];
    const r = await runEvaluation(clientOf(t, rec.fetch), { evaluationSetId: ex.setId, version: '1.0', config: override, concurrency: 2, ...FAST }, { onNotice: (m) => notices.push(m) });
    expect(r).toMatchObject({ strategy: 'per-item', batchRunId: null, counts: { items: 5, processed: 5 } });
    expect(notices.join('\n')).toMatch(/one processor run per item, each with the override \(the evaluation set run takes no config\)/);
    expect(r.export.processor).toMatchObject({ id: ex.processorId, type: 'EXTRACT', version: '1.0', config: { type: 'EXTRACT', extractionRules: 'candidate rules 2026' } });
    const posts = rec.calls.filter((c) => c.method === 'POST').map((c) => c.path);
    expect(posts).toEqual(new Array<string>(5).fill('/processor_runs'));
    expect(rec.calls.some((c) => c.path.startsWith(`/evaluation_sets/${ex.setId}/items`))).toBe(true);
    expect(rec.calls.some((c) => c.path.startsWith(`/processors/${ex.processorId}/versions`))).toBe(true);
    for (const item of r.export.items) {
      const run = (await t.call<{ processorRun: Json }>('GET', `/processor_runs/${item.runId}`)).body.processorRun;
      expect(run).toMatchObject({ status: 'PROCESSED', processorVersion: '1.0', config: { extractionRules: 'candidate rules 2026' }, metadata: { evaluationSetId: ex.setId, evaluationSetItemId: item.id } });
      expect(item.output).toEqual(run.output);
    }
    // The same items, expected outputs and outputs as the same evaluation on 2025-04-21.
    const old = await runEvaluation(v25(t), { evaluationSetId: ex.setId, version: '1.0', config: override, ...FAST });
    const strip = (items: typeof r.export.items) => items.map(({ runId: _r, durationMs: _d, ...rest }) => rest);
    expect(strip(r.export.items)).toEqual(strip(old.export.items));
  });

  test('a config of another processor type is an input error naming /type', async () => {
    const err = await runEvaluation(v25(t), { evaluationSetId: ex.setId, config: CONFIGS.CLASSIFY, configFile: 'cand.json' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).describe()).toMatch(/cand\.json at \/type: the config is for a CLASSIFY processor, but the evaluation set's processor is EXTRACT/);
  });
});

// 2025-04-21 (v25): the strategies batch and per-item; a failed item run on 2026-02-09: run-2026.test.ts and test/e2e/eval.test.ts.
describe('failed runs are kept', () => {
  for (const strategy of ['batch', 'per-item'] as const) {
    test(`${strategy}: FAILED with output null and the failure reason; counts agree with the service`, async () => {
      // Ids seeded: the engine draws each run's failure by item id (random ids could fail none or all).
      const f = await start({ engine: 'simulate:3,0,0.5', idSeed: `failed-${strategy}` });
      try {
        const s = await seedSet(f, 'CLASSIFY', 12);
        const r = await runEvaluation(v25(f), { evaluationSetId: s.setId, strategy, ...FAST });
        const failed = r.export.items.filter((i) => i.status !== 'PROCESSED');
        expect(failed.length).toBeGreaterThan(0);
        expect(failed.length).toBeLessThan(12);
        for (const i of failed) expect(i).toMatchObject({ status: 'FAILED', output: null, failureReason: 'SIMULATED_FAILURE', runId: expect.stringMatching(/^dpr_/) });
        for (const i of r.export.items.filter((x) => x.status === 'PROCESSED')) expect(i.output).not.toBeNull();
        const runs = (await f.call<{ processorRuns: Json[] }>('GET', `/processor_runs?maxPageSize=1000&status=FAILED`)).body.processorRuns;
        expect(runs.map((x) => x.id).sort()).toEqual(failed.map((i) => i.runId).sort());
        expect(r.counts).toEqual({ items: 12, processed: 12 - failed.length, failed: failed.length, timedOut: 0 });
      } finally {
        await f.close();
      }
    });
  }
});

describe('version resolution and inputs', () => {
  test.each([
    ['draft', 'draft', 'draft rules'],
    ['latest', '1.0', undefined],
    ['1.0', '1.0', undefined],
    ['1', '1.0', undefined],
  ])('--version %s runs %s', async (ref, label, rules) => {
    const r = await runEvaluation(clientOf(t), { evaluationSetId: ex.setId, version: ref, ...FAST });
    expect(r.export.processor.version).toBe(label);
    expect(r.export.processor.config.extractionRules).toBe(rules);
    const versions = new Set((await runsOf(`batchProcessorRunId=${r.batchRunId}`)).map((x) => x.processorVersion));
    expect([...versions]).toEqual([label]);
  });

  test('latest is the draft when nothing is published', async () => {
    const s = await seedSet(t, 'SPLITTER', 1);
    expect((await runEvaluation(clientOf(t), { evaluationSetId: s.setId, ...FAST })).export.processor.version).toBe('draft');
  });

  test('an unknown version names itself and the versions there are', async () => {
    const e = (await runEvaluation(clientOf(t), { evaluationSetId: ex.setId, version: '9.9' }).catch((x: unknown) => x)) as EvalkitError;
    expect(e).toBeInstanceOf(InputError);
    expect(e.describe()).toMatch(/has no version "9\.9"[\s\S]*available: 1\.0, draft/);
    await expect(runEvaluation(clientOf(t), { evaluationSetId: ex.setId, version: 'newest' })).rejects.toThrow(/--version "newest" is not a version/);
  });

  test('an unknown set is exit 2 with a hint; an empty set is refused', async () => {
    const e = (await runEvaluation(clientOf(t), { evaluationSetId: 'ev_missing' }).catch((x: unknown) => x)) as EvalkitError;
    expect(e.exitCode).toBe(2);
    expect(e.describe()).toMatch(/evaluation set "ev_missing" not found[\s\S]*hint: check --evaluation-set/);
    const empty = await t.call<{ evaluationSet: { id: string } }>('POST', '/evaluation_sets', { body: { name: 'empty', processorId: ex.processorId } });
    await expect(runEvaluation(clientOf(t), { evaluationSetId: empty.body.evaluationSet.id })).rejects.toThrow(/has no items; nothing to evaluate/);
  });

  test.each([
    [{ concurrency: 0 }, /--concurrency must be an integer from 1 to 256/],
    [{ priority: 101 }, /--priority must be an integer from 1 to 100/],
    [{ timeoutMs: 0 }, /--timeout must be a positive duration/],
    [{ excludeFields: ['a', ' '] }, /--exclude-fields: a field path is empty/],
  ])('bad option %j', async (o, msg) => {
    await expect(runEvaluation(clientOf(t), { evaluationSetId: ex.setId, ...o })).rejects.toThrow(UsageError);
    await expect(runEvaluation(clientOf(t), { evaluationSetId: ex.setId, ...o })).rejects.toThrow(msg);
  });
});

describe('timeouts and interruption', () => {
  let slow: TestSandbox;
  let s: SeededSet;
  beforeAll(async () => {
    slow = await start();
    s = await seedSet(slow, 'EXTRACT', 3);
  });
  afterAll(() => slow.close());

  test('per-item: runs not ended at the timeout are exported as TIMEOUT with their last status', async () => {
    slow.sb.pauseEngine();
    try {
      const r = await runEvaluation(v25(slow), { evaluationSetId: s.setId, strategy: 'per-item', timeoutMs: 300, ...FAST });
      expect(r.counts).toEqual({ items: 3, processed: 0, failed: 3, timedOut: 3 });
      for (const i of r.export.items) expect(i).toMatchObject({ status: expect.stringMatching(/^(PENDING|PROCESSING)$/), output: null, failureReason: 'TIMEOUT', runId: expect.stringMatching(/^dpr_/) });
      expect(r.notices.join('\n')).toMatch(/3 items had not finished when the timeout passed/);
    } finally {
      slow.sb.resumeEngine();
      await slow.sb.idle();
    }
  });

  test.each([
    // The default: the service's evaluation set run (2026-02-09).
    ['the evaluation set run', undefined, /evaluation set run (bpr_\S+) did not finish within 0\.3 s; nothing was written[\s\S]*evalkit eval export \1 --wait/],
    ['2025-04-21 batch', V2025, /batch processor run (bpr_\S+) did not finish within 0\.3 s; nothing was written[\s\S]*evalkit eval export --batch-run \1 --wait/],
  ])('%s: a timeout writes nothing and says how to export the run later', async (_name, version, message) => {
    slow.sb.pauseEngine();
    try {
      const e = (await runEvaluation(clientOf(slow, undefined, version), { evaluationSetId: s.setId, timeoutMs: 300, ...FAST }).catch((x: unknown) => x)) as EvalkitError;
      expect(e.exitCode).toBe(2);
      expect(e.describe()).toMatch(message);
    } finally {
      slow.sb.resumeEngine();
      await slow.sb.idle();
    }
  });

  // auto on the default is the evaluation set run (2026-02-09); batch and per-item are 2025-04-21's.
  for (const [strategy, version, message] of [
    ['auto', undefined, /evaluation set run bpr_\S+ keeps running/],
    ['batch', V2025, /batch processor run bpr_\S+ keeps running/],
    ['per-item', V2025, /runs? already created keep going/],
  ] as const) {
    test(`${strategy}${version ? ` (${version})` : ''}: aborting stops waiting with an InterruptedError (exit 1)`, async () => {
      slow.sb.pauseEngine();
      const ac = new AbortController();
      try {
        const p = runEvaluation(clientOf(slow, undefined, version), { evaluationSetId: s.setId, strategy, ...FAST }, {
          signal: ac.signal,
          onProgress: (x) => {
            if (x.phase === 'wait' && (x.created > 0 || x.batchRunId)) ac.abort(new Error('stop'));
          },
        });
        const e = (await p.catch((x: unknown) => x)) as EvalkitError;
        expect(e).toBeInstanceOf(InterruptedError);
        expect(e.exitCode).toBe(1);
        expect(e.message).toMatch(message);
      } finally {
        slow.sb.resumeEngine();
        await slow.sb.idle();
      }
    });
  }
});

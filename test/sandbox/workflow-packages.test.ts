/**
 * A 2026-02-09 workflow run of a `package` (WorkflowRunPackage: "every file is ingested up front,
 * and the workflow's steps reason over the full set, producing a single WorkflowRun"): every step
 * reads every file of the package, their pages in order, and every step's run names all the files;
 * seen through both API versions. Duplicates are refused.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { parseEngine, type Engine, type EngineInput } from '../../src/sandbox/engine/index.js';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, SPLITTER_CONFIG, createProcessor, start, uploadText, type TestSandbox } from './helpers.js';

type Json = Record<string, unknown>;
const V26 = '2026-02-09';

/** The simulate engine, recording what each run was given. */
const seen: Array<Pick<EngineInput, 'processorType' | 'pages'>> = [];
const simulate = parseEngine('simulate:7,0');
const engine: Engine = {
  spec: 'recording',
  run(input) {
    seen.push({ processorType: input.processorType, pages: input.pages });
    return simulate.run(input);
  },
};

let t: TestSandbox;
let wfId: string;
let a: string;
let b: string;
const call = <T = Json>(method: string, path: string, body?: unknown) => t.call<T>(method, path, { version: V26, ...(body === undefined ? {} : { body }) });

beforeAll(async () => {
  t = await start({ engine, engineDelayMs: 1 });
  const extract = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG, 'fields');
  const classify = await createProcessor(t, 'CLASSIFY', CLASSIFY_CONFIG, 'kind');
  const split = await createProcessor(t, 'SPLITTER', SPLITTER_CONFIG, 'packet');
  const wf = await call<Json>('POST', '/workflows', {
    name: 'packets',
    steps: [
      { type: 'CLASSIFY', name: 'Classify', config: { classifier: { id: classify, version: 'draft' } } },
      { type: 'SPLIT', name: 'Split', config: { splitter: { id: split, version: 'draft' } } },
      { type: 'EXTRACT', name: 'Extract', config: { extractor: { id: extract, version: 'draft' } } },
    ],
  });
  expect(wf.status).toBe(200);
  wfId = String(wf.body.id);
  a = await uploadText(t, 'a.txt', 'Invoice number: A-1');
  b = await uploadText(t, 'b.txt', 'Receipt for B-2');
});
afterAll(() => t?.close());
beforeEach(() => {
  seen.length = 0;
});

async function packageRun(): Promise<string> {
  const r = await call<Json>('POST', '/workflow_runs', { workflow: { id: wfId, version: 'draft' }, package: { files: [{ id: a }, { id: b }] } });
  expect(r.status).toBe(200);
  await t.sb.idle();
  return String(r.body.id);
}

describe('every file of a package goes through every step', () => {
  test('the engine reads both files, their pages in order, in each of the three steps', async () => {
    await packageRun();
    expect(seen.map((s) => s.processorType)).toEqual(['CLASSIFY', 'SPLITTER', 'EXTRACT']);
    for (const s of seen) expect(s.pages).toEqual(['Invoice number: A-1', 'Receipt for B-2']);
  });

  test('2026-02-09: each StepRun and its run name both files (file: null, as a multi-file run)', async () => {
    const id = await packageRun();
    const run = (await call<Json & { stepRuns: Json[] }>('GET', `/workflow_runs/${id}`)).body;
    expect(run.status).toBe('PROCESSED');
    expect((run.files as Json[]).map((f) => f.id)).toEqual([a, b]);
    expect(run.stepRuns.map((s) => [s.stepType, s.status, (s.files as Json[]).map((f) => f.id)])).toEqual([
      ['CLASSIFY', 'PROCESSED', [a, b]],
      ['SPLIT', 'PROCESSED', [a, b]],
      ['EXTRACT', 'PROCESSED', [a, b]],
    ]);
    const [classify, split, extract] = run.stepRuns.map((s) => s.result as Json);
    expect((classify.classifyRun as Json).file).toBeNull();
    expect((split.splitRun as Json).file).toBeNull();
    const extractRun = extract.extractRun as Json;
    expect(extractRun.file).toBeNull();
    expect((extractRun.files as Json[]).map((f) => f.id)).toEqual([a, b]);
    // The split step's sub-documents span the package's pages: 2 pages, not the first file's 1.
    const splits = ((split.splitRun as Json).output as { splits: Array<{ startPage: number; endPage: number }> }).splits;
    expect(Math.max(...splits.map((s) => s.endPage))).toBe(2);
  });

  test('2025-04-21: every output (ProcessorRun) lists both files; its processor run too', async () => {
    const id = await packageRun();
    const r = await t.call<{ workflowRun: Json & { outputs: Json[] } }>('GET', `/workflow_runs/${id}`);
    expect(r.status).toBe(200);
    const run = r.body.workflowRun;
    expect((run.files as Json[]).map((f) => f.id)).toEqual([a, b]);
    expect(run.outputs.map((o) => [o.type, (o.files as Json[]).map((f) => f.id)])).toEqual([
      ['CLASSIFY', [a, b]],
      ['SPLITTER', [a, b]],
      ['EXTRACT', [a, b]],
    ]);
    const pr = await t.call<{ processorRun: Json }>('GET', `/processor_runs/${String(run.outputs[2].id)}`);
    expect((pr.body.processorRun.files as Json[]).map((f) => f.id)).toEqual([a, b]);
  });
});

describe('each file of a package appears once', () => {
  test.each([
    ['the same id', [{ id: 'file_aaaaaaaaaaaaaaaaaaaa' }, { id: 'file_bbbbbbbbbbbbbbbbbbbb' }, { id: 'file_aaaaaaaaaaaaaaaaaaaa' }], /^package\.files\[2\] repeats package\.files\[0\] \(the same id\); each file of a package may appear only once$/],
    ['the same URL', [{ url: 'http://127.0.0.1:9/x.txt' }, { url: 'http://127.0.0.1:9/x.txt', name: 'y.txt' }], /^package\.files\[1\] repeats package\.files\[0\] \(the same url\)/],
  ])('%s: 400, nothing started', async (_name, files, message) => {
    const before = (await call<{ data: Json[] }>('GET', `/workflow_runs?workflowId=${wfId}`)).body.data.length;
    const r = await call<Json>('POST', '/workflow_runs', { workflow: { id: wfId }, package: { files } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(message) });
    expect((await call<{ data: Json[] }>('GET', `/workflow_runs?workflowId=${wfId}`)).body.data).toHaveLength(before);
  });
});

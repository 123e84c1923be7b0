import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { HOT_AFTER, isCompiled, precompile, validate } from '../../src/api/fastValidate.js';
import { ApiError, createClient, envelopes } from '../../src/api/index.js';
import { fx, instantClock, startScripted, type ScriptedServer } from './helpers.js';

const ts = '2025-05-01T00:00:00.000Z';
const full = {
  run: fx.run({
    status: 'PROCESSED', output: { value: { total: 1 } }, initialOutput: { value: {} }, reviewedOutput: null, failureReason: null,
    processorVersionId: 'dpv_1', metadata: { k: [1, 'a'] }, reviewed: false, edited: true,
    edits: { total: { originalValue: 1, editedValue: 2, fieldType: 'number', notes: null } }, type: 'EXTRACT',
    config: { type: 'EXTRACT', schema: {} }, files: [{ object: 'file', id: 'file_1', name: 'a.pdf' }], url: 'u', batchProcessorRunId: null,
    createdAt: ts, updatedAt: null,
  }),
  batch: fx.batch({
    status: 'PROCESSED', endedRunCount: 2, options: { fuzzyMatchFields: ['a'], excludeFields: [], clearPreProcessingCache: true },
    metrics: {
      numFiles: 2, meanRunTimeMs: null, accuracyPerc: 50, distribution: { a: 1 }, confusionMatrix: { a: { b: 1 } },
      fieldMetrics: { total: { recallPerc: 1, precisionPerc: null, fieldMetrics: { inner: { meanConfidence: 0.5 } } } },
    },
  }),
  file: fx.file({
    presignedUrl: null, parentFileId: 'file_0', contents: { rawText: 't', pages: [{ pageNumber: 1, markdown: 'm' }] },
    metadata: { parentSplit: { id: 's', startPage: 1, endPage: 2, identifier: null } },
  }),
  workflowRun: fx.workflowRun({
    name: null, metadata: {}, files: [{ name: 'a.pdf' }], outputs: [{ object: 'document_processor_run', id: 'dpr_1', type: 'CLASSIFY', output: {} }],
    workflow: { id: 'wf_1', version: '1' }, batchId: null, startTime: ts,
  }),
};

/** One valid body per envelope (the list envelopes with two items). */
const bodies: Array<[keyof typeof envelopes, unknown]> = [
  ['workflowRun', { success: true, workflowRun: full.workflowRun }],
  ['workflowRunList', { success: true, workflowRuns: [full.workflowRun, fx.workflowRun()], nextPageToken: null }],
  ['workflowRunCreate', { success: true, workflowRuns: [full.workflowRun] }],
  ['workflowBatch', { success: true, batchId: 'b' }],
  ['processorRun', { success: true, processorRun: full.run }],
  ['processorRunList', { success: true, processorRuns: [full.run, fx.run()], nextPageToken: 'n' }],
  ['processor', { success: true, processor: fx.processor({ draftVersion: { id: 'dpv_1', version: 'draft', config: { type: 'EXTRACT' } } }) }],
  ['processorList', { success: true, processors: [fx.processor()] }],
  ['processorVersionPublished', { success: true, processorVersion: fx.version() }],
  ['processorVersion', { success: true, version: fx.version() }],
  ['processorVersionList', { success: true, versions: [fx.version(), fx.version({ version: 'draft' })] }],
  ['file', { success: true, file: full.file }],
  ['fileList', { success: true, files: [full.file, fx.file()] }],
  ['evaluationSet', { success: true, evaluationSet: fx.evaluationSet({ description: null }) }],
  ['evaluationSetList', { success: true, evaluationSets: [fx.evaluationSet()] }],
  ['evaluationSetItem', { success: true, evaluationSetItem: fx.item() }],
  ['evaluationSetItemList', { success: true, evaluationSetItems: [fx.item(), fx.item()] }],
  ['batchProcessorRun', { success: true, batchProcessorRun: full.batch }],
  ['batchProcessorRunList', { success: true, batchProcessorRuns: [full.batch, fx.batch()] }],
  ['deleted', { success: true, id: 'x' }],
];

type Path = Array<string | number>;

function paths(v: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v !== null && typeof v === 'object') for (const k of Object.keys(v)) paths((v as Record<string, unknown>)[k], [...at, k], out);
  return out;
}

const DELETE = Symbol('delete');

/** A copy of `body` with the value at `path` replaced (or the member deleted). */
function mutate(body: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(body);
  if (path.length === 0) return value === DELETE ? null : value;
  let parent = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (value === DELETE) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = value;
  return copy;
}

describe('the client once validation is compiled', () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  // Runs first in this file: nothing is compiled yet.
  test(`after ${HOT_AFTER} answers a malformed body is still refused, with zod's message`, async () => {
    let bad = false;
    server = await startScripted(() => ({ body: { success: true, processorRun: bad ? fx.run({ status: 'DONE' }) : fx.run() } }));
    const client = createClient({ baseUrl: server.url, token: 't', clock: instantClock(), maxRetries: 0 });
    expect(isCompiled(envelopes.processorRun)).toBe(false);
    for (let i = 0; i < HOT_AFTER; i++) await client.processorRuns.get('dpr_1');
    await precompile(envelopes.processorRun); // the compile started at the HOT_AFTER-th answer; wait for it
    expect(isCompiled(envelopes.processorRun)).toBe(true);
    expect((await client.processorRuns.get('dpr_1')).status).toBe('PROCESSING');
    bad = true;
    const e = await client.processorRuns.get('dpr_1').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).kind).toBe('invalid-response');
    expect((e as ApiError).message).toBe(
      'GET /processor_runs/dpr_1: response does not match the resource model: /processorRun/status: Invalid option: expected one of "PENDING"|"PROCESSING"|"PROCESSED"|"FAILED"|"CANCELLED"',
    );
  });
});

describe('compiled response validation', () => {
  beforeAll(async () => {
    for (const [name] of bodies) await precompile(envelopes[name]);
  });

  test.each(bodies)('%s: every envelope compiles, and a valid body comes back as zod returns it', (name, body) => {
    const schema = envelopes[name];
    expect(isCompiled(schema)).toBe(true);
    const r = validate(schema, body);
    expect(r.success).toBe(true);
    expect(r.success && r.data).toEqual(schema.parse(body));
  });

  test('on mutated bodies of every envelope, the compiled check accepts only what zod accepts, and returns what zod returns', () => {
    const mutation = fc
      .integer({ min: 0, max: bodies.length - 1 })
      .chain((i) => {
        const all = paths(bodies[i][1]);
        return fc.tuple(
          fc.constant(i),
          fc.constantFrom(...all),
          fc.oneof(
            fc.constant<unknown>(DELETE),
            fc.jsonValue(),
            fc.constantFrom<unknown>(null, '', 0, 1.5, -1, true, false, [], {}, 'PROCESSED', 'DONE', 'file', 'EXTRACT', [null], { type: 'EXTRACT' }),
          ),
        );
      });
    fc.assert(
      fc.property(mutation, ([i, path, value]) => {
        const [name, body] = bodies[i];
        const schema = envelopes[name];
        const mutated = mutate(body, path, value);
        const zod = schema.safeParse(mutated);
        const fast = validate(schema, mutated);
        expect(fast.success).toBe(zod.success);
        if (zod.success && fast.success) expect(fast.data).toEqual(zod.data);
      }),
      { numRuns: 3000, seed: 19 },
    );
  });
});

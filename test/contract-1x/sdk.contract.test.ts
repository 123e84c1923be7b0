/**
 * The official SDK 1.17 (npm extend-ai@1.17.0 under the alias extend-ai-1, API 2026-02-09)
 * against `evalkit sandbox`, as a user would point it: `new ExtendClient({ baseUrl, token })`,
 * no other client or request options (the SDK sends `x-extend-api-version: 2026-02-09` itself).
 *
 * Every public method of the client but parse, edit and form detection is called, in the order
 * evalkit's flows need them (spec 2026-02-09, 5.1): files; extractors, classifiers, splitters and
 * their versions; runs (async, sync, createAndPoll, cancel, batch, batch runs); evaluation sets,
 * items and runs; the legacy processor endpoints; workflows, workflow versions and runs; webhook
 * endpoints and subscriptions. Each answer is checked at run time against JSON Schema generated
 * from the SDK's own .d.ts; each method is also called with a bad token (401) and, when it takes
 * an id, with unknown ids (404), and must throw the SDK's typed error with an `ApiError` body;
 * 400 and 429 are checked on one method each.
 *
 * The sandbox does not serve all of 2026-02-09 yet, so the suite is a ratchet (ratchet.ts):
 * KNOWN_GAPS (known-gaps.ts) lists the methods expected to fail; every other method must pass,
 * and a listed method that passes fails the suite until it is removed from the list.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ExtendClient, ExtendError, type Extend } from 'extend-ai-1';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { ROOT, type ResponseChecker } from '../helpers/sdk-schema.js';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, SPLITTER_CONFIG } from '../sandbox/helpers.js';
import { KNOWN_GAPS } from './known-gaps.js';
import { describeOutcome, HAPPY, judge, outcomeOf, tallyLine, worse, type Outcome } from './ratchet.js';
import { DECLARED, excludedBecause, reflectedMethods, RESPONSE_TYPES, responseChecker } from './sdk-schemas.js';

let sb: SandboxHandle;
let client: ExtendClient;
let checker: ResponseChecker<string>;
let hook: Server;
let hookUrl: string;

const EXPECTED = Object.keys(RESPONSE_TYPES);
/** method -> check (HAPPY, '401', '404', ...) -> outcome; a check run twice keeps its worse outcome. */
const checks = new Map<string, Map<string, Outcome>>();
function record(method: string, check: string, o: Outcome): void {
  const c = checks.get(method) ?? new Map<string, Outcome>();
  c.set(check, worse(c.get(check), o));
  checks.set(method, c);
}

/** What an error looked like, in one line (the SDK's class, status and body, or the first lines of a failed check). */
function describeError(e: unknown): string {
  if (e instanceof ExtendError) return `${e.constructor.name} ${e.statusCode ?? ''} ${JSON.stringify(e.body)?.slice(0, 240) ?? ''}`.trim();
  return String(e instanceof Error ? e.message : e).split('\n').slice(0, 4).join(' | ').slice(0, 400);
}

/** Inputs a call may need, and the method that makes each (its id is taken from that method's answer). */
const MAKERS = {
  file: 'files.upload',
  extractor: 'extractors.create',
  extractorVersion: 'extractorVersions.create',
  classifier: 'classifiers.create',
  classifierVersion: 'classifierVersions.create',
  splitter: 'splitters.create',
  splitterVersion: 'splitterVersions.create',
  extractRun: 'extractRuns.create',
  classifyRun: 'classifyRuns.create',
  splitRun: 'splitRuns.create',
  extractBatch: 'extractRuns.createBatch',
  classifyBatch: 'classifyRuns.createBatch',
  splitBatch: 'splitRuns.createBatch',
  evaluationSet: 'evaluationSets.create',
  evaluationSetItem: 'evaluationSetItems.create',
  evaluationSetRun: 'evaluationSetRuns.create',
  processor: 'processor.create',
  processorVersion: 'processorVersion.create',
  processorRun: 'processorRun.create',
  workflow: 'workflows.create',
  workflowVersion: 'workflowVersions.create',
  workflowRun: 'workflowRuns.create',
  workflowBatch: 'workflowRuns.createBatch',
  webhookEndpoint: 'webhookEndpoints.create',
  webhookSubscription: 'webhookSubscriptions.create',
} as const;
type Input = keyof typeof MAKERS;
const made: Partial<Record<Input, string>> = {};

interface Step<T> {
  /** Inputs the call needs; when one is missing the call is not sent and counts as "needs <maker>". */
  needs?: Input[];
  /** The input this call makes, read from its answer. */
  makes?: [Input, (data: T) => unknown];
  /** Assertions on the answer beyond its type. */
  then?: (data: T) => void | Promise<void>;
}

/** One happy-path call of `method`: sent unless an input is missing, the answer checked against the 1.17 type, then `then`. */
async function call<T>(method: string, run: (v: Record<Input, string>) => Promise<T>, step: Step<T> = {}): Promise<T | undefined> {
  const missing = (step.needs ?? []).find((n) => made[n] === undefined);
  if (missing) {
    record(method, HAPPY, { kind: 'needs', method: MAKERS[missing] });
    return undefined;
  }
  let data: T;
  try {
    data = await run(made as Record<Input, string>);
  } catch (e) {
    record(method, HAPPY, { kind: 'fail', reason: describeError(e) });
    return undefined;
  }
  if (step.makes) {
    const id = step.makes[1](data);
    if (typeof id === 'string' && id !== '') made[step.makes[0]] = id;
  }
  try {
    checker.check(method, data);
    await step.then?.(data);
    record(method, HAPPY, { kind: 'pass' });
  } catch (e) {
    record(method, HAPPY, { kind: 'fail', reason: describeError(e) });
  }
  return data;
}

/** Runs `fn` with the engine paused (runs stay PROCESSING, so they can be cancelled). */
async function paused<T>(fn: () => Promise<T>): Promise<T> {
  sb.pauseEngine();
  try {
    return await fn();
  } finally {
    sb.resumeEngine();
  }
}

const INVOICE_TEXT = 'Invoice number: INV-7\nTotal: 120.50\nPaid: no\n';
const { type: _e, ...EXTRACT_CONFIG } = INVOICE_CONFIG;
const { type: _c, ...CLASSIFY } = CLASSIFY_CONFIG;
const { type: _s, ...SPLIT } = SPLITTER_CONFIG;
const EXTRACT = EXTRACT_CONFIG as Extend.ExtractConfigJson;
const CLASSIFY_1X = CLASSIFY as Extend.ClassifyConfig;
const SPLIT_1X = SPLIT as Extend.SplitConfig;
const POLL = { maxWaitMs: 5_000 };
/**
 * Per test: a sandbox half way to 2026-02-09 may answer 5xx (the SDK retries each twice, about
 * 3 s) or leave runs unfinished (createAndPoll gives up after POLL.maxWaitMs); both must end as
 * recorded failures, not as a timed-out test.
 */
const SLOW = { timeout: 180_000 };

beforeAll(async () => {
  hook = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  [checker, sb] = await Promise.all([responseChecker(), startSandbox({ port: 0, host: '127.0.0.1', engineDelayMs: 2 })]);
  client = new ExtendClient({ baseUrl: sb.url, token: sb.token });
}, 60_000);
afterAll(async () => {
  await sb?.close();
  hook?.closeAllConnections();
  await new Promise((resolve) => hook?.close(resolve));
});

describe('the methods the suite calls', () => {
  test('are every public method of the client (by reflection) but parse, edit and form detection, and the .d.ts declares each', () => {
    const reflected = reflectedMethods(client);
    const called = reflected.filter((m) => !excludedBecause(m));
    expect(called).toEqual([...EXPECTED].sort());
    // What reflection finds and what the .d.ts declare are the same methods (so the response types cover all of them).
    expect(reflected.filter((m) => !m.startsWith('webhooks.'))).toEqual([...DECLARED.keys()].sort());
    // parse, edit and form detection are 16 requests (spec 2026-02-09, section 5.1 item 5).
    expect(reflected.filter((m) => /^(parse|edit|detectForm|parseRuns|editRuns|editTemplates|editSchemas|formDetectionRuns)\b/.test(m) && !m.endsWith('.createAndPoll'))).toHaveLength(16);
  });
});

describe('every method, happy path, in dependency order, answers in the 1.17 types', SLOW, () => {
  test('files: upload, list, retrieve (raw text), delete', async () => {
    await call('files.upload', () => client.files.upload(new File([INVOICE_TEXT], 'invoice-7.txt', { type: 'text/plain' }), {}), {
      makes: ['file', (d) => d.id],
      then: (d) => expect(d.name).toBe('invoice-7.txt'),
    });
    await call('files.list', () => client.files.list({ nameContains: 'invoice-7' }), {
      needs: ['file'],
      then: (d) => expect(d.data.map((f) => f.id)).toEqual([made.file]),
    });
    await call('files.retrieve', (v) => client.files.retrieve(v.file, { rawText: true }), {
      needs: ['file'],
      then: (d) => expect(d.contents?.rawText).toBe(INVOICE_TEXT),
    });
    let spare: string | undefined;
    await call(
      'files.delete',
      async () => {
        spare = (await client.files.upload(new File(['x'], 'spare.txt'), {})).id;
        return client.files.delete(spare);
      },
      { then: (d) => expect(d).toEqual({ id: spare }) },
    );
  });

  test('extractors, classifiers, splitters: create, update, retrieve, list; their versions: create, list, retrieve', async () => {
    const kinds = [
      ['extractors', 'extractorVersions', 'extractor', 'extractorVersion', EXTRACT, 'extractor_version', 'extractorId'],
      ['classifiers', 'classifierVersions', 'classifier', 'classifierVersion', CLASSIFY_1X, 'classifier_version', 'classifierId'],
      ['splitters', 'splitterVersions', 'splitter', 'splitterVersion', SPLIT_1X, 'splitter_version', 'splitterId'],
    ] as const;
    for (const [group, versions, input, versionInput, config, versionObject, parentKey] of kinds) {
      // The three groups have the same methods and shapes; one typed view of them keeps this loop honest.
      const g = client[group] as unknown as ExtendClient['extractors'];
      const vs = client[versions] as unknown as ExtendClient['extractorVersions'];
      await call(`${group}.create`, () => g.create({ name: `Invoices ${group}`, config: config as Extend.ExtractConfigJson }), {
        makes: [input, (d) => d.id],
        then: (d) => {
          expect(d.object).toBe(input);
          expect(d.draftVersion).toMatchObject({ object: versionObject, version: 'draft' });
        },
      });
      await call(`${group}.update`, (v) => g.update(v[input], { name: `Invoices ${group} v2` }), { needs: [input], then: (d) => expect(d.name).toBe(`Invoices ${group} v2`) });
      await call(`${group}.retrieve`, (v) => g.retrieve(v[input]), { needs: [input], then: (d) => expect(d.id).toBe(made[input]) });
      await call(`${group}.list`, () => g.list({ sortBy: 'createdAt', sortDir: 'desc' }), {
        needs: [input],
        then: (d) => expect(d.data.map((x) => x.id)).toContain(made[input]),
      });
      await call(`${versions}.create`, (v) => vs.create(v[input], { releaseType: 'major', description: 'first' }), {
        needs: [input],
        makes: [versionInput, (d) => d.id],
        then: (d) => expect(d).toMatchObject({ object: versionObject, version: '1.0', description: 'first', [parentKey]: made[input] }),
      });
      await call(`${versions}.list`, (v) => vs.list(v[input]), {
        needs: [input, versionInput],
        // Newest first, the draft first (reference.md).
        then: (d) => expect(d.data.map((x) => x.version)).toEqual(['draft', '1.0']),
      });
      await call(`${versions}.retrieve`, (v) => vs.retrieve(v[input], v[versionInput]), { needs: [input, versionInput], then: (d) => expect(d.id).toBe(made[versionInput]) });
    }
  });

  test('extract, classify and split runs: create, retrieve, list, createAndPoll, sync, cancel, delete, createBatch; batchRuns.get', async () => {
    const kinds = [
      ['extractRuns', 'extractor', 'extractRun', 'extractBatch', 'extract', 'extract_run', 'extractorId'],
      ['classifyRuns', 'classifier', 'classifyRun', 'classifyBatch', 'classify', 'classify_run', 'classifierId'],
      ['splitRuns', 'splitter', 'splitRun', 'splitBatch', 'split', 'split_run', 'splitterId'],
    ] as const;
    for (const [group, entity, runInput, batchInput, sync, object, filterKey] of kinds) {
      const g = client[group] as unknown as ExtendClient['extractRuns'];
      const ref = (v: Record<Input, string>) => ({ [entity]: { id: v[entity] } }) as Pick<Extend.ExtractRunsCreateRequest, 'extractor'>;
      await call(`${group}.create`, (v) => g.create({ ...ref(v), file: { id: v.file }, metadata: { order: 7 } }), {
        needs: [entity, 'file'],
        makes: [runInput, (d) => d.id],
        then: (d) => {
          expect(d).toMatchObject({ object, metadata: { order: 7 } });
          expect(['PENDING', 'PROCESSING']).toContain(d.status);
        },
      });
      await sb.idle();
      await call(`${group}.retrieve`, (v) => g.retrieve(v[runInput]), {
        needs: [runInput],
        then: (d) => {
          expect(d.status).toBe('PROCESSED');
          expect(d.output).not.toBeNull();
        },
      });
      await call(`${group}.list`, (v) => g.list({ [filterKey]: v[entity] }), {
        needs: [entity, runInput],
        then: (d) => expect(d.data.map((r) => r.id)).toEqual([made[runInput]]),
      });
      await call(`${group}.createAndPoll`, (v) => g.createAndPoll({ ...ref(v), file: { id: v.file } }, POLL), {
        needs: [entity, 'file'],
        then: (d) => expect(d.status).toBe('PROCESSED'),
      });
      const syncFn = client[sync].bind(client) as unknown as (r: Extend.ExtractRequest) => Promise<Extend.ExtractRun>;
      await call(sync, (v) => syncFn({ ...ref(v), file: { id: v.file } }), { needs: [entity, 'file'], then: (d) => expect(d).toMatchObject({ object, status: 'PROCESSED' }) });
      await call(
        `${group}.cancel`,
        (v) =>
          paused(async () => {
            const run = await g.create({ ...ref(v), file: { id: v.file } });
            return g.cancel(run.id);
          }),
        { needs: [entity, 'file'], then: (d) => expect(d.status).toBe('CANCELLED') },
      );
      await call(
        `${group}.createBatch`,
        (v) => g.createBatch({ [entity]: { id: v[entity] }, inputs: [{ file: { id: v.file } }, { file: { id: v.file }, metadata: { n: 2 } }] } as unknown as Extend.ExtractRunsCreateBatchRequest),
        { needs: [entity, 'file'], makes: [batchInput, (d) => d.id], then: (d) => expect(d).toMatchObject({ object: 'batch_run', runCount: 2 }) },
      );
      await sb.idle();
      await call('batchRuns.get', (v) => client.batchRuns.get(v[batchInput]), {
        needs: [batchInput],
        then: async (d) => {
          expect(d).toMatchObject({ id: made[batchInput], status: 'PROCESSED', runCount: 2 });
          const runs = await g.list({ batchId: d.id });
          checker.check(`${group}.list`, runs);
          expect(runs.data).toHaveLength(2);
        },
      });
      await call(`${group}.delete`, (v) => g.delete(v[runInput]), { needs: [runInput], then: (d) => expect(d).toEqual({ id: made[runInput] }) });
    }
  });

  test('evaluation sets, items (nested), runs; batchProcessorRun.get on the run (same bpr_ id)', async () => {
    const expected = { value: { invoice_number: 'INV-7', total: 120.5 } };
    await call('evaluationSets.create', (v) => client.evaluationSets.create({ name: 'invoices', description: 'golden', entityId: v.extractor }), {
      needs: ['extractor'],
      makes: ['evaluationSet', (d) => d.id],
      then: (d) => expect(d.entity).toMatchObject({ object: 'extractor', id: made.extractor }),
    });
    await call('evaluationSets.list', (v) => client.evaluationSets.list({ entityId: v.extractor }), {
      needs: ['extractor', 'evaluationSet'],
      then: (d) => expect(d.data.map((s) => s.id)).toEqual([made.evaluationSet]),
    });
    await call('evaluationSets.retrieve', (v) => client.evaluationSets.retrieve(v.evaluationSet), { needs: ['evaluationSet'], then: (d) => expect(d.name).toBe('invoices') });
    const items = await call(
      'evaluationSetItems.create',
      (v) => client.evaluationSetItems.create(v.evaluationSet, { items: [{ fileId: v.file, expectedOutput: expected }, { fileId: v.file, expectedOutput: expected }] }),
      { needs: ['evaluationSet', 'file'], makes: ['evaluationSetItem', (d) => d.evaluationSetItems?.[0]?.id], then: (d) => expect(d.evaluationSetItems).toHaveLength(2) },
    );
    await call('evaluationSetItems.list', (v) => client.evaluationSetItems.list(v.evaluationSet), {
      needs: ['evaluationSet', 'evaluationSetItem'],
      then: (d) => {
        expect(d.data).toHaveLength(2);
        // List rows are summaries: no expectedOutput (spec 2026-02-09, 3.7).
        expect(d.data[0]).not.toHaveProperty('expectedOutput');
      },
    });
    await call('evaluationSetItems.retrieve', (v) => client.evaluationSetItems.retrieve(v.evaluationSet, v.evaluationSetItem), {
      needs: ['evaluationSet', 'evaluationSetItem'],
      then: (d) => expect(d.expectedOutput).toEqual(expected),
    });
    const updated = { value: { invoice_number: 'INV-7', total: 120.5, paid: false } };
    await call('evaluationSetItems.update', (v) => client.evaluationSetItems.update(v.evaluationSet, v.evaluationSetItem, { expectedOutput: updated }), {
      needs: ['evaluationSet', 'evaluationSetItem'],
      then: (d) => expect(d.expectedOutput).toEqual(updated),
    });
    const second = items?.evaluationSetItems?.[1]?.id;
    await call('evaluationSetItems.delete', (v) => client.evaluationSetItems.delete(v.evaluationSet, second ?? 'evi_missing'), {
      needs: ['evaluationSet', 'evaluationSetItem'],
      then: (d) => expect(d).toEqual({ id: second }),
    });
    await call('evaluationSetRuns.create', (v) => client.evaluationSetRuns.create({ evaluationSetId: v.evaluationSet }), {
      needs: ['evaluationSet', 'evaluationSetItem'],
      makes: ['evaluationSetRun', (d) => d.id],
      then: (d) => expect(d).toMatchObject({ object: 'evaluation_set_run', evaluationSetId: made.evaluationSet }),
    });
    await sb.idle();
    await call('evaluationSetRuns.retrieve', (v) => client.evaluationSetRuns.retrieve(v.evaluationSetRun), {
      needs: ['evaluationSetRun'],
      then: (d) => {
        expect(d.status).toBe('PROCESSED');
        expect(d.metrics).toMatchObject({ type: 'EXTRACT', numFilesTotal: 1, numFilesProcessed: 1 });
      },
    });
    await call('batchProcessorRun.get', (v) => client.batchProcessorRun.get(v.evaluationSetRun), {
      needs: ['evaluationSetRun'],
      then: (d) => expect(d.batchProcessorRun).toMatchObject({ id: made.evaluationSetRun, status: 'PROCESSED', runCount: 1 }),
    });
  });

  test('legacy: processor create, update, list; processorVersion create, list, get; processorRun create (sync), get, list, cancel, delete', async () => {
    await call('processor.create', () => client.processor.create({ name: 'Invoices (legacy)', type: 'EXTRACT', config: INVOICE_CONFIG as Extend.ProcessorCreateRequestConfig }), {
      makes: ['processor', (d) => d.processor?.id],
    });
    await call('processor.update', (v) => client.processor.update(v.processor, { name: 'Invoices (legacy) v2' }), {
      needs: ['processor'],
      then: (d) => expect(d.processor.draftVersion.version).toBe('draft'),
    });
    await call('processorVersion.create', (v) => client.processorVersion.create(v.processor, { releaseType: 'major', description: 'first' }), {
      needs: ['processor'],
      makes: ['processorVersion', (d) => d.processorVersion?.id],
      then: (d) => expect(d.processorVersion.version).toBe('1.0'),
    });
    await call('processor.list', () => client.processor.list({ type: 'EXTRACT' }), {
      needs: ['processor'],
      then: (d) => expect(d.processors.find((p) => p.id === made.processor)?.versions.map((x) => x.version).sort()).toEqual(['1.0', 'draft']),
    });
    await call('processorVersion.list', (v) => client.processorVersion.list(v.processor), { needs: ['processor', 'processorVersion'], then: (d) => expect(d.versions).toHaveLength(2) });
    await call('processorVersion.get', (v) => client.processorVersion.get(v.processor, v.processorVersion), {
      needs: ['processor', 'processorVersion'],
      then: (d) => expect(d.version.id).toBe(made.processorVersion),
    });
    await call('processorRun.create', (v) => client.processorRun.create({ processorId: v.processor, rawText: INVOICE_TEXT, sync: true }), {
      needs: ['processor'],
      makes: ['processorRun', (d) => d.processorRun?.id],
      then: (d) => expect(d.processorRun.status).toBe('PROCESSED'),
    });
    await call('processorRun.get', (v) => client.processorRun.get(v.processorRun), { needs: ['processorRun'], then: (d) => expect(d.processorRun.id).toBe(made.processorRun) });
    await call('processorRun.list', (v) => client.processorRun.list({ processorId: v.processor }), {
      needs: ['processor', 'processorRun'],
      then: (d) => expect(d.processorRuns.map((r) => r.id)).toContain(made.processorRun),
    });
    await call(
      'processorRun.cancel',
      (v) =>
        paused(async () => {
          const run = await client.processorRun.create({ processorId: v.processor, rawText: INVOICE_TEXT });
          return client.processorRun.cancel(run.processorRun.id);
        }),
      { needs: ['processor'], then: (d) => expect(d.processorRun.status).toBe('CANCELLED') },
    );
    await call('processorRun.delete', (v) => client.processorRun.delete(v.processorRun), {
      needs: ['processorRun'],
      then: (d) => expect(d.documentProcessorRunId).toBe(made.processorRun),
    });
  });

  test('workflows: create, list, retrieve, update; workflowVersions: create, list, retrieve; workflowRuns: create, retrieve, list, update, createAndPoll, createBatch, cancel, delete', async () => {
    const steps = (v: Record<Input, string>): Extend.WorkflowStepDefinition[] => [
      { type: 'TRIGGER', name: 'trigger', next: [{ step: 'extract' }] },
      { type: 'EXTRACT', name: 'extract', config: { extractor: { id: v.extractor, version: 'draft' } } },
    ];
    await call('workflows.create', (v) => client.workflows.create({ name: 'Invoice intake', steps: steps(v) }), {
      needs: ['extractor'],
      makes: ['workflow', (d) => d.id],
      then: (d) => expect(d).toMatchObject({ object: 'workflow', name: 'Invoice intake' }),
    });
    await call('workflows.list', () => client.workflows.list(), { needs: ['workflow'], then: (d) => expect(d.data.map((w) => w.id)).toContain(made.workflow) });
    await call('workflows.retrieve', (v) => client.workflows.retrieve(v.workflow), { needs: ['workflow'], then: (d) => expect(d.draftVersion.steps.length).toBe(2) });
    await call('workflows.update', (v) => client.workflows.update(v.workflow, { name: 'Invoice intake v2' }), { needs: ['workflow'], then: (d) => expect(d.name).toBe('Invoice intake v2') });
    await call('workflowVersions.create', (v) => client.workflowVersions.create(v.workflow, { name: 'first' }), {
      needs: ['workflow'],
      makes: ['workflowVersion', (d) => d.id],
      then: (d) => expect(d).toMatchObject({ object: 'workflow_version', name: 'first' }),
    });
    await call('workflowVersions.list', (v) => client.workflowVersions.list(v.workflow), {
      needs: ['workflow', 'workflowVersion'],
      then: (d) => expect(d.data.map((x) => x.id)).toContain(made.workflowVersion),
    });
    await call('workflowVersions.retrieve', (v) => client.workflowVersions.retrieve(v.workflow, v.workflowVersion), {
      needs: ['workflow', 'workflowVersion'],
      then: (d) => expect(d.id).toBe(made.workflowVersion),
    });
    await call('workflowRuns.create', (v) => client.workflowRuns.create({ workflow: { id: v.workflow }, file: { id: v.file }, metadata: { source: 'contract' } }), {
      needs: ['workflow', 'file'],
      makes: ['workflowRun', (d) => d.id],
      then: (d) => expect(d).toMatchObject({ object: 'workflow_run', metadata: { source: 'contract' } }),
    });
    await sb.idle();
    await call('workflowRuns.retrieve', (v) => client.workflowRuns.retrieve(v.workflowRun), {
      needs: ['workflowRun'],
      then: (d) => {
        expect(d.status).toBe('PROCESSED');
        expect(d.stepRuns.length).toBeGreaterThan(0);
      },
    });
    await call('workflowRuns.update', (v) => client.workflowRuns.update(v.workflowRun, { name: 'first', metadata: { checked: true } }), {
      needs: ['workflowRun'],
      then: (d) => expect(d.metadata).toEqual({ source: 'contract', checked: true }),
    });
    await call('workflowRuns.createAndPoll', (v) => client.workflowRuns.createAndPoll({ workflow: { id: v.workflow }, file: { text: INVOICE_TEXT } }, POLL), {
      needs: ['workflow'],
      then: (d) => expect(d.status).toBe('PROCESSED'),
    });
    await call('workflowRuns.createBatch', (v) => client.workflowRuns.createBatch({ workflow: { id: v.workflow }, inputs: [{ file: { text: INVOICE_TEXT }, metadata: { n: 1 } }] }), {
      needs: ['workflow'],
      makes: ['workflowBatch', (d) => d.batchId],
    });
    await sb.idle();
    await call('workflowRuns.list', (v) => client.workflowRuns.list({ batchId: v.workflowBatch }), {
      needs: ['workflowBatch'],
      then: (d) => {
        expect(d.data).toHaveLength(1);
        expect(d.data[0].workflow.id).toBe(made.workflow);
      },
    });
    await call(
      'workflowRuns.cancel',
      (v) =>
        paused(async () => {
          const run = await client.workflowRuns.create({ workflow: { id: v.workflow }, file: { text: INVOICE_TEXT } });
          return client.workflowRuns.cancel(run.id);
        }),
      { needs: ['workflow'], then: (d) => expect(['CANCELLED', 'CANCELLING']).toContain(d.status) },
    );
    await call('workflowRuns.delete', (v) => client.workflowRuns.delete(v.workflowRun), { needs: ['workflowRun'], then: (d) => expect(d).toEqual({ id: made.workflowRun }) });
  });

  test('webhook endpoints: create, list, retrieve, update, delete; subscriptions: create, list, retrieve, update, delete', async () => {
    await call(
      'webhookEndpoints.create',
      () => client.webhookEndpoints.create({ url: hookUrl, name: 'contract', enabledEvents: ['extract_run.processed', 'extractor.created'], apiVersion: '2026-02-09' }),
      {
        makes: ['webhookEndpoint', (d) => d.id],
        then: (d) => {
          expect(d).toMatchObject({ object: 'webhook_endpoint', url: hookUrl, apiVersion: '2026-02-09', status: 'enabled' });
          expect(d.signingSecret).toEqual(expect.any(String));
        },
      },
    );
    await call('webhookEndpoints.list', () => client.webhookEndpoints.list(), {
      needs: ['webhookEndpoint'],
      then: (d) => {
        expect(d.data.map((x) => x.id)).toContain(made.webhookEndpoint);
        // Only the create answer carries the secret (spec 2026-02-09, section 6).
        for (const e of d.data) expect(e).not.toHaveProperty('signingSecret');
      },
    });
    await call('webhookEndpoints.retrieve', (v) => client.webhookEndpoints.retrieve(v.webhookEndpoint), {
      needs: ['webhookEndpoint'],
      then: (d) => expect(d).not.toHaveProperty('signingSecret'),
    });
    await call('webhookEndpoints.update', (v) => client.webhookEndpoints.update(v.webhookEndpoint, { name: 'contract v2', status: 'disabled' }), {
      needs: ['webhookEndpoint'],
      then: (d) => expect(d).toMatchObject({ name: 'contract v2', status: 'disabled' }),
    });
    await call(
      'webhookSubscriptions.create',
      (v) => client.webhookSubscriptions.create({ webhookEndpointId: v.webhookEndpoint, resourceType: 'extractor', resourceId: v.extractor, enabledEvents: ['extract_run.processed'] }),
      { needs: ['webhookEndpoint', 'extractor'], makes: ['webhookSubscription', (d) => d.id], then: (d) => expect(d).toMatchObject({ object: 'webhook_subscription', resourceId: made.extractor }) },
    );
    await call('webhookSubscriptions.list', (v) => client.webhookSubscriptions.list({ webhookEndpointId: v.webhookEndpoint }), {
      needs: ['webhookEndpoint', 'webhookSubscription'],
      then: (d) => expect(d.data.map((x) => x.id)).toEqual([made.webhookSubscription]),
    });
    await call('webhookSubscriptions.retrieve', (v) => client.webhookSubscriptions.retrieve(v.webhookSubscription), {
      needs: ['webhookSubscription'],
      then: (d) => expect(d.webhookEndpointId).toBe(made.webhookEndpoint),
    });
    await call('webhookSubscriptions.update', (v) => client.webhookSubscriptions.update(v.webhookSubscription, { enabledEvents: ['extract_run.processed', 'extract_run.failed'] }), {
      needs: ['webhookSubscription'],
      then: (d) => expect([...d.enabledEvents].sort()).toEqual(['extract_run.failed', 'extract_run.processed']),
    });
    await call('webhookSubscriptions.delete', (v) => client.webhookSubscriptions.delete(v.webhookSubscription), {
      needs: ['webhookSubscription'],
      then: (d) => expect(d).toEqual({ id: made.webhookSubscription }),
    });
    await call('webhookEndpoints.delete', (v) => client.webhookEndpoints.delete(v.webhookEndpoint), {
      needs: ['webhookEndpoint'],
      then: (d) => expect(d).toEqual({ id: made.webhookEndpoint }),
    });
  });
});

/**
 * Every method with inputs that do not exist (and bodies that pass the body checks); `true` when
 * an unknown id in the path (or a named parent) must give 404. Every unknown id ends in `_missing`.
 */
const MISSING: Record<string, [(c: ExtendClient) => Promise<unknown>, boolean]> = {
  'files.upload': [(c) => c.files.upload(new File(['x'], 'x.txt'), {}), false],
  'files.list': [(c) => c.files.list(), false],
  'files.retrieve': [(c) => c.files.retrieve('file_missing'), true],
  'files.delete': [(c) => c.files.delete('file_missing'), true],
  'extractors.create': [(c) => c.extractors.create({ name: 'x', config: EXTRACT }), false],
  'extractors.list': [(c) => c.extractors.list(), false],
  'extractors.retrieve': [(c) => c.extractors.retrieve('ex_missing'), true],
  'extractors.update': [(c) => c.extractors.update('ex_missing', { name: 'x' }), true],
  'extractorVersions.create': [(c) => c.extractorVersions.create('ex_missing', { releaseType: 'major' }), true],
  'extractorVersions.list': [(c) => c.extractorVersions.list('ex_missing'), true],
  'extractorVersions.retrieve': [(c) => c.extractorVersions.retrieve('ex_missing', 'exv_missing'), true],
  'classifiers.create': [(c) => c.classifiers.create({ name: 'x', config: CLASSIFY_1X }), false],
  'classifiers.list': [(c) => c.classifiers.list(), false],
  'classifiers.retrieve': [(c) => c.classifiers.retrieve('cl_missing'), true],
  'classifiers.update': [(c) => c.classifiers.update('cl_missing', { name: 'x' }), true],
  'classifierVersions.create': [(c) => c.classifierVersions.create('cl_missing', { releaseType: 'major' }), true],
  'classifierVersions.list': [(c) => c.classifierVersions.list('cl_missing'), true],
  'classifierVersions.retrieve': [(c) => c.classifierVersions.retrieve('cl_missing', 'clv_missing'), true],
  'splitters.create': [(c) => c.splitters.create({ name: 'x', config: SPLIT_1X }), false],
  'splitters.list': [(c) => c.splitters.list(), false],
  'splitters.retrieve': [(c) => c.splitters.retrieve('spl_missing'), true],
  'splitters.update': [(c) => c.splitters.update('spl_missing', { name: 'x' }), true],
  'splitterVersions.create': [(c) => c.splitterVersions.create('spl_missing', { releaseType: 'major' }), true],
  'splitterVersions.list': [(c) => c.splitterVersions.list('spl_missing'), true],
  'splitterVersions.retrieve': [(c) => c.splitterVersions.retrieve('spl_missing', 'splv_missing'), true],
  'extractRuns.create': [(c) => c.extractRuns.create({ extractor: { id: 'ex_missing' }, file: { text: 'x' } }), true],
  'extractRuns.createAndPoll': [(c) => c.extractRuns.createAndPoll({ extractor: { id: 'ex_missing' }, file: { text: 'x' } }, POLL), true],
  'extractRuns.createBatch': [(c) => c.extractRuns.createBatch({ extractor: { id: 'ex_missing' }, inputs: [{ file: { text: 'x' } }] }), true],
  'extractRuns.list': [(c) => c.extractRuns.list(), false],
  'extractRuns.retrieve': [(c) => c.extractRuns.retrieve('exr_missing'), true],
  'extractRuns.cancel': [(c) => c.extractRuns.cancel('exr_missing'), true],
  'extractRuns.delete': [(c) => c.extractRuns.delete('exr_missing'), true],
  'classifyRuns.create': [(c) => c.classifyRuns.create({ classifier: { id: 'cl_missing' }, file: { text: 'x' } }), true],
  'classifyRuns.createAndPoll': [(c) => c.classifyRuns.createAndPoll({ classifier: { id: 'cl_missing' }, file: { text: 'x' } }, POLL), true],
  'classifyRuns.createBatch': [(c) => c.classifyRuns.createBatch({ classifier: { id: 'cl_missing' }, inputs: [{ file: { text: 'x' } }] }), true],
  'classifyRuns.list': [(c) => c.classifyRuns.list(), false],
  'classifyRuns.retrieve': [(c) => c.classifyRuns.retrieve('clr_missing'), true],
  'classifyRuns.cancel': [(c) => c.classifyRuns.cancel('clr_missing'), true],
  'classifyRuns.delete': [(c) => c.classifyRuns.delete('clr_missing'), true],
  'splitRuns.create': [(c) => c.splitRuns.create({ splitter: { id: 'spl_missing' }, file: { id: 'file_missing' } }), true],
  'splitRuns.createAndPoll': [(c) => c.splitRuns.createAndPoll({ splitter: { id: 'spl_missing' }, file: { id: 'file_missing' } }, POLL), true],
  'splitRuns.createBatch': [(c) => c.splitRuns.createBatch({ splitter: { id: 'spl_missing' }, inputs: [{ file: { id: 'file_missing' } }] }), true],
  'splitRuns.list': [(c) => c.splitRuns.list(), false],
  'splitRuns.retrieve': [(c) => c.splitRuns.retrieve('splr_missing'), true],
  'splitRuns.cancel': [(c) => c.splitRuns.cancel('splr_missing'), true],
  'splitRuns.delete': [(c) => c.splitRuns.delete('splr_missing'), true],
  extract: [(c) => c.extract({ extractor: { id: 'ex_missing' }, file: { text: 'x' } }), true],
  classify: [(c) => c.classify({ classifier: { id: 'cl_missing' }, file: { text: 'x' } }), true],
  split: [(c) => c.split({ splitter: { id: 'spl_missing' }, file: { id: 'file_missing' } }), true],
  'batchRuns.get': [(c) => c.batchRuns.get('bpr_missing'), true],
  'evaluationSets.create': [(c) => c.evaluationSets.create({ name: 'x', entityId: 'ex_missing' }), true],
  'evaluationSets.list': [(c) => c.evaluationSets.list(), false],
  'evaluationSets.retrieve': [(c) => c.evaluationSets.retrieve('ev_missing'), true],
  'evaluationSetItems.create': [(c) => c.evaluationSetItems.create('ev_missing', { items: [{ fileId: 'file_missing', expectedOutput: { value: {} } }] }), true],
  'evaluationSetItems.list': [(c) => c.evaluationSetItems.list('ev_missing'), true],
  'evaluationSetItems.retrieve': [(c) => c.evaluationSetItems.retrieve('ev_missing', 'evi_missing'), true],
  'evaluationSetItems.update': [(c) => c.evaluationSetItems.update('ev_missing', 'evi_missing', { expectedOutput: { value: {} } }), true],
  'evaluationSetItems.delete': [(c) => c.evaluationSetItems.delete('ev_missing', 'evi_missing'), true],
  'evaluationSetRuns.create': [(c) => c.evaluationSetRuns.create({ evaluationSetId: 'ev_missing' }), true],
  'evaluationSetRuns.retrieve': [(c) => c.evaluationSetRuns.retrieve('bpr_missing'), true],
  'batchProcessorRun.get': [(c) => c.batchProcessorRun.get('bpr_missing'), true],
  'processor.create': [(c) => c.processor.create({ name: 'x', type: 'EXTRACT', cloneProcessorId: 'dp_missing' }), true],
  'processor.list': [(c) => c.processor.list(), false],
  'processor.update': [(c) => c.processor.update('dp_missing', { name: 'x' }), true],
  'processorVersion.create': [(c) => c.processorVersion.create('dp_missing', { releaseType: 'major' }), true],
  'processorVersion.list': [(c) => c.processorVersion.list('dp_missing'), true],
  'processorVersion.get': [(c) => c.processorVersion.get('dp_missing', 'dpv_missing'), true],
  'processorRun.create': [(c) => c.processorRun.create({ processorId: 'dp_missing', rawText: 'x' }), true],
  'processorRun.list': [(c) => c.processorRun.list(), false],
  'processorRun.get': [(c) => c.processorRun.get('dpr_missing'), true],
  'processorRun.cancel': [(c) => c.processorRun.cancel('dpr_missing'), true],
  'processorRun.delete': [(c) => c.processorRun.delete('dpr_missing'), true],
  'workflows.create': [(c) => c.workflows.create({ name: 'x' }), false],
  'workflows.list': [(c) => c.workflows.list(), false],
  'workflows.retrieve': [(c) => c.workflows.retrieve('workflow_missing'), true],
  'workflows.update': [(c) => c.workflows.update('workflow_missing', { name: 'x' }), true],
  'workflowVersions.create': [(c) => c.workflowVersions.create('workflow_missing', { name: 'x' }), true],
  'workflowVersions.list': [(c) => c.workflowVersions.list('workflow_missing'), true],
  'workflowVersions.retrieve': [(c) => c.workflowVersions.retrieve('workflow_missing', 'workflow_version_missing'), true],
  'workflowRuns.create': [(c) => c.workflowRuns.create({ workflow: { id: 'workflow_missing' }, file: { text: 'x' } }), true],
  'workflowRuns.createAndPoll': [(c) => c.workflowRuns.createAndPoll({ workflow: { id: 'workflow_missing' }, file: { text: 'x' } }, POLL), true],
  'workflowRuns.createBatch': [(c) => c.workflowRuns.createBatch({ workflow: { id: 'workflow_missing' }, inputs: [{ file: { text: 'x' } }] }), true],
  'workflowRuns.list': [(c) => c.workflowRuns.list(), false],
  'workflowRuns.retrieve': [(c) => c.workflowRuns.retrieve('workflow_run_missing'), true],
  'workflowRuns.update': [(c) => c.workflowRuns.update('workflow_run_missing', { name: 'x' }), true],
  'workflowRuns.cancel': [(c) => c.workflowRuns.cancel('workflow_run_missing'), true],
  'workflowRuns.delete': [(c) => c.workflowRuns.delete('workflow_run_missing'), true],
  'webhookEndpoints.create': [(c) => c.webhookEndpoints.create({ url: 'http://127.0.0.1:9/x', name: 'x', enabledEvents: ['extractor.created'], apiVersion: '2026-02-09' }), false],
  'webhookEndpoints.list': [(c) => c.webhookEndpoints.list(), false],
  'webhookEndpoints.retrieve': [(c) => c.webhookEndpoints.retrieve('wh_missing'), true],
  'webhookEndpoints.update': [(c) => c.webhookEndpoints.update('wh_missing', { name: 'x' }), true],
  'webhookEndpoints.delete': [(c) => c.webhookEndpoints.delete('wh_missing'), true],
  'webhookSubscriptions.create': [(c) => c.webhookSubscriptions.create({ webhookEndpointId: 'wh_missing', resourceType: 'extractor', resourceId: 'ex_missing', enabledEvents: ['extract_run.processed'] }), true],
  'webhookSubscriptions.list': [(c) => c.webhookSubscriptions.list(), false],
  'webhookSubscriptions.retrieve': [(c) => c.webhookSubscriptions.retrieve('whes_missing'), true],
  'webhookSubscriptions.update': [(c) => c.webhookSubscriptions.update('whes_missing', { enabledEvents: ['extract_run.processed'] }), true],
  'webhookSubscriptions.delete': [(c) => c.webhookSubscriptions.delete('whes_missing'), true],
};

/** The legacy groups, whose error body under 2026-02-09 the spec leaves open (section 1.2, INFERRED). */
const LEGACY = /^(processor|processorVersion|processorRun|batchProcessorRun)\./;

/**
 * `e` is the error the SDK types for `status` on `method` (its class where the method's doc comment
 * names it, else an ExtendError with the status; createAndPoll throws what its create throws),
 * and its body is an `ApiError` with `code` (legacy groups: an ApiError or `{success: false, error}`).
 */
function checkError(method: string, e: unknown, status: number, typed: string, code: string): void {
  expect(e, 'the call did not throw').toBeInstanceOf(ExtendError);
  const err = e as ExtendError;
  expect(err.statusCode).toBe(status);
  const declared = DECLARED.get(method.replace(/\.createAndPoll$/, '.create'))?.throws;
  if (declared?.has(typed)) expect(err.constructor.name).toBe(typed);
  // A 404 names the unknown id (every one here ends in `_missing`) other than as a segment of a
  // path, so that "no such endpoint: GET /extractors/ex_missing" does not pass for it.
  const message = status === 404 ? expect.stringMatching(/(?<![/\w])\w+_missing/) : expect.any(String);
  const apiError = { code, message, retryable: status === 429 };
  const body = err.body as Record<string, unknown>;
  if (LEGACY.test(method) && body?.success === false) expect(body).toEqual({ success: false, error: message });
  else {
    expect(body).toMatchObject(apiError);
    expect(Object.keys(body).filter((k) => !['code', 'message', 'retryable', 'requestId', 'docUrl'].includes(k)), 'members beyond ApiError').toEqual([]);
    if (body.requestId !== undefined) expect(body.requestId).toEqual(expect.any(String));
  }
}

async function errorCase(method: string, status: number, typed: string, code: string, fn: () => Promise<unknown>): Promise<void> {
  let e: unknown;
  try {
    await fn();
    record(method, String(status), { kind: 'fail', reason: `expected ${typed}, the call succeeded` });
    return;
  } catch (x) {
    e = x;
  }
  try {
    checkError(method, e, status, typed, code);
    record(method, String(status), { kind: 'pass' });
  } catch (x) {
    record(method, String(status), { kind: 'fail', reason: `${describeError(e)} (${describeError(x)})` });
  }
}

describe('typed error paths (the SDK\'s error classes with ApiError bodies)', SLOW, () => {
  test('the table of calls with unknown inputs covers every method the suite calls', () => {
    expect(Object.keys(MISSING).sort()).toEqual([...EXPECTED].sort());
  });

  test('401: an unknown token, on every method', async () => {
    const bad = new ExtendClient({ baseUrl: sb.url, token: 'sk_not_a_token' });
    await Promise.all(Object.entries(MISSING).map(([m, [fn]]) => errorCase(m, 401, 'UnauthorizedError', 'UNAUTHORIZED', () => fn(bad))));
  });

  test('404: unknown ids, on every method that takes one (in the path, as a parent or in the body)', async () => {
    await Promise.all(Object.entries(MISSING).filter(([, [, withId]]) => withId).map(([m, [fn]]) => errorCase(m, 404, 'NotFoundError', 'NOT_FOUND', () => fn(client))));
  });

  test('400: a run with neither file nor package is an Extend.BadRequestError with an ApiError body', async () => {
    await errorCase('extractRuns.create', 400, 'BadRequestError', 'INVALID_REQUEST', () => client.extractRuns.create({ extractor: { id: made.extractor ?? 'ex_missing' } }));
  });

  test('429: an injected rate limit; the SDK retries as Retry-After asks, then throws Extend.TooManyRequestsError with a retryable ApiError', async () => {
    const limited = await startSandbox({ port: 0, host: '127.0.0.1', devToken: sb.token, faults: ['status=429,rate=1,retryAfter=1,route=GET /extractors'] });
    try {
      const c = new ExtendClient({ baseUrl: limited.url, token: limited.token });
      const t0 = performance.now();
      await errorCase('extractors.list', 429, 'TooManyRequestsError', 'RATE_LIMIT_EXCEEDED', async () => {
        try {
          return await c.extractors.list();
        } catch (e) {
          expect((e as ExtendError).rawResponse?.headers.get('retry-after')).toBe('1');
          // Two retries (the SDK's default), each after the 1 s the sandbox asked for.
          expect(performance.now() - t0).toBeGreaterThanOrEqual(1900);
          throw e;
        }
      });
    } finally {
      await limited.close();
    }
  });
});

describe('the ratchet', () => {
  test('every method outside KNOWN_GAPS passes, every method in it still fails; the tally is written to test-output/', () => {
    const verdict = judge(EXPECTED, checks, KNOWN_GAPS);
    const line = tallyLine(verdict.tally);
    const report = {
      tally: verdict.tally,
      methods: Object.fromEntries(
        [...checks]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([m, c]) => [m, { outcome: describeOutcome(outcomeOf(c)), knownGap: KNOWN_GAPS[m] ?? null, checks: Object.fromEntries([...c].map(([k, o]) => [k, describeOutcome(o)])) }]),
      ),
      excluded: Object.fromEntries(reflectedMethods(client).flatMap((m) => (excludedBecause(m) ? [[m, excludedBecause(m)]] : []))),
    };
    const dir = path.join(ROOT, 'test-output');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'sdk-1x-contract.json');
    writeFileSync(`${file}.tmp`, `${JSON.stringify(report, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
    console.log(line);
    expect(verdict.problems).toEqual([]);
  });
});

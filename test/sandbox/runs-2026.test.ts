/**
 * Extract, classify and split runs of API version 2026-02-09 (routes/currentRuns.ts): each
 * operation's answer member by member against spec 7, batches, cancel, the sync routes, one run
 * under two routes (`/extract_runs/{id}` and `/processor_runs/{id}`), outputs in the 2026-02-09
 * form, and bad input answered as a 400/404 ApiError.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { extractOutput2026 } from '../../src/sandbox/runAnswers.js';
import { CLASSIFY_CONFIG, createProcessor, INVOICE_CONFIG, SPLITTER_CONFIG, start, uploadText, type TestSandbox } from './helpers.js';

const V26 = '2026-02-09';
type J = Record<string, unknown>;

// Members of spec 7, as the 1.17 .d.ts declare them.
const EXTRACT_RUN = ['object', 'id', 'status', 'output', 'initialOutput', 'reviewedOutput', 'failureReason', 'failureMessage', 'metadata', 'reviewed', 'edited', 'edits', 'config', 'extractor', 'extractorVersion', 'file', 'files', 'parseRunId', 'dashboardUrl', 'usage', 'createdAt', 'updatedAt'];
const EXTRACT_RUN_SUMMARY = ['object', 'id', 'extractor', 'extractorVersion', 'status', 'failureReason', 'failureMessage', 'metadata', 'reviewed', 'edited', 'file', 'files', 'parseRunId', 'dashboardUrl', 'usage', 'createdAt', 'updatedAt'];
const CLASSIFY_RUN = ['object', 'id', 'status', 'output', 'classifier', 'classifierVersion', 'initialOutput', 'reviewedOutput', 'failureReason', 'failureMessage', 'metadata', 'reviewed', 'edited', 'config', 'file', 'parseRunId', 'dashboardUrl', 'usage', 'createdAt', 'updatedAt'];
const CLASSIFY_RUN_SUMMARY = ['object', 'id', 'classifier', 'classifierVersion', 'status', 'failureReason', 'failureMessage', 'metadata', 'reviewed', 'edited', 'file', 'parseRunId', 'dashboardUrl', 'usage', 'createdAt', 'updatedAt'];
const SPLIT_RUN = CLASSIFY_RUN.map((k) => k.replace('classifier', 'splitter'));
const FILE_SUMMARY = ['object', 'id', 'name', 'type', 'parentFileId', 'metadata', 'createdAt', 'updatedAt'];
const sorted = (keys: string[]): string[] => [...keys].sort();

let t: TestSandbox;
let extractor: string;
let classifier: string;
let splitter: string;
let fileId: string;
const TEXT = 'ACME Ltd\nInvoice number: INV-42\nTotal: 1,316.40\n';

const call = (method: string, path: string, body?: unknown) => t.call<J>(method, path, { version: V26, ...(body === undefined ? {} : { body }) });

/** An ApiError with the status, its message containing each of `parts`. */
async function refused(method: string, path: string, body: unknown, status: number, ...parts: string[]): Promise<string> {
  const r = await call(method, path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(sorted(Object.keys(r.body))).toEqual(['code', 'message', 'requestId', 'retryable']);
  expect(r.body.code).toBe(status === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST');
  for (const p of parts) expect(String(r.body.message)).toContain(p);
  return String(r.body.message);
}

beforeAll(async () => {
  // Error rate 0: the simulate engine predicts the evaluation item's values, so citations are known.
  t = await start({ engine: 'simulate:7,0' });
  extractor = await createProcessor(t, 'EXTRACT', { ...INVOICE_CONFIG, advancedOptions: { citationsEnabled: true } }, 'Invoices');
  classifier = await createProcessor(t, 'CLASSIFY', CLASSIFY_CONFIG, 'Doc types');
  splitter = await createProcessor(t, 'SPLITTER', SPLITTER_CONFIG, 'Packets');
  fileId = await uploadText(t, 'inv-42.txt', TEXT);
  const set = await t.call<{ evaluationSet: { id: string } }>('POST', '/evaluation_sets', { body: { name: 's', processorId: extractor } });
  const item = await t.call('POST', '/evaluation_set_items', {
    body: { evaluationSetId: set.body.evaluationSet.id, fileId, expectedOutput: { value: { invoice_number: 'INV-42', total: 1316.4, paid: null, amount_due: { amount: null, iso_4217_currency_code: null }, line_items: [] } } },
  });
  expect(item.status).toBe(200);
});
afterAll(() => t?.close());

describe('extract runs', () => {
  test('create, then retrieve when processed: ExtractRun member for member, citations in the 2026-02-09 shape', async () => {
    const r = await call('POST', '/extract_runs', { extractor: { id: extractor }, file: { id: fileId }, metadata: { customer: 'c1' }, priority: 10 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const run = r.body;
    expect(sorted(Object.keys(run))).toEqual(sorted(EXTRACT_RUN));
    expect(run.object).toBe('extract_run');
    expect(String(run.id)).toMatch(/^exr_\w{20}$/);
    expect(run).toMatchObject({ status: 'PROCESSING', output: null, initialOutput: null, reviewedOutput: null, failureReason: null, failureMessage: null, reviewed: false, edited: false, parseRunId: null, usage: null });
    expect(run.metadata).toEqual({ customer: 'c1' });
    expect(run.edits).toEqual({});
    expect(run.dashboardUrl).toBe(`${t.url}/extract_runs/${String(run.id)}`);
    const ex = run.extractor as J;
    expect(sorted(Object.keys(ex))).toEqual(sorted(['object', 'id', 'name', 'createdAt', 'updatedAt']));
    expect(ex).toMatchObject({ object: 'extractor', id: extractor, name: 'Invoices' });
    const v = run.extractorVersion as J;
    expect(sorted(Object.keys(v))).toEqual(sorted(['object', 'id', 'description', 'version', 'extractorId', 'createdAt', 'createdBy']));
    // No published version: "latest" is the draft.
    expect(v).toMatchObject({ object: 'extractor_version', version: 'draft', extractorId: extractor, description: null, createdBy: { type: 'api_key', name: 'default dev token' } });
    const file = run.file as J;
    expect(sorted(Object.keys(file))).toEqual(sorted(FILE_SUMMARY));
    expect(file).toMatchObject({ object: 'file', id: fileId, name: 'inv-42.txt', type: 'TXT', parentFileId: null, metadata: { pageCount: 1 } });
    expect(run.files).toEqual([file]);
    // The config in the 2026-02-09 layout: no `type`.
    const config = run.config as J;
    expect(config).not.toHaveProperty('type');
    expect(config.schema).toEqual(INVOICE_CONFIG.schema);
    expect(config.advancedOptions).toMatchObject({ citationsEnabled: true });

    await t.sb.idle();
    const done = (await call('GET', `/extract_runs/${String(run.id)}`)).body;
    expect(sorted(Object.keys(done))).toEqual(sorted(EXTRACT_RUN));
    expect(done.status).toBe('PROCESSED');
    const output = done.output as { value: J; metadata: Record<string, { citations?: J[] }> };
    expect(output.value.invoice_number).toBe('INV-42');
    // "INV-42" is on line 2 (y 1) from column 16 of the text file; the page is 22 x 4 cells (its
    // longest line is "Invoice number: INV-42"; the text ends with a newline: 4 lines).
    expect(output.metadata.invoice_number.citations).toEqual([
      { fileId, page: { number: 1, width: 22, height: 4 }, referenceText: 'INV-42', polygon: [{ x: 16, y: 1 }, { x: 22, y: 1 }, { x: 22, y: 2 }, { x: 16, y: 2 }] },
    ]);
    expect(done.initialOutput).toEqual(done.output);
    expect(done.usage).toEqual({ credits: 1 });
    // The legacy route shows the same run in the 2025-04-21 shape: stored once.
    const legacy = await t.call<{ processorRun: J }>('GET', `/processor_runs/${String(run.id)}`, { version: V26 });
    expect(legacy.body.success).toBe(true);
    const legacyCitation = (legacy.body.processorRun.output as { metadata: Record<string, { citations: J[] }> }).metadata.invoice_number.citations[0];
    expect(legacyCitation).toEqual({ page: 1, referenceText: 'INV-42', polygon: [{ x: 16, y: 1 }, { x: 22, y: 1 }, { x: 22, y: 2 }, { x: 16, y: 2 }], pageWidth: 22, pageHeight: 4 });
  });

  test('a package of files: file is null, files lists each; citations name the file and its own page', async () => {
    const second = await uploadText(t, 'second.txt', 'page of the second file');
    const r = await call('POST', '/extract_runs', { extractor: { id: extractor }, package: { files: [{ id: fileId }, { id: second }] } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.file).toBeNull();
    expect((r.body.files as J[]).map((f) => f.id)).toEqual([fileId, second]);
    // The engine reads the package as one document: the first file's values, cited on it.
    await t.sb.idle();
    const done = (await call('GET', `/extract_runs/${String(r.body.id)}`)).body;
    expect(done.status).toBe('PROCESSED');
    const output = done.output as { value: J; metadata: Record<string, { citations?: J[] }> };
    expect(output.value.invoice_number).toBe('INV-42');
    expect(output.metadata.invoice_number.citations).toMatchObject([{ fileId, page: { number: 1 }, referenceText: 'INV-42' }]);
    const legacy = (await t.call<{ processorRun: J }>('GET', `/processor_runs/${String(r.body.id)}`)).body.processorRun;
    expect((legacy.files as J[]).map((f) => f.id)).toEqual([fileId, second]);
    // Stored page 2 of the package is page 1 of its second file.
    const stored = { value: { a: 'x' }, metadata: { a: { citations: [{ page: 2, referenceText: 'x', polygon: [{ x: 1, y: 0 }], pageWidth: 10, pageHeight: 3 }] } } };
    const refs = [{ id: 'file_a', name: 'a.txt', type: 'TXT', metadata: { pageCount: 1 }, createdAt: '', updatedAt: '' }, { id: 'file_b', name: 'b.txt', type: 'TXT', metadata: { pageCount: 2 }, createdAt: '', updatedAt: '' }];
    expect((extractOutput2026(stored, refs) as { metadata: { a: { citations: J[] } } }).metadata.a.citations).toEqual([
      { fileId: 'file_b', page: { number: 1, width: 10, height: 3 }, referenceText: 'x', polygon: [{ x: 1, y: 0 }] },
    ]);
    // A field path that is `__proto__` stays a member of the converted metadata.
    const odd = JSON.parse('{"value":{},"metadata":{"__proto__":{"citations":[]}}}') as unknown;
    expect(Object.hasOwn((extractOutput2026(odd, refs) as { metadata: object }).metadata, '__proto__')).toBe(true);
  });

  test('an inline config runs without an extractor; neither extractor nor config runs an empty schema', async () => {
    const inline = await call('POST', '/extract_runs', { config: { schema: { type: 'object', properties: { total: { type: ['number', 'null'] } } } }, file: { text: 'Total: 5', name: 'note' } });
    expect(inline.status, JSON.stringify(inline.body)).toBe(200);
    expect(inline.body).toMatchObject({ extractor: null, extractorVersion: null });
    expect((inline.body.config as J).schema).toEqual({ type: 'object', properties: { total: { type: ['number', 'null'] } } });
    // `{text}` becomes a .txt file.
    expect(inline.body.file).toMatchObject({ name: 'note.txt', type: 'TXT' });
    const neither = await call('POST', '/extract_runs', { file: { text: 'hello' } });
    expect(neither.status).toBe(200);
    expect((neither.body.config as J).schema).toEqual({ type: 'object', properties: {} });
    await t.sb.idle();
    expect((await call('GET', `/extract_runs/${String(neither.body.id)}`)).body.output).toMatchObject({ value: {} });
  });

  test('overrideConfig replaces only the members it gives; an invalid one is a 400 at its pointer', async () => {
    const r = await call('POST', '/extract_runs', { extractor: { id: extractor, overrideConfig: { extractionRules: 'Totals include tax.' } }, file: { id: fileId } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const config = r.body.config as J;
    expect(config.extractionRules).toBe('Totals include tax.');
    expect(config.schema).toEqual(INVOICE_CONFIG.schema);
    expect(config.advancedOptions).toMatchObject({ citationsEnabled: true });
    await refused('POST', '/extract_runs', { extractor: { id: extractor, overrideConfig: { type: 'EXTRACT' } }, file: { id: fileId } }, 400, '/extractor/overrideConfig/type');
    // A fields-form config has no 2026-02-09 layout to merge into: refused, and runs as it is without an override.
    const fieldsForm = await createProcessor(t, 'EXTRACT', { type: 'EXTRACT', fields: [{ id: 'total', name: 'total', type: 'number', description: 'the total' }] }, 'Old form');
    await refused('POST', '/extract_runs', { extractor: { id: fieldsForm, overrideConfig: { extractionRules: 'x' } }, file: { id: fileId } }, 400, 'fields-form config');
    const plain = await call('POST', '/extract_runs', { extractor: { id: fieldsForm }, file: { id: fileId } });
    expect(plain.status).toBe(200);
    expect((plain.body.config as J).fields).toHaveLength(1);
  });
});

describe('classify and split runs', () => {
  test('ClassifyRun and SplitRun member for member; outputs unchanged', async () => {
    const c = await call('POST', '/classify_runs', { classifier: { id: classifier }, file: { text: 'An invoice' } });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(sorted(Object.keys(c.body))).toEqual(sorted(CLASSIFY_RUN));
    expect(String(c.body.id)).toMatch(/^clr_/);
    expect(c.body.classifier).toMatchObject({ object: 'classifier', id: classifier, name: 'Doc types' });
    expect(c.body.classifierVersion).toMatchObject({ object: 'classifier_version', classifierId: classifier });
    expect((c.body.config as J).classifications).toHaveLength(3);
    const s = await call('POST', '/split_runs', { splitter: { id: splitter }, file: { id: fileId } });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    expect(sorted(Object.keys(s.body))).toEqual(sorted(SPLIT_RUN));
    expect(String(s.body.id)).toMatch(/^splr_/);
    expect(s.body.splitter).toMatchObject({ object: 'splitter', id: splitter });
    await t.sb.idle();
    const cDone = (await call('GET', `/classify_runs/${String(c.body.id)}`)).body;
    expect(sorted(Object.keys(cDone.output as J))).toEqual(['confidence', 'id', 'insights', 'type']);
    const sDone = (await call('GET', `/split_runs/${String(s.body.id)}`)).body;
    const legacy = (await t.call<{ processorRun: J }>('GET', `/processor_runs/${String(s.body.id)}`)).body.processorRun;
    expect(sDone.output).toEqual(legacy.output);
    expect(cDone.usage).toEqual({ credits: 0.25 });
  });

  test('split runs refuse raw text', async () => {
    await refused('POST', '/split_runs', { splitter: { id: splitter }, file: { text: 'x' } }, 400, 'split runs do not accept raw text');
  });
});

describe('batches, lists, cancel, delete', () => {
  test('a batch of N runs: BatchRun, its runs listed by batchId as summaries, then PROCESSED', async () => {
    const inputs = [0, 1, 2, 3, 4].map((i) => ({ file: { text: `doc ${i}`, name: `b${i}.txt` }, metadata: { n: i } }));
    const r = await call('POST', '/extract_runs/batch', { extractor: { id: extractor }, inputs });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(sorted(Object.keys(r.body))).toEqual(['createdAt', 'id', 'object', 'runCount', 'status']);
    expect(r.body).toMatchObject({ object: 'batch_run', status: 'PROCESSING', runCount: 5 });
    const batchId = String(r.body.id);
    expect(batchId).toMatch(/^bpr_/);
    const page1 = await call('GET', `/extract_runs?batchId=${batchId}&maxPageSize=3&sortDir=asc`);
    expect(page1.status).toBe(200);
    expect(page1.body.object).toBe('list');
    const data1 = page1.body.data as J[];
    expect(data1).toHaveLength(3);
    for (const s of data1) expect(sorted(Object.keys(s))).toEqual(sorted(EXTRACT_RUN_SUMMARY));
    const page2 = await call('GET', `/extract_runs?batchId=${batchId}&maxPageSize=3&sortDir=asc&nextPageToken=${String(page1.body.nextPageToken)}`);
    const data2 = page2.body.data as J[];
    expect(data2).toHaveLength(2);
    expect(page2.body).not.toHaveProperty('nextPageToken');
    expect([...data1, ...data2].map((s) => (s.metadata as J).n)).toEqual([0, 1, 2, 3, 4]);
    expect((await call('GET', `/extract_runs?extractorId=${classifier}`)).body.data).toEqual([]);
    await t.sb.idle();
    expect((await call('GET', `/batch_runs/${batchId}`)).body).toEqual({ object: 'batch_run', id: batchId, status: 'PROCESSED', runCount: 5, createdAt: r.body.createdAt });
    // Summaries carry RunUsageSummary: credits only.
    const processed = (await call('GET', `/extract_runs?batchId=${batchId}&status=PROCESSED`)).body.data as J[];
    expect(processed).toHaveLength(5);
    expect(processed[0].usage).toEqual({ credits: 1 });
  });

  test('classify list: summaries of classify runs only', async () => {
    const r = await call('GET', '/classify_runs?maxPageSize=1');
    const data = r.body.data as J[];
    expect(data).toHaveLength(1);
    expect(sorted(Object.keys(data[0]))).toEqual(sorted(CLASSIFY_RUN_SUMMARY));
    expect(data[0].object).toBe('classify_run');
  });

  test('cancel only a PROCESSING run; delete answers {id}; both routes see the result', async () => {
    t.sb.pauseEngine();
    try {
      const r = await call('POST', '/classify_runs', { classifier: { id: classifier }, file: { id: fileId } });
      const id = String(r.body.id);
      const cancelled = await call('POST', `/classify_runs/${id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(sorted(Object.keys(cancelled.body))).toEqual(sorted(CLASSIFY_RUN));
      expect(cancelled.body.status).toBe('CANCELLED');
      await refused('POST', `/classify_runs/${id}/cancel`, undefined, 400, 'is CANCELLED; only a PROCESSING run can be cancelled');
      expect((await t.call<{ processorRun: J }>('GET', `/processor_runs/${id}`)).body.processorRun.status).toBe('CANCELLED');
      const running = await call('POST', '/classify_runs', { classifier: { id: classifier }, file: { id: fileId } });
      await refused('DELETE', `/classify_runs/${String(running.body.id)}`, undefined, 400, `cancel it first (POST /classify_runs/${String(running.body.id)}/cancel)`);
      const del = await call('DELETE', `/classify_runs/${id}`);
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ id });
      await refused('GET', `/classify_runs/${id}`, undefined, 404, `classify run ${id} not found`);
    } finally {
      t.sb.resumeEngine();
    }
  });
});

describe('one run, two routes', () => {
  test('a legacy run is an extract run, and a 2026-02-09 run is a processor run', async () => {
    const legacy = await t.call<{ processorRun: J }>('POST', '/processor_runs', { body: { processorId: extractor, rawText: 'INV-1' } });
    const id = String(legacy.body.processorRun.id);
    expect(id).toMatch(/^dpr_/);
    const asCurrent = await call('GET', `/extract_runs/${id}`);
    expect(asCurrent.status).toBe(200);
    expect(asCurrent.body).toMatchObject({ object: 'extract_run', id, file: null, files: [] });
    const created = await call('POST', '/extract_runs', { extractor: { id: extractor }, file: { id: fileId } });
    const asLegacy = await t.call<{ processorRun: J }>('GET', `/processor_runs/${String(created.body.id)}`);
    expect(asLegacy.body.processorRun).toMatchObject({ object: 'document_processor_run', id: created.body.id, processorId: extractor, type: 'EXTRACT' });
    const listed = await t.call<{ processorRuns: J[] }>('GET', `/processor_runs?processorId=${extractor}&maxPageSize=1000`);
    expect(listed.body.processorRuns.map((r) => r.id)).toContain(created.body.id);
    // Another type's run is not found on this route, and the answer names its own.
    await refused('GET', `/classify_runs/${id}`, undefined, 404, 'it is an extract run', `/extract_runs/${id}`);
  });
});

describe('sync routes', () => {
  test('POST /extract answers the run once it has ended', async () => {
    const r = await call('POST', '/extract', { extractor: { id: extractor }, file: { id: fileId } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(sorted(Object.keys(r.body))).toEqual(sorted(EXTRACT_RUN));
    expect(r.body.status).toBe('PROCESSED');
    expect((r.body.output as { value: J }).value.invoice_number).toBe('INV-42');
    const c = await call('POST', '/classify', { classifier: { id: classifier }, file: { text: 'a receipt' } });
    expect(c.body.status).toBe('PROCESSED');
    await refused('POST', '/split', { splitter: { id: splitter }, file: { id: fileId }, priority: 5 }, 400, 'priority is not a member of POST /split');
  });

  test('a sync request whose run is cancelled meanwhile answers it CANCELLED at once', async () => {
    t.sb.pauseEngine();
    try {
      const pending = call('POST', '/classify', { classifier: { id: classifier }, file: { text: 'to be cancelled' }, metadata: { tag: 'sync-cancel' } });
      let id: string | undefined;
      while (!id) {
        const list = (await call('GET', '/classify_runs?status=PROCESSING&maxPageSize=1000')).body.data as J[];
        id = list.find((r) => (r.metadata as J | null)?.tag === 'sync-cancel')?.id as string | undefined;
      }
      expect((await call('POST', `/classify_runs/${id}/cancel`)).status).toBe(200);
      const r = await pending;
      expect(r.body).toMatchObject({ id, status: 'CANCELLED' });
    } finally {
      t.sb.resumeEngine();
    }
  });

  test('at the cap the run is answered as it stands (PROCESSING) and goes on', async () => {
    const s = await start({ syncTimeoutMs: 300 });
    try {
      const p = await createProcessor(s, 'CLASSIFY', CLASSIFY_CONFIG);
      s.sb.pauseEngine();
      const r = await s.call<J>('POST', '/classify', { version: V26, body: { classifier: { id: p }, file: { text: 'x' } } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ object: 'classify_run', status: 'PROCESSING', output: null });
      s.sb.resumeEngine();
      await s.sb.idle();
      expect((await s.call<J>('GET', `/classify_runs/${String(r.body.id)}`, { version: V26 })).body.status).toBe('PROCESSED');
    } finally {
      await s.close();
    }
  });
});

describe('bad input: a 400 or 404 ApiError that says what to change', () => {
  test('extractor and config together', async () => {
    await refused('POST', '/extract_runs', { extractor: { id: extractor }, config: { schema: {} }, file: { id: fileId } }, 400, 'give either extractor', 'not both');
  });

  test('a 2025-04-21 body names the 2026-02-09 member to use', async () => {
    await refused('POST', '/extract_runs', { processorId: extractor, file: { id: fileId } }, 400, 'processorId', 'use extractor.id');
    await refused('POST', '/extract_runs', { extractor: { id: extractor }, rawText: 'x' }, 400, 'rawText', 'file: {text, name?}');
    await refused('POST', '/classify_runs', { classifier: { id: classifier }, file: { id: fileId }, sync: true }, 400, 'POST /classify');
    await refused('POST', '/extract_runs', { extractor: { id: extractor }, file: { fileId } }, 400, 'file.fileId is the API version 2025-04-21 form', '{id}');
    await refused('POST', '/extract_runs', { extractor: { id: extractor }, file: { fileName: 'a.pdf', fileBase64: 'AAAA' } }, 400, 'POST /files/upload');
    await refused('GET', `/extract_runs?processorId=${extractor}`, undefined, 400, 'use extractorId');
  });

  test('ids of the other family or unknown ones', async () => {
    await refused('POST', '/extract_runs', { extractor: { id: classifier }, file: { id: fileId } }, 404, `is a classifier`, 'POST /classify_runs');
    await refused('POST', '/extract_runs', { extractor: { id: 'ex_nope' }, file: { id: fileId } }, 404, 'extractor ex_nope not found');
    await refused('POST', '/extract_runs', { extractor: { id: extractor }, file: { id: 'file_nope' } }, 400, 'file.id file_nope does not exist');
    await refused('GET', '/extract_runs/exr_nope', undefined, 404, 'extract run exr_nope not found');
    await refused('GET', '/batch_runs/bpr_nope', undefined, 404, 'batch run bpr_nope not found');
  });

  test('oversized metadata, batch limits, bad cursors, bad versions', async () => {
    const big = { blob: 'x'.repeat(10 * 1024) };
    await refused('POST', '/extract_runs', { extractor: { id: extractor }, file: { id: fileId }, metadata: big }, 400, 'metadata is 10251 bytes', 'at most 10240');
    await refused('POST', '/extract_runs/batch', { extractor: { id: extractor }, inputs: [] }, 400, 'inputs must be an array of 1 to 1,000 items (got 0)');
    const many = Array.from({ length: 1001 }, () => ({ file: { id: fileId } }));
    await refused('POST', '/extract_runs/batch', { extractor: { id: extractor }, inputs: many }, 400, '(got 1001)');
    await refused('POST', '/extract_runs/batch', { config: { schema: {} }, inputs: [{ file: { id: fileId } }] }, 400, 'a batch runs a stored extractor');
    await refused('POST', '/extract_runs/batch', { extractor: { id: extractor }, inputs: [{ file: { id: fileId } }, { file: { id: fileId }, metadata: big }] }, 400, 'inputs[1].metadata');
    await refused('GET', '/extract_runs?nextPageToken=garbage', undefined, 400, 'nextPageToken');
    await refused('POST', '/extract_runs', { extractor: { id: extractor, version: 'v2' }, file: { id: fileId } }, 400, 'extractor.version');
    await refused('POST', '/extract_runs', { extractor: { id: extractor }, file: { id: fileId, url: 'http://127.0.0.1:1/a.pdf' } }, 400, 'exactly one of url, id, text');
  });

  test('a failed batch writes nothing: no run, no file', async () => {
    const before = (await call('GET', '/extract_runs?maxPageSize=1000')).body.data as J[];
    const files = await t.call<{ files: J[] }>('GET', '/files?maxPageSize=1000');
    await refused('POST', '/extract_runs/batch', { extractor: { id: extractor }, inputs: [{ file: { text: 'ok' } }, { file: { url: 'http://127.0.0.1:1/a.txt' } }] }, 400, 'inputs[1].file.url');
    expect(((await call('GET', '/extract_runs?maxPageSize=1000')).body.data as J[]).length).toBe(before.length);
    expect((await t.call<{ files: J[] }>('GET', '/files?maxPageSize=1000')).body.files.length).toBe(files.body.files.length);
  });
});

// The 2026-02-09 client against the real sandbox: every extractor/classifier/splitter, version,
// run and batch answer the sandbox sends parses with the client's schemas, which require the
// members spec section 7 requires (nullable or not). A member the sandbox left out would fail here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, createClient, KIND_ROUTES, type Client, type EntityKind } from '../../src/api/index.js';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, SPLITTER_CONFIG, start, uploadText, type TestSandbox } from '../sandbox/helpers.js';

let t: TestSandbox;
let client: Client;
let fileId: string;

beforeAll(async () => {
  t = await start();
  client = createClient({ baseUrl: t.url, token: t.token, apiVersion: '2026-02-09', maxRetries: 0 });
  fileId = await uploadText(t, 'packet.txt', 'Invoice INV-7 total 12.50\fReceipt R-9 paid 3.00');
});
afterAll(async () => {
  await t?.close();
});

// The 2026-02-09 layout: the 2025-04-21 config without `type`.
const strip = ({ type: _t, ...rest }: Record<string, unknown>): Record<string, unknown> => rest;
const CASES: Array<[EntityKind, Record<string, unknown>]> = [
  ['extractor', strip(INVOICE_CONFIG)],
  ['classifier', strip(CLASSIFY_CONFIG)],
  ['splitter', strip(SPLITTER_CONFIG)],
];

describe.each(CASES)('%s', (kind, config) => {
  it('entity, versions, async and sync runs, list, batch and delete parse with the required members present', async () => {
    const entities = { extractor: client.extractors, classifier: client.classifiers, splitter: client.splitters }[kind];
    const runs = { extractor: client.extractRuns, classifier: client.classifyRuns, splitter: client.splitRuns }[kind];
    const created = await entities.create({ name: `contract ${kind}`, config });
    // The sandbox names the token that made it (docs/sandbox-api.md: null only for resources created before attribution).
    expect(created.draftVersion.createdBy).toEqual({ type: 'api_key', name: expect.any(String) });
    expect(created.draftVersion.description).toBeNull();
    const v1 = await entities.createVersion(created.id, { releaseType: 'major', description: 'first' });
    expect(v1).toMatchObject({ version: '1.0', description: 'first' });
    expect((await collect(entities.listAllVersions(created.id))).map((v: { version: string }) => v.version)).toEqual(['draft', '1.0']);
    expect((await entities.retrieveVersion(created.id, v1.id)).config).toEqual(created.draftVersion.config);

    const ref = { [kind]: { id: created.id, version: '1.0' } };
    const file = { id: fileId };
    const sync = await runs.runSync({ ...ref, file });
    expect(sync).toMatchObject({ object: KIND_ROUTES[kind].runObject, status: 'PROCESSED', failureReason: null, reviewed: false, edited: false, parseRunId: null });
    expect(sync.output).not.toBeNull();
    expect(sync.file).toMatchObject({ object: 'file', id: fileId, parentFileId: null });
    expect(sync[`${kind}Version` as 'extractorVersion']).toMatchObject({ id: v1.id, version: '1.0' });
    expect(typeof sync.dashboardUrl).toBe('string');
    expect(await runs.retrieve(sync.id)).toMatchObject({ id: sync.id, status: 'PROCESSED' });

    const queued = await runs.create({ ...ref, file, metadata: { k: 1 } });
    expect(queued.metadata).toEqual({ k: 1 });
    await runs.waitFor(queued.id, { intervalMs: 20, timeoutMs: 20_000 });
    const listed = await collect(runs.listAll({ entityId: created.id, maxPageSize: 1 }));
    expect(listed.map((r: { id: string }) => r.id).sort()).toEqual([sync.id, queued.id].sort());
    expect(listed[0]).not.toHaveProperty('output');

    const batch = await runs.createBatch({ ...ref, inputs: [{ file }, { file, metadata: { n: 2 } }] });
    expect(batch).toMatchObject({ object: 'batch_run', runCount: 2 });
    expect((await client.batchRuns.waitFor(batch.id, { intervalMs: 20, timeoutMs: 20_000 })).status).toBe('PROCESSED');
    expect((await collect(runs.listAll({ batchId: batch.id }))).length).toBe(2);

    expect(await runs.delete(queued.id)).toEqual({ id: queued.id });
  }, 60_000);
});

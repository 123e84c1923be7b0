// The client against the real sandbox: every resource the sandbox serves must parse with the
// resource model, and every endpoint function must reach the route the sandbox implements.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { z } from 'zod';
import { ApiError, collect, createClient, type Client } from '../../src/api/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';

let sb: SandboxHandle;
let client: Client;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, engineDelayMs: 1 });
  // 2025-04-21: this file is the contract of the client's 2025-04-21 members (processors, processorRuns, batchProcessorRuns,
  // workflow steps by processorId); the 2026-02-09 routes' contract is the SDK 1.17 suite (test/contract-1x).
  client = createClient({ baseUrl: sb.url, token: sb.token, maxRetries: 0, apiVersion: '2025-04-21' });
});
afterAll(async () => {
  await sb?.close();
});

const config = { type: 'EXTRACT', schema: { type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } } };

test('processors, files, evaluation sets, items and an evaluation run, end to end', async () => {
  const p = await client.processors.create({ name: 'contract', type: 'EXTRACT', config });
  const updated = await client.processors.update(p.id, { name: 'contract v2' });
  expect(updated.draftVersion?.version).toBe('draft');
  const v1 = await client.processors.publish(p.id, { releaseType: 'major', description: 'first' });
  expect(v1.version).toBe('1.0');
  expect((await client.processors.getVersion(p.id, v1.id)).id).toBe(v1.id);
  const listed = await collect(client.processors.listAll({ maxPageSize: 1 }));
  expect(listed.map((x) => x.id)).toContain(p.id);
  expect((await client.processors.listVersions(p.id)).items.map((x) => x.version).sort()).toEqual(['1.0', 'draft']);

  const files = await Promise.all(
    ['a', 'b', 'c'].map((n) => client.files.upload({ name: `${n}.txt`, data: `Invoice INV-${n} total 12.50` })),
  );
  const withText = await client.files.retrieve(files[0].id, {}, { rawText: true });
  expect((withText.raw.contents as { rawText?: string } | undefined)?.rawText).toContain('INV-a');
  expect((await client.files.list({ nameContains: 'b.txt' })).items.map((f) => f.id)).toEqual([files[1].id]);

  const set = await client.sets.create({ name: 'contract set', entityId: p.id });
  expect((await client.sets.retrieve(set.id)).name).toBe('contract set');
  expect((await client.sets.list({ entityId: p.id })).items).toHaveLength(1);
  const expectedOutput = { value: { invoice_number: 'INV-a', total: 12.5 } };
  const bulk = await client.items(set.id).create(files.slice(0, 2).map((f) => ({ fileId: f.id, expectedOutput })));
  const [one] = await client.items(set.id).create([{ fileId: files[2].id, expectedOutput }]);
  await client.items(set.id).update(one.id, { expectedOutput: { value: { invoice_number: 'INV-c', total: 1 } } });
  const items = await collect(client.items(set.id).listAll({ maxPageSize: 1 }));
  expect(items.map((i) => i.id).sort()).toEqual([...bulk.map((i) => i.id), one.id].sort());

  const batch = await client.batchProcessorRuns.create({ evaluationSetId: set.id, options: { excludeFields: ['total'] } });
  expect(batch).toMatchObject({ source: 'EVAL_SET', sourceId: set.id, runCount: 3 });
  const done = await client.batchProcessorRuns.waitFor(batch.id, { intervalMs: 20, timeoutMs: 20_000 });
  expect(done.status).toBe('PROCESSED');
  expect(done.metrics?.numFiles).toBe(3);
  const runs = await collect(client.processorRuns.listAll({ batchProcessorRunId: batch.id }));
  expect(runs).toHaveLength(3);
  expect((await client.batchProcessorRuns.list({ sourceId: set.id })).items.map((b) => b.id)).toEqual([batch.id]);

  await client.items(set.id).delete(one.id);
  await client.files.delete(files[2].id);
});

test('a direct run goes from PROCESSING to PROCESSED through waitFor', async () => {
  const p = await client.processors.create({ name: 'direct', type: 'EXTRACT', config });
  const run = await client.processorRuns.create({ processorId: p.id, version: 'draft', rawText: 'Invoice INV-9 total 3' });
  expect(run).toMatchObject({ status: 'PROCESSING', output: null });
  const done = await client.processorRuns.waitFor(run.id, { intervalMs: 20, timeoutMs: 20_000 });
  expect(done.status).toBe('PROCESSED');
  expect(done.output).not.toBeNull();
});

test.each([
  ['an unknown token', (c: { url: string }) => createClient({ baseUrl: c.url, token: 'not-a-token', maxRetries: 0 }), 401],
  ['an unknown run id', () => client, 404],
])('%s gives an ApiError with the status and a hint', async (_name, make, status) => {
  const err = (await make(sb).processorRuns.get('dpr_doesnotexist').catch((e: unknown) => e)) as ApiError;
  expect(err).toBeInstanceOf(ApiError);
  expect(err.status).toBe(status);
  expect(err.retryable).toBe(false);
  expect(err.hint).toBeTruthy();
  expect(err.message).not.toContain(sb.token);
});

test('workflow runs: create, batch, list by batchId, get, update and waitFor', async () => {
  const p = await client.processors.create({ name: 'wf step', type: 'EXTRACT', config });
  const wf = (await client.request({ method: 'POST', path: '/workflows', body: { name: 'client wf', steps: [{ processorId: p.id }] }, schema: z.looseObject({ workflow: z.looseObject({ id: z.string() }) }) })).workflow;
  const created = await client.workflowRuns.create({ workflowId: wf.id, rawTexts: ['Invoice INV-1', 'Invoice INV-2'], metadata: { source: 'client' } });
  expect(created.map((r) => r.status)).toEqual(['PROCESSING', 'PROCESSING']);
  const done = await client.workflowRuns.waitFor(created[0].id, { intervalMs: 20, timeoutMs: 20_000 });
  expect(done).toMatchObject({ status: 'PROCESSED', metadata: { source: 'client' }, workflow: { id: wf.id } });
  expect(done.outputs?.[0]).toMatchObject({ object: 'document_processor_run', type: 'EXTRACT', edited: false });

  const batchId = await client.workflowRuns.batch({ workflowId: wf.id, inputs: Array.from({ length: 7 }, (_, i) => ({ rawText: `Invoice ${i}`, metadata: { i } })) });
  await sb.idle();
  const runs = await collect(client.workflowRuns.listAll({ batchId, maxPageSize: 3 }));
  expect(runs).toHaveLength(7);
  expect(runs.every((r) => r.batchId === batchId && r.status === 'PROCESSED')).toBe(true);
  expect((await client.workflowRuns.list({ workflowId: wf.id, status: 'PROCESSED', maxPageSize: 100 })).items).toHaveLength(9);

  const updated = await client.workflowRuns.update(runs[0].id, { name: 'first', metadata: { i: 'changed', extra: true } });
  expect(updated).toMatchObject({ name: 'first', metadata: { i: 'changed', extra: true } });
  expect((await client.workflowRuns.get(runs[0].id)).metadata).toEqual({ i: 'changed', extra: true });

  const err = (await client.workflowRuns.batch({ workflowId: wf.id, inputs: [] }).catch((e: unknown) => e)) as ApiError;
  expect([err.status, err.serviceError]).toEqual([400, 'inputs must contain at least 1 element']);
});

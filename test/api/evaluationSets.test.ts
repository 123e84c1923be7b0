// The files/sets/items facade (src/api/evaluationSets.ts) against a scripted server: the routes
// and bodies of each API version, one neutral shape from both, the 100-item cap per create on
// 2026-02-09, and the dataset upload's chunk size bounded by it.
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../src/api/index.js';
import { chunkSizeFor } from '../../src/dataset/upload.js';
import { readItems } from '../../src/dataset/remote.js';
import { UsageError } from '../../src/util/errors.js';
import { instantClock, startScripted, type Handler, type ScriptedServer } from './helpers.js';

const ts = '2026-03-01T00:00:00.000Z';
const file26 = (id: string, name = `${id}.pdf`) => ({ object: 'file', id, name, type: 'PDF', parentFileId: null, metadata: {}, createdAt: ts, updatedAt: ts });
const set26 = { object: 'evaluation_set', id: 'ev_1', name: 'golden', description: '', entity: { object: 'extractor', id: 'ex_1', name: 'Invoices', createdAt: ts, updatedAt: ts }, createdAt: ts, updatedAt: ts, createdBy: null };
const item26 = (id: string, out?: object) => ({ object: 'evaluation_set_item', id, file: file26(`file_${id}`), createdBy: null, ...(out ? { evaluationSetId: 'ev_1', expectedOutput: out } : {}) });
const set25 = { object: 'evaluation_set', id: 'ev_1', name: 'golden', description: null, processorId: 'dp_1', createdAt: ts, updatedAt: ts };
const item25 = (id: string, out: object) => ({ object: 'evaluation_set_item', id, evaluationSetId: 'ev_1', fileId: `file_${id}`, expectedOutput: out, createdAt: ts, updatedAt: ts });

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(apiVersion: string, handler: Handler): Promise<{ client: Client; s: ScriptedServer }> {
  server = await startScripted(handler);
  return { client: createClient({ baseUrl: server.url, token: 'sk_test_0123456789', apiVersion, clock: instantClock(), random: () => 0.5 }), s: server };
}

describe('sets', () => {
  it('2026-02-09: created and listed by entityId, the entity read from `entity`', async () => {
    const { client, s } = await setup('2026-02-09', (req) => ({ body: req.method === 'POST' ? set26 : { object: 'list', data: [set26] } }));
    const made = await client.sets.create({ name: 'golden', entityId: 'ex_1' });
    expect(made).toMatchObject({ id: 'ev_1', name: 'golden', entityId: 'ex_1', description: '' });
    expect(JSON.parse(s.requests[0].body)).toEqual({ name: 'golden', entityId: 'ex_1' });
    const page = await client.sets.list({ entityId: 'ex_1' });
    expect(s.requests[1].url).toBe('/evaluation_sets?entityId=ex_1');
    expect(page.items.map((x) => x.entityId)).toEqual(['ex_1']);
  });

  it('2025-04-21: the same calls send processorId and read it back as entityId', async () => {
    const { client, s } = await setup('2025-04-21', (req) => ({ body: req.method === 'POST' ? { success: true, evaluationSet: set25 } : { success: true, evaluationSets: [set25] } }));
    expect(await client.sets.create({ name: 'golden', entityId: 'dp_1' })).toMatchObject({ id: 'ev_1', entityId: 'dp_1' });
    expect(JSON.parse(s.requests[0].body)).toEqual({ name: 'golden', processorId: 'dp_1' });
    await client.sets.list({ entityId: 'dp_1' });
    expect(s.requests[1].url).toBe('/evaluation_sets?processorId=dp_1');
  });
});

describe('items', () => {
  it('2026-02-09: nested routes; the list has no expectedOutput, retrieve has it; update and delete under the set', async () => {
    const { client, s } = await setup('2026-02-09', (req) => {
      if (req.method === 'GET' && req.url.startsWith('/evaluation_sets/ev_1/items?')) return { body: { object: 'list', data: [item26('evi_1')] } };
      if (req.method === 'GET') return { body: item26('evi_1', { value: { a: 1 } }) };
      if (req.method === 'DELETE') return { body: { id: 'evi_1' } };
      return { body: item26('evi_1', JSON.parse(req.body).expectedOutput as object) };
    });
    const ops = client.items('ev_1');
    expect(ops.listHasOutputs).toBe(false);
    const [row] = (await ops.list({ maxPageSize: 10 })).items;
    expect(row).toMatchObject({ id: 'evi_1', fileId: 'file_evi_1', fileName: 'file_evi_1.pdf' });
    expect(row.expectedOutput).toBeUndefined();
    expect((await ops.retrieve('evi_1')).expectedOutput).toEqual({ value: { a: 1 } });
    expect((await ops.update('evi_1', { expectedOutput: { value: { a: 2 } } })).expectedOutput).toEqual({ value: { a: 2 } });
    await ops.delete('evi_1');
    expect(s.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`)).toEqual([
      'GET /evaluation_sets/ev_1/items',
      'GET /evaluation_sets/ev_1/items/evi_1',
      'POST /evaluation_sets/ev_1/items/evi_1',
      'DELETE /evaluation_sets/ev_1/items/evi_1',
    ]);
  });

  it('2026-02-09: create sends {items} to the nested route, 1 to 100 per call; 101 is refused before any request', async () => {
    const { client, s } = await setup('2026-02-09', (req) => {
      const sent = (JSON.parse(req.body) as { items: Array<{ fileId: string; expectedOutput: object }> }).items;
      return { body: { evaluationSetItems: sent.map((x, i) => ({ ...item26(`evi_${i}`, x.expectedOutput), file: file26(x.fileId) })) } };
    });
    const ops = client.items('ev_1');
    expect(ops.maxPerCreate).toBe(100);
    const hundred = Array.from({ length: 100 }, (_, i) => ({ fileId: `file_${i}`, expectedOutput: { value: { n: i } } }));
    const made = await ops.create(hundred);
    expect(made.map((m) => m.fileId)).toEqual(hundred.map((h) => h.fileId));
    expect(s.requests[0].url).toBe('/evaluation_sets/ev_1/items');
    expect((JSON.parse(s.requests[0].body) as { items: unknown[] }).items).toHaveLength(100);
    await expect(ops.create([...hundred, { fileId: 'file_x', expectedOutput: {} }])).rejects.toThrow(UsageError);
    await expect(ops.create([])).rejects.toThrow(/1 to 100 items/);
    expect(s.requests).toHaveLength(1);
  });

  it('2025-04-21: one item to /evaluation_set_items, several to /bulk, up to 1000; the list carries the outputs', async () => {
    const { client, s } = await setup('2025-04-21', (req) => {
      if (req.url === '/evaluation_set_items') return { body: { success: true, evaluationSetItem: item25('evi_1', { value: {} }) } };
      if (req.url === '/evaluation_set_items/bulk') return { body: { success: true, evaluationSetItems: [item25('evi_1', {}), item25('evi_2', {})] } };
      return { body: { success: true, evaluationSetItems: [item25('evi_1', { value: { a: 1 } })] } };
    });
    const ops = client.items('ev_1');
    expect(ops.maxPerCreate).toBe(1000);
    expect(ops.listHasOutputs).toBe(true);
    await ops.create([{ fileId: 'file_1', expectedOutput: { value: {} } }]);
    await ops.create([{ fileId: 'file_1', expectedOutput: {} }, { fileId: 'file_2', expectedOutput: {} }]);
    expect(JSON.parse(s.requests[0].body)).toEqual({ evaluationSetId: 'ev_1', fileId: 'file_1', expectedOutput: { value: {} } });
    expect(s.requests.map((r) => r.url)).toEqual(['/evaluation_set_items', '/evaluation_set_items/bulk']);
    const [row] = (await ops.list()).items;
    expect(row).toMatchObject({ id: 'evi_1', fileId: 'file_evi_1', expectedOutput: { value: { a: 1 } } });
    expect(row.fileName).toBeUndefined();
  });

  it('readItems: on 2026-02-09 each listed item is read for its expected output, in list order; on 2025-04-21 the list is enough', async () => {
    const { client, s } = await setup('2026-02-09', (req) => {
      if (req.url.startsWith('/evaluation_sets/ev_1/items?')) return { body: { object: 'list', data: [item26('evi_1'), item26('evi_2'), item26('evi_3')] } };
      const id = req.url.split('/').pop()!;
      return { body: item26(id, { value: { id } }) };
    });
    const got = await readItems(client, 'ev_1', { concurrency: 2 });
    expect(got.map((i) => [i.id, i.expectedOutput, i.fileName])).toEqual([
      ['evi_1', { value: { id: 'evi_1' } }, 'file_evi_1.pdf'],
      ['evi_2', { value: { id: 'evi_2' } }, 'file_evi_2.pdf'],
      ['evi_3', { value: { id: 'evi_3' } }, 'file_evi_3.pdf'],
    ]);
    expect(s.requests).toHaveLength(4);
    await server!.close();
    const old = await setup('2025-04-21', () => ({ body: { success: true, evaluationSetItems: [item25('evi_1', { value: {} })] } }));
    expect((await readItems(old.client, 'ev_1', { concurrency: 2 })).map((i) => i.expectedOutput)).toEqual([{ value: {} }]);
    expect(old.s.requests).toHaveLength(1);
  });
});

describe('files', () => {
  it('2026-02-09: upload and retrieve answer the bare File, list FileSummary rows, delete {id}', async () => {
    const { client, s } = await setup('2026-02-09', (req) => {
      if (req.method === 'GET' && req.url.startsWith('/files?')) return { body: { object: 'list', data: [file26('file_1', 'a.ek0123.pdf')] } };
      if (req.method === 'DELETE') return { body: { id: 'file_1' } };
      return { body: { ...file26('file_1', 'a.pdf'), presignedUrl: 'http://127.0.0.1/x', contents: null } };
    });
    const files = client.files;
    expect(await files.upload({ name: 'a.pdf', data: new Uint8Array([1, 2]) })).toMatchObject({ id: 'file_1', name: 'a.pdf', presignedUrl: 'http://127.0.0.1/x' });
    expect(s.requests[0].headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect((await files.retrieve('file_1')).presignedUrl).toBe('http://127.0.0.1/x');
    expect((await files.list({ nameContains: 'ek0123' })).items.map((f) => [f.id, f.presignedUrl])).toEqual([['file_1', null]]);
    await files.delete('file_1');
    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /files/upload', 'GET /files/file_1', 'GET /files?nameContains=ek0123', 'DELETE /files/file_1']);
  });
});

describe('the upload chunk size', () => {
  it('is what was asked, at most what one create call of the version in effect takes, and says so when it cuts', () => {
    const notes: string[] = [];
    const v26 = createClient({ baseUrl: 'http://127.0.0.1:9', token: 'sk_test_0123456789', apiVersion: '2026-02-09' });
    const v25 = createClient({ baseUrl: 'http://127.0.0.1:9', token: 'sk_test_0123456789', apiVersion: '2025-04-21' });
    expect(chunkSizeFor(undefined, v26, (m) => notes.push(m))).toBe(100);
    expect(chunkSizeFor(40, v26, (m) => notes.push(m))).toBe(40);
    expect(notes).toEqual([]);
    expect(chunkSizeFor(500, v26, (m) => notes.push(m))).toBe(100);
    expect(notes).toEqual(['--chunk-size 500 is more than the 100 items one create call takes with this API version: chunks of 100']);
    expect(chunkSizeFor(500, v25)).toBe(500);
    expect(chunkSizeFor(500, undefined)).toBe(500);
  });
});

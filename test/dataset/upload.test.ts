// uploadDataset as a library function (the package entry) against the real sandbox.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, readDatasetConfig, uploadDataset, type UploadDatasetOptions, type UploadProgress } from '../../src/index.js';
import { docs, folder, service, SIMPLE, simpleCsv, SPLITTER, type Service } from '../e2e/dataset-helpers.js';

let s: Service;
beforeAll(async () => {
  s = await service();
});
afterAll(() => s.close());

function options(dir: string, over: Partial<UploadDatasetOptions> = {}): UploadDatasetOptions {
  return {
    csv: path.join(dir, 'data.csv'),
    connect: (fetch) => createClient({ baseUrl: s.t.url, token: s.t.token, fetch }),
    ...over,
  };
}

describe('uploadDataset', () => {
  it('is exported from the package entry; reports progress by phase and returns the tally', async () => {
    const dir = folder({ 'data.csv': simpleCsv(6, 3), ...docs(3), 'config.json': JSON.stringify(SIMPLE) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const seen: UploadProgress[] = [];
    const r = await uploadDataset(options(dir, { createSet: { name: 'lib', processorId: p }, config: await readDatasetConfig(path.join(dir, 'config.json')), onProgress: (x) => seen.push(x), chunkSize: 2 }));
    expect(r.status).toBe('done');
    expect(r.set).toMatchObject({ name: 'lib', created: true });
    expect(r.tally).toMatchObject({ created: 6, updated: 0, unchanged: 0, failed: 0, filesUploaded: 3 });
    const writes = seen.filter((x) => x.phase === 'write');
    expect(writes.at(-1)).toMatchObject({ done: 6, total: 6, created: 6 });
    expect(writes.map((x) => x.done)).toEqual([...writes.map((x) => x.done)].sort((a, b) => a - b));
    // From the start of the writes (before any item), and as each file is uploaded.
    expect(writes[0]).toMatchObject({ done: 0, total: 6, filesUploaded: 0 });
    expect(writes.filter((x) => x.done === 0).map((x) => x.filesUploaded)).toEqual(expect.arrayContaining([1]));
    expect(writes.at(-1)?.filesUploaded).toBe(3);
  });

  it('uploads each content once, however many rows and paths name it; a fileId column names files already uploaded', async () => {
    const same = 'the same bytes\n';
    const dir = folder({ 'a/one.txt': same, 'b/two.txt': same, 'c.txt': 'other\n' });
    const fileId = await s.client.files.upload({ name: 'already.txt', data: 'uploaded before\n' }).then((f) => f.id);
    writeFileSync(path.join(dir, 'data.csv'), 'file,invoice_number\na/one.txt,1\nb/two.txt,2\na/one.txt,3\nc.txt,4\n');
    const p = await s.processor('EXTRACT', SIMPLE);
    const filesBefore = await s.fileCount();
    const r = await uploadDataset(options(dir, { createSet: { name: 'dedupe', processorId: p } }));
    expect(r.tally).toMatchObject({ created: 4, filesUploaded: 2 });
    expect(await s.fileCount()).toBe(filesBefore + 2);

    writeFileSync(path.join(dir, 'ids.csv'), `fileId,invoice_number\n${fileId},5\nfile_doesnotexist,6\n`);
    const ids = await uploadDataset(options(dir, { csv: path.join(dir, 'ids.csv'), evaluationSetId: r.set!.id!, skipInvalid: true }));
    expect(ids.findings.filter((f) => f.severity === 'error')).toMatchObject([{ line: 3, column: 1, header: 'fileId', rule: 'file-id-unknown' }]);
    expect(ids.tally).toMatchObject({ created: 1, skippedInvalid: 1, filesUploaded: 0 });
    const held = await s.items(r.set!.id!);
    expect(held.filter((i) => i.file === 'already.txt').map((i) => i.expectedOutput)).toEqual([{ value: { invoice_number: '5' } }]);
  });

  it('two rows with the same file and output both become items, with a warning; a re-run keeps both', async () => {
    const dir = folder({ 'data.csv': 'file,invoice_number\nfiles/doc-0.txt,A\nfiles/doc-0.txt,A\n', ...docs(1) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const r = await uploadDataset(options(dir, { createSet: { name: 'dup', processorId: p } }));
    expect(r.findings.filter((f) => f.line > 1)).toMatchObject([{ line: 3, rule: 'duplicate-row', severity: 'warning' }]);
    expect(r.tally).toMatchObject({ created: 2 });
    const again = await uploadDataset(options(dir, { createSet: { name: 'dup', processorId: p } }));
    expect(again.tally).toMatchObject({ created: 0, unchanged: 2 });
  });

  it('fields that no column sets are said once for the header, not per row; with strict they stop the upload', async () => {
    const config = { type: 'EXTRACT', schema: { type: 'object', properties: {
      ...SIMPLE.schema.properties,
      vendor: { type: 'object', properties: { name: { type: ['string', 'null'] }, country: { type: ['string', 'null'] } } },
      line_items: { type: 'array', items: { type: 'object', properties: { description: { type: ['string', 'null'] }, quantity: { type: ['number', 'null'] } } } },
    } } };
    const dir = folder({ 'data.csv': 'file,invoice_number,vendor.name,line_items[0].description\nfiles/doc-0.txt,1,Acme,Paper\nfiles/doc-0.txt,2,,\n', ...docs(1), 'c.json': JSON.stringify(config) });
    const base = options(dir, { config: await readDatasetConfig(path.join(dir, 'c.json')), createSet: { name: 'x', processorId: 'dp_x' }, dryRun: true, connect: undefined });
    const r = await uploadDataset(base);
    expect(r.status).toBe('planned');
    expect(r.findings).toEqual([{ line: 1, rule: 'missing-field', severity: 'warning',
      message: 'no column for fields total, vendor.country, line_items[].quantity: the items leave them out (expect nothing)',
      hint: 'add a column with empty cells to expect null instead; --strict makes this an error' }]);
    const strict = await uploadDataset({ ...base, strict: true });
    expect(strict.status).toBe('invalid');
    expect(strict.findings).toMatchObject([{ line: 1, rule: 'missing-column', severity: 'error' }]);
    expect(strict.findings[0].message).toContain('no column for fields total, vendor.country, line_items[].quantity');
  });

  it('an aborted upload says so and a re-run finishes it', async () => {
    const dir = folder({ 'data.csv': simpleCsv(12, 12), ...docs(12) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const ac = new AbortController();
    const r = await uploadDataset(options(dir, { createSet: { name: 'abort', processorId: p }, chunkSize: 2, concurrency: 1, signal: ac.signal, onProgress: (x) => x.phase === 'write' && x.created >= 2 && ac.abort() }));
    expect(r.status).toBe('interrupted');
    const created = r.tally!.created;
    expect(created).toBeGreaterThanOrEqual(2);
    expect(created).toBeLessThan(12);
    const again = await uploadDataset(options(dir, { createSet: { name: 'abort', processorId: p } }));
    expect(again.status).toBe('done');
    expect(again.tally!.created + again.tally!.unchanged).toBe(12);
    expect((await s.client.items(again.set!.id!).list({ maxPageSize: 100 })).items.length).toBe(12);
  });

  it("builds items in the expected-output form of the API version the client speaks (no form option): 2026-02-09 splits carry no ids", async () => {
    const dir = folder({ 'data.csv': 'file,splits\nfiles/doc-0.txt,invoice:1-2;receipt:3\n', ...docs(1) });
    const p = await s.processor('SPLITTER', SPLITTER);
    const on = (apiVersion: string) => (fetch?: Parameters<NonNullable<UploadDatasetOptions['connect']>>[0]) => createClient({ baseUrl: s.t.url, token: s.t.token, apiVersion, ...(fetch ? { fetch } : {}) });
    const r = await uploadDataset(options(dir, { connect: on('2026-02-09'), createSet: { name: 'current form', processorId: p } }));
    expect(r.status).toBe('done');
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    const items = on('2026-02-09')().items(r.set!.id!);
    const [row] = (await items.list()).items;
    const split = (classificationId: string, startPage: number, endPage: number) => ({ classificationId, type: classificationId, startPage, endPage });
    expect((await items.retrieve(row.id)).expectedOutput).toEqual({ splits: [split('invoice', 1, 2), split('receipt', 3, 3)] });
  });

  it('keeps names with quotes, line breaks and non-ASCII letters intact in the multipart upload', async () => {
    const dir = folder({ 'data.csv': 'file,invoice_number\n"files/a ""quoted"" naïve résumé.txt",1\n', 'files/a "quoted" naïve résumé.txt': 'x\n' });
    const p = await s.processor('EXTRACT', SIMPLE);
    const r = await uploadDataset(options(dir, { createSet: { name: 'names', processorId: p } }));
    expect(r.tally).toMatchObject({ created: 1 });
    const items = await s.items(r.set!.id!);
    expect(items.map((i) => i.file)).toEqual(['a "quoted" naïve résumé.txt']);
    const journal = readFileSync(path.join(dir, 'data.journal.ndjson'), 'utf8');
    expect(journal).not.toContain(s.t.token);
    expect(journal.trim().split('\n').map((l) => (JSON.parse(l) as { k: string }).k)).toEqual(['run', 'set', 'set', 'file', 'file', 'create', 'create', 'applied', 'end']);
  });
});

import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { INVOICE_CONFIG, SPLITTER_CONFIG, createProcessor, settled, start, uploadText, type TestSandbox } from './helpers.js';

type Json = Record<string, unknown>;
let t: TestSandbox;
let pid: string;
let fileServer: Server;
let fileBase: string;

beforeAll(async () => {
  t = await start();
  pid = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
  // A loopback file server for fileUrl inputs.
  fileServer = createServer((req, res) => {
    if (req.url === '/invoice.txt') res.end('Invoice number: INV-7\nTotal: 12.50');
    else if (req.url === '/redirect') res.writeHead(302, { location: 'http://example.com/' }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', r));
  fileBase = `http://127.0.0.1:${(fileServer.address() as { port: number }).port}`;
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => fileServer.close(r));
});

async function createRun(body: Json, o: { version?: string } = {}): Promise<{ status: number; run: Json; error?: string }> {
  const r = await t.call<{ processorRun: Json }>('POST', '/processor_runs', { body, ...o });
  return { status: r.status, run: r.body.processorRun, error: r.body.error };
}

describe('POST /processor_runs: the 400 cases of 4.6', () => {
  test.each([
    ['missing processorId', { rawText: 'x' }, /processorId is required/],
    ['neither file nor rawText', { processorId: 'PID' }, /one of file or rawText is required/],
    ['both file and rawText', { processorId: 'PID', rawText: 'x', file: { fileId: 'file_x' } }, /either file or rawText, not both/],
    ['empty rawText', { processorId: 'PID', rawText: '  ' }, /rawText must be a non-empty string/],
    ['both fileUrl and fileBase64', { processorId: 'PID', file: { fileName: 'a.txt', fileUrl: 'http://127.0.0.1/a', fileBase64: 'YQ==' } }, /exactly one source/],
    ['no file source', { processorId: 'PID', file: { fileName: 'a.txt' } }, /file needs a source/],
    ['no fileName', { processorId: 'PID', file: { fileBase64: 'YQ==' } }, /file.fileName is required/],
    ['invalid base64', { processorId: 'PID', file: { fileName: 'a.txt', fileBase64: 'not base64!' } }, /file.fileBase64 is not valid base64/],
    ['invalid fileUrl', { processorId: 'PID', file: { fileName: 'a.txt', fileUrl: 'not a url' } }, /file.fileUrl is not a valid URL/],
    ['non-http fileUrl', { processorId: 'PID', file: { fileName: 'a.txt', fileUrl: 'file:///etc/passwd' } }, /http or https/],
    ['fileUrl off loopback', { processorId: 'PID', file: { fileName: 'a.txt', fileUrl: 'http://example.com/a.txt' } }, /only from loopback addresses/],
    ['unsupported file type', { processorId: 'PID', file: { fileName: 'a.exe', fileBase64: 'YQ==' } }, /unsupported file type ".exe"/],
    ['corrupted PDF', { processorId: 'PID', file: { fileName: 'a.pdf', fileBase64: Buffer.from('hello').toString('base64') } }, /corrupted/],
    ['priority 0', { processorId: 'PID', rawText: 'x', priority: 0 }, /priority must be an integer from 1 to 100/],
    ['priority 101', { processorId: 'PID', rawText: 'x', priority: 101 }, /priority must be an integer from 1 to 100/],
    ['priority 1.5', { processorId: 'PID', rawText: 'x', priority: 1.5 }, /priority/],
    ['malformed version', { processorId: 'PID', rawText: 'x', version: 'v1' }, /version must be "latest", "draft"/],
    ['metadata not an object', { processorId: 'PID', rawText: 'x', metadata: 'm' }, /metadata must be an object/],
    ['invalid config override', { processorId: 'PID', rawText: 'x', config: { schema: 7 } }, /invalid config/],
    ['unknown fileId', { processorId: 'PID', file: { fileId: 'file_missing' } }, /file.fileId file_missing does not exist/],
    ['malformed processorId', { processorId: '../etc', rawText: 'x' }, /processor id "..\/etc" is not a valid id/],
  ])('%s', async (_n, body, msg) => {
    const b = JSON.parse(JSON.stringify(body).replace('"PID"', JSON.stringify(pid))) as Json;
    const r = await createRun(b);
    expect(r.status).toBe(400);
    expect(r.error).toMatch(msg);
  });

  test('undownloadable fileUrl (404, redirect) -> 400', async () => {
    for (const p of ['/missing.txt', '/redirect']) {
      const r = await createRun({ processorId: pid, file: { fileName: 'a.txt', fileUrl: fileBase + p } });
      expect(r.status).toBe(400);
      expect(r.error).toMatch(/could not be downloaded/);
    }
  });

  test('404 for an unknown processor or version', async () => {
    expect((await createRun({ processorId: 'dp_missing', rawText: 'x' })).status).toBe(404);
    const r = await createRun({ processorId: pid, rawText: 'x', version: '9.0' });
    expect(r.status).toBe(404);
    expect(r.error).toMatch(/version 9.0 of processor/);
  });

  test('401 without a token', async () => {
    expect((await t.call('POST', '/processor_runs', { token: null, body: { processorId: pid, rawText: 'x' } })).status).toBe(401);
  });
});

describe('run lifecycle', () => {
  test('PROCESSING with output null, then PROCESSED with output; metadata returned as supplied', async () => {
    t.sb.pauseEngine();
    const r = await createRun({ processorId: pid, rawText: 'Invoice number: A-1\nTotal: 10', metadata: { ticket: 42 } });
    expect(r.status).toBe(200);
    expect(r.run).toMatchObject({ object: 'document_processor_run', status: 'PROCESSING', output: null, processorId: pid, type: 'EXTRACT', metadata: { ticket: 42 } });
    expect(r.run.id).toMatch(/^dpr_/);
    expect(String(r.run.url)).toContain(String(r.run.id));
    const polled = await t.call<{ processorRun: Json }>('GET', `/processor_runs/${String(r.run.id)}`);
    expect(polled.body.processorRun.status).toBe('PROCESSING');
    t.sb.resumeEngine();
    const done = await settled(t, String(r.run.id));
    expect(done.status).toBe('PROCESSED');
    expect(Object.keys((done.output as { value: Json }).value).sort()).toEqual(['amount_due', 'invoice_number', 'line_items', 'paid', 'total']);
    expect(done.metadata).toMatchObject({ ticket: 42, evalkitSandbox: { engine: 'simulate', simulated: true } });
    expect(done.updatedAt as string > (r.run.updatedAt as string)).toBe(true);
  });

  test('version resolution: latest is the draft until something is published, then the newest number', async () => {
    const id = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
    const draftVersion = (await t.call<{ version: Json }>('GET', `/processors/${id}/versions/draft`)).body.version;
    expect((await createRun({ processorId: id, rawText: 'x' })).run.processorVersionId).toBe(draftVersion.id);
    const v1 = (await t.call<{ processorVersion: Json }>('POST', `/processors/${id}/publish`, { body: { releaseType: 'major' } })).body.processorVersion;
    const v2 = (await t.call<{ processorVersion: Json }>('POST', `/processors/${id}/publish`, { body: { releaseType: 'minor' } })).body.processorVersion;
    expect((await createRun({ processorId: id, rawText: 'x' })).run.processorVersionId).toBe(v2.id);
    expect((await createRun({ processorId: id, rawText: 'x', version: 'latest' })).run.processorVersionId).toBe(v2.id);
    expect((await createRun({ processorId: id, rawText: 'x', version: 'draft' })).run.processorVersionId).toBe(draftVersion.id);
    expect((await createRun({ processorId: id, rawText: 'x', version: '1.0' })).run.processorVersionId).toBe(v1.id);
    expect((await createRun({ processorId: id, rawText: 'x', version: '1' })).run.processorVersionId).toBe(v1.id);
  });

  test('a config override is the config in effect', async () => {
    const cfg = { ...INVOICE_CONFIG, extractionRules: 'override' };
    const r = await createRun({ processorId: pid, rawText: 'x', config: cfg });
    expect(r.run.config).toMatchObject({ extractionRules: 'override' });
  });

  test('lower priority numbers are served first when the engine is saturated', async () => {
    const s = await start({ engineConcurrency: 1 });
    try {
      const id = await createProcessor(s, 'EXTRACT', INVOICE_CONFIG);
      s.sb.pauseEngine();
      const ids: Record<string, string> = {};
      for (const [name, priority] of [['low', 90], ['high', 5], ['default', undefined], ['mid', 30]] as const) {
        const r = await s.call<{ processorRun: { id: string } }>('POST', '/processor_runs', { body: { processorId: id, rawText: name, ...(priority ? { priority } : {}) } });
        ids[r.body.processorRun.id] = name;
      }
      s.sb.resumeEngine();
      await s.sb.idle();
      const list = await s.call<{ processorRuns: Array<{ id: string; status: string }> }>('GET', `/processor_runs?processorId=${id}&sortBy=updatedAt&sortDir=asc`);
      expect(list.body.processorRuns.every((r) => r.status === 'PROCESSED')).toBe(true);
      expect(list.body.processorRuns.map((r) => ids[r.id])).toEqual(['high', 'mid', 'default', 'low']);
    } finally {
      await s.close();
    }
  });

  test('FAILED runs carry failureReason and failureMessage (replay engine)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-replay-'));
    try {
      const file = path.join(dir, 'rec.jsonl');
      writeFileSync(file, [
        JSON.stringify({ fileName: 'ok.txt', output: { value: { invoice_number: 'R-1' } } }),
        JSON.stringify({ fileName: 'bad.txt', failureReason: 'CORRUPT_FILE', failureMessage: 'recorded failure' }),
      ].join('\n'));
      const s = await start({ engine: `replay:${file}` });
      try {
        const id = await createProcessor(s, 'EXTRACT', INVOICE_CONFIG);
        const run = async (name: string): Promise<Json> => {
          const r = await s.call<{ processorRun: { id: string } }>('POST', '/processor_runs', { body: { processorId: id, file: { fileName: name, fileBase64: Buffer.from('x').toString('base64') } } });
          return settled(s, r.body.processorRun.id);
        };
        expect(await run('ok.txt')).toMatchObject({ status: 'PROCESSED', output: { value: { invoice_number: 'R-1' } }, metadata: { evalkitSandbox: { engine: 'replay' } } });
        expect(await run('bad.txt')).toMatchObject({ status: 'FAILED', output: null, failureReason: 'CORRUPT_FILE', failureMessage: 'recorded failure' });
        expect(await run('other.txt')).toMatchObject({ status: 'FAILED', failureReason: 'REPLAY_NOT_FOUND' });
      } finally {
        await s.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('sync: true answers with the finished run', async () => {
    const r = await createRun({ processorId: pid, rawText: 'Total: 3', sync: true });
    expect(r.status).toBe(200);
    expect(r.run.status).toBe('PROCESSED');
  });

  test('file inputs: {fileId}, {fileName, fileBase64}, {fileName, fileUrl} on loopback', async () => {
    const fileId = await uploadText(t, 'up.txt', 'Invoice number: U-1');
    const byId = await createRun({ processorId: pid, file: { fileId } });
    expect(byId.run.files).toEqual([{ object: 'file', id: fileId, name: 'up.txt', type: 'TXT', metadata: { pageCount: 1 }, createdAt: expect.any(String), updatedAt: expect.any(String) }]);
    const b64 = await createRun({ processorId: pid, file: { fileName: 'b.csv', fileBase64: Buffer.from('a,b\n1,2').toString('base64') } });
    expect(b64.status).toBe(200);
    expect(b64.run.files).toEqual([expect.objectContaining({ name: 'b.csv', type: 'CSV' })]);
    const url = await createRun({ processorId: pid, file: { fileName: 'invoice.txt', fileUrl: `${fileBase}/invoice.txt` } });
    expect(url.status).toBe(200);
    const done = await settled(t, String(url.run.id));
    expect(done.output).toMatchObject({ value: expect.objectContaining({}) });
    // The downloaded file is a file resource with its text.
    const fid = (url.run.files as Array<{ id: string }>)[0].id;
    const f = await t.call<{ file: Json }>('GET', `/files/${fid}?rawText=true`);
    expect(f.body.file.contents).toEqual({ rawText: 'Invoice number: INV-7\nTotal: 12.50' });
  });

  test('GET /processor_runs/:id: 404 unknown, 400 malformed', async () => {
    expect((await t.call('GET', '/processor_runs/dpr_missing')).status).toBe(404);
    expect((await t.call('GET', '/processor_runs/%27%3B--')).status).toBe(400);
  });

  test('splitter outputs use splits from 2025-04-21 and subDocumentClassifications before', async () => {
    const id = await createProcessor(t, 'SPLITTER', SPLITTER_CONFIG);
    const r = await createRun({ processorId: id, rawText: 'page one' });
    await settled(t, String(r.run.id));
    const newer = await t.call<{ processorRun: Json }>('GET', `/processor_runs/${String(r.run.id)}`);
    expect(newer.body.processorRun.output).toEqual({ splits: [expect.objectContaining({ classificationId: 'invoice', startPage: 1, endPage: 1 })] });
    const older = await t.call<{ processorRun: Json }>('GET', `/processor_runs/${String(r.run.id)}`, { version: '2024-12-23' });
    expect(older.body.processorRun.output).toEqual({ subDocumentClassifications: [expect.objectContaining({ classificationId: 'invoice' })] });
    expect(older.body.processorRun.config).toHaveProperty('subDocumentClassifications');
  });
});

describe('GET /processor_runs filters', () => {
  test('status, processorId, processorType, source, fileNameContains, paging', async () => {
    const s = await start();
    try {
      const a = await createProcessor(s, 'EXTRACT', INVOICE_CONFIG);
      const b = await createProcessor(s, 'SPLITTER', SPLITTER_CONFIG);
      const mk = (body: Json) => s.call<{ processorRun: { id: string } }>('POST', '/processor_runs', { body });
      await mk({ processorId: a, file: { fileName: 'alpha_1.txt', fileBase64: Buffer.from('a').toString('base64') } });
      await mk({ processorId: a, file: { fileName: 'beta.txt', fileBase64: Buffer.from('b').toString('base64') } });
      await mk({ processorId: b, rawText: 'c' });
      await s.sb.idle();
      const q = async (query: string): Promise<Array<Json>> => {
        const r = await s.call<{ processorRuns: Json[] }>('GET', `/processor_runs?${query}`);
        expect(r.status, query).toBe(200);
        return r.body.processorRuns;
      };
      expect(await q('')).toHaveLength(3);
      expect(await q(`processorId=${a}`)).toHaveLength(2);
      expect(await q('processorType=SPLITTER')).toHaveLength(1);
      expect(await q('status=PROCESSED')).toHaveLength(3);
      expect(await q('status=FAILED')).toHaveLength(0);
      expect(await q('source=API')).toHaveLength(3);
      expect(await q('fileNameContains=pha_')).toHaveLength(1);
      expect(await q('fileNameContains=%25')).toHaveLength(0);
      const first = await s.call<{ processorRuns: Json[]; nextPageToken: string }>('GET', '/processor_runs?maxPageSize=2');
      expect(first.body.processorRuns).toHaveLength(2);
      const second = await s.call<{ processorRuns: Json[]; nextPageToken: string | null }>('GET', `/processor_runs?maxPageSize=2&nextPageToken=${first.body.nextPageToken}`);
      expect(second.body.processorRuns).toHaveLength(1);
      expect(second.body.nextPageToken).toBeNull();
      for (const bad of ['status=DONE', 'processorType=X', 'sortBy=name', 'processorId=a%20b']) {
        expect((await s.call('GET', `/processor_runs?${bad}`)).status, bad).toBe(400);
      }
    } finally {
      await s.close();
    }
  });
});

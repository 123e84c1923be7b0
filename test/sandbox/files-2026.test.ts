/** 2026-02-09 files (spec 2 `files`, 7 `File_`, `FileSummary`): the legacy file core under the 1.x shapes. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makePdf, start, uploadText, type TestSandbox } from './helpers.js';

type Json = Record<string, unknown>;
let t: TestSandbox;
const V26 = '2026-02-09';
beforeAll(async () => {
  t = await start();
});
afterAll(() => t?.close());

async function upload26(name: string, data: string | Uint8Array, query = '', extra: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const form = new FormData();
  form.append('file', new Blob([data]), name);
  for (const [k, v] of Object.entries(extra)) form.append(k, v);
  const r = await fetch(`${t.url}/files/upload${query}`, { method: 'POST', headers: { authorization: `Bearer ${t.token}`, 'x-service-api-version': V26 }, body: form });
  return { status: r.status, body: (await r.json()) as Json };
}

const FILE_KEYS = ['contents', 'createdAt', 'id', 'metadata', 'name', 'object', 'parentFileId', 'presignedUrl', 'type', 'updatedAt'];
const SUMMARY_KEYS = ['createdAt', 'id', 'metadata', 'name', 'object', 'parentFileId', 'type', 'updatedAt'];

describe('files under 2026-02-09', () => {
  test('upload answers a bare File_ (contents null, presignedUrl that downloads the bytes)', async () => {
    const r = await upload26('notes.txt', 'hello\fpage two', '?convertToPdf=false', { password: 'secret' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(FILE_KEYS);
    expect(r.body).toMatchObject({ object: 'file', name: 'notes.txt', type: 'TXT', parentFileId: null, contents: null, metadata: { pageCount: 2 } });
    expect(r.body).not.toHaveProperty('success');
    const bytes = await (await fetch(String(r.body.presignedUrl))).text();
    expect(bytes).toBe('hello\fpage two');
    const bad = await upload26('x.txt', 'x', '?convertToPdf=maybe');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_REQUEST', message: 'query parameter convertToPdf must be true or false' });
  });

  test('retrieve: contents per rawText / markdown / html flag', async () => {
    const pdf = await upload26('inv.pdf', makePdf(['Invoice 555', 'Terms']));
    const id = String(pdf.body.id);
    const plain = await t.call<Json>('GET', `/files/${id}`, { version: V26 });
    expect(plain.body.contents).toBeNull();
    const all = await t.call<Json>('GET', `/files/${id}?rawText=true&markdown=true`, { version: V26 });
    const contents = all.body.contents as { rawText: string; pages: Json[] };
    expect(contents.rawText).toContain('Invoice 555');
    expect(contents.pages).toEqual([{ pageNumber: 1, markdown: 'Invoice 555' }, { pageNumber: 2, markdown: 'Terms' }]);
    const docx = await upload26('a.docx', new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]));
    const html = await t.call<Json>('GET', `/files/${String(docx.body.id)}?html=true`, { version: V26 });
    expect(html.body.contents).toEqual({ pages: [{ pageNumber: 1, html: '' }] });
    const txt = await t.call<Json>('GET', `/files/${id}?rawText=1&markdown=false`, { version: V26 });
    expect(Object.keys(txt.body.contents as Json)).toEqual(['rawText']);
  });

  test('list: FileSummary rows, nameContains, sortDir, cursor paging; sortBy refused', async () => {
    const a = await uploadText(t, 'zeta-one.txt', 'a');
    const b = await uploadText(t, 'zeta-two.txt', 'b');
    const page1 = await t.call<Json>('GET', '/files?nameContains=zeta&maxPageSize=1&sortDir=asc', { version: V26 });
    expect(page1.status).toBe(200);
    const rows = page1.body.data as Json[];
    expect(rows.map((f) => f.id)).toEqual([a]);
    expect(Object.keys(rows[0]).sort()).toEqual(SUMMARY_KEYS);
    const page2 = await t.call<Json>('GET', `/files?nameContains=zeta&maxPageSize=1&sortDir=asc&nextPageToken=${String(page1.body.nextPageToken)}`, { version: V26 });
    expect((page2.body.data as Json[]).map((f) => f.id)).toEqual([b]);
    expect(page2.body).not.toHaveProperty('nextPageToken');
    const sorted = await t.call<Json>('GET', '/files?sortBy=name', { version: V26 });
    expect(sorted.status).toBe(400);
  });

  test('delete answers {id}; the file is gone for both versions', async () => {
    const id = await uploadText(t, 'gone.txt', 'x');
    const d = await t.call<Json>('DELETE', `/files/${id}`, { version: V26 });
    expect(d.body).toEqual({ id });
    const again = await t.call<Json>('GET', `/files/${id}`, { version: V26 });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: 'NOT_FOUND', message: `file ${id} not found` });
    expect((await t.call('GET', `/files/${id}`)).status).toBe(404);
  });
});

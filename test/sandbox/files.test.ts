import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makePdf, start, uploadText, type TestSandbox } from './helpers.js';

type Json = Record<string, unknown>;
let t: TestSandbox;
beforeAll(async () => {
  t = await start();
});
afterAll(() => t.close());

async function upload(name: string, data: string | Uint8Array, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const form = new FormData();
  form.append('file', new Blob([data]), name);
  const r = await fetch(`${t.url}/files/upload`, { method: 'POST', headers: { authorization: `Bearer ${t.token}`, 'x-service-api-version': '2025-04-21', ...headers }, body: form });
  return { status: r.status, body: (await r.json()) as Json };
}

describe('POST /files/upload', () => {
  test('a text file: {success, file}, contents by flag', async () => {
    const r = await upload('notes.txt', 'Invoice number: 12\fsecond page');
    expect(r.status).toBe(200);
    const file = r.body.file as Json;
    expect(file).toMatchObject({ object: 'file', name: 'notes.txt', type: 'TXT', contents: {} });
    expect(file.id).toMatch(/^file_/);
    const got = await t.call<{ file: Json }>('GET', `/files/${String(file.id)}?rawText=true`);
    expect(got.body.file.contents).toEqual({ rawText: 'Invoice number: 12\fsecond page' });
    // markdown pages only for PDF, IMG and DOCX (4.14)
    const md = await t.call<{ file: Json }>('GET', `/files/${String(file.id)}?markdown=true`);
    expect(md.body.file.contents).toEqual({});
  });

  test('a PDF with a text layer gives its page text', async () => {
    const r = await upload('invoice.pdf', makePdf(['Invoice number: 555\nTotal: 10.00 EUR', 'Terms and conditions']));
    expect(r.status).toBe(200);
    const id = String((r.body.file as Json).id);
    const got = await t.call<{ file: Json }>('GET', `/files/${id}?markdown=true&rawText=true&html=true`);
    expect(got.body.file).toMatchObject({ type: 'PDF' });
    const contents = got.body.file.contents as { rawText: string; pages: Array<{ pageNumber: number; markdown: string }> };
    expect(contents.pages.map((p) => p.pageNumber)).toEqual([1, 2]);
    expect(contents.pages[0].markdown).toContain('Invoice number: 555');
    expect(contents.pages[1].markdown).toContain('Terms and conditions');
    expect(contents.rawText).toContain('Total: 10.00 EUR');
    expect(contents).not.toHaveProperty('html');
  });

  test('DOCX gets html (empty: no office conversion offline); EXCEL is CSV for versions before 2024-12-23', async () => {
    const docx = await upload('a.docx', new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]));
    expect(docx.status).toBe(200);
    const d = await t.call<{ file: Json }>('GET', `/files/${String((docx.body.file as Json).id)}?html=true`);
    expect(d.body.file.contents).toEqual({ html: '' });
    const xlsx = await upload('b.xlsx', new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]));
    const id = String((xlsx.body.file as Json).id);
    expect((await t.call<{ file: Json }>('GET', `/files/${id}`)).body.file.type).toBe('EXCEL');
    expect((await t.call<{ file: Json }>('GET', `/files/${id}`, { version: '2024-11-14' })).body.file.type).toBe('CSV');
  });

  test.each([
    ['unsupported type', () => upload('virus.exe', 'MZ'), /unsupported file type ".exe"/],
    ['corrupted PDF', () => upload('x.pdf', 'not a pdf'), /corrupted/],
    ['empty file', () => upload('x.txt', ''), /is empty/],
    ['not UTF-8 text', () => upload('x.txt', new Uint8Array([0xff, 0xfe, 0xfd])), /not valid UTF-8/],
    ['not multipart', () => t.call('POST', '/files/upload', { body: { file: 'x' } }), /multipart\/form-data/],
  ])('400: %s', async (_n, send, msg) => {
    const r = await send();
    expect(r.status).toBe(400);
    expect(String(r.body.error)).toMatch(msg);
  });

  test('400 when the form has no "file" part', async () => {
    const form = new FormData();
    form.append('other', 'x');
    const r = await fetch(`${t.url}/files/upload`, { method: 'POST', headers: { authorization: `Bearer ${t.token}`, 'x-service-api-version': '2025-04-21' }, body: form });
    expect(r.status).toBe(400);
    expect(((await r.json()) as Json).error).toMatch(/field "file" is required/);
  });
});

describe('GET /files, GET and DELETE /files/:id', () => {
  test('list with nameContains and paging; delete; 404 afterwards', async () => {
    const s = await start();
    try {
      const ids = [];
      for (const n of ['a_1.txt', 'b_2.txt', 'a_3.csv']) ids.push(await uploadText(s, n, 'x'));
      const all = await s.call<{ files: Json[]; nextPageToken: string | null }>('GET', '/files?maxPageSize=2&sortDir=asc');
      expect(all.body.files.map((f) => f.id)).toEqual(ids.slice(0, 2));
      const rest = await s.call<{ files: Json[]; nextPageToken: string | null }>('GET', `/files?maxPageSize=2&sortDir=asc&nextPageToken=${String(all.body.nextPageToken)}`);
      expect(rest.body.files.map((f) => f.id)).toEqual(ids.slice(2));
      expect(rest.body.nextPageToken).toBeNull();
      const named = await s.call<{ files: Json[] }>('GET', '/files?nameContains=a_');
      expect(named.body.files).toHaveLength(2);
      const del = await s.call('DELETE', `/files/${ids[0]}`);
      expect(del).toMatchObject({ status: 200, body: { success: true } });
      expect((await s.call('GET', `/files/${ids[0]}`)).status).toBe(404);
      expect((await s.call('DELETE', `/files/${ids[0]}`)).status).toBe(404);
    } finally {
      await s.close();
    }
  });

  test('400 for a bad flag value or a malformed id', async () => {
    const id = await uploadText(t, 'f.txt', 'x');
    expect((await t.call('GET', `/files/${id}?rawText=maybe`)).status).toBe(400);
    expect((await t.call('GET', '/files/bad%20id')).status).toBe(400);
  });

  test('presignedUrl downloads the bytes without a token; a tampered signature is 403', async () => {
    const id = await uploadText(t, 'dl.txt', 'download me');
    const f = await t.call<{ file: { presignedUrl: string } }>('GET', `/files/${id}`);
    const r = await fetch(f.body.file.presignedUrl);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('download me');
    const bad = await fetch(f.body.file.presignedUrl.replace(/signature=(.)/, (_m, c: string) => `signature=${c === '0' ? '1' : '0'}`));
    expect(bad.status).toBe(403);
  });
});

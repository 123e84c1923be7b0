import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentDisposition } from '../../src/util/disposition.js';
import { INVOICE_CONFIG, createProcessor, start, uploadText, type TestSandbox } from '../sandbox/helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await start();
});
afterAll(() => t.close());

/** The file name a client gets from Content-Disposition (filename* wins, RFC 6266 4.3). */
function fileNameOf(header: string): string {
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star) return decodeURIComponent(star[1]);
  return /filename="([^"]*)"/.exec(header)![1];
}

describe('presigned downloads of non-ASCII file names', () => {
  it.each(['請求書.txt', 'Rechnung_März.txt', 'faktura_ł.txt', 'receipt 🧾.txt', 'plain "quoted" name.txt', "it's (a) 100%.txt"])('%s: 200 with the exact name (RFC 6266/5987)', async (name) => {
    const id = await uploadText(t, name, 'hello');
    const f = await t.call<{ file: { presignedUrl: string } }>('GET', `/files/${id}`);
    const r = await fetch(f.body.file.presignedUrl);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('hello');
    const header = r.headers.get('content-disposition')!;
    // Header bytes are Latin-1 on the wire: an ASCII-only value is what survives every client.
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(fileNameOf(header)).toBe(name);
  });

  it('keeps plain ASCII names as a plain filename', () => {
    expect(contentDisposition('invoice-1.pdf')).toBe('attachment; filename="invoice-1.pdf"');
    expect(contentDisposition('faktura_ł.txt')).toBe('attachment; filename="faktura__.txt"; filename*=UTF-8\'\'faktura_%C5%82.txt');
  });
});

describe('the sandbox speaks API, not CLI', () => {
  it('an item with a bare amount and an ambiguous date gets a 400 without flag advice', async () => {
    const processorId = await createProcessor(t, 'EXTRACT', { ...INVOICE_CONFIG, schema: { type: 'object', properties: { total: { type: 'object', 'extend:type': 'currency', properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } } }, due: { type: ['string', 'null'], format: 'date' } } } });
    const set = await t.call<{ evaluationSet: { id: string } }>('POST', '/evaluation_sets', { body: { name: 'api words', processorId } });
    const fileId = await uploadText(t, 'a.txt', 'x');
    const r = await t.call('POST', '/evaluation_set_items', { body: { evaluationSetId: set.body.evaluationSet.id, fileId, expectedOutput: { value: { total: 12.5, due: '03/04/2024' } } } });
    expect(r.status).toBe(400);
    expect(r.body.error).toContain('no currency code');
    expect(r.body.error).toContain('the order of day and month is not known');
    expect(r.body.error).not.toMatch(/--[a-z]|pass /);
  });
});

// `evalkit dataset upload` through the built binary against the real sandbox: every CSV form
// the issue names ends up on the service as the typed expected output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli.js';
import { CLASSIFY, folder, INVOICE, json, service, SPLITTER, type Service } from './dataset-helpers.js';

let s: Service;
beforeAll(async () => {
  s = await service();
});
afterAll(() => s.close());

const files = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`files/f${i}.txt`, `document ${i}\n`]));
const money = (amount: number, code: string) => ({ amount, iso_4217_currency_code: code });

/** Uploads into a new set; returns the set id and the service's items by file name. */
async function upload(csv: string, args: string[] = [], config: unknown = INVOICE, type = 'EXTRACT', extra: Record<string, string> = {}, apiVersion?: string) {
  const dir = folder({ 'data.csv': csv, ...files(12), ...extra });
  const processor = await s.processor(type, config);
  const pin = apiVersion === undefined ? [] : ['--api-version', apiVersion];
  const r = await s.upload(['data.csv', '--create-set', 'set', '--processor', processor, '--format', 'json', ...pin, ...args], dir);
  expect(r.stderr, r.stdout).toBe('');
  expect(r.code).toBe(0);
  const out = json(r);
  const items = await s.items(out.set.id, apiVersion);
  return { out, byFile: new Map(items.map((i) => [i.file, i.expectedOutput])), count: items.length };
}

describe('EXTRACT cells are coerced by the config\'s field types', () => {
  it('currency, number, date, boolean and enum forms; empty -> null; dotted and indexed headers', async () => {
    const csv = [
      'file,invoice_number,invoice_date,paid,pages,weight,status,total,vendor.name,vendor.country,line_items[0].description,line_items[0].quantity,line_items[0].amount,line_items[1].description,line_items[1].amount',
      'files/f0.txt,A-1,2024-03-15,true,3,"1,234.5",Paid,"$1,234.56",Acme Ltd,GB,Paper,4,$21.50,Toner,£64.99',
      'files/f1.txt,A-2,"Mar 20, 2024",no,1,12.25,open,USD 1234.56,,,,,,,',
      'files/f2.txt,A-3,17.04.2024,Y,,,VOID,"1.234,56 EUR",Nordwind,DE,Freight,1,"EUR 1.230,00",,',
      'files/f3.txt,A-4,2024-03-15T10:00:00Z,0,,-3,,€12,,,,,,,',
      'files/f4.txt,,18 March 2024,FALSE,,(12),Open,¥500,,,,,,,',
    ].join('\n');
    const { byFile, count } = await upload(csv);
    expect(count).toBe(5);
    expect(byFile.get('f0.txt')).toEqual({
      value: {
        invoice_number: 'A-1', invoice_date: '2024-03-15', paid: true, pages: 3, weight: 1234.5, status: 'Paid', total: money(1234.56, 'USD'),
        vendor: { name: 'Acme Ltd', country: 'GB' },
        line_items: [{ description: 'Paper', quantity: 4, amount: money(21.5, 'USD') }, { description: 'Toner', amount: money(64.99, 'GBP') }],
      },
    });
    // Empty cells are null; an array whose cells are all empty is null too (not [null]).
    expect(byFile.get('f1.txt')).toEqual({
      value: { invoice_number: 'A-2', invoice_date: '2024-03-20', paid: false, pages: 1, weight: 12.25, status: 'Open', total: money(1234.56, 'USD'), vendor: { name: null, country: null }, line_items: null },
    });
    expect(byFile.get('f2.txt')).toEqual({
      value: {
        invoice_number: 'A-3', invoice_date: '2024-04-17', paid: true, pages: null, weight: null, status: 'Void', total: money(1234.56, 'EUR'),
        vendor: { name: 'Nordwind', country: 'DE' }, line_items: [{ description: 'Freight', quantity: 1, amount: money(1230, 'EUR') }],
      },
    });
    expect((byFile.get('f3.txt') as { value: object }).value).toMatchObject({ invoice_date: '2024-03-15', paid: false, weight: -3, status: null, total: money(12, 'EUR') });
    expect((byFile.get('f4.txt') as { value: object }).value).toMatchObject({ invoice_number: null, invoice_date: '2024-03-18', paid: false, weight: -12, status: 'Open', total: money(500, 'JPY') });
  });

  it('--decimal-comma, --date-order dmy and --currency; a JSON cell for an array of objects (strings inside coerced)', async () => {
    const csv = [
      'file,invoice_date,weight,total,line_items',
      'files/f0.txt,03/04/2024,"1.234,5","12,50","[{""description"": ""Paper"", ""quantity"": ""2"", ""amount"": ""€3,10""}]"',
      'files/f1.txt,04/03/2024,"1 234,56",7,[]',
      'files/f2.txt,31/12/2024,"0,5","EUR 1.000,00",',
    ].join('\n');
    const { byFile } = await upload(csv, ['--decimal-comma', '--date-order', 'dmy', '--currency', 'eur']);
    expect(byFile.get('f0.txt')).toEqual({ value: { invoice_date: '2024-04-03', weight: 1234.5, total: money(12.5, 'EUR'), line_items: [{ description: 'Paper', quantity: 2, amount: money(3.1, 'EUR') }] } });
    expect(byFile.get('f1.txt')).toEqual({ value: { invoice_date: '2024-03-04', weight: 1234.56, total: money(7, 'EUR'), line_items: [] } });
    expect(byFile.get('f2.txt')).toEqual({ value: { invoice_date: '2024-12-31', weight: 0.5, total: money(1000, 'EUR'), line_items: null } });
  });

  it('--date-order mdy reads the same cells the other way', async () => {
    const { byFile } = await upload('file,invoice_date\nfiles/f0.txt,03/04/2024\n', ['--date-order', 'mdy']);
    expect(byFile.get('f0.txt')).toEqual({ value: { invoice_date: '2024-03-04' } });
  });

  it('an expectedOutput column holds the whole output as JSON (wrapped or bare), coerced like cells', async () => {
    const csv = [
      'file,expectedOutput',
      'files/f0.txt,"{""value"": {""invoice_number"": ""X-1"", ""total"": ""$5.00"", ""paid"": ""yes""}}"',
      'files/f1.txt,"{""invoice_number"": ""X-2"", ""invoice_date"": ""15 March 2024"", ""status"": ""paid""}"',
    ].join('\n');
    const { byFile } = await upload(csv);
    expect(byFile.get('f0.txt')).toEqual({ value: { invoice_number: 'X-1', total: money(5, 'USD'), paid: true } });
    expect(byFile.get('f1.txt')).toEqual({ value: { invoice_number: 'X-2', invoice_date: '2024-03-15', status: 'Paid' } });
  });

  it('--map renames columns to field paths, to the file column, or ignores them', async () => {
    const csv = 'Document,Invoice No,Vendor,Comments\nfiles/f0.txt,M-1,Acme,checked by Ann\n';
    const map = JSON.stringify({ Document: 'file', 'Invoice No': 'invoice_number', Vendor: 'vendor.name', Comments: null });
    const { byFile } = await upload(csv, ['--map', 'map.json'], INVOICE, 'EXTRACT', { 'map.json': map });
    expect(byFile.get('f0.txt')).toEqual({ value: { invoice_number: 'M-1', vendor: { name: 'Acme' } } });
  });
});

describe('CLASSIFY and SPLITTER', () => {
  it('a class column names a classification by id or type, ignoring case, spaces and hyphens', async () => {
    const csv = 'file,class\nfiles/f0.txt,invoice\nfiles/f1.txt,Receipt\nfiles/f2.txt,rcpt\nfiles/f3.txt,Bank Statement\nfiles/f4.txt,BANK-STATEMENT\n';
    const { byFile } = await upload(csv, [], CLASSIFY, 'CLASSIFY');
    expect(Object.fromEntries(byFile)).toEqual({
      'f0.txt': { id: 'invoice', type: 'invoice' },
      'f1.txt': { id: 'rcpt', type: 'receipt' },
      'f2.txt': { id: 'rcpt', type: 'receipt' },
      'f3.txt': { id: 'bank_statement', type: 'bank_statement' },
      'f4.txt': { id: 'bank_statement', type: 'bank_statement' },
    });
  });

  // Pinned: split ids (generated split_<n>) and identifiers exist on 2025-04-21 only; the
  // 2026-02-09 form of both cells is covered below and in dataset-2026.test.ts.
  it('a splits column holds the compact form or JSON (API 2025-04-21)', async () => {
    const json1 = JSON.stringify([{ id: 's1', classificationId: 'invoice', startPage: 1, endPage: 2, identifier: 'INV-7' }, { type: 'receipt', startPage: 3, endPage: 3 }]);
    const csv = `file,splits\nfiles/f0.txt,invoice:1-3;receipt:4-5\nfiles/f1.txt,Receipt:1; invoice : 2 - 4\nfiles/f2.txt,"${json1.replace(/"/g, '""')}"\n`;
    const { byFile } = await upload(csv, [], SPLITTER, 'SPLITTER', {}, '2025-04-21');
    expect(byFile.get('f0.txt')).toEqual({ splits: [
      { id: 'split_1', classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 3 },
      { id: 'split_2', classificationId: 'receipt', type: 'receipt', startPage: 4, endPage: 5 },
    ] });
    expect(byFile.get('f1.txt')).toEqual({ splits: [
      { id: 'split_1', classificationId: 'receipt', type: 'receipt', startPage: 1, endPage: 1 },
      { id: 'split_2', classificationId: 'invoice', type: 'invoice', startPage: 2, endPage: 4 },
    ] });
    expect(byFile.get('f2.txt')).toEqual({ splits: [
      { id: 's1', classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 2, identifier: 'INV-7' },
      { id: 'split_2', classificationId: 'receipt', type: 'receipt', startPage: 3, endPage: 3 },
    ] });
  });
});

describe('CLASSIFY confidence and SPLITTER split ids in either API form (spec 3.7)', () => {
  const dryRun = (dir: string, apiVersion: string) =>
    runCli(['dataset', 'upload', 'data.csv', '--config', 'config.json', '-e', 'ev_x', '--dry-run'], { cwd: dir, env: { EVALKIT_BASE_URL: '', EVALKIT_API_TOKEN: '', EVALKIT_API_VERSION: apiVersion } });
  const cell = (v: unknown) => `"${JSON.stringify(v).replace(/"/g, '""')}"`;

  it('splits with or without ids are built in the form of the API version in effect', async () => {
    const withIds = [{ id: 'split_1', type: 'invoice', startPage: 1, endPage: 2 }, { id: 'split_2', type: 'receipt', startPage: 3, endPage: 3 }];
    const without = [{ type: 'receipt', startPage: 1, endPage: 1 }];
    const dir = folder({ 'data.csv': `file,splits\nfiles/f0.txt,${cell(withIds)}\nfiles/f1.txt,${cell(without)}\n`, 'config.json': JSON.stringify(SPLITTER), ...files(2) });
    const old = await dryRun(dir, '2025-04-21');
    expect(old.code, old.stderr).toBe(0);
    expect(old.stdout).toContain('create line 2: splits {"splits":[{"id":"split_1","type":"invoice","startPage":1,"endPage":2,"classificationId":"invoice"},{"id":"split_2",');
    expect(old.stdout).toContain('create line 3: splits {"splits":[{"type":"receipt","startPage":1,"endPage":1,"id":"split_1","classificationId":"receipt"}]}');
    const cur = await dryRun(dir, '2026-02-09');
    expect(cur.code, cur.stderr).toBe(0);
    expect(cur.stdout).toContain('create line 2: splits {"splits":[{"type":"invoice","startPage":1,"endPage":2,"classificationId":"invoice"},{"type":"receipt",');
    expect(cur.stdout).toContain('create line 3: splits {"splits":[{"type":"receipt","startPage":1,"endPage":1,"classificationId":"receipt"}]}');
    // What 2026-02-09 cannot hold is named, not dropped.
    writeFileSync(path.join(dir, 'data.csv'), `file,splits\nfiles/f0.txt,${cell([{ id: 's7', type: 'receipt', startPage: 1, endPage: 1, observation: 'o' }])}\n`);
    const lossy = await dryRun(dir, '2026-02-09');
    expect(lossy.code).toBe(2);
    expect(lossy.stdout).toContain('data.csv:2:2 (splits) splits[0].id: api-version-form');
    expect(lossy.stdout).toContain('data.csv:2:2 (splits) splits[0].observation: api-version-form');
  });

  it('a CLASSIFY confidence of 1 is dropped under 2026-02-09, another is named', async () => {
    const dir = folder({ 'data.csv': `file,expectedOutput\nfiles/f0.txt,${cell({ id: 'rcpt', type: 'receipt', confidence: 1 })}\n`, 'config.json': JSON.stringify(CLASSIFY), ...files(1) });
    const old = await dryRun(dir, '2025-04-21');
    expect(old.stdout).toContain('create line 2: class {"id":"rcpt","type":"receipt","confidence":1}');
    const cur = await dryRun(dir, '2026-02-09');
    expect(cur.code, cur.stderr).toBe(0);
    expect(cur.stdout).toContain('create line 2: class {"id":"rcpt","type":"receipt"}');
    writeFileSync(path.join(dir, 'data.csv'), `file,expectedOutput\nfiles/f0.txt,${cell({ id: 'rcpt', type: 'receipt', confidence: 0.5 })}\n`);
    const lossy = await dryRun(dir, '2026-02-09');
    expect(lossy.code).toBe(2);
    expect(lossy.stdout).toContain('confidence: api-version-form');
  });
});

describe('CSV dialects', () => {
  it('reads a UTF-8 BOM and detects semicolons', async () => {
    const csv = '\ufefffile;invoice_number;weight;total\nfiles/f0.txt;B-1;12,5;"1.234,56 EUR"\nfiles/f1.txt;B-2;"3,25";€7\n';
    const { byFile } = await upload(csv);
    expect(byFile.get('f0.txt')).toEqual({ value: { invoice_number: 'B-1', weight: 12.5, total: money(1234.56, 'EUR') } });
    expect(byFile.get('f1.txt')).toEqual({ value: { invoice_number: 'B-2', weight: 3.25, total: money(7, 'EUR') } });
  });

  it('detects tabs, and keeps quoted cells with newlines and delimiters', async () => {
    const csv = 'file\tinvoice_number\tvendor.name\nfiles/f0.txt\t"T-1\tx"\t"Acme\r\nLtd"\nfiles/f1.txt\tT-2\tB\n';
    const { byFile } = await upload(csv);
    expect(byFile.get('f0.txt')).toEqual({ value: { invoice_number: 'T-1\tx', vendor: { name: 'Acme\r\nLtd' } } });
    expect(byFile.get('f1.txt')).toEqual({ value: { invoice_number: 'T-2', vendor: { name: 'B' } } });
  });

  it('--delimiter overrides the detection', async () => {
    const { byFile } = await upload('file|invoice_number|weight\nfiles/f0.txt|P-1|2,5\n', ['--delimiter', 'pipe']);
    expect(byFile.get('f0.txt')).toEqual({ value: { invoice_number: 'P-1', weight: 2.5 } });
  });
});

// `evalkit dataset download` through the built binary against a sandbox: the CSV (and files) it
// writes upload back to the same items.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { CLASSIFY, docs, folder, INVOICE, json, service, type Service } from './dataset-helpers.js';

let s: Service;
beforeAll(async () => {
  s = await service();
});
afterAll(() => s.close());

const download = (args: string[], cwd: string): Promise<CliResult> => runCli(['dataset', 'download', ...args], { cwd, env: s.env });

const INVOICE_CSV = [
  'file,invoice_number,invoice_date,paid,pages,weight,status,total,vendor.name,line_items[0].description,line_items[0].amount,line_items[1].description,line_items[1].amount',
  'files/doc-0.txt,INV-1,2024-03-15,yes,2,1.5,Open,EUR 10.50,"ACME, Inc.",Widget,EUR 5,"Gadget ""XL""",EUR 5.50',
  'files/doc-1.txt,=1+1,15 March 2024,no,,,Paid,$12,Café Ünïcode,,,,',
  'files/doc-2.txt,INV-3,,,,,,,,"multi\nline",EUR 1,,',
  'files/sub/doc-0.txt,INV-4,2024-01-02,true,1,0,Void,GBP 3,x,,,,',
].join('\n') + '\n';

describe('evalkit dataset download', () => {
  let processor: string;
  let setA: string;
  let dir: string;

  beforeAll(async () => {
    // files/sub/doc-0.txt has another content under the same name as files/doc-0.txt.
    // Not folder(): that one is removed after each test, and these tests share the dataset.
    dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-download-'));
    for (const [rel, content] of Object.entries({ 'data.csv': INVOICE_CSV, ...docs(3), 'files/sub/doc-0.txt': 'another document\n' })) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), content);
    }
    processor = await s.processor('EXTRACT', INVOICE);
    const up = await s.upload(['data.csv', '--create-set', 'A', '--processor', processor, '--format', 'json'], dir);
    expect(up.code, up.stderr).toBe(0);
    setA = json(up).set.id;
  });

  it('a downloaded CSV of 40 fileIds uploads back unchanged, and checking the fileIds in parallel warns of nothing', { timeout: 60_000 }, async () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'evalkit-download-ids-'));
    const csv = ['file,invoice_number', ...Array.from({ length: 40 }, (_, i) => `files/n-${i}.txt,INV-${i}`)].join('\n') + '\n';
    for (const [rel, content] of Object.entries({ 'data.csv': csv, ...docs(40, 'n') })) {
      mkdirSync(path.dirname(path.join(d, rel)), { recursive: true });
      writeFileSync(path.join(d, rel), content);
    }
    const up = await s.upload(['data.csv', '--create-set', 'Ids', '--processor', processor, '--format', 'json'], d);
    expect(up.code, up.stderr).toBe(0);
    const set = json(up).set.id;
    const down = await download(['-e', set, '--out', 'ids.csv'], d);
    expect(down.code, down.stderr).toBe(0);
    expect(readFileSync(path.join(d, 'ids.csv'), 'utf8').split('\n')[0]).toMatch(/^fileId,/);
    const again = await s.upload(['ids.csv', '-e', set, '--dry-run'], d);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/40 unchanged/);
    expect(again.stderr).not.toMatch(/MaxListenersExceededWarning|memory leak/);
    rmSync(d, { recursive: true, force: true });
  });

  it('with --files: the CSV and the files upload into a new set as the same items', async () => {
    const r = await download(['-e', setA, '--out', 'copy/data.csv', '--files', 'copy/files'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`set ${setA} "A": 4 items -> copy/data.csv; 4 files -> copy/files\n`);
    expect(readdirSync(path.join(dir, 'copy/files')).sort()).toEqual(['doc-0-2.txt', 'doc-0.txt', 'doc-1.txt', 'doc-2.txt']);
    expect(readFileSync(path.join(dir, 'copy/files/doc-0-2.txt'), 'utf8')).toBe('another document\n');
    const rows = parse(readFileSync(path.join(dir, 'copy/data.csv'), 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(rows[0])).toEqual(['file', 'expectedOutput', '# item']);
    expect(rows.map((x) => x.file)).toEqual(['files/doc-0.txt', 'files/doc-1.txt', 'files/doc-2.txt', 'files/doc-0-2.txt']);

    const again = await s.upload(['copy/data.csv', '--create-set', 'B', '--processor', processor, '--format', 'json'], dir);
    expect(again.code, again.stderr).toBe(0);
    const b = json(again);
    expect(b.tally.created).toBe(4);
    const view = (xs: Array<{ file: string; expectedOutput: unknown }>) =>
      xs.map(({ file, expectedOutput }) => JSON.stringify({ file: file.replace('doc-0-2.txt', 'doc-0.txt'), expectedOutput })).sort();
    expect(view(await s.items(b.set.id))).toEqual(view(await s.items(setA)));
    // Read back against the set it came from: every row is unchanged.
    const plan = json(await s.upload(['copy/data.csv', '-e', setA, '--dry-run', '--format', 'json'], dir)).plan;
    expect(plan).toMatchObject({ create: 0, update: 0, unchanged: 4 });
  });

  it('without --files: rows name the fileId, and upload makes the same items on the same files', async () => {
    const r = await download(['-e', setA, '-o', 'ids.csv', '--format', 'json'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ items: 4, columns: ['fileId', 'expectedOutput', '# item'], outside: false });
    const up = await s.upload(['ids.csv', '--create-set', 'C', '--processor', processor, '--format', 'json'], dir);
    expect(up.code, up.stderr).toBe(0);
    const strip = (xs: Array<{ file: string; expectedOutput: unknown }>) => xs.map(({ file, expectedOutput }) => ({ file, expectedOutput }));
    expect(strip(await s.items(json(up).set.id))).toEqual(strip(await s.items(setA)));
  });

  // Pinned: a confidence in an expected output exists on 2025-04-21 only (spec 3.7).
  it('CLASSIFY (with a confidence) round-trips too (API 2025-04-21)', async () => {
    const V = ['--api-version', '2025-04-21'];
    const p = await s.processor('CLASSIFY', CLASSIFY);
    const d = folder({ 'data.csv': 'file,expectedOutput\nfiles/doc-0.txt,"{""id"":""rcpt"",""type"":""receipt"",""confidence"":0.5}"\nfiles/doc-1.txt,"{""id"":""invoice"",""type"":""invoice""}"\n', ...docs(2) });
    const set = json(await s.upload(['data.csv', '--create-set', 'K', '--processor', p, '--format', 'json', ...V], d)).set.id;
    expect((await download(['-e', set, '-o', 'k.csv', ...V], d)).code).toBe(0);
    const copy = json(await s.upload(['k.csv', '--create-set', 'K2', '--processor', p, '--format', 'json', ...V], d)).set.id;
    const outs = async (id: string) => (await s.items(id, '2025-04-21')).map((x) => x.expectedOutput);
    expect(await outs(copy)).toEqual(await outs(set));
    expect(await outs(set)).toContainEqual({ id: 'rcpt', type: 'receipt', confidence: 0.5 });
  });

  it('CLASSIFY round-trips in the form of the version in effect (no confidence on 2026-02-09)', async () => {
    const p = await s.processor('CLASSIFY', CLASSIFY);
    const d = folder({ 'data.csv': 'file,class\nfiles/doc-0.txt,receipt\nfiles/doc-1.txt,invoice\n', ...docs(2) });
    const set = json(await s.upload(['data.csv', '--create-set', 'K', '--processor', p, '--format', 'json'], d)).set.id;
    expect((await download(['-e', set, '-o', 'k.csv'], d)).code).toBe(0);
    const copy = json(await s.upload(['k.csv', '--create-set', 'K2', '--processor', p, '--format', 'json'], d)).set.id;
    const outs = async (id: string) => (await s.items(id)).map((x) => x.expectedOutput);
    expect(await outs(copy)).toEqual(await outs(set));
    expect(await outs(set)).toEqual([{ id: 'rcpt', type: 'receipt' }, { id: 'invoice', type: 'invoice' }]);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an unknown set: exit 2 naming it, no CSV', async () => {
    const r = await download(['-e', 'ev_nope', '-o', 'x.csv'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('evaluation set "ev_nope" not found');
    expect(readdirSync(dir)).not.toContain('x.csv');
  });
});

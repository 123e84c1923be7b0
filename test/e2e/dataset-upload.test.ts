// `evalkit dataset upload` through the built binary against the real sandbox: validation before
// any write, the rejects file, sync semantics, prune, dry runs, path safety, flags.
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { docs, folder, json, service, SIMPLE, simpleCsv, type Service } from './dataset-helpers.js';

let s: Service;
beforeAll(async () => {
  s = await service();
});
afterAll(() => s.close());

const money = (amount: number, code: string) => ({ amount, iso_4217_currency_code: code });

const STATUS = {
  type: 'EXTRACT',
  schema: {
    type: 'object',
    properties: {
      invoice_number: { type: ['string', 'null'] },
      invoice_date: { type: ['string', 'null'], format: 'date' },
      total: SIMPLE.schema.properties.total,
      status: { enum: ['Open', 'Paid', null] },
    },
  },
};

// Row 3 has an ambiguous date and a formula; row 4 (two lines long) a bare amount and an unknown
// enum; row 6 a missing file and a formula; row 7 a leading minus and an @ formula.
const INVALID_CSV = [
  'file,invoice_number,invoice_date,total,status',
  'files/doc-0.txt,OK-1,2024-01-02,EUR 5,Open',
  'files/doc-1.txt,"=HYPERLINK(""http://x"",""y"")",03/04/2024,EUR 5,Open',
  'files/doc-2.txt,"multi',
  'line",2024-01-02,12.50,Closed',
  'files/missing.txt,+1,2024-01-02,EUR 5,Open',
  'files/doc-4.txt,@SUM(A1),2024-01-02,-2,Paid',
  'files/doc-5.txt,OK-6,2024-01-02,EUR 6,Paid',
].join('\n') + '\n';

async function setCount(processorId: string): Promise<number> {
  let n = 0;
  for await (const _ of s.client.sets.listAll({ entityId: processorId })) n++;
  return n;
}

describe('validation comes first', () => {
  it('invalid rows: every finding with line, column and field, a rejects file, exit 2, and nothing written', async () => {
    const dir = folder({ 'data.csv': INVALID_CSV, ...docs(6) });
    const p = await s.processor('EXTRACT', STATUS);
    const filesBefore = await s.fileCount();
    const r = await s.upload(['data.csv', '--create-set', 'v', '--processor', p], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('data.csv:3:3 (invoice_date) invoice_date: coerce-date: "03/04/2024" could be day-month or month-day');
    expect(r.stdout).toContain('  hint: pass --date-order dmy or --date-order mdy, or write the date as YYYY-MM-DD');
    expect(r.stdout).toContain('data.csv:4:4 (total) total: coerce-currency: "12.50" names no currency');
    expect(r.stdout).toContain('data.csv:4:5 (status) status: coerce-enum: "Closed" is not one of "Open", "Paid"');
    expect(r.stdout).toContain('data.csv:6:1 (file) file-missing: file "files/missing.txt" does not exist');
    expect(r.stdout).toContain('data.csv:7:4 (total) total: coerce-currency');
    expect(r.stderr).toContain('4 of 6 rows are invalid (5 findings); nothing was written');
    expect(r.stderr).toContain('--skip-invalid');
    // Nothing on the service: no set, no file; no journal either.
    expect(await setCount(p)).toBe(0);
    expect(await s.fileCount()).toBe(filesBefore);
    expect(existsSync(path.join(dir, 'data.journal.ndjson'))).toBe(false);

    // The rejects file parses back: the original rows (formulas made inert) and an error column.
    const text = readFileSync(path.join(dir, 'data.rejects.csv'), 'utf8');
    const rows = parse(text, { relax_column_count: false }) as string[][];
    expect(rows[0]).toEqual(['file', 'invoice_number', 'invoice_date', 'total', 'status', '# error']);
    expect(rows.slice(1).map((row) => row.slice(0, 5))).toEqual([
      ['files/doc-1.txt', `'=HYPERLINK("http://x","y")`, '03/04/2024', 'EUR 5', 'Open'],
      ['files/doc-2.txt', 'multi\nline', '2024-01-02', '12.50', 'Closed'],
      ['files/missing.txt', "'+1", '2024-01-02', 'EUR 5', 'Open'],
      ['files/doc-4.txt', "'@SUM(A1)", '2024-01-02', "'-2", 'Paid'],
    ]);
    expect(rows[1][5]).toMatch(/^line 3: column 3 \(invoice_date\): invoice_date: coerce-date: /);
    expect(rows[2][5]).toContain('line 4: column 4 (total)');
    expect(rows[2][5]).toContain('column 5 (status)');
    // No cell of the file starts with a character a spreadsheet would execute.
    for (const row of rows) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@]/);
  });

  it('--skip-invalid uploads the valid rows (exit 1); the fixed rejects file then uploads as it is', async () => {
    const dir = folder({ 'data.csv': INVALID_CSV, ...docs(6) });
    const p = await s.processor('EXTRACT', STATUS);
    const r = await s.upload(['data.csv', '--create-set', 'v', '--processor', p, '--skip-invalid', '--format', 'json'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('4 invalid rows were left out');
    const out = json(r);
    expect(out.tally).toMatchObject({ created: 2, skippedInvalid: 4, failed: 0 });
    expect((await s.items(out.set.id)).map((i) => i.file)).toEqual(['doc-0.txt', 'doc-5.txt']);

    // Fix the rejected rows in the rejects file (as a spreadsheet user would) and upload it.
    const rejects = path.join(dir, 'data.rejects.csv');
    const fixed = readFileSync(rejects, 'utf8')
      .replace('03/04/2024', '2024-04-03')
      .replace(',12.50,Closed', ',EUR 12.50,Paid')
      .replace('files/missing.txt', 'files/doc-3.txt')
      .replace(",'-2,", ',EUR 2,');
    writeFileSync(rejects, fixed);
    const again = await s.upload(['data.rejects.csv', '--evaluation-set', out.set.id, '--format', 'json'], dir);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(json(again).tally).toMatchObject({ created: 4, failed: 0 });
    const items = await s.items(out.set.id);
    expect(items.map((i) => i.file)).toEqual(['doc-0.txt', 'doc-1.txt', 'doc-2.txt', 'doc-3.txt', 'doc-4.txt', 'doc-5.txt']);
    // The inert formulas went back to what the user wrote.
    expect(items[1].expectedOutput).toEqual({ value: { invoice_number: '=HYPERLINK("http://x","y")', invoice_date: '2024-04-03', total: money(5, 'EUR'), status: 'Open' } });
    expect(items[3].expectedOutput).toMatchObject({ value: { invoice_number: '+1' } });
    expect(items[4].expectedOutput).toMatchObject({ value: { invoice_number: '@SUM(A1)', total: money(2, 'EUR') } });
  });

  it('header problems stop the upload before any row (exit 2), naming the column and the fields', async () => {
    const dir = folder({ 'data.csv': 'file,invoice_number,totl\nfiles/doc-0.txt,A,EUR 1\n', ...docs(1) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const r = await s.upload(['data.csv', '--create-set', 'h', '--processor', p], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('data.csv:1:3 (totl) totl: unknown-field: column "totl": the processor config has no field totl');
    expect(r.stdout).toContain('fields of the config: invoice_number, total');
    expect(r.stderr).toContain("the CSV's columns do not fit the processor config");
    expect(await setCount(p)).toBe(0);
  });

  it('a CSV syntax error names the file, line and column', async () => {
    const dir = folder({ 'data.csv': 'file,invoice_number\nfiles/doc-0.txt,A\nfiles/doc-1.txt,"open\n', ...docs(2) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const r = await s.upload(['data.csv', '--create-set', 'h', '--processor', p], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/evalkit: .*data\.csv:3:\d+: CSV: Quote Not Closed/);
    expect(r.stderr).toContain('hint: a quoted cell is never closed');
  });
});

describe('file paths', () => {
  it('refuses a path that leaves the CSV\'s folder, also through a symlink, unless --allow-outside', async () => {
    const outside = folder({ 'secret.txt': 'outside the dataset\n' });
    // A plain ../ path and a symlink inside the folder that points out of it.
    const dir = folder({ 'data.csv': `file,invoice_number\n../${path.basename(outside)}/secret.txt,A\nfiles/link.txt,B\nfiles/doc-0.txt,C\n`, ...docs(1) });
    symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'files/link.txt'));
    const p = await s.processor('EXTRACT', SIMPLE);
    const filesBefore = await s.fileCount();
    const r = await s.upload(['data.csv', '--create-set', 'p', '--processor', p], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`data.csv:2:1 (file) file-outside: file "../${path.basename(outside)}/secret.txt" is outside the CSV's folder`);
    expect(r.stdout).toContain('data.csv:3:1 (file) file-outside: file "files/link.txt" is outside');
    expect(r.stdout).toContain('hint: move the file next to the CSV, or pass --allow-outside if reading it is intended');
    expect(await s.fileCount()).toBe(filesBefore);

    const ok = await s.upload(['data.csv', '--create-set', 'p', '--processor', p, '--allow-outside', '--format', 'json'], dir);
    expect(ok.code).toBe(0);
    const items = await s.items(json(ok).set.id);
    // The two outside rows name the same content: uploaded once, two items.
    expect(items.map((i) => i.file)).toEqual(['doc-0.txt', 'secret.txt', 'secret.txt']);
    expect(await s.fileCount()).toBe(filesBefore + 2);
  });
});

describe('sync semantics', () => {
  it('re-uploading an edited CSV updates only the edited rows; unchanged items are not touched', async () => {
    const dir = folder({ 'data.csv': simpleCsv(8, 8), ...docs(8) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const first = json(await s.upload(['data.csv', '--create-set', 'e', '--processor', p, '--format', 'json'], dir));
    expect(first.tally).toMatchObject({ created: 8, updated: 0, unchanged: 0, filesUploaded: 8 });
    // Read through 2025-04-21: its items carry updatedAt (2026-02-09's do not); EXTRACT outputs are the same in both.
    const view = '2025-04-21';
    const before = await s.items(first.set.id, view);

    writeFileSync(path.join(dir, 'data.csv'), simpleCsv(8, 8, (i) => (i === 2 || i === 5 ? `USD ${i}00` : `EUR ${i + 1}.50`)));
    const r = await s.upload(['data.csv', '--evaluation-set', first.set.id, '--format', 'json'], dir);
    expect(r.code).toBe(0);
    const second = json(r);
    expect(second.tally).toMatchObject({ created: 0, updated: 2, unchanged: 6, deleted: 0, failed: 0, filesUploaded: 0 });
    const after = await s.items(first.set.id, view);
    expect(after.map((i) => i.id)).toEqual(before.map((i) => i.id));
    for (let i = 0; i < 8; i++) {
      if (i === 2 || i === 5) {
        expect(after[i].expectedOutput).toEqual({ value: { invoice_number: `N-${i}`, total: money(i * 100, 'USD') } });
        expect(after[i].updatedAt >= before[i].updatedAt).toBe(true);
      } else {
        expect(after[i]).toEqual(before[i]);
      }
    }
    // Once more: nothing to do.
    expect(json(await s.upload(['data.csv', '--evaluation-set', first.set.id, '--format', 'json'], dir)).tally).toMatchObject({ created: 0, updated: 0, unchanged: 8, requests: expect.any(Number) });
  });

  it('--prune deletes items no longer in the CSV: refused without a terminal or --yes, planned by --dry-run, done with --yes', async () => {
    const dir = folder({ 'data.csv': simpleCsv(5, 5), ...docs(5) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const setId = json(await s.upload(['data.csv', '--create-set', 'pr', '--processor', p, '--format', 'json'], dir)).set.id as string;
    const gone = (await s.items(setId)).filter((i) => i.file === 'doc-1.txt' || i.file === 'doc-3.txt').map((i) => i.id).sort();
    writeFileSync(path.join(dir, 'data.csv'), simpleCsv(5, 5).split('\n').filter((l) => !/doc-[13]\.txt/.test(l)).join('\n'));

    const plain = json(await s.upload(['data.csv', '-e', setId, '--format', 'json'], dir));
    expect(plain.tally).toMatchObject({ unchanged: 3, deleted: 0 });
    expect(plain.plan).toMatchObject({ keep: 2, delete: 0 });

    const refused = await s.upload(['data.csv', '-e', setId, '--prune'], dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--prune would delete 2 items that the CSV does not hold; nothing was written');
    expect(refused.stderr).toContain('add --yes');

    const dry = await s.upload(['data.csv', '-e', setId, '--prune', '--dry-run'], dir);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('0 create, 0 update, 3 unchanged, 2 delete');
    for (const id of gone) expect(dry.stdout).toContain(`  delete ${id}`);
    expect((await s.items(setId)).length).toBe(5);

    const r = await s.upload(['data.csv', '-e', setId, '--prune', '--yes', '--format', 'json'], dir);
    expect(r.code).toBe(0);
    expect(json(r).tally).toMatchObject({ deleted: 2, unchanged: 3, created: 0 });
    expect((await s.items(setId)).map((i) => i.file)).toEqual(['doc-0.txt', 'doc-2.txt', 'doc-4.txt']);
  });

  it('--dry-run validates and prints the plan, and writes nothing: no set, file, journal or rejects file', async () => {
    const dir = folder({ 'data.csv': simpleCsv(3, 3), ...docs(3) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const filesBefore = await s.fileCount();
    const r = await s.upload(['data.csv', '--create-set', 'd', '--processor', p, '--dry-run'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      'plan for new set "d": 3 create, 0 update, 0 unchanged, 0 delete',
      // Each create with its typed values (the cell as typed when it reads differently).
      '  create line 2: invoice_number "N-0", total "EUR 1.50" typed as 1.5 EUR',
      '  create line 3: invoice_number "N-1", total "EUR 2.50" typed as 2.5 EUR',
      '  create line 4: invoice_number "N-2", total "EUR 3.50" typed as 3.5 EUR',
      'dry run: nothing was written',
      '',
    ]);
    expect(await setCount(p)).toBe(0);
    expect(await s.fileCount()).toBe(filesBefore);
    expect(existsSync(path.join(dir, 'data.journal.ndjson'))).toBe(false);

    // Offline: --config instead of the service, and no service variables at all.
    const offlineEnv = { EVALKIT_BASE_URL: '', EVALKIT_API_TOKEN: '' };
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify(SIMPLE));
    const offline = await runCli(['dataset', 'upload', 'data.csv', '--config', 'config.json', '-e', 'ev_x', '--dry-run'], { cwd: dir, env: offlineEnv });
    expect(offline.code).toBe(0);
    expect(offline.stdout).toContain('plan for set ev_x: 3 create, 0 update, 0 unchanged, 0 delete');
    expect(offline.stdout).toContain("offline (no EVALKIT_BASE_URL): the set's items were not read");
    writeFileSync(path.join(dir, 'data.csv'), simpleCsv(3, 3) + 'files/doc-0.txt,X,12.5\n');
    const invalid = await runCli(['dataset', 'upload', 'data.csv', '--config', 'config.json', '-e', 'ev_x', '--dry-run'], { cwd: dir, env: offlineEnv });
    expect(invalid.code).toBe(2);
    expect(invalid.stdout).toContain('data.csv:5:3 (total) total: coerce-currency');
    expect(existsSync(path.join(dir, 'data.rejects.csv'))).toBe(false);
    // A real upload needs the service.
    const noService = await runCli(['dataset', 'upload', 'data.csv', '--config', 'config.json', '-e', 'ev_x'], { cwd: dir, env: offlineEnv });
    expect(noService.code).toBe(2);
    expect(noService.stderr).toContain('an upload needs the service');
  });

  it('a row the service refuses fails alone: its chunk is sent again one item at a time (exit 1)', async () => {
    // The rows are checked against --config (which has a po field); the service checks items
    // against the processor's draft, which does not.
    const withPo = { ...SIMPLE, schema: { type: 'object', properties: { ...SIMPLE.schema.properties, po: { type: ['string', 'null'] } } } };
    const csv = ['file,expectedOutput', ...[0, 1, 2, 3].map((i) => `files/doc-${i}.txt,"{""invoice_number"": ""${i}""${i === 2 ? ', ""po"": ""PO-9""' : ''}}"`)].join('\n');
    const dir = folder({ 'data.csv': csv, 'config.json': JSON.stringify(withPo), ...docs(4) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const r = await s.upload(['data.csv', '--config', 'config.json', '--create-set', 'refused', '--processor', p, '--format', 'json'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('1 operation failed');
    const out = json(r);
    expect(out.tally).toMatchObject({ created: 3, failed: 1 });
    expect(out.failures).toMatchObject([{ operation: 'create', line: 4 }]);
    expect(out.failures[0].error).toContain('unknown-field');
    expect((await s.items(out.set.id)).map((i) => i.file)).toEqual(['doc-0.txt', 'doc-1.txt', 'doc-3.txt']);
  });
});

describe('flags and output', () => {
  it('--format json prints the result with sorted keys and the tally; text ends with a one-line tally', async () => {
    const dir = folder({ 'data.csv': simpleCsv(4, 2), ...docs(2) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const r = await s.upload(['data.csv', '--create-set', 'j', '--processor', p, '--format', 'json'], dir);
    expect(r.code).toBe(0);
    const out = json(r);
    expect(Object.keys(out)).toEqual([...Object.keys(out)].sort());
    expect(Object.keys(out.tally)).toEqual([...Object.keys(out.tally)].sort());
    expect(out).toMatchObject({ status: 'done', dryRun: false, rows: { total: 4, valid: 4, invalid: 0 }, set: { created: true, name: 'j' }, processor: { id: p, type: 'EXTRACT' } });
    expect(out.tally).toMatchObject({ created: 4, updated: 0, unchanged: 0, deleted: 0, failed: 0, filesUploaded: 2 });
    expect(out.tally.elapsedMs).toBeGreaterThan(0);
    expect(typeof out.tally.itemsPerSecond).toBe('number');

    const text = await s.upload(['data.csv', '-e', out.set.id], dir);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^set ${out.set.id} "j": 0 created, 0 updated, 4 unchanged, 0 deleted, 0 failed in [0-9.]+ s \\([0-9.]+ items/s\\)\\n$`));
    // The token never shows.
    expect(text.stdout + text.stderr + readFileSync(path.join(dir, 'data.journal.ndjson'), 'utf8')).not.toContain(s.t.token);
  });

  it('--version picks the processor version whose config checks the rows; -v is refused with a pointer', async () => {
    const p = await s.processor('EXTRACT', SIMPLE);
    // Publish 1.0 with a `po` field; the draft does not have it.
    const pub = await s.t.call('POST', `/processors/${p}/publish`, { body: { releaseType: 'major', config: { ...SIMPLE, schema: { type: 'object', properties: { ...SIMPLE.schema.properties, po: { type: ['string', 'null'] } } } } } });
    expect(pub.status).toBe(200);
    const dir = folder({ 'data.csv': 'file,invoice_number,po\nfiles/doc-0.txt,A,PO-1\n', ...docs(1) });

    const draft = await s.upload(['data.csv', '--create-set', 'x', '--processor', p, '--dry-run'], dir);
    expect(draft.code).toBe(2);
    expect(draft.stdout).toContain('data.csv:1:3 (po) po: unknown-field');
    const v1 = await s.upload(['data.csv', '--create-set', 'x', '--processor', p, '--dry-run', '--version', '1.0'], dir);
    expect(v1.code).toBe(0);
    expect(v1.stdout).toContain('1 create');

    const short = await s.upload(['data.csv', '--create-set', 'x', '--processor', p, '-v', '1.0'], dir);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('-v is not an option of dataset upload');
    expect(short.stderr).toContain('the processor version is --version V');

    const help = await s.upload(['--help'], dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--version');
    expect(help.stdout).not.toMatch(/-v,/);
    expect(help.stdout).toContain('Examples:');
  });

  it.each([
    [['--concurrency', '0'], '--concurrency must be an integer from 1 to 256'],
    [['--chunk-size', '1001'], '--chunk-size must be an integer from 1 to 1000'],
    [['--yes'], '--yes only confirms --prune'],
    [['--currency', 'EURO'], '--currency "EURO" is not an ISO 4217 code'],
    [['--delimiter', ';;'], '--delimiter ";;" is not a single delimiter character'],
    [['--version', '1.0', '--config', 'c.json'], '--version picks the config on the service; --config replaces it'],
  ])('usage error %j -> exit 2', async (args, message) => {
    const dir = folder({ 'data.csv': simpleCsv(1, 1), ...docs(1) });
    const r = await s.upload(['data.csv', '-e', 'ev_x', ...args], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

// Write-back through the built CLI against the sandbox: `dataset upload errors.csv` corrects the
// set and the dataset CSV (only the corrected cells change; every other byte stays), so the next
// sync of the CSV plans nothing; an untouched errors file changes nothing anywhere; a correction
// the CSV cannot hold is refused before anything is written.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { uploadText } from '../sandbox/helpers.js';
import { json, service, type Service } from './dataset-helpers.js';
import { correct, DATA, errorsFile, setup } from './writeback-helpers.js';

let s: Service | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe('dataset upload errors.csv --source data.csv', () => {
  it('corrects the set and exactly the corrected cells of data.csv; the next sync plans nothing', async () => {
    s = await service();
    const st = await setup(s);
    let errors = errorsFile(st, [['doc-0.txt', 'total'], ['doc-1.txt', 'invoice_number'], ['doc-2.txt', 'invoice_number'], ['doc-1.txt', 'total']]);
    // Typed as data.csv types amounts; and a formula-looking label.
    errors = correct(errors, st, 'doc-0.txt', 'total', '58.76 USD');
    errors = correct(errors, st, 'doc-1.txt', 'invoice_number', "'=N-1b");
    writeFileSync(path.join(st.dir, 'errors.csv'), errors);

    const r = await s.upload(['errors.csv', '-e', st.setId, '--source', 'data.csv', '--format', 'json'], st.dir);
    expect(r.code, r.stderr).toBe(0);
    const out = json(r);
    expect(out.tally).toMatchObject({ updated: 2, unchanged: 1, failed: 0 });
    expect(out.writeBack).toEqual({ csv: 'data.csv', rows: 2, cells: 2, written: true });
    // Byte for byte: the two corrected cells, nothing else (BOM, CRLF, quoting, notes, the blank line).
    expect(readFileSync(path.join(st.dir, 'data.csv'), 'utf8')).toBe(
      '\ufefffile,invoice_number,total,# notes\r\n' +
        'files/doc-0.txt,"N-0",58.76 USD,"first, with a comma"\r\n' +
        "files/doc-1.txt,'=N-1b,  EUR 11.50  ,\r\n" +
        '\r\n' +
        'files/doc-2.txt,\'=N-2,"EUR 12.50","multi\r\nline"\r\n',
    );
    const held = new Map((await s.items(st.setId)).map((i) => [path.basename(i.file), (i.expectedOutput as { value: Record<string, unknown> }).value]));
    expect(held.get('doc-0.txt')!.total).toEqual({ amount: 58.76, iso_4217_currency_code: 'USD' });
    expect(held.get('doc-1.txt')!.invoice_number).toBe('=N-1b');
    expect(held.get('doc-2.txt')!.invoice_number).toBe('=N-2');

    const sync = await s.upload(['data.csv', '-e', st.setId, '--dry-run', '--format', 'json'], st.dir);
    expect(sync.code, sync.stderr).toBe(0);
    expect(json(sync).plan).toMatchObject({ create: 0, update: 0, unchanged: 3 });

    // Sent again: nothing left to do, in the set or the CSV.
    const again = await s.upload(['errors.csv', '-e', st.setId, '--source', 'data.csv', '--format', 'json'], st.dir);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again).tally).toMatchObject({ updated: 0, unchanged: 3 });
    expect(json(again).writeBack).toMatchObject({ rows: 0, written: false });
  }, 60_000);

  it('an untouched errors file changes nothing: no update, data.csv byte-identical', async () => {
    s = await service();
    const st = await setup(s);
    writeFileSync(path.join(st.dir, 'errors.csv'), errorsFile(st, [['doc-0.txt', 'total'], ['doc-1.txt', 'invoice_number'], ['doc-2.txt', 'invoice_number'], ['doc-2.txt', 'total']]));
    const r = await s.upload(['errors.csv', '-e', st.setId, '--source', 'data.csv', '--format', 'json'], st.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r).tally).toMatchObject({ updated: 0, unchanged: 3 });
    expect(readFileSync(path.join(st.dir, 'data.csv'), 'utf8')).toBe(DATA);
  }, 60_000);

  it('the config file\'s "csv" is the default --source; text output says what was written', async () => {
    s = await service();
    const st = await setup(s);
    writeFileSync(path.join(st.dir, 'evalkit.config.json'), JSON.stringify({ datasets: { inv: { csv: 'data.csv', evaluationSet: st.setId } } }));
    writeFileSync(path.join(st.dir, 'errors.csv'), correct(errorsFile(st, [['doc-1.txt', 'invoice_number']]), st, 'doc-1.txt', 'invoice_number', 'N-1 fixed'));
    const r = await s.upload(['errors.csv'], st.dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^write back: 1 cell in 1 row of data\.csv written$/m);
    expect(readFileSync(path.join(st.dir, 'data.csv'), 'utf8')).toBe(DATA.replace('files/doc-1.txt,N-1,', 'files/doc-1.txt,N-1 fixed,'));
  }, 60_000);

  it('a correction that does not read is an invalid row: exit 2 naming errors.csv and its line, nothing written; a dry run says what it would write', async () => {
    s = await service();
    const st = await setup(s);
    writeFileSync(path.join(st.dir, 'errors.csv'), correct(errorsFile(st, [['doc-0.txt', 'total'], ['doc-1.txt', 'total']]), st, 'doc-1.txt', 'total', 'abc'));
    const before = JSON.stringify(await s.items(st.setId));
    const r = await s.upload(['errors.csv', '-e', st.setId, '--source', 'data.csv'], st.dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^errors\.csv:3 total: coerce-currency: /m);
    expect(r.stderr).toMatch(/1 of 2 rows are invalid .*nothing was written/);
    expect(readFileSync(path.join(st.dir, 'data.csv'), 'utf8')).toBe(DATA);
    expect(JSON.stringify(await s.items(st.setId))).toBe(before);

    writeFileSync(path.join(st.dir, 'errors.csv'), correct(errorsFile(st, [['doc-1.txt', 'total']]), st, 'doc-1.txt', 'total', '$3'));
    const dry = await s.upload(['errors.csv', '-e', st.setId, '--source', 'data.csv', '--dry-run'], st.dir);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^ {2}write back: 1 cell in 1 row of data\.csv$/m);
    expect(dry.stdout).toMatch(/dry run: nothing was written/);
    expect(readFileSync(path.join(st.dir, 'data.csv'), 'utf8')).toBe(DATA);

    // A --source without the corrected item's row: refused, naming the item; nothing written.
    const part = 'file,invoice_number,total\nfiles/doc-0.txt,N-0,EUR 10.50\n';
    writeFileSync(path.join(st.dir, 'part.csv'), part);
    const none = await s.upload(['errors.csv', '-e', st.setId, '--source', 'part.csv'], st.dir);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(new RegExp(`part\\.csv: cannot write a label into the dataset CSV: \\(item ${st.ids.get('doc-1.txt')!}\\): no valid row of the CSV names its file; nothing was written`));
    expect(readFileSync(path.join(st.dir, 'part.csv'), 'utf8')).toBe(part);
    expect(JSON.stringify(await s.items(st.setId))).toBe(before);
  }, 60_000);

  it('a correction data.csv has no column for is refused (exit 2) before anything is written; --no-write-back plans the set only; with no dataset CSV named, a note says what a sync would undo', async () => {
    s = await service();
    const narrow = 'file,invoice_number\nfiles/doc-0.txt,N-0\nfiles/doc-1.txt,N-1\nfiles/doc-2.txt,N-2\n';
    const st = await setup(s, narrow);
    // The set holds a total the CSV does not set (uploaded from elsewhere).
    const id = st.ids.get('doc-0.txt')!;
    await s.client.items(st.setId).update(id, { expectedOutput: { value: { invoice_number: 'N-0', total: { amount: 1, iso_4217_currency_code: 'EUR' } } } });
    st.outputs.set(id, { value: { invoice_number: 'N-0', total: { amount: 1, iso_4217_currency_code: 'EUR' } } });
    writeFileSync(path.join(st.dir, 'errors.csv'), correct(errorsFile(st, [['doc-0.txt', 'total']]), st, 'doc-0.txt', 'total', 'EUR 2'));
    const before = JSON.stringify(await s.items(st.setId));
    const r = await s.upload(['errors.csv', '-e', st.setId, '--source', 'data.csv'], st.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/data\.csv:2: cannot write a label into the dataset CSV: line 2 \(item evi_\w+\): no column holds total\.amount, where the set's change goes \(add its column\); nothing was written/);
    expect(r.stderr).toMatch(/--no-write-back/);
    expect(readFileSync(path.join(st.dir, 'data.csv'), 'utf8')).toBe(narrow);
    expect(JSON.stringify(await s.items(st.setId))).toBe(before);

    const only = await s.upload(['errors.csv', '-e', st.setId, '--source', 'data.csv', '--no-write-back', '--dry-run', '--format', 'json'], st.dir);
    expect(only.code, only.stderr).toBe(0);
    expect(json(only).plan.update).toBe(1);
    expect(json(only).writeBack).toBeUndefined();
    expect(only.stderr).toBe('');
    // With no dataset CSV named at all, the set is corrected and a note says what a sync of the old CSV would do.
    const bare = await s.upload(['errors.csv', '-e', st.setId, '--format', 'json'], st.dir);
    expect(bare.code, bare.stderr).toBe(0);
    expect(json(bare).tally.updated).toBe(1);
    expect(bare.stderr).toMatch(/no dataset CSV to write the corrections into .*a sync of the old CSV would put the old labels back/);
    expect(readFileSync(path.join(st.dir, 'data.csv'), 'utf8')).toBe(narrow);
  }, 60_000);
});

describe('dataset download --into data.csv', () => {
  it('brings labels corrected on the service into the rows of their items, only the cells that differ; the next sync plans nothing', async () => {
    s = await service();
    const st = await setup(s);
    const id = st.ids.get('doc-1.txt')!;
    await s.client.items(st.setId).update(id, { expectedOutput: { value: { invoice_number: 'N-1 svc', total: { amount: 99, iso_4217_currency_code: 'EUR' } } } });
    // An item whose file no row names (a path column cannot name it): said, not added.
    const extra = await uploadText(s.t, 'extra.txt', 'INVOICE X');
    await s.client.items(st.setId).create([{ fileId: extra, expectedOutput: { value: { invoice_number: 'X', total: null } } }]);

    const dry = await runCli(['dataset', 'download', '-e', st.setId, '--into', 'data.csv', '--dry-run', '--format', 'json'], { cwd: st.dir, env: s.env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ rows: 1, cells: 2, unchanged: 2, pending: 0, appended: 0, written: false });
    // A dry run says what would change, cell by cell.
    expect(JSON.parse(dry.stdout).changes).toEqual([{ line: 3, item: id, cells: [{ column: 'invoice_number', from: 'N-1', to: 'N-1 svc' }, { column: 'total', from: '  EUR 11.50  ', to: '99 EUR' }] }]);
    const dryText = await runCli(['dataset', 'download', '-e', st.setId, '--into', 'data.csv', '--dry-run'], { cwd: st.dir, env: s.env });
    expect(dryText.stdout).toContain(`  line 3 (${id}): invoice_number: "N-1" -> "N-1 svc", total: "  EUR 11.50  " -> "99 EUR"`);
    expect(dry.stderr).toMatch(/1 item of the set has no row in data\.csv, which has no fileId column/);
    expect(readFileSync(path.join(st.dir, 'data.csv'), 'utf8')).toBe(DATA);

    const r = await runCli(['dataset', 'download', '-e', st.setId, '--into', 'data.csv'], { cwd: st.dir, env: s.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/-> data\.csv: 2 cells in 1 row \(written\); 2 rows already agree/);
    expect(readFileSync(path.join(st.dir, 'data.csv'), 'utf8')).toBe(DATA.replace('files/doc-1.txt,N-1,  EUR 11.50  ,', 'files/doc-1.txt,N-1 svc,99 EUR,'));
    const sync = await s.upload(['data.csv', '-e', st.setId, '--dry-run', '--format', 'json'], st.dir);
    expect(json(sync).plan).toMatchObject({ create: 0, update: 0, unchanged: 3, keep: 1 });
  }, 60_000);

  it('is three-way: a CSV edit not yet uploaded stays, a label changed on the service comes in, one changed in both is refused with nothing written', async () => {
    s = await service();
    const st = await setup(s);
    // The service corrects doc-1's number; the CSV (not uploaded yet) edits doc-0's.
    const one = st.ids.get('doc-1.txt')!;
    await s.client.items(st.setId).update(one, { expectedOutput: { value: { ...st.outputs.get(one)!.value, invoice_number: 'N-1 svc' } } });
    const edited = DATA.replace('files/doc-0.txt,"N-0",', 'files/doc-0.txt,"N-0 csv",');
    writeFileSync(path.join(st.dir, 'data.csv'), edited);
    const r = await runCli(['dataset', 'download', '-e', st.setId, '--into', 'data.csv'], { cwd: st.dir, env: s.env });
    expect(r.code, r.stderr).toBe(0);
    // The row with the edit is not said to agree with the set.
    expect(r.stdout).toMatch(/-> data\.csv: 1 cell in 1 row \(written\); 1 row already agrees; 1 row keeps its edit not yet uploaded \(`dataset upload` sends it\)/);
    const merged = edited.replace('files/doc-1.txt,N-1,', 'files/doc-1.txt,N-1 svc,');
    expect(readFileSync(path.join(st.dir, 'data.csv'), 'utf8')).toBe(merged);
    // The unsynced edit is then what a sync sends.
    const sync = await s.upload(['data.csv', '-e', st.setId, '--dry-run', '--format', 'json'], st.dir);
    expect(json(sync).plan).toMatchObject({ create: 0, update: 1 });

    // doc-2's number changed in both since the last sync: neither wins, nothing is written.
    const two = st.ids.get('doc-2.txt')!;
    await s.client.items(st.setId).update(two, { expectedOutput: { value: { ...st.outputs.get(two)!.value, invoice_number: 'N-2 svc' } } });
    const both = merged.replace("files/doc-2.txt,'=N-2,", 'files/doc-2.txt,N-2 csv,');
    writeFileSync(path.join(st.dir, 'data.csv'), both);
    const c = await runCli(['dataset', 'download', '-e', st.setId, '--into', 'data.csv'], { cwd: st.dir, env: s.env });
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/line 5 \(item evi_\w+\): invoice_number was changed in the row too/);
    expect(readFileSync(path.join(st.dir, 'data.csv'), 'utf8')).toBe(both);
  }, 60_000);

  it('a CSV with a fileId column gets a row for each new item; --out and --into together are a usage error', async () => {
    s = await service();
    const st = await setup(s);
    const got = await runCli(['dataset', 'download', '-e', st.setId, '--out', 'set.csv'], { cwd: st.dir, env: s.env });
    expect(got.code, got.stderr).toBe(0);
    const before = readFileSync(path.join(st.dir, 'set.csv'), 'utf8');
    const extra = await uploadText(s.t, 'extra.txt', 'INVOICE X');
    await s.client.items(st.setId).create([{ fileId: extra, expectedOutput: { value: { invoice_number: '=X', total: null } } }]);
    const r = await runCli(['dataset', 'download', '-e', st.setId, '--into', 'set.csv', '--format', 'json'], { cwd: st.dir, env: s.env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 0, appended: 1, unchanged: 3, written: true });
    expect(readFileSync(path.join(st.dir, 'set.csv'), 'utf8')).toBe(`${before}${extra},"{""value"":{""invoice_number"":""=X"",""total"":null}}",\r\n`);
    const sync = await s.upload(['set.csv', '-e', st.setId, '--dry-run', '--format', 'json'], st.dir);
    expect(json(sync).plan).toMatchObject({ create: 0, update: 0, unchanged: 4 });

    const both = await runCli(['dataset', 'download', '-e', st.setId, '--into', 'set.csv', '--out', 'x.csv'], { cwd: st.dir, env: s.env });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/pass one of them/);
  }, 60_000);
});

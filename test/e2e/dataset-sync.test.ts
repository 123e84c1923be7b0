// Three-way sync (`evalkit dataset upload` of an edited CSV into a set that also changed on the
// service) through the built CLI against the real sandbox: what the CSV changed is updated, what
// the service changed is kept, conflicts are refused with both values, missing columns and
// cleared labels are never a silent loss.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { docs, folder, json, service, SIMPLE, type Service } from './dataset-helpers.js';

let s: Service;
beforeAll(async () => {
  s = await service();
});
afterAll(() => s.close());

const money = (amount: number, code: string) => ({ amount, iso_4217_currency_code: code });

/** Rows of SIMPLE: [invoice_number, total cell] per file doc-i. */
function csv(rows: Array<[string, string]>, header = 'file,invoice_number,total'): string {
  const cols = header.split(',').length;
  return [header, ...rows.map(([n, t], i) => [`files/doc-${i}.txt`, n, t].slice(0, cols).join(','))].join('\n') + '\n';
}

/** A set created from `rows`; returns the folder, the set and its items by file. */
async function synced(rows: Array<[string, string]>) {
  const dir = folder({ 'data.csv': csv(rows), ...docs(rows.length) });
  const p = await s.processor('EXTRACT', SIMPLE);
  const r = await s.upload(['data.csv', '--create-set', 'sync', '--processor', p, '--format', 'json'], dir);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const setId = json(r).set.id;
  return { dir, setId, byFile: async () => new Map((await s.items(setId)).map((i) => [i.file, i])) };
}

describe('a column missing from the CSV', () => {
  it('leaves the field as the service has it (it used to null it on every item)', { timeout: 120_000 }, async () => {
    const { dir, setId, byFile } = await synced([['N-0', 'EUR 10'], ['N-1', 'EUR 11']]);
    writeFileSync(path.join(dir, 'nototal.csv'), csv([['N-0 fixed', ''], ['N-1', '']], 'file,invoice_number'));
    const r = await s.upload(['nototal.csv', '-e', setId, '--journal', 'data.journal.ndjson', '--format', 'json'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const items = await byFile();
    expect(items.get('doc-0.txt')!.expectedOutput).toEqual({ value: { invoice_number: 'N-0 fixed', total: money(10, 'EUR') } });
    expect(items.get('doc-1.txt')!.expectedOutput).toEqual({ value: { invoice_number: 'N-1', total: money(11, 'EUR') } });
  });
});

describe('--quiet', () => {
  it('upload and download print no tally on success (and no journal notice); a conflict still prints', { timeout: 120_000 }, async () => {
    const { dir, setId } = await synced([['N-0', 'EUR 10'], ['N-1', 'EUR 11']]);
    const again = await s.upload(['data.csv', '-e', setId, '-q'], dir);
    expect(again).toMatchObject({ code: 0, stdout: '', stderr: '' });
    const down = await runCli(['dataset', 'download', '-e', setId, '--out', 'copy.csv', '-q'], { cwd: dir, env: s.env });
    expect(down).toMatchObject({ code: 0, stdout: '' });
  });
});

describe('a column dropped for a sync and put back', () => {
  it('an edit in the restored column is a CSV change (not a conflict with an empty last sync); download --into brings nothing meanwhile', { timeout: 120_000 }, async () => {
    const { dir, setId, byFile } = await synced([['N-0', 'EUR 10'], ['N-1', 'EUR 11']]);
    const ids = await byFile();
    // The total column left out for one sync: nothing changes, the record holds the service's totals.
    writeFileSync(path.join(dir, 'data.csv'), csv([['N-0', ''], ['N-1', '']], 'file,invoice_number'));
    const quiet = await s.upload(['data.csv', '-e', setId, '--format', 'json'], dir);
    expect(quiet.code, quiet.stdout + quiet.stderr).toBe(0);
    expect(json(quiet).tally).toMatchObject({ updated: 0, unchanged: 2, conflicts: 0 });
    // download --into a CSV without the column: the totals did not change on the service, nothing to bring in.
    const into = await runCli(['dataset', 'download', '-e', setId, '--into', 'data.csv'], { cwd: dir, env: s.env });
    expect(into.code, into.stdout + into.stderr).toBe(0);
    // The column back, one total edited: an update (it was a conflict: "the last sync (empty)").
    writeFileSync(path.join(dir, 'data.csv'), csv([['N-0', 'EUR 10'], ['N-1', 'EUR 99']]));
    const r = await s.upload(['data.csv', '-e', setId, '--format', 'json'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(json(r).tally).toMatchObject({ updated: 1, unchanged: 1, conflicts: 0 });
    expect(json(r).plan.changes).toEqual([{ line: 3, item: ids.get('doc-1.txt')!.id, action: 'update', labels: [{ label: 'total', decision: 'update', csv: money(99, 'EUR'), service: money(11, 'EUR'), lastSynced: money(11, 'EUR'), cell: 'EUR 99' }] }]);
    expect(held(await byFile(), 1)).toEqual(item('N-1', money(99, 'EUR')));
  });
});

/** Sets an item's expected output on the service, as a reviewer in the dashboard would. */
async function onService(setId: string, itemId: string, invoiceNumber: string, total: unknown): Promise<void> {
  await s.client.items(setId).update(itemId, { expectedOutput: { value: { invoice_number: invoiceNumber, total } } });
}

const held = (items: Map<string, { expectedOutput: unknown }>, i: number) => items.get(`doc-${i}.txt`)!.expectedOutput;
const item = (n: string, total: unknown) => ({ value: { invoice_number: n, total } });

describe('three-way sync', () => {
  it('updates what the CSV changed, keeps what the service changed, refuses a conflict with both values and records what agrees', { timeout: 120_000 }, async () => {
    const { dir, setId, byFile } = await synced([['N-0', 'EUR 10'], ['N-1', 'EUR 11'], ['N-2', 'EUR 12'], ['N-3', 'EUR 13'], ['N-4', 'EUR 14']]);
    const before = await byFile();
    // Service side: doc-1's total corrected; doc-2 corrected to what the CSV will say too; doc-3 changed differently from the CSV.
    await onService(setId, before.get('doc-1.txt')!.id, 'N-1', money(110, 'EUR'));
    await onService(setId, before.get('doc-2.txt')!.id, 'N-2', money(120, 'EUR'));
    await onService(setId, before.get('doc-3.txt')!.id, 'N-3', money(130, 'EUR'));
    // CSV side: doc-0 edited; doc-2 and doc-3 edited; doc-1 and doc-4 as they were.
    writeFileSync(path.join(dir, 'data.csv'), csv([['N-0', "CHF 1'250.00"], ['N-1', 'EUR 11'], ['N-2', 'EUR 120'], ['N-3', 'EUR 131'], ['N-4', 'EUR 14']]));

    const dry = await s.upload(['data.csv', '-e', setId, '--dry-run'], dir);
    expect(dry.code, dry.stdout + dry.stderr).toBe(1);
    expect(dry.stdout).toContain('plan for set');
    expect(dry.stdout).toContain(': 0 create, 1 update, 2 unchanged, 1 kept, 1 conflict, 0 delete');
    expect(dry.stdout).toContain(`  update line 2 (${before.get('doc-0.txt')!.id}): total: 10 EUR -> "CHF 1'250.00" typed as 1250 CHF`);
    expect(dry.stdout).toContain(`  kept line 3 (${before.get('doc-1.txt')!.id}): total: changed on the service since the last sync, kept: 110 EUR (the CSV "EUR 11" typed as 11 EUR; --overwrite sends the CSV's)`);
    expect(dry.stdout).toContain(`  conflict line 5 (${before.get('doc-3.txt')!.id}): total: conflict: the CSV says "EUR 131" typed as 131 EUR, the service 130 EUR, the last sync 13 EUR`);
    expect(dry.stderr).toContain('1 item was not to be written');

    const r = await s.upload(['data.csv', '-e', setId, '--format', 'json'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const out = json(r);
    expect(out.tally).toMatchObject({ updated: 1, unchanged: 2, kept: 1, conflicts: 1, cleared: 0, failed: 0 });
    const conflict = out.plan.changes!.find((c) => c.action === 'conflict')!;
    expect(conflict).toEqual({ line: 5, item: before.get('doc-3.txt')!.id, action: 'conflict', labels: [{ label: 'total', decision: 'conflict', csv: money(131, 'EUR'), service: money(130, 'EUR'), lastSynced: money(13, 'EUR'), cell: 'EUR 131' }] });
    const after = await byFile();
    expect(held(after, 0)).toEqual(item('N-0', money(1250, 'CHF')));
    expect(held(after, 1)).toEqual(item('N-1', money(110, 'EUR')));
    expect(held(after, 2)).toEqual(item('N-2', money(120, 'EUR')));
    expect(held(after, 3)).toEqual(item('N-3', money(130, 'EUR')));

    // Run again: nothing to send; the kept label is said again, the conflict refused again.
    const again = json(await s.upload(['data.csv', '-e', setId, '--format', 'json'], dir));
    expect(again.tally).toMatchObject({ updated: 0, unchanged: 3, kept: 1, conflicts: 1 });

    // --overwrite: the CSV wins over the service change and the conflict.
    const o = await s.upload(['data.csv', '-e', setId, '--overwrite', '--format', 'json'], dir);
    expect(o.code, o.stdout + o.stderr).toBe(0);
    expect(json(o).tally).toMatchObject({ updated: 2, kept: 0, conflicts: 0 });
    const forced = await byFile();
    expect(held(forced, 1)).toEqual(item('N-1', money(11, 'EUR')));
    expect(held(forced, 3)).toEqual(item('N-3', money(131, 'EUR')));
    const last = json(await s.upload(['data.csv', '-e', setId, '--format', 'json'], dir));
    expect(last.tally).toMatchObject({ updated: 0, unchanged: 5, kept: 0, conflicts: 0 });
  });

  it('a label changed on the service alone is kept with exit 0 and said on the result line', { timeout: 120_000 }, async () => {
    const { dir, setId, byFile } = await synced([['N-0', 'EUR 10'], ['N-1', 'EUR 11']]);
    await onService(setId, (await byFile()).get('doc-0.txt')!.id, 'N-0 corrected', money(10, 'EUR'));
    const r = await s.upload(['data.csv', '-e', setId], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/invoice_number: changed on the service since the last sync, kept: "N-0 corrected"/);
    expect(r.stdout).toMatch(/0 created, 0 updated, 1 unchanged, 1 kept \(changed on the service\), 0 deleted/);
    expect(held(await byFile(), 0)).toEqual(item('N-0 corrected', money(10, 'EUR')));
  });

  it('with no record of the last sync (a new journal), a difference is refused; agreement is recorded', { timeout: 120_000 }, async () => {
    const { dir, setId, byFile } = await synced([['N-0', 'EUR 10'], ['N-1', 'EUR 11']]);
    await onService(setId, (await byFile()).get('doc-0.txt')!.id, 'N-0', money(99, 'EUR'));
    const r = await s.upload(['data.csv', '-e', setId, '--journal', 'fresh.ndjson'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('total: no record of the last sync: the CSV says "EUR 10" typed as 10 EUR, the service 99 EUR');
    expect(held(await byFile(), 0)).toEqual(item('N-0', money(99, 'EUR')));
    // doc-1 agrees with the CSV: recorded in the new journal.
    const journal = readFileSync(path.join(dir, 'fresh.ndjson'), 'utf8');
    expect(journal).toContain(`"k":"applied","set":"${setId}","item":"${(await byFile()).get('doc-1.txt')!.id}"`);
  });

  it('a journal of the old format (no applied records) is read: files are reused, items have no record', { timeout: 120_000 }, async () => {
    const { dir, setId, byFile } = await synced([['N-0', 'EUR 10'], ['N-1', 'EUR 11']]);
    const file = path.join(dir, 'data.journal.ndjson');
    const old = readFileSync(file, 'utf8').split('\n').filter((l) => !l.includes('"k":"applied"')).map((l) => l.replace(',"v":2', '')).join('\n');
    writeFileSync(file, old);
    writeFileSync(path.join(dir, 'data.csv'), csv([['N-0 new', 'EUR 10'], ['N-1', 'EUR 11']]));
    const r = await s.upload(['data.csv', '-e', setId, '--format', 'json'], dir);
    expect(r.code).toBe(1);
    expect(json(r).plan.changes).toEqual([{ line: 2, item: (await byFile()).get('doc-0.txt')!.id, action: 'conflict', labels: [{ label: 'invoice_number', decision: 'no-record', csv: 'N-0 new', service: 'N-0', cell: 'N-0 new' }] }]);
    // The migrated journal now records doc-1; --overwrite settles doc-0.
    expect(json(await s.upload(['data.csv', '-e', setId, '--overwrite', '--format', 'json'], dir)).tally).toMatchObject({ updated: 1, conflicts: 0 });
    expect(json(await s.upload(['data.csv', '-e', setId, '--format', 'json'], dir)).tally).toMatchObject({ updated: 0, unchanged: 2 });
  });
});

describe('a correction made on both sides (the write-back of dataset upload errors.csv)', () => {
  it('plans nothing and refreshes the record, so a later service change is seen as one', { timeout: 120_000 }, async () => {
    const { dir, setId, byFile } = await synced([['N-0', 'EUR 10'], ['N-1', 'EUR 11']]);
    const id = (await byFile()).get('doc-0.txt')!.id;
    await onService(setId, id, 'N-0', money(12, 'EUR'));
    writeFileSync(path.join(dir, 'data.csv'), csv([['N-0', 'EUR 12'], ['N-1', 'EUR 11']]));
    const r = await s.upload(['data.csv', '-e', setId, '--format', 'json'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(json(r).tally).toMatchObject({ updated: 0, unchanged: 2, kept: 0, conflicts: 0 });
    const records = readFileSync(path.join(dir, 'data.journal.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { k: string; item?: string; labels?: unknown }).filter((x) => x.k === 'applied' && x.item === id);
    expect(records.at(-1)!.labels).toEqual(item('N-0', money(12, 'EUR')));
    // The record is 12 now: the service moving on to 13 is a service change, kept.
    await onService(setId, id, 'N-0', money(13, 'EUR'));
    expect(json(await s.upload(['data.csv', '-e', setId, '--format', 'json'], dir)).tally).toMatchObject({ updated: 0, kept: 1, conflicts: 0 });
  });
});

describe('cleared labels', () => {
  it('one cleared label is shown and counted; more than 3 at once need --allow-clear (exit 2, nothing written)', { timeout: 120_000 }, async () => {
    const rows: Array<[string, string]> = [['N-0', 'EUR 10'], ['N-1', 'EUR 11'], ['N-2', 'EUR 12'], ['N-3', 'EUR 13'], ['N-4', 'EUR 14']];
    const { dir, setId, byFile } = await synced(rows);
    writeFileSync(path.join(dir, 'data.csv'), csv([['N-0', ''], ...rows.slice(1)]));
    const one = await s.upload(['data.csv', '-e', setId, '--dry-run'], dir);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('0 create, 1 update, 4 unchanged, 0 delete; 1 label cleared');
    expect(one.stdout).toMatch(/update line 2 \(evi_\w+\): total: 10 EUR -> cleared/);

    writeFileSync(path.join(dir, 'data.csv'), csv(rows.map(([n], i) => [n, i === 0 ? 'EUR 10' : ''])));
    const before = await s.items(setId);
    const r = await s.upload(['data.csv', '-e', setId], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the sync would clear 4 labels (more than 3 at once); nothing was written');
    expect(r.stdout).toMatch(/update line 5 \(evi_\w+\): total: 13 EUR -> cleared/);
    expect(await s.items(setId)).toEqual(before);

    const ok = await s.upload(['data.csv', '-e', setId, '--allow-clear', '--format', 'json'], dir);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(json(ok).tally).toMatchObject({ updated: 4, cleared: 4 });
    expect(held(await byFile(), 4)).toEqual(item('N-4', null));
  });

  it('--prune-fields removes the fields no column names (counted as cleared)', { timeout: 120_000 }, async () => {
    const { dir, setId, byFile } = await synced([['N-0', 'EUR 10'], ['N-1', 'EUR 11']]);
    writeFileSync(path.join(dir, 'nototal.csv'), csv([['N-0', ''], ['N-1', '']], 'file,invoice_number'));
    const r = await s.upload(['nototal.csv', '-e', setId, '--journal', 'data.journal.ndjson', '--prune-fields', '--format', 'json'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(json(r).tally).toMatchObject({ updated: 2, cleared: 2 });
    expect(held(await byFile(), 0)).toEqual({ value: { invoice_number: 'N-0' } });
  });
});

describe('reviewable dry runs', () => {
  it('shows every create with its typed values, in text (capped at 20 with a count) and JSON (all)', { timeout: 120_000 }, async () => {
    const rows: Array<[string, string]> = Array.from({ length: 23 }, (_, i) => [`N-${i}`, i === 0 ? "CHF 1'250.00" : `EUR ${i}`]);
    const dir = folder({ 'data.csv': csv(rows), ...docs(rows.length) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const r = await s.upload(['data.csv', '--create-set', 'dry', '--processor', p, '--dry-run'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`  create line 2: invoice_number "N-0", total "CHF 1'250.00" typed as 1250 CHF`);
    expect(r.stdout).toContain('  create line 21: invoice_number "N-19", total "EUR 19" typed as 19 EUR');
    expect(r.stdout).not.toContain('create line 22:');
    expect(r.stdout).toContain('  ... and 3 more to create (--format json lists every row)');
    const j = json(await s.upload(['data.csv', '--create-set', 'dry', '--processor', p, '--dry-run', '--format', 'json'], dir));
    expect(j.plan.changes).toHaveLength(23);
    expect(j.plan.changes![0]).toEqual({ line: 2, action: 'create', values: [{ label: 'invoice_number', value: 'N-0', cell: 'N-0' }, { label: 'total', value: money(1250, 'CHF'), cell: "CHF 1'250.00" }] });
  });
});

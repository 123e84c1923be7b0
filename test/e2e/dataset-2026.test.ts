// `evalkit dataset upload`, `download` (--out, --into), sync and `harvest` with API version
// 2026-02-09 through the built CLI against the sandbox: sets on an entity (`entityId`), items
// under `/evaluation_sets/{id}/items` (at most 100 per create), expected outputs in the
// 2026-02-09 form, and each item read one by one where its expected output is needed.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../src/api/index.js';
import { BIN, runCli, type CliResult } from '../helpers/cli.js';
import { uploadText } from '../sandbox/helpers.js';
import { answerLosingProxy, CLASSIFY, docs, folder, json, service, SIMPLE, simpleCsv, SPLITTER, type Service } from './dataset-helpers.js';

type Json = Record<string, unknown>;
const V = '2026-02-09';

let s: Service;
/** A client speaking 2026-02-09, to read what the service holds in that version's form. */
let c26: Client;
beforeAll(async () => {
  s = await service();
  c26 = createClient({ baseUrl: s.t.url, token: s.t.token, apiVersion: V, maxRetries: 8, retryBaseMs: 20 });
});
afterAll(() => s.close());

const cli = (args: string[], cwd: string): Promise<CliResult> => runCli(['--api-version', V, ...args], { cwd, env: s.env });

/** The set's items as 2026-02-09 answers them: [file name without evalkit's tag, expectedOutput], sorted. */
async function held(setId: string): Promise<Array<[string, Json]>> {
  const ops = c26.items(setId);
  const out: Array<[string, Json]> = [];
  for await (const row of ops.listAll({ maxPageSize: 1000 })) {
    const it = await ops.retrieve(row.id);
    out.push([String(it.fileName).replace(/\.ek[0-9a-f]{24}/, ''), it.expectedOutput!]);
  }
  return out.sort((a, b) => a[0].localeCompare(b[0]) || JSON.stringify(a[1]).localeCompare(JSON.stringify(b[1])));
}

describe('dataset upload on 2026-02-09', () => {
  it('EXTRACT: the set is made on the extractor, items go through the nested route in calls of at most 100; a re-run changes nothing', { timeout: 120_000 }, async () => {
    const dir = folder({ 'data.csv': simpleCsv(230, 20), ...docs(20) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const r = await cli(['dataset', 'upload', 'data.csv', '--create-set', 'ex26', '--processor', p, '--chunk-size', '500', '--format', 'json'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = json(r);
    expect(out.tally).toMatchObject({ created: 230, failed: 0, filesUploaded: 20 });
    expect(r.stderr).toContain('--chunk-size 500 is more than the 100 items one create call takes with this API version: chunks of 100');
    const set = await c26.sets.retrieve(out.set.id);
    expect(set.entityId).toBe(p);
    const items = await held(out.set.id);
    expect(items).toHaveLength(230);
    expect(items.find(([f, o]) => f === 'doc-3.txt' && (o.value as Json).invoice_number === 'N-3')?.[1]).toEqual({ value: { invoice_number: 'N-3', total: { amount: 4.5, iso_4217_currency_code: 'EUR' } } });
    // Journal: one batch per call, 100 + 100 + 30.
    const batches = readFileSync(path.join(dir, 'data.journal.ndjson'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Json).filter((l) => l.k === 'create' && l.op === 'start');
    expect(batches.map((b) => (b.lines as number[]).length)).toEqual([100, 100, 30]);

    const again = await cli(['dataset', 'upload', 'data.csv', '--create-set', 'ex26', '--processor', p, '--format', 'json'], dir);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(json(again).tally).toMatchObject({ created: 0, updated: 0, unchanged: 230, failed: 0 });
    expect(await held(out.set.id)).toEqual(items);
  });

  it('CLASSIFY: labels are sent in the 2026-02-09 form ({id, type})', { timeout: 60_000 }, async () => {
    const dir = folder({ 'data.csv': 'file,class\nfiles/doc-0.txt,invoice\nfiles/doc-1.txt,receipt\n', ...docs(2) });
    const p = await s.processor('CLASSIFY', CLASSIFY);
    const r = await cli(['dataset', 'upload', 'data.csv', '--create-set', 'cl26', '--processor', p, '--format', 'json'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await held(json(r).set.id)).toEqual([
      ['doc-0.txt', { id: 'invoice', type: 'invoice' }],
      ['doc-1.txt', { id: 'rcpt', type: 'receipt' }],
    ]);
  });

  it('EXTRACT with the default config (schema with no properties): {} is taken by validate and upload; a field is named, nothing written', { timeout: 60_000 }, async () => {
    const dir = folder({ 'data.csv': 'file,expectedOutput\nfiles/doc-0.txt,"{""value"":{}}"\nfiles/doc-1.txt,"{""value"":{""total"":1}}"\n', 'empty.json': '{"value":{}}\n', 'total.json': '{"value":{"total":1}}\n', ...docs(2) });
    const made = await cli(['processors', 'create', '--name', 'default', '--type', 'EXTRACT', '--format', 'json'], dir);
    expect(made.code, made.stderr).toBe(0);
    const p = (JSON.parse(made.stdout) as { processor: { id: string } }).processor.id;
    const v = await cli(['validate', 'empty.json', '--processor', p], dir);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const bad = await cli(['validate', 'total.json', '--processor', p], dir);
    expect(bad.code, bad.stdout + bad.stderr).toBe(1);
    expect(bad.stdout).toContain('/value/total: error unknown-field: "total" is not a field of the config');
    const refused = await cli(['dataset', 'upload', 'data.csv', '--create-set', 'def26', '--processor', p], dir);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain('data.csv:3:2 (expectedOutput) total: unknown-field: "total" is not a field of the config');
    writeFileSync(path.join(dir, 'data.csv'), 'file,expectedOutput\nfiles/doc-0.txt,"{""value"":{}}"\n');
    const r = await cli(['dataset', 'upload', 'data.csv', '--create-set', 'def26', '--processor', p, '--format', 'json'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await held(json(r).set.id)).toEqual([['doc-0.txt', { value: {} }]]);
  });

  it('SPLITTER: splits without ids reach the set (they used to go to the 2025-04-21 route and fail)', { timeout: 60_000 }, async () => {
    const dir = folder({ 'data.csv': 'file,splits\nfiles/doc-0.txt,invoice:1-2;receipt:3\n', ...docs(1) });
    const p = await s.processor('SPLITTER', SPLITTER);
    const r = await cli(['dataset', 'upload', 'data.csv', '--create-set', 'sp26', '--processor', p, '--format', 'json'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(json(r).tally).toMatchObject({ created: 1, failed: 0 });
    expect(await held(json(r).set.id)).toEqual([
      ['doc-0.txt', { splits: [{ classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 2 }, { classificationId: 'receipt', type: 'receipt', startPage: 3, endPage: 3 }] }],
    ]);
  });
});

describe('sync, download and harvest on 2026-02-09', () => {
  it('a sync updates and prunes per item under the set; download --out and --into read each item', { timeout: 120_000 }, async () => {
    const dir = folder({ 'data.csv': simpleCsv(3, 3), ...docs(3) });
    const p = await s.processor('EXTRACT', SIMPLE);
    const up = await cli(['dataset', 'upload', 'data.csv', '--create-set', 'sync26', '--processor', p, '--format', 'json'], dir);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const setId = json(up).set.id;

    // The CSV changes row 1 and drops row 3; the service changes row 2's total meanwhile.
    const byFile = new Map<string, string>();
    for await (const row of c26.items(setId).listAll()) byFile.set(String(row.fileName).replace(/\.ek[0-9a-f]{24}/, ''), row.id);
    await c26.items(setId).update(byFile.get('doc-1.txt')!, { expectedOutput: { value: { invoice_number: 'N-1', total: { amount: 99, iso_4217_currency_code: 'EUR' } } } });
    writeFileSync(path.join(dir, 'data.csv'), 'file,invoice_number,total\nfiles/doc-0.txt,N-0 fixed,EUR 1.50\nfiles/doc-1.txt,N-1,EUR 2.50\n');
    const sync = await cli(['dataset', 'upload', 'data.csv', '-e', setId, '--prune', '--yes', '--format', 'json'], dir);
    expect(sync.code, sync.stdout + sync.stderr).toBe(0);
    expect(json(sync).tally).toMatchObject({ created: 0, updated: 1, kept: 1, deleted: 1, failed: 0 });
    const want = [
      ['doc-0.txt', { value: { invoice_number: 'N-0 fixed', total: { amount: 1.5, iso_4217_currency_code: 'EUR' } } }],
      ['doc-1.txt', { value: { invoice_number: 'N-1', total: { amount: 99, iso_4217_currency_code: 'EUR' } } }],
    ];
    expect(await held(setId)).toEqual(want);

    const down = await cli(['dataset', 'download', '-e', setId, '--out', 'set.csv', '--files', 'got'], dir);
    expect(down.code, down.stdout + down.stderr).toBe(0);
    const rows = (parse(readFileSync(path.join(dir, 'set.csv'), 'utf8')) as string[][]).slice(1).map((r) => [path.basename(r[0]), JSON.parse(r[1]) as Json]);
    expect(rows.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual(want);
    expect(readFileSync(path.join(dir, 'got', 'doc-0.txt'), 'utf8')).toBe(docs(1)['files/doc-0.txt']);

    // --into: the service's change of doc-1 comes into the CSV; the upload's journal makes it three-way.
    const into = await cli(['dataset', 'download', '-e', setId, '--into', 'data.csv', '--format', 'json'], dir);
    expect(into.code, into.stdout + into.stderr).toBe(0);
    expect(JSON.parse(into.stdout)).toMatchObject({ rows: 1, cells: 1, unchanged: 1, appended: 0, written: true });
    expect(readFileSync(path.join(dir, 'data.csv'), 'utf8')).toContain('files/doc-1.txt,N-1,99 EUR');
  });

  it('harvest: reviewed runs become items of a set on the entity', { timeout: 60_000 }, async () => {
    const p = await s.processor('EXTRACT', SIMPLE);
    const fileId = await uploadText(s.t, 'r.txt', 'INVOICE R-1\nTotal: EUR 9.00\n');
    const run = await s.client.processorRuns.create({ processorId: p, file: { fileId } });
    await s.t.sb.idle();
    const rv = await s.t.call('POST', `/processor_runs/${run.id}/review`, { body: { reviewedBy: 'user_alice', edits: { invoice_number: { editedValue: 'INV-R1' } } } });
    expect(rv.status, JSON.stringify(rv.body)).toBe(200);
    const dir = folder();
    const r = await cli(['dataset', 'harvest', '-p', p, '--reviewed', '--create-set', 'h26', '--format', 'json'], dir);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { upload: { set: { id: string }; tally: Json } };
    expect(out.upload.tally).toMatchObject({ created: 1, failed: 0 });
    expect((await c26.sets.retrieve(out.upload.set.id)).entityId).toBe(p);
    const items = await held(out.upload.set.id);
    expect(items).toHaveLength(1);
    expect((items[0][1].value as Json).invoice_number).toBe('INV-R1');
    // A second harvest finds the item in sync (its output read from the item itself).
    const again = await cli(['dataset', 'harvest', '-p', p, '--reviewed', '--create-set', 'h26', '--format', 'json'], dir);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { upload: { tally: Json } }).upload.tally).toMatchObject({ created: 0, updated: 0, unchanged: 1 });
  });
});

describe('kill -9 and resume on 2026-02-09', () => {
  const ROWS = 30;
  const FILES = 12;
  const wanted = (): Array<[string, Json]> =>
    Array.from({ length: ROWS }, (_, i): [string, Json] => [`doc-${i % FILES}.txt`, { value: { invoice_number: `N-${i}`, total: { amount: i + 1.5, iso_4217_currency_code: 'EUR' } } }])
      .sort((a, b) => a[0].localeCompare(b[0]) || JSON.stringify(a[1]).localeCompare(JSON.stringify(b[1])));
  const journalLines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(0, -1) : []);
  const count = (lines: string[], k: string, op: string) => lines.filter((l) => l.includes(`"k":"${k}","op":"${op}"`)).length;

  function spawnUpload(env: Record<string, string>, args: string[], cwd: string) {
    const child = spawn(process.execPath, [BIN, '--api-version', V, 'dataset', 'upload', ...args], { cwd, env: { ...process.env, ...env }, stdio: 'ignore' });
    let ended = false;
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    void exited.then(() => (ended = true));
    return { child, exited, ended: () => ended };
  }

  it('killed mid-items after two nested creates: the re-run creates every missing row once and nothing twice', { timeout: 120_000 }, async () => {
    const svc = await service({ latencyMs: 60 });
    try {
      const dir = folder({ 'data.csv': simpleCsv(ROWS, FILES), ...docs(FILES) });
      const p = await svc.processor('EXTRACT', SIMPLE);
      const args = ['data.csv', '--create-set', 'resume', '--processor', p, '--chunk-size', '4', '--concurrency', '2', '--format', 'json'];
      const journal = path.join(dir, 'data.journal.ndjson');
      const run = spawnUpload(svc.env, args, dir);
      for (;;) {
        if (count(journalLines(journal), 'create', 'done') >= 2) break;
        if (run.ended()) throw new Error('the upload ended before the kill point');
        await new Promise((r) => setTimeout(r, 2));
      }
      run.child.kill('SIGKILL');
      await run.exited;
      expect(journalLines(journal).some((l) => l.includes('"k":"end"'))).toBe(false);
      const again = await runCli(['--api-version', V, 'dataset', 'upload', ...args], { cwd: dir, env: svc.env });
      expect(again.code, again.stdout + again.stderr).toBe(0);
      const out = json(again);
      expect(out.set.created).toBe(false);
      expect(out.tally.created + out.tally.unchanged).toBe(ROWS);
      const reader = createClient({ baseUrl: svc.t.url, token: svc.t.token, apiVersion: V });
      const got: Array<[string, Json]> = [];
      for await (const row of reader.items(out.set.id).listAll()) got.push([String(row.fileName).replace(/\.ek[0-9a-f]{24}/, ''), (await reader.items(out.set.id).retrieve(row.id)).expectedOutput!]);
      expect(got.sort((a, b) => a[0].localeCompare(b[0]) || JSON.stringify(a[1]).localeCompare(JSON.stringify(b[1])))).toEqual(wanted());
      let sets = 0;
      for await (const _ of reader.sets.listAll({ entityId: p })) sets++;
      expect(sets).toBe(1);
    } finally {
      await svc.close();
    }
  });

  it('a nested create whose answer never came back, then a kill: the re-run finds its items and does not repeat them', { timeout: 120_000 }, async () => {
    const svc = await service({ latencyMs: 20 });
    const proxy = await answerLosingProxy(svc.t.url, (method, url) => method === 'POST' && /^\/evaluation_sets\/[^/]+\/items$/.test(url));
    try {
      const dir = folder({ 'data.csv': simpleCsv(ROWS, FILES), ...docs(FILES) });
      const p = await svc.processor('EXTRACT', SIMPLE);
      const args = ['data.csv', '--create-set', 'lost', '--processor', p, '--chunk-size', '4', '--concurrency', '2', '--format', 'json'];
      const env = { ...svc.env, EVALKIT_BASE_URL: proxy.url };
      const run = spawnUpload(env, args, dir);
      await proxy.held;
      run.child.kill('SIGKILL');
      await run.exited;
      const journal = journalLines(path.join(dir, 'data.journal.ndjson'));
      expect(count(journal, 'create', 'start')).toBe(count(journal, 'create', 'done') + 1);
      const again = await runCli(['--api-version', V, 'dataset', 'upload', ...args], { cwd: dir, env });
      expect(again.code, again.stdout + again.stderr).toBe(0);
      const out = json(again);
      expect(out.tally.created + out.tally.unchanged).toBe(ROWS);
      const reader = createClient({ baseUrl: svc.t.url, token: svc.t.token, apiVersion: V });
      let items = 0;
      for await (const _ of reader.items(out.set.id).listAll()) items++;
      expect(items).toBe(ROWS);
    } finally {
      await proxy.close();
      await svc.close();
    }
  });
});

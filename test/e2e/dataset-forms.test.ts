// CLASSIFY and SPLITTER labels in either API form (spec 3.7) through the built CLI against the
// sandbox: `dataset download --into`, a corrections upload and `dataset harvest` read the set and the CSV in either
// form, write and send in the form of the API version in effect, and lose nothing the other form
// cannot say. Each version on its own wire: the sandbox stores one set and answers each version
// in its own form (2026-02-09: sets on the entity, nested items; dataset-2026.test.ts).
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { renderErrors } from '../../src/report/errors.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { uploadText } from '../sandbox/helpers.js';
import { CLASSIFY, docs, folder, json, service, SPLITTER, type Service } from './dataset-helpers.js';

let s: Service | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

type Form = '2025-04-21' | '2026-02-09';

async function pinned(): Promise<Service> {
  return service();
}

function cli(svc: Service, form: Form, args: string[], cwd: string): Promise<CliResult> {
  return runCli(['--api-version', form, ...args], { cwd, env: svc.env });
}

/** A JSON value as a quoted CSV cell. */
const cell = (v: unknown): string => `"${JSON.stringify(v).replace(/"/g, '""')}"`;
const read = (dir: string, name = 'data.csv'): string => readFileSync(path.join(dir, name), 'utf8');
/** The cells of data.csv by file name. */
const cells = (dir: string, name = 'data.csv'): Map<string, string[]> => new Map((parse(read(dir, name)) as string[][]).slice(1).map((r) => [path.basename(r[0]), r]));

async function uploaded(svc: Service, type: 'CLASSIFY' | 'SPLITTER', data: string, n: number): Promise<{ dir: string; setId: string; ids: Map<string, string> }> {
  const dir = folder({ 'data.csv': data, ...docs(n) });
  const p = await svc.processor(type, type === 'CLASSIFY' ? CLASSIFY : SPLITTER);
  const up = await cli(svc, '2025-04-21', ['dataset', 'upload', 'data.csv', '--create-set', 'forms', '--processor', p, '--format', 'json'], dir);
  expect(up.code, up.stderr).toBe(0);
  const setId = json(up).set.id;
  const ids = new Map((await svc.items(setId)).map((i) => [path.basename(i.file), i.id]));
  return { dir, setId, ids };
}

describe('dataset download --into in the form in effect', () => {
  const CLASSIFY_DATA =
    'file,expectedOutput\n' +
    `files/doc-0.txt,${cell({ id: 'rcpt', type: 'receipt', confidence: 1 })}\n` +
    `files/doc-1.txt,${cell({ id: 'invoice', type: 'invoice', confidence: 0.5 })}\n` +
    `files/doc-2.txt,${cell({ id: 'invoice', type: 'invoice' })}\n`;

  it('CLASSIFY: a 2025-04-21 CSV and a set in 2026-02-09 form with the same labels are no change; a real change comes in, written in the form in effect', async () => {
    s = await pinned();
    const { dir, setId, ids } = await uploaded(s, 'CLASSIFY', CLASSIFY_DATA, 3);
    // Set up in the 2025-04-21 form: confidences are what this test is about.
    const old25 = s.at('2025-04-21').items(setId);
    // The set now holds its labels in the 2026-02-09 form (no confidence) and doc-2 changed class.
    await old25.update(ids.get('doc-0.txt')!, { expectedOutput: { id: 'rcpt', type: 'receipt' } });
    await old25.update(ids.get('doc-1.txt')!, { expectedOutput: { id: 'invoice', type: 'invoice' } });
    await old25.update(ids.get('doc-2.txt')!, { expectedOutput: { id: 'rcpt', type: 'receipt', confidence: 1 } });
    // 2025-04-21, into a copy with no record of a last sync: the set's label replaces doc-2's, with its confidence.
    copyFileSync(path.join(dir, 'data.csv'), path.join(dir, 'copy.csv'));
    const old = await cli(s, '2025-04-21', ['dataset', 'download', '-e', setId, '--into', 'copy.csv'], dir);
    expect(old.code, old.stderr).toBe(0);
    expect(old.stdout).toMatch(/-> copy\.csv: 1 cell in 1 row \(written\); 2 rows already agree/);
    expect(read(dir, 'copy.csv')).toBe(CLASSIFY_DATA.replace(`files/doc-2.txt,${cell({ id: 'invoice', type: 'invoice' })}`, `files/doc-2.txt,${cell({ id: 'rcpt', type: 'receipt', confidence: 1 })}`));

    // 2026-02-09, three-way with the upload's record: doc-0 and doc-1 keep their cells (doc-1's
    // confidence 0.5, which the set's form cannot say, is not lost); doc-2's label comes in without the confidence.
    const cur = await cli(s, '2026-02-09', ['dataset', 'download', '-e', setId, '--into', 'data.csv'], dir);
    expect(cur.code, cur.stderr).toBe(0);
    expect(cur.stdout).toMatch(/-> data\.csv: 1 cell in 1 row \(written\); 2 rows already agree/);
    expect(read(dir)).toBe(CLASSIFY_DATA.replace(`files/doc-2.txt,${cell({ id: 'invoice', type: 'invoice' })}`, `files/doc-2.txt,${cell({ id: 'rcpt', type: 'receipt' })}`));
    // What the 2026-02-09 form cannot hold is named by the next upload, not dropped.
    const sync = await cli(s, '2026-02-09', ['dataset', 'upload', 'data.csv', '-e', setId, '--dry-run'], dir);
    expect(sync.code).toBe(2);
    expect(sync.stdout).toMatch(/data\.csv:3:2 \(expectedOutput\) confidence: api-version-form/);

    // A CSV downloaded under 2025-04-21 (confidences kept), brought up to date under 2026-02-09:
    // its rows agree with the set as they are; a new item is appended in the 2026-02-09 form.
    const got = await cli(s, '2025-04-21', ['dataset', 'download', '-e', setId, '--out', 'set.csv'], dir);
    expect(got.code, got.stderr).toBe(0);
    const before = read(dir, 'set.csv');
    expect(before).toContain(cell({ id: 'rcpt', type: 'receipt', confidence: 1 }));
    const extra = await uploadText(s.t, 'extra.txt', 'RECEIPT X');
    await old25.create([{ fileId: extra, expectedOutput: { id: 'rcpt', type: 'receipt', confidence: 1 } }]);
    const into = await cli(s, '2026-02-09', ['dataset', 'download', '-e', setId, '--into', 'set.csv', '--format', 'json'], dir);
    expect(into.code, into.stderr).toBe(0);
    expect(JSON.parse(into.stdout)).toMatchObject({ rows: 0, appended: 1, unchanged: 3, written: true });
    expect(read(dir, 'set.csv')).toBe(`${before}${extra},${cell({ id: 'rcpt', type: 'receipt' })},\r\n`);
  }, 120_000);

  it('CLASSIFY under 2026-02-09: a row whose label changed on the service and whose confidence the form cannot hold is refused, nothing written; --allow-lossy rewrites it and lists the value', async () => {
    s = await pinned();
    const { dir, setId, ids } = await uploaded(s, 'CLASSIFY', CLASSIFY_DATA, 3);
    // doc-1 (line 3, confidence 0.5) gets another class on the service, in the 2026-02-09 form.
    await s.at('2025-04-21').items(setId).update(ids.get('doc-1.txt')!, { expectedOutput: { id: 'rcpt', type: 'receipt' } });
    const refused = await cli(s, '2026-02-09', ['dataset', 'download', '-e', setId, '--into', 'data.csv'], dir);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`data.csv:3: the downloaded row would lose a value the 2026-02-09 expected output has no place for: line 3 (item ${ids.get('doc-1.txt')}) /confidence 0.5; nothing was written`);
    expect(refused.stderr).toMatch(/hint: pass --allow-lossy to drop them \(each is listed\), or settle those rows in data\.csv first/);
    expect(read(dir)).toBe(CLASSIFY_DATA);

    const dry = await cli(s, '2026-02-09', ['dataset', 'download', '-e', setId, '--into', 'data.csv', '--allow-lossy', '--dry-run'], dir);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would be dropped: data.csv:3 (item ${ids.get('doc-1.txt')}) /confidence 0.5 (no place for it in the 2026-02-09 expected output)`);
    expect(read(dir)).toBe(CLASSIFY_DATA);

    const lossy = await cli(s, '2026-02-09', ['dataset', 'download', '-e', setId, '--into', 'data.csv', '--allow-lossy', '--format', 'json'], dir);
    expect(lossy.code, lossy.stderr).toBe(0);
    expect(JSON.parse(lossy.stdout)).toMatchObject({ rows: 1, cells: 1, written: true, dropped: [{ line: 3, item: ids.get('doc-1.txt'), pointer: '/confidence', value: 0.5 }] });
    expect(read(dir)).toBe(CLASSIFY_DATA.replace(`files/doc-1.txt,${cell({ id: 'invoice', type: 'invoice', confidence: 0.5 })}`, `files/doc-1.txt,${cell({ id: 'rcpt', type: 'receipt' })}`));
    // --allow-lossy belongs to --into.
    const usage = await cli(s, '2026-02-09', ['dataset', 'download', '-e', setId, '--out', 'new.csv', '--allow-lossy'], dir);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--allow-lossy goes with --into');
  }, 120_000);

  it('SPLITTER: split ids split_<n> on one side only are no change; a compact cell stays compact; JSON is written in the form in effect', async () => {
    s = await pinned();
    const data =
      'file,splits\n' +
      'files/doc-0.txt,invoice:1-2;receipt:3\n' +
      `files/doc-1.txt,${cell([{ type: 'invoice', startPage: 1, endPage: 1, identifier: 'INV-7' }])}\n` +
      `files/doc-2.txt,${cell([{ id: 'split_1', classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 2 }])}\n`;
    const { dir, setId, ids } = await uploaded(s, 'SPLITTER', data, 3);
    // The service holds split ids (2025-04-21); it moves doc-0's receipt and doc-2's last page.
    const old25 = s.at('2025-04-21').items(setId);
    const held = new Map((await s.items(setId, '2025-04-21')).map((i) => [path.basename(i.file), i.expectedOutput as { splits: Array<Record<string, unknown>> }]));
    const doc0 = held.get('doc-0.txt')!;
    await old25.update(ids.get('doc-0.txt')!, { expectedOutput: { splits: [doc0.splits[0], { ...doc0.splits[1], endPage: 4 }] } });
    const doc2 = held.get('doc-2.txt')!;
    await old25.update(ids.get('doc-2.txt')!, { expectedOutput: { splits: [{ ...doc2.splits[0], endPage: 3 }] } });

    for (const form of ['2025-04-21', '2026-02-09'] as const) {
      const name = `${form}.csv`;
      writeFileSync(path.join(dir, name), data);
      const r = await cli(s, form, ['dataset', 'download', '-e', setId, '--into', name], dir);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/2 cells in 2 rows \(written\); 1 row already agrees/);
      const got = cells(dir, name);
      expect(got.get('doc-0.txt')![1]).toBe('invoice:1-2;receipt:3-4');
      // doc-1 (its identifier with the set's split id) is left as written.
      expect(got.get('doc-1.txt')![1]).toBe(JSON.stringify([{ type: 'invoice', startPage: 1, endPage: 1, identifier: 'INV-7' }]));
      const splits = JSON.parse(got.get('doc-2.txt')![1]) as unknown;
      const want = { classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 3 };
      expect(splits).toEqual([form === '2025-04-21' ? { id: 'split_1', ...want } : want]);
    }
  }, 120_000);
});

describe('a corrections upload in the form in effect', () => {
  const DATA =
    'file,expectedOutput\n' +
    `files/doc-0.txt,${cell({ id: 'invoice', type: 'invoice', confidence: 1 })}\n` +
    `files/doc-1.txt,${cell({ id: 'invoice', type: 'invoice', confidence: 0.5 })}\n`;

  function errorsFile(ids: Map<string, string>, rows: Array<[string, string]>): string {
    return renderErrors(rows.map(([file, expected]) => ({ item: ids.get(file)!, file, fileId: 'f', field: 'class', outcome: 'FD', expected, predicted: 'x', confidence: 0.4, document_errors: 1 })), 'csv');
  }

  it('2026-02-09: the set answers without confidences (its form has none), corrections are sent and written back without one', async () => {
    s = await pinned();
    const { dir, setId, ids } = await uploaded(s, 'CLASSIFY', DATA, 2);
    writeFileSync(path.join(dir, 'errors.csv'), errorsFile(ids, [['doc-1.txt', 'receipt']]));
    // doc-1's row holds confidence 0.5, which the 2026-02-09 form has no place for: refused as
    // migrate refuses it (exit 2, the line, the item and the value named), nothing written.
    const refused = await cli(s, '2026-02-09', ['dataset', 'upload', 'errors.csv', '-e', setId, '--source', 'data.csv'], dir);
    expect(refused.code, refused.stdout).toBe(2);
    expect(refused.stderr).toContain(`data.csv:3: the corrected row would lose a value the 2026-02-09 expected output has no place for: line 3 (item ${ids.get('doc-1.txt')!}) /confidence 0.5; nothing was written`);
    expect(refused.stderr).toMatch(/hint: pass --allow-lossy to drop them \(each is listed\), or remove the confidence/);
    expect(read(dir)).toBe(DATA);
    expect((await s.items(setId, '2025-04-21')).map((i) => i.expectedOutput)).toEqual([{ id: 'invoice', type: 'invoice', confidence: 1 }, { id: 'invoice', type: 'invoice', confidence: 0.5 }]);
    // A dry run with --allow-lossy lists the value it would drop, in text and in JSON.
    const dry = await cli(s, '2026-02-09', ['dataset', 'upload', 'errors.csv', '-e', setId, '--source', 'data.csv', '--allow-lossy', '--dry-run'], dir);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`  dropped: data.csv:3 (item ${ids.get('doc-1.txt')!}) /confidence 0.5 (no place for it in the 2026-02-09 expected output)`);
    expect(read(dir)).toBe(DATA);
    const first = await cli(s, '2026-02-09', ['dataset', 'upload', 'errors.csv', '-e', setId, '--source', 'data.csv', '--allow-lossy', '--format', 'json'], dir);
    expect(first.code, first.stderr).toBe(0);
    expect(json(first).tally).toMatchObject({ updated: 1 });
    expect(json(first).writeBack).toMatchObject({ dropped: [{ line: 3, item: ids.get('doc-1.txt'), pointer: '/confidence', value: 0.5 }] });
    const afterFirst = DATA.replace(cell({ id: 'invoice', type: 'invoice', confidence: 0.5 }), cell({ id: 'rcpt', type: 'receipt' }));
    expect(read(dir)).toBe(afterFirst);
    // Read in the 2025-04-21 form: doc-0's confidence, which 2026-02-09 cannot say, is kept.
    expect((await s.items(setId, '2025-04-21')).map((i) => i.expectedOutput)).toEqual([{ id: 'invoice', type: 'invoice', confidence: 1 }, { id: 'rcpt', type: 'receipt' }]);

    // doc-0 corrected (doc-1 left as the report wrote it: unchanged).
    writeFileSync(path.join(dir, 'errors.csv'), errorsFile(ids, [['doc-0.txt', 'receipt'], ['doc-1.txt', 'receipt']]));
    const r = await cli(s, '2026-02-09', ['dataset', 'upload', 'errors.csv', '-e', setId, '--source', 'data.csv', '--format', 'json'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r).tally).toMatchObject({ updated: 1, unchanged: 1 });
    expect((await s.items(setId, '2025-04-21')).find((i) => i.id === ids.get('doc-0.txt'))!.expectedOutput).toEqual({ id: 'rcpt', type: 'receipt' });
    expect(read(dir)).toBe(afterFirst.replace(cell({ id: 'invoice', type: 'invoice', confidence: 1 }), cell({ id: 'rcpt', type: 'receipt' })));
  }, 120_000);

  it('2025-04-21: a CSV row in 2026-02-09 form gets the correction with the confidence the set keeps; the next sync plans nothing', async () => {
    s = await pinned();
    const { dir, setId, ids } = await uploaded(s, 'CLASSIFY', DATA, 2);
    // doc-0's row rewritten in the 2026-02-09 form: the same label as the set's.
    const bare = DATA.replace(cell({ id: 'invoice', type: 'invoice', confidence: 1 }), cell({ id: 'invoice', type: 'invoice' }));
    writeFileSync(path.join(dir, 'data.csv'), bare);
    writeFileSync(path.join(dir, 'errors.csv'), errorsFile(ids, [['doc-0.txt', 'receipt']]));
    const r = await cli(s, '2025-04-21', ['dataset', 'upload', 'errors.csv', '-e', setId, '--source', 'data.csv', '--format', 'json'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(json(r).tally).toMatchObject({ updated: 1 });
    expect((await s.items(setId, '2025-04-21')).find((i) => i.id === ids.get('doc-0.txt'))!.expectedOutput).toEqual({ id: 'rcpt', type: 'receipt', confidence: 1 });
    expect(read(dir)).toBe(bare.replace(cell({ id: 'invoice', type: 'invoice' }), cell({ id: 'rcpt', type: 'receipt', confidence: 1 })));
    const sync = await cli(s, '2025-04-21', ['dataset', 'upload', 'data.csv', '-e', setId, '--dry-run', '--format', 'json'], dir);
    expect(sync.code, sync.stderr).toBe(0);
    expect(json(sync).plan).toMatchObject({ create: 0, update: 0, unchanged: 2 });
  }, 120_000);
});

describe('dataset harvest in the form in effect', () => {
  async function reviewedSplitterRun(svc: Service, processor: string, name: string, splits: unknown[]): Promise<void> {
    const fileId = await uploadText(svc.t, `${name}.txt`, `SPLIT ${name}\n`);
    const run = await svc.client.processorRuns.create({ processorId: processor, file: { fileId } });
    await svc.t.sb.idle();
    const r = await svc.t.call('POST', `/processor_runs/${run.id}/review`, { body: { reviewedBy: 'user_alice', edits: { splits: { editedValue: splits } } } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }

  it('SPLITTER: the harvested expected output has no split ids under 2026-02-09 (ids under 2025-04-21); an observation is named, not dropped', async () => {
    s = await pinned();
    const dir = folder();
    const p = await s.processor('SPLITTER', SPLITTER);
    await reviewedSplitterRun(s, p, 'one', [{ id: 's1', classificationId: 'receipt', type: 'receipt', startPage: 1, endPage: 1 }]);
    const planned = async (form: Form) => {
      const r = await cli(s!, form, ['dataset', 'harvest', '-p', p, '--reviewed', '--create-set', 'h', '--dry-run', '--format', 'json'], dir);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { upload: { plan: { changes: Array<{ values: Array<{ label: string; value: unknown }> }> } } }).upload.plan.changes.map((c) => c.values);
    };
    const split = { classificationId: 'receipt', type: 'receipt', startPage: 1, endPage: 1 };
    expect(await planned('2026-02-09')).toEqual([[{ label: 'splits', value: { splits: [split] } }]]);
    expect(await planned('2025-04-21')).toEqual([[{ label: 'splits', value: { splits: [{ id: 's1', ...split }] } }]]);

    await reviewedSplitterRun(s, p, 'two', [{ id: 's1', ...split, observation: 'stamped' }]);
    const r = await cli(s, '2026-02-09', ['dataset', 'harvest', '-p', p, '--reviewed', '--create-set', 'h', '--dry-run'], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/splits\[0\]\.observation: api-version-form/);
  }, 120_000);
});

// `evalkit dataset harvest` through the built binary against a sandbox: reviewed runs become
// evaluation items through the upload's validation, plan and journal.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { uploadText } from '../sandbox/helpers.js';
import { CLASSIFY, service, SIMPLE, SPLITTER, type Service } from './dataset-helpers.js';

type Json = Record<string, unknown>;

let s: Service;
let dir: string;
beforeAll(async () => {
  s = await service();
  dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-harvest-'));
});
afterAll(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const harvest = (args: string[]): Promise<CliResult> => runCli(['dataset', 'harvest', ...args], { cwd: dir, env: s.env });
const parsed = (r: CliResult): Json => {
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout) as Json;
};

/** A processed run of `processor` on a new file (or on raw text). */
async function processedRun(processor: string, text: string, asFile = true): Promise<string> {
  const input = asFile ? { file: { fileId: await uploadText(s.t, `${text}.txt`, `INVOICE ${text}\nTotal: EUR 9.00\n`) } } : { rawText: text };
  const run = await s.client.processorRuns.create({ processorId: processor, ...input });
  await s.t.sb.idle();
  return run.id;
}

async function review(runId: string, edits: Json): Promise<Json> {
  const r = await s.t.call<{ processorRun: Json }>('POST', `/processor_runs/${runId}/review`, { body: { reviewedBy: 'user_alice', edits } });
  if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  return r.body.processorRun;
}

describe('evalkit dataset harvest', () => {
  let processor: string;
  const reviewed: Array<{ runId: string; output: Json }> = [];
  let textRun: string;
  let before: string;

  beforeAll(async () => {
    processor = await s.processor('EXTRACT', SIMPLE);
    for (const [i, text] of ['A-1', 'A-2', 'A-3'].entries()) {
      const runId = await processedRun(processor, text);
      // A-3 is processed but never reviewed.
      if (i < 2) {
        const run = await review(runId, { invoice_number: { editedValue: `INV-${text}`, notes: 'read from the header' }, total: { editedValue: { amount: 9 + i, iso_4217_currency_code: 'EUR' } } });
        reviewed.push({ runId, output: run.reviewedOutput as Json });
      }
    }
    textRun = await processedRun(processor, 'raw text only', false);
    await review(textRun, { invoice_number: { editedValue: 'TXT' } });
    // Past the last review's millisecond: --since keeps reviews at the instant given (a review in
    // the same millisecond as `before` counted as late, and the --since test failed once in CI).
    await new Promise((resolve) => setTimeout(resolve, 5));
    before = new Date().toISOString();
  });

  it('--dry-run: plans the reviewed runs with a file, skips the raw-text one, writes nothing', async () => {
    const r = parsed(await harvest(['-p', processor, '--reviewed', '--create-set', 'reviewed', '--dry-run', '--format', 'json']));
    expect(r.runs).toEqual({ listed: 4, reviewed: 3, harvested: 2 });
    expect(r.skipped).toEqual([{ run: textRun, reason: 'ran on raw text: an evaluation item needs a file' }]);
    expect((r.upload as Json).status).toBe('planned');
    expect((r.upload as Json).plan).toMatchObject({ create: 2, update: 0, unchanged: 0 });
    expect(r.csv).toBeUndefined();
    expect(existsSync(path.join(dir, `reviewed-${processor}.csv`))).toBe(false);
  });

  it('harvests reviewedOutput (with the edits in the CSV record) into a new set; a re-run changes nothing', async () => {
    const res = await harvest(['-p', processor, '--reviewed', '--create-set', 'reviewed']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`harvest: 3 runs of ${processor} reviewed: 2 to harvest -> reviewed-${processor}.csv, 1 skipped\n  skipped ${textRun}: ran on raw text`);
    expect(res.stdout).toMatch(/set ev_\w+ "reviewed" \(created\): 2 created, 0 updated, 0 unchanged/);
    const setId = /set (ev_\w+) "reviewed"/.exec(res.stdout)![1];
    const items = await s.items(setId);
    expect(items.map((i) => i.expectedOutput).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(reviewed.map((r) => ({ value: r.output.value })));
    const csv = parse(readFileSync(path.join(dir, `reviewed-${processor}.csv`), 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(csv.map((row) => row['# run'])).toEqual(reviewed.map((r) => r.runId));
    expect(JSON.parse(csv[0]['# edits'])).toMatchObject({ invoice_number: { editedValue: 'INV-A-1', notes: 'read from the header' } });
    expect(csv[0]['# reviewedBy']).toBe('user_alice');
    expect(existsSync(path.join(dir, `reviewed-${processor}.journal.ndjson`))).toBe(true);

    const again = parsed(await harvest(['-p', processor, '--reviewed', '--create-set', 'reviewed', '--format', 'json']));
    expect((again.upload as { tally: Json }).tally).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
  });

  it('--since: only runs reviewed from then on; a file reviewed again updates its item', async () => {
    expect((await harvest(['-p', processor, '--reviewed', '--since', before, '-e', 'ev_unused_is_checked_later', '--dry-run'])).code).toBe(2);
    const setId = (await s.client.sets.list({ entityId: processor })).items[0].id;
    expect(parsed(await harvest(['-p', processor, '--reviewed', '--since', before, '-e', setId, '--format', 'json'])).runs).toMatchObject({ reviewed: 0, harvested: 0 });
    const again = await review(reviewed[0].runId, { invoice_number: { editedValue: 'INV-A-1-corrected' } });
    const r = parsed(await harvest(['-p', processor, '--reviewed', '--since', before, '-e', setId, '--out', 'late.csv', '--format', 'json']));
    expect(r.runs).toMatchObject({ reviewed: 1, harvested: 1 });
    // The file already has an item (from the first harvest): a new review of it updates that item.
    expect((r.upload as { tally: Json }).tally).toMatchObject({ created: 0, updated: 1 });
    expect((await s.items(setId)).map((i) => i.expectedOutput)).toContainEqual({ value: (again.reviewedOutput as Json).value });
  });

  it('items that no longer fit the draft: exit 2 with the findings and a rejects file, nothing written', async () => {
    // The draft loses the total field after the reviews: harvested totals are unknown fields now.
    const p2 = await s.processor('EXTRACT', SIMPLE);
    const runId = await processedRun(p2, 'B-1');
    await review(runId, { total: { editedValue: { amount: 1, iso_4217_currency_code: 'EUR' } } });
    await s.client.processors.update(p2, { config: { type: 'EXTRACT', schema: { type: 'object', properties: { invoice_number: { type: ['string', 'null'] } } } } });
    const r = await harvest(['-p', p2, '--reviewed', '--create-set', 'x', '--out', 'bad.csv']);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/bad\.csv:2:2 .*total/);
    expect(r.stderr).toContain('1 of 1 rows are invalid');
    // No valid row: no --skip-invalid offered to upload "the 0 valid rows".
    expect(r.stderr).toContain('none is valid');
    expect(r.stderr).not.toContain('--skip-invalid');
    expect(existsSync(path.join(dir, 'bad.rejects.csv'))).toBe(true);
    expect((await s.client.sets.list({ entityId: p2 })).items).toEqual([]);
  });

  const split = { classificationId: 'receipt', type: 'receipt', startPage: 1, endPage: 1 };
  // The SPLITTER row with a split id and an observation is pinned to 2025-04-21: 2026-02-09 has
  // neither (it refuses an observation: dataset-forms.test.ts); the row before it is its 2026-02-09 form.
  it.each([
    ['CLASSIFY', 'default', CLASSIFY, { classification: { editedValue: 'rcpt' } }, { id: 'rcpt', type: 'receipt' }],
    ['SPLITTER', 'default', SPLITTER, { splits: { editedValue: [{ id: 's1', ...split }] } }, { splits: [split] }],
    ['SPLITTER', '2025-04-21', SPLITTER, { splits: { editedValue: [{ id: 's1', ...split, observation: 'one page' }] } }, { splits: [{ id: 's1', ...split, observation: 'one page' }] }],
  ])('%s (API %s): the reviewed result becomes the expected output', async (type, version, config, edits, expected) => {
    const p = await s.processor(type, config);
    await review(await processedRun(p, `${type}-1`), edits);
    const apiVersion = version === 'default' ? undefined : version;
    const pin = apiVersion === undefined ? [] : ['--api-version', apiVersion];
    const r = parsed(await harvest([...pin, '-p', p, '--reviewed', '--create-set', type, '--out', `${type}.csv`, '--format', 'json']));
    expect((r.upload as { tally: Json }).tally).toMatchObject({ created: 1 });
    expect((await s.items(((r.upload as { set: Json }).set.id) as string, apiVersion)).map((i) => i.expectedOutput)).toEqual([expected]);
  });

  it.each([
    [['-p', 'dp_x', '--create-set', 'y'], 'pass --reviewed'],
    [['-p', 'dp_x', '--reviewed'], 'name the target set'],
    [['-p', 'dp_x', '--reviewed', '--create-set', 'y', '--since', 'yesterday'], '--since "yesterday" is not a date'],
  ])('%j: exit 2', async (args, message) => {
    const r = await harvest(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

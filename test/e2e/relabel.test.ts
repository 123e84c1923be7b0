// The relabel loop against the real sandbox: the demo's invoice set (its migrated config and CSV,
// uploaded as the demo does) -> an evaluation run -> report --export-errors ->
// two corrections in the errors CSV -> dataset upload (an update of exactly those items,
// journaled) -> a new evaluation run -> the next report scores against the corrected labels.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvLine } from '../../src/dataset/rejects.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';

describe('errors out, fixes back', () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'evalkit-relabel-'));
  let t: TestSandbox;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // A high error rate: the labeling step needs at least two wrong top-level values on two
    // documents. The engine seeds its errors by item id, so the ids are seeded too: with random
    // ids the errors differed from run to run, and now and then fewer than two documents had one.
    t = await start({ engine: 'simulate:7,0.3', idSeed: 'relabel' });
    env = { EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token };
  });
  afterAll(async () => {
    await t?.close();
  });

  it('demo -> errors.csv -> two corrections -> upload -> the next report counts them right', async () => {
    // The demo's steps, against this sandbox: the migrated config, the processor, the set, a run.
    const demo = await runCli(['demo', '--only', 'invoice-extract', '--bootstrap', '0'], { cwd });
    expect(demo.code, demo.stderr).toBe(0);
    const dir = path.join(cwd, 'reports', 'demo', 'invoice-extract');
    const created = await runCli(['processors', 'create', '--name', 'invoice-extraction', '--type', 'EXTRACT', '--config', path.join(dir, 'invoice-extract.json'), '--format', 'json'], { cwd, env });
    expect(created.code, created.stderr).toBe(0);
    const processorId = (JSON.parse(created.stdout) as { processor: { id: string } }).processor.id;
    cpSync(path.join(ROOT, 'datasets', 'invoice-extract'), path.join(cwd, 'set'), { recursive: true });
    const uploaded = await runCli(['dataset', 'upload', path.join(cwd, 'set', 'data.csv'), '--create-set', 'invoices', '--processor', processorId, '--format', 'json'], { cwd, env });
    expect(uploaded.code, uploaded.stderr).toBe(0);
    const setId = (JSON.parse(uploaded.stdout) as { set: { id: string } }).set.id;
    const first = path.join(cwd, 'export-first.json');
    const ev1 = await runCli(['eval', 'run', '--evaluation-set', setId, '--version', 'draft', '--out', first], { cwd, env });
    expect(ev1.code, ev1.stderr).toBe(0);
    const errorsFile = path.join(cwd, 'errors.csv');
    const r1 = await runCli(['report', '--from', first, '--bootstrap', '0', '--out-dir', path.join(cwd, 'r1'), '--export-errors', errorsFile], { cwd });
    expect(r1.code, r1.stderr).toBe(0);

    // The labeling team: two wrong labels on two documents, each set to what the model read.
    const [header, ...rows] = parse(readFileSync(errorsFile, 'utf8')) as string[][];
    const col = (name: string) => header.indexOf(name);
    const TEXT_FIELDS = new Set(['invoice_number', 'vendor_name', 'vendor_vat_id']);
    const picked: string[][] = [];
    for (const r of rows) {
      // Text fields: a corrected date or amount would be coerced on upload and read back in another form.
      if (picked.length < 2 && r[col('outcome')] === 'FD' && TEXT_FIELDS.has(r[col('field')]) && !picked.some((p) => p[0] === r[0])) picked.push(r);
    }
    expect(picked).toHaveLength(2);
    for (const r of picked) r[col('expected')] = r[col('predicted')];
    writeFileSync(errorsFile, [header, ...rows].map((r) => csvLine(r, ',')).join(''));

    const up = await runCli(['dataset', 'upload', errorsFile, '--evaluation-set', setId, '--format', 'json'], { cwd, env });
    expect(up.code, up.stderr).toBe(0);
    const result = JSON.parse(up.stdout) as { tally: { updated: number; created: number; unchanged: number } };
    expect(result.tally.updated, up.stdout).toBe(2);
    expect(result.tally.created).toBe(0);
    const journal = readFileSync(path.join(cwd, 'errors.journal.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { k: string; op?: string; item?: string });
    expect(journal.filter((j) => j.k === 'update' && j.op === 'done').map((j) => j.item).sort()).toEqual(picked.map((p) => p[0]).sort());

    // The next evaluation run carries the corrected labels, and its report scores against them.
    const exportFile = path.join(cwd, 'export-next.json');
    const ev = await runCli(['eval', 'run', '--evaluation-set', setId, '--version', 'draft', '--out', exportFile], { cwd, env });
    expect(ev.code, ev.stderr).toBe(0);
    const next = JSON.parse(readFileSync(exportFile, 'utf8')) as { items: Array<{ id: string; expectedOutput: { value: Record<string, unknown> } }> };
    const errorsNext = path.join(cwd, 'errors-next.jsonl');
    const r2 = await runCli(['report', '--from', exportFile, '--bootstrap', '0', '--out-dir', path.join(cwd, 'r2'), '--export-errors', errorsNext], { cwd });
    expect(r2.code, r2.stderr).toBe(0);
    const wrong = readFileSync(errorsNext, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { item: string; field: string; expected: unknown });
    for (const p of picked) {
      const item = next.items.find((i) => i.id === p[0])!;
      const label = item.expectedOutput.value[p[col('field')]];
      expect(typeof label === 'string' ? label : JSON.stringify(label)).toBe(p[col('predicted')]);
      // Any wrong outcome left on that field is measured against the corrected label.
      for (const w of wrong.filter((x) => x.item === p[0] && x.field === p[col('field')])) expect(w.expected).toEqual(label);
    }
  }, 240_000);
});

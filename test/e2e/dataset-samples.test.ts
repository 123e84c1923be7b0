// The sample datasets under datasets/ go through the whole flow a user follows: migrate the
// old-layout configs, create the processors, upload each CSV; a second upload changes nothing.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { json, service, type Service } from './dataset-helpers.js';

let s: Service;
let dir: string;
beforeAll(async () => {
  s = await service();
  // Shared by the tests of this file (folder() would be cleaned after the first one).
  dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-samples-'));
  cpSync(path.join(ROOT, 'datasets'), dir, { recursive: true });
  const m = await runCli(['migrate', 'configs/', '--write'], { cwd: dir });
  expect(m.stdout).toContain('3 migrated, 0 unchanged, 0 errors');
  expect(m.code).toBe(0);
});
afterAll(async () => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

const samples = [
  ['invoice-extract', 'EXTRACT'],
  ['document-classify', 'CLASSIFY'],
  ['packet-splitter', 'SPLITTER'],
] as const;

/** The extractor, classifier or splitter of a migrated config, made as a user of the version in effect would. */
async function entity(type: 'EXTRACT' | 'CLASSIFY' | 'SPLITTER', config: Record<string, unknown>): Promise<string> {
  return (await s.client.entities(type).create({ name: 'sample', config })).id;
}

describe('datasets/', () => {
  it.each(samples)('%s uploads cleanly after evalkit migrate, and again without a change', async (name, type) => {
    const meta = JSON.parse(readFileSync(path.join(dir, name, 'dataset.json'), 'utf8')) as { csv: string; config: string };
    const configFile = path.join(dir, name, meta.config);
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    // Migrated to the layout of the API version in effect (2026-02-09: the route carries the type).
    expect(Object.hasOwn(config, 'type')).toBe(false);
    const processor = await entity(type, config);
    const rows = (parse(readFileSync(path.join(dir, name, meta.csv), 'utf8'), { columns: true }) as unknown[]).length;

    // The offline plan against the migrated config file agrees with the service's.
    const dry = await s.upload([meta.csv, '--config', meta.config, '--create-set', 'sample', '--processor', processor, '--dry-run', '--format', 'json'], path.join(dir, name));
    expect(dry.code).toBe(0);
    expect(json(dry).plan).toMatchObject({ create: rows, update: 0, unchanged: 0 });

    // --no-progress: a slow machine would otherwise print a progress line every 5 s.
    const r = await s.upload([meta.csv, '--create-set', 'sample', '--processor', processor, '--format', 'json', '--no-progress'], path.join(dir, name));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = json(r);
    expect(out.findings).toEqual([]);
    expect(out.tally).toMatchObject({ created: rows, failed: 0, filesUploaded: rows });
    expect((await s.items(out.set.id)).length).toBe(rows);

    const again = json(await s.upload([meta.csv, '--create-set', 'sample', '--processor', processor, '--format', 'json'], path.join(dir, name)));
    expect(again.set.id).toBe(out.set.id);
    expect(again.tally).toMatchObject({ created: 0, updated: 0, unchanged: rows, filesUploaded: 0 });
  });

  it('the invoice sample\'s spreadsheet forms arrive typed', async () => {
    const processor = await entity('EXTRACT', JSON.parse(readFileSync(path.join(dir, 'configs/invoice-extract.json'), 'utf8')) as Record<string, unknown>);
    const out = json(await s.upload(['data.csv', '--create-set', 'typed', '--processor', processor, '--format', 'json'], path.join(dir, 'invoice-extract')));
    const byFile = new Map((await s.items(out.set.id)).map((i) => [i.file, (i.expectedOutput as { value: Record<string, unknown> }).value]));
    expect(byFile.get('inv-002.pdf')).toMatchObject({ invoice_date: '2024-03-18', due_date: '2024-04-17', total: { amount: 1316.4, iso_4217_currency_code: 'EUR' } });
    expect(byFile.get('inv-003.txt')).toMatchObject({ invoice_date: '2024-03-20', due_date: null, vendor_vat_id: null, total: { amount: 3600, iso_4217_currency_code: 'USD' } });
    expect(byFile.get('inv-007.txt')).toMatchObject({ total: { amount: 1200, iso_4217_currency_code: 'CHF' } });
    expect(byFile.get('inv-011.txt')).toMatchObject({ total: { amount: 36000, iso_4217_currency_code: 'JPY' } });
    expect((byFile.get('inv-004.txt')!.line_items as unknown[]).length).toBe(3);
  });
});

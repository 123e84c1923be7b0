// `report --export-errors`: one row per wrong outcome, worst documents first, formula-safe cells.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { concretePath, errorRows, errorsFormatOf, errorsText, renderErrors, type ErrorRow } from '../../src/report/errors.js';
import { runCli } from '../helpers/cli.js';
import { FIXTURES, GOLDEN, goldenInputs } from './golden.js';

/** The explorer's data in a report.html: its index and its lines of values, decoded. */
function explorerData(html: string): { index: unknown; details: string } {
  const block = (id: string): string | undefined => new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)?.[1].trim();
  const parts: Buffer[] = [];
  for (let i = 0; block(`ek-details-${i}`) !== undefined; i++) parts.push(Buffer.from(block(`ek-details-${i}`) as string, 'base64'));
  return { index: JSON.parse(gunzipSync(Buffer.from(block('ek-index') as string, 'base64')).toString('utf8')) as unknown, details: parts.length ? gunzipSync(Buffer.concat(parts)).toString('utf8') : '' };
}

describe('errors file', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-errors-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['line_items[].amount', [[2, 4]], 'line_items[2].amount'],
    ['line_items[].amount', [[-1, 3]], 'line_items[+3].amount'],
    ['a[].b[].c', [[0, 0], [1, -1]], 'a[0].b[1].c'],
    ['total', [], 'total'],
  ] as Array<[string, Array<[number, number]>, string]>)('concretePath(%s, %j) = %s', (unit, rows, want) => {
    expect(concretePath(unit, rows)).toBe(want);
  });

  it('EXTRACT with a baseline export: every wrong outcome of the report, worst documents first, the baseline beside', async () => {
    const input = await goldenInputs(GOLDEN['extract-baseline']);
    const rows = errorRows(input);
    const micro = input.report.extract!.micro.counts;
    // Every FA, FN and FD the report counts (keys outside the fields included).
    expect(rows.length).toBe(micro.fa + micro.fn + micro.fd);
    const order = rows.map((r) => r.document_errors);
    expect(order).toEqual([...order].sort((a, b) => b - a));
    const notes = rows.find((r) => r.item === 'inv_003' && r.field === 'notes');
    expect(notes).toMatchObject({ outcome: 'FA', expected: null, predicted: '<script>window.__pwned = 1</script>', baseline_predicted: '<script>window.__pwned = 1</script>' });
    // Each document's rows sum to its wrong outcomes.
    for (const d of input.documents) expect(rows.filter((r) => r.item === d.id).length).toBe(d.errors);
  });

  it('the file column is the name the user gave: dataset upload\'s content tag left out, as the explorer shows it', async () => {
    const input = await goldenInputs(GOLDEN['extract-baseline']);
    const wrong = input.documents.find((d) => d.errors > 0)!;
    const tagged = input.documents.map((d) => (d === wrong ? { ...d, fileName: 'scan 1.ek0123456789abcdef01234567.pdf' } : d));
    const rows = errorRows({ ...input, documents: tagged });
    const first = rows.filter((r) => r.item === wrong.id);
    expect(first.length).toBeGreaterThan(0);
    for (const r of first) expect(r.file).toBe('scan 1.pdf');
  });

  it.each(Object.keys(GOLDEN))('%s: the file made document by document (errorsText) is the rows rendered (renderErrors of errorRows)', async (name) => {
    const input = await goldenInputs(GOLDEN[name]);
    const rows = errorRows(input);
    expect(rows.length).toBeGreaterThan(0);
    for (const format of ['csv', 'jsonl'] as const) {
      for (const kind of [undefined, 'export', 'report'] as const) {
        expect(errorsText(input, format, kind)).toEqual({ text: renderErrors(rows, format, kind), count: rows.length });
      }
    }
  });

  it('CSV cells a spreadsheet would run as a formula are made inert; JSONL keeps JSON values', () => {
    const row: ErrorRow = { item: 'i1', file: '=HYPERLINK("http://x")', fileId: 'f1', field: 'total', outcome: 'FD', expected: -5, predicted: '@SUM(A1)', confidence: 0.5, baseline_predicted: '+1', document_errors: 1 };
    const csv = renderErrors([row], 'csv', 'export');
    const [header, cells] = parse(csv) as string[][];
    expect(header).toEqual(['item', 'file', 'fileId', 'field', 'outcome', 'expected', 'predicted', 'confidence', 'baseline_predicted', 'document_errors']);
    expect(cells).toEqual(['i1', `'=HYPERLINK("http://x")`, 'f1', 'total', 'FD', "'-5", "'@SUM(A1)", '0.5', "'+1", '1']);
    expect(renderErrors([row], 'csv', 'report').split('\r\n')[1]).toContain(',not available,');
    expect(JSON.parse(renderErrors([row], 'jsonl', 'export'))).toMatchObject({ expected: -5, predicted: '@SUM(A1)', baseline_predicted: '+1' });
    expect(() => errorsFormatOf('errors.xlsx')).toThrow(/must end in .csv or .jsonl/);
  });

  it('evalkit report --export-errors writes the file beside the reports', async () => {
    const out = path.join(dir, 'errors.csv');
    const r = await runCli(['report', '--from', path.join(FIXTURES, 'classify-export.jsonl'), '--bootstrap', '0', '--out-dir', path.join(dir, 'r'), '--export-errors', out]);
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(readFileSync(out, 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((x) => x.field))).toEqual(new Set(['class']));
    expect(r.stdout).toMatch(/errors\.csv \(\d+ wrong outcome\(s\)\)/);
    const bad = await runCli(['report', '--from', path.join(FIXTURES, 'classify-export.jsonl'), '--out-dir', path.join(dir, 'r2'), '--export-errors', path.join(dir, 'e.txt')]);
    expect(bad.code).toBe(2);
  });

  it('JSONL exports, whose values are read back line by line, give the errors file and the explorer of the same exports as JSON documents', async () => {
    const jsonl = (fixture: string, name: string): string => {
      const { items, ...header } = JSON.parse(readFileSync(path.join(FIXTURES, fixture), 'utf8')) as { items: unknown[] };
      const file = path.join(dir, name);
      writeFileSync(file, [JSON.stringify(header), ...items.map((i) => JSON.stringify(i))].join('\r\n') + '\r\n');
      return file;
    };
    const lines = jsonl('extract-export.json', 'extract.jsonl');
    // The baseline under the same name both ways (report.html names it).
    mkdirSync(path.join(dir, 'b'));
    const baselineJson = path.join(dir, 'b', 'base.json');
    writeFileSync(baselineJson, readFileSync(path.join(FIXTURES, 'extract-baseline.json')));
    const baselineLines = jsonl('extract-baseline.json', 'base.jsonl');
    const run = async (from: string, baseline: string, name: string) => {
      const out = path.join(dir, `${name}.jsonl`);
      const r = await runCli(['report', '--from', from, '--baseline', baseline, '--slice-by', 'fileName', '--bootstrap', '0', '--out-dir', path.join(dir, name), '--export-errors', out]);
      expect(r.code, r.stderr).toBe(0);
      return { errors: readFileSync(out, 'utf8'), explorer: explorerData(readFileSync(path.join(dir, name, 'report.html'), 'utf8')) };
    };
    const fromJson = await run(path.join(FIXTURES, 'extract-export.json'), baselineJson, 'from-json');
    expect(fromJson.errors.split('\n').length).toBeGreaterThan(10);
    expect(fromJson.errors).toContain('"baseline_predicted":{"amount":100,"iso_4217_currency_code":"EUR"}');
    expect((fromJson.explorer.index as { baseline: unknown }).baseline).toEqual({ file: 'base.json', kind: 'export', values: true });
    expect(await run(lines, baselineJson, 'from-jsonl')).toEqual(fromJson);
    // A JSONL baseline: its records and values are read the same way.
    const both = await run(lines, baselineLines, 'both-jsonl');
    expect(both.errors).toBe(fromJson.errors);
    expect(JSON.stringify(both.explorer).replaceAll('base.jsonl', 'base.json')).toBe(JSON.stringify(fromJson.explorer));
  });
});

describe('errors file with a JSONL baseline past the documents report.html lists', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-errors-big-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** A one-field EXTRACT export of `n` documents as JSONL, every `wrong`-th prediction wrong. */
  const write = (name: string, n: number, wrong: number): string => {
    const header = { format: 'evalkit-export/1', processor: { id: 'dp_x', name: 'x', type: 'EXTRACT', version: '1.0', config: { type: 'EXTRACT', schema: { type: 'object', properties: { a: { type: ['string', 'null'] } } } } }, options: { fuzzyMatchFields: [], excludeFields: [] } };
    const lines = [JSON.stringify(header)];
    for (let i = 0; i < n; i++) {
      lines.push(JSON.stringify({ id: `evi_${i}`, fileId: `f${i}`, fileName: `d${i}.pdf`, expectedOutput: { value: { a: `x${i}` } }, output: { value: { a: i % wrong === 0 ? 'y' : `x${i}` } }, status: 'PROCESSED' }));
    }
    const file = path.join(dir, name);
    writeFileSync(file, lines.join('\n') + '\n');
    return file;
  };
  const from = write('run.jsonl', 50_001, 7);
  const errorsWith = async (baseline: string): Promise<Array<Record<string, string>>> => {
    const out = path.join(dir, `${path.basename(baseline)}.csv`);
    const r = await runCli(['report', '--from', from, '--baseline', baseline, '--bootstrap', '0', '--format', 'json', '--out-dir', path.join(dir, `out-${path.basename(baseline)}`), '--export-errors', out]);
    expect(r.code, r.stderr).toBe(0);
    return parse(readFileSync(out, 'utf8'), { columns: true }) as Array<Record<string, string>>;
  };

  it('says "not available" past 50,000 baseline documents, and shows the predictions up to 50,000', async () => {
    const past = await errorsWith(write('base-50001.jsonl', 50_001, 5));
    expect(past.length).toBe(Math.ceil(50_001 / 7));
    // Never an empty cell, which would read as "the baseline predicted nothing".
    expect(new Set(past.map((row) => row.baseline_predicted))).toEqual(new Set(['not available']));
    const within = await errorsWith(write('base-50000.jsonl', 50_000, 5));
    const byItem = new Map(within.map((row) => [row.item, row.baseline_predicted]));
    expect(byItem.get('evi_0')).toBe('y'); // wrong in both
    expect(byItem.get('evi_7')).toBe('x7'); // right in the baseline
    expect(within.filter((row) => row.baseline_predicted === 'not available')).toEqual([]);
  }, 60_000);
});

// Slices end to end through the built CLI: a CSV with metadata.* columns is uploaded, evaluated
// with `eval run --metadata`, and reported with `--slice-by`; and a constructed export where
// one vendor is far worse gets that slice flagged in the CLI summary, report.json and report.md.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { EvaluationExport } from '../../src/metrics/index.js';
import type { Report } from '../../src/report/index.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';
import { makeExport } from '../metrics/helpers.js';

let t: TestSandbox;
let dir: string;

beforeAll(async () => {
  t = await start({ engineDelayMs: 1 });
  dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-e2e-slices-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

const env = (): NodeJS.ProcessEnv => ({ EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token });

/** The bundled invoice CSV with a metadata.region column (and a commented-out second one). */
function csvWithRegions(): { csv: string; regions: string[] } {
  const ds = path.join(dir, 'invoices');
  cpSync(path.join(ROOT, 'datasets/invoice-extract'), ds, { recursive: true });
  const csv = path.join(ds, 'data.csv');
  const lines = readFileSync(csv, 'utf8').split('\n');
  const regions: string[] = [];
  // Rows may span lines (quoted line breaks): add the column at the end of each record's last line.
  let row = 0;
  const out = lines.map((line, i) => {
    if (i === 0) return `${line},metadata.region`;
    if (line === '' || (lines[i + 1] !== undefined && !lines[i + 1].startsWith('files/') && lines[i + 1] !== '')) return line;
    const region = ['uk', 'eu', 'eu'][row++ % 3];
    regions.push(region);
    return `${line},${region}`;
  });
  writeFileSync(csv, out.join('\n'));
  return { csv, regions };
}

describe('slices (built CLI, real sandbox)', () => {
  test('upload keeps metadata.* columns out of the expected output; eval run --metadata joins them; report --slice-by', async () => {
    const { csv, regions } = csvWithRegions();
    const proc = await runCli(['processors', 'create', '--name', 'inv', '--type', 'EXTRACT', '--config', path.join(ROOT, 'datasets/configs/invoice-extract.json'), '--format', 'json'], { env: env() });
    expect(proc.code, proc.stderr).toBe(0);
    const processorId = (JSON.parse(proc.stdout) as { processor: { id: string } }).processor.id;
    const up = await runCli(['dataset', 'upload', csv, '--create-set', 'regions', '--processor', processorId, '--format', 'json'], { env: env() });
    expect(up.code, up.stderr).toBe(0);
    const setId = /"(ev_[^"]+)"/.exec(up.stdout)![1];

    const file = path.join(dir, 'run.json');
    const run = await runCli(['eval', 'run', '-e', setId, '--version', 'draft', '--metadata', csv, '--out', file, '--no-progress'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`12 of 12 item(s) described by ${csv} (metadata region)`);
    const exp = JSON.parse(readFileSync(file, 'utf8')) as EvaluationExport;
    // Items are in the set's order; the files name them (inv-001 ... inv-012).
    const byName = exp.items.map((i) => [Number(/inv-(\d+)/.exec(i.fileName ?? '')![1]), i.metadata?.region] as const).sort((a, b) => a[0] - b[0]);
    expect(byName.map(([, r]) => r)).toEqual(regions);
    // The metadata column is not part of any expected output.
    expect(JSON.stringify(exp.items.map((i) => i.expectedOutput))).not.toContain('region');

    const out = path.join(dir, 'report');
    const rep = await runCli(['report', '--from', file, '--out-dir', out, '--bootstrap', '0', '--slice-by', 'metadata.region', '--slice-by', 'fileType'], { env: {} });
    expect(rep.code, rep.stderr).toBe(0);
    expect(rep.stdout).toMatch(/^slices by metadata\.region: 2 slice\(s\); /m);
    expect(rep.stdout).toMatch(/^slices by fileType: 2 slice\(s\); /m);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as Report;
    const region = report.slices!.groups[0];
    expect(region.key).toBe('metadata.region');
    expect(region.slices.map((s) => [s.label, s.documents])).toEqual([
      ['eu', 8],
      ['uk', 4],
    ]);
    expect(report.slices!.groups[1].slices.map((s) => [s.label, s.documents])).toEqual([
      ['TXT', 10],
      ['PDF', 2],
    ]);
    expect(readFileSync(path.join(out, 'report.md'), 'utf8')).toContain('### Slices');

    // The same slices named in evalkit.config.json: eval run reads the dataset's csv for their
    // metadata by itself, so the report slices by region with no --metadata anywhere.
    const proj = path.join(dir, 'project');
    mkdirSync(proj);
    writeFileSync(path.join(proj, 'evalkit.config.json'), JSON.stringify({ datasets: { inv: { evaluationSet: setId, csv: path.relative(proj, csv), export: 'run.json', outDir: 'report', slices: ['region'] } } }));
    const cfgRun = await runCli(['eval', 'run', '--version', 'draft', '--no-progress'], { cwd: proj, env: env() });
    expect(cfgRun.code, cfgRun.stderr).toBe(0);
    expect(cfgRun.stderr).toContain('12 of 12 item(s) described by');
    const cfgRep = await runCli(['report', '--bootstrap', '0'], { cwd: proj, env: {} });
    expect(cfgRep.code, cfgRep.stderr).toBe(0);
    expect(cfgRep.stderr).not.toContain('warning');
    const cfgReport = JSON.parse(readFileSync(path.join(proj, 'report/report.json'), 'utf8')) as Report;
    expect(cfgReport.slices!.groups[0].slices.map((s) => [s.label, s.documents])).toEqual([
      ['eu', 8],
      ['uk', 4],
    ]);

    // An export made without the metadata: one (none) slice, and a warning that says where metadata comes from.
    const bare = path.join(dir, 'bare.json');
    const noMeta = JSON.parse(readFileSync(file, 'utf8')) as EvaluationExport;
    for (const i of noMeta.items) delete i.metadata;
    writeFileSync(bare, JSON.stringify(noMeta));
    const warned = await runCli(['report', '--from', bare, '--out-dir', path.join(dir, 'bare'), '--bootstrap', '0', '--slice-by', 'region'], { env: {} });
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toContain("evalkit: warning: --slice-by metadata.region: no document has this metadata, so all 12 are in one (none) slice; item metadata comes from the dataset CSV's metadata.region column when the export is made (eval run --metadata CSV");

    // A config that slices by metadata its CSV does not have: exit 2 before any run, saying why the CSV was read.
    writeFileSync(path.join(proj, 'evalkit.config.json'), JSON.stringify({ datasets: { inv: { evaluationSet: setId, csv: path.relative(proj, path.join(ROOT, 'datasets/invoice-extract/data.csv')), export: 'run2.json', slices: ['region'] } } }));
    const refused = await runCli(['eval', 'run', '--version', 'draft', '--no-progress'], { cwd: proj, env: env() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("the CSV has no metadata columns (read for the metadata of the config file's slices");
    expect(existsSync(path.join(proj, 'run2.json'))).toBe(false);
  });

  test('a far worse vendor is flagged; bad keys are usage errors', async () => {
    const classify = { type: 'CLASSIFY', classifications: ['invoice', 'receipt'].map((type) => ({ id: `cls_${type}`, type, description: type })) };
    const vendors = [...Array.from({ length: 30 }, (_, i) => ['Acme', i < 27] as const), ...Array.from({ length: 30 }, (_, i) => ['Globex', i < 9] as const)];
    const exp = makeExport('CLASSIFY', classify, vendors.map(([, ok]) => ({ e: { type: 'invoice' }, p: { type: ok ? 'invoice' : 'receipt', confidence: 0.8 } })));
    exp.items.forEach((it, i) => (it.metadata = { vendor: vendors[i][0] }));
    const file = path.join(dir, 'vendors.json');
    writeFileSync(file, JSON.stringify(exp));
    const out = path.join(dir, 'vendors');
    const rep = await runCli(['report', '--from', file, '--out-dir', out, '--bootstrap', '0', '--slice-by', 'vendor'], { env: {} });
    expect(rep.code, rep.stderr).toBe(0);
    expect(rep.stdout).toMatch(/^slices by metadata\.vendor: 2 slice\(s\); significantly worse accuracy: "Globex" 0\.300 vs 0\.900 \(p Holm [\d.e-]+\)$/m);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as Report;
    const globex = report.slices!.groups[0].slices.find((s) => s.label === 'Globex')!;
    expect(globex.flagged).toBe(true);
    expect(report.slices!.groups[0].slices.find((s) => s.label === 'Acme')!.flagged).toBe(false);
    expect(readFileSync(path.join(out, 'report.md'), 'utf8')).toContain('| ⚠ `Globex` | 30 |');
    // The explorer: a table per key, the flag, and a Slice filter over the documents.
    const html = readFileSync(path.join(out, 'report.html'), 'utf8');
    expect(html).toContain('<h3><code>metadata.vendor</code></h3>');
    expect(html).toContain('⚠ <code>Globex</code>');

    const bad = await runCli(['report', '--from', file, '--out-dir', out, '--slice-by', 'pageCount:5;2'], { env: {} });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--slice-by pageCount:5;2: bucket bounds must be increasing');
  });

  test('eval --metadata: a CSV without metadata columns is refused before any run', async () => {
    const plain = path.join(dir, 'plain.csv');
    writeFileSync(plain, 'file,total\nfiles/a.pdf,1\n');
    const r = await runCli(['eval', 'run', '-e', 'ev_missing', '--metadata', plain, '--out', path.join(dir, 'x.json')], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the CSV has no metadata columns');
    expect(r.stderr).toContain(plain);
  });
});

// Issue 35 (gates, intervals at the boundary, metric defects) through the built CLI.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/index.js';
import { cleanupAfterEach, runCli } from '../helpers/cli.js';
import { extractExport } from '../metrics/helpers.js';

const { tmp } = cleanupAfterEach('report-stats');
const CLEAN = { EVALKIT_BASE_URL: '', EVALKIT_API_VERSION: '', EVALKIT_API_TOKEN: '' };

const CONFIG = { type: 'EXTRACT', schema: { type: 'object', properties: { total: { type: 'number' }, vendor: { type: 'string' } } } };
/** n documents; vendor wrong where `wrong(i)`. */
const docs = (n: number, wrong: (i: number) => boolean = () => false) =>
  extractExport(
    CONFIG,
    Array.from({ length: n }, (_, i) => ({ e: { total: i + 1, vendor: `V${i}` }, p: { total: i + 1, vendor: wrong(i) ? 'wrong' : `V${i}` } })),
  );

function project(files: Record<string, unknown>): string {
  const dir = tmp();
  for (const [name, data] of Object.entries(files)) writeFileSync(path.join(dir, name), typeof data === 'string' ? data : JSON.stringify(data));
  return dir;
}

const reportJson = (dir: string, out = 'out'): Report => JSON.parse(readFileSync(path.join(dir, out, 'report.json'), 'utf8')) as Report;

describe('gates: one syntax in the CLI and the config file', () => {
  // 10 documents, vendor wrong in 2: micro F1 = 2·18 / (2·18 + 2 + 2) = 0.9.
  const run = docs(10, (i) => i < 2);

  it.each([
    [['--fail-under', 'micro.f1>=0.9'], 0],
    [['--fail-under', 'micro.f1=0.9'], 0],
    [['--fail-under', 'micro.f1=0.91'], 1],
    [['--gate', 'micro.f1=0.91'], 1],
    [['--gate', 'micro.f1<=0.89'], 1],
    [['--fail-under', 'micro.f1<=0.95'], 0],
  ])('%j exits %i', async (args, code) => {
    const dir = project({ 'run.json': run });
    const r = await runCli(['report', '--from', 'run.json', '--out-dir', 'out', '--bootstrap', '0', ...args], { cwd: dir, env: CLEAN });
    expect(r.code, r.stderr).toBe(code);
    expect(reportJson(dir).gates.results[0].value).toBeCloseTo(0.9, 12);
  });

  it('the config file takes METRIC=N as >=', async () => {
    const dir = project({ 'run.json': run, 'evalkit.config.json': { datasets: { a: { export: 'run.json', outDir: 'out', gates: ['micro.f1=0.91', 'document.accuracy=0.8'] } } } });
    const r = await runCli(['report', '--bootstrap', '0'], { cwd: dir, env: CLEAN });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('FAIL micro.f1=0.91');
    expect(r.stdout).toContain('pass document.accuracy=0.8');
  });
});

describe('a fall 12 paired documents could not show is said on the summary', () => {
  // 12 documents; vendor wrong in 5 of this run's, none of the baseline's: micro F1 1.000 -> 19/24
  // (2·19 / (2·19 + 5 + 5)). b = 5, c = 0: McNemar p 0.0625, inconclusive; 8 rows, 8·2^(1−12) < 0.05.
  it('exit 0 as documented, and the text names the rows and what they would need', async () => {
    const dir = project({ 'run.json': docs(12, (i) => i < 5), 'base.json': docs(12) });
    const r = await runCli(['report', '--from', 'run.json', '--baseline', 'base.json', '--out-dir', 'out', '--bootstrap', '300', '--fail-on-regression'], { cwd: dir, env: CLEAN });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('could not detect: 7 metric(s) fell but could not reach significance with 12 paired documents: even were every changed document to go wrong');
    expect(r.stdout).toMatch(/micro\.f1 −0\.208 \(5 changed, 9 needed\)/);
    expect(r.stdout).toMatch(/0 of 1 gate\(s\) failed, no significant regression \(but 7 metric\(s\) that fell could not reach significance\)$/m);
    expect(readFileSync(path.join(dir, 'out', 'report.md'), 'utf8')).toContain('pass, but it could not detect a regression here: 7 metric(s) fell');
  });
});

describe('a regression gate that cannot fail fails', () => {
  // 5 documents; micro F1 from 1.000 to 0.7 (vendor wrong in 3: 2·7 / (2·7 + 3 + 3)).
  const base = docs(5);
  const cur = docs(5, (i) => i < 3);

  it('5 paired documents: exit 1 naming the documents needed; --allow-underpowered passes with a warning', async () => {
    const dir = project({ 'run.json': cur, 'base.json': base });
    const args = ['report', '--from', 'run.json', '--baseline', 'base.json', '--out-dir', 'out', '--bootstrap', '300', '--fail-on-regression'];
    const r = await runCli(args, { cwd: dir, env: CLEAN });
    expect(r.code, r.stderr).toBe(1);
    expect(reportJson(dir).extract?.micro.f1.value).toBeCloseTo(0.7, 12);
    // The summary leads with the headline change.
    expect(r.stdout.split('\n')[1]).toBe('micro F1 1.000 -> 0.700 (-0.300, inconclusive) against base.json (5 paired documents)');
    // 8 comparable metrics (2 fields, 4 micro, macro F1, document accuracy): 8·2^(1−n) < 0.05 from n = 9.
    expect(r.stdout).toMatch(/FAIL baseline\.paired>=9: no regression can be significant on 5 paired document\(s\): with 8 metric\(s\) compared/);
    const allowed = await runCli([...args, '--allow-underpowered'], { cwd: dir, env: CLEAN });
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toMatch(/allowed underpowered comparison: no regression can be significant on 5 paired document\(s\)/);
    expect(allowed.stderr).toMatch(/power: these 5 paired documents cannot detect/);
  });

  it('allowUnderpowered in the config file', async () => {
    const dir = project({ 'run.json': cur, 'base.json': base, 'evalkit.config.json': { datasets: { a: { export: 'run.json', baseline: 'base.json', outDir: 'out', allowUnderpowered: true } } } });
    const r = await runCli(['report', '--bootstrap', '300', '--fail-on-regression'], { cwd: dir, env: CLEAN });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('intervals at the boundary', () => {
  it('a field right on all of 5 documents: F1 interval [0.566, 1] (Wilson of 5 of 5), not 1.000 - 1.000', async () => {
    const dir = project({ 'run.json': docs(5) });
    const r = await runCli(['report', '--from', 'run.json', '--out-dir', 'out', '--bootstrap', '500', '--formats', 'json,md'], { cwd: dir, env: CLEAN });
    expect(r.code, r.stderr).toBe(0);
    const rep = reportJson(dir);
    // scipy.stats.binomtest(5, 5).proportion_ci(0.95, 'wilson').low = 0.5655175352168251
    for (const f of rep.extract?.fields ?? []) expect(f.f1.interval).toEqual({ lower: expect.closeTo(0.5655175352168251, 12) as number, upper: 1 });
    expect(rep.extract?.micro.f1.interval?.lower).toBeCloseTo(0.5655175352168251, 12);
    const md = readFileSync(path.join(dir, 'out/report.md'), 'utf8');
    expect(md).toContain('0.566 – 1.000');
    expect(md).not.toContain('1.000 – 1.000');
  });
});

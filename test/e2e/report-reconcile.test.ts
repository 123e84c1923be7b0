// `evalkit report` on an export that records the service's evaluation set run (API 2026-02-09),
// through the built CLI: the reconciliation in every format (values computed by hand in
// test/report/reconcile.test.ts), JSON and JSONL alike, and a FAILED run refused unless --allow-partial.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, ROOT } from '../helpers/cli.js';

const EXPORT = path.join(ROOT, 'test/fixtures/report/service-extract-export.json');
const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'evalkit-reconcile-e2e-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const report = (args: string[]) => runCli(['report', '--bootstrap', '0', ...args]);

/** The fixture as JSONL (a header line, then one item per line), with the service's status set. */
function variant(dir: string, status: string, jsonl: boolean): string {
  const exp = JSON.parse(readFileSync(EXPORT, 'utf8'));
  exp.service.status = status;
  const file = path.join(dir, jsonl ? 'run.jsonl' : 'run.json');
  const { items, ...header } = exp;
  writeFileSync(file, jsonl ? [header, ...items].map((x) => JSON.stringify(x)).join('\n') + '\n' : JSON.stringify(exp));
  return file;
}

describe('evalkit report: the reconciliation', () => {
  it('is in report.json, report.md, report.html, the summary and the warnings', async () => {
    const out = tmp();
    const r = await report(['--from', EXPORT, '--out-dir', out]);
    expect(r.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['documents.jsonl', 'report.html', 'report.json', 'report.junit.xml', 'report.md']);
    const rec = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')).reconciliation;
    expect(rec).toMatchObject({ evaluationSetRunId: 'evr_1', status: 'PROCESSED', partial: false, notGiven: ['fieldMetrics.vendor.name.accuracy'] });
    expect(rec.rows[0]).toMatchObject({ kind: 'aggregate', service: 0.625, recomputed: 0.625, evalkitMetric: 'micro.recall', evalkitCounts: { k: 8, n: 12 }, differs: true });
    expect(rec.findings).toEqual([
      { metric: 'fieldMetrics.date.countAccurate', recomputed: 1, service: 2 },
      { metric: 'fieldMetrics.date.accuracy', recomputed: 0.5, service: 1 },
    ]);
    expect(r.stdout).toContain('service run evr_1 (PROCESSED) · accuracy 0.625 · evalkit micro.recall 0.667 · 4 of 6 figures differ · 2 recomputation finding(s) · 1 not given');
    expect(r.stderr).toContain("evalkit: warning: reconciliation: the service's answer disagrees with evalkit's recomputation");
    const md = readFileSync(path.join(out, 'report.md'), 'utf8');
    expect(md).toContain("### The service's figures (evaluation set run `evr_1`, PROCESSED)");
    expect(md).toContain('| field `date` accuracy | 1.000 (2 / 2) | 0.500 | 0.667 (2 / 3) | `field:date.recall` | yes |');
    expect(md).toContain('| field `vendor.name` accuracy | not given | 0.500 | 0.500 (1 / 2) |');
    expect(md).toContain('| `fieldMetrics.date.countAccurate` | 2 | 1 |');
    const html = readFileSync(path.join(out, 'report.html'), 'utf8');
    expect(html).toContain('<h2 id="reconciliation">The service\'s figures</h2>');
    expect(html).toContain('<code>fieldMetrics.date.countAccurate</code>');
    // service − evalkit of the aggregate: 0.625 − 8/12 = −0.0417.
    expect(html).toContain('<td><code>micro.recall</code></td><td><strong>−0.042</strong></td>');
  });

  it('a JSONL export gives the same reconciliation as the JSON one', async () => {
    const [a, b] = [tmp(), tmp()];
    const dir = tmp();
    expect((await report(['--from', EXPORT, '--out-dir', a, '--formats', 'json'])).code).toBe(0);
    expect((await report(['--from', variant(dir, 'PROCESSED', true), '--out-dir', b, '--formats', 'json'])).code).toBe(0);
    const rec = (d: string) => JSON.parse(readFileSync(path.join(d, 'report.json'), 'utf8')).reconciliation;
    expect(rec(b)).toEqual(rec(a));
  });

  it('a FAILED run: exit 2 naming /service/status and --allow-partial, nothing written; scored with --allow-partial', async () => {
    const dir = tmp();
    const file = variant(dir, 'FAILED', true);
    const out = path.join(dir, 'out');
    const r = await report(['--from', file, '--out-dir', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('run.jsonl at /service/status');
    expect(r.stderr).toContain('evr_1 is FAILED, not PROCESSED: a partial run is not scored');
    expect(r.stderr).toContain('--allow-partial');
    expect(existsSync(out)).toBe(false);
    const ok = await report(['--from', file, '--out-dir', out, '--allow-partial']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('service run evr_1 (FAILED, partial)');
    expect(readFileSync(path.join(out, 'report.md'), 'utf8')).toContain('**Partial run**: the service\'s run is FAILED');
    expect(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')).reconciliation.partial).toBe(true);
  });

  it('a FAILED baseline, or a report.json made with --allow-partial: exit 2 naming the file; a baseline of failures alone fails --fail-on-regression', async () => {
    const dir = tmp();
    // Every run failed and the service's run ended FAILED (as `sandbox --engine simulate:42,0.1,1.0` gives).
    const exp = JSON.parse(readFileSync(EXPORT, 'utf8'));
    exp.service.status = 'FAILED';
    for (const it of exp.items) {
      it.status = 'FAILED';
      it.output = null;
    }
    const failed = path.join(dir, 'failed.json');
    writeFileSync(failed, JSON.stringify(exp));
    const out = path.join(dir, 'out');
    const r = await report(['--from', EXPORT, '--baseline', failed, '--fail-on-regression', '--out-dir', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('failed.json at /service/status');
    expect(r.stderr).toContain("baseline failed.json: the service's evaluation set run evr_1 is FAILED, not PROCESSED: a partial run is not a baseline");
    expect(r.stderr).toContain('--allow-partial');
    expect(existsSync(out)).toBe(false);
    // Accepted with --allow-partial, but a regression gate against failures alone cannot pass.
    const allowed = await report(['--from', EXPORT, '--baseline', failed, '--fail-on-regression', '--allow-partial', '--out-dir', out]);
    expect(allowed.code).toBe(1);
    expect(allowed.stdout).toMatch(/FAIL baseline\.processed>=1: every run of the baseline failed\.json failed \(\d+ of \d+\): it has no output to regress from/);
    expect(allowed.stderr).toContain('baseline: partial baseline failed.json');
    // The partial run's report.json as a baseline: refused as its export is.
    const partialDir = path.join(dir, 'partial');
    expect((await report(['--from', variant(dir, 'CANCELLED', false), '--allow-partial', '--out-dir', partialDir, '--formats', 'json'])).code).toBe(0);
    const again = await report(['--from', EXPORT, '--baseline', path.join(partialDir, 'report.json'), '--out-dir', path.join(dir, 'out2')]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('report.json at /reconciliation/partial');
    expect(again.stderr).toContain('is the report of a partial run');
  });
});

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium, launchChromium, openFile } from '../helpers/browser.js';
import { ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { start } from '../sandbox/helpers.js';

interface Summary {
  datasets: Array<{
    name: string;
    type: string;
    documents: number;
    failed: number;
    candidate: { metric: string; value: number | null; interval: { lower: number; upper: number } | null };
    verdict: string | null;
    reports: Record<'json' | 'md' | 'html' | 'junit', string>;
  }>;
}

const DATASETS = ['document-classify', 'invoice-extract', 'packet-splitter'];

describe('evalkit demo (the main job, as a child process)', () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'evalkit-demo-'));
  let first: CliResult;
  let summary: Summary;

  beforeAll(async () => {
    first = await runCli(['demo', '--format', 'json', '--verbose'], { cwd });
    summary = JSON.parse(first.stdout) as Summary;
  }, 120_000);

  it('runs every sample dataset and exits 0, printing one line per step and the commands they stand for', () => {
    expect(first.code).toBe(0);
    expect(summary.datasets.map((d) => d.name)).toEqual(DATASETS);
    expect(summary.datasets.map((d) => d.type)).toEqual(['CLASSIFY', 'EXTRACT', 'SPLITTER']);
    for (const step of ['migrate:', 'processor ', 'validate:', 'upload: set ev_', 'eval 1.0:', 'eval draft:', 'report:']) {
      expect(first.stderr.split('\n').filter((l) => /^\[[a-z-]+\] /.test(l) && l.includes(`] ${step}`))).toHaveLength(3);
    }
    // The default API version, 2026-02-09: extractors, classifiers and splitters.
    expect(first.stderr).toMatch(/\[invoice-extract\] processor ex_\w+ /);
    expect(first.stderr).toMatch(/\[document-classify\] processor cl_\w+ /);
    expect(first.stderr).toMatch(/\[packet-splitter\] processor spl_\w+ /);
    expect(first.stderr).toMatch(/2024-11-14 -> 2026-02-09 \(EXTRACT\)/);
    expect(first.stderr).toContain('{"op":"move","from":"/customExtractionRules","path":"/extractionRules"}');
    expect(first.stderr).toMatch(/\$ evalkit migrate \S*datasets\/configs\/invoice-extract\.json --out-dir reports\/demo\/invoice-extract/);
    expect(first.stderr).toMatch(/\$ evalkit eval run --evaluation-set ev_\w+ --version draft --fuzzy-match-fields vendor_name --out reports\/demo\/invoice-extract\/export-draft\.json/);
  });

  it("the README's demo transcript is what it prints: each step and patch line as shown, each summary row's figures", () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const block = /`npm start` is `evalkit demo`[\s\S]*?```text\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    // The README runs it from the checkout; this run's paths to datasets/ start elsewhere.
    const printed = new Set(first.stderr.split('\n').map((l) => l.replaceAll(`${path.relative(cwd, ROOT)}/datasets/`, 'datasets/')));
    const lines = block!.split('\n');
    const steps = lines.filter((l) => l.startsWith('[') || l.startsWith('    {'));
    expect(steps.length).toBeGreaterThanOrEqual(11);
    for (const l of steps) expect(printed.has(l), l).toBe(true);
    const f = (x: number): string => x.toFixed(3);
    for (const d of summary.datasets) {
      const row = lines.find((l) => l.startsWith(`${d.name} `));
      expect(row, d.name).toContain(`${f(d.candidate.value!)} [${f(d.candidate.interval!.lower)}, ${f(d.candidate.interval!.upper)}]`);
      expect(row, d.name).toContain(`${d.verdict}`);
    }
  });

  it('prints `evalkit processors` lines (no curl) that do the same against another sandbox when copied', async () => {
    expect(first.stderr).not.toContain('curl');
    const create = first.stderr.split('\n').find((l) => l.startsWith('  $ evalkit processors create ') && l.includes('invoice-extract'));
    expect(create).toMatch(/^ {2}\$ evalkit processors create --name invoice-extraction --type EXTRACT --config reports\/demo\/invoice-extract\/invoice-extract\.json$/);
    const demoId = /processors update (\w+) --config reports\/demo\/invoice-extract\/draft-config\.json/.exec(first.stderr)?.[1];
    expect(first.stderr).toContain(`$ evalkit processors publish ${demoId} --release major --description 'first release (evalkit demo)'`);
    expect(first.stderr).toContain(`$ evalkit processors diff ${demoId} 1.0 draft`);
    const t = await start();
    try {
      const env = { EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token };
      const argv = (line: string): string[] => line.replace(/^ {2}\$ evalkit /, '').replace(/\s+#.*$/, '').match(/'[^']*'|\S+/g)!.map((a) => a.replace(/^'(.*)'$/, '$1'));
      const created = await runCli([...argv(create!), '--format', 'json'], { cwd, env });
      expect(created.code, created.stderr).toBe(0);
      const id = (JSON.parse(created.stdout) as { processor: { id: string } }).processor.id;
      for (const line of first.stderr.split('\n').filter((l) => l.includes(`processors publish ${demoId} `) || l.includes(`processors update ${demoId} `))) {
        const r = await runCli(argv(line.replace(demoId!, id)), { cwd, env });
        expect(r.code, r.stderr).toBe(0);
      }
      const diff = await runCli(['processors', 'diff', id, '1.0', 'draft', '--format', 'json'], { cwd, env });
      expect((JSON.parse(diff.stdout) as { patch: Array<{ path: string }> }).patch.map((o) => o.path)).toEqual(['/extractionRules']);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('writes every report, each parses, and the summary numbers are the report JSON numbers', () => {
    const xml = new XMLParser({ ignoreAttributes: false });
    for (const d of summary.datasets) {
      const dir = path.join(cwd, 'reports/demo', d.name);
      expect(readdirSync(dir).filter((f) => f.startsWith('report.')).sort()).toEqual(['report.html', 'report.json', 'report.junit.xml', 'report.md']);
      expect(d.reports.json).toBe(path.join(dir, 'report.json'));
      const report = JSON.parse(readFileSync(d.reports.json, 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      const headline = d.type === 'EXTRACT' ? report.extract.micro.f1 : d.type === 'CLASSIFY' ? report.classify.accuracy : report.splitter.f1;
      expect(d.candidate.value).toBe(headline.value);
      expect(d.candidate.interval).toEqual(headline.interval);
      expect(d.documents).toBe(report.summary.documents);
      expect(report.source.processor.version).toBe('draft');
      expect(report.baseline.file).toBe('export-1.0.json');
      expect(d.verdict).toBe(report.baseline.rows.find((r: { key: string }) => r.key === d.candidate.metric).verdict);
      expect(readFileSync(d.reports.md, 'utf8')).toMatch(/^#/);
      expect(xml.parse(readFileSync(d.reports.junit, 'utf8'))).toHaveProperty('testsuites');
      expect(readFileSync(d.reports.html, 'utf8')).toMatch(/^<!doctype html>/i);
    }
  });

  it('a second run gives byte-identical JSON reports', async () => {
    const before = summary.datasets.map((d) => readFileSync(d.reports.json, 'utf8'));
    const again = await runCli(['demo', '--format', 'json'], { cwd });
    expect(again.code, again.stderr).toBe(0);
    expect(summary.datasets.map((d) => readFileSync(d.reports.json, 'utf8'))).toEqual(before);
  }, 120_000);

  it('the report command it prints gives the same report', async () => {
    const dir = path.join(cwd, 'reports/demo/invoice-extract');
    const r = await runCli(['report', '--from', `${dir}/export-draft.json`, '--baseline', `${dir}/export-1.0.json`, '--target-accuracy', '0.8', '--out-dir', path.join(cwd, 'again'), '--formats', 'json'], { cwd });
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(cwd, 'again/report.json'), 'utf8')).toBe(readFileSync(path.join(dir, 'report.json'), 'utf8'));
  });

  it('writes its evalkit.config.json, and the report line it prints (config file and --dataset) gives the same report', async () => {
    const file = path.join(cwd, 'reports/demo/evalkit.config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as { datasets: Record<string, Record<string, unknown>> };
    expect(Object.keys(config.datasets)).toEqual(DATASETS);
    expect(config.datasets['invoice-extract']).toMatchObject({ export: 'invoice-extract/export-draft.json', baseline: 'invoice-extract/export-1.0.json', targetAccuracy: 0.8, fuzzyFields: ['vendor_name'] });
    const line = first.stderr.split('\n').find((l) => l.startsWith('  $ evalkit report ') && l.includes('invoice-extract'));
    expect(line).toMatch(/^ {2}\$ evalkit report --config-file reports\/demo\/evalkit\.config\.json --dataset invoice-extract {3}# /);
    const r = await runCli(['report', '--config-file', 'reports/demo/evalkit.config.json', '--dataset', 'invoice-extract', '--out-dir', 'again-from-config'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const dir = path.join(cwd, 'reports/demo/invoice-extract');
    expect(readFileSync(path.join(cwd, 'again-from-config/report.json'), 'utf8')).toBe(readFileSync(path.join(dir, 'report.json'), 'utf8'));
  });

  // Screenshots land under the checkout's reports/demo/ (git-ignored) for people to look at.
  it.skipIf(!hasChromium)(`the HTML reports open in headless Chromium with no network and no errors (screenshots in reports/demo/screenshots; needs ${CHROMIUM})`, async () => {
    const shots = path.join(ROOT, 'reports/demo/screenshots');
    mkdirSync(shots, { recursive: true });
    const browser = await launchChromium();
    try {
      for (const d of summary.datasets) {
        const { page, requests, errors } = await openFile(browser.context, d.reports.html);
        expect(requests).toEqual([]);
        expect(errors).toEqual([]);
        expect(await page.title()).toContain('draft');
        expect(await page.locator('h2').count()).toBeGreaterThan(2);
        const png = path.join(shots, `${d.name}.png`);
        await page.screenshot({ path: png, fullPage: true });
        expect(statSync(png).size).toBeGreaterThan(10_000);
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('a dataset whose config cannot be read: exit 2 naming it, before the sandbox starts or anything is written', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-demo-broken-'));
    // The dataset without the configs folder its manifest points into.
    cpSync(path.join(ROOT, 'datasets/invoice-extract'), path.join(dir, 'my/invoice-extract'), { recursive: true });
    const r = await runCli(['demo', '--datasets', 'my', '--out-dir', 'out'], { cwd: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/invoice-extract\.json: cannot read the config: ENOENT/);
    expect(r.stderr).not.toMatch(/sandbox/);
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it.each([
    [['demo', '--only', 'nope'], 'no dataset named nope'],
    [['demo', '--error-rate', '2'], '--error-rate must be a number from 0 to 1'],
  ])('%j exits 2 with a clear message', async (args, message) => {
    const r = await runCli(args, { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('on the default API version, 2026-02-09, each draft is evaluated by the service\'s evaluation set run and its report reconciles the service\'s figures', () => {
    for (const d of summary.datasets) {
      const exp = JSON.parse(readFileSync(path.join(cwd, 'reports/demo', d.name, 'export-draft.json'), 'utf8')) as { service?: { evaluationSetRunId: string; status: string } };
      expect(exp.service?.status).toBe('PROCESSED');
      expect(readFileSync(d.reports.md, 'utf8')).toContain(`### The service's figures (evaluation set run \`${exp.service?.evaluationSetRunId}\`, PROCESSED)`);
    }
  });

  it('runs on API 2025-04-21 too (npm start -- --api-version 2025-04-21): /processors and dp_ ids, evalkit\'s own evaluation runs, the same headline numbers', async () => {
    const out = path.join(cwd, 'demo-2025');
    const r = await runCli(['demo', '--api-version', '2025-04-21', '--format', 'json', '--out-dir', out], { cwd });
    expect(r.code, r.stderr).toBe(0);
    for (const d of DATASETS) expect(r.stderr).toMatch(new RegExp(`\\[${d}\\] processor dp_\\w+ `));
    expect(r.stderr).toMatch(/2024-11-14 -> 2025-04-21 \(EXTRACT\)/);
    const s25 = JSON.parse(r.stdout) as Summary;
    // The same engine and seed: the same outputs, so the same headline figures as on 2026-02-09.
    expect(s25.datasets.map((d) => [d.name, d.candidate.value])).toEqual(summary.datasets.map((d) => [d.name, d.candidate.value]));
    for (const d of s25.datasets) {
      const exp = JSON.parse(readFileSync(path.join(out, d.name, 'export-draft.json'), 'utf8')) as Record<string, unknown>;
      expect(exp).not.toHaveProperty('service');
      expect(readFileSync(d.reports.md, 'utf8')).not.toContain("### The service's figures");
    }
  }, 120_000);
});

// evalkit.config.json, `evalkit config show` and `evalkit init` through the built binary.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateConfig } from '../../src/config/index.js';
import { cleanupAfterEach, ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { start } from '../sandbox/helpers.js';

const { tmp } = cleanupAfterEach('config');
/** No service settings from the machine running the tests. */
const CLEAN = { EVALKIT_BASE_URL: '', EVALKIT_API_VERSION: '', EVALKIT_API_TOKEN: '' };
const EXPORT = path.join(ROOT, 'test/fixtures/report/extract-export.json');
const CONFIGS = path.join(ROOT, 'datasets/configs');

function project(config: unknown): string {
  const dir = tmp();
  writeFileSync(path.join(dir, 'evalkit.config.json'), typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  return dir;
}

const json = <T>(r: CliResult): T => {
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
};

interface Shown {
  file: string | null;
  dataset: string | null;
  settings: Record<string, { value: unknown; source: string; from?: string }>;
}

describe('evalkit config show', () => {
  it('prints each value with its source: flag, environment, config file (with its path), default', async () => {
    const dir = project({ baseUrl: 'http://config.example:1', apiVersion: '2024-11-14', datasets: { invoices: { evaluationSet: 'ev_1', export: 'out/run.json', fuzzyThreshold: 0.8, gates: ['micro.f1>=0.5'] } } });
    const sub = path.join(dir, 'nested/deeper');
    mkdirSync(sub, { recursive: true });
    const env = { ...CLEAN, EVALKIT_API_VERSION: '2025-04-21', EVALKIT_API_TOKEN: 'tok-never-shown-123' };
    const shown = json<Shown>(await runCli(['config', 'show', '--format', 'json', '--fuzzy-threshold', '0.7'], { cwd: sub, env }));
    const file = path.join(dir, 'evalkit.config.json');
    expect(shown.file).toBe(file);
    expect(shown.dataset).toBe('invoices');
    expect(shown.settings.baseUrl).toEqual({ value: 'http://config.example:1', source: 'config', from: file });
    expect(shown.settings.apiVersion).toEqual({ value: '2025-04-21', source: 'environment', from: 'EVALKIT_API_VERSION' });
    expect(shown.settings.apiToken).toEqual({ value: '(set)', source: 'environment', from: 'EVALKIT_API_TOKEN' });
    expect(shown.settings.fuzzyThreshold).toMatchObject({ value: 0.7, source: 'flag', from: '--fuzzy-threshold' });
    expect(shown.settings.evaluationSet).toMatchObject({ value: 'ev_1', source: 'config', from: file });
    // Paths are relative to the config file, shown as the commands get them: relative to the working folder.
    expect(shown.settings.export).toMatchObject({ value: '../../out/run.json', source: 'config' });
    expect(shown.settings.numberTolerance).toMatchObject({ value: 1e-6, source: 'default' });
    expect(shown.settings.targetAccuracy).toMatchObject({ value: null, source: 'unset' });

    const text = await runCli(['config', 'show', '--base-url', 'http://flag.example:2'], { cwd: sub, env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`config file: ${file} (dataset invoices)`);
    expect(text.stdout).toMatch(/^baseUrl +http:\/\/flag\.example:2 +flag --base-url$/m);
    expect(text.stdout).toMatch(/^fuzzyThreshold +0\.8 +config file .*evalkit\.config\.json$/m);
    expect(text.stdout).toMatch(/^fuzzyThreshold/m);
    expect(text.stdout + text.stderr).not.toContain('tok-never-shown-123');
  });

  it('--api-version is shown as the flag; a query, fragment or non-URL base URL is never shown; the file refuses them', async () => {
    const dir = project({ apiVersion: '2025-04-21' });
    const flag = json<Shown>(await runCli(['config', 'show', '--api-version', '2024-11-14', '--format', 'json'], { cwd: dir, env: CLEAN }));
    // A look-alike token variable is warned about once (the nested command ran its middleware twice).
    const lookalike = await runCli(['config', 'show'], { cwd: dir, env: { ...CLEAN, EVALKIT_TOKEN: 'sk_never_shown' } });
    expect(lookalike.stderr.match(/warning: EVALKIT_TOKEN is set/g)).toHaveLength(1);
    expect(flag.settings.apiVersion).toEqual({ value: '2024-11-14', source: 'flag', from: '--api-version' });
    for (const [url, shown] of [
      ['https://host.example/v1?token=sk_SECRETQ', 'https://host.example/v1?***'],
      ['https://host.example/#sk_SECRETF', 'https://host.example/#***'],
      ['https://u:sk_SECRETPW@host.example/?k=sk_SECRETQ', 'https://***@host.example/?***'],
      ['sk_SECRETNOTURL', '(not a URL; not shown)'],
    ]) {
      const r = await runCli(['config', 'show', '--format', 'json'], { cwd: dir, env: { ...CLEAN, EVALKIT_BASE_URL: url } });
      expect(r.stdout + r.stderr).not.toContain('SECRET');
      expect(json<Shown>(r).settings.baseUrl.value).toBe(shown);
      const text = await runCli(['config', 'show'], { cwd: dir, env: { ...CLEAN, EVALKIT_BASE_URL: url } });
      expect(text.stdout + text.stderr).not.toContain('SECRET');
    }
    for (const baseUrl of ['https://a.example/?token=sk_live_SECRETVALUE', 'https://a.example/#sk_SECRET']) {
      const bad = project(`{\n  "baseUrl": ${JSON.stringify(baseUrl)}\n}\n`);
      const r = await runCli(['config', 'show'], { cwd: bad, env: CLEAN });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${path.join(bad, 'evalkit.config.json')}:2:3 at /baseUrl: "baseUrl" has a query string or fragment`);
      expect(r.stdout + r.stderr).not.toContain('SECRET');
    }
  });

  it('without a config file: says so, and shows defaults and the environment', async () => {
    const dir = tmp();
    const r = await runCli(['config', 'show', '--format', 'json'], { cwd: dir, env: { ...CLEAN, EVALKIT_BASE_URL: 'http://env.example:3' } });
    const shown = json<Shown>(r);
    if (shown.file !== null) return; // a file above the temp folder, outside the test's control
    expect(shown.settings.baseUrl).toEqual({ value: 'http://env.example:3', source: 'environment', from: 'EVALKIT_BASE_URL' });
    expect(shown.settings.fuzzyThreshold).toMatchObject({ value: 0.9, source: 'default' });
  });
});

describe('an invalid config file', () => {
  it.each([
    ['an unknown key', { datasets: { a: { fuzzyTreshold: 0.9 } } }, 'at /datasets/a/fuzzyTreshold: invalid config: unknown key "fuzzyTreshold"'],
    ['a gate out of range', { datasets: { a: { gates: ['micro.f1>=9'] } } }, 'at /datasets/a/gates/0: invalid gate'],
    ['a token', { apiToken: 'sk-secret-value' }, 'at /apiToken: "apiToken": the API token is never read from the config file'],
    ['broken JSON', '{"datasets": {', 'evalkit.config.json:1:'],
  ])('%s: every command exits 2 naming the file and the pointer', async (_name, config, message) => {
    const dir = project(config);
    for (const args of [['report', '--from', EXPORT], ['config', 'show'], ['processors', 'list']]) {
      const r = await runCli(args, { cwd: dir, env: CLEAN });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(path.join(dir, 'evalkit.config.json'));
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toContain('sk-secret-value');
    }
  });

  it('--config-file names one elsewhere; a missing one is exit 2 naming it', async () => {
    const dir = tmp();
    const r = await runCli(['config', 'show', '--config-file', 'nope.json'], { cwd: dir, env: CLEAN });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nope.json: cannot read the config file: ENOENT');
  });
});

describe('evalkit report with the config file', () => {
  const config = (gates: string[]) => ({ datasets: { invoices: { export: 'run.json', outDir: 'out', formats: ['json', 'md'], gates, fuzzyThreshold: 0.9 } } });
  const withExport = (c: unknown): string => {
    const dir = project(c);
    writeFileSync(path.join(dir, 'run.json'), readFileSync(EXPORT));
    return dir;
  };

  it('takes the export, out dir, formats and gates from it; a failing gate exits 1', async () => {
    const dir = withExport(config(['micro.f1>=0.95', 'micro.precision>=0.5']));
    const r = await runCli(['report', '--bootstrap', '0'], { cwd: dir, env: CLEAN });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('FAIL micro.f1>=0.95');
    expect(r.stdout).toContain('pass micro.precision>=0.5');
    expect(r.stdout).toContain('1 of 2 gate(s) failed');
    expect(existsSync(path.join(dir, 'out/report.json'))).toBe(true);
    expect(existsSync(path.join(dir, 'out/report.md'))).toBe(true);
    expect(existsSync(path.join(dir, 'out/report.html'))).toBe(false);
  });

  it('JUnit names its sources: the config file on the gates it holds, the dataset CSV on the comparisons', async () => {
    const dir = withExport({ datasets: { invoices: { export: 'run.json', csv: 'eval/data.csv', baseline: 'run.json', outDir: 'out', formats: ['junit'], gates: ['micro.f1>=0.5'] } } });
    const r = await runCli(['report', '--bootstrap', '0'], { cwd: dir, env: CLEAN });
    expect(r.code, r.stderr).toBe(0);
    const xml = readFileSync(path.join(dir, 'out/report.junit.xml'), 'utf8');
    expect(xml).toMatch(/<testcase classname="[^"]+" name="\[[^\]]+\] gate micro\.f1&gt;=0\.5" file="evalkit\.config\.json"/);
    expect(xml).toMatch(/name="\[[^\]]+\] regression micro\.f1" file="eval\/data\.csv"/);
    // A gate given as a flag is not in the file: no file attribute.
    const flag = await runCli(['report', '--bootstrap', '0', '--gate', 'micro.f1>=0.4'], { cwd: dir, env: CLEAN });
    expect(flag.code, flag.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'out/report.junit.xml'), 'utf8')).toMatch(/name="\[[^\]]+\] gate micro\.f1&gt;=0\.4" time=/);
  });

  it('a flag overrides the config: --gate replaces its gates, --out-dir its folder', async () => {
    const dir = withExport(config(['micro.f1>=0.95']));
    const r = await runCli(['report', '--bootstrap', '0', '--gate', 'micro.f1>=0.5', '--out-dir', 'elsewhere'], { cwd: dir, env: CLEAN });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('pass micro.f1>=0.5');
    expect(r.stdout).not.toContain('0.95');
    expect(existsSync(path.join(dir, 'elsewhere/report.json'))).toBe(true);
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('several datasets: --dataset picks one; none named is exit 2 listing them; an unknown name is exit 2', async () => {
    const dir = withExport({ datasets: { a: { export: 'run.json', gates: ['micro.f1>=0.95'], outDir: 'a' }, b: { export: 'run.json', gates: ['micro.f1>=0.5'], outDir: 'b' } } });
    const none = await runCli(['report', '--bootstrap', '0'], { cwd: dir, env: CLEAN });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('has 2 datasets: name one with --dataset');
    expect(none.stderr).toContain('choose from a, b');
    const b = await runCli(['report', '--bootstrap', '0', '--dataset', 'b'], { cwd: dir, env: CLEAN });
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain('pass micro.f1>=0.5');
    const c = await runCli(['report', '--dataset', 'c'], { cwd: dir, env: CLEAN });
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('--dataset c:');
    expect(c.stderr).toContain('choose from a, b');
    // Nothing to take from a dataset: no --dataset needed.
    const flags = await runCli(['report', '--bootstrap', '0', '--from', 'run.json', '--gate', 'micro.f1>=0.1', '--out-dir', 'x', '--format', 'json', '--fuzzy-threshold', '0.9'], { cwd: dir, env: CLEAN });
    expect(flags.code, flags.stderr).toBe(0);
  });
});

describe('evalkit init', () => {
  const layouts = [
    ['invoice-extract.json (2024-11-14)', 'invoice-extract.json', false],
    ['invoice-extract.json migrated to 2025-04-21', 'invoice-extract.json', '2025-04-21'],
    ['document-classify.json', 'document-classify.json', false],
    ['packet-splitter.json (2025-04-21)', 'packet-splitter.json', '2025-04-21'],
    ['document-classify.json migrated to 2026-02-09', 'document-classify.json', '2026-02-09'],
  ] as const;

  it('--help: --config takes a config in any of the three layouts', async () => {
    const help = await runCli(['init', '--help'], { env: CLEAN });
    expect(help.code).toBe(0);
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('a bare config in any layout (2024-11-14, 2025-04-21 or 2026-02-09)');
    expect(text).toContain('offline, from a saved config in any layout');
    expect(text).not.toContain('either layout');
  });

  it.each(layouts)('from a saved config, %s: the config file, a CSV that `dataset upload` accepts and the workflow', async (_name, file, migrate) => {
    const dir = tmp();
    let source = path.join(CONFIGS, file);
    if (migrate) {
      source = path.join(dir, `new-${file}`);
      writeFileSync(source, JSON.stringify(migrateConfig(JSON.parse(readFileSync(path.join(CONFIGS, file), 'utf8')), { to: migrate }).doc));
    }
    const r = await runCli(['init', '--config', source, '--dataset', 'main', '--format', 'json'], { cwd: dir, env: CLEAN });
    const out = json<{ dataset: string; files: Array<{ kind: string; file: string; replaced: boolean }> }>(r);
    // A config inside the repository (the migrated copy) is evaluated in place; one outside it is copied to configs/.
    expect(out.files).toEqual([
      { kind: 'config', file: 'evalkit.config.json', replaced: false },
      { kind: 'csv', file: 'data.csv', replaced: false },
      { kind: 'workflow', file: '.github/workflows/evalkit.yml', replaced: false },
      ...(migrate ? [] : [{ kind: 'processor-config', file: 'configs/main.json', replaced: false }]),
    ]);
    const evaluated = migrate ? `new-${file}` : 'configs/main.json';
    expect(out).toMatchObject({ evaluatedConfig: evaluated, notes: [] });
    const config = JSON.parse(readFileSync(path.join(dir, 'evalkit.config.json'), 'utf8')) as { $schema: string; apiVersion?: string; datasets: Record<string, Record<string, unknown>> };
    expect(config.$schema).toMatch(/evalkit-config\.schema\.json$/);
    // The API version in effect (the default here) is pinned, so the team stays on it when evalkit's default moves.
    expect(config.apiVersion).toBe('2026-02-09');
    expect(config.datasets.main).toMatchObject({ csv: 'data.csv', export: 'reports/main.json', outDir: 'reports/main' });
    const workflow = readFileSync(path.join(dir, '.github/workflows/evalkit.yml'), 'utf8');
    expect(workflow).toContain('config-file: "evalkit.config.json"');
    expect(workflow).toContain('dataset: "main"');
    expect(workflow).toContain('path: "reports/main"');
    expect(workflow).toContain(`PROCESSOR_CONFIG: "${evaluated}"`);
    // The copy is in the layout of that version: 2026-02-09 configs carry no `type`.
    if (!migrate) expect(JSON.parse(readFileSync(path.join(dir, 'configs/main.json'), 'utf8'))).not.toHaveProperty('type');
    // The example row names files/example.pdf: with that file there, the CSV uploads (a dry run, offline).
    mkdirSync(path.join(dir, 'files'));
    writeFileSync(path.join(dir, 'files/example.pdf'), '%PDF-1.4\n');
    const upload = await runCli(['dataset', 'upload', '--config', source, '--dry-run', '--format', 'json'], { cwd: dir, env: CLEAN });
    expect(upload.code, upload.stdout + upload.stderr).toBe(0);
    expect(JSON.parse(upload.stdout)).toMatchObject({ rows: { total: 1, valid: 1, invalid: 0 } });
  });

  it('pinned to 2025-04-21 (--api-version or EVALKIT_API_VERSION): the config file says so and the copied config is in its layout', async () => {
    for (const how of [{ args: ['--api-version', '2025-04-21'], env: CLEAN }, { args: [], env: { ...CLEAN, EVALKIT_API_VERSION: '2025-04-21' } }]) {
      const dir = tmp();
      const r = await runCli(['init', '--config', path.join(CONFIGS, 'invoice-extract.json'), '--dataset', 'main', ...how.args], { cwd: dir, env: how.env });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(readFileSync(path.join(dir, 'evalkit.config.json'), 'utf8'))).toMatchObject({ apiVersion: '2025-04-21' });
      expect(JSON.parse(readFileSync(path.join(dir, 'configs/main.json'), 'utf8'))).toMatchObject({ type: 'EXTRACT', extractionRules: expect.any(String) });
      // Its CI's migrate --check stays green on the layout it pinned.
      const check = await runCli(['migrate', 'configs', '--check'], { cwd: dir, env: CLEAN });
      expect(check.code, check.stdout).toBe(0);
    }
  });

  it('a base URL with a password, query or fragment is not written (exit 2, nothing written, never quoted)', async () => {
    for (const [how, url] of [
      ['flag', 'https://user:sk_SECRETPW@api.example.com'],
      ['env', 'https://api.example.com/?key=sk_SECRETQ'],
    ]) {
      const dir = tmp();
      const args = ['init', '--config', path.join(CONFIGS, 'invoice-extract.json'), '--dir', dir, ...(how === 'flag' ? ['--base-url', url] : [])];
      const r = await runCli(args, { cwd: dir, env: { ...CLEAN, ...(how === 'env' ? { EVALKIT_BASE_URL: url } : {}) } });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/the service base URL (holds a user name or password|has a query string or fragment)/);
      expect(r.stdout + r.stderr).not.toContain('SECRET');
      expect(existsSync(path.join(dir, 'evalkit.config.json'))).toBe(false);
    }
  });

  it('never overwrites without --force: exit 2 naming the file, nothing written; --force replaces', async () => {
    const dir = tmp();
    const source = path.join(CONFIGS, 'document-classify.json');
    mkdirSync(path.join(dir, '.github/workflows'), { recursive: true });
    writeFileSync(path.join(dir, '.github/workflows/evalkit.yml'), 'mine\n');
    const refused = await runCli(['init', '--config', source], { cwd: dir, env: CLEAN });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('.github/workflows/evalkit.yml: exists; nothing was written');
    expect(refused.stderr).toContain('--force');
    expect(existsSync(path.join(dir, 'evalkit.config.json'))).toBe(false);
    expect(existsSync(path.join(dir, 'data.csv'))).toBe(false);
    expect(readFileSync(path.join(dir, '.github/workflows/evalkit.yml'), 'utf8')).toBe('mine\n');

    const forced = await runCli(['init', '--config', source, '--force'], { cwd: dir, env: CLEAN });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('replaced .github/workflows/evalkit.yml');
    expect(forced.stdout).toContain('wrote evalkit.config.json');
    expect(readFileSync(path.join(dir, '.github/workflows/evalkit.yml'), 'utf8')).toContain('actions/upload-artifact');

    const again = await runCli(['init', '--config', source], { cwd: dir, env: CLEAN });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('evalkit.config.json: exists (so do data.csv, .github/workflows/evalkit.yml, configs/document-classify.json); nothing was written');
  });

  it('--force over a config file with an evaluation set and gates added by hand: the note names what the new one lacks', async () => {
    const dir = tmp();
    const source = path.join(CONFIGS, 'document-classify.json');
    const first = await runCli(['init', '--config', source, '--dataset', 'docs', '--evaluation-set', 'ev_keep'], { cwd: dir, env: CLEAN });
    expect(first.code, first.stderr).toBe(0);
    const file = path.join(dir, 'evalkit.config.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { datasets: Record<string, Record<string, unknown>> };
    doc.datasets.docs.gates = ['micro.f1>=0.9'];
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const forced = await runCli(['init', '--config', source, '--dataset', 'docs', '--force', '--format', 'json'], { cwd: dir, env: CLEAN });
    expect(forced.code, forced.stderr).toBe(0);
    expect((JSON.parse(forced.stdout) as { notes: string[] }).notes).toContain(
      'the replaced evalkit.config.json had other values for "evaluationSet" of dataset "docs", "gates" of dataset "docs": add them back (or pass --evaluation-set / --processor) if still wanted',
    );
    // Nothing lost, nothing said.
    const same = await runCli(['init', '--config', source, '--dataset', 'docs', '--force'], { cwd: dir, env: CLEAN });
    expect(same.stdout).not.toContain('the replaced');
  });

  it.each([
    [['init'], 'say what to scaffold from: --processor ID or --config FILE'],
    [['init', '--processor', 'dp_1', '--config', 'x.json'], 'Arguments processor and config are mutually exclusive'],
    [['init', '--config', 'x.json', '--dataset', 'a b'], 'cannot read the config'],
    [['init', '--config', path.join(CONFIGS, 'document-classify.json'), '--dataset', 'a b'], '--dataset "a b": a dataset name'],
    [['init', '--config', path.join(CONFIGS, 'document-classify.json'), '--csv', '../x.csv'], '--csv "../x.csv" must be a file name inside --dir'],
  ])('%j exits 2: %s', async (args, message) => {
    const r = await runCli(args, { cwd: tmp(), env: CLEAN });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('from a processor id against the sandbox; then upload, eval run and report all read the config', async () => {
    // A simulated processor that gets 30% of the fields wrong: the file's gate fails.
    const t = await start({ engine: 'simulate:7,0.3' });
    try {
      const dir = tmp();
      const env = { ...CLEAN, EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token };
      const created = json<{ processor: { id: string } }>(await runCli(['processors', 'create', '--name', 'Invoice extraction', '--type', 'EXTRACT', '--config', path.join(CONFIGS, 'invoice-extract.json'), '--format', 'json'], { cwd: dir, env }));
      const id = created.processor.id;
      const init = await runCli(['init', '--processor', id], { cwd: dir, env });
      expect(init.code, init.stderr).toBe(0);
      expect(init.stdout).toContain('dataset "invoice-extraction" (EXTRACT, from');
      // The sandbox's loopback address is not committed: the note says so and what to do.
      expect(init.stdout).toContain(`baseUrl not written: ${t.url} is a loopback address, which CI cannot reach; set the repository variable EVALKIT_BASE_URL`);
      expect(init.stdout).toContain('the workflow evaluates configs/invoice-extraction.json as each pull request has it');
      for (const f of ['evalkit.config.json', '.github/workflows/evalkit.yml', 'configs/invoice-extraction.json', 'data.csv']) {
        const text = readFileSync(path.join(dir, f), 'utf8');
        expect(text, f).not.toContain(new URL(t.url).host);
        expect(text, f).not.toMatch(/127\.0\.0\.1|localhost|\[::1\]/);
        expect(text, f).not.toContain(t.token);
      }
      const config = JSON.parse(readFileSync(path.join(dir, 'evalkit.config.json'), 'utf8')) as { baseUrl?: string; datasets: Record<string, Record<string, unknown>> };
      expect(config.baseUrl).toBeUndefined();
      config.baseUrl = t.url;
      expect(config.datasets['invoice-extraction']).toMatchObject({ processor: id, csv: 'data.csv' });
      expect(readFileSync(path.join(dir, 'evalkit.config.json'), 'utf8')).not.toContain(t.token);
      expect(readFileSync(path.join(dir, 'data.csv'), 'utf8').split('\n')[0]).toBe(
        'file,invoice_number,invoice_date,due_date,vendor_name,vendor_vat_id,total,line_items[0].description,line_items[0].quantity,line_items[0].unit_price,line_items[0].amount,# notes',
      );

      // The bundled CSV of the same processor in place of the example; the base URL now comes from the file.
      const section = config.datasets['invoice-extraction'];
      section.csv = path.relative(dir, path.join(ROOT, 'datasets/invoice-extract/data.csv'));
      section.gates = ['micro.f1>=0.999'];
      writeFileSync(path.join(dir, 'evalkit.config.json'), JSON.stringify(config));
      const fromFile = { ...env, EVALKIT_BASE_URL: '' };
      const uploaded = await runCli(['dataset', 'upload', '--create-set', 'invoices', '--no-progress', '--journal', path.join(dir, 'j.ndjson')], { cwd: dir, env: fromFile });
      expect(uploaded.code, uploaded.stderr).toBe(0);
      // The section names no set yet: the upload says what to add, and where.
      const next = /^next: add "evaluationSet": "([^"]+)" to dataset "invoice-extraction" in evalkit\.config\.json \(eval run, dataset download and the next upload read it\)$/m.exec(uploaded.stdout);
      expect(next, uploaded.stdout).not.toBeNull();
      expect(uploaded.stdout).toContain(`set ${next![1]} "invoices" (created)`);
      section.evaluationSet = next![1];
      writeFileSync(path.join(dir, 'evalkit.config.json'), JSON.stringify(config));

      const evaluated = await runCli(['eval', 'run', '--no-progress'], { cwd: dir, env: fromFile });
      expect(evaluated.code, evaluated.stderr).toBe(0);
      expect(evaluated.stdout).toContain('wrote reports/invoice-extraction.json');
      const report = await runCli(['report', '--bootstrap', '0'], { cwd: dir, env: fromFile });
      expect(report.stdout).toContain('FAIL micro.f1>=0.999');
      expect(report.code).toBe(1);
      expect(existsSync(path.join(dir, 'reports/invoice-extraction/report.json'))).toBe(true);
      const relaxed = await runCli(['report', '--bootstrap', '0', '--gate', 'micro.f1>=0.1'], { cwd: dir, env: fromFile });
      expect(relaxed.stdout).toContain('pass micro.f1>=0.1');
      expect(relaxed.code).toBe(0);
    } finally {
      await t.close();
    }
  }, 60_000);
});

/**
 * The CI recipe of examples/ runs as written: its evalkit steps, taken from the YAML, run in a
 * scratch repository against a real sandbox, once as on main (sync the set, keep the report)
 * and once as on a pull request (the main report as baseline). The step that uses evalkit's
 * action runs action.yml's script with the step's `with:`, against a stand-in GitHub API.
 * What must hold is what the recipe is for: the pull request's own config file is what is
 * evaluated, not the processor's draft on the service (which is left as it was).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createClient, type Client } from '../../src/api/index.js';
import { migrateConfig } from '../../src/config/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { runAction } from '../helpers/action.js';
import { BIN, ROOT } from '../helpers/cli.js';
import { startGitHub, type StandInGitHub } from '../helpers/github.js';

interface Step {
  name?: string;
  if?: string;
  run?: string;
  uses?: string;
  with?: Record<string, string | boolean | number>;
}

/** The recipe uses evalkit's action from the installed package. */
const ACTION_USE = './node_modules/evalkit';
const GITHUB_TOKEN = 'ghs_recipeToken0123456789';

const workflow = parse(readFileSync(path.join(ROOT, 'examples/github-actions/evalkit.yml'), 'utf8')) as { env: Record<string, string>; jobs: { evaluate: { steps: Step[] } } };
const steps = workflow.jobs.evaluate.steps;
/** The workflow's own values (CONFIG); the `${{ secrets/vars }}` ones are the sandbox's, set below. */
const literalEnv = Object.fromEntries(Object.entries(workflow.env).filter(([, v]) => !String(v).includes('${{')));
/** The API version the recipe pins: the test's own setup speaks it too. */
const API_VERSION = String(workflow.env.EVALKIT_API_VERSION);

/** The three conditions the recipe uses. */
function applies(step: Step, event: 'push' | 'pull_request'): boolean {
  const cond = step.if?.trim();
  if (cond === undefined || cond === 'always()') return true;
  if (cond === "github.ref == 'refs/heads/main'") return event === 'push';
  if (cond === "github.event_name == 'pull_request'") return event === 'pull_request';
  throw new Error(`unknown condition in the recipe: ${cond}`);
}

describe('examples/github-actions/evalkit.yml', () => {
  let sandbox: SandboxHandle;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  let gh: StandInGitHub;
  let client: Client;
  let processorId: string;

  beforeAll(async () => {
    gh = await startGitHub({ repository: 'acme/configs', token: GITHUB_TOKEN });
    sandbox = await startSandbox({ port: 0, engineDelayMs: 5 });
    repo = mkdtempSync(path.join(os.tmpdir(), 'evalkit-ci-'));
    // The user's repository: configs already migrated, the CSV and its files under eval/.
    cpSync(path.join(ROOT, 'datasets/configs/invoice-extract.json'), path.join(repo, 'configs/invoice.json'), { recursive: true });
    cpSync(path.join(ROOT, 'datasets/invoice-extract'), path.join(repo, 'eval'), { recursive: true });
    expect(spawnSync(process.execPath, [BIN, 'migrate', 'configs', '--write'], { cwd: repo, env: { ...process.env, EVALKIT_API_VERSION: API_VERSION } }).status).toBe(0);
    client = createClient({ baseUrl: sandbox.url, token: sandbox.token, apiVersion: API_VERSION });
    const config = JSON.parse(readFileSync(path.join(repo, 'configs/invoice.json'), 'utf8')) as Record<string, unknown>;
    processorId = (await client.entities('EXTRACT').create({ name: 'invoices', config })).id;
    const set = await client.sets.create({ name: 'invoices', entityId: processorId });
    // `npx evalkit` is this checkout's built binary.
    const bin = path.join(repo, '.bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'npx'), `#!/bin/sh\n[ "$1" = --no-install ] && shift\n[ "$1" = evalkit ] || exit 127\nshift\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(path.join(bin, 'npx'), 0o755);
    env = {
      ...process.env,
      ...literalEnv,
      PATH: `${bin}:${process.env.PATH}`,
      EVALKIT_BASE_URL: sandbox.url,
      EVALKIT_API_TOKEN: sandbox.token,
      SET: set.id,
      NO_COLOR: '1',
      GITHUB_TOKEN,
      GITHUB_API_URL: gh.apiUrl,
      GITHUB_REPOSITORY: 'acme/configs',
    };
  });

  afterAll(async () => {
    await sandbox?.close();
    await gh?.close();
  });

  /** A step's script in bash, as GitHub runs it (not spawnSync: this process serves the sandbox). */
  function bash(script: string, summary: string): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn('bash', ['-eo', 'pipefail', '-c', script], { cwd: repo, env: { ...env, GITHUB_STEP_SUMMARY: summary } });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, output }));
    });
  }

  /**
   * actions/cache as GitHub keeps it: entries by key, never overwritten; a restore takes the exact
   * key or else the newest entry whose key starts with a restore key. Each job starts from a fresh
   * checkout, so what a cache step names is gone at the start of every run unless restored.
   */
  const caches: Array<{ key: string; dir: string }> = [];
  let runId = 0;
  const cachedPaths = steps.filter((s) => s.uses?.startsWith('actions/cache/')).map((s) => String(s.with?.path));
  function cacheStep(step: Step): void {
    const target = path.join(repo, String(step.with?.path));
    const key = String(step.with?.key).replace('${{ github.run_id }}', String(runId));
    if (step.uses?.startsWith('actions/cache/save')) {
      if (!existsSync(target) || caches.some((c) => c.key === key)) return;
      const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-cache-'));
      cpSync(target, path.join(dir, 'entry'), { recursive: true });
      caches.push({ key, dir });
      return;
    }
    const prefix = String(step.with?.['restore-keys'] ?? '\0');
    const hit = caches.find((c) => c.key === key) ?? [...caches].reverse().find((c) => c.key.startsWith(prefix));
    if (hit) cpSync(path.join(hit.dir, 'entry'), target, { recursive: true });
  }

  /** Runs the evalkit steps that apply to the event (and its cache steps); the exit code and output of each. */
  async function runRecipe(event: 'push' | 'pull_request'): Promise<Array<{ name: string; code: number | null; output: string; outputs: Record<string, string> }>> {
    runId += 1;
    for (const p of cachedPaths) rmSync(path.join(repo, p), { recursive: true, force: true });
    const summary = path.join(repo, `summary-${event}.md`);
    const eventFile = path.join(repo, `event-${event}.json`);
    writeFileSync(eventFile, JSON.stringify(event === 'pull_request' ? { pull_request: { number: 1 } } : { ref: 'refs/heads/main' }));
    const results = [];
    for (const step of steps) {
      if (!applies(step, event)) continue;
      if (step.uses?.startsWith('actions/cache/')) {
        cacheStep(step);
      } else if (step.uses === ACTION_USE) {
        const inputs = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, String(v)]));
        const r = await runAction(inputs, { cwd: repo, env: { ...env, GITHUB_STEP_SUMMARY: summary, GITHUB_EVENT_NAME: event, GITHUB_EVENT_PATH: eventFile }, outputFile: path.join(repo, `output-${event}.txt`) });
        results.push({ name: step.name ?? step.uses, code: r.code, output: r.stdout + r.stderr, outputs: r.outputs });
      } else if (step.run?.includes('npx evalkit')) {
        results.push({ name: step.name ?? step.run, ...(await bash(step.run, summary)), outputs: {} as Record<string, string> });
      }
    }
    return results;
  }

  const readJson = <T>(file: string): T => JSON.parse(readFileSync(path.join(repo, file), 'utf8')) as T;
  type Config = { type: string; extractionRules: string; [key: string]: unknown };

  /** The config the processor's draft on the service has now. */
  async function draftOnService(): Promise<Config> {
    const draft = await client.entities('EXTRACT').draft(processorId);
    if (!draft) throw new Error('the processor has no draft');
    return draft.config as Config;
  }

  /** A config file's config in the export's (2025-04-21) layout. */
  const inExportLayout = (c: Config): unknown => migrateConfig({ ...c, type: 'EXTRACT' }, { to: '2025-04-21', type: 'EXTRACT' }).doc;

  /** The export's config, and the config the service ran for each item (the runs, fetched back). */
  async function evaluatedConfigs(): Promise<{ exported: Config; ran: Config[] }> {
    const exp = readJson<{ processor: { config: Config }; items: Array<{ runId?: string }> }>('evalkit/export.json');
    // Per-item runs are processor runs (the routes 2026-02-09 kept): their configs, like the export's, are in the 2025-04-21 layout.
    const ran = await Promise.all(exp.items.map(async (i) => (await client.processorRuns.get(i.runId!)).config as Config));
    return { exported: exp.processor.config, ran };
  }

  // Up to six CLI runs per test, on shared cores: more than the default 30 s.
  it('on main: every step passes, the set follows the CSV and the report is kept for the next run', async () => {
    const results = await runRecipe('push');
    expect(results.map((r) => r.name)).toEqual(['Configs are migrated', 'Dataset is valid', 'Sync the evaluation set', 'Evaluate the checked-out config', 'Report']);
    const report = JSON.parse(readFileSync(path.join(repo, 'evalkit/report/report.json'), 'utf8')) as { gates: { passed: boolean }; summary: { documents: number } };
    for (const r of results.slice(0, -1)) expect(r.code, `${r.name}\n${r.output}`).toBe(0);
    expect(results.at(-1)?.code).toBe(report.gates.passed ? 0 : 1);
    expect(report.summary.documents).toBe(12);
    expect(results[2].output).toContain('12 created');
    expect(existsSync(path.join(repo, 'evalkit/report/report.junit.xml'))).toBe(true);
    expect(readFileSync(path.join(repo, 'summary-push.md'), 'utf8')).toMatch(/^\*\*evalkit (✅ passed|❌ failed)\*\*.*\n\n## evalkit report/);
    expect(results.at(-1)?.outputs.verdict).toBe(report.gates.passed ? 'pass' : 'fail');
    // A push has no pull request: no comment, no request to GitHub.
    expect(gh.requests).toEqual([]);
    for (const r of results) expect(r.output).not.toContain(sandbox.token);
    // The history the cache steps keep: one entry per report.
    expect(readdirSync(path.join(repo, '.evalkit-history'))).toHaveLength(1);
    for (const r of results) expect(r.output).not.toContain(GITHUB_TOKEN);
    // On main, main's config file is what was evaluated (and so is the next baseline).
    const { exported, ran } = await evaluatedConfigs();
    expect(exported).toEqual(inExportLayout(readJson<Config>('configs/invoice.json')));
    expect(ran).toHaveLength(12);
    for (const c of ran) expect(c).toEqual(exported);
    // What the upload-artifact step keeps, the next pull request downloads.
    cpSync(path.join(repo, 'evalkit/report'), path.join(repo, 'baseline'), { recursive: true });
  }, 120_000);

  it("on a pull request: the pull request's config is evaluated, not the draft on the service, and reported against the report of main", async () => {
    // The pull request changes a rule in its config file; meanwhile someone else (another pull
    // request, the dashboard) has edited the processor's shared draft on the service.
    const PR_RULE = ' Discounts are line items with negative amounts (pull request 1).';
    const OTHER_RULE = ' Round every amount to whole units (an edit of the draft elsewhere).';
    const prConfig = readJson<Config>('configs/invoice.json');
    prConfig.extractionRules += PR_RULE;
    writeFileSync(path.join(repo, 'configs/invoice.json'), JSON.stringify(prConfig, null, 2));
    const draft = await draftOnService();
    await client.entities('EXTRACT').update(processorId, { config: { ...draft, extractionRules: draft.extractionRules + OTHER_RULE } });

    const results = await runRecipe('pull_request');
    expect(results.map((r) => r.name)).toEqual(['Configs are migrated', 'Dataset is valid', 'Evaluate the checked-out config', 'Report']);
    for (const r of results.slice(0, -1)) expect(r.code, `${r.name}\n${r.output}`).toBe(0);
    const { exported, ran } = await evaluatedConfigs();
    expect(exported).toEqual(inExportLayout(prConfig));
    expect(ran).toHaveLength(12);
    for (const c of ran) {
      expect(c.extractionRules).toContain(PR_RULE);
      expect(c.extractionRules).not.toContain(OTHER_RULE);
    }
    // The draft on the service is left as it was.
    const after = await draftOnService();
    expect(after.extractionRules).toContain(OTHER_RULE);
    expect(after.extractionRules).not.toContain(PR_RULE);

    const report = JSON.parse(readFileSync(path.join(repo, 'evalkit/report/report.json'), 'utf8')) as { gates: { passed: boolean }; baseline?: { file: string; paired: number } };
    expect(report.baseline).toMatchObject({ file: 'report.json', paired: 12 });
    expect(results.at(-1)?.code).toBe(report.gates.passed ? 0 : 1);
    expect(readFileSync(path.join(repo, 'summary-pull_request.md'), 'utf8')).toContain('aseline');
    expect(readdirSync(path.join(repo, '.evalkit-history'))).toHaveLength(2);
    // One sticky comment on the pull request, with the verdict.
    expect(gh.comments.get(1)).toHaveLength(1);
    expect(gh.comments.get(1)?.[0].body).toMatch(/^<!-- evalkit-report -->\n\*\*evalkit (✅ passed|❌ failed)\*\*/);
    expect(results.at(-1)?.outputs['comment-url']).toBe(gh.comments.get(1)?.[0].html_url);
    for (const r of results) expect(r.output).not.toContain(GITHUB_TOKEN);
  }, 120_000);

  it('on main after a merge: a label edited in the CSV is synced and one corrected on the service since is kept (the journal is kept in the cache)', async () => {
    type Labels = { invoice_number?: string; vendor_name?: string };
    const labelsBy = async (): Promise<Map<string, { id: string; value: Labels }>> => {
      const out = new Map<string, { id: string; value: Labels }>();
      // 2026-02-09's list rows carry no expected output: each item is read.
      for await (const row of client.items(env.SET!).listAll()) {
        const item = await client.items(env.SET!).retrieve(row.id);
        const value = (item.expectedOutput as { value: Labels }).value;
        out.set(String(value.invoice_number), { id: item.id, value });
      }
      return out;
    };
    // A reviewer corrects INV-001's vendor in the dashboard; the merged pull request edits INV-002's number.
    const before = await labelsBy();
    const inv1 = before.get('INV-001')!;
    await client.items(env.SET!).update(inv1.id, { expectedOutput: { value: { ...inv1.value, vendor_name: 'Acme Office Supplies Limited' } } });
    const csv = path.join(repo, 'eval/data.csv');
    writeFileSync(csv, readFileSync(csv, 'utf8').replace('files/inv-002.pdf,INV-002,', 'files/inv-002.pdf,INV-002-A,'));

    const results = await runRecipe('push');
    for (const r of results.slice(0, -1)) expect(r.code, `${r.name}\n${r.output}`).toBe(0);
    const sync = results.find((r) => r.name === 'Sync the evaluation set')!;
    expect(sync.output).toContain('1 updated');
    expect(sync.output).toContain('1 kept (changed on the service)');
    const after = await labelsBy();
    expect(after.get('INV-001')?.value.vendor_name).toBe('Acme Office Supplies Limited');
    expect(after.has('INV-002-A')).toBe(true);
    expect(after.has('INV-002')).toBe(false);
    expect(after.size).toBe(12);
  }, 120_000);
});

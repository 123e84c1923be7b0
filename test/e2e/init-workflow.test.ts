/**
 * The workflow `evalkit init` writes runs as written: init against a real sandbox in a scratch
 * repository, then every evalkit step of .github/workflows/evalkit.yml (its `run:` lines in bash
 * with the step's and job's env, the action through action.yml) as on a pull request. What must
 * hold: the pull request's processor config file is what is evaluated (not the processor's
 * draft on the service, which is left as it was), the reports land where the upload step looks,
 * and no committed file names the sandbox.
 */
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createClient, DEFAULT_API_VERSION, type Client } from '../../src/api/index.js';
import { layoutOfApiVersion, migrateConfig } from '../../src/config/index.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { runAction } from '../helpers/action.js';
import { BIN, ROOT } from '../helpers/cli.js';
import { startGitHub, type StandInGitHub } from '../helpers/github.js';

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}
type Config = { type: string; extractionRules: string; [key: string]: unknown };

const GITHUB_TOKEN = 'ghs_initWorkflowToken0123456789';
// The default version (2026-02-09): an extractor (`ex_`) and its set; the workflow's `eval run
// --config` makes one legacy processor run per item with the pull request's config.
const API_VERSION = DEFAULT_API_VERSION;

describe('the workflow evalkit init writes', () => {
  let sandbox: SandboxHandle;
  let gh: StandInGitHub;
  let client: Client;
  let repo: string;
  let processorId: string;
  let setId: string;

  beforeAll(async () => {
    gh = await startGitHub({ repository: 'acme/configs', token: GITHUB_TOKEN });
    sandbox = await startSandbox({ port: 0, engineDelayMs: 5 });
    // The service as the CLI speaks to it by default: the extractor (or processor) and its set through the facade.
    client = createClient({ baseUrl: sandbox.url, token: sandbox.token, apiVersion: API_VERSION });
    repo = mkdtempSync(path.join(os.tmpdir(), 'evalkit-init-wf-'));
    const config = migrateConfig(JSON.parse(readFileSync(path.join(ROOT, 'datasets/configs/invoice-extract.json'), 'utf8')), { to: layoutOfApiVersion(API_VERSION) }).doc as Config;
    processorId = (await client.entities('EXTRACT').create({ name: 'invoices', config })).id;
    expect(processorId).toMatch(/^ex_/);
    setId = (await client.sets.create({ name: 'invoices', entityId: processorId })).id;
  });

  afterAll(async () => {
    await sandbox?.close();
    await gh?.close();
    if (repo) rmSync(repo, { recursive: true, force: true });
  });

  function sh(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = repo): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { cwd, env });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, output }));
    });
  }

  async function draftOnService(): Promise<Config> {
    return (await client.entities('EXTRACT').draft(processorId))!.config as Config;
  }

  it("init against a sandbox commits no sandbox address; on a pull request the workflow evaluates the pull request's config and keeps the reports", async () => {
    const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
    // No version set anywhere: init writes the one in effect, the default, and the workflow runs on it.
    const sandboxEnv = { ...base, EVALKIT_BASE_URL: sandbox.url, EVALKIT_API_TOKEN: sandbox.token };
    const init = await sh(process.execPath, [BIN, 'init', '--processor', processorId, '--evaluation-set', setId, '--dataset', 'invoices'], sandboxEnv);
    expect(init.code, init.output).toBe(0);
    expect(init.output).not.toContain('pinned');
    expect(init.output).toContain(`baseUrl not written: ${sandbox.url} is a loopback address`);
    const committed = ['evalkit.config.json', 'data.csv', '.github/workflows/evalkit.yml', 'configs/invoices.json'];
    for (const f of committed) {
      const text = readFileSync(path.join(repo, f), 'utf8');
      expect(text, f).not.toContain(new URL(sandbox.url).host);
      expect(text, f).not.toMatch(/127\.0\.0\.1|localhost|\[::1\]/);
      expect(text, f).not.toContain(sandbox.token);
    }
    // The version init ran on is pinned in the config file the workflow reads.
    expect(JSON.parse(readFileSync(path.join(repo, 'evalkit.config.json'), 'utf8'))).toMatchObject({ apiVersion: API_VERSION });
    // The evaluation set holds the bundled invoices (as a team's set would, uploaded before).
    cpSync(path.join(ROOT, 'datasets/invoice-extract'), path.join(repo, 'eval'), { recursive: true });
    const upload = await sh(process.execPath, [BIN, 'dataset', 'upload', 'eval/data.csv', '-e', setId, '--no-progress', '--journal', path.join(os.tmpdir(), `j-${path.basename(repo)}.ndjson`)], sandboxEnv);
    expect(upload.code, upload.output).toBe(0);

    // The pull request changes a rule in the config file init wrote; the draft on the service is edited otherwise.
    const PR_RULE = ' Discounts are line items with negative amounts (pull request 2).';
    const OTHER_RULE = ' Round every amount to whole units (an edit of the draft elsewhere).';
    const prConfig = JSON.parse(readFileSync(path.join(repo, 'configs/invoices.json'), 'utf8')) as Config;
    expect(prConfig).toEqual(await draftOnService());
    prConfig.extractionRules += PR_RULE;
    writeFileSync(path.join(repo, 'configs/invoices.json'), JSON.stringify(prConfig, null, 2));
    const draft = await draftOnService();
    await client.entities('EXTRACT').update(processorId, { config: { ...draft, extractionRules: draft.extractionRules + OTHER_RULE } });

    // The runner: `npx evalkit` is this build; the repository's variable and secret are the sandbox's.
    const bin = path.join(repo, '.bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'npx'), `#!/bin/sh\n[ "$1" = --no-install ] && shift\n[ "$1" = evalkit ] || exit 127\nshift\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(path.join(bin, 'npx'), 0o755);
    const contexts: Record<string, string> = { 'secrets.EVALKIT_API_TOKEN': sandbox.token, 'vars.EVALKIT_BASE_URL': sandbox.url };
    const expand = (v: string): string =>
      v.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_, e: string) => {
        if (!Object.hasOwn(contexts, e)) throw new Error(`expression the test does not know: ${e}`);
        return contexts[e];
      });
    const workflow = parse(readFileSync(path.join(repo, '.github/workflows/evalkit.yml'), 'utf8')) as { jobs: { evaluate: { env: Record<string, string>; steps: Step[] } } };
    const job = workflow.jobs.evaluate;
    const eventFile = path.join(repo, 'event.json');
    writeFileSync(eventFile, JSON.stringify({ pull_request: { number: 2 } }));
    const runner: NodeJS.ProcessEnv = {
      ...base,
      PATH: `${bin}:${process.env.PATH}`,
      GITHUB_TOKEN,
      GITHUB_API_URL: gh.apiUrl,
      GITHUB_REPOSITORY: 'acme/configs',
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: eventFile,
      GITHUB_STEP_SUMMARY: path.join(repo, 'summary.md'),
      ...Object.fromEntries(Object.entries(job.env).map(([k, v]) => [k, expand(v)])),
    };
    const ran: string[] = [];
    let artifact: string | undefined;
    for (const step of job.steps) {
      const env = { ...runner, ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v)])) };
      if (step.run?.includes('npx evalkit')) {
        const r = await sh('bash', ['-eo', 'pipefail', '-c', step.run], env);
        expect(r.code, `${step.name}\n${r.output}`).toBe(0);
        ran.push(step.run);
      } else if (step.uses === './node_modules/evalkit') {
        const r = await runAction(step.with ?? {}, { cwd: repo, env, outputFile: path.join(repo, 'output.txt') });
        // The file's gates are empty: the report passes.
        expect(r.code, r.stdout + r.stderr).toBe(0);
        expect(r.outputs['report-json']).toBe('reports/invoices/report.json');
        ran.push(step.uses);
      } else if (step.uses?.startsWith('actions/upload-artifact')) {
        artifact = step.with?.path;
      }
    }
    expect(ran).toHaveLength(2);

    // Every run of the evaluation carried the pull request's rule, not the draft's.
    const exp = JSON.parse(readFileSync(path.join(repo, 'reports/invoices.json'), 'utf8')) as { processor: { config: Config }; items: Array<{ runId: string }> };
    // The export keeps configs in the 2025-04-21 layout: the pull request's config, migrated.
    expect(exp.processor.config).toEqual(migrateConfig({ ...prConfig, type: 'EXTRACT' }, { to: '2025-04-21', type: 'EXTRACT' }).doc);
    expect(exp.items).toHaveLength(12);
    for (const item of exp.items) {
      const config = (await client.processorRuns.get(item.runId)).config as Config;
      expect(config.extractionRules).toContain(PR_RULE);
      expect(config.extractionRules).not.toContain(OTHER_RULE);
    }
    expect((await draftOnService()).extractionRules).not.toContain(PR_RULE);
    // The upload step's path holds the reports the action wrote.
    expect(artifact).toBe('reports/invoices');
    expect(readdirSync(path.join(repo, artifact!))).toEqual(expect.arrayContaining(['report.json', 'report.md', 'report.html', 'report.junit.xml']));
    expect(existsSync(path.join(repo, 'evalkit-report'))).toBe(false);
    expect(gh.comments.get(2)).toHaveLength(1);
  }, 180_000);
});

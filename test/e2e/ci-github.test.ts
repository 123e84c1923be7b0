/**
 * The repository's action.yml, run as the runner runs its composite step, with the built CLI as
 * `npx evalkit` and a stand-in GitHub API (GITHUB_API_URL) recording every request: the sticky
 * comment is created once and updated after, a fork's 403 is a warning, annotations and outputs
 * come out right, and the token appears nowhere in what the step prints or writes.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, runAction, type ActionRun } from '../helpers/action.js';
import { BIN, cleanupAfterEach, ROOT, runCli } from '../helpers/cli.js';
import { startGitHub, type StandInGitHub } from '../helpers/github.js';
import { extractExport } from '../metrics/helpers.js';

const FIX = path.join(ROOT, 'test/fixtures/report');
const TOKEN = 'ghs_standInToken0123456789abcdef';
const REPO = 'acme/invoices';
const { tmp } = cleanupAfterEach('ci-github');

let gh: StandInGitHub;
beforeAll(async () => {
  gh = await startGitHub({ repository: REPO, token: TOKEN });
});
afterAll(() => gh?.close());

/** A scratch checkout: the exports, `npx evalkit` as this build, an event payload. */
function workspace(event: 'pull_request' | 'push', pr = 7): { dir: string; env: NodeJS.ProcessEnv; summary: string; outputFile: string } {
  const dir = tmp();
  cpSync(path.join(FIX, 'extract-export.json'), path.join(dir, 'export.json'));
  cpSync(path.join(FIX, 'extract-baseline.json'), path.join(dir, 'baseline.json'));
  const bin = path.join(dir, '.bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'npx'), `#!/bin/sh\n[ "$1" = --no-install ] && shift\n[ "$1" = evalkit ] || exit 127\nshift\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(path.join(bin, 'npx'), 0o755);
  const eventFile = path.join(dir, 'event.json');
  writeFileSync(eventFile, JSON.stringify(event === 'pull_request' ? { action: 'synchronize', number: pr, pull_request: { number: pr } } : { ref: 'refs/heads/main' }));
  const summary = path.join(dir, 'summary.md');
  return {
    dir,
    summary,
    outputFile: path.join(dir, 'output.txt'),
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: process.env.HOME,
      NO_COLOR: '1',
      GITHUB_ACTIONS: 'true',
      GITHUB_TOKEN: TOKEN,
      GITHUB_API_URL: gh.apiUrl,
      GITHUB_SERVER_URL: 'https://github.example',
      GITHUB_REPOSITORY: REPO,
      GITHUB_RUN_ID: '4242',
      GITHUB_EVENT_NAME: event,
      GITHUB_EVENT_PATH: eventFile,
      GITHUB_STEP_SUMMARY: summary,
    },
  };
}

/** Nothing the step printed or wrote holds the token. */
function expectNoToken(run: ActionRun, dir: string): void {
  expect(run.stdout + run.stderr).not.toContain(TOKEN);
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  for (const f of walk(dir)) if (!f.endsWith('.bin/npx')) expect(readFileSync(f, 'utf8'), f).not.toContain(TOKEN);
}

const commentRequests = () => gh.requests.filter((r) => r.url.includes('/comments')).map((r) => `${r.method} ${r.url.replace(/\?.*/, '')}`);

describe('action.yml on a pull request', () => {
  it('the first run creates the comment, the second updates it: one comment, marked, with the verdict', async () => {
    const w = workspace('pull_request', 7);
    gh.requests.length = 0;
    const inputs = { from: 'export.json', baseline: 'baseline.json', args: '--fail-under micro.f1=0.8\n--bootstrap 200' };
    const first = await runAction(inputs, { cwd: w.dir, env: w.env, outputFile: w.outputFile });
    // --fail-on-regression is off, so the pairing gate is not added: micro F1 0.821 passes 0.8.
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(commentRequests()).toEqual(['GET /api/v3/repos/acme/invoices/issues/7/comments', 'POST /api/v3/repos/acme/invoices/issues/7/comments']);
    expect(gh.requests.every((r) => r.authorization === `Bearer ${TOKEN}` && r.apiVersion === '2022-11-28')).toBe(true);
    const created = gh.comments.get(7) ?? [];
    expect(created).toHaveLength(1);
    // The first line leads with the headline change over the 5 paired documents (issue 35).
    expect(created[0].body.startsWith('<!-- evalkit-report -->\n**evalkit ✅ passed**: micro F1 0.855 -> 0.784 (-0.071, inconclusive) · Invoices 1.1 on 6 documents · ')).toBe(true);
    expect(created[0].body).toContain('[Workflow run](https://github.example/acme/invoices/actions/runs/4242)');
    expect(first.stdout).toContain(`comment: created ${created[0].html_url}`);
    expect(first.outputs).toMatchObject({
      verdict: 'pass',
      passed: 'true',
      'headline-metric': 'micro.f1',
      'micro-f1': expect.stringMatching(/^0\.82\d+$/),
      accuracy: '',
      documents: '6',
      'failed-runs': '1',
      'gates-failed': '0',
      regressions: '0',
      'report-json': 'evalkit-report/report.json',
      'comment-url': created[0].html_url,
    });
    // Every output the action declares is written.
    expect(Object.keys(first.outputs).sort()).toEqual(Object.keys(ACTION.outputs).sort());
    // The job summary once (report's own append is off in the action), with the verdict first.
    const summary = readFileSync(w.summary, 'utf8');
    expect(summary.match(/## evalkit report/g)).toHaveLength(1);
    expect(summary.startsWith('**evalkit ✅ passed**')).toBe(true);
    expect(readdirSync(path.join(w.dir, 'evalkit-report')).sort()).toEqual(['documents.jsonl', 'report.html', 'report.json', 'report.junit.xml', 'report.md']);

    gh.requests.length = 0;
    const second = await runAction({ ...inputs, args: '--fail-under micro.f1=0.9 --bootstrap 200' }, { cwd: w.dir, env: w.env, outputFile: w.outputFile });
    expect(second.code).toBe(1);
    expect(commentRequests()).toEqual(['GET /api/v3/repos/acme/invoices/issues/7/comments', `PATCH /api/v3/repos/acme/invoices/issues/comments/${created[0].id}`]);
    const after = gh.comments.get(7) ?? [];
    expect(after).toHaveLength(1);
    expect(after[0].body).toContain('**evalkit ❌ failed**');
    expect(after[0].body).toContain('- ❌ gate `micro.f1=0.9`: 0.821 is below 0.9');
    expect(second.stdout).toContain('::error title=evalkit gate micro.f1=0.9 failed::0.821 is below 0.9');
    expect(second.outputs).toMatchObject({ verdict: 'fail', passed: 'false', 'gates-failed': '1' });
    expectNoToken(first, w.dir);
    expectNoToken(second, w.dir);
  }, 90_000);

  it('a fork\'s read-only token (403) is a warning, not a failure; the summary and outputs are still written', async () => {
    const w = workspace('pull_request', 8);
    gh.failWith = 403;
    try {
      const r = await runAction({ from: 'export.json', args: '--bootstrap 0' }, { cwd: w.dir, env: w.env, outputFile: w.outputFile });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^::warning title=evalkit comment::pull request comment not posted: GET \/repos\/acme\/invoices\/issues\/8\/comments.*: 403 Resource not accessible by integration \(the token may not write to pull requests/m);
      expect(r.stderr).toContain('evalkit: warning: pull request comment not posted');
      expect(r.outputs).toMatchObject({ verdict: 'pass', 'comment-url': '' });
      expect(readFileSync(w.summary, 'utf8')).toContain('## evalkit report');
      expectNoToken(r, w.dir);
    } finally {
      gh.failWith = undefined;
    }
  });

  it('fail-on-gates false: the step passes, the outputs say fail', async () => {
    const w = workspace('pull_request', 9);
    const r = await runAction({ from: 'export.json', args: '--fail-under micro.f1=0.95 --bootstrap 0', 'fail-on-gates': 'false', comment: 'false' }, { cwd: w.dir, env: w.env, outputFile: w.outputFile });
    expect(r.code).toBe(0);
    expect(r.outputs.verdict).toBe('fail');
    expect(gh.comments.has(9)).toBe(false);
  });

  it('regressions: an error annotation each with fail-on-regression, the property delimiters escaped', async () => {
    const w = workspace('pull_request', 10);
    const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { name: { type: 'string' } } } };
    const docs = (right: number) => Array.from({ length: 60 }, (_, i) => ({ e: { name: `N${i}` }, p: { name: i < right ? `N${i}` : 'x' } }));
    writeFileSync(path.join(w.dir, 'good.json'), JSON.stringify(extractExport(cfg, docs(58))));
    writeFileSync(path.join(w.dir, 'worse.json'), JSON.stringify(extractExport(cfg, docs(30))));
    const r = await runAction({ from: 'worse.json', baseline: 'good.json', 'fail-on-regression': 'true', args: '--bootstrap 200', comment: 'false' }, { cwd: w.dir, env: w.env, outputFile: w.outputFile });
    expect(r.code).toBe(1);
    // `:` in a property value is %3A; the message keeps it.
    expect(r.stdout).toMatch(/^::error title=evalkit regression field%3Aname\.f1::field:name\.f1 regressed against good\.json: 0\.967 -> 0\.500, delta -0\.467/m);
    expect(r.outputs).toMatchObject({ verdict: 'fail', regressions: '7' });
  });

  it('no baseline file yet (the first run on a branch): a notice, and a report without one', async () => {
    const w = workspace('pull_request', 11);
    const r = await runAction({ from: 'export.json', baseline: 'no/such/report.json', 'fail-on-regression': 'true', args: '--bootstrap 0', comment: 'false' }, { cwd: w.dir, env: w.env, outputFile: w.outputFile });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('::notice title=evalkit::no baseline at no/such/report.json');
  });

  it('an input error stops the step with exit 2 and publishes nothing', async () => {
    const w = workspace('pull_request', 12);
    gh.requests.length = 0;
    const r = await runAction({ from: 'missing.json' }, { cwd: w.dir, env: w.env, outputFile: w.outputFile });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing.json');
    expect(gh.requests).toEqual([]);
  });
});

describe('action.yml: where the reports go', () => {
  it("without an out-dir input, the config file's outDir (relative to the file, as init writes it); an out-dir input still wins", async () => {
    const w = workspace('push');
    mkdirSync(path.join(w.dir, 'ci'));
    writeFileSync(path.join(w.dir, 'ci/evalkit.config.json'), JSON.stringify({ datasets: { invoices: { export: '../export.json', outDir: 'reports/invoices' } } }));
    const inputs = { 'config-file': 'ci/evalkit.config.json', dataset: 'invoices', args: '--bootstrap 0' };
    const fromConfig = await runAction(inputs, { cwd: w.dir, env: w.env, outputFile: w.outputFile });
    expect(fromConfig.code, fromConfig.stdout + fromConfig.stderr).toBe(0);
    expect(fromConfig.outputs['report-json']).toBe('ci/reports/invoices/report.json');
    expect(readdirSync(path.join(w.dir, 'ci/reports/invoices')).sort()).toEqual(['documents.jsonl', 'report.html', 'report.json', 'report.junit.xml', 'report.md']);
    expect(existsSync(path.join(w.dir, 'evalkit-report'))).toBe(false);

    const given = await runAction({ ...inputs, 'out-dir': 'mine' }, { cwd: w.dir, env: w.env, outputFile: w.outputFile });
    expect(given.code, given.stdout + given.stderr).toBe(0);
    expect(given.outputs['report-json']).toBe('mine/report.json');
    expect(existsSync(path.join(w.dir, 'mine/report.json'))).toBe(true);
  });
});

describe('evalkit ci github outside a pull request', () => {
  it('on a push there is no comment and no request; annotations, summary and outputs as usual', async () => {
    const w = workspace('push');
    gh.requests.length = 0;
    const r = await runAction({ from: 'export.json', args: '--bootstrap 0' }, { cwd: w.dir, env: w.env, outputFile: w.outputFile });
    expect(r.code).toBe(0);
    expect(gh.requests).toEqual([]);
    expect(r.stdout).toContain('comment: skipped (not a pull request)');
    expect(r.outputs.verdict).toBe('pass');
  });

  it('an event file that cannot be read stops with exit 2 before the summary or the outputs get a line', async () => {
    const w = workspace('pull_request', 13);
    const made = await runCli(['report', '--from', 'export.json', '--out-dir', 'out', '--formats', 'json', '--bootstrap', '0', '--no-step-summary', '-q'], { cwd: w.dir });
    expect(made.code, made.stderr).toBe(0);
    writeFileSync(path.join(w.dir, 'event.json'), '{"pull_request": {"number": 13');
    gh.requests.length = 0;
    const r = await runCli(['ci', 'github', '--report', 'out/report.json'], { cwd: w.dir, env: { ...w.env, GITHUB_OUTPUT: w.outputFile } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path.join(w.dir, 'event.json')}: cannot read the workflow event`);
    expect(r.stderr).toContain('pass --pr N');
    expect(existsSync(w.summary)).toBe(false);
    expect(existsSync(w.outputFile)).toBe(false);
    expect(gh.requests).toEqual([]);
    // --pr settles it without the event.
    const given = await runCli(['ci', 'github', '--report', 'out/report.json', '--pr', '13'], { cwd: w.dir, env: { ...w.env, GITHUB_OUTPUT: w.outputFile } });
    expect(given.code, given.stderr).toBe(0);
    expect(readFileSync(w.summary, 'utf8')).toContain('## evalkit report');
    expect(given.stdout).toContain('comment: created');
  });
});

/**
 * `evalkit eval run --api-version 2026-02-09` killed (SIGKILL) once its evaluation set run is
 * created, then run again with the same command, against the real sandbox through the built CLI:
 * the second run goes on with the first one's evaluation set run (polls it, or exports it once it
 * ended) and the service holds one run of the set, never two.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { CONFIGS, clientOf, seedSet } from '../eval/helpers.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';

let t: TestSandbox;
const dirs: string[] = [];
beforeAll(async () => {
  // Slow enough that the run is still in flight when the first command is killed.
  t = await start({ engineDelayMs: 1500 });
});
afterAll(async () => {
  await t.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const tmp = (prefix: string): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
};

/** Starts `eval run` as a child and kills it with SIGKILL as soon as it recorded its run; answers the recorded run id. */
async function killAfterCreate(args: string[], cwd: string, env: NodeJS.ProcessEnv, runsDir: string): Promise<string> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let ended = false;
  void exited.then(() => (ended = true));
  const deadline = Date.now() + 60_000;
  while (!ended && Date.now() < deadline) {
    const files = existsSync(runsDir) ? readdirSync(runsDir).filter((f) => f.endsWith('.json')) : [];
    if (files.length === 1) {
      child.kill('SIGKILL');
      await exited;
      return (JSON.parse(readFileSync(path.join(runsDir, files[0]), 'utf8')) as { evaluationSetRunId: string }).evaluationSetRunId;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGKILL');
  throw new Error(`eval run ended (or hung) before it recorded its run:\n${output}`);
}

describe('eval run on 2026-02-09 killed mid-run and run again (built CLI, real sandbox)', () => {
  it.each([
    ['still running', false],
    ['ended while nobody watched', true],
  ] as const)('the run %s: the second command goes on with it; the service holds one evaluation set run of the set', async (_name, waitForEnd) => {
    const s = await seedSet(t, 'EXTRACT', 3, { publish: true });
    const dir = tmp('evalkit-e2e-eval26-resume-');
    const state = tmp('evalkit-e2e-state-');
    const runsDir = path.join(state, 'evalkit', 'eval-runs');
    const env = { ...process.env, NO_COLOR: '1', EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token, XDG_STATE_HOME: state };
    const args = ['--api-version', '2026-02-09', 'eval', 'run', '-e', s.setId, '--version', '1.0', '--out', 'run.json', '--no-progress'];

    const recorded = await killAfterCreate(args, dir, env, runsDir);
    expect(existsSync(path.join(dir, 'run.json'))).toBe(false);
    // The service keeps evaluation set runs as batch runs of the set (the sandbox's 2025-04-21 list shows them).
    const legacy = clientOf(t);
    const runsOfSet = async (): Promise<string[]> => (await legacy.batchProcessorRuns.list({ sourceId: s.setId })).items.map((b) => b.id);
    expect(await runsOfSet()).toEqual([recorded]);
    if (waitForEnd) expect((await legacy.batchProcessorRuns.waitFor(recorded, { intervalMs: 50, timeoutMs: 30_000 })).status).toBe('PROCESSED');

    const again = await runCli([...args, '--format', 'json'], { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout + again.stderr).not.toContain(t.token);
    expect(again.stderr).toContain(`going on with evaluation set run ${recorded}`);
    expect(JSON.parse(again.stdout)).toMatchObject({ strategy: 'evaluation-set-run', batchRunId: recorded, serviceStatus: 'PROCESSED', counts: { items: 3, processed: 3 } });
    const exp = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as { service: { evaluationSetRunId: string }; items: unknown[] };
    expect(exp.service.evaluationSetRunId).toBe(recorded);
    expect(exp.items).toHaveLength(3);
    expect(await runsOfSet()).toEqual([recorded]);
    // Exported: the record is gone, so the next eval run is a new evaluation.
    expect(readdirSync(runsDir).filter((f) => f.endsWith('.json'))).toEqual([]);
  }, 120_000);
});

describe('eval run --version draft killed, the draft edited, then run again (built CLI, real sandbox)', () => {
  it('starts a new evaluation with a note (the recorded run ran the old draft); each export records the config its runs ran', async () => {
    const s = await seedSet(t, 'EXTRACT', 2, { publish: true });
    const dir = tmp('evalkit-e2e-eval26-draft-');
    const state = tmp('evalkit-e2e-state-');
    const runsDir = path.join(state, 'evalkit', 'eval-runs');
    const env = { ...process.env, NO_COLOR: '1', EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token, XDG_STATE_HOME: state };
    const args = ['eval', 'run', '-e', s.setId, '--version', 'draft', '--out', 'd1.json', '--no-progress'];

    const recorded = await killAfterCreate(args, dir, env, runsDir);
    // `processors update`: the draft now has other rules than the ones the recorded run is running.
    const upd = await t.call('POST', `/processors/${s.processorId}`, { body: { config: { ...CONFIGS.EXTRACT, extractionRules: 'changed rules' } } });
    expect(upd.status).toBe(200);

    const again = await runCli([...args, '--format', 'json'], { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('going on with');
    expect(again.stderr).toContain(`evaluation set run ${recorded}, left by a stopped eval run, ran the draft`);
    expect(again.stderr).toContain('has changed since; starting a new evaluation');
    const fresh = (JSON.parse(again.stdout) as { batchRunId: string }).batchRunId;
    expect(fresh).not.toBe(recorded);
    const d1 = JSON.parse(readFileSync(path.join(dir, 'd1.json'), 'utf8')) as { processor: { config: Record<string, unknown> }; service: { evaluationSetRunId: string } };
    expect(d1.service.evaluationSetRunId).toBe(fresh);
    expect(d1.processor.config.extractionRules).toBe('changed rules');
    expect(readdirSync(runsDir).filter((f) => f.endsWith('.json'))).toEqual([]);

    // The old run's export records the draft it ran (the runs' config), not the draft as it is now.
    const old = await runCli(['eval', 'export', recorded, '--wait', '--out', 'old.json', '--no-progress'], { cwd: dir, env });
    expect(old.code, old.stderr).toBe(0);
    const exp = JSON.parse(readFileSync(path.join(dir, 'old.json'), 'utf8')) as { processor: { config: Record<string, unknown> } };
    expect(exp.processor.config.extractionRules).toBe('draft rules');
  }, 120_000);
});

describe('eval run stopped by --timeout, then eval export of its run (built CLI, real sandbox)', () => {
  it('the export removes the record, so the next eval run is a new evaluation', async () => {
    const s = await seedSet(t, 'EXTRACT', 3, { publish: true });
    const dir = tmp('evalkit-e2e-eval26-timeout-');
    const state = tmp('evalkit-e2e-state-');
    const runsDir = path.join(state, 'evalkit', 'eval-runs');
    const env = { ...process.env, NO_COLOR: '1', EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token, XDG_STATE_HOME: state };
    const args = ['eval', 'run', '-e', s.setId, '--version', '1.0', '--out', 'run.json', '--no-progress'];
    const records = (): string[] => (existsSync(runsDir) ? readdirSync(runsDir).filter((f) => f.endsWith('.json')) : []);

    const first = await runCli([...args, '--timeout', '1s'], { cwd: dir, env });
    expect(first.code, first.stderr).toBe(2);
    const id = /evalkit eval export (bpr_\w+) --wait/.exec(first.stderr)?.[1];
    expect(id, first.stderr).toBeDefined();
    expect(records()).toHaveLength(1);

    const exported = await runCli(['eval', 'export', id!, '--wait', '--out', 'late.json', '--no-progress'], { cwd: dir, env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(records()).toEqual([]);

    const next = await runCli([...args, '--format', 'json'], { cwd: dir, env });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('going on with');
    expect((JSON.parse(next.stdout) as { batchRunId: string }).batchRunId).not.toBe(id);
  }, 120_000);
});

describe('eval run --strategy per-item on 2026-02-09 killed mid-run and run again (built CLI, real sandbox)', () => {
  it('the second command takes up the runs the first created: one run per item in all', async () => {
    const s = await seedSet(t, 'EXTRACT', 4, { publish: true });
    const dir = tmp('evalkit-e2e-eval26-peritem-');
    const state = tmp('evalkit-e2e-state-');
    const env = { ...process.env, NO_COLOR: '1', EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token, XDG_STATE_HOME: state };
    const args = ['eval', 'run', '-e', s.setId, '--version', '1.0', '--strategy', 'per-item', '--concurrency', '2', '--out', 'run.json', '--no-progress'];
    const legacy = clientOf(t);
    const runsOf = async (): Promise<Array<{ id: string; item: unknown }>> =>
      (await legacy.processorRuns.list({ processorId: s.processorId, maxPageSize: 100 })).items.map((r) => ({ id: r.id, item: r.metadata?.evaluationSetItemId }));

    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env, stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const deadline = Date.now() + 60_000;
    while ((await runsOf()).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await exited;
    const before = await runsOf();
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before.length).toBeLessThan(4);

    const again = await runCli([...args, '--format', 'json'], { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('going on with the per-item runs');
    const after = await runsOf();
    expect(after).toHaveLength(4);
    expect(new Set(after.map((r) => r.item)).size).toBe(4);
    const exp = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as { items: Array<{ runId: string; status: string }> };
    expect(exp.items.map((i) => i.status)).toEqual(['PROCESSED', 'PROCESSED', 'PROCESSED', 'PROCESSED']);
    for (const r of before) expect(exp.items.map((i) => i.runId)).toContain(r.id);
    // Exported: the record is gone, so the next eval run is a new evaluation.
    expect(readdirSync(path.join(state, 'evalkit', 'eval-runs')).filter((f) => f.endsWith('.json'))).toEqual([]);
  }, 120_000);
});

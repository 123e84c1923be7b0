/**
 * The library entry and the commands that do not serve load no native or PDF module: each runs
 * in a child process whose module hooks (test/fixtures/load-guard) make better-sqlite3,
 * pdfjs-dist and canvas unloadable, as on a machine where they failed to build.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSet, type SeededSet } from '../eval/helpers.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';
import { BIN, ROOT, spawnCollect, type CliResult } from '../helpers/cli.js';

const GUARD = path.join(ROOT, 'test/fixtures/load-guard/register.mjs');

function guarded(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return spawnCollect(process.execPath, ['--import', GUARD, ...args], { cwd: opts.cwd, env: { ...process.env, NO_COLOR: '1', ...opts.env } });
}

const evalkit = (args: string[], opts?: { cwd?: string; env?: NodeJS.ProcessEnv }) => guarded([BIN, ...args], opts);

let dir: string;
let t: TestSandbox;
let set: SeededSet;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-load-guard-'));
  cpSync(path.join(ROOT, 'datasets'), path.join(dir, 'datasets'), { recursive: true });
  // The sandbox is this process's; only the CLI runs guarded.
  t = await start({ engineDelayMs: 1 });
  set = await seedSet(t, 'EXTRACT', 3, { publish: true });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('without better-sqlite3, pdfjs-dist and canvas', () => {
  it('the guard works: starting a sandbox fails on better-sqlite3', async () => {
    const r = await guarded(['--input-type=module', '-e', `const m = await import(${JSON.stringify(path.join(ROOT, 'dist/index.js'))}); await m.startSandbox({ port: 0 });`]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('evalkit load guard: better-sqlite3');
  });

  it('import("evalkit") loads the whole library entry', async () => {
    const r = await guarded(['--input-type=module', '-e', `const m = await import(${JSON.stringify(path.join(ROOT, 'dist/index.js'))}); console.log(typeof m.computeReport, typeof m.startSandbox, typeof m.runDemo);`]);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('function function function');
  });

  it.each([['--version'], ['--help'], ['migrate', '--help'], ['report', '--help']])('evalkit %s', async (...args) => {
    const r = await evalkit(args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('evalkit migrate, validate and schema', async () => {
    const migrate = await evalkit(['migrate', 'datasets/configs', '--write'], { cwd: dir });
    expect(migrate.stderr).not.toContain('load guard');
    expect(migrate.code).toBe(0);
    const fix = path.join(ROOT, 'test/fixtures/expected/extract-fix');
    const validate = await evalkit(['validate', path.join(fix, 'items.fixed.jsonl'), '--config', path.join(fix, 'config.json')]);
    expect(validate.stderr).not.toContain('load guard');
    expect(validate.stdout).toContain('1 file, 3 documents: 2 valid, 1 invalid');
    expect(validate.code).toBe(1);
    const schema = await evalkit(['schema', '--config', 'datasets/configs/invoice-extract.json', '--types'], { cwd: dir });
    expect(schema.stderr).toBe('');
    expect(schema.stdout).toContain('export interface');
  });

  it('evalkit eval run and evalkit report', async () => {
    const env = { EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token };
    const run = await evalkit(['eval', 'run', '-e', set.setId, '--out', 'run.json', '--no-progress'], { cwd: dir, env });
    expect(run.stderr).not.toContain('load guard');
    expect(run.code).toBe(0);
    const report = await evalkit(['report', '--from', 'run.json', '--out-dir', 'out', '--bootstrap', '0'], { cwd: dir });
    expect(report.stderr).not.toContain('load guard');
    expect(report.code).toBe(0);
  });
});

/**
 * Habits every command shares, through the built CLI: help on a bare `evalkit`, command groups
 * that list their subcommands, colour only for people (NO_COLOR, FORCE_COLOR, never in JSON),
 * --quiet, Ctrl-C exits 130, and the fish completion script.
 */
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanupAfterEach, ROOT, runCli } from '../helpers/cli.js';

const EXPORT = path.join(ROOT, 'test/fixtures/report/extract-export.json');
const { tmp, track } = cleanupAfterEach('habits');
const ESC = '\u001b[';

describe('help and command groups', () => {
  it('bare evalkit prints the help on stdout and exits 0', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('evalkit <command> [options]');
    for (const c of ['migrate', 'report', 'eval', 'ci', 'webhooks']) expect(r.stdout).toMatch(new RegExp(`^ {2}evalkit ${c}\\b`, 'm'));
  });

  it.each([
    ['eval', ['run', 'export']],
    ['webhooks', ['listen']],
    ['processors', ['list', 'get', 'create', 'update', 'publish', 'versions', 'diff']],
    ['dataset', ['upload', 'download', 'harvest']],
    ['ci', ['github']],
    ['config', ['show']],
    ['history', ['show']],
  ])('evalkit %s without a subcommand lists %j and exits 0', async (group, subs) => {
    const r = await runCli([group]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const listed = r.stdout.split('\n').filter((l) => /^ {2}\S/.test(l)).map((l) => l.trim().split(/\s+/)[0]);
    expect(listed).toEqual(subs);
  });

  it('an unknown subcommand is a usage error naming the known ones; a near miss gets a suggestion', async () => {
    const r = await runCli(['eval', 'frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown eval command "frobnicate"\n  hint: choose one of run, export');
    const typo = await runCli(['eval', 'rn']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean run?');
  });
});

describe('colour', () => {
  const failing = (dir: string) => ['report', '--from', EXPORT, '--out-dir', dir, '--bootstrap', '0', '--fail-under', 'micro.f1=0.9'];

  it('FORCE_COLOR colours the human text; NO_COLOR (and a pipe) leave it plain', async () => {
    const forced = await runCli(failing(tmp()), { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
    expect(forced.code).toBe(1);
    expect(forced.stdout).toContain(`${ESC}31m${ESC}1mFAIL`);
    const plain = await runCli(failing(tmp()), { env: { NO_COLOR: '1', FORCE_COLOR: undefined } });
    expect(plain.stdout).toContain('FAIL micro.f1=0.9');
    expect(plain.stdout + plain.stderr).not.toContain(ESC);
    // Neither variable: stdout is a pipe here, not a terminal.
    const piped = await runCli(failing(tmp()), { env: { NO_COLOR: undefined, FORCE_COLOR: undefined } });
    expect(piped.stdout + piped.stderr).not.toContain(ESC);
    const off = await runCli(failing(tmp()), { env: { NO_COLOR: undefined, FORCE_COLOR: '0' } });
    expect(off.stdout + off.stderr).not.toContain(ESC);
  });

  it('never in --format json, not even forced', async () => {
    const r = await runCli([...failing(tmp()), '--format', 'json'], { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain(ESC);
    expect((JSON.parse(r.stdout) as { gates: { passed: boolean } }).gates.passed).toBe(false);
  });

  it('the label of an error line, on stderr', async () => {
    const r = await runCli(['report', '--from', 'no/such.json'], { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith(`${ESC}31m${ESC}1mevalkit:${ESC}22m${ESC}39m no/such.json`)).toBe(true);
  });
});

describe('--quiet', () => {
  it('report: nothing on success, only what failed on failure; the files are written either way', async () => {
    const dir = tmp();
    const ok = await runCli(['report', '--from', EXPORT, '--out-dir', dir, '--bootstrap', '0', '--quiet']);
    expect(ok).toMatchObject({ code: 0, stdout: '' });
    expect(readdirSync(dir).sort()).toEqual(['documents.jsonl', 'report.html', 'report.json', 'report.junit.xml', 'report.md']);
    const bad = await runCli(['report', '--from', EXPORT, '--out-dir', dir, '--bootstrap', '0', '-q', '--fail-under', 'micro.f1=0.9', '--fail-under', 'micro.f1=0.5']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('FAIL micro.f1=0.9: 0.821 is below 0.9\n');
  });

  it('keeps the results asked for: --format json still prints the report', async () => {
    const r = await runCli(['report', '--from', EXPORT, '--out-dir', tmp(), '--bootstrap', '0', '--quiet', '--format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('format', 'evalkit-report/3');
  });

  it('migrate: no tally line; the findings stay', async () => {
    const r = await runCli(['migrate', path.join(ROOT, 'datasets/configs/invoice-extract.json'), '--quiet']);
    const loud = await runCli(['migrate', path.join(ROOT, 'datasets/configs/invoice-extract.json')]);
    expect(loud.stdout).toMatch(/\d+ migrated, \d+ unchanged, \d+ errors?/);
    expect(r.stdout).not.toMatch(/\d+ migrated, \d+ unchanged/);
    expect(r.code).toBe(loud.code);
  });
});

describe('Ctrl-C exits 130', () => {
  /** Spawns the CLI; resolves its exit code and output. */
  function start(args: string[], env: NodeJS.ProcessEnv) {
    const child = track(spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
    return { child, exit, stderr: () => stderr };
  }

  it('while a request hangs (a command with no Ctrl-C handling of its own): 130, not killed by the signal', async () => {
    // A service that takes the request and never answers; its arrival is the readiness signal.
    let arrived!: () => void;
    const got = new Promise<void>((resolve) => (arrived = resolve));
    const server = http.createServer(() => arrived());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const run = start(['processors', 'list'], { EVALKIT_BASE_URL: url, EVALKIT_API_TOKEN: 'sk_habits_token_1234' });
      await got;
      run.child.kill('SIGINT');
      expect(await run.exit).toEqual({ code: 130, signal: null });
      expect(run.stderr()).toContain('evalkit: interrupted');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('a listener stops cleanly first (its tally printed), then exits 130', async () => {
    const run = start(['webhooks', 'listen', '--port', '0'], { EVALKIT_WEBHOOK_SECRET: 'whsec_habits_1234' });
    while (!run.stderr().includes('listening on')) {
      if (run.child.exitCode !== null) throw new Error(run.stderr());
      await new Promise((r) => setTimeout(r, 10));
    }
    run.child.kill('SIGINT');
    expect(await run.exit).toEqual({ code: 130, signal: null });
    expect(run.stderr()).toContain('evalkit webhooks listen: 0 verified, 0 rejected');
  });
});

describe('completion', () => {
  it('fish: a script from the command tree, subcommands under their group', async () => {
    const r = await runCli(['completion', 'fish']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("complete -c evalkit -n __fish_use_subcommand -f -a 'report' -d ");
    expect(r.stdout).toContain("complete -c evalkit -n '__fish_seen_subcommand_from eval; and not __fish_seen_subcommand_from run export' -f -a 'run' -d ");
    expect(r.stdout).toContain("complete -c evalkit -n '__fish_seen_subcommand_from ci; and not __fish_seen_subcommand_from github' -f -a 'github' -d ");
    expect(r.stdout).toContain('command evalkit --get-yargs-completions $tokens');
    // Every line a fish command or part of the function: no stray text.
    for (const line of r.stdout.trim().split('\n')) expect(line).toMatch(/^(#|complete |function |end$| {4})/);
  });

  const hasFish = spawnSync('fish', ['--version']).status === 0;
  it.skipIf(!hasFish)('fish reads the script and completes commands, subcommands and options with it (needs fish)', async () => {
    const dir = tmp();
    const script = path.join(dir, 'evalkit.fish');
    writeFileSync(script, (await runCli(['completion', 'fish'])).stdout);
    expect(spawnSync('fish', ['-n', script]).status).toBe(0);
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'evalkit'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(path.join(bin, 'evalkit'), 0o755);
    const complete = (line: string) =>
      spawnSync('fish', ['-c', `source ${script}; complete -C "${line}"`], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8' }).stdout.split('\n').map((l) => l.split('\t')[0]);
    expect(complete('evalkit ev')).toContain('eval');
    expect(complete('evalkit eval ')).toEqual(expect.arrayContaining(['run', 'export']));
    expect(complete('evalkit report --fo')).toEqual(expect.arrayContaining(['--format', '--formats']));
  }, 60_000);

  it('bash still comes from yargs', async () => {
    const r = await runCli(['completion']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--get-yargs-completions');
  });

  it('the options of a command come from yargs itself', async () => {
    const r = await runCli(['--get-yargs-completions', 'evalkit', 'report', '--fo']);
    expect(r.stdout.split('\n')).toEqual(expect.arrayContaining(['--formats', '--format', '--quiet']));
  });
});

describe('temp files of an interrupted write', () => {
  it('removeLiveTempsSync removes the temp file and leaves the target as it was', async () => {
    const { openAtomic, removeLiveTempsSync } = await import('../../src/util/fs.js');
    const dir = tmp();
    const file = path.join(dir, 'out.csv');
    const f = await openAtomic(file);
    await f.write('half');
    expect(readdirSync(dir).some((n) => n.startsWith('.evalkit-tmp-'))).toBe(true);
    expect(removeLiveTempsSync()).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(file)).toBe(false);
    await f.abort();
  });
});

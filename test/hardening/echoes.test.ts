// Echoes and crashes: what a command prints never carries a secret or a raw control character
// from a hostile file, and an unwritable stdout or an unreadable config is one line and exit 2.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, cpSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { historyEntry } from '../../src/history/index.js';
import { computeReport, renderMarkdown } from '../../src/report/index.js';
import { BIN, ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { extractExport } from '../metrics/helpers.js';

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'evalkit-echoes-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

// ESC ] 0 ; (set the terminal's title), BEL, NUL, ESC [ 2 J (clear the screen), a bidi override.
const HOSTILE = 'x\u001b]0;pwned\u0007y\u0000z\u001b[2J\u202e';
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('config show', () => {
  it('refuses a config file whose baseUrl holds a password, without printing it (exit 2, file and pointer)', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'evalkit.config.json'), JSON.stringify({ baseUrl: 'https://ci:hunter2secret@svc.example.com/v1', datasets: { a: { csv: 'a.csv' } } }, null, 2));
    const r = await runCli(['config', 'show'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).not.toContain('hunter2secret');
    expect(r.stderr).toContain('evalkit.config.json:2:3 at /baseUrl');
    expect(r.stderr).toMatch(/user name or password/);
  });

  it('shows a base URL with a password from the environment or a flag with the password masked', async () => {
    const dir = tmp();
    const env = await runCli(['config', 'show'], { cwd: dir, env: { EVALKIT_BASE_URL: 'https://ci:hunter2secret@svc.example.com/v1' } });
    expect(env.code).toBe(0);
    expect(env.stdout).not.toContain('hunter2secret');
    expect(env.stdout).toContain('https://***@svc.example.com/v1');
    const flag = await runCli(['config', 'show', '--format', 'json', '--base-url', 'http://u:hunter2secret@127.0.0.1:9'], { cwd: dir });
    expect(flag.code).toBe(0);
    expect(flag.stdout).not.toContain('hunter2secret');
    expect((JSON.parse(flag.stdout) as { settings: { baseUrl: { value: string } } }).settings.baseUrl.value).toBe('http://***@127.0.0.1:9/');
  });
});

describe('reading the config file', () => {
  it('--config-file /dev/urandom: exit 2 at once, naming the path (not a regular file)', async () => {
    const r = await runCli(['config', 'show', '--config-file', '/dev/urandom'], { cwd: tmp() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/dev/urandom: not a regular file');
    expect(r.stderr).not.toMatch(/RangeError|unexpected error/);
  });

  it('a named pipe called evalkit.config.json is an input error naming it, not skipped (and not waited on)', async () => {
    const dir = tmp();
    mkdirSync(path.join(dir, 'sub'));
    const fifo = path.join(dir, 'sub', 'evalkit.config.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // A config further up that would be read if the pipe were skipped.
    writeFileSync(path.join(dir, 'evalkit.config.json'), '{}');
    const r = await runCli(['config', 'show'], { cwd: path.join(dir, 'sub') });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${fifo}: not a regular file (a named pipe)`);
  });

  it('a config file larger than the limit: exit 2 naming the size and the limit', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'big.json'), `{"datasets":{},"x":"${'a'.repeat(5 * 1024 * 1024)}"}`);
    const r = await runCli(['config', 'show', '--config-file', 'big.json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/big\.json: the config file is 5\.0 MiB; the limit is 4 MiB/);
  });
});

describe('history show', () => {
  it('prints a hostile entry with its control characters escaped', async () => {
    const dir = tmp();
    const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { [`f${HOSTILE}`]: { type: 'string' } } } };
    const report = computeReport(extractExport(cfg, [{ e: { [`f${HOSTILE}`]: 'a' }, p: { [`f${HOSTILE}`]: 'a' } }]), { bootstrap: 0, sourceFile: 'run.json' });
    const entry = historyEntry(report, { time: new Date('2026-01-02T03:04:05.678Z'), commit: `abc${HOSTILE}`, branch: HOSTILE });
    writeFileSync(path.join(dir, 'e.json'), JSON.stringify(entry));
    const r = await runCli(['history', 'show', dir, '-m', 'field:*.f1'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toContain('field:fx\\x1b]0;pwned\\x07y\\x00z\\x1b[2J\\u202e.f1');
  });
});

describe('report.md', () => {
  it('holds no raw ESC, BEL or NUL from a hostile processor name or field id', () => {
    const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { [`f${HOSTILE}`]: { type: 'string' } } } };
    const exp = extractExport(cfg, [{ e: { [`f${HOSTILE}`]: 'a' }, p: { [`f${HOSTILE}`]: 'b' } }]);
    exp.processor.name = `P${HOSTILE}`;
    const md = renderMarkdown(computeReport(exp, { bootstrap: 0, sourceFile: `run${HOSTILE}.json` }));
    expect(md).not.toMatch(RAW);
    expect(md).toContain('Px\\x1b]0;pwned\\x07y\\x00z\\x1b[2J\\u202e');
  });
});

function runTo(args: string[], stdoutFd: number, cwd: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', stdoutFd, 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    c.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    c.on('error', reject);
    c.on('close', (code) => resolve({ code, stdout: '', stderr }));
  });
}

describe('stdout that cannot be written', () => {
  it.skipIf(process.platform !== 'linux')('migrate DIR > /dev/full: one line naming the error, exit 2, no stack trace', async () => {
    const dir = tmp();
    cpSync(path.join(ROOT, 'datasets/configs'), path.join(dir, 'configs'), { recursive: true });
    const fd = openSync('/dev/full', 'w');
    try {
      const r = await runTo(['migrate', 'configs'], fd, dir);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')[0]).toBe('evalkit: cannot write the output to stdout: no space left on the device (ENOSPC)');
      expect(r.stderr).not.toMatch(/^\s+at /m);
    } finally {
      closeSync(fd);
    }
  });
});

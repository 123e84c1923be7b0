import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'dist/cli/index.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process to its end and collects its output (stdin gets `input`, or is closed). */
export function spawnCollect(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A child that exits before reading its stdin closes the pipe: EPIPE there is not the test's failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

/** Runs the built binary as a user would (npm test builds first). */
export function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
  return spawnCollect(process.execPath, [BIN, ...args], { ...opts, env: { ...process.env, NO_COLOR: '1', ...opts.env } });
}

/**
 * Children and temp folders of one test file, cleaned up after each test: a child still
 * running is killed (SIGKILL), a folder removed. Call it at the top level of the test file.
 */
export function cleanupAfterEach(prefix: string): { track(child: ChildProcess): ChildProcess; tmp(): string } {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return {
    track: (child) => (children.push(child), child),
    tmp: () => {
      const d = mkdtempSync(path.join(os.tmpdir(), `evalkit-${prefix}-`));
      dirs.push(d);
      return d;
    },
  };
}

import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('evalkit CLI entry', () => {
  it('prints help with exit codes and exits 0', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Exit codes: 0 success, 1 findings');
  });

  it('prints the package version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('rejects an unknown command with exit 2 and a hint', async () => {
    const r = await runCli(['no-such-command']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/evalkit: /);
    expect(r.stderr).toContain('--help');
  });

  it("a command's --help shows its options and examples; a usage error found by a running command is one line and a pointer to --help, never the help", async () => {
    const help = await runCli(['migrate', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--out-dir');
    expect(help.stdout).toContain('Examples:');
    const r = await runCli(['migrate', 'x', '--write', '--out-dir', 'o']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      'evalkit: --write and --out-dir cannot be combined',
      '  hint: --write rewrites files in place; --out-dir writes copies elsewhere',
      'Run with --help for usage and examples.',
    ]);
  });
});

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
});

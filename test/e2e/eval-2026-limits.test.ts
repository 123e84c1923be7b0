/**
 * `evalkit eval run` (API 2026-02-09, the evaluation set run) against a sandbox that limits or
 * stalls requests, through the built CLI: a modest rate limit slows the item reads down instead of
 * failing the command; --timeout ends a request that hangs.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { seedSet } from '../eval/helpers.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';
import type { SandboxOptions } from '../../src/sandbox/index.js';

const dirs: string[] = [];
let sandbox: TestSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = (prefix: string): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
};

/** A set of `n` items seeded without limits, then the same data served by a sandbox with `opts`. */
async function seededWith(n: number, opts: SandboxOptions): Promise<{ t: TestSandbox; setId: string }> {
  const dataDir = tmp('evalkit-e2e-limits-data-');
  const plain = await start({ dataDir, engineDelayMs: 1 });
  const s = await seedSet(plain, 'EXTRACT', n, { publish: true });
  await plain.close();
  sandbox = await start({ dataDir, engineDelayMs: 1, ...opts });
  return { t: sandbox, setId: s.setId };
}

const envOf = (t: TestSandbox): NodeJS.ProcessEnv => ({ EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token, XDG_STATE_HOME: tmp('evalkit-e2e-limits-state-') });

describe('eval run under a rate limit (sandbox --rate-limit 2)', () => {
  it('the default eval run reads the items (429s with Retry-After honoured, fewer reads at once) and exits 0', async () => {
    const { t, setId } = await seededWith(10, { rateLimit: 2 });
    const dir = tmp('evalkit-e2e-limits-');
    const r = await runCli(['eval', 'run', '-e', setId, '--version', '1.0', '--out', 'run.json', '--format', 'json', '--no-progress'], { cwd: dir, env: envOf(t) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ strategy: 'evaluation-set-run', counts: { items: 10, processed: 10 } });
    expect(r.stderr).not.toContain('raise the retry limit');
  }, 180_000);
});

describe('eval run --timeout while a poll hangs (sandbox fault latency=60000 on GET /evaluation_set_runs/*)', () => {
  it('stops at about the timeout: exit 2, the hint names eval export --wait, nothing written', async () => {
    const { t, setId } = await seededWith(2, { faults: ['latency=60000,route=GET /evaluation_set_runs/*'] });
    const dir = tmp('evalkit-e2e-limits-');
    const t0 = Date.now();
    const r = await runCli(['eval', 'run', '-e', setId, '--version', '1.0', '--out', 'run.json', '--timeout', '5s', '--no-progress'], { cwd: dir, env: envOf(t) });
    const took = Date.now() - t0;
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/evaluation set run bpr_\w+ did not finish within 5\.0 s; nothing was written/);
    expect(r.stderr).toMatch(/evalkit eval export bpr_\w+ --wait/);
    expect(existsSync(path.join(dir, 'run.json'))).toBe(false);
    expect(took).toBeLessThan(20_000);
  }, 120_000);
});

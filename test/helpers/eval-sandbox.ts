/**
 * The setup of the end-to-end `eval` tests: one real sandbox with a published evaluation set of
 * each type, a working folder, and a `cli` that runs the built binary against it there. After
 * the file, the sandbox's token must appear in nothing the CLI printed nor in any file written to
 * the folder; then the folder is removed and the sandbox closed. Call it at the top level of the
 * test file; `t` and `dir` are set once its beforeAll has run.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { seedSet, type SeededSet, type Type } from '../eval/helpers.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';
import { runCli, type CliResult } from './cli.js';

export interface EvalSandbox {
  t: TestSandbox;
  dir: string;
  sets: Record<Type, SeededSet>;
  /** The built CLI against `sandbox` (default: this one), in `cwd` (default: `dir`). */
  cli(args: string[], o?: { sandbox?: TestSandbox; cwd?: string }): Promise<CliResult>;
}

function walk(d: string): string[] {
  return readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
}

export function useEvalSandbox(opts: { items: number; tmpPrefix: string }): EvalSandbox {
  const seen: Array<{ r: CliResult; token: string }> = [];
  const ctx = {
    sets: {} as Record<Type, SeededSet>,
    async cli(args: string[], o: { sandbox?: TestSandbox; cwd?: string } = {}): Promise<CliResult> {
      const s = o.sandbox ?? ctx.t;
      const r = await runCli(args, { cwd: o.cwd ?? ctx.dir, env: { EVALKIT_BASE_URL: s.url, EVALKIT_API_TOKEN: s.token } });
      seen.push({ r, token: s.token });
      return r;
    },
  } as EvalSandbox;

  beforeAll(async () => {
    ctx.t = await start({ engineDelayMs: 1 });
    for (const type of ['EXTRACT', 'CLASSIFY', 'SPLITTER'] as const) ctx.sets[type] = await seedSet(ctx.t, type, opts.items, { publish: true });
    ctx.dir = mkdtempSync(path.join(os.tmpdir(), opts.tmpPrefix));
  });
  afterAll(async () => {
    // The token never appears in anything the CLI printed or wrote.
    for (const { r, token } of seen) expect(r.stdout + r.stderr).not.toContain(token);
    for (const f of walk(ctx.dir)) expect(readFileSync(f, 'utf8'), f).not.toContain(ctx.t.token);
    rmSync(ctx.dir, { recursive: true, force: true });
    await ctx.t.close();
  });
  return ctx;
}

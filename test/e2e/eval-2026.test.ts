/**
 * `evalkit eval run` / `eval export` with --api-version 2026-02-09 through the built CLI, against
 * a stub answering spec-7 shapes (test/helpers/stub-eval-2026.ts) until the sandbox serves
 * evaluation set runs: the export written atomically with the service's run, FAILED runs exit 1
 * with the export saying so, a run id of the wrong kind is exit 2 with nothing written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { startEvalStub, type EvalStub, type EvalStubOptions } from '../helpers/stub-eval-2026.js';

let stub: EvalStub | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await stub?.close();
  stub = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const CLASSIFY_CONFIG = { classifications: [{ id: 'invoice', type: 'invoice', description: 'an invoice' }, { id: 'receipt', type: 'receipt', description: 'a receipt' }] };
const ok = { id: 'invoice', type: 'invoice', confidence: 1, insights: [] };

async function setup(o: Partial<EvalStubOptions> = {}): Promise<{ dir: string; cli: (args: string[]) => Promise<CliResult> }> {
  stub = await startEvalStub({
    type: 'CLASSIFY', config: CLASSIFY_CONFIG, metrics: { accuracy: 0.5, classificationMetrics: { invoice: { countExpected: 1, countPredicted: 2, countCorrect: 1, precision: 0.5, recall: 1 } } }, polls: 1,
    items: [
      { id: 'evi_1', fileId: 'file_1', fileName: 'a.pdf', expected: { id: 'invoice', type: 'invoice' }, output: ok },
      { id: 'evi_2', fileId: 'file_2', fileName: 'b.pdf', expected: { id: 'receipt', type: 'receipt' }, output: ok },
    ],
    ...o,
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-eval26-'));
  dirs.push(dir);
  const s = stub;
  return {
    dir,
    cli: async (args) => {
      const r = await runCli(['--api-version', '2026-02-09', ...args], { cwd: dir, env: { EVALKIT_BASE_URL: s.url, EVALKIT_API_TOKEN: s.token } });
      expect(r.stdout + r.stderr).not.toContain(s.token);
      return r;
    },
  };
}

describe('evalkit eval run --api-version 2026-02-09 (built CLI)', () => {
  it('runs the evaluation set run, writes the export with the service member, and eval export <id> writes the same items', async () => {
    const { dir, cli } = await setup();
    const r = await cli(['eval', 'run', '-e', 'ev_stub1', '--version', '1.0', '--out', 'run.json', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ strategy: 'evaluation-set-run', batchRunId: 'bpr_stub1', serviceStatus: 'PROCESSED', counts: { items: 2, processed: 2, failed: 0, timedOut: 0 } });
    const exp = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as { items: unknown[]; service: Record<string, unknown>; processor: Record<string, unknown> };
    expect(exp.service).toMatchObject({ evaluationSetRunId: 'bpr_stub1', status: 'PROCESSED', metrics: { type: 'CLASSIFY', accuracy: 0.5, numFilesTotal: 2 } });
    expect(exp.processor).toMatchObject({ id: 'cl_stub1', type: 'CLASSIFY', version: '1.0' });

    const e = await cli(['eval', 'export', 'bpr_stub1', '--out', 'again.json']);
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toContain('evaluation set run bpr_stub1 PROCESSED');
    const again = JSON.parse(readFileSync(path.join(dir, 'again.json'), 'utf8')) as typeof exp;
    expect(again.items).toEqual(exp.items);
  });

  it('a run that ends FAILED: the export is written with service.status FAILED and the command exits 1', async () => {
    const { dir, cli } = await setup({ endStatus: 'FAILED' });
    const r = await cli(['eval', 'run', '-e', 'ev_stub1', '--out', 'failed.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('evaluation set run bpr_stub1 ended FAILED');
    const exp = JSON.parse(readFileSync(path.join(dir, 'failed.json'), 'utf8')) as { service: { status: string } };
    expect(exp.service.status).toBe('FAILED');
  });

  it('a run id of the wrong kind is exit 2 naming what was expected; nothing is written', async () => {
    const { dir, cli } = await setup();
    const r = await cli(['eval', 'export', 'exr_123', '--out', 'x.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('exr_123 is an extract run id, not an evaluation set run id (bpr_...)');
    expect(existsSync(path.join(dir, 'x.json'))).toBe(false);
    expect(stub!.requests).toEqual([]);
  });

  it('--strategy batch is refused on 2026-02-09 with the way out', async () => {
    const { cli } = await setup();
    const r = await cli(['eval', 'run', '-e', 'ev_stub1', '--strategy', 'batch']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--strategy batch is a 2025-04-21 strategy');
    expect(r.stderr).toContain('--api-version 2025-04-21');
  });
});

/**
 * `evalkit eval run --api-version 2026-02-09` against the real sandbox, through the built CLI:
 * the service's evaluation set run for EXTRACT, CLASSIFY and SPLITTER sets gives the same export
 * items as the 2025-04-21 batch path on the same set and version (the 2025-04-21 path is the
 * oracle), plus the service's run as answered; `eval export <bpr_ id>` gives them again.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/sandbox/engine/types.js';
import { useEvalSandbox } from '../helpers/eval-sandbox.js';
import { seedSet } from '../eval/helpers.js';
import { start } from '../sandbox/helpers.js';

type Json = Record<string, unknown>;
const ctx = useEvalSandbox({ items: 3, tmpPrefix: 'evalkit-e2e-eval26-' });
const { sets, cli } = ctx;

const read = (f: string): Json => JSON.parse(readFileSync(path.join(ctx.dir, f), 'utf8')) as Json;

/**
 * What must not differ between the two paths: everything but the run ids and timing, and for
 * splits, the files each run cut (new ids per run) and the expected splits' ids, which 2026-02-09
 * does not carry (spec 3.7: they come back as split_<n>).
 */
function comparable(items: unknown): Json[] {
  const splits = (o: unknown, drop: string): unknown =>
    o && typeof o === 'object' && Array.isArray((o as Json).splits) ? { ...(o as Json), splits: ((o as Json).splits as Json[]).map((x) => Object.fromEntries(Object.entries(x).filter(([k]) => k !== drop))) } : o;
  return (items as Json[]).map(({ runId: _r, durationMs: _d, ...rest }) => ({ ...rest, expectedOutput: splits(rest.expectedOutput, 'id'), output: splits(rest.output, 'fileId') }));
}

describe('eval run on 2026-02-09 against the sandbox (built CLI)', () => {
  for (const type of ['EXTRACT', 'CLASSIFY', 'SPLITTER'] as const) {
    it(`${type}: the same export items as the 2025-04-21 batch path, and the service's run recorded`, async () => {
      const s = sets[type];
      // The oracle: the 2025-04-21 batch path (pinned; --strategy batch exists on that version only).
      const old = await cli(['--api-version', '2025-04-21', 'eval', 'run', '-e', s.setId, '--version', '1.0', '--strategy', 'batch', '--out', `${type}-2025.json`, '--no-progress']);
      expect(old.code, old.stderr).toBe(0);
      const cur = await cli(['--api-version', '2026-02-09', 'eval', 'run', '-e', s.setId, '--version', '1.0', '--out', `${type}-2026.json`, '--format', 'json', '--no-progress']);
      expect(cur.code, cur.stderr).toBe(0);
      const summary = JSON.parse(cur.stdout) as Json;
      expect(summary).toMatchObject({ strategy: 'evaluation-set-run', serviceStatus: 'PROCESSED' });
      const a = read(`${type}-2025.json`);
      const b = read(`${type}-2026.json`);
      expect(comparable(b.items)).toEqual(comparable(a.items));
      expect((b.items as Json[]).every((i) => /^(exr|clr|splr)_/.test(String(i.runId)))).toBe(true);
      expect(b.processor).toMatchObject({ id: s.processorId, type, version: '1.0' });
      const service = b.service as Json;
      expect(service).toMatchObject({ evaluationSetRunId: summary.batchRunId, status: 'PROCESSED', entityVersion: { version: '1.0' } });
      expect(service.metrics).toMatchObject({ type, numFilesTotal: 3, numFilesProcessed: 3 });

      // The export is what `report` reads: it reconciles the service's figures with its own.
      const rep = await cli(['report', '--from', `${type}-2026.json`, '--out-dir', `${type}-report`]);
      expect(rep.code, rep.stderr).toBe(0);
      // Recomputed from the export's items by the service's definitions, the figures are the service's own: nothing lost or changed on the way.
      const rec = read(`${type}-report/report.json`).reconciliation as Json;
      expect(rec).toMatchObject({ evaluationSetRunId: summary.batchRunId, partial: false, findings: [] });

      const again = await cli(['--api-version', '2026-02-09', 'eval', 'export', String(summary.batchRunId), '--out', `${type}-again.json`]);
      expect(again.code, again.stderr).toBe(0);
      expect(read(`${type}-again.json`).items).toEqual(b.items);
      expect(read(`${type}-again.json`).service).toEqual(service);
    });
  }

  it('a run that ends FAILED (every item run failed): the export says so (service.status), the failed items are listed, exit 1', async () => {
    const failing: Engine = { spec: 'test', run: () => ({ ok: false, reason: 'ENGINE_DOWN', message: 'the test engine fails every file', label: { engine: 'test' } }) };
    const f = await start({ engine: failing });
    try {
      const s = await seedSet(f, 'CLASSIFY', 2);
      const r = await cli(['--api-version', '2026-02-09', 'eval', 'run', '-e', s.setId, '--version', 'draft', '--out', 'failed.json', '--no-progress'], { sandbox: f });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/evaluation set run bpr_\w+ ended FAILED/);
      expect(r.stdout).toContain('ENGINE_DOWN');
      const exp = read('failed.json');
      expect((exp.service as Json).status).toBe('FAILED');
      expect((exp.items as Json[]).map((i) => [i.status, i.failureReason])).toEqual([['FAILED', 'ENGINE_DOWN'], ['FAILED', 'ENGINE_DOWN']]);
      const rep = await cli(['report', '--from', 'failed.json', '--out-dir', 'failed-report'], { sandbox: f });
      expect(rep.code).toBe(2);
      expect(rep.stderr).toContain('--allow-partial');
    } finally {
      await f.close();
    }
  });

  it('an extract run id is exit 2 naming what eval export expects', async () => {
    const r = await cli(['--api-version', '2026-02-09', 'eval', 'export', 'exr_abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('exr_abc is an extract run id, not an evaluation set run id (bpr_...)');
  });
});

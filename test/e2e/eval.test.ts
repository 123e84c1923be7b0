import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { EvaluationExport } from '../../src/metrics/index.js';
import { parseExport } from '../../src/report/index.js';
import { BIN, runCli } from '../helpers/cli.js';
import { useEvalSandbox } from '../helpers/eval-sandbox.js';
import { CONFIGS, seedSet, type SeededSet } from '../eval/helpers.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';

type Json = Record<string, unknown>;
const ctx = useEvalSandbox({ items: 4, tmpPrefix: 'evalkit-e2e-eval-' });
const { sets, cli } = ctx;

function readExport(file: string): Promise<EvaluationExport> {
  return parseExport(readFileSync(file, 'utf8'), file);
}

describe('evalkit eval run -> evalkit report (built CLI, real sandbox)', () => {
  test.each(['EXTRACT', 'CLASSIFY', 'SPLITTER'] as const)('%s: export, then report files with no network', async (type) => {
    const file = path.join(ctx.dir, `${type}.json`);
    const r = await cli(['eval', 'run', '--evaluation-set', sets[type].setId, '--out', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`wrote ${file} (JSON, 4 items`);
    // The default API version (2026-02-09): the service's evaluation set run, and how it ended.
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(new RegExp(`^4 items: \\d processed, \\d failed · ${type} "${type.toLowerCase()} processor" version 1\\.0 · evaluation set run bpr_\\S+ PROCESSED · [\\d.]+ s$`));
    const exp = await readExport(file);
    expect(exp.processor).toMatchObject({ id: sets[type].processorId, type, version: '1.0' });
    expect(exp.items.map((i) => i.id)).toEqual(sets[type].itemIds);

    const out = path.join(ctx.dir, `${type}-report`);
    // No service at all for the report: a base URL nobody listens on.
    const rep = await runCli(['report', '--from', file, '--out-dir', out, '--bootstrap', '0'], { env: { EVALKIT_BASE_URL: 'http://127.0.0.1:9', EVALKIT_API_TOKEN: 'unused-token' } });
    expect(rep.code, rep.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['documents.jsonl', 'report.html', 'report.json', 'report.junit.xml', 'report.md']);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { type: string; summary: { documents: number } };
    expect(report.type).toBe(type);
    expect(report.summary.documents).toBe(4);
  });

  test('--quiet prints nothing when every run went through, in text and with --format json on stderr', async () => {
    const file = path.join(ctx.dir, 'quiet.json');
    const r = await cli(['eval', 'run', '-e', sets.CLASSIFY.setId, '--out', file, '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('');
    expect(existsSync(file)).toBe(true);
    const json = await cli(['eval', 'run', '-e', sets.CLASSIFY.setId, '--out', path.join(ctx.dir, 'quiet2.json'), '-q', '--format', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ counts: { items: 4 } });
    expect(json.stderr).toBe('');
  });

  // The default runs the service's evaluation set run, whose create request takes no options (spec 4.1): they are
  // recorded in the export, which report scores by; 2025-04-21's batch (pinned) carries them too.
  test.each([
    ['evaluation-set-run', []],
    ['batch', ['--api-version', '2025-04-21']],
  ])('--format json prints a sorted summary; options are recorded (%s)', async (strategy, pin) => {
    const file = path.join(ctx.dir, `opts-${strategy}.json`);
    const r = await cli([...pin, 'eval', 'run', '-e', sets.EXTRACT.setId, '--version', 'draft', '--out', file, '--fuzzy-match-fields', 'invoice_number,line_items[].description', '--exclude-fields', 'paid', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Json;
    expect(Object.keys(s)).toEqual([...Object.keys(s)].sort());
    expect(s).toMatchObject({ file, fileFormat: 'json', strategy, evaluationSetId: sets.EXTRACT.setId, counts: { items: 4 }, processor: { type: 'EXTRACT', version: 'draft' } });
    expect(s.options).toEqual({ fuzzyMatchFields: ['invoice_number', 'line_items[].description'], excludeFields: ['paid'] });
    expect((await readExport(file)).options).toEqual(s.options);
    if (strategy === 'batch') {
      const batch = await ctx.t.call<{ batchProcessorRun: Json }>('GET', `/batch_processor_runs/${String(s.batchRunId)}`);
      expect(batch.body.batchProcessorRun.options).toEqual(s.options);
    }
    expect(r.stderr).toMatch(/^4 items: /); // the tally, for people watching a JSON run
  });

  // The default (2026-02-09) makes the runs on the legacy /processor_runs it kept; 2025-04-21 (pinned) also sends --priority.
  test.each([
    ['2026-02-09', []],
    ['2025-04-21', ['--api-version', '2025-04-21', '--priority', '10']],
  ])('per-item strategy with a --config override (a saved processor envelope in the old layout), %s', async (version, extra) => {
    const cfg = path.join(ctx.dir, 'candidate.json');
    const old = { type: 'CLASSIFY', fields: CONFIGS.CLASSIFY.classifications, customClassificationRules: 'prefer receipts' };
    writeFileSync(cfg, JSON.stringify({ success: true, processor: { id: 'dp_x', name: 'x', type: 'CLASSIFY', draftVersion: { config: old } } }));
    const file = path.join(ctx.dir, `override-${version}.json`);
    const r = await cli([...extra.slice(0, 2), 'eval', 'run', '-e', sets.CLASSIFY.setId, '--config', cfg, '--out', file, '--concurrency', '2', ...extra.slice(2)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/note: --config: one processor run per item/);
    expect(r.stdout).toMatch(/· per-item runs ·/);
    const exp = await readExport(file);
    expect(exp.processor.config).toMatchObject({ type: 'CLASSIFY', classificationRules: 'prefer receipts', classifications: CONFIGS.CLASSIFY.classifications });
    for (const item of exp.items) {
      const run = (await ctx.t.call<{ processorRun: Json }>('GET', `/processor_runs/${String(item.runId)}`)).body.processorRun;
      expect(run).toMatchObject({ source: 'API', priority: extra.length ? 10 : 50, config: { classificationRules: 'prefer receipts' }, metadata: { evaluationSetItemId: item.id } });
    }
    const batchOnly = await cli(['--api-version', '2025-04-21', 'eval', 'run', '-e', sets.CLASSIFY.setId, '--config', cfg, '--strategy', 'batch', '--out', path.join(ctx.dir, 'never.json')]);
    expect(batchOnly.code).toBe(2);
    expect(batchOnly.stderr).toMatch(/--config cannot be used with --strategy batch/);
    expect(existsSync(path.join(ctx.dir, 'never.json'))).toBe(false);
  });

  test('version resolution: draft, latest, 1.0; an unknown version is exit 2 naming it', async () => {
    for (const [ref, label] of [['draft', 'draft'], ['latest', '1.0'], ['1.0', '1.0']]) {
      const file = path.join(ctx.dir, `v-${ref}.json`);
      const r = await cli(['eval', 'run', '-e', sets.SPLITTER.setId, '--version', ref, '--out', file]);
      expect(r.code, r.stderr).toBe(0);
      expect((await readExport(file)).processor.version).toBe(label);
    }
    const bad = await cli(['eval', 'run', '-e', sets.SPLITTER.setId, '--version', '2.0', '--out', path.join(ctx.dir, 'v-2.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/splitter dp_\S+ has no version "2\.0"\n {2}hint: available: 1\.0, draft/);
    expect(existsSync(path.join(ctx.dir, 'v-2.json'))).toBe(false);
  });

  test('an unknown set is exit 2 with a hint; missing flags are usage errors', async () => {
    const r = await cli(['eval', 'run', '-e', 'ev_doesnotexist']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/evaluation set "ev_doesnotexist" not found[\s\S]*hint: check --evaluation-set/);
    const none = await cli(['eval', 'run']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Missing required argument: evaluation-set/);
    const dur = await cli(['eval', 'run', '-e', 'ev_x', '--timeout', 'soon']);
    expect(dur.code).toBe(2);
    expect(dur.stderr).toMatch(/--timeout "soon" is not a duration/);
  });

  test('the default path is reports/<set>-<version>.json in the working folder', async () => {
    const cwd = mkdtempSync(path.join(ctx.dir, 'cwd-'));
    const r = await cli(['eval', 'run', '-e', sets.CLASSIFY.setId, '--version', 'draft'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const file = path.join('reports', `${sets.CLASSIFY.setId}-draft.json`);
    expect(r.stdout).toContain(`wrote ${file}`);
    expect((await readExport(path.join(cwd, file))).items).toHaveLength(4);
  });
});

describe('JSONL exports', () => {
  test('--jsonl writes a header line and one item per line, and report reads it', async () => {
    const file = path.join(ctx.dir, 'big.jsonl');
    const r = await cli(['eval', 'run', '-e', sets.EXTRACT.setId, '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('(JSON Lines, 4 items');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Json);
    expect(lines).toHaveLength(5);
    // service: the evaluation set run as the service answered it (the default API version, 2026-02-09).
    expect(Object.keys(lines[0]).sort()).toEqual(['format', 'options', 'processor', 'service', 'source']);
    const rep = await cli(['report', '--from', file, '--out-dir', path.join(ctx.dir, 'big-report'), '--formats', 'json', '--bootstrap', '0']);
    expect(rep.code, rep.stderr).toBe(0);
    const asJson = path.join(ctx.dir, 'big.json');
    writeFileSync(asJson, JSON.stringify(await readExport(file)));
    const rep2 = await cli(['report', '--from', asJson, '--out-dir', path.join(ctx.dir, 'big-report-2'), '--formats', 'json', '--bootstrap', '0']);
    expect(rep2.code, rep2.stderr).toBe(0);
    const a = JSON.parse(readFileSync(path.join(ctx.dir, 'big-report', 'report.json'), 'utf8')) as Json;
    const b = JSON.parse(readFileSync(path.join(ctx.dir, 'big-report-2', 'report.json'), 'utf8')) as Json;
    expect(a.extract).toEqual(b.extract);
  });

  test('--jsonl picks the default name; --jsonl with a .json --out is refused before any run', async () => {
    const cwd = mkdtempSync(path.join(ctx.dir, 'cwd-'));
    const r = await cli(['eval', 'run', '-e', sets.SPLITTER.setId, '--jsonl'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(cwd, 'reports', `${sets.SPLITTER.setId}-1.0.jsonl`))).toBe(true);
    const before = (await ctx.t.call<{ batchProcessorRuns: Json[] }>('GET', '/batch_processor_runs?maxPageSize=1000')).body.batchProcessorRuns.length;
    const bad = await cli(['eval', 'run', '-e', sets.SPLITTER.setId, '--jsonl', '--out', path.join(ctx.dir, 'x.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--jsonl writes JSON Lines, but --out .*x\.json is named \.json/);
    expect((await ctx.t.call<{ batchProcessorRuns: Json[] }>('GET', '/batch_processor_runs?maxPageSize=1000')).body.batchProcessorRuns.length).toBe(before);
  });
});

describe('evalkit eval export --batch-run', () => {
  test('writes the export of an existing batch; the same items as eval run wrote', async () => {
    const runFile = path.join(ctx.dir, 'for-export.json');
    const r = await cli(['eval', 'run', '-e', sets.CLASSIFY.setId, '--out', runFile, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const batchId = String((JSON.parse(r.stdout) as Json).batchRunId);
    const cwd = mkdtempSync(path.join(ctx.dir, 'cwd-'));
    const e = await cli(['eval', 'export', '--batch-run', batchId], { cwd });
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toContain(`wrote ${path.join('reports', `${batchId}.json`)}`);
    const a = await readExport(runFile);
    const b = await readExport(path.join(cwd, 'reports', `${batchId}.json`));
    expect(b.items).toEqual(a.items);
    expect(b.processor).toEqual(a.processor);
    expect(b.source?.batchProcessorRunId).toBe(batchId);
  });

  test('unknown batch: exit 2 with a hint; a running batch needs --wait', async () => {
    // On the default API version (2026-02-09) the run is an evaluation set run.
    const r = await cli(['eval', 'export', '--batch-run', 'bpr_missing']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/evaluation set run "bpr_missing" not found[\s\S]*hint: check the evaluation set run id/);
    ctx.t.sb.pauseEngine();
    try {
      const b = await ctx.t.call<{ id: string }>('POST', '/evaluation_set_runs', { version: '2026-02-09', body: { evaluationSetId: sets.EXTRACT.setId } });
      const id = String(b.body.id);
      const running = await cli(['eval', 'export', '-b', id, '--out', path.join(ctx.dir, 'running.json')]);
      expect(running.code).toBe(2);
      expect(running.stderr).toMatch(new RegExp(`evaluation set run ${id} is still (PENDING|PROCESSING)[\\s\\S]*add --wait`));
      const waiting = cli(['eval', 'export', '-b', id, '--wait', '--out', path.join(ctx.dir, 'waited.json')]);
      setTimeout(() => ctx.t.sb.resumeEngine(), 300);
      const w = await waiting;
      expect(w.code, w.stderr).toBe(0);
      expect((await readExport(path.join(ctx.dir, 'waited.json'))).items).toHaveLength(4);
    } finally {
      ctx.t.sb.resumeEngine();
    }
  });
});

describe('failed runs, timeouts and Ctrl-C', () => {
  let f: TestSandbox;
  let s: SeededSet;
  beforeAll(async () => {
    // Ids seeded: the engine draws each run's failure by item id (with random ids, now and then none of the 10 failed).
    f = await start({ engine: 'simulate:5,0.1,0.4', engineDelayMs: 1, idSeed: 'failed-runs' });
    s = await seedSet(f, 'EXTRACT', 10);
  });
  afterAll(() => f.close());

  // auto on the default API version is the service's evaluation set run, per-item its legacy processor runs; batch is 2025-04-21's (pinned).
  test.each([
    ['auto', []],
    ['batch', ['--api-version', '2025-04-21']],
    ['per-item', []],
  ])('%s: failed runs are in the export with output null and listed on stdout (exit 0)', async (strategy, pin) => {
    const file = path.join(ctx.dir, `failed-${strategy}.json`);
    const r = await cli([...pin, 'eval', 'run', '-e', s.setId, '--strategy', strategy, '--out', file], { sandbox: f });
    expect(r.code, r.stderr).toBe(0);
    const exp = await readExport(file);
    const failed = exp.items.filter((i) => i.status === 'FAILED');
    expect(failed.length).toBeGreaterThan(0);
    for (const i of failed) {
      expect(i).toMatchObject({ output: null, failureReason: 'SIMULATED_FAILURE' });
      expect(r.stdout).toContain(`failed ${i.id} (${String(i.fileName)}): FAILED SIMULATED_FAILURE`);
    }
    expect(r.stdout).toMatch(new RegExp(`10 items: ${10 - failed.length} processed, ${failed.length} failed`));
    const rep = await runCli(['report', '--from', file, '--out-dir', path.join(ctx.dir, `failed-${strategy}-report`), '--formats', 'json', '--bootstrap', '0']);
    expect(rep.code, rep.stderr).toBe(0);
    expect(rep.stdout).toContain(`${failed.length} failed run(s)`);
  });

  test('per-item --timeout: unfinished runs are exported as TIMEOUT, exit 1', async () => {
    f.sb.pauseEngine();
    try {
      const file = path.join(ctx.dir, 'timeout.json');
      // On the default (2026-02-09) too: per-item runs are the legacy processor runs (its evaluation set run's timeout writes nothing: run-2026.test.ts).
      const r = await cli(['eval', 'run', '-e', s.setId, '--strategy', 'per-item', '--timeout', '1s', '--out', file], { sandbox: f });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/10 of 10 items had not finished when --timeout passed/);
      const exp = await readExport(file);
      expect(exp.items.every((i) => i.failureReason === 'TIMEOUT' && i.output === null)).toBe(true);
    } finally {
      f.sb.resumeEngine();
      await f.sb.idle();
    }
  });

  test('Ctrl-C while a batch runs: exit 130, nothing written, the hint names the batch', async () => {
    f.sb.pauseEngine();
    const file = path.join(ctx.dir, 'interrupted.json');
    try {
      const before = new Set((await f.call<{ batchProcessorRuns: Json[] }>('GET', '/batch_processor_runs?maxPageSize=1000')).body.batchProcessorRuns.map((b) => b.id));
      const child = spawn(process.execPath, [BIN, 'eval', 'run', '-e', s.setId, '--out', file], { env: { ...process.env, EVALKIT_BASE_URL: f.url, EVALKIT_API_TOKEN: f.token }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
      let batchId: string | undefined;
      while (!batchId) {
        const list = (await f.call<{ batchProcessorRuns: Json[] }>('GET', '/batch_processor_runs?maxPageSize=1000')).body.batchProcessorRuns;
        batchId = list.map((b) => String(b.id)).find((id) => !before.has(id));
        if (!batchId) await new Promise((r) => setTimeout(r, 20));
      }
      child.kill('SIGINT');
      expect(await exit).toBe(130);
      // The default API version: the service's evaluation set run goes on.
      expect(stderr).toContain(`interrupted; evaluation set run ${batchId} keeps running on the service; nothing was written`);
      expect(stderr).toContain(`evalkit eval export ${batchId} --wait`);
      expect(stderr).not.toContain(f.token);
      expect(existsSync(file)).toBe(false);
    } finally {
      f.sb.resumeEngine();
      await f.sb.idle();
    }
  });
});

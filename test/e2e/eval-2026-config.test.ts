/**
 * `eval run --config FILE` and `--strategy per-item` on the default API version (2026-02-09),
 * through the built CLI against the real sandbox: one legacy processor run per item (the
 * `/processor_runs` 2026-02-09 kept) carrying the override, and a report whose figures equal those
 * of the same evaluation on 2025-04-21 (expected outputs read in the 2026-02-09 form are compared
 * in the 2025-04-21 form the runs answer in).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { CONFIGS, seedSet, type SeededSet } from '../eval/helpers.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';

type Json = Record<string, unknown>;
let t: TestSandbox;
let dir: string;
const sets = {} as Record<'CLASSIFY' | 'SPLITTER', SeededSet>;
const seen: CliResult[] = [];

beforeAll(async () => {
  t = await start({ engineDelayMs: 1 });
  for (const type of ['CLASSIFY', 'SPLITTER'] as const) sets[type] = await seedSet(t, type, 4, { publish: true });
  dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-e2e-eval26cfg-'));
});
afterAll(async () => {
  for (const r of seen) expect(r.stdout + r.stderr).not.toContain(t.token);
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

async function cli(args: string[]): Promise<CliResult> {
  const r = await runCli(args, { cwd: dir, env: { EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token } });
  seen.push(r);
  return r;
}

const readJson = (f: string): Json => JSON.parse(readFileSync(f, 'utf8')) as Json;

/** The report's figures, without what names the export file or the run's time. */
async function figures(exportFile: string): Promise<Json> {
  const out = `${exportFile}-report`;
  const rep = await runCli(['report', '--from', exportFile, '--out-dir', out, '--formats', 'json', '--bootstrap', '0']);
  expect(rep.code, rep.stderr).toBe(0);
  const r = readJson(path.join(out, 'report.json'));
  return { summary: r.summary, metrics: r.metrics, fields: r.fields, classes: r.classes, splits: r.splits, documents: r.documents };
}

const RULES = { CLASSIFY: { classificationRules: 'PR rule: prefer receipts' }, SPLITTER: { splitRules: 'PR rule: split at each invoice' } } as const;

describe('eval run --config on the default API version (2026-02-09)', () => {
  test.each(['CLASSIFY', 'SPLITTER'] as const)('%s: one legacy processor run per item with the override; the report equals 2025-04-21\'s', async (type) => {
    const cfg = path.join(dir, `${type}-candidate.json`);
    writeFileSync(cfg, JSON.stringify({ ...CONFIGS[type], ...RULES[type] }));
    const cur = path.join(dir, `${type}-2026.json`);
    const r = await cli(['eval', 'run', '-e', sets[type].setId, '--config', cfg, '--out', cur, '--concurrency', '2', '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/note: --config: one processor run per item, each with the override \(the evaluation set run takes no config\)/);
    expect(r.stdout).toMatch(/· per-item runs ·/);
    // What ran is the file, not version 1.0.
    expect(r.stdout).toContain(`${type} "${type.toLowerCase()} processor" config ${cfg} (over version 1.0) · per-item runs`);
    expect(r.stdout).not.toMatch(/ version 1\.0 · per-item/);
    const exp = readJson(cur) as { processor: Json; items: Array<{ id: string; runId: string; status: string }> };
    expect(exp.processor).toMatchObject({ id: sets[type].processorId, type, version: '1.0', config: { type, ...RULES[type] } });
    expect(exp.items.map((i) => i.id)).toEqual(sets[type].itemIds);
    for (const item of exp.items) {
      expect(item.status).toBe('PROCESSED');
      const run = (await t.call<{ processorRun: Json }>('GET', `/processor_runs/${item.runId}`)).body.processorRun;
      expect(run).toMatchObject({ processorId: sets[type].processorId, config: RULES[type], metadata: { evaluationSetItemId: item.id } });
    }
    // The oracle: the same evaluation on 2025-04-21.
    const old = path.join(dir, `${type}-2025.json`);
    const o = await cli(['--api-version', '2025-04-21', 'eval', 'run', '-e', sets[type].setId, '--config', cfg, '--out', old, '--no-progress', '--format', 'json']);
    expect(o.code, o.stderr).toBe(0);
    expect((JSON.parse(o.stdout) as { processor: Json }).processor).toMatchObject({ version: '1.0', configFile: cfg });
    const [a, b] = [await figures(cur), await figures(old)];
    expect((a.summary as Json).documents).toBe(4);
    expect(a).toEqual(b);
  });

  test('--strategy per-item without a config: one processor run per item of the version asked, same report as 2025-04-21', async () => {
    const cur = path.join(dir, 'per-item-2026.json');
    // --priority goes with each run on the legacy /processor_runs (an evaluation set run takes none).
    const r = await cli(['eval', 'run', '-e', sets.SPLITTER.setId, '--strategy', 'per-item', '--priority', '5', '--version', 'draft', '--out', cur, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/version draft · per-item runs ·/);
    const exp = readJson(cur) as { processor: Json; items: Array<{ runId: string }> };
    expect(exp.processor).toMatchObject({ version: 'draft', config: { splitRules: 'draft rules' } });
    for (const item of exp.items) {
      const run = (await t.call<{ processorRun: Json }>('GET', `/processor_runs/${item.runId}`)).body.processorRun;
      expect(run).toMatchObject({ processorId: sets.SPLITTER.processorId, processorVersion: 'draft' });
      expect(run.config).toMatchObject({ splitRules: 'draft rules' });
    }
    const old = path.join(dir, 'per-item-2025.json');
    const o = await cli(['--api-version', '2025-04-21', 'eval', 'run', '-e', sets.SPLITTER.setId, '--strategy', 'per-item', '--version', 'draft', '--out', old, '--no-progress']);
    expect(o.code, o.stderr).toBe(0);
    expect(await figures(cur)).toEqual(await figures(old));
  });

  test('a key no config layout has is exit 2 before any request (file, pointer, did you mean), on both API versions; --allow-unknown sends it', async () => {
    const runs = async () => (await t.call<{ processorRuns: Json[] }>('GET', '/processor_runs?maxPageSize=1000')).body.processorRuns.length;
    const before = await runs();
    const out = path.join(dir, 'never-unknown.json');
    const typo = path.join(dir, 'typo.json');
    writeFileSync(typo, JSON.stringify({ ...CONFIGS.CLASSIFY, clasificationRules: 'PR rule' }));
    const message = `${typo} at /clasificationRules: unknown key "clasificationRules" in a CLASSIFY config (no config layout has it)\n  hint: did you mean classificationRules? (--allow-unknown keeps it as it is: for a key of a service version newer than evalkit)`;
    for (const version of ['2026-02-09', '2025-04-21']) {
      const r = await cli(['--api-version', version, 'eval', 'run', '-e', sets.CLASSIFY.setId, '--config', typo, '--out', out, '--no-progress']);
      expect(r.code, version).toBe(2);
      expect(r.stderr, version).toContain(message);
    }
    // Before any request: a service that cannot be reached gives the same refusal.
    const offline = await runCli(['eval', 'run', '-e', sets.CLASSIFY.setId, '--config', typo, '--out', out], { cwd: dir, env: { EVALKIT_BASE_URL: 'http://127.0.0.1:9', EVALKIT_API_TOKEN: t.token } });
    expect(offline.code).toBe(2);
    expect(offline.stderr).toContain(message);
    // Inside a class of a 2026-02-09 config (no type), and in an envelope: the pointer in the file.
    const item = path.join(dir, 'typo-item.json');
    writeFileSync(item, JSON.stringify({ object: 'classifier_version', config: { classifications: [{ id: 'invoice', type: 'invoice', descripton: 'An invoice' }] } }));
    const i = await cli(['eval', 'run', '-e', sets.CLASSIFY.setId, '--config', item, '--out', out]);
    expect(i.code).toBe(2);
    expect(i.stderr).toContain(`${item} at /config/classifications/0/descripton: unknown key "descripton" in a CLASSIFY config (no config layout has it)\n  hint: did you mean description?`);
    // A file that does not settle its type (fields: EXTRACT or CLASSIFY) is checked with the processor's, before any run.
    const untyped = path.join(dir, 'typo-untyped.json');
    writeFileSync(untyped, JSON.stringify({ fields: [{ id: 'invoice', type: 'invoice', description: 'An invoice', exmaples: 1 }] }));
    const u = await cli(['eval', 'run', '-e', sets.CLASSIFY.setId, '--config', untyped, '--out', out]);
    expect(u.code).toBe(2);
    expect(u.stderr).toContain(`${untyped} at /fields/0/exmaples: unknown key "exmaples" in a CLASSIFY config (no config layout has it)`);
    expect(existsSync(out)).toBe(false);
    expect(await runs()).toBe(before);

    const help = await cli(['eval', 'run', '--help']);
    expect(help.stdout).toContain('--allow-unknown');
    expect(help.stdout.replace(/\s+/g, ' ')).toContain("send config keys that no config layout has (a newer service version's) as they are, instead of refusing the file");
    // A key of a newer service version, kept: each run carries it.
    const newer = path.join(dir, 'newer.json');
    writeFileSync(newer, JSON.stringify({ ...CONFIGS.CLASSIFY, x_future: true }));
    const ok = await cli(['eval', 'run', '-e', sets.CLASSIFY.setId, '--config', newer, '--allow-unknown', '--out', out, '--no-progress']);
    expect(ok.code, ok.stderr).toBe(0);
    const exp = readJson(out) as { items: Array<{ runId: string }> };
    expect(exp.items).toHaveLength(4);
    for (const it of exp.items) {
      const run = (await t.call<{ processorRun: Json }>('GET', `/processor_runs/${it.runId}`)).body.processorRun;
      expect(run.config).toMatchObject({ x_future: true });
    }
  });

  test('a config of the wrong type is exit 2 naming the file and /type before any run; --strategy batch stays 2025-04-21\'s', async () => {
    const cfg = path.join(dir, 'wrong.json');
    writeFileSync(cfg, JSON.stringify(CONFIGS.SPLITTER));
    const before = (await t.call<{ processorRuns: Json[] }>('GET', '/processor_runs?maxPageSize=1000')).body.processorRuns.length;
    const out = path.join(dir, 'never.json');
    const r = await cli(['eval', 'run', '-e', sets.CLASSIFY.setId, '--config', cfg, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(cfg);
    expect(r.stderr).toMatch(/\/type/);
    const b = await cli(['eval', 'run', '-e', sets.CLASSIFY.setId, '--strategy', 'batch', '--out', out]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/--strategy batch is a 2025-04-21 strategy/);
    expect(existsSync(out)).toBe(false);
    expect((await t.call<{ processorRuns: Json[] }>('GET', '/processor_runs?maxPageSize=1000')).body.processorRuns.length).toBe(before);
  });
});

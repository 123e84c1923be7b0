// Issue 36: a request that is not idempotent is never sent again blindly. A proxy on 127.0.0.1
// lets the sandbox do the work and drops the answer; a kill -9 lands after each request in turn;
// a re-run then ends with exactly the intended objects, counted through the API.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../src/api/index.js';
import { BIN, cleanupAfterEach, runCli, type CliResult } from '../helpers/cli.js';
import { dropAnswers, lossyProxy, type DropRule, type ForwardedRequest, type LossyProxy } from '../helpers/lossy-proxy.js';
import { seedSet, V2025 } from '../eval/helpers.js';
import { createProcessor, INVOICE_CONFIG, start, uploadText, type TestSandbox } from '../sandbox/helpers.js';
import { SIMPLE } from './dataset-helpers.js';

const { track, tmp } = cleanupAfterEach('lost');
/** Tests that run the CLI many times (a kill loop: twice per point) on a shared 2-core machine. */
const KILL_LOOP_MS = 300_000;
let t: TestSandbox | undefined;
let proxy: LossyProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await t?.close();
  proxy = undefined;
  t = undefined;
});

async function setup(drop: DropRule = () => false) {
  t = await start();
  proxy = await lossyProxy(t.url, drop);
  const client = createClient({ baseUrl: t.url, token: t.token });
  /** For the tests pinned to 2025-04-21 (per-item runs): the client that reads what they made. */
  const client25 = createClient({ baseUrl: t.url, token: t.token, apiVersion: V2025 });
  const direct = { EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token };
  const lossy = { ...direct, EVALKIT_BASE_URL: proxy.url };
  return { t, proxy, client, client25, direct, lossy };
}

/** The CLI and the client speak the default API version (2026-02-09): extractors, at POST /extractors and POST /extractors/{id}/versions. */
async function processorsNamed(client: Client, name: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const p of client.entities('EXTRACT').listAll()) if (p.name === name) ids.push(p.id);
  return ids;
}

async function published(client: Client, id: string): Promise<string[]> {
  return (await client.entities('EXTRACT').listVersions(id)).items.map((v) => v.version).filter((v) => v !== 'draft').sort();
}

function configFile(dir: string, config: unknown = INVOICE_CONFIG): string {
  const f = path.join(dir, 'config.json');
  writeFileSync(f, JSON.stringify(config));
  return f;
}

/**
 * Runs the CLI through a proxy that holds the answer of its k-th request (after the service did
 * the work) and kills it there with SIGKILL. Returns false when the run ended before making a
 * k-th request (every point has been tried).
 */
async function killAtRequest(target: string, k: number, env: Record<string, string>, args: string[], cwd: string): Promise<ForwardedRequest[] | false> {
  let i = 0;
  const p = await lossyProxy(target, () => (i++ === k ? 'hold' : false));
  try {
    const child = track(spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env, EVALKIT_BASE_URL: p.url }, stdio: 'ignore' }));
    const exited = new Promise<'exited'>((r) => child.on('exit', () => r('exited')));
    const what = await Promise.race([p.held.then(() => 'held' as const), exited]);
    if (what === 'exited') return false;
    child.kill('SIGKILL');
    await exited;
    return [...p.forwarded];
  } finally {
    await p.close();
  }
}

const ok = (r: CliResult): CliResult => {
  if (r.code !== 0) throw new Error(`exit ${r.code}:\n${r.stdout}\n${r.stderr}`);
  return r;
};

describe('processors create', () => {
  it('10 creates whose every other answer is lost make 10 processors, not 15', async () => {
    const { client, lossy, proxy } = await setup(dropAnswers('POST', /^\/extractors$/, (n) => n % 2 === 0));
    const dir = tmp();
    const file = configFile(dir);
    for (let i = 0; i < 10; i++) {
      const r = ok(await runCli(['processors', 'create', '--name', `inv-${i}`, '--type', 'EXTRACT', '--config', file], { env: lossy, cwd: dir }));
      expect(r.stdout).toMatch(i % 2 === 0 ? /created \(its answer was lost; found in the extractor list\)/ : /^extractor ex_\w+ "inv-\d" \(EXTRACT\) created; config from/);
    }
    expect(proxy.dropped).toHaveLength(5);
    let all = 0;
    for await (const _ of client.entities('EXTRACT').listAll()) all++;
    expect(all).toBe(10);
    for (let i = 0; i < 10; i++) expect(await processorsNamed(client, `inv-${i}`)).toHaveLength(1);
  }, KILL_LOOP_MS);

  it('a re-run with the same name, type and config creates nothing; another config is refused, naming the processor', async () => {
    const { client, direct } = await setup();
    const dir = tmp();
    const file = configFile(dir);
    const first = ok(await runCli(['processors', 'create', '--name', 'same', '--type', 'EXTRACT', '--config', file, '--format', 'json'], { env: direct, cwd: dir }));
    const id = (JSON.parse(first.stdout) as { processor: { id: string } }).processor.id;
    const again = ok(await runCli(['processors', 'create', '--name', 'same', '--type', 'EXTRACT', '--config', file], { env: direct, cwd: dir }));
    expect(again.stdout).toBe(`extractor ${id} "same" (EXTRACT) exists already with this config; nothing created\n`);
    const other = path.join(dir, 'other.json');
    writeFileSync(other, JSON.stringify({ ...INVOICE_CONFIG, extractionRules: 'Dates as ISO 8601.' }));
    const refused = await runCli(['processors', 'create', '--name', 'same', '--type', 'EXTRACT', '--config', other], { env: direct, cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`an EXTRACT extractor named "same" exists already (${id}), with another draft config`);
    expect(refused.stderr).toContain(`evalkit processors update ${id} --config FILE`);
    expect(await processorsNamed(client, 'same')).toEqual([id]);
  });

  it('killed -9 after each request in turn, then run again: exactly one processor', async () => {
    const { t, client, direct } = await setup();
    const dir = tmp();
    const file = configFile(dir);
    let points = 0;
    for (let k = 0; ; k++) {
      const name = `killed-${k}`;
      const args = ['processors', 'create', '--name', name, '--type', 'EXTRACT', '--config', file];
      const killed = await killAtRequest(t.url, k, direct, args, dir);
      ok(await runCli(args, { env: direct, cwd: dir }));
      expect(await processorsNamed(client, name)).toHaveLength(1);
      if (!killed) break;
      points++;
    }
    // The processor list, then the create.
    expect(points).toBeGreaterThanOrEqual(2);
  }, KILL_LOOP_MS);
});

describe('processors publish', () => {
  it('a publish whose every answer is lost publishes 1.0 only, not 1.0 to 4.0', async () => {
    const { client, lossy, direct, proxy } = await setup(dropAnswers('POST', /^\/extractors\/[^/]+\/versions$/));
    const dir = tmp();
    const created = JSON.parse(ok(await runCli(['processors', 'create', '--name', 'pub', '--type', 'EXTRACT', '--config', configFile(dir), '--format', 'json'], { env: direct, cwd: dir })).stdout) as { processor: { id: string } };
    const id = created.processor.id;
    const r = ok(await runCli(['processors', 'publish', id, '--release', 'major'], { env: lossy, cwd: dir }));
    expect(r.stdout).toMatch(new RegExp(`^extractor ${id}: published 1\\.0 \\(exv_\\w+\\) \\(its answer was lost; found in the version list\\)\\n$`));
    expect(proxy.dropped).toHaveLength(1);
    expect(await published(client, id)).toEqual(['1.0']);
    // Run again (the answer lost again): the draft is 1.0's config, so nothing more is published.
    const again = ok(await runCli(['processors', 'publish', id, '--release', 'major', '--format', 'json'], { env: lossy, cwd: dir }));
    expect(JSON.parse(again.stdout)).toMatchObject({ published: false, version: { version: '1.0' } });
    expect(await published(client, id)).toEqual(['1.0']);
  });

  it("the sandbox's own drop fault (every publish answer lost after the work) gives the same: one version", async () => {
    t = await start({ faults: ['drop=1,route=POST /extractors/*/versions'] });
    const client = createClient({ baseUrl: t.url, token: t.token });
    const env = { EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token };
    const dir = tmp();
    const id = (JSON.parse(ok(await runCli(['processors', 'create', '--name', 'dropped', '--type', 'EXTRACT', '--config', configFile(dir), '--format', 'json'], { env, cwd: dir })).stdout) as { processor: { id: string } }).processor.id;
    const r = ok(await runCli(['processors', 'publish', id, '--release', 'minor', '--format', 'json'], { env, cwd: dir }));
    expect(JSON.parse(r.stdout)).toMatchObject({ published: true, answerLost: true, version: { version: '0.1' } });
    expect(await published(client, id)).toEqual(['0.1']);
  });

  it('killed -9 after each request in turn, then run again: exactly one new version', async () => {
    const { t, client, direct } = await setup();
    const dir = tmp();
    const file = configFile(dir);
    let points = 0;
    for (let k = 0; ; k++) {
      const created = JSON.parse(ok(await runCli(['processors', 'create', '--name', `pub-${k}`, '--type', 'EXTRACT', '--config', file, '--format', 'json'], { env: direct, cwd: dir })).stdout) as { processor: { id: string } };
      const args = ['processors', 'publish', created.processor.id, '--release', 'major'];
      const killed = await killAtRequest(t.url, k, direct, args, dir);
      ok(await runCli(args, { env: direct, cwd: dir }));
      expect(await published(client, created.processor.id)).toEqual(['1.0']);
      if (!killed) break;
      points++;
    }
    expect(points).toBeGreaterThanOrEqual(2);
  }, KILL_LOOP_MS);
});

async function batchRuns(client: Client, setId: string): Promise<string[]> {
  const out: string[] = [];
  for await (const b of client.paginate((tk) => client.batchProcessorRuns.list({ sourceId: setId, nextPageToken: tk }))) out.push(b.id);
  return out;
}

/** The processor's runs that evalkit's per-item strategy made, as evalkitRunKey -> item ids. */
async function perItemRuns(client: Client, processorId: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for await (const r of client.processorRuns.listAll({ processorId, source: 'API' })) {
    const key = String(r.metadata?.evalkitRunKey);
    out.set(key, [...(out.get(key) ?? []), String(r.metadata?.evaluationSetItemId)]);
  }
  return out;
}

function exported(file: string): string[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as { items: Array<{ id?: string; evaluationSetItemId?: string }> }).items.map((i) => String(i.evaluationSetItemId ?? i.id)).sort();
}

describe('eval run', () => {
  // The default (2026-02-09) starts the service's evaluation set run; 2025-04-21's batch (pinned) its batch processor run.
  it.each([
    ['the evaluation set run', /^\/evaluation_set_runs$/, []],
    ['the 2025-04-21 batch', /^\/batch_processor_runs$/, ['--api-version', V2025, '--strategy', 'batch']],
  ])('%s: an evaluation run whose every start answer is lost is started once, and evaluated', async (_name, route, pin) => {
    const { t, client, lossy, proxy } = await setup(dropAnswers('POST', route));
    const set = await seedSet(t, 'EXTRACT', 3, { publish: true });
    const dir = tmp();
    const out = path.join(dir, 'out.json');
    const r = ok(await runCli([...pin.slice(0, 2), 'eval', 'run', '-e', set.setId, '--version', '1.0', ...pin.slice(2), '--out', out, '-q'], { env: lossy, cwd: dir }));
    void r;
    expect(proxy.dropped).toHaveLength(1);
    expect(await batchRuns(client, set.setId)).toHaveLength(1);
    expect(exported(out)).toHaveLength(3);
  });

  it('per item: runs whose create answers are lost are found again, one run per item', async () => {
    const { t, client25, lossy, proxy } = await setup(dropAnswers('POST', /^\/processor_runs$/, (n) => n % 2 === 0));
    const set = await seedSet(t, 'EXTRACT', 4, { publish: true });
    const dir = tmp();
    const out = path.join(dir, 'out.json');
    // The default (2026-02-09): per-item runs are made on the legacy /processor_runs it kept, read back the same way.
    ok(await runCli(['eval', 'run', '-e', set.setId, '--version', '1.0', '--strategy', 'per-item', '--concurrency', '2', '--out', out, '-q'], { env: lossy, cwd: dir }));
    expect(proxy.dropped.length).toBeGreaterThanOrEqual(2);
    const runs = await perItemRuns(client25, set.processorId);
    expect(runs.size).toBe(1);
    expect([...runs.values()][0].sort()).toEqual([...set.itemIds].sort());
    expect(exported(out)).toHaveLength(4);
  });

  // auto: the default's evaluation set run (2026-02-09); per-item pinned to 2025-04-21 here (its lost answers on the default: above). One kill loop each (CI time).
  it.each([['auto'], ['per-item']])('%s: killed -9 after each request in turn, then run again: the killed run made at most one run (per item), the re-run exactly one', async (strategy) => {
    const { t, client, client25, direct } = await setup();
    const set = await seedSet(t, 'EXTRACT', 2, { publish: true });
    const dir = tmp();
    const out = path.join(dir, 'out.json');
    const pin = strategy === 'per-item' ? ['--api-version', V2025] : [];
    const args = [...pin, 'eval', 'run', '-e', set.setId, '--version', '1.0', '--strategy', strategy, ...(strategy === 'per-item' ? ['--concurrency', '1'] : []), '--out', out, '-q'];
    // Evaluation runs started by the killed runs (and by the last, which ended before its k-th request).
    let starts = 0;
    for (let k = 0; k < 12; k++) {
      const killed = await killAtRequest(t.url, k, direct, args, dir);
      if (killed === false) {
        starts++;
        break;
      }
      starts += killed.some((f) => f.method === 'POST' && f.url.startsWith('/evaluation_set_runs')) ? 1 : 0;
    }
    ok(await runCli(args, { env: direct, cwd: dir }));
    expect(exported(out)).toHaveLength(2);
    if (strategy === 'auto') {
      expect(starts).toBeGreaterThan(0);
      expect(await batchRuns(client, set.setId)).toHaveLength(starts + 1);
    } else {
      const runs = await perItemRuns(client25, set.processorId);
      // Every evaluation (the killed ones and the re-run) made at most one run per item...
      for (const items of runs.values()) expect(new Set(items).size).toBe(items.length);
      // ...and the re-run one for each.
      expect([...runs.values()].filter((items) => items.length === 2).length).toBeGreaterThanOrEqual(1);
    }
  }, KILL_LOOP_MS);
});

/** A processor with `n` processed runs on files, each reviewed. */
async function reviewedRuns(t: TestSandbox, client: Client, n: number): Promise<string> {
  const processor = await createProcessor(t, 'EXTRACT', SIMPLE, 'harvested');
  for (let i = 0; i < n; i++) {
    const fileId = await uploadText(t, `r-${i}.txt`, `INVOICE R-${i}\nTotal: EUR ${i}.00\n`);
    const run = await client.processorRuns.create({ processorId: processor, file: { fileId } });
    await t.sb.idle();
    const r = await t.call('POST', `/processor_runs/${run.id}/review`, { body: { reviewedBy: 'user_alice', edits: { invoice_number: { editedValue: `R-${i}` } } } });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  }
  return processor;
}

/** The sets of the processor named `name`, each with its items' file ids. */
async function setsNamed(client: Client, processorId: string, name: string): Promise<string[][]> {
  const out: string[][] = [];
  for await (const set of client.sets.listAll({ entityId: processorId })) {
    if (set.name !== name) continue;
    const files: string[] = [];
    for await (const it of client.items(set.id).listAll()) files.push(it.fileId);
    out.push(files.sort());
  }
  return out;
}

describe('dataset harvest', () => {
  const N = 3;

  it('the answers of the set create and of the item create lost: one set, each reviewed run once', async () => {
    // The default API version's routes (2026-02-09): POST /evaluation_sets, POST /evaluation_sets/{id}/items.
    const { t, client, lossy, proxy } = await setup(dropAnswers('POST', /^\/evaluation_sets(\/[^/]+\/items)?$/, (n) => n === 0));
    const processor = await reviewedRuns(t, client, N);
    const dir = tmp();
    ok(await runCli(['dataset', 'harvest', '-p', processor, '--reviewed', '--create-set', 'corrections', '--format', 'json'], { env: lossy, cwd: dir }));
    expect(proxy.dropped.map((d) => d.url)).toEqual(['/evaluation_sets', expect.stringMatching(/^\/evaluation_sets\/ev_\w+\/items$/)]);
    const sets = await setsNamed(client, processor, 'corrections');
    expect(sets).toHaveLength(1);
    expect(sets[0]).toHaveLength(N);
    expect(new Set(sets[0]).size).toBe(N);
  });

  it('killed -9 after each request in turn, then run again: one set, each reviewed run once', async () => {
    const { t, client, direct } = await setup();
    const processor = await reviewedRuns(t, client, N);
    const dir = tmp();
    const args = ['dataset', 'harvest', '-p', processor, '--reviewed', '--create-set', 'corrections', '--concurrency', '1', '--format', 'json'];
    let points = 0;
    for (let k = 0; k < 24; k++) {
      if ((await killAtRequest(t.url, k, direct, args, dir)) === false) break;
      points++;
      ok(await runCli(args, { env: direct, cwd: dir }));
      const sets = await setsNamed(client, processor, 'corrections');
      expect(sets, `killed at request ${k}`).toHaveLength(1);
      expect(sets[0], `killed at request ${k}`).toHaveLength(N);
      expect(new Set(sets[0]).size).toBe(N);
    }
    expect(points).toBeGreaterThan(N);
  }, KILL_LOOP_MS);
});

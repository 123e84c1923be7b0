// The cases of test/e2e/processors-2026*.test.ts: `evalkit processors ... --api-version 2026-02-09`
// through the built binary, each case against two backends (a test file each, run in parallel): the REAL sandbox, and a stub that answers the extractor/classifier/splitter routes in
// the spec's section-7 shapes. The stub stays for what a sandbox cannot show: an answer lost after
// the work, and every header each request carried; the sandbox for what a stub cannot: one object
// on two API versions, the service's own refusals. What a user relies on: the 2024-11-14 configs in
// datasets/configs push to extractors, classifiers and splitters; the service's errors reach the
// user with their code and request id. The 2025-04-21 path is test/e2e/processors.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, type CliResult } from './cli.js';
import { startStub2026, type Stub2026 } from './stub-2026.js';
import { start } from '../sandbox/helpers.js';

const CONFIGS = path.join(ROOT, 'datasets/configs');
const KINDS = [
  { type: 'EXTRACT', kind: 'extractor', route: '/extractors', prefix: 'ex', file: 'invoice-extract.json', rules: 'extractionRules', changes: 4 },
  { type: 'CLASSIFY', kind: 'classifier', route: '/classifiers', prefix: 'cl', file: 'document-classify.json', rules: 'classificationRules', changes: 3 },
  { type: 'SPLITTER', kind: 'splitter', route: '/splitters', prefix: 'spl', file: 'packet-splitter.json', rules: 'splitRules', changes: 5 },
] as const;
const V2026 = { 'x-extend-api-version': '2026-02-09' };
/** Marks the test's own reads of the stub, so that the header check looks at the CLI's requests only. */
const PROBE = 'x-test-probe';

type Read = <T>(route: string) => Promise<{ status: number; body: T }>;
interface Backend {
  url: string;
  token: string;
  /** GET on the service as 2026-02-09: what it stores, not what the CLI says. */
  read: Read;
  close(): Promise<void>;
  /** The stub's: what it can do that a sandbox cannot. */
  stub?: Stub2026;
}

async function stubBackend(): Promise<Backend> {
  const stub = await startStub2026({ pageSize: 2 });
  const read: Read = async (route) => {
    const r = await fetch(stub.url + route, { headers: { authorization: `Bearer ${stub.token}`, ...V2026, [PROBE]: '1' } });
    return { status: r.status, body: (await r.json()) as never };
  };
  return { url: stub.url, token: stub.token, read, close: () => stub.close(), stub };
}

async function sandboxBackend(): Promise<Backend> {
  const t = await start();
  const read: Read = async <T>(route: string) => {
    const r = await t.call<T>('GET', route, { version: null, headers: V2026 });
    return { status: r.status, body: r.body as T };
  };
  return { url: t.url, token: t.token, read, close: () => t.close() };
}

export const BACKENDS = [
  // The stub's 401 says exactly this; the sandbox's wording is its own.
  { name: 'stub', open: stubBackend, unauthorized: /GET \/extractors\?sortBy=updatedAt&sortDir=desc: 401 unauthorized: UNAUTHORIZED: invalid API key \(request req_[\w-]+\)/ },
  { name: 'sandbox', open: sandboxBackend, unauthorized: /GET \/extractors\S*: 401 \w+: UNAUTHORIZED: .+ \(request req_[\w-]+\)/ },
] as const;

/** The cases, against one backend: a test file per backend, so that the two run in parallel. */
export function processors2026Suite({ name, open, unauthorized }: (typeof BACKENDS)[number]): void {
describe(`evalkit processors on API version 2026-02-09 against the ${name}`, () => {
  let b: Backend;
  let env: Record<string, string>;
  let dir: string;
  const run = (version: string, args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> =>
    runCli(['processors', ...args, '--api-version', version], { env: { ...env, ...extraEnv }, cwd: dir });
  const cli = (...args: string[]): Promise<CliResult> => run('2026-02-09', args);
  const cli2025 = (...args: string[]): Promise<CliResult> => run('2025-04-21', args);
  const json = <T>(r: CliResult): T => {
    if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  };
  const ids: Record<string, string> = {};
  /** Every splitter made, in the order made. */
  const splitters: string[] = [];
  const stub = (): Stub2026 => b.stub!;

  beforeAll(async () => {
    b = await open();
    env = { EVALKIT_BASE_URL: b.url, EVALKIT_API_TOKEN: b.token, EVALKIT_API_VERSION: '', EVALKIT_WORKSPACE_ID: '' };
    dir = mkdtempSync(path.join(os.tmpdir(), `evalkit-processors-2026-${name}-`));
  });
  afterAll(async () => {
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe.each(KINDS)('$kind', (k) => {
    it('create takes the kind from the config, migrates a 2024-11-14 config up the chain and sends it without `type`; the service stores it in the 2026-02-09 layout', async () => {
      const file = path.join(CONFIGS, k.file);
      const r = await cli('create', '--name', `my ${k.kind}`, '--config', file);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const m = new RegExp(`^${k.kind} (${k.prefix}_\\w+) "my ${k.kind}" \\(${k.type}\\) created; config from \\S+${k.file} \\(migrated 2024-11-14 -> 2026-02-09, ${k.changes} changes\\)\\n$`).exec(r.stdout);
      expect(m, r.stdout).not.toBeNull();
      ids[k.kind] = m![1];
      if (k.kind === 'splitter') splitters.push(ids[k.kind]);
      if (name === 'stub') {
        const sent = stub().requests.filter((q) => q.method === 'POST' && q.url === k.route).at(-1)!;
        const body = JSON.parse(sent.body) as { name: string; config: Record<string, unknown> };
        expect(body.name).toBe(`my ${k.kind}`);
        expect(body.config).not.toHaveProperty('type');
        expect(body.config).not.toHaveProperty('parser');
      }
      const live = await b.read<{ object: string; draftVersion: { config: Record<string, unknown> } }>(`${k.route}/${ids[k.kind]}`);
      expect(live.status).toBe(200);
      expect(live.body.object).toBe(k.kind);
      expect(live.body.draftVersion.config).not.toHaveProperty('type');
      expect(live.body.draftVersion.config).not.toHaveProperty('parser');
      // Again: found by name and config, nothing created.
      const again = await cli('create', '--name', `my ${k.kind}`, '--type', k.type, '--config', file);
      expect(again.stdout).toBe(`${k.kind} ${ids[k.kind]} "my ${k.kind}" (${k.type}) exists already with this config; nothing created\n`);
      expect((await b.read<{ data: unknown[] }>(k.route)).body.data).toHaveLength(1);
    }, 60_000);

    it('publish, update the draft from a saved 2026-02-09 config, publish minor; versions, get and diff read it back', async () => {
      const id = ids[k.kind];
      const p1 = await cli('publish', id, '--release', 'major', '--description', 'first');
      expect(p1.stderr).toBe('');
      expect(p1.stdout).toMatch(new RegExp(`^${k.kind} ${id}: published 1\\.0 \\(${k.prefix}v_\\w+\\): first\\n$`));
      const versions = json<{ versions: Array<{ version: string; config: Record<string, unknown> }> }>(await cli('versions', id, '--format', 'json')).versions;
      expect(versions.map((v) => v.version)).toEqual(['draft', '1.0']);
      // The list answers summaries: each config was read from its version.
      expect(versions[1].config).toEqual(versions[0].config);
      const edited = path.join(dir, `${k.kind}-edited.json`);
      writeFileSync(edited, JSON.stringify({ ...versions[0].config, [k.rules]: 'Be brief.' }));
      const u = await cli('update', id, '--config', edited);
      expect(u.stderr).toBe('');
      expect(u.stdout).toBe(`${k.kind} ${id} "my ${k.kind}": draft updated; config from ${edited}\n`);
      expect((await cli('publish', id, '--release', 'minor')).stdout).toMatch(new RegExp(`^${k.kind} ${id}: published 1\\.1 `));
      const same = await cli('publish', id, '--release', 'minor', '--format', 'json');
      expect(json<{ published: boolean; version: { version: string } }>(same)).toMatchObject({ published: false, version: { version: '1.1' } });
      const v = await cli('versions', id);
      expect(v.stdout.split('\n').slice(2).map((l) => l.split(/\s+/)[0]).filter(Boolean)).toEqual(['draft', '1.1', '1.0']);
      const g = await cli('get', id);
      expect(g.code).toBe(0);
      expect(g.stdout).toContain(`${k.kind} ${id} "my ${k.kind}" (${k.type})`);
      expect(g.stdout).toContain('draft config (2026-02-09):');
      expect(g.stdout).toContain('"Be brief."');
      const d = json<{ patch: Array<{ op: string; path: string; value?: unknown }>; from: { version: string }; to: { version: string } }>(await cli('diff', id, '1.0', 'latest', '--format', 'json'));
      expect(d.from.version).toBe('1.0');
      expect(d.to.version).toBe('1.1');
      expect(d.patch).toContainEqual({ op: 'replace', path: `/${k.rules}`, value: 'Be brief.' });
      expect((await cli('diff', id, '1.1', 'draft', '--exit-code')).code).toBe(0);
      expect((await cli('diff', id, '1.0', 'draft', '--exit-code')).code).toBe(1);
    }, 120_000);
  });

  if (name === 'stub') {
    it('a create or publish whose answer is lost is read back, not sent again', async () => {
      stub().loseNextAnswer('POST', '/splitters');
      const c = await cli('create', '--name', 'lost splitter', '--config', path.join(CONFIGS, 'packet-splitter.json'), '--format', 'json');
      const created = json<{ processor: { id: string }; answerLost: boolean }>(c);
      expect(created.answerLost).toBe(true);
      expect(stub().requests.filter((q) => q.method === 'POST' && q.url === '/splitters' && q.body.includes('lost splitter'))).toHaveLength(1);
      const id = created.processor.id;
      stub().loseNextAnswer('POST', `/splitters/${id}/versions`);
      const p = await cli('publish', id, '--release', 'major');
      expect(p.stdout).toMatch(new RegExp(`^splitter ${id}: published 1\\.0 \\(splv_\\w+\\) \\(its answer was lost; found in the version list\\)\\n$`));
      expect(stub().requests.filter((q) => q.method === 'POST' && q.url === `/splitters/${id}/versions`)).toHaveLength(1);
      ids.lostSplitter = id;
      splitters.push(id);
    }, 60_000);
  }

  it('list without --type lists extractors, classifiers and splitters (every page); --type one kind', async () => {
    const all = json<{ processors: Array<{ id: string; type: string; object: string }> }>(await cli('list', '--format', 'json')).processors;
    expect(all.map((p) => p.id).sort()).toEqual(Object.values(ids).sort());
    expect(all.find((p) => p.id === ids.classifier)).toMatchObject({ type: 'CLASSIFY', object: 'classifier' });
    const only = json<{ processors: Array<{ id: string }> }>(await cli('list', '--type', 'SPLITTER', '--format', 'json')).processors;
    expect(only.map((p) => p.id).sort()).toEqual([...splitters].sort());
    expect((await cli('list')).stdout).toMatch(new RegExp(`^${ids.extractor} +my extractor +EXTRACT `, 'm'));
  });

  if (name === 'stub') {
    it('a dp_ id names the same object as its classifier: found on /classifiers after /extractors said 404', async () => {
      stub().seed('classifier', 'dp_legacy', 'legacy docs', { classifications: [{ id: 'a', type: 'a', description: 'A' }] });
      const from = stub().requests.length;
      const g = await cli('get', 'dp_legacy');
      expect(g.stderr).toBe('');
      expect(g.stdout).toContain('classifier dp_legacy "legacy docs" (CLASSIFY)');
      expect(stub().requests.slice(from, from + 2).map((q) => q.url)).toEqual(['/extractors/dp_legacy', '/classifiers/dp_legacy']);
      // With --type, straight to its route.
      const at = stub().requests.length;
      expect((await cli('versions', 'dp_legacy', '--type', 'CLASSIFY')).code).toBe(0);
      expect(stub().requests[at].url).toBe('/classifiers/dp_legacy');
    });

    it('every request carried x-extend-api-version 2026-02-09 and no x-service-api-version; --workspace-id adds x-extend-workspace-id', async () => {
      const sent = () => stub().requests.filter((q) => !Object.hasOwn(q.headers, PROBE));
      expect(sent().length).toBeGreaterThan(20);
      for (const q of sent()) {
        expect(q.headers['x-extend-api-version']).toBe('2026-02-09');
        expect(q.headers).not.toHaveProperty('x-service-api-version');
        expect(q.headers).not.toHaveProperty('x-extend-workspace-id');
      }
      const from = stub().requests.length;
      expect((await cli('list', '--type', 'EXTRACT', '--workspace-id', 'ws_7')).code).toBe(0);
      expect(stub().requests.slice(from).map((q) => q.headers['x-extend-workspace-id'])).toEqual(['ws_7']);
      const bad = await cli('list', '--workspace-id', 'ws 7');
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--workspace-id must be the workspace id alone');
    });

    it('the config file\'s apiVersion and workspaceId apply when no flag or variable sets them', async () => {
      const sub = mkdtempSync(path.join(dir, 'project-'));
      writeFileSync(path.join(sub, 'evalkit.config.json'), JSON.stringify({ apiVersion: '2026-02-09', workspaceId: 'ws_file' }));
      const from = stub().requests.length;
      const r = await runCli(['processors', 'list', '--type', 'CLASSIFY'], { env, cwd: sub });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(stub().requests.slice(from).map((q) => [q.url, q.headers['x-extend-api-version'], q.headers['x-extend-workspace-id']])).toEqual([
        ['/classifiers?sortBy=updatedAt&sortDir=desc', '2026-02-09', 'ws_file'],
      ]);
      const shown = JSON.parse((await runCli(['config', 'show', '--format', 'json'], { env, cwd: sub })).stdout) as { settings: Record<string, unknown> };
      expect(shown.settings.workspaceId).toEqual({ value: 'ws_file', source: 'config', from: path.join(sub, 'evalkit.config.json') });
      const flagged = await runCli(['processors', 'list', '--type', 'CLASSIFY', '--workspace-id', 'ws_flag'], { env: { ...env, EVALKIT_WORKSPACE_ID: 'ws_env' }, cwd: sub });
      expect(flagged.code).toBe(0);
      expect(stub().requests.at(-1)!.headers['x-extend-workspace-id']).toBe('ws_flag');
    });
  }

  if (name === 'sandbox') {
    it('one object, two routes: a dp_ processor made on 2025-04-21 is a classifier on 2026-02-09, an ex_ extractor a processor on 2025-04-21', async () => {
      const made = await cli2025('create', '--name', 'legacy docs', '--type', 'CLASSIFY', '--config', path.join(CONFIGS, 'document-classify.json'));
      expect(made.stderr).toBe('');
      const dp = /^processor (dp_\w+) /.exec(made.stdout)?.[1];
      expect(dp, made.stdout).toBeDefined();
      expect((await cli2025('publish', dp!, '--release', 'major')).code).toBe(0);
      // Without --type: /extractors says 404 (naming /classifiers), /classifiers has it.
      const g = await cli('get', dp!);
      expect(g.stderr).toBe('');
      expect(g.stdout).toContain(`classifier ${dp} "legacy docs" (CLASSIFY)`);
      expect(g.stdout).toContain('draft config (2026-02-09):');
      const versions = json<{ versions: Array<{ version: string; id: string }> }>(await cli('versions', dp!, '--type', 'CLASSIFY', '--format', 'json')).versions;
      expect(versions.map((v) => v.version)).toEqual(['draft', '1.0']);
      expect(versions[1].id).toMatch(/^dpv_/);
      // Updated and published on 2026-02-09, seen on 2025-04-21.
      const edited = path.join(dir, 'legacy-edited.json');
      writeFileSync(edited, JSON.stringify({ ...json<{ versions: Array<{ config: Record<string, unknown> }> }>(await cli('versions', dp!, '--format', 'json')).versions[0].config, classificationRules: 'Legacy rules.' }));
      expect((await cli('update', dp!, '--config', edited)).stdout).toBe(`classifier ${dp} "legacy docs": draft updated; config from ${edited}\n`);
      expect((await cli('publish', dp!, '--release', 'minor', '--description', 'from 2026')).stdout).toMatch(new RegExp(`^processor ${dp}: published 1\\.1 \\(dpv_\\w+\\): from 2026\\n$`));
      const old = json<{ versions: Array<{ version: string }> }>(await cli2025('versions', dp!, '--format', 'json')).versions;
      expect(old.map((v) => v.version)).toEqual(['draft', '1.1', '1.0']);
      expect(json<{ versions: Array<{ config: Record<string, unknown> }> }>(await cli2025('versions', dp!, '--format', 'json')).versions[0].config).toMatchObject({ type: 'CLASSIFY', classificationRules: 'Legacy rules.' });
      expect(json<{ processors: Array<{ id: string }> }>(await cli('list', '--type', 'CLASSIFY', '--format', 'json')).processors.map((p) => p.id)).toContain(dp);

      // The reverse: the extractor made on 2026-02-09 is an EXTRACT processor on 2025-04-21, its config in that layout.
      const back = await cli2025('get', ids.extractor);
      expect(back.stderr).toBe('');
      expect(back.code).toBe(0);
      expect(back.stdout).toContain(`processor ${ids.extractor} "my extractor" (EXTRACT)`);
      const oldVersions = json<{ versions: Array<{ version: string; config: Record<string, unknown> }> }>(await cli2025('versions', ids.extractor, '--format', 'json')).versions;
      expect(oldVersions.map((v) => v.version)).toEqual(['draft', '1.1', '1.0']);
      expect(oldVersions[0].config).toMatchObject({ type: 'EXTRACT', extractionRules: 'Be brief.' });
      expect(json<{ processors: Array<{ id: string }> }>(await cli2025('list', '--type', 'EXTRACT', '--format', 'json')).processors.map((p) => p.id)).toEqual([ids.extractor]);
    }, 120_000);

    it('what the sandbox refuses (a name over its 256 characters) reaches the user as its 400: code, message and request id; exit 2; nothing created', async () => {
      const before = (await b.read<{ data: unknown[] }>('/classifiers')).body.data.length;
      const refused = await cli('create', '--name', 'n'.repeat(300), '--config', path.join(CONFIGS, 'document-classify.json'));
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/POST \/classifiers: 400 bad request: INVALID_REQUEST: name must have at most 256 characters \(request req_[\w-]+\)/);
      expect((await b.read<{ data: unknown[] }>('/classifiers')).body.data).toHaveLength(before);
    }, 60_000);
  }

  it('bad input: an unknown id, an id of another kind than --type, a config of another type, no type, a config evalkit can check itself: exit 2 naming it, nothing sent or created', async () => {
    const unknown = await cli('get', 'ex_nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('processor "ex_nope" not found');
    const other = await cli('versions', ids.extractor, '--type', 'SPLITTER');
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`${ids.extractor} is an EXTRACT id (extractor), not SPLITTER`);
    const posts = b.stub ? stub().requests.filter((q) => q.method === 'POST').length : 0;
    const classifiers = (await b.read<{ data: unknown[] }>('/classifiers?maxPageSize=100')).body.data.length;
    const wrong = await cli('update', ids.classifier, '--config', path.join(CONFIGS, 'invoice-extract.json'));
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("the config's type is EXTRACT, not CLASSIFY");
    const noType = await cli('create', '--name', 'x');
    expect(noType.code).toBe(2);
    expect(noType.stderr).toContain('pass --type');
    // A config evalkit can check itself is refused before anything is sent, naming the file and the pointer.
    const bad = path.join(dir, 'bad-classify.json');
    writeFileSync(bad, JSON.stringify({ classifications: 'invoice' }));
    const local = await cli('create', '--name', 'bad', '--type', 'CLASSIFY', '--config', bad);
    expect(local.code).toBe(2);
    expect(local.stderr).toContain(`${bad} at /classifications: not a valid CLASSIFY config (2026-02-09 layout)`);
    if (b.stub) expect(stub().requests.filter((q) => q.method === 'POST').length).toBe(posts);
    expect((await b.read<{ data: unknown[] }>('/classifiers?maxPageSize=100')).body.data).toHaveLength(classifiers);
  }, 60_000);

  it('an ApiError answer reaches the user with its code, message and request id; exit 2; the token never', async () => {
    const r = await run('2026-02-09', ['list'], { EVALKIT_API_TOKEN: 'wrong-token-abc' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(unauthorized);
    expect(r.stderr).not.toContain('wrong-token-abc');
    expect(r.stdout).toBe('');
  });
});
}

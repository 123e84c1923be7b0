// `evalkit processors ... --api-version 2026-02-09` through the built binary against the REAL
// sandbox (test/e2e/processors-2026.test.ts drives the same commands against a stub, for what a
// sandbox cannot do: lose an answer, record the headers sent). What a user relies on: the
// 2024-11-14 configs in datasets/configs push to extractors, classifiers and splitters; an object
// made on one API version is found on the other; the service's errors reach the user with their
// code and request id.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';

const CONFIGS = path.join(ROOT, 'datasets/configs');
const KINDS = [
  { type: 'EXTRACT', kind: 'extractor', route: '/extractors', prefix: 'ex', file: 'invoice-extract.json', rules: 'extractionRules', changes: 4 },
  { type: 'CLASSIFY', kind: 'classifier', route: '/classifiers', prefix: 'cl', file: 'document-classify.json', rules: 'classificationRules', changes: 3 },
  { type: 'SPLITTER', kind: 'splitter', route: '/splitters', prefix: 'spl', file: 'packet-splitter.json', rules: 'splitRules', changes: 5 },
] as const;
const V2026 = { version: null, headers: { 'x-extend-api-version': '2026-02-09' } };

describe('evalkit processors on API version 2026-02-09 against the sandbox', () => {
  let t: TestSandbox;
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

  beforeAll(async () => {
    t = await start();
    env = { EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token, EVALKIT_API_VERSION: '', EVALKIT_WORKSPACE_ID: '' };
    dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-processors-2026-sandbox-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe.each(KINDS)('$kind', (k) => {
    it('create pushes a config saved in the 2024-11-14 layout, migrated up the chain; the sandbox stores it in the 2026-02-09 layout', async () => {
      const file = path.join(CONFIGS, k.file);
      const r = await cli('create', '--name', `my ${k.kind}`, '--config', file);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const m = new RegExp(`^${k.kind} (${k.prefix}_\\w+) "my ${k.kind}" \\(${k.type}\\) created; config from \\S+${k.file} \\(migrated 2024-11-14 -> 2026-02-09, ${k.changes} changes\\)\\n$`).exec(r.stdout);
      expect(m, r.stdout).not.toBeNull();
      ids[k.kind] = m![1];
      const live = await t.call<{ object: string; draftVersion: { config: Record<string, unknown> } }>('GET', `${k.route}/${ids[k.kind]}`, V2026);
      expect(live.status).toBe(200);
      expect(live.body.object).toBe(k.kind);
      expect(live.body.draftVersion.config).not.toHaveProperty('type');
      expect(live.body.draftVersion.config).not.toHaveProperty('parser');
      // Again: found by name and config, nothing created.
      const again = await cli('create', '--name', `my ${k.kind}`, '--type', k.type, '--config', file);
      expect(again.stdout).toBe(`${k.kind} ${ids[k.kind]} "my ${k.kind}" (${k.type}) exists already with this config; nothing created\n`);
      const listed = await t.call<{ data: unknown[] }>('GET', k.route, V2026);
      expect(listed.body.data).toHaveLength(1);
    }, 60_000);

    it('publish, update the draft from a saved 2026-02-09 config, publish minor; versions, get and diff read it back', async () => {
      const id = ids[k.kind];
      const p1 = await cli('publish', id, '--release', 'major', '--description', 'first');
      expect(p1.stderr).toBe('');
      expect(p1.stdout).toMatch(new RegExp(`^${k.kind} ${id}: published 1\\.0 \\(${k.prefix}v_\\w+\\): first\\n$`));
      const versions = json<{ versions: Array<{ version: string; config: Record<string, unknown> }> }>(await cli('versions', id, '--format', 'json')).versions;
      expect(versions.map((v) => v.version)).toEqual(['draft', '1.0']);
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

  it('list without --type lists extractors, classifiers and splitters; --type one kind', async () => {
    const all = json<{ processors: Array<{ id: string; type: string; object: string }> }>(await cli('list', '--format', 'json')).processors;
    expect(all.map((p) => p.id).sort()).toEqual(Object.values(ids).sort());
    expect(all.find((p) => p.id === ids.classifier)).toMatchObject({ type: 'CLASSIFY', object: 'classifier' });
    const only = json<{ processors: Array<{ id: string }> }>(await cli('list', '--type', 'SPLITTER', '--format', 'json')).processors;
    expect(only.map((p) => p.id)).toEqual([ids.splitter]);
    expect((await cli('list')).stdout).toMatch(new RegExp(`^${ids.extractor} +my extractor +EXTRACT `, 'm'));
  });

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

  it('bad input reaches the user as the ApiError: code, message and request id; exit 2; the token never', async () => {
    const unauthorized = await run('2026-02-09', ['list'], { EVALKIT_API_TOKEN: 'wrong-token-abc' });
    expect(unauthorized.code).toBe(2);
    expect(unauthorized.stderr).toMatch(/GET \/extractors\S*: 401 \w+: UNAUTHORIZED: .+ \(request req_[\w-]+\)/);
    expect(unauthorized.stderr).not.toContain('wrong-token-abc');
    expect(unauthorized.stdout).toBe('');

    // What the sandbox refuses (a name over its 256 characters): the 400's code, message and request id; nothing created.
    const before = (await t.call<{ data: unknown[] }>('GET', '/classifiers', V2026)).body.data.length;
    const refused = await cli('create', '--name', 'n'.repeat(300), '--config', path.join(CONFIGS, 'document-classify.json'));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/POST \/classifiers: 400 bad request: INVALID_REQUEST: name must have at most 256 characters \(request req_[\w-]+\)/);
    // A config evalkit can check itself is refused before anything is sent, naming the file and the pointer.
    const bad = path.join(dir, 'bad-classify.json');
    writeFileSync(bad, JSON.stringify({ classifications: 'invoice' }));
    const local = await cli('create', '--name', 'bad', '--type', 'CLASSIFY', '--config', bad);
    expect(local.code).toBe(2);
    expect(local.stderr).toContain(`${bad} at /classifications: not a valid CLASSIFY config (2026-02-09 layout)`);
    expect((await t.call<{ data: unknown[] }>('GET', '/classifiers', V2026)).body.data).toHaveLength(before);

    const unknown = await cli('get', 'ex_nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('processor "ex_nope" not found');
    const other = await cli('versions', ids.extractor, '--type', 'SPLITTER');
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`${ids.extractor} is an EXTRACT id (extractor), not SPLITTER`);
  }, 60_000);
});

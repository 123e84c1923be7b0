// `evalkit processors ... --api-version 2026-02-09` through the built binary, against a stub that
// answers the extractor/classifier/splitter routes in the spec's section-7 shapes. The same
// commands against the real sandbox: test/e2e/processors-2026-sandbox.test.ts; the stub stays for
// what a sandbox cannot show: an answer lost after the work, and every header each request carried.
// The 2025-04-21 path is test/e2e/processors.test.ts, unchanged.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { startStub2026, type Stub2026 } from '../helpers/stub-2026.js';

const CONFIGS = path.join(ROOT, 'datasets/configs');
const KINDS = [
  { type: 'EXTRACT', kind: 'extractor', route: '/extractors', prefix: 'ex', file: 'invoice-extract.json', rules: 'extractionRules', changes: 4 },
  { type: 'CLASSIFY', kind: 'classifier', route: '/classifiers', prefix: 'cl', file: 'document-classify.json', rules: 'classificationRules', changes: 3 },
  { type: 'SPLITTER', kind: 'splitter', route: '/splitters', prefix: 'spl', file: 'packet-splitter.json', rules: 'splitRules', changes: 5 },
] as const;

describe('evalkit processors on API version 2026-02-09', () => {
  let stub: Stub2026;
  let env: Record<string, string>;
  let dir: string;
  const cli = (...args: string[]): Promise<CliResult> => runCli(['processors', ...args, '--api-version', '2026-02-09'], { env, cwd: dir });
  const json = <T>(r: CliResult): T => {
    if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    stub = await startStub2026({ pageSize: 2 });
    env = { EVALKIT_BASE_URL: stub.url, EVALKIT_API_TOKEN: stub.token, EVALKIT_API_VERSION: '', EVALKIT_WORKSPACE_ID: '' };
    dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-processors-2026-'));
  });
  afterAll(async () => {
    await stub.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe.each(KINDS)('$kind', (k) => {
    it('create takes the kind from the config, migrates a 2024-11-14 config up the chain and sends it without `type`', async () => {
      const file = path.join(CONFIGS, k.file);
      const r = await cli('create', '--name', `my ${k.kind}`, '--config', file);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const m = new RegExp(`^${k.kind} (${k.prefix}_\\w+) "my ${k.kind}" \\(${k.type}\\) created; config from \\S+${k.file} \\(migrated 2024-11-14 -> 2026-02-09, ${k.changes} changes\\)\\n$`).exec(r.stdout);
      expect(m, r.stdout).not.toBeNull();
      ids[k.kind] = m![1];
      const sent = stub.requests.filter((q) => q.method === 'POST' && q.url === k.route).at(-1)!;
      const body = JSON.parse(sent.body) as { name: string; config: Record<string, unknown> };
      expect(body.name).toBe(`my ${k.kind}`);
      expect(body.config).not.toHaveProperty('type');
      expect(body.config).not.toHaveProperty('parser');
      // Again: found by name and config, nothing created.
      const again = await cli('create', '--name', `my ${k.kind}`, '--type', k.type, '--config', file);
      expect(again.stdout).toBe(`${k.kind} ${ids[k.kind]} "my ${k.kind}" (${k.type}) exists already with this config; nothing created\n`);
    });

    it('publish, update the draft from a saved 2026-02-09 config, publish minor; versions, get and diff read it back', async () => {
      const id = ids[k.kind];
      const p1 = await cli('publish', id, '--release', 'major', '--description', 'first');
      expect(p1.stdout).toMatch(new RegExp(`^${k.kind} ${id}: published 1\\.0 \\(${k.prefix}v_\\w+\\): first\\n$`));
      const versions = json<{ versions: Array<{ version: string; config: Record<string, unknown> }> }>(await cli('versions', id, '--format', 'json')).versions;
      expect(versions.map((v) => v.version)).toEqual(['draft', '1.0']);
      // The list answers summaries: each config was read from its version.
      expect(versions[1].config).toEqual(versions[0].config);
      const edited = path.join(dir, `${k.kind}-edited.json`);
      writeFileSync(edited, JSON.stringify({ ...versions[0].config, [k.rules]: 'Be brief.' }));
      const u = await cli('update', id, '--config', edited);
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

  it('a create or publish whose answer is lost is read back, not sent again', async () => {
    stub.loseNextAnswer('POST', '/splitters');
    const c = await cli('create', '--name', 'lost splitter', '--config', path.join(CONFIGS, 'packet-splitter.json'), '--format', 'json');
    const created = json<{ processor: { id: string }; answerLost: boolean }>(c);
    expect(created.answerLost).toBe(true);
    expect(stub.requests.filter((q) => q.method === 'POST' && q.url === '/splitters' && q.body.includes('lost splitter'))).toHaveLength(1);
    const id = created.processor.id;
    stub.loseNextAnswer('POST', `/splitters/${id}/versions`);
    const p = await cli('publish', id, '--release', 'major');
    expect(p.stdout).toMatch(new RegExp(`^splitter ${id}: published 1\\.0 \\(splv_\\w+\\) \\(its answer was lost; found in the version list\\)\\n$`));
    expect(stub.requests.filter((q) => q.method === 'POST' && q.url === `/splitters/${id}/versions`)).toHaveLength(1);
    ids.lostSplitter = id;
  }, 60_000);

  it('list without --type lists extractors, classifiers and splitters (every page); --type one kind', async () => {
    const all = json<{ processors: Array<{ id: string; type: string; object: string }> }>(await cli('list', '--format', 'json')).processors;
    expect(all.map((p) => p.id).sort()).toEqual(Object.values(ids).sort());
    expect(all.find((p) => p.id === ids.classifier)).toMatchObject({ type: 'CLASSIFY', object: 'classifier' });
    const only = json<{ processors: Array<{ id: string }> }>(await cli('list', '--type', 'SPLITTER', '--format', 'json')).processors;
    expect(only.map((p) => p.id).sort()).toEqual([ids.splitter, ids.lostSplitter].sort());
    const text = await cli('list');
    expect(text.stdout).toMatch(new RegExp(`^${ids.extractor} +my extractor +EXTRACT `, 'm'));
  });

  it('a dp_ id names the same object as its classifier: found on /classifiers after /extractors said 404', async () => {
    stub.seed('classifier', 'dp_legacy', 'legacy docs', { classifications: [{ id: 'a', type: 'a', description: 'A' }] });
    const from = stub.requests.length;
    const g = await cli('get', 'dp_legacy');
    expect(g.stderr).toBe('');
    expect(g.stdout).toContain('classifier dp_legacy "legacy docs" (CLASSIFY)');
    expect(stub.requests.slice(from, from + 2).map((q) => q.url)).toEqual(['/extractors/dp_legacy', '/classifiers/dp_legacy']);
    // With --type, straight to its route.
    const at = stub.requests.length;
    expect((await cli('versions', 'dp_legacy', '--type', 'CLASSIFY')).code).toBe(0);
    expect(stub.requests[at].url).toBe('/classifiers/dp_legacy');
  });

  it('every request carried x-extend-api-version 2026-02-09 and no x-service-api-version; --workspace-id adds x-extend-workspace-id', async () => {
    expect(stub.requests.length).toBeGreaterThan(20);
    for (const q of stub.requests) {
      expect(q.headers['x-extend-api-version']).toBe('2026-02-09');
      expect(q.headers).not.toHaveProperty('x-service-api-version');
      expect(q.headers).not.toHaveProperty('x-extend-workspace-id');
    }
    const from = stub.requests.length;
    expect((await cli('list', '--type', 'EXTRACT', '--workspace-id', 'ws_7')).code).toBe(0);
    expect(stub.requests.slice(from).map((q) => q.headers['x-extend-workspace-id'])).toEqual(['ws_7']);
    const bad = await cli('list', '--workspace-id', 'ws 7');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--workspace-id must be the workspace id alone');
  });

  it('bad input: an unknown id, an id of another kind than --type, a config of another type: exit 2 naming it, nothing sent', async () => {
    const unknown = await cli('get', 'ex_nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('processor "ex_nope" not found');
    const other = await cli('versions', ids.extractor, '--type', 'SPLITTER');
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`${ids.extractor} is an EXTRACT id (extractor), not SPLITTER`);
    const posts = stub.requests.filter((q) => q.method === 'POST').length;
    const wrong = await cli('update', ids.classifier, '--config', path.join(CONFIGS, 'invoice-extract.json'));
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("the config's type is EXTRACT, not CLASSIFY");
    expect(stub.requests.filter((q) => q.method === 'POST').length).toBe(posts);
    const noType = await cli('create', '--name', 'x');
    expect(noType.code).toBe(2);
    expect(noType.stderr).toContain('pass --type');
  });

  it('the config file\'s apiVersion and workspaceId apply when no flag or variable sets them', async () => {
    const sub = mkdtempSync(path.join(dir, 'project-'));
    writeFileSync(path.join(sub, 'evalkit.config.json'), JSON.stringify({ apiVersion: '2026-02-09', workspaceId: 'ws_file' }));
    const from = stub.requests.length;
    const r = await runCli(['processors', 'list', '--type', 'CLASSIFY'], { env, cwd: sub });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(stub.requests.slice(from).map((q) => [q.url, q.headers['x-extend-api-version'], q.headers['x-extend-workspace-id']])).toEqual([
      ['/classifiers?sortBy=createdAt&sortDir=desc', '2026-02-09', 'ws_file'],
    ]);
    const shown = JSON.parse((await runCli(['config', 'show', '--format', 'json'], { env, cwd: sub })).stdout) as { settings: Record<string, unknown> };
    expect(shown.settings.workspaceId).toEqual({ value: 'ws_file', source: 'config', from: path.join(sub, 'evalkit.config.json') });
    const flagged = await runCli(['processors', 'list', '--type', 'CLASSIFY', '--workspace-id', 'ws_flag'], { env: { ...env, EVALKIT_WORKSPACE_ID: 'ws_env' }, cwd: sub });
    expect(flagged.code).toBe(0);
    expect(stub.requests.at(-1)!.headers['x-extend-workspace-id']).toBe('ws_flag');
  });

  it('an ApiError answer is shown with its code and request id, the token never', async () => {
    const r = await runCli(['processors', 'list', '--api-version', '2026-02-09'], { env: { ...env, EVALKIT_API_TOKEN: 'wrong-token-abc' }, cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/GET \/extractors\?sortBy=createdAt&sortDir=desc: 401 unauthorized: UNAUTHORIZED: invalid API key \(request req_[\w-]+\)/);
    expect(r.stderr).not.toContain('wrong-token-abc');
  });
});

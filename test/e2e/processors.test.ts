// `evalkit processors ...` through the built binary against a sandbox on a random loopback port.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';

const OLD_CLASSIFY = path.join(ROOT, 'datasets/configs/document-classify.json');

describe('evalkit processors', () => {
  let t: TestSandbox;
  let env: Record<string, string>;
  let dir: string;
  const cli = (...args: string[]): Promise<CliResult> => runCli(['processors', ...args], { env, cwd: dir });
  const json = <T>(r: CliResult): T => {
    if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  };
  let id: string;

  beforeAll(async () => {
    t = await start();
    // /processors, dp_ ids and the 2025-04-21 layout: the API 2025-04-21 (processors-2026.test.ts covers 2026-02-09, the default).
    env = { EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token, EVALKIT_API_VERSION: '2025-04-21' };
    dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-processors-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('create migrates an old-layout config on the way in and prints the new id', async () => {
    const r = await cli('create', '--name', 'docs', '--type', 'CLASSIFY', '--config', OLD_CLASSIFY);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const m = /^processor (dp_\w+) "docs" \(CLASSIFY\) created; config from \S+document-classify\.json \(migrated 2024-11-14 -> 2025-04-21, 2 changes\)\n$/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    id = m![1];
    const versions = json<{ versions: Array<{ version: string; config: Record<string, unknown> }> }>(await cli('versions', id, '--format', 'json')).versions;
    expect(versions.map((v) => v.version)).toEqual(['draft']);
    expect(versions[0].config).toMatchObject({ type: 'CLASSIFY', classificationRules: expect.stringContaining('credit note') });
    expect(versions[0].config).not.toHaveProperty('fields');
  });

  it('publish, update the draft, publish minor; versions lists them newest first; list and get show the processor', async () => {
    const p1 = json<{ version: { version: string } }>(await cli('publish', id, '--release', 'major', '--description', 'first release', '--format', 'json'));
    expect(p1.version.version).toBe('1.0');
    const edited = path.join(dir, 'edited.json');
    writeFileSync(edited, JSON.stringify({ type: 'CLASSIFY', classifications: [{ id: 'invoice', type: 'invoice', description: 'A bill' }, { id: 'other', type: 'other', description: 'Anything else' }], classificationRules: 'Be brief.' }));
    const u = await cli('update', id, '--config', edited);
    expect(u.code).toBe(0);
    expect(u.stdout).toBe(`processor ${id} "docs": draft updated; config from ${edited}\n`);
    const p2 = await cli('publish', id, '--release', 'minor');
    expect(p2.stdout).toMatch(new RegExp(`^processor ${id}: published 1\\.1 \\(dpv_\\w+\\)\\n$`));
    const v = await cli('versions', id);
    expect(v.stdout.split('\n').slice(2).map((l) => l.split(/\s+/)[0]).filter(Boolean)).toEqual(['draft', '1.1', '1.0']);
    expect(v.stdout).toContain('first release');
    const listed = json<{ processors: Array<{ id: string; name: string }> }>(await cli('list', '--type', 'CLASSIFY', '--format', 'json'));
    expect(listed.processors.map((p) => p.id)).toContain(id);
    expect(json<{ processors: unknown[] }>(await cli('list', '--type', 'SPLITTER', '--format', 'json')).processors).toEqual([]);
    const g = await cli('get', id);
    expect(g.stdout).toContain(`processor ${id} "docs" (CLASSIFY)`);
    expect(g.stdout).toContain('"classificationRules": "Be brief."');
  });

  it('diff gives RFC 6902 operations and readable lines; --exit-code exits 1 when they differ', async () => {
    const d = json<{ patch: Array<{ op: string; path: string }>; summary: string[]; from: { version: string }; to: { version: string } }>(await cli('diff', id, '1.0', 'latest', '--format', 'json'));
    expect(d.from.version).toBe('1.0');
    expect(d.to.version).toBe('1.1');
    expect(d.patch).toContainEqual({ op: 'replace', path: '/classificationRules', value: 'Be brief.' });
    expect(d.patch.filter((o) => o.op === 'remove').map((o) => o.path)).toContain('/classifications/5');
    expect(d.summary.find((l) => l.startsWith('changed /classificationRules'))).toMatch(/^changed \/classificationRules: "A credit note.*…" -> "Be brief\."$/);
    const text = await cli('diff', id, '1.0', '1.1');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^processor ${id}: 1\\.0 \\(dpv_\\w+\\) -> 1\\.1 \\(dpv_\\w+\\): \\d+ changes\\n`));
    expect(text.stdout).toContain('  removed /classifications/5 (id "other") (was');
    expect((await cli('diff', id, '1.0', '1.1', '--exit-code')).code).toBe(1);
    const same = await cli('diff', id, '1.1', 'draft', '--exit-code');
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/: same config\n$/);
  });

  it.each([
    ['an unknown processor', ['versions', 'dp_nope'], 'processor "dp_nope" not found'],
    ['an unknown version', ['diff', 'DP', '1.0', '7.0'], 'has no version "7.0"'],
    ['a config of another type', ['create', '--name', 'x', '--type', 'EXTRACT', '--config', OLD_CLASSIFY], 'document-classify.json at /type: the config\'s type is CLASSIFY, not EXTRACT'],
    ['update with a config of another type', ['update', 'DP', '--config', path.join(ROOT, 'test/fixtures/migrate/envelope-processor/old.json')], "at /type: the config's type is EXTRACT, not CLASSIFY"],
    ['a missing flag', ['publish', 'DP'], 'Missing required argument: release'],
  ])('%s: exit 2 naming it', async (_, args, message) => {
    const r = await cli(...args.map((a) => (a === 'DP' ? id : a)));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });

  it('an invalid config: exit 2 naming the file and the JSON pointer, nothing created', async () => {
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ type: 'CLASSIFY', classifications: [{ id: 'a', type: 'a', description: 7 }] }));
    const before = json<{ processors: unknown[] }>(await cli('list', '--format', 'json')).processors.length;
    const r = await cli('create', '--name', 'bad', '--type', 'CLASSIFY', '--config', bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad} at /classifications/0/description: not a valid CLASSIFY config`);
    expect(json<{ processors: unknown[] }>(await cli('list', '--format', 'json')).processors.length).toBe(before);
  });

  it('--help lists the subcommands with examples', async () => {
    const r = await runCli(['processors', 'diff', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('evalkit processors diff ex_123 1.0 draft');
  });
});

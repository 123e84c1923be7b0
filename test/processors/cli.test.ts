// `evalkit processors ...` through the built binary against a sandbox: what the text and JSON
// results say, for the cases the end-to-end files (test/e2e/processors*.test.ts) do not cover.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';

const OLD_EXTRACT = path.join(ROOT, 'datasets/configs/invoice-extract.json');

describe('evalkit processors (results as they are shown)', () => {
  let t: TestSandbox;
  let dir: string;
  let env: Record<string, string>;
  const cli = (version: string, ...args: string[]): Promise<CliResult> => runCli(['processors', ...args, '--api-version', version], { env, cwd: dir });

  beforeAll(async () => {
    t = await start();
    env = { EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token };
    dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-processors-cli-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('on an API version older than 2025-04-21 the result describes the layout sent (2024-11-14), not the one checked', async () => {
    // A 2024-11-14 file is sent as it is: no migration to report.
    const same = await cli('2024-11-14', 'create', '--name', 'old-layout', '--config', OLD_EXTRACT);
    expect(same.stderr).toBe('');
    expect(same.stdout).toMatch(/^processor dp_\w+ "old-layout" \(EXTRACT\) created; config from \S+invoice-extract\.json\n$/);
    // A 2025-04-21 file goes down to 2024-11-14: the text, `to` and the patch say so.
    const current = path.join(dir, 'current.json');
    writeFileSync(current, JSON.stringify({ type: 'EXTRACT', schema: { type: 'object', properties: { total: { type: ['number', 'null'] } } }, extractionRules: 'Use the printed currency.', advancedOptions: { citationsEnabled: true } }));
    const down = await cli('2024-11-14', 'create', '--name', 'current-layout', '--config', current);
    expect(down.stdout).toMatch(/^processor dp_\w+ "current-layout" \(EXTRACT\) created; config from \S+current\.json \(migrated 2025-04-21 -> 2024-11-14, 3 changes\)\n$/);
    const json = await cli('2024-11-14', 'create', '--name', 'current-layout-json', '--config', current, '--format', 'json');
    const source = (JSON.parse(json.stdout) as { source: { from: string; to: string; patch: unknown[] } }).source;
    expect(source.from).toBe('2025-04-21');
    expect(source.to).toBe('2024-11-14');
    expect(source.patch).toEqual([
      { op: 'remove', path: '/advancedOptions' },
      { op: 'move', from: '/extractionRules', path: '/customExtractionRules' },
      { op: 'add', path: '/includeBoundingBoxCitations', value: true },
    ]);
    // 2025-04-21 as before.
    const now = await cli('2025-04-21', 'create', '--name', 'old-layout-now', '--config', OLD_EXTRACT);
    expect(now.stdout).toMatch(/\(migrated 2024-11-14 -> 2025-04-21, 3 changes\)\n$/);
  });

  it('names with control characters are shown escaped in text (create, list, get), aligned by what is shown; JSON keeps them as they are', async () => {
    const name = 'evil\x1b[31mred\u202e';
    const shown = 'evil\\x1b[31mred\\u202e';
    const c = await cli('2026-02-09', 'create', '--name', name, '--config', path.join(ROOT, 'datasets/configs/document-classify.json'));
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toMatch(new RegExp(`^classifier (cl_\\w+) "${shown.replace(/[\\[]/g, '\\$&')}" \\(CLASSIFY\\) created; `));
    const id = /cl_\w+/.exec(c.stdout)![0];
    for (const out of [c.stdout, (await cli('2026-02-09', 'list', '--type', 'CLASSIFY')).stdout, (await cli('2026-02-09', 'get', id)).stdout]) {
      // eslint-disable-next-line no-control-regex
      expect(out).not.toMatch(/[\x1b\u202e]/);
      expect(out).toContain(shown);
    }
    const lines = (await cli('2026-02-09', 'list', '--type', 'CLASSIFY')).stdout.split('\n');
    // The type column starts at one place on every line: padded by the escaped name's length.
    expect(new Set(lines.filter((l) => l.includes('CLASSIFY')).map((l) => l.indexOf('CLASSIFY'))).size).toBe(1);
    expect(lines[0].indexOf('type')).toBe(lines.find((l) => l.includes(shown))!.indexOf('CLASSIFY'));
    const json = JSON.parse((await cli('2026-02-09', 'list', '--type', 'CLASSIFY', '--format', 'json')).stdout) as { processors: Array<{ name: string }> };
    expect(json.processors.map((p) => p.name)).toContain(name);
  });

  it('--allow-unknown on 2026-02-09 (whose service refuses unknown members): exit 2 before any request, create and update; the help says so', async () => {
    const typo = path.join(dir, 'typo.json');
    writeFileSync(typo, JSON.stringify({ classifications: [{ id: 'a', type: 'a', description: 'A' }], clasificationRules: 'x' }));
    const count = async (): Promise<number> => (await t.call<{ data: unknown[] }>('GET', '/classifiers?maxPageSize=1000', { version: null, headers: { 'x-extend-api-version': '2026-02-09' } })).body.data.length;
    const before = await count();
    const c = await cli('2026-02-09', 'create', '--name', 'typo', '--config', typo, '--allow-unknown');
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('--allow-unknown cannot work on API 2026-02-09: its service refuses config members it does not know (a 400), so nothing was sent');
    expect(c.stderr).toContain('hint: drop --allow-unknown');
    expect(c.stderr).not.toMatch(/EVALKIT_API_VERSION/);
    expect(await count()).toBe(before);
    // Before any request: no service needed.
    const offline = await runCli(['processors', 'update', 'cl_1', '--config', typo, '--allow-unknown'], { env: { EVALKIT_BASE_URL: 'http://127.0.0.1:9', EVALKIT_API_TOKEN: 'x' }, cwd: dir });
    expect(offline.code).toBe(2);
    expect(offline.stderr).toContain('--allow-unknown cannot work on API 2026-02-09');
    const help = await runCli(['processors', 'create', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('a 2026-02-09 service refuses them, so it is refused there');
  });

  it('list shows the last changed first, the order of its updated column, on both API versions', async () => {
    for (const version of ['2025-04-21', '2026-02-09']) {
      const made: string[] = [];
      for (const name of ['first', 'second']) {
        const r = await cli(version, 'create', '--name', `${name}-${version}`, '--type', 'SPLITTER', '--config', path.join(ROOT, 'datasets/configs/packet-splitter.json'), '--format', 'json');
        expect(r.code, r.stderr).toBe(0);
        made.push((JSON.parse(r.stdout) as { processor: { id: string } }).processor.id);
      }
      // The first one created is the last one changed.
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await cli(version, 'update', made[0], '--name', `first-${version}-renamed`)).code).toBe(0);
      const listed = (JSON.parse((await cli(version, 'list', '--type', 'SPLITTER', '--format', 'json')).stdout) as { processors: Array<{ id: string; updatedAt: string }> }).processors;
      const ours = listed.filter((p) => made.includes(p.id)).map((p) => p.id);
      expect(ours, version).toEqual([made[0], made[1]]);
      const times = listed.map((p) => p.updatedAt);
      expect(times, version).toEqual([...times].sort().reverse());
    }
  });
});

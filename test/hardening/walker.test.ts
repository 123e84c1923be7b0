import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { walkFiles } from '../../src/util/walk.js';
import { collectFiles } from '../../src/config/files.js';
import { cleanupAfterEach, runCli } from '../helpers/cli.js';

const { tmp } = cleanupAfterEach('walk');

const CONFIG = JSON.stringify({ type: 'EXTRACT', schema: { type: 'object', properties: { total: { type: 'number' } } } });
const ITEM = JSON.stringify({ value: { total: 1 } });

/** A project folder: data, plus what is not the user's data (each of those holds broken JSON). */
function project(): string {
  const dir = tmp();
  const files: Record<string, string> = {
    'items/a.json': ITEM,
    'items/sub/b.json': ITEM,
    'items/keep.tmp.json': ITEM,
    'items/e.tmp.json': '{broken',
    'items/build/d.json': '{broken',
    'items/sub/local.json': '{broken',
    'items/node_modules/pkg/package.json': '{broken',
    'items/.git/objects.json': '{broken',
    'items/.gitignore': '# generated\nbuild/\n*.tmp.json\n!keep.tmp.json\n',
    'items/sub/.gitignore': '/local.json\n',
  };
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  writeFileSync(path.join(dir, 'config.json'), CONFIG);
  return dir;
}

describe('the folder walker', () => {
  it('skips node_modules, hidden entries and .gitignore patterns (nested, negated, folder-only, anchored)', async () => {
    const dir = project();
    const found = await walkFiles(path.join(dir, 'items'), { match: (n) => n.endsWith('.json') });
    expect(found.map((f) => f.rel.split(path.sep).join('/'))).toEqual(['a.json', 'keep.tmp.json', 'sub/b.json']);
    // What a killed run left (a staging folder, a temp file) is never input, even with --no-ignore.
    mkdirSync(path.join(dir, 'items/.evalkit-tmp-out.4194305.0123abcd'));
    writeFileSync(path.join(dir, 'items/.evalkit-tmp-out.4194305.0123abcd/a.json'), '{broken');
    writeFileSync(path.join(dir, 'items/.evalkit-tmp-a.json.4194305.0123abcd.json'), '{broken');
    const all = await walkFiles(path.join(dir, 'items'), { match: (n) => n.endsWith('.json'), ignore: false });
    expect(all).toHaveLength(8);
  });

  it('is the one of validate and migrate: `validate .` does not read node_modules or .git', async () => {
    const dir = project();
    const v = await runCli(['validate', 'items', '--config', 'config.json'], { cwd: dir });
    expect(v.stdout).toContain('3 files, 3 documents: 3 valid');
    expect(v.code).toBe(0);
    const all = await runCli(['validate', 'items', '--config', 'config.json', '--no-ignore'], { cwd: dir });
    expect(all.code).toBe(2);
    expect(all.stderr).toContain(path.join('items', 'node_modules', 'pkg', 'package.json'));
    const m = await runCli(['migrate', 'items', '--format', 'json'], { cwd: dir });
    expect(m.code).toBe(0);
    expect((JSON.parse(m.stdout) as { files: Array<{ path: string }> }).files.map((f) => f.path.split(path.sep).join('/'))).toEqual(['items/a.json', 'items/keep.tmp.json', 'items/sub/b.json']);
  });

  it('migrate takes a file named twice, or inside a folder also named, once; a folder alone gives each of its files once', async () => {
    const dir = project();
    const items = path.join(dir, 'items');
    const rels = (jobs: Array<{ rel: string }>) => jobs.map((j) => j.rel.split(path.sep).join('/'));
    expect(rels((await collectFiles([items])).jobs)).toEqual(['a.json', 'keep.tmp.json', 'sub/b.json']);
    const overlapping = await collectFiles([items, path.join(items, 'sub'), path.join(items, 'a.json'), path.join(items, 'a.json')]);
    expect(rels(overlapping.jobs)).toEqual(['a.json', 'keep.tmp.json', 'sub/b.json']);
  });
});

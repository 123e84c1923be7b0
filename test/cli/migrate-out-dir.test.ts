// A new --out-dir that appears while its copies are being staged (another process making it):
// the run does not replace it, moves the copies into it one by one, and a copy that cannot be
// moved is reported as an error in place of the result first given for it. The race is made
// here by making the folder just before the staging folder's rename.
import * as fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const race = vi.hoisted(() => ({ before: undefined as undefined | ((from: string, to: string) => void) }));

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof fs>();
  return {
    ...actual,
    renameSync: (from: fs.PathLike, to: fs.PathLike) => {
      race.before?.(String(from), String(to));
      return actual.renameSync(from, to);
    },
  };
});

const { default: migrate } = await import('../../src/cli/migrate.js');
const { flushOut } = await import('../../src/cli/io.js');

function setup(): { dir: string; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evalkit-migrate-race-'));
  fs.mkdirSync(path.join(dir, 'in'));
  for (const name of ['a', 'b', 'c']) fs.writeFileSync(path.join(dir, 'in', `${name}.json`), `{"type":"EXTRACT","customExtractionRules":"${name}"}\n`);
  const out = path.join(dir, 'out');
  // Someone else's out/ with a folder where the copy of b.json goes.
  race.before = (from, to) => {
    if (to !== out) return;
    fs.mkdirSync(path.join(out, 'b.json', 'theirs'), { recursive: true });
    fs.writeFileSync(path.join(out, 'notes.txt'), 'theirs');
  };
  return { dir, out };
}

async function run(dir: string, format: 'text' | 'json'): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((stdout += String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((stderr += String(s)), true));
  try {
    const argv = { paths: [path.join(dir, 'in')], to: '2025-04-21', write: false, outDir: path.join(dir, 'out'), ignore: true, check: false, allowLossy: false, format, _: [], $0: 'evalkit' } as const;
    const code = await migrate.run(argv as never);
    flushOut();
    return { code, stdout, stderr };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

afterEach(() => {
  race.before = undefined;
});

describe('migrate --out-dir when the folder appears during the run', () => {
  it('text: the copy that cannot be moved is an error, counted once; the others and their files are there', async () => {
    const { dir, out } = setup();
    const r = await run(dir, 'text');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`in/b.json: cannot write ${path.join(out, 'b.json')}: EISDIR`);
    expect(r.stdout).toMatch(/^2 migrated, 0 unchanged, 1 error$/m);
    expect(fs.readdirSync(out).sort()).toEqual(['a.json', 'b.json', 'c.json', 'notes.txt']);
    expect(fs.readFileSync(path.join(out, 'notes.txt'), 'utf8')).toBe('theirs');
    expect(JSON.parse(fs.readFileSync(path.join(out, 'c.json'), 'utf8'))).toEqual({ type: 'EXTRACT', extractionRules: 'c' });
    expect(fs.readdirSync(dir).sort()).toEqual(['in', 'out']);
  });

  it('--format json: the error result takes the place of the first one', async () => {
    const { dir, out } = setup();
    const r = await run(dir, 'json');
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.stdout) as { tally: unknown; files: Array<{ path: string; status: string; written?: string; errors: Array<{ message: string }> }> };
    expect(doc.tally).toEqual({ migrated: 2, unchanged: 0, error: 1 });
    expect(doc.files.map((f) => [path.basename(f.path), f.status, f.written])).toEqual([
      ['a.json', 'migrated', path.join(out, 'a.json')],
      ['b.json', 'error', undefined],
      ['c.json', 'migrated', path.join(out, 'c.json')],
    ]);
    expect(doc.files[1].errors[0].message).toBe(`cannot write ${path.join(out, 'b.json')}: EISDIR`);
  });
});

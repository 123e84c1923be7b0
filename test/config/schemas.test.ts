import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAPPING, MAPPING_2026, migrateConfig, validateConfig } from '../../src/config/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const GENERATED = ['src/config/generated/config-2024-11-14.ts', 'src/config/generated/config-2025-04-21.ts'];

describe('config schemas', () => {
  it('the generated TS types are up to date with schemas/ (run npm run gen:types)', () => {
    const r = spawnSync(process.execPath, ['scripts/gen-types.mjs', '--check', ...GENERATED], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('the generated config validators are up to date with schemas/ (run npm run gen:validators)', () => {
    const r = spawnSync(process.execPath, ['scripts/gen-validators.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.each(['invoice-extract.json', 'document-classify.json', 'packet-splitter.json'])('datasets/configs/%s is valid in the old layout, migrates losslessly and is valid after', (name) => {
    const config = JSON.parse(readFileSync(path.join(ROOT, 'datasets/configs', name), 'utf8')) as Record<string, unknown>;
    expect(validateConfig(config, '2024-11-14')).toEqual([]);
    const r = migrateConfig(config, { to: '2025-04-21' });
    expect(r).toMatchObject({ from: '2024-11-14', changed: true, dropped: [] });
    expect(validateConfig(r.doc, '2025-04-21')).toEqual([]);
  });

  it('the mapping table of docs/migrate.md lists every row of the mapping', () => {
    const readme = readFileSync(path.join(ROOT, 'docs/migrate.md'), 'utf8');
    for (const row of MAPPING) {
      const line = readme.split('\n').find((l) => l.startsWith(`| ${row.type} | \`${row.old}\``));
      expect(line, `${row.type} ${row.old}`).toBeDefined();
      expect(line).toContain(row.new ? `\`${row.new.join('.')}\`` : 'no replacement');
    }
  });

  it('the 2025-04-21 -> 2026-02-09 table of docs/migrate.md is MAPPING_2026, row for row and in order', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/migrate.md'), 'utf8');
    const cell = (p: readonly string[] | null, v?: string) => (p ? `\`${p.join('.')}${v ? ` = ${v}` : ''}\`` : '—');
    const want = MAPPING_2026.map((r) => `| ${r.types.length === 3 ? 'all' : r.types.join(', ')} | ${cell(r.lower, r.lowerValue)} | ${cell(r.upper, r.upperValue)} |`);
    const have = doc.split('\n').filter((l) => want.some((w) => l.startsWith(w)));
    expect(have.map((l) => want.find((w) => l.startsWith(w)))).toEqual(want);
    // Each row says what happens: the INFERRED rows name their flag, the default-valued ones their default.
    for (const r of MAPPING_2026) {
      const line = have[MAPPING_2026.indexOf(r)];
      if (r.inferred) expect(line).toContain(`--infer ${r.inferred}`);
      if (r.defaultValue !== undefined) expect(line).toContain(`lossy unless \`${JSON.stringify(r.defaultValue)}\``);
    }
  });
});

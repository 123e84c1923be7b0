/**
 * Fixture pairs under test/fixtures/migrate/<scenario>/: old.json(l) is the 2024-11-14 form,
 * new.json(l) the 2025-04-21 form. Up turns old into new, down turns new into old, both
 * compared byte for byte (formatting is part of the contract). case.json, when present, says
 * which directions apply and with what options (type, allowLossy, allowUnknown, the expected dropped keys).
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import jsonpatch from 'fast-json-patch';
import { migrateText } from '../../src/config/index.js';
import type { Dropped, Layout, ProcessorType } from '../../src/config/index.js';

const ROOT = path.resolve(import.meta.dirname, '../fixtures/migrate');

interface Case {
  directions?: Array<'up' | 'down'>;
  type?: ProcessorType;
  allowLossy?: boolean;
  /** The scenario has keys no layout knows, kept as they are (--allow-unknown). */
  allowUnknown?: boolean;
  dropped?: Dropped[];
}

const scenarios = readdirSync(ROOT).sort().map((name) => {
  const dir = path.join(ROOT, name);
  const ext = existsSync(path.join(dir, 'old.jsonl')) ? 'jsonl' : 'json';
  const spec: Case = existsSync(path.join(dir, 'case.json')) ? JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8')) : {};
  return {
    name,
    ext,
    old: readFileSync(path.join(dir, `old.${ext}`), 'utf8'),
    new: readFileSync(path.join(dir, `new.${ext}`), 'utf8'),
    spec,
  };
});

const rows = scenarios.flatMap((s) =>
  (s.spec.directions ?? ['up', 'down']).map((dir) => {
    const [input, want, to]: [string, string, Layout] = dir === 'up' ? [s.old, s.new, '2025-04-21'] : [s.new, s.old, '2024-11-14'];
    return [`${s.name} (${dir})`, { ...s, input, want, to }] as const;
  }),
);

describe('fixture pairs', () => {
  it('cover every envelope, every mapping row and both directions', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(30);
  });

  it.each(rows)('%s', (_name, c) => {
    const opts = { to: c.to, type: c.spec.type, allowLossy: c.spec.allowLossy, allowUnknown: c.spec.allowUnknown, patch: true, jsonl: c.ext === 'jsonl' };
    const r = migrateText(c.input, `fixture.${c.ext}`, opts);
    expect(r.errors).toEqual([]);
    expect(r.text ?? c.input).toBe(c.want);
    expect(r.status).toBe(c.input === c.want ? 'unchanged' : 'migrated');
    expect(r.dropped.map(({ pointer, key, value }) => ({ pointer, key, value }))).toEqual(c.spec.dropped ?? []);
    // The patch turns the parsed input into the parsed output.
    if (c.ext === 'json') {
      const before = JSON.parse(c.input.replace(/^\uFEFF/, ''));
      const after = jsonpatch.applyPatch(structuredClone(before), r.patch, true, false).newDocument;
      expect(after).toEqual(JSON.parse(c.want.replace(/^\uFEFF/, '')));
    }
    // Migrating the result again changes nothing.
    const again = migrateText(c.want, `fixture.${c.ext}`, { ...opts, allowLossy: false });
    expect(again.errors).toEqual([]);
    expect(again.status).toBe('unchanged');
  });

  it('scenarios with unknown keys refuse without allowUnknown, in both directions', () => {
    const withUnknown = scenarios.filter((x) => x.spec.allowUnknown);
    expect(withUnknown.length).toBeGreaterThan(0);
    for (const s of withUnknown) {
      for (const [text, to] of [[s.old, '2025-04-21'], [s.new, '2024-11-14']] as const) {
        const r = migrateText(text, 'x.json', { to, type: s.spec.type, allowLossy: s.spec.allowLossy });
        expect(r.status, s.name).toBe('error');
        expect(r.errors[0].message).toMatch(/^unknown key ".+" in an? [A-Z]+ config \(no config layout has it\)$/);
      }
    }
  });

  it('lossy scenarios refuse without allowLossy, naming each key', () => {
    for (const s of scenarios.filter((x) => x.spec.allowLossy)) {
      const dir = s.spec.directions![0];
      const r = migrateText(dir === 'up' ? s.old : s.new, 'x.json', { to: dir === 'up' ? '2025-04-21' : '2024-11-14' });
      expect(r.status, s.name).toBe('error');
      expect(r.text).toBeNull();
      for (const d of s.spec.dropped!) expect(r.errors[0].message).toContain(d.pointer);
    }
  });
});

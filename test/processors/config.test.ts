import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffConfigs, inApiLayout, readProcessorConfig } from '../../src/processors/index.js';
import { InputError } from '../../src/util/errors.js';
import { ROOT } from '../helpers/cli.js';

const fixture = (name: string): string => path.join(ROOT, 'test/fixtures/migrate', name, 'old.json');

describe('readProcessorConfig', () => {
  it('reads a config inside a saved processor in the old layout, migrated, with the patch', async () => {
    const r = await readProcessorConfig(fixture('envelope-processor'));
    expect(r.type).toBe('EXTRACT');
    expect(r.from).toBe('2024-11-14');
    expect(r.config).toMatchObject({ type: 'EXTRACT', extractionRules: 'Use the printed currency.', advancedOptions: { citationsEnabled: true } });
    expect(r.patch).toContainEqual({ op: 'move', from: '/customExtractionRules', path: '/extractionRules' });
  });

  it.each([
    ['a key the new layout cannot hold', fixture('splitter-reminders-lossy'), {}, /customReminders/],
    ['a type other than the one asked for', fixture('envelope-processor'), { type: 'CLASSIFY' as const }, /the config's type is EXTRACT, not CLASSIFY/],
    ['a missing file', '/nonexistent/config.json', {}, /cannot read the config/],
  ])('refuses %s, naming the file', async (_, file, opts, message) => {
    const e = await readProcessorConfig(file, opts).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InputError);
    expect((e as InputError).message).toMatch(message);
    expect((e as InputError).location.file).toBe(file);
  });

  it("a key the target cannot hold: the hint's flags are migrate's, so it says to migrate the file first (with a command that exists)", async () => {
    const file = fixture('splitter-reminders-lossy');
    const e = (await readProcessorConfig(file, { apiVersion: '2026-02-09' }).catch((x: unknown) => x)) as InputError;
    expect(e.hint).toMatch(/pass --allow-lossy/);
    expect(e.hint).toContain(`Those are flags of \`evalkit migrate\`: migrate the file first (\`evalkit migrate ${file} --to 2026-02-09 --write\` with the flag you choose)`);
    expect(e.hint).not.toMatch(/--dry-run/);
  });

  it('a config invalid after migration: the hint runs migrate as it exists (no --dry-run; the file name quoted for the shell)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-pc-'));
    const file = path.join(dir, "my config's.json");
    writeFileSync(file, JSON.stringify({ type: 'EXTRACT', baseProcessor: 'extraction_performance', includeBoundingBoxCitations: 'yes', schema: { type: 'object', properties: { a: { type: ['string', 'null'] } } } }));
    const e = (await readProcessorConfig(file, { apiVersion: '2026-02-09' }).catch((x: unknown) => x)) as InputError;
    expect(e).toBeInstanceOf(InputError);
    expect(e.hint).toContain(`\`evalkit migrate '${dir}/my config'\\''s.json' --to 2026-02-09\` shows it`);
    expect(e.hint).not.toMatch(/--dry-run/);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a bare config of another type, typed by its keys: no /type pointer (it has none), the way out in the hint', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const file = `${mkdtempSync(`${tmpdir()}/evalkit-pc-`)}/cls.json`;
    writeFileSync(file, JSON.stringify({ classifications: [{ id: 'a', type: 'a', description: 'x' }] }));
    const e = (await readProcessorConfig(file, { type: 'EXTRACT' }).catch((x: unknown) => x)) as InputError;
    expect(e.message).toBe("the config's type is CLASSIFY (by its keys), not EXTRACT");
    expect(e.location).toEqual({ file, pointer: '' });
    expect(e.hint).toBe('use an EXTRACT config, or pass --type CLASSIFY');
  });

  it("update's check (the processor's type): the hint never offers --type, which cannot change an existing processor's type; the articles fit the type", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-pc-'));
    try {
      const file = path.join(dir, 'spl.json');
      writeFileSync(file, JSON.stringify({ type: 'SPLITTER', splitClassifications: [{ id: 'a', type: 'a', description: 'A' }] }));
      const e = (await readProcessorConfig(file, { type: 'EXTRACT', processorId: 'ex_1' }).catch((x: unknown) => x)) as InputError;
      expect(e.message).toBe("the config's type is SPLITTER, not EXTRACT");
      expect(e.hint).toBe('ex_1 is an EXTRACT processor and its type cannot change: use an EXTRACT config (`evalkit processors create --type SPLITTER` makes a processor for this one)');
      expect(e.hint).not.toMatch(/pass --type/);
      const c = (await readProcessorConfig(fixture('envelope-processor'), { type: 'SPLITTER', processorId: 'spl_1' }).catch((x: unknown) => x)) as InputError;
      expect(c.hint).toMatch(/^spl_1 is a SPLITTER processor and its type cannot change: use a SPLITTER config/);
      // create: --type is the way out there.
      expect(((await readProcessorConfig(file, { type: 'CLASSIFY' }).catch((x: unknown) => x)) as InputError).hint).toBe('use a CLASSIFY config, or pass --type SPLITTER');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on 2026-02-09: migrated up the chain, checked in the 2026-02-09 layout, without type; a 2026-02-09 config goes down to 2025-04-21', async () => {
    const up = await readProcessorConfig(fixture('envelope-processor'), { apiVersion: '2026-02-09' });
    expect(up).toMatchObject({ type: 'EXTRACT', from: '2024-11-14', to: '2026-02-09' });
    expect(up.config).toMatchObject({ extractionRules: 'Use the printed currency.' });
    expect(up.config).not.toHaveProperty('type');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-pconfig-'));
    try {
      const file = path.join(dir, 'saved-2026.json');
      writeFileSync(file, JSON.stringify({ object: 'splitter_version', id: 'splv_1', version: 'draft', splitterId: 'spl_1', config: { splitClassifications: [{ id: 'a', type: 'a', description: 'A' }], parseConfig: { target: 'markdown' } } }));
      const down = await readProcessorConfig(file, { type: 'SPLITTER', apiVersion: '2025-04-21' });
      expect(down).toMatchObject({ type: 'SPLITTER', to: '2025-04-21' });
      expect(down.config).toEqual({ type: 'SPLITTER', splitClassifications: [{ id: 'a', type: 'a', description: 'A' }], parser: { target: 'markdown' } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an invalid config is refused with the pointers of the file: a renamed key by its name there, under the envelope; a member the migration added by its migrated pointer', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-pconfig-'));
    try {
      const file = path.join(dir, 'saved.json');
      writeFileSync(file, JSON.stringify({ name: 'inv', draftVersion: { config: { type: 'EXTRACT', schema: { type: 'object', properties: {} }, customExtractionRules: 5, parser: { target: 7 } } } }));
      const e = (await readProcessorConfig(file, { apiVersion: '2026-02-09' }).catch((x: unknown) => x)) as InputError;
      expect(e).toBeInstanceOf(InputError);
      expect(e.message).toBe('not a valid EXTRACT config (2026-02-09 layout): /draftVersion/config/customExtractionRules: must be string; /draftVersion/config/parser/target: must be string');
      expect(e.location).toEqual({ file, pointer: '/draftVersion/config/customExtractionRules' });
      expect(e.hint).toContain('migrated from 2024-11-14 to 2026-02-09 first');
      // Already in the layout checked: the pointers as they are, under the envelope.
      writeFileSync(file, JSON.stringify({ name: 'inv', draftVersion: { config: { type: 'EXTRACT', schema: { type: 'object', properties: {} }, extractionRules: 5 } } }));
      const same = (await readProcessorConfig(file, { apiVersion: '2025-04-21' }).catch((x: unknown) => x)) as InputError;
      expect(same.message).toBe('not a valid EXTRACT config (2025-04-21 layout): /draftVersion/config/extractionRules: must be string');
      expect(same.location.pointer).toBe('/draftVersion/config/extractionRules');
      // includeBoundingBoxCitations becomes a new advancedOptions object: no pointer of the file holds it.
      writeFileSync(file, JSON.stringify({ type: 'EXTRACT', schema: { type: 'object', properties: {} }, includeBoundingBoxCitations: 'yes' }));
      const added = (await readProcessorConfig(file, { apiVersion: '2026-02-09' }).catch((x: unknown) => x)) as InputError;
      expect(added.message).toBe('not a valid EXTRACT config (2026-02-09 layout): /advancedOptions/citationsEnabled (of the config migrated to 2026-02-09): must be boolean');
      expect(added.location).toEqual({ file, pointer: '' });
      expect(added.hint).toContain('a member the migration to 2026-02-09 added is wrong');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sends the old layout to an API version before 2025-04-21', () => {
    expect(inApiLayout({ type: 'SPLITTER', splitClassifications: [], splitRules: 'x' }, 'SPLITTER', '2024-12-23')).toEqual({ type: 'SPLITTER', subDocumentClassifications: [], customSplitterRules: 'x' });
    const current = { type: 'SPLITTER', splitClassifications: [] };
    expect(inApiLayout(current, 'SPLITTER', '2025-04-21')).toBe(current);
  });
});

describe('diffConfigs', () => {
  it.each([
    ['same', { a: 1 }, { a: 1 }, [], []],
    ['changed', { rules: 'a' }, { rules: 'b' }, [{ op: 'replace', path: '/rules', value: 'b' }], ['changed /rules: "a" -> "b"']],
    ['added', {}, { o: { x: true } }, [{ op: 'add', path: '/o', value: { x: true } }], ['added /o: {"x":true}']],
    ['removed, labelled by id', { c: [{ id: 'a' }, { id: 'b' }] }, { c: [{ id: 'a' }] }, [{ op: 'remove', path: '/c/1' }], ['removed /c/1 (id "b") (was {"id":"b"})']],
    ['renamed', { old: 'v' }, { new: 'v' }, [{ op: 'move', from: '/old', path: '/new' }], ['moved /old -> /new']],
  ])('%s', (_, a, b, patch, summary) => {
    expect(diffConfigs(a, b)).toEqual({ patch, summary });
  });

  it('shortens long values', () => {
    const { summary } = diffConfigs({ r: 'x'.repeat(200) }, { r: 'y' });
    expect(summary[0]).toBe(`changed /r: "${'x'.repeat(80)}…" -> "y"`);
    expect(diffConfigs({ o: ['x'.repeat(200)] }, { o: 'y' }).summary[0]).toBe(`changed /o: ${JSON.stringify(['x'.repeat(200)]).slice(0, 77)}... -> "y"`);
  });

  it('a long string changed after its 80th character: the line shows where it differs (common prefix left out), on both sides', () => {
    const head = 'Dates are printed day-first in these invoices (the supplier is in Germany), so read 03/04 as 3 April and ';
    const before = `${head}return them as dates. Discounts are negative line items.`;
    const after = `${head}return them as ISO dates. Discounts are negative line items.`;
    const { summary } = diffConfigs({ extractionRules: before }, { extractionRules: after });
    const shown = head.slice(head.length + 'return them as '.length - 20);
    expect(summary).toEqual([`changed /extractionRules: "…${shown}return them as dates. Discounts are negative line items." -> "…${shown}return them as ISO dates. Discounts are negative line items."`]);
    // The first difference is on the line, both sides start at the same character, and short strings stay whole.
    expect(summary[0].split(' -> ').every((side) => side.includes('return them as '))).toBe(true);
    expect(diffConfigs({ r: 'short' }, { r: 'x'.repeat(70) }).summary[0]).toBe(`changed /r: "short" -> "${'x'.repeat(70)}"`);
    // A long tail after the window is cut, marked with …; control characters stay JSON-escaped.
    const long = diffConfigs({ r: `${'a'.repeat(100)}b${'c'.repeat(100)}` }, { r: `${'a'.repeat(100)}\u001b${'c'.repeat(100)}` }).summary[0];
    expect(long).toBe(`changed /r: "…${'a'.repeat(20)}b${'c'.repeat(59)}…" -> "…${'a'.repeat(20)}\\u001b${'c'.repeat(59)}…"`);
  });
});

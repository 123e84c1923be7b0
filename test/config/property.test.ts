/**
 * Properties of migration over generated configs: down(up(x)) is x (values and key order) for
 * configs without lossy keys, up(down(y)) is y for configs whose options all have old names,
 * migrating twice changes nothing the second time, the patch turns input into output, and at
 * the text level a file comes back byte for byte whatever its indentation and line endings.
 * The generated configs carry unknown keys, which these properties keep (allowUnknown); that an
 * unknown key is refused without it is a property of its own.
 */
import fc from 'fast-check';
import jsonpatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/util/errors.js';
import { MAPPING, migrateConfig as migrateStrict, migrateText as migrateTextStrict } from '../../src/config/index.js';
import type { MigrateOptions, ProcessorType, TextOptions } from '../../src/config/index.js';

// Unknown keys kept as they are (--allow-unknown): the properties below are about everything else.
const migrateConfig = (doc: unknown, opts: MigrateOptions) => migrateStrict(doc, { allowUnknown: true, ...opts });
const migrateText = (text: string, file: string, opts: TextOptions) => migrateTextStrict(text, file, { allowUnknown: true, ...opts });

const TYPES: ProcessorType[] = ['EXTRACT', 'CLASSIFY', 'SPLITTER'];
const KNOWN = new Set(['type', 'schema', 'fields', 'baseProcessor', 'baseVersion', 'advancedOptions', ...MAPPING.flatMap((r) => [r.old, ...(r.new ?? [])])]);

const unknownKey = fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !KNOWN.has(k));
/** Values as JSON text can hold them (no -0). */
const value = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const text = fc.string({ maxLength: 20 });

/** Members every layout shares, plus the old-layout keys of the type (lossy ones left out). */
function oldMembers(type: ProcessorType): Record<string, fc.Arbitrary<unknown>> {
  const members: Record<string, fc.Arbitrary<unknown>> = { baseVersion: text };
  if (type === 'EXTRACT') members.schema = fc.dictionary(unknownKey, value, { maxKeys: 3 });
  for (const r of MAPPING) if (r.type === type && r.new) members[r.old] = r.old === 'includeBoundingBoxCitations' ? fc.boolean() : fc.oneof(text, fc.array(value, { maxLength: 3 }));
  return members;
}

/** A config as a list of entries in random order, so key order is part of what is checked. */
function configOf(type: ProcessorType, withType: boolean): fc.Arbitrary<Record<string, unknown>> {
  const known = Object.entries(oldMembers(type)).map(([k, arb]) => fc.option(arb.map((v) => [k, v] as [string, unknown]), { nil: undefined }));
  return fc
    .tuple(fc.tuple(...known), fc.uniqueArray(fc.tuple(unknownKey, value), { maxLength: 4, selector: ([k]) => k }))
    .chain(([picked, extra]) => fc.shuffledSubarray([...picked.filter((e) => e !== undefined), ...extra], { minLength: picked.filter((e) => e !== undefined).length + extra.length }))
    .map((entries) => Object.fromEntries(withType ? [['type', type], ...entries] : entries));
}

const oldConfig = fc.constantFrom(...TYPES).chain((type) => fc.tuple(fc.constant(type), configOf(type, true)));
const oldConfigAll = oldConfig;

/** Same values and same key order everywhere. */
const same = (a: unknown, b: unknown) => expect(JSON.stringify(a)).toBe(JSON.stringify(b));

describe('migration properties', () => {
  it('down(up(x)) equals x, key order included', () => {
    fc.assert(
      fc.property(oldConfig, ([, x]) => {
        const up = migrateConfig(x, { to: '2025-04-21' });
        const down = migrateConfig(up.doc, { to: '2024-11-14' });
        same(down.doc, x);
        expect(down.changed).toBe(up.changed);
      }),
      { numRuns: 300 },
    );
  });

  it('up(down(y)) equals y for configs whose options all have an old name', () => {
    fc.assert(
      fc.property(oldConfig, ([, x]) => {
        const y = migrateConfig(x, { to: '2025-04-21' }).doc;
        same(migrateConfig(migrateConfig(y, { to: '2024-11-14' }).doc, { to: '2025-04-21' }).doc, y);
      }),
      { numRuns: 200 },
    );
  });

  it('migrating twice changes nothing the second time, in both directions', () => {
    fc.assert(
      fc.property(oldConfig, fc.constantFrom('2024-11-14' as const, '2025-04-21' as const), ([, x], to) => {
        const once = migrateConfig(x, { to });
        const twice = migrateConfig(once.doc, { to });
        expect(twice.changed).toBe(false);
        expect(twice.patch).toEqual([]);
        same(twice.doc, once.doc);
      }),
      { numRuns: 200 },
    );
  });

  it('the patch turns the input into the output', () => {
    fc.assert(
      fc.property(oldConfig, ([, x]) => {
        const r = migrateConfig(x, { to: '2025-04-21' });
        expect(jsonpatch.applyPatch(structuredClone(x), r.patch, true, false).newDocument).toEqual(r.doc);
      }),
      { numRuns: 200 },
    );
  });

  it('the type given from outside gives the same result as the type in the config', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TYPES).chain((t) => fc.tuple(fc.constant(t), configOf(t, false))), ([type, x]) => {
        const r = migrateConfig(x, { to: '2025-04-21', type });
        const withType = migrateConfig({ type, ...x }, { to: '2025-04-21' });
        same({ type, ...(r.doc as object) }, withType.doc);
      }),
      { numRuns: 100 },
    );
  });

  const style = fc.record({
    indent: fc.constantFrom(0, 2, 4, '\t'),
    crlf: fc.boolean(),
    newline: fc.boolean(),
    envelope: fc.constantFrom('bare', 'processor', 'array'),
  });

  it('text: up then down gives the file back byte for byte, and the text parses to the migrated document', () => {
    fc.assert(
      fc.property(oldConfig, style, ([type, x], s) => {
        const doc = s.envelope === 'bare' ? x : s.envelope === 'array' ? [x, { note: 'not a config' }] : { object: 'document_processor', type, draftVersion: { config: x } };
        let original = JSON.stringify(doc, null, s.indent || undefined);
        if (s.crlf) original = original.replace(/\n/g, '\r\n');
        if (s.newline) original += s.crlf ? '\r\n' : '\n';
        const up = migrateText(original, 'x.json', { to: '2025-04-21' });
        expect(up.errors).toEqual([]);
        const upText = up.text ?? original;
        same(JSON.parse(upText), migrateTextDoc(doc));
        if (s.crlf) expect(upText.replace(/\r\n/g, '')).not.toContain('\n');
        const down = migrateText(upText, 'x.json', { to: '2024-11-14' });
        expect(down.errors).toEqual([]);
        expect(down.text ?? upText).toBe(original);
      }),
      { numRuns: 300 },
    );
  });
});

describe('migration properties through 2026-02-09 (two steps)', () => {
  // A baseVersion without baseProcessor is invalid in 2025-04-21: going down from 2026-02-09 it
  // gets the documented default baseProcessor, so such configs do not come back unchanged.
  const oldConfig = oldConfigAll.map(([t, x]) => {
    const { baseVersion: _omit, ...rest } = x;
    return [t, rest] as const;
  });
  const parser = fc.dictionary(unknownKey, value, { maxKeys: 3 });
  /** A 2025-04-21 config: an old config migrated up, with a parser maybe. */
  const config2025 = fc.tuple(oldConfig, fc.option(parser, { nil: undefined })).map(([[type, x], p]) => {
    const y = migrateConfig(x, { to: '2025-04-21' }).doc as Record<string, unknown>;
    return [type, p === undefined ? y : { ...y, parser: p }] as const;
  });

  it('2024-11-14 -> 2026-02-09 -> 2024-11-14 gives x back, key order included', () => {
    fc.assert(
      fc.property(oldConfig, ([type, x]) => {
        const up = migrateConfig(x, { to: '2026-02-09' });
        expect(up.doc).not.toHaveProperty('type');
        const down = migrateConfig(up.doc, { to: '2024-11-14', from: '2026-02-09', type });
        same(down.doc, x);
      }),
      { numRuns: 300 },
    );
  });

  it('2025-04-21 -> 2026-02-09 -> 2025-04-21 gives y back, key order included', () => {
    fc.assert(
      fc.property(config2025, ([type, y]) => {
        const up = migrateConfig(y, { to: '2026-02-09' });
        expect(up.dropped).toEqual([]);
        same(migrateConfig(up.doc, { to: '2025-04-21', from: '2026-02-09', type }).doc, y);
      }),
      { numRuns: 300 },
    );
  });

  it('text: 2024-11-14 up to 2026-02-09 and back gives the file back byte for byte', () => {
    fc.assert(
      // (A config of only its type and unknown keys loses its type: nothing in the 2026-02-09 file marks it as a config.)
      fc.property(oldConfig.filter(([, x]) => Object.keys(x).some((k) => k !== 'type' && KNOWN.has(k))), fc.constantFrom(0, 2, '\t'), ([type, x], indent) => {
        const original = JSON.stringify(x, null, indent || undefined) + '\n';
        const up = migrateText(original, 'x.json', { to: '2026-02-09' });
        expect(up.errors).toEqual([]);
        const upText = up.text ?? original;
        same(JSON.parse(upText), migrateConfig(x, { to: '2026-02-09' }).doc);
        const down = migrateText(upText, 'x.json', { to: '2024-11-14', from: '2026-02-09', type });
        expect(down.errors).toEqual([]);
        expect(down.text ?? upText).toBe(original);
      }),
      { numRuns: 200 },
    );
  });

  // Fuzz: configs made of the keys of all three layouts with arbitrary values. Whatever the input,
  // migration ends in a result or an InputError (never another error); a result migrates to
  // itself, its patch turns the input into it, and its text parses to it.
  const KEYS_2026 = ['type', 'parser', 'parseConfig', 'schema', 'fields', 'classifications', 'splitClassifications', 'baseVersion', 'baseProcessor', 'customExtractionRules', 'includeBoundingBoxCitations', 'identifierRules', 'customReminders'];
  const OPTIONS_2026 = ['fixedPageLimit', 'pageRanges', 'splitMethod', 'citationMode', 'currentDateEnabled', 'memoryEnabled', 'pageOverlapEnabled', 'documentKind', 'chunkingOptions', 'context', 'reviewAgent'];
  const anyValue = fc.oneof(value, fc.constantFrom('low_latency', 'basic_precision', 'high_precision', false, true, 3, [{ start: 1 }], [{ start: 1, end: 2 }], { agenticOcrEnabled: true }));
  const fuzzConfig = fc
    .tuple(fc.dictionary(fc.constantFrom(...KEYS_2026), anyValue, { maxKeys: 5 }), fc.option(fc.dictionary(fc.constantFrom(...OPTIONS_2026), anyValue, { maxKeys: 4 }), { nil: undefined }))
    .map(([top, options]) => (options === undefined ? top : { ...top, advancedOptions: options }));

  it('fuzz: a result or an InputError; results are stable', () => {
    fc.assert(
      fc.property(fuzzConfig, fc.constantFrom('2024-11-14' as const, '2025-04-21' as const, '2026-02-09' as const), fc.boolean(), fc.constantFrom(...TYPES), fc.boolean(), (x, to, allowLossy, type, allowUnknown) => {
        let r;
        try {
          r = migrateConfig(x, { to, allowLossy, type, infer: ['fixedPageLimit', 'splitMethod'], allowUnknown });
        } catch (e) {
          expect(e).toBeInstanceOf(InputError);
          return;
        }
        expect(jsonpatch.applyPatch(structuredClone(x), r.patch, true, false).newDocument).toEqual(r.doc);
        const t = migrateText(JSON.stringify(x, null, 2), 'x.json', { to, allowLossy, type, infer: ['fixedPageLimit', 'splitMethod'], allowUnknown });
        expect(t.errors).toEqual([]);
        expect(JSON.parse(t.text ?? JSON.stringify(x))).toEqual(r.doc);
        if (r.from !== null) expect(migrateConfig(r.doc, { to, type, from: to }).changed).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});

describe('unknown keys', () => {
  // No layout has a key that starts with "x-": each generated one is unknown wherever it is put.
  const stray = fc.string({ maxLength: 10 }).map((s) => `x-${s}`);
  const place = fc.constantFrom<ReadonlyArray<string>>([], ['advancedOptions']);

  it('an unknown key is always refused, naming its pointer, in every direction and from every layout; allowUnknown keeps it', () => {
    fc.assert(
      fc.property(
        oldConfig,
        stray,
        place,
        fc.constantFrom('2024-11-14' as const, '2025-04-21' as const, '2026-02-09' as const),
        fc.constantFrom('2024-11-14' as const, '2025-04-21' as const, '2026-02-09' as const),
        ([type, x], key, where, from, to) => {
          // Known keys only, in the `from` layout, then the stray key put in. The generated lists
          // (classes) lose their object items: the members of those are checked too.
          const known = Object.fromEntries(
            Object.entries(x)
              .filter(([k]) => k === 'type' || KNOWN.has(k))
              .map(([k, v]) => [k, Array.isArray(v) ? v.filter((i) => i === null || typeof i !== 'object' || Array.isArray(i)) : v]),
          );
          const base = migrateConfig(known, { to: from, type, allowLossy: true }).doc as Record<string, unknown>;
          const doc = where.length ? { ...base, advancedOptions: { ...(base.advancedOptions as object), [key]: 1 } } : { ...base, [key]: 1 };
          const pointer = `/${[...where, key].map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
          let e: unknown;
          try {
            migrateStrict(doc, { to, type, allowLossy: true, from });
          } catch (err) {
            e = err;
          }
          expect(e).toBeInstanceOf(InputError);
          expect((e as InputError).location.pointer).toBe(pointer);
          expect((e as InputError).message).toBe(`unknown key ${JSON.stringify(key)} in ${type === 'EXTRACT' ? 'an' : 'a'} ${type} config (no config layout has it)`);
          const text = migrateTextStrict(JSON.stringify(doc), 'x.json', { to, type, allowLossy: true, from, warnIfEmpty: true });
          if (Object.keys(base).length === 0 && where.length === 0) {
            // Nothing but the stray key (a 2026-02-09 config that was only `type`): a file is a
            // config by its keys (walk.ts), so this one is not found as one, and says so.
            expect(text.status).toBe('unchanged');
            expect(text.warnings.map((w) => w.message)).toEqual(['no processor config or splitter output found']);
          } else {
            expect(text.status).toBe('error');
            expect(text.text).toBeNull();
            expect(text.errors.map((er) => er.location.pointer)).toContain(pointer);
          }
          // Kept where it was, with its value, when allowed (and when the target has a place for it).
          if (where.length === 0) expect((migrateStrict(doc, { to, type, allowLossy: true, from, allowUnknown: true }).doc as Record<string, unknown>)[key]).toBe(1);
        },
      ),
      { numRuns: 300 },
    );
  });
});

/** The migrated document by way of migrateConfig, for comparison with the text path. */
function migrateTextDoc(doc: unknown): unknown {
  if (Array.isArray(doc)) return [migrateConfig(doc[0], { to: '2025-04-21' }).doc, doc[1]];
  const d = doc as { draftVersion?: { config: unknown }; type?: ProcessorType };
  if (d.draftVersion) return { ...d, draftVersion: { config: migrateConfig(d.draftVersion.config, { to: '2025-04-21', type: d.type }).doc } };
  return migrateConfig(doc, { to: '2025-04-21' }).doc;
}

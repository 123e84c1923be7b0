import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/util/errors.js';
import { convertSplitterOutput, migrateConfig, migrateDocument, migrateText, validateConfig } from '../../src/config/index.js';
import type { MigrateOptions } from '../../src/config/index.js';

const UP: MigrateOptions = { to: '2025-04-21' };
const DOWN: MigrateOptions = { to: '2024-11-14' };

function thrown(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('expected an InputError');
}

describe('migrateConfig errors', () => {
  it.each([
    ['mixed layout names both keys', { type: 'EXTRACT', customExtractionRules: 'a', advancedOptions: { citationsEnabled: true } }, UP, ['/customExtractionRules', '/advancedOptions', 'mixed layouts'], '/customExtractionRules'],
    ['lossy up without allowLossy', { type: 'SPLITTER', customReminders: 'r' }, UP, ['/customReminders', 'no counterpart in 2025-04-21'], '/customReminders'],
    ['lossy down names every key', { type: 'CLASSIFY', advancedOptions: { context: 'max', fixedPageLimit: 3 } }, DOWN, ['/advancedOptions/context', '/advancedOptions/fixedPageLimit', '2 keys'], '/advancedOptions/context'],
    ['unknown type in the config', { type: 'EXTRACTION', schema: {} }, UP, ['unknown processor type "EXTRACTION"'], '/type'],
    ['fields alone is ambiguous', { fields: [] }, UP, ['cannot tell the processor type', 'EXTRACT and CLASSIFY'], ''],
    ['keys of different types', { schema: {}, splitRules: 'x' }, UP, ['keys of different types', '/schema (EXTRACT)', '/splitRules (SPLITTER)'], ''],
    // Keys every type has, whose migration still depends on the type: not "unchanged" (a --check that passed).
    ['a parser alone going up to 2026-02-09', { parser: { target: 'markdown' } }, { to: '2026-02-09' }, ['cannot tell the processor type, and migrating /parser depends on it'], ''],
    ['a parseConfig alone going down', { parseConfig: { engine: 'parse_light' } }, UP, ['cannot tell the processor type, and migrating /parseConfig'], ''],
    ['a non-object advancedOptions cannot take moved keys', { type: 'EXTRACT', includeBoundingBoxCitations: true, advancedOptions: 3 }, { ...UP, from: '2024-11-14' }, ['not an object'], '/advancedOptions'],
    ['a rename that would overwrite (with --from)', { type: 'EXTRACT', customExtractionRules: 'a', extractionRules: 'b' }, { ...UP, from: '2024-11-14' }, ['would overwrite /extractionRules'], '/customExtractionRules'],
  ] as const)('%s', (_name, doc, opts, parts, pointer) => {
    const e = thrown(() => migrateConfig(doc, opts));
    for (const p of parts) expect(e.message).toContain(p);
    expect(e.location.pointer).toBe(pointer);
    expect(e.hint).toBeTruthy();
    expect(e.exitCode).toBe(2);
  });

  it('rejects a non-object and unknown options', () => {
    expect(() => migrateConfig([], UP)).toThrow(/must be a JSON object/);
    expect(() => migrateConfig({}, { to: '2025-01-01' as never })).toThrow(/unknown layout/);
    expect(() => migrateConfig({}, { to: '2025-04-21', type: 'OCR' as never })).toThrow(/unknown processor type/);
  });
});

describe('migrateConfig', () => {
  it('returns from, to, type, patch and leaves the input alone', () => {
    const input = { type: 'EXTRACT', includeBoundingBoxCitations: true, customExtractionRules: 'r', schema: { type: 'object' } };
    const copy = structuredClone(input);
    const r = migrateConfig(input, UP);
    expect(r).toMatchObject({ from: '2024-11-14', to: '2025-04-21', type: 'EXTRACT', changed: true, dropped: [], warnings: [] });
    expect(Object.keys(r.doc as object)).toEqual(['type', 'advancedOptions', 'extractionRules', 'schema']);
    expect(r.patch).toEqual([
      { op: 'remove', path: '/includeBoundingBoxCitations' },
      { op: 'add', path: '/advancedOptions', value: { citationsEnabled: true } },
      { op: 'move', from: '/customExtractionRules', path: '/extractionRules' },
    ]);
    expect(input).toEqual(copy);
    (r.doc as { schema: { type: string } }).schema.type = 'changed';
    expect(input.schema.type).toBe('object');
  });

  it.each([
    ['config.type wins over the fallback', { type: 'CLASSIFY', fields: [] }, { ...UP, type: 'EXTRACT' }, 'CLASSIFY', ['type', 'classifications']],
    ['the fallback settles fields', { fields: [] }, { ...UP, type: 'EXTRACT' }, 'EXTRACT', ['fields']],
    ['keys settle the type', { fields: [], customClassificationRules: 'x' }, UP, 'CLASSIFY', ['classifications', 'classificationRules']],
    ['baseProcessor settles the type', { baseProcessor: 'splitting_light', identifierRules: 'x' }, UP, 'SPLITTER', ['baseProcessor', 'advancedOptions']],
    ['an advancedOptions member settles the type', { advancedOptions: { splitIdentifierRules: 'x' } }, DOWN, 'SPLITTER', ['identifierRules']],
  ] as const)('type: %s', (_name, doc, opts, type, keys) => {
    const r = migrateConfig(doc, opts);
    expect(r.type).toBe(type);
    expect(Object.keys(r.doc as object)).toEqual(keys);
  });

  it('neither layout: nothing to do, in both directions', () => {
    for (const opts of [UP, DOWN]) {
      const r = migrateConfig({ type: 'EXTRACT', schema: { type: 'object' } }, opts);
      expect(r).toMatchObject({ from: null, changed: false, patch: [] });
    }
    // No key depends on the type: no type needed.
    expect(migrateConfig({ baseVersion: '1.0', note: 'x' }, { ...UP, allowUnknown: true })).toMatchObject({ type: null, from: null, changed: false });
  });

  it('allowLossy drops and lists keys with their values', () => {
    const r = migrateConfig({ type: 'SPLITTER', customReminders: ['check totals'], customSplitterRules: 'x' }, { ...UP, allowLossy: true });
    expect(r.doc).toEqual({ type: 'SPLITTER', splitRules: 'x' });
    expect(r.dropped).toEqual([{ pointer: '/customReminders', key: 'customReminders', value: ['check totals'] }]);
  });

  it('down: advancedOptions members with an old name take its place; an empty one is removed with a warning', () => {
    const r = migrateConfig({ type: 'SPLITTER', advancedOptions: { splitIdentifierRules: 'id' }, splitRules: 'r' }, DOWN);
    expect(Object.keys(r.doc as object)).toEqual(['type', 'identifierRules', 'customSplitterRules']);
    const empty = migrateConfig({ type: 'EXTRACT', schema: {}, advancedOptions: {} }, DOWN);
    expect(empty.doc).toEqual({ type: 'EXTRACT', schema: {} });
    expect(empty.warnings[0].message).toMatch(/empty advancedOptions/);
  });

  it('--from settles a mixed config (merging into an existing advancedOptions) and refuses one whose keys say otherwise', () => {
    const r = migrateConfig({ type: 'EXTRACT', advancedOptions: { fixedPageLimit: 2 }, schema: {}, includeBoundingBoxCitations: true }, { ...UP, from: '2024-11-14' });
    expect(r.doc).toEqual({ type: 'EXTRACT', advancedOptions: { fixedPageLimit: 2, citationsEnabled: true }, schema: {} });
    expect(Object.keys(r.doc as object)).toEqual(['type', 'advancedOptions', 'schema']);
    const e = thrown(() => migrateConfig({ type: 'EXTRACT', extractionRules: 'x', schema: {} }, { ...UP, from: '2024-11-14' }));
    expect(e.message).toMatch(/not in the 2024-11-14 layout \(--from\): its keys are those of 2025-04-21/);
    expect(e.hint).toMatch(/--from 2025-04-21/);
  });

  it('keeps "__proto__" as an ordinary member', () => {
    const doc = JSON.parse('{"type":"EXTRACT","__proto__":{"x":1},"customExtractionRules":"r","schema":{}}');
    // A key no layout has, like any other: refused, or kept with allowUnknown.
    expect(thrown(() => migrateConfig(doc, UP)).location.pointer).toBe('/__proto__');
    const r = migrateConfig(doc, { ...UP, allowUnknown: true });
    expect(Object.keys(r.doc as object)).toEqual(['type', '__proto__', 'extractionRules', 'schema']);
    expect(JSON.stringify(r.doc)).toBe('{"type":"EXTRACT","__proto__":{"x":1},"extractionRules":"r","schema":{}}');
  });
});

describe('unknown keys', () => {
  const TO: MigrateOptions = { to: '2026-02-09' };
  it.each([
    ['a typo at the top level', { type: 'EXTRACT', extractonRules: 'x', schema: {} }, UP, '/extractonRules', 'unknown key "extractonRules" in an EXTRACT config (no config layout has it)', 'did you mean extractionRules?'],
    ['the same letters in another case', { type: 'CLASSIFY', ClassificationRules: 'x' }, UP, '/ClassificationRules', 'in a CLASSIFY config', 'did you mean classificationRules?'],
    ['an old-layout key misspelt, going up two steps', { type: 'SPLITTER', customSpliterRules: 'x' }, TO, '/customSpliterRules', 'in a SPLITTER config', 'did you mean customSplitterRules?'],
    ['nothing close: remove it', { type: 'EXTRACT', schema: {}, teamNote: 'x' }, UP, '/teamNote', 'unknown key "teamNote"', 'remove it (--allow-unknown keeps it'],
    ['in advancedOptions, for its type (memoryEnabled is CLASSIFY only)', { type: 'EXTRACT', schema: {}, advancedOptions: { memoryEnabled: true } }, TO, '/advancedOptions/memoryEnabled', 'in an EXTRACT config', 'remove it'],
    ['in chunkingOptions', { type: 'EXTRACT', schema: {}, advancedOptions: { chunkingOptions: { pageChunkSise: 3 } } }, UP, '/advancedOptions/chunkingOptions/pageChunkSise', 'unknown key "pageChunkSise"', 'did you mean pageChunkSize?'],
    ['in reviewAgent (2026-02-09)', { schema: {}, advancedOptions: { reviewAgent: { enable: true } } }, { ...TO, type: 'EXTRACT' }, '/advancedOptions/reviewAgent/enable', 'unknown key "enable"', 'did you mean enabled?'],
    ['in parseConfig', { schema: {}, parseConfig: { engin: 'parse_light' } }, { ...UP, type: 'EXTRACT' }, '/parseConfig/engin', 'unknown key "engin"', 'did you mean engine?'],
    ['in parser, which knows the members of parseConfig', { type: 'CLASSIFY', parser: { targt: 'markdown' } }, TO, '/parser/targt', 'unknown key "targt"', 'did you mean target?'],
    ['without a type: a key no type has', { baseVersion: '1.0', note: 'x' }, UP, '/note', 'unknown key "note" in a processor config', 'remove it'],
    ['in a class (classifications item)', { type: 'CLASSIFY', classifications: [{ id: 'a', type: 'invoice', description: 'x' }, { id: 'b', type: 'receipt', descripton: 'y' }] }, TO, '/classifications/1/descripton', 'unknown key "descripton" in a CLASSIFY config', 'did you mean description?'],
    ['in a 2024-11-14 class (a CLASSIFY config\'s fields item)', { type: 'CLASSIFY', fields: [{ id: 'a', type: 'invoice', descripton: 'x' }] }, TO, '/fields/0/descripton', 'unknown key "descripton"', 'did you mean description?'],
    ['in a split class, which knows identifierKey (2026-02-09)', { splitClassifications: [{ id: 'a', type: 'invoice', description: 'x', identifierKy: 'n' }] }, { ...TO, type: 'SPLITTER' }, '/splitClassifications/0/identifierKy', 'unknown key "identifierKy" in a SPLITTER config', 'did you mean identifierKey?'],
    ['in a 2024-11-14 split class (subDocumentClassifications item)', { type: 'SPLITTER', subDocumentClassifications: [{ id: 'a', tpye: 'invoice', description: 'x' }] }, TO, '/subDocumentClassifications/0/tpye', 'unknown key "tpye"', 'did you mean type?'],
    ['in a page range', { type: 'EXTRACT', schema: {}, advancedOptions: { pageRanges: [{ start: 1, end: 2 }, { start: 4, ned: 5 }] } }, TO, '/advancedOptions/pageRanges/1/ned', 'unknown key "ned" in an EXTRACT config', 'did you mean end?'],
  ] as const)('%s', (_name, doc, opts, pointer, message, hint) => {
    const e = thrown(() => migrateConfig(doc, opts));
    expect(e.location.pointer).toBe(pointer);
    expect(e.message).toContain(message);
    expect(e.hint).toContain(hint);
    expect(e.hint).toContain('--allow-unknown keeps it as it is');
    expect(e.exitCode).toBe(2);
  });

  it('the exact message and hint', () => {
    const e = thrown(() => migrateConfig({ type: 'EXTRACT', extractonRules: 'x', schema: {} }, UP));
    expect(e.describe()).toBe('at /extractonRules: unknown key "extractonRules" in an EXTRACT config (no config layout has it)\n  hint: did you mean extractionRules? (--allow-unknown keeps it as it is: for a key of a service version newer than evalkit)');
  });

  it('known keys of any layout are no unknown keys, nor is what a layout does not enumerate', () => {
    const deep = {
      type: 'EXTRACT',
      // A JSON Schema, field members and the open parseConfig objects are not looked into.
      schema: { type: 'object', properties: { extractonRules: { type: 'string' } }, anything: 1 },
      parser: { target: 'markdown', blockOptions: { whatever: 1 }, advancedOptions: { agenticOcrEnabled: true, someFlag: 1 } },
      advancedOptions: { citationsEnabled: true, fixedPageLimit: 2, pageRanges: [{ start: 1, end: 2 }, 'not an object'], chunkingOptions: { chunkingStrategy: 'semantic', pageChunkSize: 2 } },
    };
    expect(() => migrateConfig(deep, { ...UP, from: '2025-04-21' })).not.toThrow();
    const fields = { type: 'EXTRACT', fields: [{ id: 'a', name: 'A', type: 'string', description: 'x', teamNote: 1 }] };
    expect(() => migrateConfig(fields, DOWN)).not.toThrow();
    // A 2026-02-09 key going down is lossy, not unknown.
    expect(thrown(() => migrateConfig({ schema: {}, advancedOptions: { citationMode: 'word' } }, { ...DOWN, type: 'EXTRACT' })).message).toMatch(/no counterpart/);
  });

  it('every unknown key of a config is named, in document order; allowUnknown keeps them as they are', () => {
    const text = '{\n  "type": "EXTRACT",\n  "extractonRules": "x",\n  "advancedOptions": { "citationsEnabled": true, "citatonsMode": "word" },\n  "schema": {}\n}\n';
    const r = migrateText(text, 'c.json', { to: '2026-02-09' });
    expect(r.status).toBe('error');
    expect(r.text).toBeNull();
    expect(r.errors.map((e) => [e.location.pointer, e.hint?.split(' (')[0]])).toEqual([
      ['/extractonRules', 'did you mean extractionRules?'],
      ['/advancedOptions/citatonsMode', 'did you mean citationMode?'],
    ]);
    const kept = migrateText(text, 'c.json', { to: '2026-02-09', allowUnknown: true });
    expect(kept.errors).toEqual([]);
    expect(kept.text).toBe('{\n  "extractonRules": "x",\n  "advancedOptions": { "citationsEnabled": true, "citatonsMode": "word" },\n  "schema": {}\n}\n');
    // Unchanged otherwise: the same bytes.
    const same = '{"type":"EXTRACT","schema":{},"x-note":1}';
    expect(migrateText(same, 'c.json', { to: '2025-04-21', allowUnknown: true })).toMatchObject({ status: 'unchanged', text: null });
  });

  it('in list items: every one named with its index; allowUnknown keeps them where they are, byte for byte', () => {
    const text = '{\n  "type": "CLASSIFY",\n  "classifications": [\n    { "id": "a", "type": "invoice", "descripton": "x" },\n    { "id": "b", "type": "receipt", "description": "y", "x-owner": "ops" }\n  ],\n  "advancedOptions": { "pageRanges": [{ "start": 1, "end": 2, "strat": 3 }] }\n}\n';
    const r = migrateText(text, 'c.json', { to: '2026-02-09' });
    expect(r.status).toBe('error');
    expect(r.errors.map((e) => [e.location.pointer, e.hint?.split(' (')[0]])).toEqual([
      ['/classifications/0/descripton', 'did you mean description?'],
      ['/classifications/1/x-owner', 'remove it'],
      ['/advancedOptions/pageRanges/0/strat', 'did you mean start?'],
    ]);
    const kept = migrateText(text, 'c.json', { to: '2026-02-09', allowUnknown: true });
    expect(kept.errors).toEqual([]);
    expect(kept.text).toBe('{\n  "classifications": [\n    { "id": "a", "type": "invoice", "descripton": "x" },\n    { "id": "b", "type": "receipt", "description": "y", "x-owner": "ops" }\n  ],\n  "advancedOptions": { "pageRanges": [{ "start": 1, "end": 2, "strat": 3 }] }\n}\n');
  });

  it('in every envelope migrate reads', () => {
    const bad = { extractonRules: 'x', schema: {} };
    const docs: Array<[string, unknown, string]> = [
      ['bare config', { type: 'EXTRACT', ...bad }, '/extractonRules'],
      ['processor', { object: 'document_processor', type: 'EXTRACT', draftVersion: { config: bad } }, '/draftVersion/config/extractonRules'],
      ['processor version', { object: 'document_processor_version', processorType: 'EXTRACT', config: bad }, '/config/extractonRules'],
      ['extractor (2026-02-09)', { object: 'extractor', id: 'ex_1', draftVersion: { object: 'extractor_version', config: bad } }, '/draftVersion/config/extractonRules'],
      ['extractor version', { object: 'extractor_version', config: bad }, '/config/extractonRules'],
      ['classifier', { object: 'classifier', draftVersion: { config: { classifications: [], clasificationRules: 'x' } } }, '/draftVersion/config/clasificationRules'],
      ['splitter version', { object: 'splitter_version', config: { splitRule: 'x' } }, '/config/splitRule'],
      ['run create body (2025-04-21)', { processorId: 'dp_1', type: 'EXTRACT', config: bad }, '/config/extractonRules'],
      ['run create body (2026-02-09 overrideConfig)', { extractor: { id: 'ex_1', overrideConfig: { advancedOptions: { citatonMode: 'word' } } } }, '/extractor/overrideConfig/advancedOptions/citatonMode'],
      ['API response', { success: true, processor: { type: 'EXTRACT', draftVersion: { config: bad } } }, '/processor/draftVersion/config/extractonRules'],
      ['array of configs', [{ type: 'EXTRACT', schema: {} }, { type: 'EXTRACT', ...bad }], '/1/extractonRules'],
      [
        'a processor with its evaluation set items',
        [{ object: 'document_processor', type: 'SPLITTER', draftVersion: { config: { splitRule: 'x' } } }, { object: 'evaluation_set_item', expectedOutput: { splits: [{ id: 'split_1', classificationId: 'a', type: 'a', startPage: 1, endPage: 1 }] } }],
        '/0/draftVersion/config/splitRule',
      ],
    ];
    for (const [name, doc, pointer] of docs) {
      const e = thrown(() => migrateDocument(doc, { to: '2026-02-09' }));
      expect(e.location.pointer, name).toBe(pointer);
      expect(e.message, name).toMatch(/^unknown key "/);
      expect(() => migrateDocument(doc, { to: '2026-02-09', allowUnknown: true }), name).not.toThrow();
    }
  });

  it('JSONL: the line of the record and the pointer inside it', () => {
    const text = '{"type":"EXTRACT","schema":{}}\n\n{"object":"extractor_version","config":{"schema":{},"extractonRules":"x"}}\n';
    const r = migrateText(text, 'items.jsonl', { to: '2025-04-21', jsonl: true });
    expect(r.status).toBe('error');
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].location).toEqual({ file: 'items.jsonl', line: 3, pointer: '/config/extractonRules' });
  });
});

describe('convertSplitterOutput', () => {
  it.each([
    [{ a: 1, subDocumentClassifications: [{ id: 's' }], metadata: {} }, '2025-04-21', ['a', 'splits', 'metadata']],
    [{ splits: [] }, '2024-11-14', ['subDocumentClassifications']],
    [{ splits: [] }, '2025-04-21', ['splits']],
    [{ id: 'invoice', type: 'invoice' }, '2025-04-21', ['id', 'type']],
  ] as const)('%j -> %s', (output, to, keys) => {
    expect(Object.keys(convertSplitterOutput(output, to) as object)).toEqual(keys);
  });

  it('refuses both keys and passes non-objects through', () => {
    expect(() => convertSplitterOutput({ splits: [], subDocumentClassifications: [] }, '2025-04-21')).toThrow(/mixed layouts/);
    expect(convertSplitterOutput(null, '2025-04-21')).toBeNull();
  });
});

describe('migrateDocument', () => {
  it('finds configs in envelopes and reports each with its pointer', () => {
    const doc = {
      object: 'document_processor',
      type: 'CLASSIFY',
      config: { fields: [] },
      draftVersion: { id: 'dpv', version: 'draft', config: { customClassificationRules: 'x' } },
    };
    const r = migrateDocument(doc, UP);
    expect(r.items).toEqual([
      { pointer: '/config', kind: 'config', type: 'CLASSIFY', from: '2024-11-14', changed: true },
      { pointer: '/draftVersion/config', kind: 'config', type: 'CLASSIFY', from: '2024-11-14', changed: true },
    ]);
    expect(r.from).toBe('2024-11-14');
  });

  it('an envelope with an unknown type is an input error at the envelope pointer', () => {
    const e = thrown(() => migrateDocument({ processorType: 'OCR', config: { fields: [] } }, UP));
    expect(e.location.pointer).toBe('/processorType');
  });

  it('warns when the config type and the envelope type disagree', () => {
    const r = migrateDocument({ type: 'EXTRACT', config: { type: 'CLASSIFY', fields: [] } }, UP);
    expect(r.warnings[0]).toEqual({ pointer: '/config/type', message: 'config type CLASSIFY differs from EXTRACT at /type; using CLASSIFY' });
  });

  it('adds schema findings of the migrated config when asked', () => {
    const r = migrateDocument({ config: { type: 'SPLITTER', identifierRules: 'x' } }, { ...UP, validate: true });
    expect(r.warnings).toEqual([]);
    const bad = migrateDocument({ config: { type: 'SPLITTER', customSplitterRules: 5 } }, { ...UP, validate: true });
    expect(bad.warnings).toEqual([{ pointer: '/config/splitRules', message: '2025-04-21 schema: must be string' }]);
  });
});

describe('migrateText', () => {
  it('invalid JSON names the line and column', () => {
    const r = migrateText('{\n  "type": "EXTRACT",\n  "schema": {,}\n}\n', 'bad.json', UP);
    expect(r.status).toBe('error');
    expect(r.errors[0]).toMatchObject({ location: { file: 'bad.json', line: 3, column: 14 } });
    expect(r.errors[0].message).toMatch(/invalid JSON/);
  });

  it('JSONL: errors and findings carry the line; the patch addresses records', () => {
    const text = '{"type":"SPLITTER","customSplitterRules":"a"}\n\n{"type":"SPLITTER","customReminders":"b"}\n';
    const r = migrateText(text, 'x.jsonl', { ...UP, jsonl: true });
    expect(r.status).toBe('error');
    expect(r.errors[0]).toMatchObject({ location: { file: 'x.jsonl', line: 3, pointer: '/customReminders' } });
    const ok = migrateText(text, 'x.jsonl', { ...UP, jsonl: true, allowLossy: true, patch: true });
    expect(ok.dropped).toEqual([{ pointer: '/customReminders', key: 'customReminders', value: 'b', line: 3 }]);
    expect(ok.patch).toEqual([
      { op: 'move', from: '/0/customSplitterRules', path: '/0/splitRules' },
      { op: 'remove', path: '/1/customReminders' },
    ]);
    expect(ok.text).toBe('{"type":"SPLITTER","splitRules":"a"}\n\n{"type":"SPLITTER"}\n');
  });

  it('one bad config fails the whole file, naming every problem', () => {
    const r = migrateText('[{"type":"SPLITTER","customReminders":1},{"type":"NOPE","fields":[]}]', 'x.json', UP);
    expect(r.status).toBe('error');
    expect(r.errors.map((e) => e.location.pointer)).toEqual(['/0/customReminders', '/1/type']);
    expect(r.text).toBeNull();
  });

  it('a document with no config says so when asked', () => {
    const r = migrateText('{"name":"evalkit"}', 'package.json', { ...UP, warnIfEmpty: true });
    expect(r.status).toBe('unchanged');
    expect(r.warnings[0].message).toMatch(/no processor config/);
  });
});

describe('validateConfig', () => {
  it.each([
    ['valid EXTRACT', { type: 'EXTRACT', schema: { type: 'object' }, advancedOptions: { citationsEnabled: true, chunkingOptions: { chunkingStrategy: 'semantic' } } }, '2025-04-21', []],
    ['EXTRACT needs schema or fields', { type: 'EXTRACT' }, '2025-04-21', [{ pointer: '', message: 'missing required member "schema"' }]],
    ['enum member', { type: 'SPLITTER', advancedOptions: { splitMethod: 'fast' } }, '2025-04-21', [{ pointer: '/advancedOptions/splitMethod', message: 'must be one of "high_precision", "low_latency"' }]],
    ['classification item', { type: 'CLASSIFY', classifications: [{ id: 'a', description: 'x' }] }, '2025-04-21', [{ pointer: '/classifications/0', message: 'missing required member "type"' }]],
    ['baseVersion needs baseProcessor', { type: 'CLASSIFY', baseVersion: '1.0' }, '2025-04-21', [{ pointer: '', message: '"baseVersion" needs "baseProcessor"' }]],
    ['fields form: enum needs enum', { type: 'EXTRACT', fields: [{ id: 'a', name: 'A', type: 'enum', description: 'x' }] }, '2024-11-14', [{ pointer: '/fields/0', message: 'missing required member "enum"' }]],
    ['old layout types', { type: 'EXTRACT', schema: {}, includeBoundingBoxCitations: 'yes' }, '2024-11-14', [{ pointer: '/includeBoundingBoxCitations', message: 'must be boolean' }]],
    // The schemas describe the layouts; unknown keys are migrate's to refuse (--allow-unknown), not a schema finding.
    ['unknown keys are no schema finding', { type: 'SPLITTER', teamNote: 1, advancedOptions: { futureOption: true } }, '2025-04-21', []],
  ] as const)('%s', (_name, config, layout, findings) => {
    expect(validateConfig(config, layout)).toEqual(findings);
  });

  it('needs a type', () => {
    expect(validateConfig({ fields: [] }, '2025-04-21')).toEqual([{ pointer: '', message: 'cannot tell the processor type; add "type" to the config' }]);
    expect(validateConfig({ fields: [] }, '2025-04-21', 'EXTRACT')).toEqual([]);
  });
});

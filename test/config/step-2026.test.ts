/**
 * The step 2025-04-21 <-> 2026-02-09, row by row of MAPPING_2026 in both directions, its structural
 * rules, the chain (2024-11-14 <-> 2026-02-09 in one call), detection and the envelopes of 2026-02-09.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/util/errors.js';
import { migrateConfig, migrateDocument, migrateText, validateConfig } from '../../src/config/index.js';
import { MAPPING_2026, type Row2026 } from '../../src/config/mapping-2026-02-09.js';
import { splitUp } from '../../src/config/step-2026-02-09.js';
import type { MigrateOptions, ProcessorType } from '../../src/config/index.js';

const UP: MigrateOptions = { to: '2026-02-09' };
const DOWN: MigrateOptions = { to: '2025-04-21' };

function thrown(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('expected an InputError');
}

/** A concrete path for a row's path: `[]` is item 0, `x*` is `xSheets`. */
function concrete(path: readonly string[]): Array<string | number> {
  return path.map((s) => (s === '[]' ? 0 : s.endsWith('*') ? `${s.slice(0, -1)}Sheets` : s));
}

function put(obj: Record<string, unknown>, path: ReadonlyArray<string | number>, value: unknown): Record<string, unknown> {
  let cur: Record<string | number, unknown> = obj;
  path.forEach((seg, i) => {
    if (i === path.length - 1) {
      cur[seg] = value;
      return;
    }
    const nextIsItem = typeof path[i + 1] === 'number';
    cur[seg] ??= nextIsItem ? [{ id: 'a', type: 'a', description: 'a' }] : {};
    cur = cur[seg] as Record<string | number, unknown>;
  });
  return obj;
}

function get(obj: unknown, path: ReadonlyArray<string | number>): unknown {
  let cur = obj;
  for (const seg of path) cur = cur === null || typeof cur !== 'object' ? undefined : (cur as Record<string | number, unknown>)[seg];
  return cur;
}

const lowerBase = (t: ProcessorType): Record<string, unknown> => (t === 'EXTRACT' ? { type: t, schema: {} } : t === 'CLASSIFY' ? { type: t, classifications: [] } : { type: t });
const upperBase = (t: ProcessorType): Record<string, unknown> => (t === 'EXTRACT' ? { schema: {} } : t === 'CLASSIFY' ? { classifications: [] } : { splitClassifications: [] });
const label = (r: Row2026, t: ProcessorType, side: 'lower' | 'upper') => `${t} ${r[side]!.join('.')}${r[`${side}Value`] ? `=${r[`${side}Value`]}` : ''}`;

const upRows = MAPPING_2026.flatMap((r) => (r.lower ? r.types.map((t) => [label(r, t, 'lower'), r, t] as const) : []));
const downRows = MAPPING_2026.flatMap((r) => (r.upper ? r.types.map((t) => [label(r, t, 'upper'), r, t] as const) : []));

describe('MAPPING_2026 up (2025-04-21 -> 2026-02-09), row by row', () => {
  it.each(upRows)('%s', (_name, r, t) => {
    const path = concrete(r.lower!);
    const value = r.lowerValue ?? (r.route ? t : path.includes('fixedPageLimit') ? 4 : 'v');
    const input = put(lowerBase(t), path, value);
    if (r.route) {
      const out = migrateConfig(input, UP);
      expect(out.doc).not.toHaveProperty('type');
      expect(out).toMatchObject({ from: '2025-04-21', type: t, dropped: [] });
      return;
    }
    if (r.upper && r.lowerValue === undefined) {
      // A rename: the value moves, nothing is lost.
      const out = migrateConfig(input, UP);
      expect(get(out.doc, concrete(r.upper))).toEqual(value);
      expect(get(out.doc, path)).toBeUndefined();
      expect(out.dropped).toEqual([]);
      return;
    }
    // No counterpart (or an INFERRED one): refused by default, naming the key.
    const e = thrown(() => migrateConfig(input, UP));
    expect(e.message).toContain('no counterpart in 2026-02-09');
    expect(e.location.pointer).toBe(`/${path.join('/')}`);
    if (r.inferred) expect(e.hint).toContain(`--infer ${r.inferred}`);
    const lossy = migrateConfig(input, { ...UP, allowLossy: true });
    expect(get(lossy.doc, path)).toBeUndefined();
    expect(lossy.dropped).toEqual([{ pointer: `/${path.join('/')}`, key: path.join('.'), value }]);
    if (r.inferred) {
      const inferred = migrateConfig(input, { ...UP, infer: [r.inferred] });
      expect(inferred.dropped).toEqual([]);
      expect(inferred.warnings.map((w) => w.message).join()).toContain('INFERRED');
      if (r.upper) expect(get(inferred.doc, concrete(r.upper))).toBe(r.upperValue);
      else expect(get(inferred.doc, ['advancedOptions', 'pageRanges'])).toEqual([{ start: 1, end: 4 }]);
    }
  });
});

describe('MAPPING_2026 down (2026-02-09 -> 2025-04-21), row by row', () => {
  it.each(downRows)('%s', (_name, r, t) => {
    const path = concrete(r.upper!);
    const value = r.upperValue ?? (r.defaultValue !== undefined ? true : 'v');
    const input = put(upperBase(t), path, value);
    if (r.lower && r.upperValue === undefined) {
      const out = migrateConfig(input, DOWN);
      expect(get(out.doc, concrete(r.lower))).toEqual(value);
      expect(out.dropped).toEqual([]);
      expect(out.doc).toMatchObject({ type: t });
      return;
    }
    const e = thrown(() => migrateConfig(input, DOWN));
    expect(e.message).toContain('no counterpart in 2025-04-21');
    expect(e.location.pointer).toBe(`/${path.join('/')}`);
    const lossy = migrateConfig(input, { ...DOWN, allowLossy: true });
    expect(get(lossy.doc, path)).toBeUndefined();
    expect(lossy.dropped).toEqual([{ pointer: `/${path.join('/')}`, key: path.join('.'), value }]);
    if (r.inferred && r.lower) expect(get(migrateConfig(input, { ...DOWN, infer: [r.inferred] }).doc, concrete(r.lower))).toBe(r.lowerValue);
    if (r.defaultValue !== undefined) {
      // The default value means what its absence means: dropped without --allow-lossy, and not listed.
      const out = migrateConfig(put(upperBase(t), path, r.defaultValue), DOWN);
      expect(get(out.doc, path)).toBeUndefined();
      expect(out.dropped).toEqual([]);
      expect(out.changed).toBe(true);
    }
  });
});

describe('the step rules no single key carries', () => {
  it('going down adds `type` first (an override gets none) and a baseProcessor beside a baseVersion', () => {
    const out = migrateConfig({ baseVersion: '1.2', schema: { type: 'object' } }, { ...DOWN, from: '2026-02-09' });
    expect(Object.keys(out.doc as object)).toEqual(['type', 'baseProcessor', 'baseVersion', 'schema']);
    expect(out.doc).toMatchObject({ type: 'EXTRACT', baseProcessor: 'extraction_performance' });
    expect(out.warnings.map((w) => w.message).join()).toContain('added "baseProcessor"');
    expect(validateConfig(out.doc, '2025-04-21')).toEqual([]);
  });

  it.each([
    ['a fields-form EXTRACT config going up', { type: 'EXTRACT', fields: [{ id: 'a', name: 'a', type: 'string', description: 'a' }] }, UP, 'no 2026-02-09 form', '/fields'],
    ['a page range without its end going up', { type: 'CLASSIFY', classifications: [], advancedOptions: { pageRanges: [{ start: 1, end: 2 }, { start: 3 }] } }, UP, 'without end', '/advancedOptions/pageRanges/1'],
    ['--infer fixedPageLimit beside a pageRanges', { type: 'SPLITTER', advancedOptions: { fixedPageLimit: 3, pageRanges: [{ start: 1, end: 2 }] } }, { ...UP, infer: ['fixedPageLimit' as const] }, 'would overwrite pageRanges', '/advancedOptions/fixedPageLimit'],
    ['--infer fixedPageLimit of a value that is no page count', { type: 'SPLITTER', advancedOptions: { fixedPageLimit: 'all' } }, { ...UP, infer: ['fixedPageLimit' as const] }, 'whole number', '/advancedOptions/fixedPageLimit'],
  ] as const)('refuses %s', (_name, doc, opts, message, pointer) => {
    const e = thrown(() => migrateConfig(doc, opts));
    expect(e.message).toContain(message);
    expect(e.location.pointer).toBe(pointer);
    expect(e.hint).toBeTruthy();
    expect(e.exitCode).toBe(2);
  });

  it('an EXTRACT config without schema goes down as it is; the 2025-04-21 schema check names what it lacks', () => {
    const r = migrateDocument({ extractionRules: 'r', parseConfig: {} }, { ...DOWN, type: 'EXTRACT', from: '2026-02-09', validate: true });
    expect(r.doc).toEqual({ type: 'EXTRACT', extractionRules: 'r', parser: {} });
    expect(r.warnings.map((w) => w.message)).toContain('2025-04-21 schema: missing required member "schema"');
  });

  it('a dropped member inside a renamed object: parser.advancedOptions.agenticOcrEnabled', () => {
    const out = migrateConfig({ type: 'EXTRACT', schema: {}, parser: { target: 'markdown', advancedOptions: { agenticOcrEnabled: true, pageRotationEnabled: true } } }, { ...UP, allowLossy: true });
    expect(out.doc).toEqual({ schema: {}, parseConfig: { target: 'markdown', advancedOptions: { pageRotationEnabled: true } } });
    expect(out.dropped).toEqual([{ pointer: '/parser/advancedOptions/agenticOcrEnabled', key: 'parser.advancedOptions.agenticOcrEnabled', value: true }]);
  });
});

describe('the chain: 2024-11-14 <-> 2026-02-09 in one call', () => {
  const old = { type: 'EXTRACT', customExtractionRules: 'r', includeBoundingBoxCitations: true, schema: { type: 'object' }, parser: { target: 'markdown' } };
  const now = { extractionRules: 'r', advancedOptions: { citationsEnabled: true }, schema: { type: 'object' }, parseConfig: { target: 'markdown' } };

  it('up composes both steps into one patch', () => {
    const r = migrateConfig(old, UP);
    expect(r).toMatchObject({ from: '2024-11-14', to: '2026-02-09', type: 'EXTRACT', changed: true, dropped: [] });
    expect(JSON.stringify(r.doc)).toBe(JSON.stringify(now));
    const ops = [
      { op: 'remove', path: '/type' },
      { op: 'remove', path: '/includeBoundingBoxCitations' },
      { op: 'move', from: '/customExtractionRules', path: '/extractionRules' },
      { op: 'move', from: '/parser', path: '/parseConfig' },
      { op: 'add', path: '/advancedOptions', value: { citationsEnabled: true } },
    ];
    expect(r.patch).toHaveLength(ops.length);
    expect(r.patch).toEqual(expect.arrayContaining(ops));
    expect(validateConfig(r.doc, '2026-02-09', 'EXTRACT')).toEqual([]);
  });

  it('down gives the 2024-11-14 config back', () => {
    const r = migrateConfig(now, { to: '2024-11-14' });
    expect(r).toMatchObject({ from: '2026-02-09', type: 'EXTRACT', dropped: [] });
    expect(r.doc).toEqual(old);
  });

  it('the text keeps its formatting; keys of a later step are named where the input has them', () => {
    const text = '{\n    "type": "SPLITTER",\n    "customReminders": "x",\n    "identifierRules": "i",\n    "subDocumentClassifications": []\n}\n';
    const r = migrateText(text, 'a.json', { ...UP, allowLossy: true });
    expect(r.text).toBe('{\n    "advancedOptions": {\n        "splitIdentifierRules": "i"\n    },\n    "splitClassifications": []\n}\n');
    expect(r.dropped.map((d) => d.pointer)).toEqual(['/customReminders']);
  });
});

describe('which layout a config is in', () => {
  it('keys of 2024-11-14 and 2026-02-09 in one config are mixed', () => {
    const e = thrown(() => migrateConfig({ customExtractionRules: 'x', parseConfig: {}, schema: {} }, UP));
    expect(e.message).toMatch(/mixed layouts in one EXTRACT config: \/customExtractionRules \(2024-11-14\) and \/parseConfig \(2026-02-09\)/);
    expect(e.location.pointer).toBe('/customExtractionRules');
  });

  it('a 2026-02-09 config with --from 2024-11-14 is refused', () => {
    const e = thrown(() => migrateConfig({ schema: {}, parseConfig: { engine: 'parse_light' } }, { ...UP, from: '2024-11-14' }));
    expect(e.message).toContain('not in the 2024-11-14 layout (--from): its keys are those of 2026-02-09');
    expect(e.hint).toContain('--from 2026-02-09');
  });

  it('a config that reads the same in several layouts: the API version in effect settles it when they migrate it differently', () => {
    const doc = { schema: { type: 'object' } };
    // As 2025-04-21 it stays; as 2026-02-09 it needs its type back.
    expect(migrateConfig(doc, { ...DOWN, type: 'EXTRACT' })).toMatchObject({ from: '2025-04-21', changed: false });
    expect(migrateConfig(doc, { ...DOWN, type: 'EXTRACT', inEffect: '2026-02-09' })).toMatchObject({ from: '2026-02-09', changed: true, doc: { type: 'EXTRACT', schema: {} } });
    // Alike in every layout: no choice needed.
    expect(migrateConfig({ type: 'EXTRACT', schema: {} }, { to: '2024-11-14' })).toMatchObject({ from: null, changed: false });
    expect(migrateConfig({ type: 'EXTRACT', schema: {} }, UP)).toMatchObject({ changed: true, doc: { schema: {} } });
    // The keys allow 2025-04-21 and 2026-02-09, which migrate it differently, and not the version in effect: --from is asked for.
    const two = { schema: {}, advancedOptions: { citationsEnabled: true } };
    const e = thrown(() => migrateConfig(two, { to: '2024-11-14', inEffect: '2024-11-14' }));
    expect(e.message).toContain('reads as 2025-04-21 or 2026-02-09, which migrate it differently to 2024-11-14');
    expect(e.hint).toContain('--from 2025-04-21 or --from 2026-02-09');
    expect(migrateConfig(two, { to: '2024-11-14', from: '2026-02-09' }).doc).toEqual({ type: 'EXTRACT', schema: {}, includeBoundingBoxCitations: true });
  });

  it('a 2026-02-09 option settles the type', () => {
    expect(migrateConfig({ classifications: [], advancedOptions: { memoryEnabled: false } }, DOWN)).toMatchObject({ type: 'CLASSIFY', from: '2026-02-09' });
  });
});

describe('2026-02-09 envelopes', () => {
  it('a /processors object or body (`processorType`, `type` beside `config`) reads its config as 2025-04-21 whatever the version in effect', () => {
    const doc = [
      { object: 'document_processor_version', id: 'dpv_1', processorType: 'EXTRACT', version: '1.0', config: { schema: {} } },
      { name: 'p', type: 'CLASSIFY', config: { classifications: [] } },
    ];
    for (const inEffect of ['2025-04-21', '2026-02-09'] as const) {
      const r = migrateDocument(doc, { ...DOWN, inEffect });
      expect(r.items.map((i) => [i.pointer, i.from]), inEffect).toEqual([
        ['/0/config', '2025-04-21'],
        ['/1/config', '2025-04-21'],
      ]);
      expect(r.doc, inEffect).toEqual(doc);
    }
  });

  it('a config every layout its keys allow refuses alike gets that refusal, not a question about its layout', () => {
    const fieldsForm = { type: 'EXTRACT', fields: [{ id: 'a', name: 'a', type: 'string', description: 'A' }] };
    for (const inEffect of ['2025-04-21', '2026-02-09'] as const) {
      const e = thrown(() => migrateConfig(fieldsForm, { ...UP, inEffect }));
      expect(e.message, inEffect).toContain('a fields-form EXTRACT config has no 2026-02-09 form');
      expect(e.location.pointer).toBe('/fields');
    }
  });

  it('an extractor, its version and a run body: the kind from `object`, the layout from the envelope', () => {
    const doc = [
      { object: 'extractor', id: 'ex_1', name: 'x', draftVersion: { object: 'extractor_version', id: 'exv_1', config: { schema: {} } } },
      { object: 'classifier_version', id: 'clv_1', config: { classifications: [] } },
      { extractor: { id: 'ex_1', overrideConfig: { advancedOptions: { citationMode: 'word' } } }, file: { id: 'file_1' } },
    ];
    const r = migrateDocument(doc, { ...DOWN, allowLossy: true });
    expect(r.items.map((i) => [i.pointer, i.type, i.from])).toEqual([
      ['/0/draftVersion/config', 'EXTRACT', '2026-02-09'],
      ['/1/config', 'CLASSIFY', '2026-02-09'],
      ['/2/extractor/overrideConfig', 'EXTRACT', '2026-02-09'],
    ]);
    const out = r.doc as Array<Record<string, Record<string, unknown>>>;
    expect((out[0].draftVersion as Record<string, unknown>).config).toEqual({ type: 'EXTRACT', schema: {} });
    expect(out[1].config).toEqual({ type: 'CLASSIFY', classifications: [] });
    // An override names only what it replaces: no type is added to it.
    expect((out[2].extractor as Record<string, unknown>).overrideConfig).toEqual({ advancedOptions: {} });
  });

  it('an override config is checked against the layout with every member optional (no "missing required member")', () => {
    const body = { extractor: { id: 'ex_1', overrideConfig: { parseConfig: { target: 'spatial' } } }, file: { id: 'file_1' } };
    const down = migrateDocument(body, { ...DOWN, validate: true });
    expect(down.warnings).toEqual([]);
    const classifier = { classifier: { id: 'cl_1', overrideConfig: { advancedOptions: { memoryEnabled: true } } }, file: { id: 'file_1' } };
    expect(migrateDocument(classifier, { to: '2026-02-09', validate: true }).warnings).toEqual([]);
    // A member of the wrong kind still is one.
    const wrong = { extractor: { id: 'ex_1', overrideConfig: { parseConfig: { target: 3 } } }, file: { id: 'file_1' } };
    expect(migrateDocument(wrong, { to: '2026-02-09', validate: true }).warnings.map((w) => w.pointer)).toEqual(['/extractor/overrideConfig/parseConfig/target']);
  });
});

describe('expected outputs between 2025-04-21 and 2026-02-09 (spec 3.7)', () => {
  const split = (id: string | undefined, first: number, more: Record<string, unknown> = {}) => ({ ...(id ? { id } : {}), classificationId: 'inv', type: 'invoice', startPage: first, endPage: first, ...more });

  it('CLASSIFY: confidence is dropped going up, without loss when it is 1', () => {
    const items = [{ fileId: 'file_1', expectedOutput: { id: 'inv', type: 'invoice', confidence: 0.8 } }, { fileId: 'file_2', expectedOutput: { id: 'inv', type: 'invoice', confidence: 1 } }];
    const e = thrown(() => migrateDocument(items, UP));
    expect(e.message).toContain('no counterpart in 2026-02-09: /0/expectedOutput/confidence');
    const r = migrateDocument(items, { ...UP, allowLossy: true });
    expect(r.doc).toEqual([{ fileId: 'file_1', expectedOutput: { id: 'inv', type: 'invoice' } }, { fileId: 'file_2', expectedOutput: { id: 'inv', type: 'invoice' } }]);
    expect(r.dropped).toEqual([{ pointer: '/0/expectedOutput/confidence', key: 'confidence', value: 0.8 }]);
    expect(r.items.map((i) => [i.pointer, i.kind, i.type, i.from])).toEqual([
      ['/0/expectedOutput', 'output', 'CLASSIFY', '2025-04-21'],
      ['/1/expectedOutput', 'output', 'CLASSIFY', '2025-04-21'],
    ]);
    // Nothing to change going down.
    expect(migrateDocument(r.doc, DOWN).changed).toBe(false);
  });

  it('SPLITTER: id, identifier and observation are dropped going up (an id equal to the generated one without loss); ids come back as split_<n>', () => {
    const item = { object: 'evaluation_set_item', expectedOutput: { splits: [split('split_1', 1), split('INV-7', 2, { identifier: 'INV-7', observation: 'o' })] } };
    const e = thrown(() => migrateDocument(item, UP));
    expect(e.message).toContain('3 keys have no counterpart in 2026-02-09: /expectedOutput/splits/1/id, /expectedOutput/splits/1/identifier, /expectedOutput/splits/1/observation');
    const up = migrateDocument(item, { ...UP, allowLossy: true });
    expect(up.doc).toEqual({ object: 'evaluation_set_item', expectedOutput: { splits: [split(undefined, 1), split(undefined, 2)] } });
    expect(up.dropped.map((d) => d.value)).toEqual(['INV-7', 'INV-7', 'o']);
    const down = migrateDocument(up.doc, DOWN);
    expect(down.doc).toEqual({ object: 'evaluation_set_item', expectedOutput: { splits: [split('split_1', 1), split('split_2', 2)] } });
    expect(Object.keys((down.doc as { expectedOutput: { splits: object[] } }).expectedOutput.splits[0])[0]).toBe('id');
    expect(down.items[0]).toMatchObject({ from: '2026-02-09', changed: true });
    // Deterministic: down twice gives the same ids; up again drops them without loss.
    expect(migrateDocument(down.doc, DOWN).changed).toBe(false);
    expect(migrateDocument(down.doc, UP)).toMatchObject({ doc: up.doc, dropped: [] });
  });

  it('2024-11-14 -> 2026-02-09 and back in one call: the list key and the ids', () => {
    const old = { subDocumentClassifications: [split('split_1', 1), split('split_2', 3)] };
    const up = migrateText(JSON.stringify(old, null, 2), 'out.json', UP);
    expect(up.errors).toEqual([]);
    expect(JSON.parse(up.text!)).toEqual({ splits: [split(undefined, 1), split(undefined, 3)] });
    const down = migrateText(up.text!, 'out.json', { to: '2024-11-14' });
    expect(JSON.parse(down.text!)).toEqual(old);
    expect(down.items[0]).toMatchObject({ kind: 'output', from: '2026-02-09' });
  });

  it('run outputs keep their form (spec 3.8): only expected outputs change', () => {
    const run = { object: 'document_processor_run', type: 'SPLITTER', output: { splits: [split('s1', 1, { identifier: 'x' })] } };
    expect(migrateDocument(run, UP)).toMatchObject({ changed: false, dropped: [] });
  });

  it('a fields-form EXTRACT expected output is refused going up', () => {
    const item = { type: 'EXTRACT', expectedOutput: { total: { id: 'total', value: 3 } } };
    const e = thrown(() => migrateDocument(item, UP));
    expect(e.message).toContain('fields-form EXTRACT expected output');
    expect(e.location.pointer).toBe('/expectedOutput');
  });
});

describe('splitUp (one split of a SPLITTER expected output going up)', () => {
  it('drops id, identifier and observation, reports what is lost (not an id going down gives back), keeps the rest in order', () => {
    const lost: Array<[string, unknown]> = [];
    const split = { id: 'split_2', classificationId: 'c', identifier: 'INV-1', startPage: 1, observation: 'o', endPage: 2 };
    const r = splitUp(split, 1, (k, v) => lost.push([k, v]));
    expect(r).toEqual({ kept: { classificationId: 'c', startPage: 1, endPage: 2 }, drop: ['id', 'identifier', 'observation'] });
    expect(Object.keys(r!.kept)).toEqual(['classificationId', 'startPage', 'endPage']);
    expect(lost).toEqual([['identifier', 'INV-1'], ['observation', 'o']]);
    expect(split.id).toBe('split_2');
    const other: Array<[string, unknown]> = [];
    expect(splitUp({ id: 'a', startPage: 1 }, 0, (k, v) => other.push([k, v]))?.drop).toEqual(['id']);
    expect(other).toEqual([['id', 'a']]);
    expect(splitUp({ startPage: 1, endPage: 1 }, 0, () => undefined)).toBeNull();
  });
});

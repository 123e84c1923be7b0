import { describe, expect, it } from 'vitest';
import { migrateTree } from '../../src/config/document.js';
import { applyTextChanges } from '../../src/config/text.js';
import { migrateText } from '../../src/config/files.js';

const OLD = '{\n  "processor": {\n    "type": "EXTRACT",\n    "config": {\n      "type": "EXTRACT",\n      "customExtractionRules": "r",\n      "includeBoundingBoxCitations": true\n    }\n  },\n  "output": {"subDocumentClassifications": [{"startPage": 1}]}\n}\n';

function changesOf(text: string) {
  return migrateTree(JSON.parse(text), { to: '2025-04-21' });
}

describe('applyTextChanges', () => {
  it('rewrites only what migration changes, and the text holds the migrated document', () => {
    const r = changesOf(OLD);
    const next = applyTextChanges(OLD, r.textChanges, r.doc);
    expect(JSON.parse(next)).toEqual(r.doc);
    expect(next).toContain('"output": {"splits": [{"startPage": 1}]}');
    expect(next).toContain('      "extractionRules": "r",\n      "advancedOptions": {\n        "citationsEnabled": true\n      }\n');
  });

  it('refuses a re-laid-out object that would not parse to the migrated one, naming its pointer', () => {
    const r = changesOf(OLD);
    const doc = structuredClone(r.doc) as { processor: { config: Record<string, unknown> } };
    doc.processor.config.extractionRules = 'something else';
    expect(() => applyTextChanges(OLD, r.textChanges, doc)).toThrow(/^\/processor\/config: the rewritten object does not parse to the migrated one$/);
  });

  it('refuses a re-laid-out object whose members would come out in another order than the migrated one', () => {
    const r = changesOf(OLD);
    const doc = structuredClone(r.doc) as { processor: { config: Record<string, unknown> } };
    const { type, ...rest } = doc.processor.config;
    doc.processor.config = { ...rest, type };
    expect(() => applyTextChanges(OLD, r.textChanges, doc)).toThrow(/^\/processor\/config: the rewritten object does not parse to the migrated one$/);
  });

  it('refuses renames that would not leave exactly the keys of the migrated object', () => {
    const text = '{"expectedOutput": {"subDocumentClassifications": [{"startPage": 1}], "note": 1}}';
    const r = changesOf(text);
    expect(() => applyTextChanges(text, r.textChanges, { expectedOutput: { splits: [{ startPage: 1 }] } })).toThrow(/^\/expectedOutput: the renamed keys are not those of the migrated object$/);
  });

  it('refuses to rewrite an object that holds a key twice (JSON.parse keeps the last: the other value would be dropped)', () => {
    const text = '{"expectedOutput": {"subDocumentClassifications": [{"startPage": 1}], "note": 1, "subDocumentClassifications": [{"startPage": 2}]}}';
    const r = changesOf(text);
    expect(r.doc).toEqual({ expectedOutput: { splits: [{ startPage: 2 }], note: 1 } });
    expect(() => applyTextChanges(text, r.textChanges, r.doc)).toThrow(expect.objectContaining({ name: 'InputError', message: '"subDocumentClassifications" appears twice in this object: migrating it would keep the last value and drop the other', location: { pointer: '/expectedOutput' } }));
    // Inside advancedOptions, read member by member when migrating down.
    const down = '{"type": "EXTRACT", "advancedOptions": {"citationsEnabled": true, "citationsEnabled": false}}';
    const d = migrateText(down, 'x.json', { to: '2024-11-14' });
    expect(d.status).toBe('error');
    expect(d.errors[0]).toMatchObject({ message: expect.stringContaining('"citationsEnabled" appears twice'), location: { pointer: '/advancedOptions' } });
    // A key twice where nothing is rewritten is left as it is (every byte kept).
    const kept = '{"type": "EXTRACT", "extractionRules": "a", "schema": {"x": 1, "x": 2}}';
    expect(migrateText(kept, 'k.json', { to: '2025-04-21' }).status).toBe('unchanged');
  });

  it.each([
    // advancedOptions rebuilt with values only (no member read from it): the 3 vanished into pageRanges' 4.
    ['an option inferred', '{"type": "SPLITTER", "splitClassifications": [], "advancedOptions": {"splitMethod": "low_latency", "fixedPageLimit": 3, "fixedPageLimit": 4}}', { to: '2026-02-09', infer: ['fixedPageLimit', 'splitMethod'] }, 'fixedPageLimit', '/advancedOptions'],
    // advancedOptions dropped whole: the listing named "default" only, "max" went unlisted.
    ['an object dropped (listed)', '{"type": "CLASSIFY", "classifications": [], "advancedOptions": {"context": "max", "context": "default"}}', { to: '2024-11-14', allowLossy: true }, 'context', '/advancedOptions'],
    // parser replaced by parseConfig: the key twice two levels down in what is taken apart.
    ['a nested object taken apart', '{"type": "EXTRACT", "schema": {}, "parser": {"advancedOptions": {"agenticOcrEnabled": true, "agenticOcrEnabled": false}}}', { to: '2026-02-09', allowLossy: true }, 'agenticOcrEnabled', '/parser/advancedOptions'],
    // A split's dropped member whose value holds a key twice.
    ['a dropped member of a split', '{"type": "SPLITTER", "expectedOutput": {"splits": [{"id": "s", "startPage": 1, "endPage": 1, "type": "a", "observation": {"k": 1, "k": 2}}]}}', { to: '2026-02-09', allowLossy: true }, 'k', '/expectedOutput/splits/0/observation'],
  ] as const)('refuses a key twice inside what is rewritten, dropped or listed: %s', (_name, text, opts, key, pointer) => {
    const r = migrateText(text, 'x.json', opts as never);
    expect(r.status).toBe('error');
    expect(r.text).toBeNull();
    expect(r.errors[0]).toMatchObject({ message: `"${key}" appears twice in this object: migrating it would keep the last value and drop the other`, location: { pointer } });
  });

  it('keeps a key twice inside a member copied whole (renamed or moved, every byte kept)', () => {
    const text = '{"type": "CLASSIFY", "fields": [{"id": "a", "type": "a", "description": "d", "description": "e"}], "customClassificationRules": "r"}';
    const r = migrateText(text, 'k.json', { to: '2025-04-21' });
    expect(r.status).toBe('migrated');
    expect(r.text).toContain('"classifications": [{"id": "a", "type": "a", "description": "d", "description": "e"}]');
  });

  it('skips brackets, braces and escaped quotes inside strings when finding where values end', () => {
    const text = '{"a": "}]\\"{[", "b": ["[", {"c": "\\\\"}], "expectedOutput": {"x": "{\\"", "subDocumentClassifications": [{"startPage": 1, "id": "]}"}]}}\n';
    const r = changesOf(text);
    const next = applyTextChanges(text, r.textChanges, r.doc);
    expect(JSON.parse(next)).toEqual(r.doc);
    expect(next).toBe(text.replace('"subDocumentClassifications"', '"splits"'));
  });

  it('finds where values end in texts after a longer one, past 65,536 and 1,048,576 characters and past 256 levels of nesting (the scan reuses its tables up to a size)', () => {
    const deep = (n: number): string => (n === 0 ? '1' : `[${deep(n - 1)}]`);
    const inner = `{"expectedOutput": {"a": ${deep(20)}, "subDocumentClassifications": [{"startPage": 1}], "z": {"q": [1, {"r": 2}]}}}`;
    const big = `{"pad": ${JSON.stringify('x'.repeat(70_000))}, "deep": ${deep(300)}, "items": ${'{"k": '.repeat(280)}${inner}${'}'.repeat(280)}}`;
    // A short text whose brackets sit at offsets where the long one had others, before and after it.
    const small = '{"expectedOutput": {"b": [[{}], {"c": [2]}], "subDocumentClassifications": [], "d": {}}}';
    // Past the size of table the scan keeps: scanned with a table of its own.
    const huge = `{"pad": ${JSON.stringify('y'.repeat(1_100_000))}, "expectedOutput": {"a": [[1], {"b": 2}], "subDocumentClassifications": [{"startPage": 1}]}}`;
    for (const text of [small, big, small, huge, big, small]) {
      const r = changesOf(text);
      const next = applyTextChanges(text, r.textChanges, r.doc);
      expect(next).toBe(text.replace('"subDocumentClassifications"', '"splits"'));
      expect(JSON.parse(next)).toEqual(r.doc);
    }
  });
});

describe('members left out, in place', () => {
  const cut = (text: string, keep: Array<[string, string]>) => {
    const members = keep.map(([key, from]) => ({ key, from: [from] }));
    const src = JSON.parse(text) as Record<string, unknown>;
    const migrated: Record<string, unknown> = {};
    for (const [key, from] of keep) migrated[key] = src[from];
    return applyTextChanges(text, [{ path: [], members, inPlace: true }], migrated);
  };

  it.each([
    ['the first member', '{\n  "a": 1,\n  "b": [1, 2],\n  "c": {"x": 1}\n}', [['b', 'b'], ['c', 'c']], '{\n  "b": [1, 2],\n  "c": {"x": 1}\n}'],
    ['the first two', '{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}', [['c', 'c']], '{\n  "c": 3\n}'],
    ['one in the middle', '{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}', [['a', 'a'], ['c', 'c']], '{\n  "a": 1,\n  "c": 3\n}'],
    ['the last two', '{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}', [['a', 'a']], '{\n  "a": 1\n}'],
    ['every other one, with a rename', '{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}', [['B', 'b'], ['d', 'd']], '{"B": 2, "d": 4}'],
    ['all of them', '{\r\n\t"a": 1,\r\n\t"b": 2\r\n}', [], '{}'],
    ['in a one-line object with odd gaps (kept as they were)', '{ "a" :1 ,"b":  2,   "c":3 }', [['a', 'a'], ['c', 'c']], '{ "a" :1,   "c":3 }'],
  ] as Array<[string, string, Array<[string, string]>, string]>)('%s', (_name, text, keep, want) => {
    const next = cut(text, keep);
    expect(next).toBe(want);
    expect(JSON.parse(next)).toEqual(Object.fromEntries(keep.map(([k, f]) => [k, (JSON.parse(text) as Record<string, unknown>)[f]])));
  });

  it('is checked like a rename: keys other than those of the migrated object, or out of the object\'s order, are refused', () => {
    const text = '{"a": 1, "b": 2, "c": 3}';
    const members = [{ key: 'a', from: ['a'] }, { key: 'c', from: ['c'] }];
    expect(() => applyTextChanges(text, [{ path: [], members, inPlace: true }], { a: 1, b: 2 })).toThrow(/^\/: the keys kept in place are not those of the migrated object$/);
    expect(() => applyTextChanges(text, [{ path: [], members: [...members].reverse(), inPlace: true }], { c: 3, a: 1 })).toThrow(/not in the order of the object/);
    expect(() => applyTextChanges(text, [{ path: [], members: [{ key: 'a', value: 1 }], inPlace: true }], { a: 1 })).toThrow(/not a key of the object/);
  });

  it('a SPLITTER expected output going up two steps: the list renamed in place, each split\'s id and identifier cut, every other byte kept', () => {
    const text = '[\n  {\n    "fileId": "f",\n    "expectedOutput": {\n      "subDocumentClassifications": [\n        {\n          "id": "s0",\n          "type": "a",\n          "startPage": 1,\n          "endPage": 2,\n          "identifier": "INV-1"\n        },\n        {"id": "split_2", "type": "b", "startPage": 3.0, "endPage": 3}\n      ]\n    }\n  }\n]\n';
    const r = migrateText(text, 'items.json', { to: '2026-02-09', allowLossy: true });
    expect(r.status).toBe('migrated');
    expect(r.text).toBe('[\n  {\n    "fileId": "f",\n    "expectedOutput": {\n      "splits": [\n        {\n          "type": "a",\n          "startPage": 1,\n          "endPage": 2\n        },\n        {"type": "b", "startPage": 3.0, "endPage": 3}\n      ]\n    }\n  }\n]\n');
    expect(r.dropped.map((d) => d.pointer)).toEqual(['/0/expectedOutput/subDocumentClassifications/0/id', '/0/expectedOutput/subDocumentClassifications/0/identifier']);
    // And back: each split gets its id again (split_<n>), the list its 2024-11-14 key.
    const down = migrateText(r.text!, 'items.json', { to: '2024-11-14' });
    expect(JSON.parse(down.text!)).toEqual([{ fileId: 'f', expectedOutput: { subDocumentClassifications: [{ id: 'split_1', type: 'a', startPage: 1, endPage: 2 }, { id: 'split_2', type: 'b', startPage: 3, endPage: 3 }] } }]);
  });
});

describe('members dropped by key, in place', () => {
  const drop = (text: string, keys: string[]) => {
    const src = JSON.parse(text) as Record<string, unknown>;
    const migrated = Object.fromEntries(Object.entries(src).filter(([k]) => !keys.includes(k)));
    return applyTextChanges(text, [{ path: [], drop: keys }], migrated);
  };

  it.each([
    ['the first member', '{\n  "id": "s0",\n  "type": "a",\n  "startPage": 1\n}', ['id'], '{\n  "type": "a",\n  "startPage": 1\n}'],
    ['the first and the last', '{"id": "s0", "type": "a", "identifier": "X"}', ['id', 'identifier'], '{"type": "a"}'],
    ['two apart, in the middle', '{"a": 1, "id": 2, "b": 3, "observation": "o", "c": 4}', ['id', 'observation'], '{"a": 1, "b": 3, "c": 4}'],
    ['two side by side', '{"a": 1, "id": 2, "identifier": 3, "c": 4}', ['id', 'identifier'], '{"a": 1, "c": 4}'],
    ['all of them', '{\r\n\t"id": 1,\r\n\t"identifier": 2\r\n}', ['id', 'identifier'], '{}'],
    ['a key written with an escape', '{"\\u0069d": "s0", "type": "a"}', ['id'], '{"type": "a"}'],
    ['keys the object does not have', '{"type": "a"}', ['id'], '{"type": "a"}'],
  ] as Array<[string, string, string[], string]>)('%s', (_name, text, keys, want) => {
    expect(drop(text, keys)).toBe(want);
  });

  it('is checked like a rename: keys left other than those of the migrated object are refused', () => {
    expect(() => applyTextChanges('{"id": 1, "a": 2}', [{ path: [], drop: ['id'] }], { id: 1, a: 2 })).toThrow(/^\/: the keys left in place are not those of the migrated object$/);
  });
});

describe('several changes in one text', () => {
  it('applies changes given out of document order', () => {
    const text = '{"x": {"a": 1, "b": 2}, "y": {"c": 3, "d": 4}}';
    const next = applyTextChanges(text, [{ path: ['y'], drop: ['d'] }, { path: ['x'], rename: ['a', 'A'] }], { x: { A: 1, b: 2 }, y: { c: 3 } });
    expect(next).toBe('{"x": {"A": 1, "b": 2}, "y": {"c": 3}}');
  });


  it('finds each changed object when paths share a start, leave it and come back (item, output, splits, config)', () => {
    const item = (n: number) => `{"fileId": "f${n}", "expectedOutput": {"subDocumentClassifications": [{"id": "a${n}", "type": "x", "startPage": 1, "endPage": 1}, {"type": "y", "startPage": 2, "endPage": 2, "identifier": "I${n}"}]}}`;
    const text = `[${item(1)}, {"type": "CLASSIFY", "fields": [{"id": "x", "type": "x"}], "customClassificationRules": "r"}, ${item(2)}]`;
    const r = migrateText(text, 'mixed.json', { to: '2026-02-09', allowLossy: true });
    const want = (n: number) => `{"fileId": "f${n}", "expectedOutput": {"splits": [{"type": "x", "startPage": 1, "endPage": 1}, {"type": "y", "startPage": 2, "endPage": 2}]}}`;
    expect(r.text).toBe(`[${want(1)}, {"classifications": [{"id": "x", "type": "x"}], "classificationRules": "r"}, ${want(2)}]`);
    expect(r.dropped.map((d) => d.pointer)).toEqual([
      '/0/expectedOutput/subDocumentClassifications/0/id',
      '/0/expectedOutput/subDocumentClassifications/1/identifier',
      '/2/expectedOutput/subDocumentClassifications/0/id',
      '/2/expectedOutput/subDocumentClassifications/1/identifier',
    ]);
  });
});

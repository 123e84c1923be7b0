import { describe, expect, it } from 'vitest';
import { migrateTree } from '../../src/config/document.js';
import { applyTextChanges } from '../../src/config/text.js';

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

  it('an object with a duplicate key is re-laid out from what JSON.parse sees (the last of each key, in first place)', () => {
    const text = '{"expectedOutput": {"subDocumentClassifications": [{"startPage": 1}], "note": 1, "subDocumentClassifications": [{"startPage": 2}]}}';
    const r = changesOf(text);
    expect(r.doc).toEqual({ expectedOutput: { splits: [{ startPage: 2 }], note: 1 } });
    expect(applyTextChanges(text, r.textChanges, r.doc)).toBe('{"expectedOutput": {"splits": [{"startPage": 2}], "note": 1}}');
  });

  it('skips brackets, braces and escaped quotes inside strings when finding where values end', () => {
    const text = '{"a": "}]\\"{[", "b": ["[", {"c": "\\\\"}], "expectedOutput": {"x": "{\\"", "subDocumentClassifications": [{"startPage": 1, "id": "]}"}]}}\n';
    const r = changesOf(text);
    const next = applyTextChanges(text, r.textChanges, r.doc);
    expect(JSON.parse(next)).toEqual(r.doc);
    expect(next).toBe(text.replace('"subDocumentClassifications"', '"splits"'));
  });
});

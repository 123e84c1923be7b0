// metadata.KEY columns describe the item: accepted for every processor type, never a field,
// unless the config has a field named metadata (then it is a field path as before).
import { describe, expect, it } from 'vitest';
import { planColumns } from '../../src/dataset/columns.js';
import { buildModel } from '../../src/expected/model.js';

const extract = (props: Record<string, unknown>) => buildModel({ type: 'EXTRACT', schema: { type: 'object', properties: props } }, 'EXTRACT');

describe('metadata columns', () => {
  it('are their own role for EXTRACT, CLASSIFY and SPLITTER', () => {
    const x = planColumns(['file', 'total', 'metadata.vendor'], extract({ total: { type: 'number' } }));
    expect(x.findings).toEqual([]);
    expect(x.columns.map((c) => c.role)).toEqual(['file', 'field', 'metadata']);
    const c = planColumns(['file', 'class', 'metadata.layout'], buildModel({ type: 'CLASSIFY', classifications: [{ id: 'a', type: 'a', description: 'a' }] }, 'CLASSIFY'));
    expect(c.findings).toEqual([]);
    expect(c.columns.map((k) => k.role)).toEqual(['file', 'class', 'metadata']);
  });

  it('a config field named metadata keeps the path reading', () => {
    const x = planColumns(['file', 'metadata.vendor'], extract({ metadata: { type: 'object', properties: { vendor: { type: 'string' } } } }));
    expect(x.findings).toEqual([]);
    expect(x.columns.map((c) => c.role)).toEqual(['file', 'field']);
  });

  it('a bare "metadata." header is still an unknown field', () => {
    const x = planColumns(['file', 'total', 'metadata.'], extract({ total: { type: 'number' } }));
    expect(x.findings.map((f) => f.rule)).toContain('column-path');
  });
});

// CLASSIFY and SPLITTER cells read in either API form (spec 3.7) and built in the form in effect; labels compared across forms.
import { describe, expect, it } from 'vitest';
import { downloadDataset } from '../../src/dataset/download.js';
import { inForm, outputType, sameLabels, sameOutput, splitsCell, withOlderMembers } from '../../src/dataset/classes.js';
import { labelTarget } from '../../src/dataset/writeback.js';
import { expectedFromReviewed } from '../../src/dataset/harvest.js';
import type { Client } from '../../src/api/index.js';
import { parse } from 'csv-parse/sync';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const LIST = [{ id: 'invoice', type: 'invoice' }, { id: 'rcpt', type: 'receipt' }];
const split = (classificationId: string, type: string, startPage: number, endPage: number, more: object = {}) => ({ classificationId, type, startPage, endPage, ...more });

describe('inForm', () => {
  const cases: Array<[string, { type: 'CLASSIFY' | 'SPLITTER' | 'EXTRACT'; given: Record<string, unknown>; v2025: unknown; v2026: unknown }]> = [
    ['CLASSIFY without confidence reads the same in both', { type: 'CLASSIFY', given: { id: 'rcpt', type: 'receipt' }, v2025: { id: 'rcpt', type: 'receipt' }, v2026: { id: 'rcpt', type: 'receipt' } }],
    ['CLASSIFY confidence 1 drops going to 2026-02-09 (lossless)', { type: 'CLASSIFY', given: { id: 'rcpt', type: 'receipt', confidence: 1 }, v2025: { id: 'rcpt', type: 'receipt', confidence: 1 }, v2026: { id: 'rcpt', type: 'receipt' } }],
    ['CLASSIFY confidence 0.5 stays for the validator to name', { type: 'CLASSIFY', given: { id: 'rcpt', type: 'receipt', confidence: 0.5 }, v2025: { id: 'rcpt', type: 'receipt', confidence: 0.5 }, v2026: { id: 'rcpt', type: 'receipt', confidence: 0.5 } }],
    ['splits without ids get migrate\'s ids going to 2025-04-21', {
      type: 'SPLITTER', given: { splits: [split('invoice', 'invoice', 1, 2), split('rcpt', 'receipt', 3, 3)] },
      v2025: { splits: [{ id: 'split_1', ...split('invoice', 'invoice', 1, 2) }, { id: 'split_2', ...split('rcpt', 'receipt', 3, 3) }] },
      v2026: { splits: [split('invoice', 'invoice', 1, 2), split('rcpt', 'receipt', 3, 3)] },
    }],
    ['split ids equal to migrate\'s drop going to 2026-02-09; another id and identifier stay', {
      type: 'SPLITTER', given: { splits: [{ id: 'split_1', ...split('invoice', 'invoice', 1, 2) }, { id: 's9', ...split('rcpt', 'receipt', 3, 3, { identifier: 'R-1' }) }] },
      v2025: { splits: [{ id: 'split_1', ...split('invoice', 'invoice', 1, 2) }, { id: 's9', ...split('rcpt', 'receipt', 3, 3, { identifier: 'R-1' }) }] },
      v2026: { splits: [split('invoice', 'invoice', 1, 2), { id: 's9', ...split('rcpt', 'receipt', 3, 3, { identifier: 'R-1' }) }] },
    }],
    ['EXTRACT is left as it is', { type: 'EXTRACT', given: { value: { confidence: 1 } }, v2025: { value: { confidence: 1 } }, v2026: { value: { confidence: 1 } } }],
  ];
  it.each(cases)('%s', (_name, { type, given, v2025, v2026 }) => {
    const before = structuredClone(given);
    expect(inForm(given, type, '2025-04-21')).toEqual(v2025);
    expect(inForm(given, type, '2026-02-09')).toEqual(v2026);
    expect(given).toEqual(before);
  });

  it('outputType tells the type from the shape', () => {
    expect(outputType({ splits: [] })).toBe('SPLITTER');
    expect(outputType({ id: 'a', type: 'b', confidence: 1 })).toBe('CLASSIFY');
    expect(outputType({ value: { id: 'a', type: 'b' } })).toBe('EXTRACT');
    expect(outputType({ id: { id: 'x', value: 1 }, type: { id: 'y', value: 2 } })).toBe('EXTRACT');
    expect(outputType(null)).toBe('EXTRACT');
  });
});

describe('splitsCell ids', () => {
  it('compact and JSON splits without ids get split_<n>, the id migrate gives going down', () => {
    expect(splitsCell('invoice:1-2;receipt:3', LIST)).toMatchObject({ ok: true, value: { splits: [{ id: 'split_1' }, { id: 'split_2' }] } });
    expect(splitsCell(JSON.stringify([{ type: 'invoice', startPage: 1, endPage: 1 }]), LIST)).toMatchObject({ ok: true, value: { splits: [{ id: 'split_1', classificationId: 'invoice' }] } });
  });
});

describe('downloadDataset writes the form of the API version the client speaks', () => {
  const items = [
    { id: 'evi_1', fileId: 'file_1', expectedOutput: { splits: [split('invoice', 'invoice', 1, 2)] } },
    { id: 'evi_2', fileId: 'file_2', expectedOutput: { splits: [{ id: 'split_1', ...split('rcpt', 'receipt', 1, 1) }] } },
    { id: 'evi_3', fileId: 'file_3', expectedOutput: { id: 'rcpt', type: 'receipt', confidence: 1 } },
  ];
  // The set and item facade (src/api/evaluationSets.ts) answering with lists that carry the outputs;
  // the API version the client speaks decides the form the CSV is written in.
  const clientOn = (apiVersion: string) => ({
    options: { baseUrl: 'http://127.0.0.1:1', apiVersion },
    sets: { retrieve: async (id: string) => ({ id, name: 'S', description: null, entityId: 'dp_1', raw: {} }) },
    items: (setId: string) => ({
      listHasOutputs: true,
      list: async () => ({ items: items.map((it) => ({ ...it, evaluationSetId: setId, raw: it })), nextPageToken: null }),
    }),
  }) as unknown as Client;
  const outputs = (csv: string) => (parse(readFileSync(csv, 'utf8'), { columns: true }) as Array<Record<string, string>>).map((r) => JSON.parse(r.expectedOutput) as unknown);

  it.each([
    ['2025-04-21', [{ splits: [{ id: 'split_1', ...split('invoice', 'invoice', 1, 2) }] }, { splits: [{ id: 'split_1', ...split('rcpt', 'receipt', 1, 1) }] }, { id: 'rcpt', type: 'receipt', confidence: 1 }]],
    ['2026-02-09', [{ splits: [split('invoice', 'invoice', 1, 2)] }, { splits: [split('rcpt', 'receipt', 1, 1)] }, { id: 'rcpt', type: 'receipt' }]],
  ] as const)('%s', async (apiVersion, want) => {
    const csv = path.join(mkdtempSync(path.join(os.tmpdir(), 'evalkit-dl-form-')), 'out.csv');
    await downloadDataset(clientOn(apiVersion), { evaluationSetId: 'ev_1', out: csv });
    expect(outputs(csv)).toEqual(want);
  });
});

describe('labels across API forms', () => {
  const s = (id: string | undefined, cls: string, from: number, to: number, more: object = {}) => ({ ...(id === undefined ? {} : { id }), ...split(cls, cls, from, to), ...more });
  it.each<[string, unknown, unknown, 'CLASSIFY' | 'SPLITTER', boolean, boolean]>([
    // name, a, b, type, sameOutput, sameLabels
    ['confidence 1 and none', { id: 'rcpt', type: 'receipt', confidence: 1 }, { id: 'rcpt', type: 'receipt' }, 'CLASSIFY', true, true],
    ['another confidence and none: same label, not the same output', { id: 'rcpt', type: 'receipt', confidence: 0.5 }, { id: 'rcpt', type: 'receipt' }, 'CLASSIFY', false, true],
    ['two confidences both sides carry', { id: 'rcpt', type: 'receipt', confidence: 0.5 }, { id: 'rcpt', type: 'receipt', confidence: 0.9 }, 'CLASSIFY', false, false],
    ['another class', { id: 'rcpt', type: 'receipt', confidence: 1 }, { id: 'invoice', type: 'invoice' }, 'CLASSIFY', false, false],
    ['split ids split_<n> and none', { splits: [s('split_1', 'invoice', 1, 2), s('split_2', 'rcpt', 3, 3)] }, { splits: [s(undefined, 'invoice', 1, 2), s(undefined, 'rcpt', 3, 3)] }, 'SPLITTER', true, true],
    ['an identifier and an own id one side only', { splits: [s('a', 'invoice', 1, 2, { identifier: 'INV-1', observation: null })] }, { splits: [s(undefined, 'invoice', 1, 2)] }, 'SPLITTER', false, true],
    ['identifiers both sides carry, different', { splits: [s('split_1', 'invoice', 1, 2, { identifier: 'A' })] }, { splits: [s(undefined, 'invoice', 1, 2, { identifier: 'B' })] }, 'SPLITTER', false, false],
    ['other pages', { splits: [s('split_1', 'invoice', 1, 2)] }, { splits: [s(undefined, 'invoice', 1, 3)] }, 'SPLITTER', false, false],
    ['a split more', { splits: [s('split_1', 'invoice', 1, 2)] }, { splits: [s(undefined, 'invoice', 1, 2), s(undefined, 'rcpt', 3, 3)] }, 'SPLITTER', false, false],
  ])('%s', (_name, a, b, type, output, labels) => {
    expect([sameOutput(a, b, type), sameOutput(b, a, type)]).toEqual([output, output]);
    expect([sameLabels(a, b, type), sameLabels(b, a, type)]).toEqual([labels, labels]);
  });

  it('withOlderMembers carries what one side holds and the other form cannot say, on parts whose label is equal', () => {
    const csv = { splits: [s('split_1', 'invoice', 1, 2, { identifier: 'INV-1' }), s('split_2', 'rcpt', 3, 3, { observation: 'stamp' })] };
    // The set moved the receipt's pages: the invoice's identifier stays, the receipt's observation goes with its old label.
    const set = { splits: [s(undefined, 'invoice', 1, 2), s(undefined, 'rcpt', 3, 4)] };
    expect(withOlderMembers(set, csv, 'SPLITTER')).toEqual({ splits: [s(undefined, 'invoice', 1, 2, { identifier: 'INV-1' }), s(undefined, 'rcpt', 3, 4)] });
    // An own id on the other side replaces a generated one.
    expect(withOlderMembers({ splits: [s('split_1', 'invoice', 1, 2)] }, { splits: [s('s7', 'invoice', 1, 2)] }, 'SPLITTER')).toEqual({ splits: [s('s7', 'invoice', 1, 2)] });
    expect(withOlderMembers({ id: 'rcpt', type: 'receipt' }, { id: 'rcpt', type: 'receipt', confidence: 0.5 }, 'CLASSIFY')).toEqual({ id: 'rcpt', type: 'receipt', confidence: 0.5 });
    expect(withOlderMembers({ id: 'invoice', type: 'invoice' }, { id: 'rcpt', type: 'receipt', confidence: 0.5 }, 'CLASSIFY')).toEqual({ id: 'invoice', type: 'invoice' });
  });
});

describe('labelTarget: what download --into writes into a CLASSIFY or SPLITTER row', () => {
  const cls = (id: string, more: object = {}) => ({ id, type: id === 'rcpt' ? 'receipt' : id, ...more });
  it.each<[string, { row: Record<string, unknown>; before?: unknown; after: Record<string, unknown> }, '2025-04-21' | '2026-02-09', unknown]>([
    ['2025-04-21 row (confidence 1), 2026-02-09 set: the same label, no change', { row: cls('rcpt', { confidence: 1 }), after: cls('rcpt') }, '2026-02-09', 'unchanged'],
    ['a confidence the set has no place for stays in the row', { row: cls('rcpt', { confidence: 0.5 }), after: cls('rcpt') }, '2026-02-09', 'unchanged'],
    ['under 2025-04-21 a confidence only the set holds comes in', { row: cls('rcpt'), after: cls('rcpt', { confidence: 0.5 }) }, '2025-04-21', cls('rcpt', { confidence: 0.5 })],
    ['under 2026-02-09 it does not (the form has no place for it)', { row: cls('rcpt'), after: cls('rcpt', { confidence: 0.5 }) }, '2026-02-09', 'unchanged'],
    ['a real change comes in, in the form in effect', { row: cls('rcpt'), after: cls('invoice', { confidence: 1 }) }, '2026-02-09', cls('invoice')],
    ['the same change under 2025-04-21 keeps the set\'s confidence', { row: cls('rcpt'), after: cls('invoice', { confidence: 1 }) }, '2025-04-21', cls('invoice', { confidence: 1 })],
    ['three-way: only the row changed since the last sync (last sync in the other form)', { row: cls('invoice'), before: cls('rcpt', { confidence: 1 }), after: cls('rcpt') }, '2026-02-09', 'pending'],
    ['three-way: only the set changed', { row: cls('rcpt', { confidence: 1 }), before: cls('rcpt'), after: cls('invoice') }, '2026-02-09', cls('invoice')],
    ['three-way: both changed', { row: cls('bank_statement'), before: cls('rcpt'), after: cls('invoice') }, '2026-02-09', 'conflict'],
    ['splits: 2025-04-21 row with ids, 2026-02-09 set without: no change', { row: { splits: [{ id: 'split_1', ...split('invoice', 'invoice', 1, 2) }] }, after: { splits: [split('invoice', 'invoice', 1, 2)] } }, '2026-02-09', 'unchanged'],
    ['splits: the set moved a page; the unchanged split keeps its identifier', { row: { splits: [{ id: 'split_1', ...split('invoice', 'invoice', 1, 2), identifier: 'INV-1' }, { id: 'split_2', ...split('rcpt', 'receipt', 3, 3) }] }, after: { splits: [split('invoice', 'invoice', 1, 2), split('rcpt', 'receipt', 3, 4)] } }, '2026-02-09', { splits: [{ ...split('invoice', 'invoice', 1, 2), identifier: 'INV-1' }, split('rcpt', 'receipt', 3, 4)] }],
    ['splits under 2025-04-21: written with ids', { row: { splits: [{ id: 'split_1', ...split('invoice', 'invoice', 1, 2) }] }, after: { splits: [split('invoice', 'invoice', 1, 3)] } }, '2025-04-21', { splits: [{ ...split('invoice', 'invoice', 1, 3), id: 'split_1' }] }],
  ])('%s', (_name, { row, before, after }, form, want) => {
    const type = outputType(after) as 'CLASSIFY' | 'SPLITTER';
    expect(labelTarget(row, { before, after }, type, form)).toEqual(want);
  });
});

describe('dataset harvest shapes a reviewed output in the form in effect', () => {
  const reviewed = { splits: [{ id: 's1', ...split('invoice', 'invoice', 1, 2), identifier: '', observation: null, fileId: 'file_x', confidence: 0.8 }, { id: 'split_2', ...split('rcpt', 'receipt', 3, 3), identifier: 'R-9', observation: '' }] };
  it.each([
    ['2025-04-21', { splits: [{ id: 's1', ...split('invoice', 'invoice', 1, 2), identifier: '', observation: null }, { id: 'split_2', ...split('rcpt', 'receipt', 3, 3), identifier: 'R-9', observation: '' }] }],
    // No split ids; an empty identifier or observation is no value; one with a value stays for the upload to name.
    ['2026-02-09', { splits: [split('invoice', 'invoice', 1, 2), { ...split('rcpt', 'receipt', 3, 3), identifier: 'R-9' }] }],
  ] as const)('%s', (form, want) => {
    expect(expectedFromReviewed('SPLITTER', reviewed, form)).toEqual(want);
    expect(expectedFromReviewed('CLASSIFY', { id: 'rcpt', type: 'receipt', confidence: 0.7 }, form)).toEqual({ id: 'rcpt', type: 'receipt' });
  });
});

// CLASSIFY and SPLITTER cells read in either API form (spec 3.7) and built in the form in effect.
import { describe, expect, it } from 'vitest';
import { downloadDataset } from '../../src/dataset/download.js';
import { inForm, outputType, splitsCell } from '../../src/dataset/classes.js';
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

describe('downloadDataset writes the form in effect', () => {
  const items = [
    { id: 'evi_1', fileId: 'file_1', expectedOutput: { splits: [split('invoice', 'invoice', 1, 2)] } },
    { id: 'evi_2', fileId: 'file_2', expectedOutput: { splits: [{ id: 'split_1', ...split('rcpt', 'receipt', 1, 1) }] } },
    { id: 'evi_3', fileId: 'file_3', expectedOutput: { id: 'rcpt', type: 'receipt', confidence: 1 } },
  ];
  const client = {
    options: { baseUrl: 'http://127.0.0.1:1' },
    evaluationSets: {
      get: async (id: string) => ({ id, name: 'S', processorId: 'dp_1' }),
      listAllItems: async function* () {
        yield* items;
      },
    },
  } as unknown as Client;
  const outputs = (csv: string) => (parse(readFileSync(csv, 'utf8'), { columns: true }) as Array<Record<string, string>>).map((r) => JSON.parse(r.expectedOutput) as unknown);

  it.each([
    ['2025-04-21', [{ splits: [{ id: 'split_1', ...split('invoice', 'invoice', 1, 2) }] }, { splits: [{ id: 'split_1', ...split('rcpt', 'receipt', 1, 1) }] }, { id: 'rcpt', type: 'receipt', confidence: 1 }]],
    ['2026-02-09', [{ splits: [split('invoice', 'invoice', 1, 2)] }, { splits: [split('rcpt', 'receipt', 1, 1)] }, { id: 'rcpt', type: 'receipt' }]],
  ] as const)('%s', async (form, want) => {
    const csv = path.join(mkdtempSync(path.join(os.tmpdir(), 'evalkit-dl-form-')), 'out.csv');
    await downloadDataset(client, { evaluationSetId: 'ev_1', out: csv, form });
    expect(outputs(csv)).toEqual(want);
  });
});

// An errors file sent back untouched changes nothing: export (report --export-errors's CSV) ->
// read back (dataset upload's reading) is the identity on the labels, whatever they hold.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planCorrections, readCorrections } from '../../src/dataset/corrections.js';
import { openCsv } from '../../src/dataset/csv.js';
import type { ConfigSource } from '../../src/expected/index.js';
import { renderErrors, type ErrorRow } from '../../src/report/errors.js';
import { tmpDir } from './helpers.js';

function configOf(fields: readonly string[]): ConfigSource {
  const properties: Record<string, unknown> = {};
  for (const f of fields) properties[f] = { type: ['string', 'null'] };
  return { config: { type: 'EXTRACT', schema: { type: 'object', properties } }, type: 'EXTRACT', origin: 'test' };
}

/** The errors file of these labels (every field of every item as a wrong outcome), read back and planned. */
async function sendBack(items: Map<string, { value: Record<string, unknown> }>, fields: readonly string[]) {
  const rows: ErrorRow[] = [];
  for (const [id, out] of items) {
    for (const f of fields) rows.push({ item: id, file: `${id}.pdf`, fileId: `file_${id}`, field: f, outcome: 'FD', expected: out.value[f], predicted: 'x', confidence: 0.5, document_errors: fields.length });
  }
  const file = path.join(tmpDir(), 'errors.csv');
  writeFileSync(file, renderErrors(rows, 'csv'));
  const corrections = await readCorrections(await openCsv(file));
  return planCorrections(corrections, items, configOf(fields));
}

describe('an untouched errors file plans nothing', () => {
  it.each([
    ['a formula-guarded label', "'=x"],
    ['a label that looks guarded', "''=x"],
    ['a formula', '=SUM(A1)'],
    ['an empty string', ''],
    ['spaces', '  '],
    ['a leading quote', "'hello"],
    ['a minus', '-'],
    ['null', null],
  ])('%s (%j)', async (_name, label) => {
    const plan = await sendBack(new Map([['evi_1', { value: { invoice_number: label } }]]), ['invoice_number']);
    expect(plan.findings).toEqual([]);
    expect(plan.updates).toEqual([]);
    expect(plan.unchanged).toBe(1);
  });

  it('a field id with a dot in it', async () => {
    const plan = await sendBack(new Map([['evi_1', { value: { 'vendor.name': 'Acme', other: 'b' } }]]), ['vendor.name', 'other']);
    expect(plan.findings).toEqual([]);
    expect(plan.updates).toEqual([]);
  });

  it('property: random labels (formula starts, spaces, empty, unicode) and field ids with dots', async () => {
    const fieldId = fc.oneof(fc.constantFrom('a', 'a.b', 'x.y.z', 'total', 'constructor'), fc.stringMatching(/^[a-z][a-z0-9_.]{0,8}[a-z0-9]$/));
    const label = fc.oneof(
      fc.constant(null),
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.tuple(fc.constantFrom('=', '+', '-', '@', "'", "''", ' ', '\t', ''), fc.string()).map(([a, b]) => a + b),
      fc.constantFrom('', ' ', '  ', '"', '""', ',', '\n', '\r\n', 'é', '日本'),
    );
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fieldId, { minLength: 1, maxLength: 4 }), fc.array(fc.array(label, { minLength: 4, maxLength: 4 }), { minLength: 1, maxLength: 3 }), async (fields, labels) => {
        const items = new Map(labels.map((ls, i) => [`evi_${i}`, { value: Object.fromEntries(fields.map((f, j) => [f, ls[j]])) }]));
        const plan = await sendBack(items, fields);
        expect(plan.findings).toEqual([]);
        expect(plan.updates).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });
});

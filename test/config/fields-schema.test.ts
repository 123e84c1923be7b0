/**
 * --convert-fields: a fields-form EXTRACT config to a JSON Schema (spec 3.6) field type by field
 * type, its expected outputs to the value form, the pairing of items with configs in one call,
 * and every refusal.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/util/errors.js';
import { migrateConfig, migrateDocument, migrateFiles, migrateText, validateConfig, type FileResult, type MigrateOptions } from '../../src/config/index.js';
import { buildModel } from '../../src/expected/model.js';
import { checkExpected } from '../../src/expected/check.js';

const UP: MigrateOptions = { to: '2026-02-09', convertFields: true };
const LOSSY: MigrateOptions = { ...UP, allowLossy: true, noItems: true };

function thrown(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('expected an InputError');
}

const S = (t: string) => [t, 'null'];
const ROOT = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });

describe('a field of each type as the schema property 3.6 gives it (hand-written)', () => {
  const CURRENCY = {
    type: 'object',
    'extend:type': 'currency',
    properties: { amount: { type: S('number') }, iso_4217_currency_code: { type: S('string') } },
    required: ['amount', 'iso_4217_currency_code'],
  };
  const SIGNATURE = {
    type: 'object',
    'extend:type': 'signature',
    properties: {
      printed_name: { type: S('string') },
      signature_date: { type: S('string'), 'extend:type': 'date' },
      is_signed: { type: S('boolean') },
      title_or_role: { type: S('string') },
    },
    required: ['printed_name', 'signature_date', 'is_signed', 'title_or_role'],
  };
  it.each([
    ['string', { type: 'string', description: 'The number' }, { type: S('string'), description: 'The number' }],
    ['number', { type: 'number', description: 'n' }, { type: S('number'), description: 'n' }],
    ['boolean', { type: 'boolean', description: '' }, { type: S('boolean') }],
    ['date', { type: 'date', description: 'd' }, { type: S('string'), 'extend:type': 'date', description: 'd' }],
    ['currency', { type: 'currency', description: '' }, CURRENCY],
    ['currency with a description', { type: 'currency', description: 'Total' }, { type: 'object', 'extend:type': 'currency', description: 'Total', properties: CURRENCY.properties, required: CURRENCY.required }],
    ['signature', { type: 'signature', description: '' }, SIGNATURE],
    ['enum', { type: 'enum', description: 'Kind', enum: [{ value: 'a', description: '' }, { value: 'b' }] }, { description: 'Kind', enum: ['a', 'b', null] }],
    [
      'object',
      { type: 'object', description: 'Vendor', schema: [{ id: 'name', name: 'name', type: 'string', description: '' }, { id: 'vat', type: 'string', description: 'VAT id' }] },
      { type: 'object', description: 'Vendor', properties: { name: { type: S('string') }, vat: { type: S('string'), description: 'VAT id' } }, required: ['name', 'vat'], additionalProperties: false },
    ],
    [
      'array',
      { type: 'array', description: 'Lines', schema: [{ id: 'qty', name: 'qty', type: 'number', description: '' }, { id: 'amount', name: 'amount', type: 'currency', description: '' }] },
      { type: 'array', description: 'Lines', items: { type: 'object', properties: { qty: { type: S('number') }, amount: CURRENCY }, required: ['qty', 'amount'], additionalProperties: false } },
    ],
  ])('%s', (_name, field, want) => {
    const out = migrateConfig({ type: 'EXTRACT', fields: [{ id: 'f', name: 'f', ...field }] }, { ...UP, noItems: true });
    expect(out.doc).toEqual({ schema: ROOT({ f: want }) });
    // Key order as written above (JSON.stringify shows it).
    expect(JSON.stringify(out.doc)).toBe(JSON.stringify({ schema: ROOT({ f: want }) }));
    expect(out.dropped).toEqual([]);
    expect(validateConfig(out.doc, '2026-02-09', 'EXTRACT')).toEqual([]);
  });

  it('the property key is the field id; a name other than the id, option descriptions and unknown members are lossy', () => {
    const config = {
      type: 'EXTRACT',
      fields: [
        { id: 'invoice_number', name: 'Invoice Number', type: 'string', description: '' },
        { id: 'kind', name: 'kind', type: 'enum', description: '', enum: [{ value: 'a', description: 'The A kind' }], confidenceThreshold: 0.5 },
        { id: '__proto__', name: '__proto__', type: 'string', description: '' },
      ],
    };
    const e = thrown(() => migrateConfig(config, { ...UP, noItems: true }));
    expect(e.message).toBe('3 keys have no counterpart in 2026-02-09: /fields/0/name, /fields/1/confidenceThreshold, /fields/1/enum/0/description');
    const out = migrateConfig(config, LOSSY);
    expect(Object.keys((out.doc as { schema: { properties: object } }).schema.properties)).toEqual(['invoice_number', 'kind', '__proto__']);
    expect(out.dropped).toEqual([
      { pointer: '/fields/0/name', key: 'fields.0.name', value: 'Invoice Number' },
      { pointer: '/fields/1/confidenceThreshold', key: 'fields.1.confidenceThreshold', value: 0.5 },
      { pointer: '/fields/1/enum/0/description', key: 'fields.1.enum.0.description', value: 'The A kind' },
    ]);
  });

  it.each([
    ['fields that are no array', { a: { type: 'string' } }, '/fields', 'expected an array of fields'],
    ['a field that is no object', ['a'], '/fields/0', 'expected a field object'],
    ['a field without id', [{ name: 'a', type: 'string', description: '' }], '/fields/0', 'non-empty string "id"'],
    ['an id twice', [{ id: 'a', name: 'a', type: 'string' }, { id: 'a', name: 'b', type: 'number' }], '/fields/1/id', 'appears twice'],
    ['an unknown type', [{ id: 'a', name: 'a', type: 'money' }], '/fields/0/type', 'unknown type "money"'],
    ['an array without its schema', [{ id: 'a', name: 'a', type: 'array' }], '/fields/0/type', 'needs a "schema" array'],
    ['an object with a schema that is no array', [{ id: 'a', name: 'a', type: 'object', schema: {} }], '/fields/0/schema', 'needs a "schema" array'],
    ['an enum without options', [{ id: 'a', name: 'a', type: 'enum' }], '/fields/0/enum', 'needs an "enum" array'],
    ['an enum option without value', [{ id: 'a', name: 'a', type: 'enum', enum: [{ description: 'x' }] }], '/fields/0/enum/0', 'needs a "value"'],
    ['a sub-field id twice', [{ id: 'a', name: 'a', type: 'array', schema: [{ id: 'x', type: 'string' }, { id: 'x', type: 'string' }] }], '/fields/0/schema/1/id', 'appears twice'],
  ])('refuses %s (exit 2, pointer, hint)', (_name, fields, pointer, message) => {
    const e = thrown(() => migrateConfig({ type: 'EXTRACT', fields }, LOSSY));
    expect(e.message).toContain(message);
    expect(e.location.pointer).toBe(pointer);
    expect(e.hint).toBeTruthy();
    expect(e.exitCode).toBe(2);
  });

  it('refuses a config with both fields and schema', () => {
    const e = thrown(() => migrateConfig({ type: 'EXTRACT', schema: { type: 'object' }, fields: [] }, LOSSY));
    expect(e.message).toContain('both `fields` and `schema`');
    expect(e.location.pointer).toBe('/schema');
  });

  it('without convertFields a fields-form config is still refused going up, naming the flag', () => {
    const e = thrown(() => migrateConfig({ type: 'EXTRACT', fields: [{ id: 'a', name: 'a', type: 'string' }] }, { to: '2026-02-09', allowLossy: true }));
    expect(e.message).toContain('no 2026-02-09 form');
    expect(e.hint).toContain('--convert-fields');
  });

  it('one config alone is a call without items: refused unless noItems', () => {
    const e = thrown(() => migrateConfig({ type: 'EXTRACT', fields: [{ id: 'a', name: 'a', type: 'string' }] }, UP));
    expect(e.message).toContain('none of them is in this run');
    expect(e.location.pointer).toBe('/fields');
    expect(e.hint).toContain('--no-items');
  });
});

describe('round trip: a converted config goes down as a schema and comes back the same', () => {
  it('a 2024-11-14 fields-form config goes to 2026-02-09 in one call, both steps', () => {
    const out = migrateConfig({ type: 'EXTRACT', customExtractionRules: 'r', includeBoundingBoxCitations: true, fields: [{ id: 'a', name: 'A', type: 'number', description: '' }] }, LOSSY);
    expect(out.from).toBe('2024-11-14');
    expect(out.doc).toEqual({ extractionRules: 'r', advancedOptions: { citationsEnabled: true }, schema: ROOT({ a: { type: S('number') } }) });
    expect(out.dropped).toEqual([{ pointer: '/fields/0/name', key: 'fields.0.name', value: 'A' }]);
  });

  it('down keeps the schema (no reverse conversion); up again gives the converted config', () => {
    const config = { type: 'EXTRACT', extractionRules: 'r', fields: [{ id: 'a', name: 'a', type: 'date', description: 'When' }, { id: 'b', name: 'b', type: 'signature', description: '' }] };
    const up = migrateConfig(config, { ...UP, noItems: true });
    expect(up.dropped).toEqual([]);
    const down = migrateConfig(up.doc, { to: '2025-04-21', from: '2026-02-09' });
    expect(down.doc).toEqual({ type: 'EXTRACT', extractionRules: 'r', schema: (up.doc as { schema: unknown }).schema });
    expect(validateConfig(down.doc, '2025-04-21', 'EXTRACT')).toEqual([]);
    const again = migrateConfig(down.doc, { ...UP, noItems: true });
    expect(again.doc).toEqual(up.doc);
    // Converted once: a second run has nothing to convert.
    expect(migrateConfig(up.doc, { ...UP, from: '2026-02-09' }).changed).toBe(false);
  });
});

const CONFIG = {
  type: 'EXTRACT',
  fields: [
    { id: 'invoice_number', name: 'Invoice Number', type: 'string', description: '' },
    { id: 'total', name: 'Total', type: 'currency', description: '' },
    { id: 'lines', name: 'Lines', type: 'array', description: '', schema: [{ id: 'qty', name: 'qty', type: 'number', description: '' }] },
  ],
};

describe('expected outputs: the fields form to {value: {id: value}} with the config of the same call', () => {
  it('values under their field ids, as written; id, the name key, confidence 1 and the field\'s own type are lossless', () => {
    const text = [
      JSON.stringify({ config: CONFIG }),
      '{"fileId":"file_1","expectedOutput":{"Invoice Number":{"id":"invoice_number","value":"INV-1","confidence":1},"total":{"id":"total","type":"currency","value":{"amount":12.50,"iso_4217_currency_code":"USD"}},"Lines":{"id":"lines","value":[{"qty":2}]}}}',
      '{"fileId":"file_2","expectedOutput":{"Invoice Number":{"id":"invoice_number"}}}',
      '',
    ].join('\n');
    const r = migrateText(text, 'run.jsonl', { ...UP, allowLossy: true, jsonl: true });
    expect(r.errors).toEqual([]);
    const lines = r.text!.split('\n');
    // Values copied as written (12.50 stays 12.50); an entry without value says nothing.
    expect(lines[1]).toBe('{"fileId":"file_1","expectedOutput":{"value":{"invoice_number":"INV-1","total":{"amount":12.50,"iso_4217_currency_code":"USD"},"lines":[{"qty":2}]}}}');
    expect(lines[2]).toBe('{"fileId":"file_2","expectedOutput":{"value":{}}}');
    // Only the config's names are dropped.
    expect(r.dropped.map((d) => d.pointer)).toEqual(['/config/fields/0/name', '/config/fields/1/name', '/config/fields/2/name']);
    // The converted outputs pass the 2026-02-09 check of the converted config.
    const config = JSON.parse(lines[0]).config as Record<string, unknown>;
    const model = buildModel({ ...config, type: 'EXTRACT' }, 'EXTRACT', '2026-02-09');
    expect(checkExpected(model, JSON.parse(lines[1]).expectedOutput)).toEqual([]);
  });

  it('confidence other than 1, page, another type and unknown members are lossy: refused, or dropped and listed', () => {
    const item = { expectedOutput: { 'Invoice Number': { id: 'invoice_number', value: 'INV-1', confidence: 0.8, page: 2 }, Total: { id: 'total', value: null, type: 'number', note: 'x' } } };
    const doc = [{ config: CONFIG }, item];
    const e = thrown(() => migrateDocument(doc, { ...UP }));
    // The config's names come first, then the item's members.
    expect(e.message).toContain('no counterpart in 2026-02-09');
    const r = migrateDocument(doc, { ...UP, allowLossy: true });
    expect(r.dropped.filter((d) => d.pointer.startsWith('/1')).map((d) => [d.pointer, d.value])).toEqual([
      ['/1/expectedOutput/Invoice Number/confidence', 0.8],
      ['/1/expectedOutput/Invoice Number/page', 2],
      ['/1/expectedOutput/Total/type', 'number'],
      ['/1/expectedOutput/Total/note', 'x'],
    ]);
    expect((r.doc as unknown[])[1]).toEqual({ expectedOutput: { value: { invoice_number: 'INV-1', total: null } } });
  });

  it.each([
    ['an id that is no field of the config', { 'Invoice Number': { id: 'number', value: 'x' } }, '/1/expectedOutput/Invoice Number/id', 'no field id of the fields-form config'],
    ['a key that names another field', { Total: { id: 'invoice_number', value: 'x' } }, '/1/expectedOutput/Total', 'which field it means is not certain'],
    ['two entries of one field', { 'Invoice Number': { id: 'invoice_number', value: 'x' }, invoice_number: { id: 'invoice_number', value: 'y' } }, '/1/expectedOutput/invoice_number/id', 'has two entries'],
    ['an id that is no string', { 'Invoice Number': { id: 7, value: 'x' } }, '/1/expectedOutput/Invoice Number/id', 'as a string'],
  ])('refuses %s', (_name, expectedOutput, pointer, message) => {
    const e = thrown(() => migrateDocument([{ config: CONFIG }, { expectedOutput }], { ...UP, allowLossy: true }));
    expect(e.message).toContain(message);
    expect(e.location.pointer).toBe(pointer);
    expect(e.hint).toBeTruthy();
  });

  it('refuses an item whose config cannot be converted (the config names its own error)', () => {
    const broken = { type: 'EXTRACT', fields: [{ id: 'total', name: 'Total', type: 'money' }] };
    const r = migrateText(`${JSON.stringify({ config: broken })}\n${JSON.stringify({ expectedOutput: { Total: { id: 'total', value: 1 } } })}\n`, 'run.jsonl', { ...UP, allowLossy: true, jsonl: true });
    expect(r.errors.map((e) => [e.location.line, e.location.pointer, e.message])).toEqual([
      [1, '/config/fields/0/type', 'field "total" has unknown type "money"'],
      [2, '/expectedOutput', 'the fields-form config it converts with (run.jsonl:1 at /config/fields) cannot be converted'],
    ]);
  });

  it('without convertFields a fields-form item found with no type around it is refused going up (it was passed over)', () => {
    const e = thrown(() => migrateDocument({ fileId: 'f', expectedOutput: { Total: { id: 'total', value: 1 } } }, { to: '2026-02-09' }));
    expect(e.message).toContain('fields-form EXTRACT expected output');
    expect(e.hint).toContain('--convert-fields');
    // Not going up: left as it is.
    expect(migrateDocument({ fileId: 'f', expectedOutput: { Total: { id: 'total', value: 1 } } }, { to: '2025-04-21' }).changed).toBe(false);
  });
});

describe('pairing items with configs across the files of one call', () => {
  function files(contents: Record<string, unknown>): { dir: string; jobs: Array<{ path: string; abs: string; rel: string; explicit: boolean }> } {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-convfields-'));
    const jobs = Object.entries(contents).map(([name, v]) => {
      const abs = path.join(dir, name);
      writeFileSync(abs, typeof v === 'string' ? v : JSON.stringify(v, null, 2) + '\n');
      return { path: name, abs, rel: name, explicit: true };
    });
    return { dir, jobs };
  }
  async function run(contents: Record<string, unknown>, opts: Partial<MigrateOptions> & { mode?: 'dry-run' | 'write' } = {}): Promise<{ dir: string; results: FileResult[] }> {
    const { dir, jobs } = files(contents);
    const results: FileResult[] = [];
    await migrateFiles(jobs, { ...UP, allowLossy: true, mode: 'dry-run', patch: true, ...opts }, (r, i) => (results[i] = r));
    return { dir, results };
  }
  const item = (extra: Record<string, unknown> = {}) => JSON.stringify({ fileId: 'f', ...extra, expectedOutput: { Total: { id: 'total', value: 3 } } });
  const other = { type: 'EXTRACT', fields: [{ id: 'amount', name: 'Amount', type: 'number', description: '' }] };

  it('the run\'s only fields-form config converts every fields-form item; with several, the processor each names', async () => {
    const one = await run({ 'config.json': CONFIG, 'items.jsonl': `${item()}\n${item()}\n` });
    expect(one.results.map((r) => r.status)).toEqual(['migrated', 'migrated']);
    const two = await run({
      'a.json': { object: 'document_processor', id: 'dp_a', type: 'EXTRACT', draftVersion: { config: CONFIG } },
      'b.json': { object: 'document_processor_version', processorId: 'dp_b', config: other },
      'items.jsonl': `${item({ processorId: 'dp_a' })}\n${JSON.stringify({ processorId: 'dp_b', expectedOutput: { Amount: { id: 'amount', value: 3 } } })}\n`,
    });
    expect(two.results.map((r) => r.status)).toEqual(['migrated', 'migrated', 'migrated']);
    expect(two.results[2].patch.filter((op) => op.op === 'add').map((op) => (op as { value: unknown }).value)).toEqual([{ total: 3 }, { amount: 3 }]);
  });

  it('an export: the items pair with the config in their own file', async () => {
    const exp = { processor: { id: 'dp_x', name: 'x', type: 'EXTRACT', version: 'draft', config: CONFIG }, items: [{ id: 'evi_1', fileId: 'f', expectedOutput: { Total: { id: 'total', value: 3 } }, output: null, status: 'PROCESSED' }] };
    const r = await run({ 'export.json': exp, 'other.json': other, 'other-items.jsonl': `${JSON.stringify({ expectedOutput: { Amount: { id: 'amount', value: 1 } } })}\n` });
    expect(r.results[0].status).toBe('migrated');
    // other-items.jsonl has no config in its file and the run has two: not certain.
    expect(r.results[2].status).toBe('error');
    expect(r.results[2].errors[0].message).toContain('fits 2 fields-form configs of this run');
  });

  it.each([
    ['an item and no config', { 'items.jsonl': `${item()}\n` }, 0, '/expectedOutput', 'no fields-form config in this run', 'pass the processor\'s config file in the same command'],
    ['a config and no item', { 'config.json': CONFIG }, 0, '/fields', 'none of them is in this run', '--no-items'],
    ['an item naming a processor no config of the run belongs to', { 'a.json': { object: 'document_processor', id: 'dp_a', type: 'EXTRACT', config: CONFIG }, 'items.jsonl': `${item({ processorId: 'dp_z' })}\n` }, 1, '/expectedOutput', 'no fields-form config of processor dp_z', 'same command'],
    ['an item two configs fit', { 'a.json': CONFIG, 'b.json': other, 'items.jsonl': `${item()}\n` }, 2, '/expectedOutput', 'fits 2 fields-form configs', 'separate commands'],
  ])('refuses %s', async (_name, contents, index, pointer, message, hint) => {
    const { results } = await run(contents);
    const r = results[index];
    expect(r.status).toBe('error');
    expect(r.errors[0]).toMatchObject({ location: { pointer } });
    expect(r.errors[0].message).toContain(message);
    expect(r.errors[0].hint).toContain(hint);
  });

  it('noItems accepts a config without items in the call', async () => {
    const { results } = await run({ 'config.json': CONFIG }, { noItems: true });
    expect(results[0].status).toBe('migrated');
  });

  it('all or nothing: one refused file and no file is written; the others say why', async () => {
    const config = JSON.stringify(CONFIG, null, 2) + '\n';
    const items = `${item()}\n${JSON.stringify({ expectedOutput: { Total: { id: 'nope', value: 1 } } })}\n`;
    const { dir, results } = await run({ 'config.json': config, 'items.jsonl': items }, { mode: 'write' });
    expect(results.map((r) => r.status)).toEqual(['error', 'error']);
    expect(results[0].errors[0].message).toContain('not written: another file of this --convert-fields run was refused');
    expect(results[1].errors[0]).toMatchObject({ location: { file: 'items.jsonl', line: 2, pointer: '/expectedOutput/Total/id' } });
    expect(readFileSync(path.join(dir, 'config.json'), 'utf8')).toBe(config);
    expect(readFileSync(path.join(dir, 'items.jsonl'), 'utf8')).toBe(items);
    // Fixed, the same command writes both.
    writeFileSync(path.join(dir, 'items.jsonl'), `${item()}\n`);
    const again: FileResult[] = [];
    await migrateFiles(
      ['config.json', 'items.jsonl'].map((n) => ({ path: n, abs: path.join(dir, n), rel: n, explicit: true })),
      { ...UP, allowLossy: true, mode: 'write' },
      (r, i) => (again[i] = r),
    );
    expect(again.map((r) => r.status)).toEqual(['migrated', 'migrated']);
    expect(readFileSync(path.join(dir, 'items.jsonl'), 'utf8')).toBe('{"fileId":"f","expectedOutput":{"value":{"total":3}}}\n');
    expect(JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'))).toHaveProperty('schema.properties.total.extend:type', 'currency');
  });
});

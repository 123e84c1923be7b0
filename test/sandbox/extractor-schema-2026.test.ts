/**
 * 2026-02-09 extractor configs whose `schema` is no acceptable JSON Schema are refused on create,
 * update and publish (src/expected extractionSchemaIssues, the rule of `evalkit validate`).
 */
import { describe, expect, test } from 'vitest';
import { INVOICE_CONFIG, sandboxFor2026Tests } from './helpers.js';

type Json = Record<string, unknown>;

const { call, sandbox } = sandboxFor2026Tests();

async function extractor(schema: unknown = INVOICE_CONFIG.schema): Promise<string> {
  const r = await call<Json>('POST', '/extractors', { name: 'x', config: { schema } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.id as string;
}

const NOT_A_TYPE = '"banana" is not a JSON Schema type';

describe('an extractor schema must be a JSON Schema of an object', () => {
  test.each([
    ['a string schema at the top', { type: 'string' }, '/config/schema/type: an extraction schema must have type "object"'],
    ['a nullable string schema at the top', { type: ['string', 'null'] }, '/config/schema/type: an extraction schema must have type "object"'],
    ['an unknown type at the top', { type: 'banana' }, `/config/schema/type: ${NOT_A_TYPE}`],
    ['an unknown type in a type array', { type: ['banana', 'null'] }, `/config/schema/type/0: ${NOT_A_TYPE}`],
    ['an unknown type of a field', { type: 'object', properties: { total: { type: 'banana' } } }, `/config/schema/properties/total/type: ${NOT_A_TYPE}`],
    ['properties that are no object', { type: 'object', properties: [] }, '/config/schema/properties: not a valid JSON Schema: "properties" must be object'],
    ['required that is no array', { type: 'object', properties: { a: { type: ['string', 'null'] } }, required: 'a' }, '/config/schema/required: not a valid JSON Schema'],
    ['an empty schema (no type, no properties)', {}, '/config/schema: the extraction schema must describe an object with "properties"'],
    ['a $ref that does not resolve', { type: 'object', properties: { a: { $ref: '#/$defs/nope' } } }, '/config/schema/properties/a/$ref: $ref "#/$defs/nope" does not resolve'],
  ])('create refuses %s (400 naming the pointer)', async (_name, schema, message) => {
    const r = await call<Json>('POST', '/extractors', { name: 'bad', config: { schema } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining(message) });
    expect(r.body.message).toMatch(/^invalid EXTRACT config/);
  });

  test('nothing is created by a refused create', async () => {
    const before = await call<{ data: unknown[] }>('GET', '/extractors?maxPageSize=1000');
    await call('POST', '/extractors', { name: 'bad', config: { schema: { type: 'banana' } } });
    const after = await call<{ data: unknown[] }>('GET', '/extractors?maxPageSize=1000');
    expect(after.body.data.length).toBe(before.body.data.length);
  });

  test('update refuses it and leaves the draft as it was', async () => {
    const id = await extractor();
    const r = await call<Json>('POST', `/extractors/${id}`, { config: { schema: { type: 'string' } } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('/config/schema/type: an extraction schema must have type "object"');
    const got = await call<Json>('GET', `/extractors/${id}`);
    expect(((got.body.draftVersion as Json).config as Json).schema).toEqual(INVOICE_CONFIG.schema);
  });

  test('publishing a version refuses it, and no version is made', async () => {
    const id = await extractor();
    const r = await call<Json>('POST', `/extractors/${id}/versions`, { releaseType: 'major', config: { schema: { type: 'object', properties: { total: { type: 'banana' } } } } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain(`/config/schema/properties/total/type: ${NOT_A_TYPE}`);
    const list = await call<{ data: Json[] }>('GET', `/extractors/${id}/versions`);
    expect(list.body.data.map((v) => v.version)).toEqual(['draft']);
  });

  test('an inline config of an extract run is checked too', async () => {
    const r = await call<Json>('POST', '/extract_runs', { config: { schema: { type: 'banana' } }, file: { url: 'http://127.0.0.1:1/x.txt' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain(`/config/schema/type: ${NOT_A_TYPE}`);
  });

  test('the 2025-04-21 /processors routes refuse it too, in their error shape', async () => {
    const r = await sandbox().call<Json>('POST', '/processors', { body: { name: 'bad', type: 'EXTRACT', config: { type: 'EXTRACT', schema: { type: 'banana' } } } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, error: expect.stringContaining(`/config/schema/type: ${NOT_A_TYPE}`) });
  });

  test('schemas the spec allows are taken: custom types, nullable type arrays, $defs and $ref, the service\'s keywords, the default', async () => {
    const schema = {
      type: 'object',
      properties: {
        invoice_date: { type: ['string', 'null'], 'extend:type': 'date', description: 'the date' },
        total: {
          type: 'object',
          'extend:type': 'currency',
          properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } },
          required: ['amount', 'iso_4217_currency_code'],
        },
        signed: {
          type: 'object',
          'extend:type': 'signature',
          properties: {
            printed_name: { type: ['string', 'null'] },
            signature_date: { type: ['string', 'null'], 'extend:type': 'date' },
            is_signed: { type: ['boolean', 'null'] },
            title_or_role: { type: ['string', 'null'] },
          },
          required: ['printed_name', 'signature_date', 'is_signed', 'title_or_role'],
        },
        kind: { type: ['string', 'null'], enum: ['a', 'b', null] },
        address: { $ref: '#/$defs/address' },
        lines: { type: 'array', items: { type: 'object', properties: { qty: { type: ['integer', 'null'] } } } },
      },
      required: ['invoice_date'],
      additionalProperties: false,
      $defs: { address: { type: 'object', properties: { street: { type: ['string', 'null'] } } } },
    };
    const id = await extractor(schema);
    const got = await call<Json>('GET', `/extractors/${id}`);
    expect(((got.body.draftVersion as Json).config as Json).schema).toEqual(schema);
    await extractor({ type: 'object', properties: {} });
    await extractor({ type: 'object' });
    await extractor({ type: ['object', 'null'], properties: { a: { type: ['string', 'null'] } } });
    const v = await call<Json>('POST', `/extractors/${id}/versions`, { releaseType: 'minor' });
    expect(v.status).toBe(200);
  });
});

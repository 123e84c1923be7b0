import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkExpected } from '../../src/expected/check.js';
import { normalizeConfig } from '../../src/expected/config.js';
import { createExpectedValidator, deriveExpectedSchema, expectedSchemaToTypeScript, extractionSchemaIssues, fixExpected, validateExpected } from '../../src/expected/index.js';
import { buildModel, type ExpectedModel, type Node } from '../../src/expected/model.js';
import { schemaFromModel } from '../../src/expected/schema.js';
import { newAjv } from '../../src/expected/validate.js';
import { InputError } from '../../src/util/errors.js';
import { CLASSIFY_2026, CLASSIFY_NEW, CLASSIFY_OLD, EXTRACT_2026, EXTRACT_FIELDS, EXTRACT_NEW, EXTRACT_OLD, SPLITTER_2026, SPLITTER_NEW, SPLITTER_OLD, validInvoice } from './configs.js';
import { expectedFormOf } from '../../src/expected/config.js';
import { configFromEnvelope } from '../../src/expected/source.js';
import type { ExpectedForm } from '../../src/expected/model.js';

type S = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- schema trees in assertions

describe('deriveExpectedSchema', () => {
  it.each([
    ['EXTRACT', EXTRACT_NEW, EXTRACT_OLD],
    ['CLASSIFY', CLASSIFY_NEW, CLASSIFY_OLD],
    ['SPLITTER', SPLITTER_NEW, SPLITTER_OLD],
  ])('%s: both layouts give the same schema', (_t, neu, old) => {
    expect(deriveExpectedSchema(old)).toEqual(deriveExpectedSchema(neu));
  });

  it('EXTRACT: results under value, every field nullable, currency and signature as definitions', () => {
    const s = deriveExpectedSchema(EXTRACT_NEW) as S;
    expect(s.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(s.required).toEqual(['value']);
    expect(s.additionalProperties).toBe(false);
    const v = s.properties.value;
    expect(Object.keys(v.properties)).toEqual(['invoice_number', 'invoice_date', 'total', 'tax', 'paid', 'page_count', 'status', 'vendor', 'signature', 'line_items', 'notes']);
    expect(v.required).toBeUndefined();
    expect(v.properties.invoice_date).toEqual({ type: ['string', 'null'], format: 'date' });
    expect(v.properties.page_count).toEqual({ type: ['integer', 'null'] });
    expect(v.properties.status).toEqual({ enum: ['open', 'paid', 'void', null] });
    expect(v.properties.total).toEqual({ $ref: '#/definitions/Currency' });
    expect(v.properties.tax).toEqual({ $ref: '#/definitions/Currency' });
    expect(v.properties.signature).toEqual({ $ref: '#/definitions/Signature' });
    expect(v.properties.vendor.properties.address.properties.city).toEqual({ type: ['string', 'null'] });
    expect(v.properties.line_items.items.properties.amount).toEqual({ $ref: '#/definitions/Currency' });
    expect(v.properties.notes).toEqual({ type: ['string', 'null'] });
    expect(s.definitions.Currency.properties.iso_4217_currency_code.enum).toContain('EUR');
    expect(s.properties.metadata.type).toBe('object');
  });

  it('strict: every field required', () => {
    const s = deriveExpectedSchema(EXTRACT_NEW, { strict: true }) as S;
    expect(s.properties.value.required).toHaveLength(11);
    expect(s.properties.value.properties.vendor.required).toEqual(['name', 'address']);
  });

  it('EXTRACT fields array: the value form or the legacy form', () => {
    const s = deriveExpectedSchema(EXTRACT_FIELDS) as S;
    expect(s.anyOf).toEqual([{ $ref: '#/definitions/ValueForm' }, { $ref: '#/definitions/LegacyForm' }]);
    expect(s.definitions.LegacyForm.properties['Invoice Number'].properties.id).toEqual({ const: 'invoice_number' });
    expect(s.definitions.ValueForm.properties.value.properties.line_items.items.properties.amount).toEqual({ $ref: '#/definitions/Currency' });
  });

  it.each([
    ['CLASSIFY without classifications', { type: 'CLASSIFY' }, 'is missing', '/classifications'],
    ['CLASSIFY with none', { type: 'CLASSIFY', classifications: [] }, 'is empty', '/classifications'],
    ['SPLITTER with none', { type: 'SPLITTER', splitClassifications: [] }, 'is empty', '/splitClassifications'],
  ])('%s: a config error (no class, no valid expected output; it gave a schema that matches nothing)', (_n, config, why, pointer) => {
    expect(() => deriveExpectedSchema(config)).toThrow(expect.objectContaining({ name: 'InputError', message: expect.stringContaining(`no class declared: "${pointer.slice(1)}" ${why}`), location: { pointer } }));
  });

  it('CLASSIFY: id and type from the config, as a pair', () => {
    const s = deriveExpectedSchema(CLASSIFY_OLD) as S;
    expect(s.properties.id.enum).toEqual(['invoice', 'receipt', 'other']);
    expect(s.required).toEqual(['id', 'type']);
    expect(s.anyOf).toHaveLength(3);
  });

  it('SPLITTER: splits with positive integer pages', () => {
    const s = deriveExpectedSchema(SPLITTER_OLD) as S;
    expect(s.required).toEqual(['splits']);
    expect(s.definitions.Split.properties.startPage).toEqual({ type: 'integer', minimum: 1 });
    expect(s.definitions.Split.required).toEqual(['id', 'classificationId', 'type', 'startPage', 'endPage']);
  });

  it('compiles with a standard ajv (draft-07, ajv-formats)', async () => {
    const { Ajv } = await import('ajv');
    const addFormats = (await import('ajv-formats')).default;
    for (const c of [EXTRACT_NEW, EXTRACT_FIELDS, CLASSIFY_NEW, SPLITTER_NEW]) {
      const ajv = new Ajv({ allowUnionTypes: true });
      addFormats.default(ajv);
      const validate = ajv.compile(deriveExpectedSchema(c));
      expect(typeof validate).toBe('function');
    }
    const ajv = new Ajv({ allowUnionTypes: true });
    addFormats.default(ajv);
    expect(ajv.validate(deriveExpectedSchema(EXTRACT_NEW), validInvoice())).toBe(true);
  });

  it.each([
    ['an unknown field type', { type: 'EXTRACT', fields: [{ id: 'a', type: 'money' }] }, '/fields/0/type'],
    ['a duplicate field id', { type: 'EXTRACT', fields: [{ id: 'a', type: 'string' }, { id: 'a', type: 'number' }] }, '/fields/1/id'],
    ['an enum field without values', { type: 'EXTRACT', fields: [{ id: 'a', type: 'enum' }] }, '/fields/0/enum'],
    ['a dangling $ref', { type: 'EXTRACT', schema: { type: 'object', properties: { a: { $ref: '#/$defs/x' } } } }, '/schema/properties/a/$ref'],
    ['neither schema nor fields', { type: 'EXTRACT' }, ''],
    ['an unknown processor type', { type: 'SUMMARIZE' }, '/type'],
  ])('refuses a config with %s, naming the pointer', (_n, config, pointer) => {
    let caught: unknown;
    try {
      deriveExpectedSchema(config);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(InputError);
    expect((caught as InputError).location.pointer).toBe(pointer);
  });

  it('infers the type when the config does not say', () => {
    const { type: _t, ...untyped } = CLASSIFY_OLD;
    expect(deriveExpectedSchema(untyped)).toEqual(deriveExpectedSchema(CLASSIFY_NEW));
    const { type: _e, ...fields } = EXTRACT_FIELDS;
    expect(deriveExpectedSchema(fields)).toEqual(deriveExpectedSchema(EXTRACT_FIELDS));
  });

  it('accepts a recursive schema, accepting anything below the repetition', () => {
    const config = { type: 'EXTRACT', schema: { type: 'object', properties: { part: { $ref: '#/$defs/part' } }, $defs: { part: { type: 'object', properties: { name: { type: 'string' }, sub: { $ref: '#/$defs/part' } } } } } };
    expect(validateExpected(config, { value: { part: { name: 'a', sub: { anything: 1 } } } }).valid).toBe(true);
    expect(validateExpected(config, { value: { part: { name: 1, sub: null } } }).findings.map((f) => f.pointer)).toEqual(['/value/part/name']);
  });
});

describe('the API 2026-02-09 expected form (spec 3.7)', () => {
  const CURRENT = { form: '2026-02-09' as const };

  it('CLASSIFY: {id, type}, no confidence', () => {
    const s = deriveExpectedSchema(CLASSIFY_NEW, CURRENT) as S;
    expect(Object.keys(s.properties)).toEqual(['id', 'type']);
    expect(s.additionalProperties).toBe(false);
    expect(s.description).toBe('Expected output of a CLASSIFY processor (API 2026-02-09 form)');
    expect(Object.keys((deriveExpectedSchema(CLASSIFY_NEW) as S).properties)).toEqual(['id', 'type', 'confidence']);
  });

  it('SPLITTER: splits of classificationId, type, startPage, endPage, all required, nothing else', () => {
    const split = (deriveExpectedSchema(SPLITTER_NEW, CURRENT) as S).definitions.Split;
    expect(Object.keys(split.properties)).toEqual(['classificationId', 'type', 'startPage', 'endPage']);
    expect(split.required).toEqual(['classificationId', 'type', 'startPage', 'endPage']);
    expect(split.additionalProperties).toBe(false);
  });

  it('EXTRACT: value optional, and a fields config has only the value form', () => {
    const s = deriveExpectedSchema(EXTRACT_NEW, CURRENT) as S;
    expect(s.required).toBeUndefined();
    expect(deriveExpectedSchema(EXTRACT_NEW, { ...CURRENT, strict: true }).required).toEqual(['value']);
    const f = deriveExpectedSchema(EXTRACT_FIELDS, CURRENT) as S;
    expect(f.anyOf).toBeUndefined();
    expect(f.definitions?.LegacyForm).toBeUndefined();
    expect(Object.keys(f.properties.value.properties)).toContain('invoice_number');
    // No value is "nothing expected": every field absent, a warning each.
    const r = validateExpected(EXTRACT_NEW, {}, CURRENT);
    expect(r.valid).toBe(true);
    expect(r.findings.map((x) => `${x.severity} ${x.rule} ${x.pointer}`)).toContain('warning missing-field /value/invoice_number');
    expect(validateExpected(EXTRACT_NEW, {}).findings.map((x) => x.rule)).toEqual(['value-wrapper']);
    const fixed = fixExpected(EXTRACT_NEW, {}, { ...CURRENT, strict: true });
    expect(fixed.valid).toBe(true);
    expect(Object.keys((fixed.doc as S).value)).toHaveLength(11);
  });

  it('generated types: a split has no id', async () => {
    const ts = await expectedSchemaToTypeScript(deriveExpectedSchema(SPLITTER_NEW, CURRENT), 'Splits');
    expect(ts).toMatch(/export interface Split \{\s+classificationId: "invoice" \| "receipt";\s+type: "Invoice" \| "Receipt";\s+startPage: number;\s+endPage: number;\s+\}/);
    expect(await expectedSchemaToTypeScript(deriveExpectedSchema(CLASSIFY_NEW, CURRENT))).not.toContain('confidence');
    // 2025-04-21: the split keeps its members (the id/type pairing made them a union of loose branches without pages).
    expect(await expectedSchemaToTypeScript(deriveExpectedSchema(SPLITTER_NEW), 'Splits')).toMatch(/export interface Split \{\s+classificationId: "invoice" \| "receipt";\s+type: "Invoice" \| "Receipt";\s+id: string;\s+startPage: number;\s+endPage: number;/);
  });

  it.each<[string, unknown, string, ExpectedForm]>([
    ['a 2026-02-09 config under 2025-04-21', EXTRACT_2026, '2025-04-21', '2026-02-09'],
    ['a 2026-02-09 classifier config', CLASSIFY_2026, '2025-04-21', '2026-02-09'],
    ['a 2026-02-09 splitter config', SPLITTER_2026, '2024-11-14', '2026-02-09'],
    ['a 2025-04-21 config under 2025-04-21', SPLITTER_NEW, '2025-04-21', '2025-04-21'],
    ['a 2024-11-14 config under 2025-06-01', SPLITTER_OLD, '2025-06-01', '2025-04-21'],
    ['a 2025-04-21 config under 2026-02-09 (a legacy /processors config)', CLASSIFY_NEW, '2026-02-09', '2026-02-09'],
    ['a config of no telling layout under 2026-03-01', { schema: EXTRACT_NEW.schema }, '2026-03-01', '2026-02-09'],
    ['a config of no telling layout under 2025-04-21', { schema: EXTRACT_NEW.schema }, '2025-04-21', '2025-04-21'],
    ['an extractor object (the envelope says 2026-02-09)', { object: 'extractor', id: 'ex_1', draftVersion: { object: 'extractor_version', config: { schema: EXTRACT_NEW.schema } } }, '2025-04-21', '2026-02-09'],
  ])('which form is checked: %s (API %s) -> %s', (_n, file, api, want) => {
    const source = configFromEnvelope(file, 'config.json');
    expect(expectedFormOf(source.layout, api)).toBe(want);
  });
});

describe('generated TypeScript types', () => {
  it('types the expected output of a config', async () => {
    const ts = await expectedSchemaToTypeScript(deriveExpectedSchema(EXTRACT_NEW), 'InvoiceOutput');
    expect(ts).toContain('export interface InvoiceOutput {');
    expect(ts).toMatch(/invoice_date\?: string \| null;/);
    expect(ts).toMatch(/total\?: Currency;/);
    expect(ts).toMatch(/export type Currency = \{\s+amount: number \| null;/);
    expect(ts).toContain('status?: "open" | "paid" | "void" | null;');
  });

  it('types a classification as a union of the configured ids', async () => {
    const ts = await expectedSchemaToTypeScript(deriveExpectedSchema(CLASSIFY_NEW));
    expect(ts).toContain('id: "invoice" | "receipt" | "other";');
  });
});

// ------------------------------------------------------------------------------------------
// The fast path returns "valid" whenever the compiled schema passes, so the schema and the
// walker must agree: strict schema passes <=> no finding at all; default schema passes <=> no
// error. Documents are generated near the model (valid values, nulls, junk, wrappers, absences).

function junk(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.string({ maxLength: 6 }),
    fc.constantFrom('1,234.50', '$12', 'EUR 3,5', 'yes', '03/15/2024', '2024-02-30', 'OPEN', 'usd', '€'),
    fc.integer({ min: -3, max: 3000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant({}),
    fc.constant([]),
  );
}

const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });

function valueArb(node: Node, depth = 0): fc.Arbitrary<unknown> {
  const valid = validArb(node, depth);
  return fc.oneof(w(30, valid), w(2, fc.constant(null)), w(1, junk()), w(1, valid.map((v) => ({ value: v }))));
}

function validArb(node: Node, depth: number): fc.Arbitrary<unknown> {
  switch (node.kind) {
    case 'string':
      return fc.string({ maxLength: 5 });
    case 'number':
      return node.integer ? fc.integer() : fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'date':
      return fc.oneof(w(10, fc.constantFrom('2024-02-29', '1999-12-31')), w(1, fc.constantFrom('2024-1-1', '2023-02-29')));
    case 'currency':
      return fc.oneof(
        w(10, fc.record({ amount: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)), iso_4217_currency_code: fc.constantFrom('USD', 'EUR', null) })),
        w(1, fc.record({ amount: fc.constantFrom(1, '12', null), iso_4217_currency_code: fc.constantFrom('usd', 'XYZ', 'EUR'), currency: fc.constant('USD') }, { requiredKeys: [] })),
      );
    case 'enum':
      return fc.oneof(w(10, fc.constantFrom(...node.values)), w(1, fc.constantFrom('nope', node.values[0]?.toString().toUpperCase() ?? 'X')));
    case 'array':
      return depth > 2 ? fc.constant([]) : fc.array(valueArb(node.items, depth + 1), { maxLength: 3 });
    case 'object':
      return objectArb(node.properties, depth + 1);
    case 'any':
      return fc.anything({ maxDepth: 1 });
  }
}

const ABSENT = Symbol('absent');

function objectArb(props: Record<string, Node>, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, n] of Object.entries(props)) shape[k] = fc.oneof(w(40, depth > 3 ? fc.constant(null) : valueArb(n, depth)), w(1, fc.constant(ABSENT)));
  shape.unknown_key = fc.oneof(w(40, fc.constant(ABSENT)), w(1, fc.constant(1)));
  return fc.record(shape).map((rec) => Object.fromEntries(Object.entries(rec).filter(([, v]) => v !== ABSENT)));
}

function docArb(model: ExpectedModel): fc.Arbitrary<unknown> {
  if (model.type === 'EXTRACT') {
    const value = objectArb(model.fields, 0);
    return fc.oneof(
      { weight: 5, arbitrary: fc.record({ value, metadata: fc.constantFrom({}, { a: {} }, { a: 1 }, []) }, { requiredKeys: ['value'] }) },
      { weight: 1, arbitrary: value },
      { weight: 1, arbitrary: value.map((v) => ({ value: { value: v } })) },
    );
  }
  const pair = fc.constantFrom(...model.classifications.map((c) => [c.id, c.type]), ['invoice', 'Receipt'], ['bogus', 'Invoice'], [undefined, 'Invoice']);
  if (model.type === 'CLASSIFY') {
    return fc.tuple(pair, fc.oneof(fc.constant(undefined), fc.double({ min: -1, max: 2, noNaN: true }), fc.constant('0.5'))).map(([[id, type], confidence]) => {
      const d: Record<string, unknown> = {};
      if (id !== undefined) d.id = id;
      d.type = type;
      if (confidence !== undefined) d.confidence = confidence;
      return d;
    });
  }
  throw new Error('SPLITTER documents always take the slow path');
}

const FORMS: Array<[string, unknown, ExpectedForm]> = [
  ['EXTRACT schema', EXTRACT_NEW, '2025-04-21'],
  ['EXTRACT fields', EXTRACT_FIELDS, '2025-04-21'],
  ['CLASSIFY', CLASSIFY_NEW, '2025-04-21'],
  ['EXTRACT schema, 2026-02-09 form', EXTRACT_NEW, '2026-02-09'],
  ['EXTRACT fields, 2026-02-09 form', EXTRACT_FIELDS, '2026-02-09'],
  ['CLASSIFY, 2026-02-09 form', CLASSIFY_NEW, '2026-02-09'],
];

describe('compiled schema and rich findings agree (property)', () => {
  it.each(FORMS)('%s', (_n, config, form) => {
    const n = normalizeConfig(config);
    const model = buildModel(n.config, n.type, form);
    const strictSchema = newAjv().compile(schemaFromModel(model, { requireAll: true }));
    const looseSchema = newAjv().compile(schemaFromModel(model));
    const validate = createExpectedValidator(config, { form });
    let passed = 0;
    fc.assert(
      fc.property(docArb(model), (doc) => {
        const findings = checkExpected(model, doc, {});
        expect(strictSchema(doc)).toBe(findings.length === 0);
        expect(looseSchema(doc)).toBe(!findings.some((f) => f.severity === 'error'));
        expect(validate(doc).findings.some((f) => f.rule === 'schema-violation')).toBe(false);
        if (findings.length === 0) passed++;
      }),
      { numRuns: 400 },
    );
    // The generator must reach both sides, or the property proves nothing.
    expect(passed).toBeGreaterThan(0);
  });
});

describe('fixes reach a fixed point (property)', () => {
  it.each(FORMS)('%s: after --fix no error offers a fix, and fixing again changes nothing', (_n, config, form) => {
    const n = normalizeConfig(config);
    const model = buildModel(n.config, n.type, form);
    const opts = { currency: 'EUR', dateOrder: 'dmy' as const, strict: true, form };
    fc.assert(
      fc.property(docArb(model), (doc) => {
        const once = fixExpected(config, doc, opts);
        expect(once.findings.filter((f) => f.severity === 'error' && f.fix)).toEqual([]);
        expect(once.findings.filter((f) => f.severity === 'error').length).toBeLessThanOrEqual(validateExpected(config, doc, opts).findings.filter((f) => f.severity === 'error').length);
        const twice = fixExpected(config, once.doc, opts);
        expect(twice.fixed).toEqual([]);
        expect(twice.doc).toEqual(once.doc);
      }),
      { numRuns: 300 },
    );
  });
});

describe('a field named __proto__', () => {
  const config = JSON.parse('{"type":"EXTRACT","schema":{"type":"object","properties":{"__proto__":{"type":"string"},"inner":{"type":"object","properties":{"__proto__":{"type":"number"}}}}}}') as unknown;
  it('is a property of the derived schema (it was dropped: an assignment set the prototype), and required with strict', () => {
    const schema = deriveExpectedSchema(config, { strict: true }) as { properties: { value: { properties: Record<string, unknown>; required: string[] } } };
    const value = schema.properties.value;
    expect(Object.keys(value.properties).sort()).toEqual(['__proto__', 'inner']);
    expect(Object.hasOwn(value.properties, '__proto__')).toBe(true);
    expect(value.required).toContain('__proto__');
    expect(JSON.stringify(schema)).toContain('"__proto__":{"type":["string","null"]}');
  });

  it('validates like any other field (ajv cannot hold it, so such configs are walked; it crashed with "schema is invalid")', () => {
    const doc = (v: string) => JSON.parse(`{"value": ${v}}`) as unknown;
    expect(validateExpected(config, doc('{"__proto__": "x", "inner": {"__proto__": 2}}'))).toEqual({ valid: true, findings: [] });
    const bad = validateExpected(config, doc('{"__proto__": 5, "inner": {"__proto__": "two"}, "extra": 1}'));
    expect(bad.findings.map((f) => `${f.pointer} ${f.rule}`).sort()).toEqual(['/value/__proto__ type-mismatch', '/value/extra unknown-field', '/value/inner/__proto__ type-mismatch']);
  });
});

describe('overflowFinding', () => {
  it('finds a number beyond a double where no field check looks (an unknown key), and nothing in a text without such a literal', async () => {
    const { overflowFinding } = await import('../../src/expected/index.js');
    const text = '{"value": {"invoice_number": "A", "meta": {"x": 1e400}}}';
    expect(overflowFinding(JSON.parse(text), text)).toMatchObject({ pointer: '/value/meta/x', rule: 'type-mismatch', severity: 'error', message: expect.stringContaining('it would be sent as null') });
    const fine = '{"value": {"n": 1e300, "s": "1e400"}}';
    expect(overflowFinding(JSON.parse(fine), fine)).toBeUndefined();
  });
});

describe('an extraction schema with no properties (the default extractor config)', () => {
  const config = { type: 'EXTRACT', schema: { type: 'object', properties: {} } };
  it.each(['2025-04-21', '2026-02-09'] as const)('%s: takes {} only; a field is unknown-field at its pointer', (form) => {
    expect(validateExpected(config, { value: {} }, { form }).findings).toEqual([]);
    const r = validateExpected(config, { value: { total: 1, 'line items': [] } }, { form });
    expect(r.valid).toBe(false);
    expect(r.findings.map((f) => [f.pointer, f.rule])).toEqual([['/value/total', 'unknown-field'], ['/value/line items', 'unknown-field']]);
  });

  it('a nullable object type reads the same; a schema that is no object is still refused', () => {
    expect(buildModel({ schema: { type: ['object', 'null'], properties: {} } }, 'EXTRACT')).toMatchObject({ form: 'schema', fields: {} });
    expect(() => buildModel({ schema: { type: 'string' } }, 'EXTRACT')).toThrow(InputError);
  });
});

describe('extractionSchemaIssues: the one rule for an acceptable extraction schema', () => {
  it.each([
    ['a field of an unknown type', { type: 'object', properties: { total: { type: 'banana' } } }, '/properties/total/type', '"banana" is not a JSON Schema type'],
    ['an unknown type in a type array', { type: 'object', properties: { total: { type: ['number', 'banana'] } } }, '/properties/total/type/1', '"banana" is not a JSON Schema type'],
    ['a top-level string', { type: 'string' }, '/type', 'must have type "object"'],
    ['properties that are no object', { type: 'object', properties: [] }, '/properties', '"properties" must be object'],
  ])('refuses %s at its pointer, and buildModel (validate, schema) refuses it too', (_n, schema, pointer, message) => {
    const issues = extractionSchemaIssues(schema);
    expect(issues).toEqual([{ pointer, message: expect.stringContaining(message) }]);
    const e = (() => {
      try {
        buildModel({ schema }, 'EXTRACT');
      } catch (err) {
        return err as InputError;
      }
      throw new Error('buildModel took it');
    })();
    expect(e).toBeInstanceOf(InputError);
    expect(e.location.pointer).toBe(`/schema${pointer}`);
  });

  it('takes the service\'s custom types and keywords, $defs and a 2020-12 $schema', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        d: { type: ['string', 'null'], 'extend:type': 'date' },
        c: { type: 'object', 'extend:type': 'currency', properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } } },
        a: { $ref: '#/$defs/a' },
      },
      $defs: { a: { type: 'object', properties: { x: { type: ['integer', 'null'] } } } },
    };
    expect(extractionSchemaIssues(schema)).toEqual([]);
    expect(extractionSchemaIssues({ type: 'object', properties: {} })).toEqual([]);
  });
});

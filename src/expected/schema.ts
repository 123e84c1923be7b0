/**
 * The JSON Schema (draft-07) of a valid expectedOutput, derived from the expected-output model.
 * `requireAll` makes every configured field required: a document that passes it has no finding
 * at all, which is what the validator's fast path relies on.
 */
import { ISO_4217_CODES } from './currencies.js';
import type { Classification, ExpectedModel, LegacyField, Node } from './model.js';

export type JsonSchema = Record<string, unknown>;

export interface SchemaOptions {
  /** Every configured field required (absent fields are otherwise allowed: "expect nothing"). */
  requireAll?: boolean;
}

const DRAFT = 'http://json-schema.org/draft-07/schema#';

export const CURRENCY_SCHEMA: JsonSchema = {
  title: 'Currency',
  description: 'An amount of money; the code is an ISO 4217 alphabetic code.',
  type: ['object', 'null'],
  properties: {
    amount: { type: ['number', 'null'] },
    iso_4217_currency_code: { enum: [...ISO_4217_CODES, null] },
  },
  required: ['amount', 'iso_4217_currency_code'],
  additionalProperties: false,
};

export const METADATA_SCHEMA: JsonSchema = {
  description: 'Optional metadata keyed by field path (for example line_items[0].description).',
  type: 'object',
  additionalProperties: { type: 'object' },
};

export const CONFIDENCE_SCHEMA: JsonSchema = { type: 'number', minimum: 0, maximum: 1 };

export function schemaFromModel(model: ExpectedModel, opts: SchemaOptions = {}): JsonSchema {
  const defs: Record<string, JsonSchema> = {};
  let body: JsonSchema;
  if (model.type === 'EXTRACT') {
    // 2026-02-09: `value` is optional ({value?}); the fast path (requireAll) still asks for it, and
    // the walker accepts its absence.
    const valueForm: JsonSchema = {
      type: 'object',
      properties: { value: objectSchema(model.fields, defs, opts, false), metadata: METADATA_SCHEMA },
      ...(model.api === '2025-04-21' || opts.requireAll ? { required: ['value'] } : {}),
      additionalProperties: false,
    };
    if (model.form === 'fields' && model.legacy) {
      defs.ValueForm = { title: 'ValueForm', ...valueForm };
      defs.LegacyForm = legacySchema(model.legacy, model.fields, defs, opts);
      body = { anyOf: [{ $ref: '#/definitions/ValueForm' }, { $ref: '#/definitions/LegacyForm' }] };
    } else body = valueForm;
  } else if (model.type === 'CLASSIFY') {
    body = classificationSchema(model.classifications, 'id', 'type', model.api === '2025-04-21' ? { confidence: CONFIDENCE_SCHEMA } : {}, ['id', 'type']);
  } else {
    const pages = { startPage: { type: 'integer', minimum: 1 }, endPage: { type: 'integer', minimum: 1 } };
    defs.Split = {
      title: 'Split',
      ...(model.api === '2025-04-21'
        ? classificationSchema(
            model.classifications,
            'classificationId',
            'type',
            {
              id: { type: 'string' },
              ...pages,
              identifier: { type: ['string', 'null'] },
              observation: { type: ['string', 'null'] },
              name: { type: ['string', 'null'] },
              fileId: { type: ['string', 'null'] },
            },
            ['id', 'classificationId', 'type', 'startPage', 'endPage'],
          )
        : classificationSchema(model.classifications, 'classificationId', 'type', pages, ['classificationId', 'type', 'startPage', 'endPage'])),
    };
    body = {
      type: 'object',
      properties: { splits: { type: 'array', items: { $ref: '#/definitions/Split' } } },
      required: ['splits'],
      additionalProperties: false,
    };
  }
  return {
    $schema: DRAFT,
    title: 'ExpectedOutput',
    description: `Expected output of ${model.type === 'EXTRACT' ? 'an' : 'a'} ${model.type} processor (API ${model.api} form)`,
    ...body,
    ...(Object.keys(defs).length ? { definitions: defs } : {}),
  };
}

function nodeSchema(node: Node, defs: Record<string, JsonSchema>, opts: SchemaOptions): JsonSchema {
  switch (node.kind) {
    case 'string':
      return { type: ['string', 'null'] };
    case 'number':
      return { type: [node.integer ? 'integer' : 'number', 'null'] };
    case 'boolean':
      return { type: ['boolean', 'null'] };
    case 'date':
      return { type: ['string', 'null'], format: 'date' };
    case 'currency':
      defs.Currency = CURRENCY_SCHEMA;
      return { $ref: '#/definitions/Currency' };
    case 'enum':
      return { enum: [...node.values, null] };
    case 'array':
      return { type: ['array', 'null'], items: nodeSchema(node.items, defs, opts) };
    case 'object':
      if (node.signature) {
        defs.Signature = { title: 'Signature', ...objectSchema(node.properties, defs, opts, true) };
        return { $ref: '#/definitions/Signature' };
      }
      return objectSchema(node.properties, defs, opts, true);
    case 'any':
      return {};
  }
}

/** obj[key] = value as an own member, `__proto__` too (a field may be named so). */
function own(obj: Record<string, JsonSchema>, key: string, value: JsonSchema): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function objectSchema(props: Record<string, Node>, defs: Record<string, JsonSchema>, opts: SchemaOptions, nullable: boolean): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [k, n] of Object.entries(props)) own(properties, k, nodeSchema(n, defs, opts));
  return {
    type: nullable ? ['object', 'null'] : 'object',
    properties,
    ...(opts.requireAll && Object.keys(props).length ? { required: Object.keys(props) } : {}),
    additionalProperties: false,
  };
}

function legacySchema(legacy: LegacyField[], fields: Record<string, Node>, defs: Record<string, JsonSchema>, opts: SchemaOptions): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const f of legacy) {
    own(properties, f.name, {
      type: 'object',
      properties: {
        id: { const: f.id },
        value: nodeSchema(fields[f.id], defs, opts),
        type: { const: f.type },
        confidence: CONFIDENCE_SCHEMA,
        page: { type: 'integer', minimum: 1 },
      },
      required: ['id'],
      additionalProperties: false,
    });
  }
  return {
    title: 'LegacyForm',
    description: 'Deprecated fields-array form: field name -> {id, value, type?, confidence?, page?}',
    type: 'object',
    properties,
    minProperties: 1,
    ...(opts.requireAll && legacy.length ? { required: legacy.map((f) => f.name) } : {}),
    additionalProperties: false,
  };
}

/** An object naming one of the configured classifications by id and type, as a matching pair. */
function classificationSchema(
  list: Classification[],
  idKey: string,
  typeKey: string,
  extra: Record<string, JsonSchema>,
  required: string[],
): JsonSchema {
  const ids = [...new Set(list.map((c) => c.id))];
  const types = [...new Set(list.map((c) => c.type))];
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      [idKey]: ids.length ? { enum: ids } : { type: 'string' },
      [typeKey]: types.length ? { enum: types } : { type: 'string' },
      ...extra,
    },
    required,
    additionalProperties: false,
  };
  if (list.length === 0) schema.not = {};
  // With several classifications, id and type must name the same one.
  else if (list.length > 1) schema.anyOf = list.map((c) => ({ properties: { [idKey]: { const: c.id }, [typeKey]: { const: c.type } } }));
  return schema;
}

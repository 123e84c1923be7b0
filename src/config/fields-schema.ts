import { InputError } from '../util/errors.js';
import { isPlainObject } from '../util/json.js';
import { at, type Segment, type Site } from './detect.js';
import { setOwn, type Member } from './members.js';
import type { Lossy } from './steps.js';

/**
 * `--convert-fields` (docs/migrate.md, "Fields-form configs"): a fields-form EXTRACT config (the
 * 2025-04-21 `fields` array) as the JSON Schema `schema` a 2026-02-09 extractor takes, with the
 * service's custom types (spec api-2026-02-09.md 3.6), and its expected outputs from the fields
 * form (`name -> {id, value, ...}`) to the value form (`{value: {id: value}}`).
 *
 * The property key is the field `id`: evalkit already keys a fields-form config's values by id
 * (its value form, metrics, dataset columns), and ids are unique where names need not be. What
 * the schema has no place for is lossy like any key: a `name` other than the id, an enum
 * option's description, members a field does not define.
 */

export type FieldType = 'string' | 'number' | 'boolean' | 'date' | 'currency' | 'signature' | 'enum' | 'object' | 'array';
const FIELD_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'boolean', 'date', 'currency', 'signature', 'enum', 'object', 'array']);

/** The members a field of the fields form has (0.0.12 `ExtractionField`). */
const FIELD_KEYS: ReadonlySet<string> = new Set(['id', 'name', 'type', 'description', 'schema', 'enum']);

/** A top-level field, for converting expected outputs. */
export interface FieldInfo {
  id: string;
  /** The name the fields form keys expected outputs by (the id when the field has none). */
  name: string;
  type: FieldType;
}

export interface FieldsConversion {
  schema: Record<string, unknown>;
  /** What the schema has no place for, with its path in the config. */
  lossy: Lossy[];
  /** Top-level fields by id. */
  fields: Map<string, FieldInfo>;
}

const nullable = (t: string): string[] => [t, 'null'];

/** Spec 3.6, as written there. */
function currencySchema(): Record<string, unknown> {
  return {
    type: 'object',
    'extend:type': 'currency',
    properties: { amount: { type: nullable('number') }, iso_4217_currency_code: { type: nullable('string') } },
    required: ['amount', 'iso_4217_currency_code'],
  };
}

function signatureSchema(): Record<string, unknown> {
  return {
    type: 'object',
    'extend:type': 'signature',
    properties: {
      printed_name: { type: nullable('string') },
      signature_date: { type: nullable('string'), 'extend:type': 'date' },
      is_signed: { type: nullable('boolean') },
      title_or_role: { type: nullable('string') },
    },
    required: ['printed_name', 'signature_date', 'is_signed', 'title_or_role'],
  };
}

/**
 * The config's `fields` as a JSON Schema. Throws InputError (naming the pointer) for what is no
 * fields form: a field without a string id, an id twice among siblings, an unknown type, an
 * object or array field without its `schema` array, an enum field without its `enum` array.
 */
export function convertFields(config: Record<string, unknown>, site: Site): FieldsConversion {
  if (config.schema !== undefined) {
    throw new InputError('this EXTRACT config has both `fields` and `schema`: converting the fields would replace the schema', {
      location: at(site, 'schema'),
      hint: 'keep one of the two (remove `fields` if the schema is the one in use), then migrate',
    });
  }
  const lossy: Lossy[] = [];
  const fields = new Map<string, FieldInfo>();
  const schema = objectOf(config.fields, ['fields'], site, lossy, fields);
  return { schema, lossy, fields };
}

function objectOf(list: unknown, path: Segment[], site: Site, lossy: Lossy[], top?: Map<string, FieldInfo>): Record<string, unknown> {
  if (!Array.isArray(list)) {
    throw new InputError(`expected an array of fields, got ${describe(list)}`, { location: at(site, ...path), hint: 'give the fields as an array of {id, name, type, description} objects' });
  }
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const seen = new Set<string>();
  list.forEach((f, i) => {
    const p = [...path, i];
    if (!isPlainObject(f)) throw new InputError(`expected a field object, got ${describe(f)}`, { location: at(site, ...p), hint: 'each field is {id, name, type, description}' });
    if (typeof f.id !== 'string' || f.id === '') {
      throw new InputError('a field needs a non-empty string "id" (it becomes the property key of the schema)', { location: at(site, ...p), hint: 'add the field\'s "id"' });
    }
    if (seen.has(f.id)) throw new InputError(`field id "${f.id}" appears twice here: the schema would hold one property for both`, { location: at(site, ...p, 'id'), hint: 'give each field its own id' });
    seen.add(f.id);
    const node = fieldSchema(f, p, site, lossy);
    setOwn(properties, f.id, node);
    required.push(f.id);
    if (top) top.set(f.id, { id: f.id, name: typeof f.name === 'string' && f.name !== '' ? f.name : f.id, type: f.type as FieldType });
  });
  // Every property required: an extractor answers every key of its schema (null when not found),
  // as a fields-form processor answered every field; the SDK's zodToExtendSchema writes it so.
  return { type: 'object', properties, required, additionalProperties: false };
}

function fieldSchema(f: Record<string, unknown>, p: Segment[], site: Site, lossy: Lossy[]): Record<string, unknown> {
  const type = f.type;
  if (typeof type !== 'string' || !FIELD_TYPES.has(type)) {
    throw new InputError(`field "${String(f.id)}" has unknown type ${JSON.stringify(type)}`, { location: at(site, ...p, 'type'), hint: `use one of ${[...FIELD_TYPES].join(', ')}` });
  }
  const lose = (k: string, v: unknown) => lossy.push({ pointer: at(site, ...p, k).pointer, key: [...p, k].join('.'), value: v, path: [...p, k] });
  // The name keyed the fields form's outputs; a schema has the id only.
  if (f.name !== undefined && f.name !== f.id) lose('name', f.name);
  for (const k of Object.keys(f)) {
    if (!FIELD_KEYS.has(k)) lose(k, f[k]);
    else if (k === 'schema' && type !== 'object' && type !== 'array') lose(k, f[k]);
    else if (k === 'enum' && type !== 'enum') lose(k, f[k]);
  }
  const description = f.description;
  let desc: string | undefined;
  // An empty description says nothing: left out without loss.
  if (typeof description === 'string') desc = description === '' ? undefined : description;
  else if (description !== undefined) lose('description', description);
  const withDesc = (head: Record<string, unknown>, rest: Record<string, unknown> = {}) => ({ ...head, ...(desc !== undefined ? { description: desc } : {}), ...rest });
  switch (type) {
    case 'string':
    case 'number':
    case 'boolean':
      return withDesc({ type: nullable(type) });
    case 'date':
      return withDesc({ type: nullable('string'), 'extend:type': 'date' });
    case 'currency': {
      const { type: t, 'extend:type': e, ...rest } = currencySchema();
      return withDesc({ type: t, 'extend:type': e }, rest);
    }
    case 'signature': {
      const { type: t, 'extend:type': e, ...rest } = signatureSchema();
      return withDesc({ type: t, 'extend:type': e }, rest);
    }
    case 'enum':
      return withDesc({}, { enum: enumValues(f.enum, [...p, 'enum'], site, lossy) });
    case 'object': {
      const { type: t, ...rest } = objectOf(requireSchema(f, p, site), [...p, 'schema'], site, lossy);
      return withDesc({ type: t }, rest);
    }
    default: {
      // array: its sub-fields describe one row (a line item).
      const items = objectOf(requireSchema(f, p, site), [...p, 'schema'], site, lossy);
      return withDesc({ type: 'array' }, { items });
    }
  }
}

function requireSchema(f: Record<string, unknown>, p: Segment[], site: Site): unknown[] {
  if (Array.isArray(f.schema)) return f.schema;
  throw new InputError(`${String(f.type)} field "${String(f.id)}" needs a "schema" array of its sub-fields`, {
    location: at(site, ...p, f.schema === undefined ? 'type' : 'schema'),
    hint: f.type === 'array' ? 'add "schema": [...] with the fields of one row' : 'add "schema": [...] with its members as fields',
  });
}

/** The values of an enum field (+ null: a value not found is null), option descriptions lossy. */
function enumValues(list: unknown, p: Segment[], site: Site, lossy: Lossy[]): unknown[] {
  if (!Array.isArray(list)) throw new InputError(`an enum field needs an "enum" array of options, got ${describe(list)}`, { location: at(site, ...p), hint: 'add "enum": [{"value": "..."}, ...]' });
  const values: unknown[] = [];
  list.forEach((o, i) => {
    if (!isPlainObject(o)) {
      values.push(o);
      return;
    }
    if (!Object.hasOwn(o, 'value')) throw new InputError('an enum option needs a "value"', { location: at(site, ...p, i), hint: 'add the option\'s "value", or remove the option' });
    values.push(o.value);
    for (const k of Object.keys(o)) {
      if (k === 'value' || (k === 'description' && o[k] === '')) continue;
      lossy.push({ pointer: at(site, ...p, i, k).pointer, key: [...p, i, k].join('.'), value: o[k], path: [...p, i, k] });
    }
  });
  if (!values.includes(null)) values.push(null);
  return values;
}

function describe(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`;
}

/** The fields form of an EXTRACT expected output: no `value`, every member a field entry `{id, ...}`. */
export function isFieldsOutput(output: Record<string, unknown>): boolean {
  if (output.value !== undefined) return false;
  let n = 0;
  for (const k of Object.keys(output)) {
    const v = output[k];
    if (!isPlainObject(v) || v.id === undefined) return false;
    n++;
  }
  return n > 0;
}

/**
 * A fields-form expected output as the members of its value form, `{value: {<id>: <value>}}`
 * (values copied as written), with what that drops: `confidence` other than 1 (its default),
 * `page`, a `type` other than the field's, members an entry does not define. `id` becomes the
 * key and the entry's key (the field's name, or its id) is the field's label: both lossless.
 * Refuses (InputError) an entry whose id is no field of the config, or is named twice, or whose
 * key names another field.
 */
export function convertFieldsOutput(output: Record<string, unknown>, fields: ReadonlyMap<string, FieldInfo>, site: Site, configAt: string): { members: Member[]; lossy: Lossy[] } {
  const value: Member[] = [];
  const lossy: Lossy[] = [];
  const seen = new Set<string>();
  for (const key of Object.keys(output)) {
    const entry = output[key] as Record<string, unknown>;
    const id = entry.id;
    if (typeof id !== 'string') throw new InputError(`expected the field's id as a string, got ${describe(id)}`, { location: at(site, key, 'id'), hint: 'fix the entry\'s "id" (evalkit validate names the field)' });
    const f = fields.get(id);
    if (!f) {
      throw new InputError(`"${id}" is no field id of the fields-form config it converts with (${configAt})`, {
        location: at(site, key, 'id'),
        hint: 'fix the entry\'s id, or pass the config of this item\'s processor (evalkit validate ITEMS --config CONFIG names such entries)',
      });
    }
    if (key !== f.name && key !== f.id) {
      throw new InputError(`the entry "${key}" holds field id "${id}", whose name is "${f.name}": which field it means is not certain`, {
        location: at(site, key),
        hint: `key the entry by "${f.name}" (or fix its id), then migrate`,
      });
    }
    if (seen.has(id)) throw new InputError(`field id "${id}" has two entries`, { location: at(site, key, 'id'), hint: 'keep one entry per field' });
    seen.add(id);
    for (const k of Object.keys(entry)) {
      const v = entry[k];
      if (k === 'id' || k === 'value' || (k === 'type' && v === f.type) || (k === 'confidence' && v === 1)) continue;
      lossy.push({ pointer: at(site, key, k).pointer, key: `${key}.${k}`, value: v, path: [key, k] });
    }
    if (Object.hasOwn(entry, 'value')) value.push({ key: id, from: [key, 'value'] });
  }
  return { members: [{ key: 'value', members: value }], lossy };
}

/**
 * The expected-output model of a processor config: what an expectedOutput may hold, independent
 * of how the config spells it (JSON `schema`, deprecated `fields` array, old or new layout).
 * Both the JSON Schema (schema.ts) and the rich findings (check.ts) are derived from it, so the
 * two cannot disagree.
 */
import type { ErrorObject } from 'ajv';
import { InputError } from '../util/errors.js';
import { dict, fromPointer, isPlainObject, toPointer, valueAt } from '../util/json.js';
import { perArray } from '../util/memo.js';
import { draft07 } from './generated/json-schema-meta.js';

export type FieldType = 'string' | 'number' | 'currency' | 'boolean' | 'date' | 'array' | 'enum' | 'object' | 'signature';
export const FIELD_TYPES: readonly FieldType[] = ['string', 'number', 'currency', 'boolean', 'date', 'array', 'enum', 'object', 'signature'];

export type EnumValue = string | number | boolean;

/** Every node also accepts null ("nothing expected"). */
export type Node =
  | { kind: 'string' }
  | { kind: 'number'; integer?: boolean }
  | { kind: 'boolean' }
  | { kind: 'date' }
  | { kind: 'currency' }
  | { kind: 'enum'; values: EnumValue[] }
  | { kind: 'array'; items: Node }
  | { kind: 'object'; properties: Record<string, Node>; signature?: boolean }
  | { kind: 'any' };

export interface Classification {
  id: string;
  type: string;
}

/** A config's classifications looked up by id and by type (classIndex). */
export interface ClassIndex {
  ids: string[];
  /** Each type once, in the list's order. */
  types: string[];
  /** The first classification of each id (as a find() from the start finds it). */
  firstById: ReadonlyMap<string, Classification>;
  /** The classifications of each type, in the list's order. */
  byType: ReadonlyMap<string, Classification[]>;
}

/**
 * The index of a list of classifications, built once per list: every document, split and CSV cell
 * looks a class up, and a config may have thousands of them.
 */
export const classIndex = perArray((list: readonly Classification[]): ClassIndex => {
  const ids: string[] = [];
  const types: string[] = [];
  const firstById = new Map<string, Classification>();
  const byType = new Map<string, Classification[]>();
  for (const c of list) {
    ids.push(c.id);
    if (!firstById.has(c.id)) firstById.set(c.id, c);
    const same = byType.get(c.type);
    if (same) same.push(c);
    else {
      byType.set(c.type, [c]);
      types.push(c.type);
    }
  }
  return { ids, types, firstById, byType };
});

/** A field of a deprecated fields-array config, for the legacy expected form. */
export interface LegacyField {
  id: string;
  name: string;
  type: FieldType;
}

/**
 * The API version whose expected-output form is checked (spec 3.7): 2026-02-09 has no CLASSIFY
 * `confidence`, no split `id`/`identifier`/`observation`, no fields-form EXTRACT output, and an
 * optional EXTRACT `value`. Versions before 2025-04-21 share the 2025-04-21 form.
 */
export type ExpectedForm = '2025-04-21' | '2026-02-09';
export const EXPECTED_FORMS: readonly ExpectedForm[] = ['2025-04-21', '2026-02-09'];

export type ExpectedModel = { api: ExpectedForm } & (
  | { type: 'EXTRACT'; form: 'schema' | 'fields'; fields: Record<string, Node>; legacy?: LegacyField[] }
  | { type: 'CLASSIFY'; classifications: Classification[] }
  | { type: 'SPLITTER'; classifications: Classification[] }
);

export const SIGNATURE_NODE: Node = {
  kind: 'object',
  signature: true,
  properties: { printed_name: { kind: 'string' }, signature_date: { kind: 'date' }, is_signed: { kind: 'boolean' }, title_or_role: { kind: 'string' } },
};
const SIGNATURE_KEYS = Object.keys((SIGNATURE_NODE as { properties: object }).properties).sort().join(',');
const CURRENCY_KEYS = 'amount,iso_4217_currency_code';

/**
 * A config in the 2025-04-21 layout (any layout is normalised to it first) with its type, for the
 * expected-output form of `api`. In 2026-02-09 a fields-array config keeps its fields (the value
 * form is keyed by field id) but has no legacy form.
 */
export function buildModel(config: Record<string, unknown>, type: 'EXTRACT' | 'CLASSIFY' | 'SPLITTER', api: ExpectedForm = '2025-04-21'): ExpectedModel {
  if (type === 'CLASSIFY') return { api, type, classifications: classificationsOf(config, 'classifications') };
  if (type === 'SPLITTER') return { api, type, classifications: classificationsOf(config, 'splitClassifications') };
  if (config.schema !== undefined) {
    const [issue] = extractionSchemaIssues(config.schema);
    if (issue) throw new InputError(`config: ${issue.message}`, { location: { pointer: `/schema${issue.pointer}` }, hint: 'fix the processor config' });
    const root = config.schema as Json;
    // The service's default extractor schema is {"type":"object","properties":{}}: an object with
    // no fields, whose only expected value is {} (any field in it is a field the schema lacks).
    if (isEmptyObjectSchema(root)) return { api, type, form: 'schema', fields: dict<Node>() };
    const top = nodeFromJsonSchema(root, root, ['schema'], new Set()) as Extract<Node, { kind: 'object' }>;
    return { api, type, form: 'schema', fields: top.properties };
  }
  if (Array.isArray(config.fields)) {
    const legacy: LegacyField[] = [];
    const fields = fieldsToProperties(config.fields, ['fields'], legacy);
    return api === '2026-02-09' ? { api, type, form: 'fields', fields } : { api, type, form: 'fields', fields, legacy };
  }
  throw configError('an EXTRACT config needs a "schema" or a "fields" array', []);
}

/** A problem of an extraction schema; `pointer` is relative to the schema (`/type`, `/properties/total/type`). */
export interface SchemaIssue {
  pointer: string;
  message: string;
}

const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
/** JSON Schema draft-07's meta-schema, compiled ahead (scripts/gen-validators.mjs). */
const metaValidator = draft07 as ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * Whether an EXTRACT config's `schema` is one the service takes: the one rule evalkit applies
 * everywhere (`validate`, `schema`, expected outputs, and the sandbox's configs through its core).
 * - It must be a valid JSON Schema: checked against the draft-07 meta-schema, which lets unknown
 *   keywords through (the service's `extend:type` custom types, `$defs`...) but not a wrong value
 *   of a standard keyword (`"type": "banana"`, `"properties": []`, `"required": "a"`).
 * - It must describe an object whose properties are the fields to extract (spec 3.3: the output is
 *   `{value: {<field>: ...}}`), or be the empty object schema, the service's default.
 * Empty when the schema is acceptable; otherwise the problems, the deepest of each branch.
 */
export function extractionSchemaIssues(schema: unknown): SchemaIssue[] {
  if (!isPlainObject(schema)) return [{ pointer: '', message: `the extraction schema must be a JSON Schema object (got ${schema === null ? 'null' : Array.isArray(schema) ? 'an array' : typeof schema})` }];
  const meta = metaIssues(schema);
  if (meta.length) return meta;
  if (isEmptyObjectSchema(schema)) return [];
  let top: Node;
  try {
    top = nodeFromJsonSchema(schema, schema, [], new Set());
  } catch (e) {
    if (e instanceof InputError) return [{ pointer: e.location?.pointer ?? '', message: e.message.replace(/^config: /, '') }];
    throw e;
  }
  if (top.kind === 'object') return [];
  const types = (Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]).filter((t) => t !== 'null');
  if (types.length && !types.includes('object')) {
    return [{ pointer: '/type', message: `an extraction schema must have type "object" (its properties are the fields to extract), not ${JSON.stringify(schema.type)}` }];
  }
  return [{ pointer: '', message: 'the extraction schema must describe an object with "properties" (the fields to extract)' }];
}

/** The schema against the draft-07 meta-schema, one issue per pointer, the deepest only. */
function metaIssues(schema: Json): SchemaIssue[] {
  if (metaValidator(schema)) return [];
  const byPointer = new Map<string, ErrorObject>();
  for (const e of metaValidator.errors ?? []) if (e.keyword !== 'anyOf' && !byPointer.has(e.instancePath)) byPointer.set(e.instancePath, e);
  const pointers = [...byPointer.keys()];
  return pointers
    .filter((p) => !pointers.some((q) => q.startsWith(`${p}/`)))
    .map((p) => ({ pointer: p, message: metaMessage(p, byPointer.get(p) as ErrorObject, schema) }));
}

function metaMessage(pointer: string, e: ErrorObject, schema: Json): string {
  const path = fromPointer(pointer);
  const value = valueAt(schema, path);
  if (/\/type(\/\d+)?$/.test(pointer) && e.keyword === 'enum') {
    return `${clip(JSON.stringify(value))} is not a JSON Schema type; use one of ${JSON_TYPES.map((t) => `"${t}"`).join(', ')} (or an array of them)`;
  }
  const keyword = path.at(-1);
  return `not a valid JSON Schema: ${keyword ? `"${keyword}" ` : ''}${e.message ?? e.keyword} (got ${clip(JSON.stringify(value) ?? 'nothing')})`;
}

function clip(text: string, n = 60): string {
  return text.length > n ? `${text.slice(0, n)}...` : text;
}

/**
 * `{"type": "object", "properties": {}}` or `{"type": "object"}` (also with a nullable type
 * array): an object schema that declares no field. The service's default is the first; the
 * sandbox's 2025-04-21 default draft holds the second.
 */
function isEmptyObjectSchema(s: Record<string, unknown>): boolean {
  const types = Array.isArray(s.type) ? s.type.filter((t) => t !== 'null') : [s.type];
  const none = s.properties === undefined || (isPlainObject(s.properties) && Object.keys(s.properties).length === 0);
  return types.length === 1 && types[0] === 'object' && none;
}

function configError(message: string, path: Array<string | number>, hint = 'fix the processor config'): InputError {
  return new InputError(`config: ${message}`, { location: { pointer: toPointer(path) }, hint });
}

function classificationsOf(config: Record<string, unknown>, key: string): Classification[] {
  const list = config[key];
  // No class, no valid expected output: every document would fail against an empty list.
  if (list === undefined || (Array.isArray(list) && list.length === 0)) {
    throw configError(`no class declared: "${key}" ${list === undefined ? 'is missing' : 'is empty'}, so no expected output could be valid`, [key], `add the classes to "${key}" (each with an "id" and a "type")`);
  }
  if (!Array.isArray(list)) throw configError(`"${key}" must be an array`, [key]);
  return list.map((c, i) => {
    if (!isPlainObject(c) || typeof c.id !== 'string') throw configError(`each classification needs a string "id"`, [key, i]);
    return { id: c.id, type: typeof c.type === 'string' ? c.type : c.id };
  });
}

function fieldsToProperties(list: unknown[], path: Array<string | number>, legacy?: LegacyField[]): Record<string, Node> {
  const props = dict<Node>();
  list.forEach((f, i) => {
    const at = [...path, i];
    if (!isPlainObject(f) || typeof f.id !== 'string' || f.id === '') throw configError('each field needs a non-empty string "id"', at);
    if (Object.prototype.hasOwnProperty.call(props, f.id)) throw configError(`field id "${f.id}" is used twice`, [...at, 'id']);
    props[f.id] = fieldNode(f, at);
    legacy?.push({ id: f.id, name: typeof f.name === 'string' && f.name !== '' ? f.name : f.id, type: f.type as FieldType });
  });
  return props;
}

function fieldNode(f: Record<string, unknown>, at: Array<string | number>): Node {
  switch (f.type) {
    case 'string':
    case 'boolean':
    case 'date':
    case 'currency':
      return { kind: f.type };
    case 'number':
      return { kind: 'number' };
    case 'signature':
      return SIGNATURE_NODE;
    case 'enum': {
      if (!Array.isArray(f.enum)) throw configError(`enum field "${String(f.id)}" needs an "enum" array`, [...at, 'enum']);
      return { kind: 'enum', values: f.enum.map((e) => (isPlainObject(e) ? e.value : e)).filter(isEnumValue) };
    }
    case 'object':
      if (!Array.isArray(f.schema)) return { kind: 'any' };
      return { kind: 'object', properties: fieldsToProperties(f.schema, [...at, 'schema']) };
    case 'array': {
      if (!Array.isArray(f.schema)) return { kind: 'array', items: { kind: 'any' } };
      // The sub-fields describe one row of the array (a line item).
      return { kind: 'array', items: { kind: 'object', properties: fieldsToProperties(f.schema, [...at, 'schema']) } };
    }
    default:
      throw configError(`field "${String(f.id)}" has unknown type ${JSON.stringify(f.type)}`, [...at, 'type'], `use one of ${FIELD_TYPES.join(', ')}`);
  }
}

function isEnumValue(v: unknown): v is EnumValue {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

type Json = Record<string, unknown>;

/** Resolve a local `$ref` such as `#/$defs/address` inside the config's schema. */
function resolveRef(ref: string, root: Json, path: Array<string | number>): Json {
  if (!ref.startsWith('#')) throw configError(`only local $ref are supported, got "${ref}"`, path);
  let cur: unknown = root;
  for (const tok of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(tok).replace(/~1/g, '/').replace(/~0/g, '~');
    cur = isPlainObject(cur) ? cur[key] : undefined;
  }
  if (!isPlainObject(cur)) throw configError(`$ref "${ref}" does not resolve`, path);
  return cur;
}

function nodeFromJsonSchema(s: unknown, root: Json, path: Array<string | number>, refs: Set<string>): Node {
  if (!isPlainObject(s)) return { kind: 'any' };
  if (typeof s.$ref === 'string') {
    // A recursive schema cannot be unrolled; below the first repetition anything is accepted.
    if (refs.has(s.$ref)) return { kind: 'any' };
    return nodeFromJsonSchema(resolveRef(s.$ref, root, [...path, '$ref']), root, path, new Set([...refs, s.$ref]));
  }
  const ext = s['extend:type'];
  if (ext === 'currency') return { kind: 'currency' };
  if (ext === 'signature') return SIGNATURE_NODE;
  if (ext === 'date') return { kind: 'date' };
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alts = s[key];
    if (Array.isArray(alts)) {
      const nonNull = alts.filter((a) => !(isPlainObject(a) && a.type === 'null'));
      if (nonNull.length === 1) return nodeFromJsonSchema(nonNull[0], root, [...path, key, alts.indexOf(nonNull[0])], refs);
      return { kind: 'any' };
    }
  }
  if (Array.isArray(s.enum)) return { kind: 'enum', values: s.enum.filter(isEnumValue) };
  if (s.const !== undefined && isEnumValue(s.const)) return { kind: 'enum', values: [s.const] };
  const types = (Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type]).filter((t) => t !== 'null');
  const t = types.length === 1 ? types[0] : types.length === 0 ? (isPlainObject(s.properties) ? 'object' : s.items !== undefined ? 'array' : undefined) : 'mixed';
  switch (t) {
    case 'string':
      return s.format === 'date' ? { kind: 'date' } : { kind: 'string' };
    case 'number':
      return { kind: 'number' };
    case 'integer':
      return { kind: 'number', integer: true };
    case 'boolean':
      return { kind: 'boolean' };
    case 'array':
      return { kind: 'array', items: nodeFromJsonSchema(s.items, root, [...path, 'items'], refs) };
    case 'object': {
      if (!isPlainObject(s.properties) || Object.keys(s.properties).length === 0) return { kind: 'any' };
      const keys = Object.keys(s.properties).sort().join(',');
      if (keys === CURRENCY_KEYS) return { kind: 'currency' };
      if (keys === SIGNATURE_KEYS) return SIGNATURE_NODE;
      const properties = dict<Node>();
      for (const [k, v] of Object.entries(s.properties)) properties[k] = nodeFromJsonSchema(v, root, [...path, 'properties', k], refs);
      return { kind: 'object', properties };
    }
    default:
      return { kind: 'any' };
  }
}

/**
 * The field tree of an EXTRACT processor: read from its config (JSON Schema form or the legacy
 * fields array, in either config layout), completed from the values seen in the export, then
 * pruned by excludeFields. Leaves are what the metrics are computed for.
 */
import { isPlainObject } from '../util/json.js';
import type { ValueType } from './generated/report.js';
import { isEmpty } from './values.js';

export interface LeafNode {
  kind: 'leaf';
  valueType: ValueType;
}
export interface ObjectNode {
  kind: 'object';
  props: Map<string, FieldNode>;
}
export interface ArrayNode {
  kind: 'array';
  items: FieldNode;
}
export type FieldNode = LeafNode | ObjectNode | ArrayNode;

const leaf = (valueType: ValueType): LeafNode => ({ kind: 'leaf', valueType });
const object = (entries: Array<[string, FieldNode]> = []): ObjectNode => ({ kind: 'object', props: new Map(entries) });

const SIGNATURE = (): ObjectNode =>
  object([
    ['printed_name', leaf('string')],
    ['signature_date', leaf('date')],
    ['is_signed', leaf('boolean')],
    ['title_or_role', leaf('string')],
  ]);

function schemaTypes(s: Record<string, unknown>): string[] {
  const t = s.type;
  const list = Array.isArray(t) ? t : typeof t === 'string' ? [t] : [];
  return list.filter((x): x is string => typeof x === 'string' && x !== 'null');
}

/** A node of an extraction JSON Schema (`extend:type` currency, date and signature included). */
export function fromJsonSchema(s: unknown): FieldNode {
  if (!isPlainObject(s)) return leaf('unknown');
  if (schemaTypes(s).length === 0 && !isPlainObject(s.properties)) {
    // {"anyOf": [{...}, {"type": "null"}]}: the nullable form of the first non-null alternative.
    const alts = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : [];
    const alt = alts.find((a) => isPlainObject(a) && a.type !== 'null');
    if (alt !== undefined) return fromJsonSchema(alt);
  }
  const ext = s['extend:type'];
  if (ext === 'currency') return leaf('currency');
  if (ext === 'date') return leaf('date');
  const types = schemaTypes(s);
  if (ext === 'signature' && !isPlainObject(s.properties)) return SIGNATURE();
  if (isPlainObject(s.properties) || types.includes('object')) {
    const props = isPlainObject(s.properties) ? s.properties : {};
    return object(Object.entries(props).map(([k, v]) => [k, fromJsonSchema(v)]));
  }
  if (Array.isArray(s.enum)) return leaf('enum');
  if (types.includes('array')) return { kind: 'array', items: fromJsonSchema(s.items) };
  if (types.includes('string')) return leaf(s.format === 'date' ? 'date' : 'string');
  if (types.includes('integer')) return leaf('integer');
  if (types.includes('number')) return leaf('number');
  if (types.includes('boolean')) return leaf('boolean');
  return leaf('unknown');
}

/** A field of the legacy fields array: {id, name, type, schema?, enum?}. */
export function fromLegacyField(f: Record<string, unknown>): FieldNode {
  const sub = Array.isArray(f.schema) ? f.schema.filter(isPlainObject) : [];
  const props = (): ObjectNode => object(sub.map((x) => [legacyKey(x), fromLegacyField(x)]));
  switch (f.type) {
    case 'string':
    case 'number':
    case 'currency':
    case 'boolean':
    case 'date':
    case 'enum':
      return leaf(f.type);
    case 'array':
      return { kind: 'array', items: sub.length ? props() : leaf('unknown') };
    case 'object':
      return props();
    case 'signature':
      return sub.length ? props() : SIGNATURE();
    default:
      return leaf('unknown');
  }
}

function legacyKey(f: Record<string, unknown>): string {
  return typeof f.id === 'string' ? f.id : typeof f.name === 'string' ? f.name : '';
}

/** Whether the config uses the legacy fields array (and so the legacy output form). */
export function usesLegacyFields(config: unknown): boolean {
  return isPlainObject(config) && !isPlainObject(config.schema) && Array.isArray(config.fields);
}

/** The field tree a config declares (an empty object when it declares none). */
export function treeFromConfig(config: unknown): ObjectNode {
  if (!isPlainObject(config)) return object();
  if (isPlainObject(config.schema)) {
    const root = fromJsonSchema(config.schema);
    return root.kind === 'object' ? root : object();
  }
  if (Array.isArray(config.fields)) {
    return object(config.fields.filter(isPlainObject).map((f) => [legacyKey(f), fromLegacyField(f)]));
  }
  return object();
}

function looksLikeCurrency(o: Record<string, unknown>): boolean {
  const keys = Object.keys(o);
  return keys.length > 0 && keys.every((k) => k === 'amount' || k === 'iso_4217_currency_code');
}

/** The node a value suggests, for fields the config does not declare. */
export function inferNode(v: unknown): FieldNode {
  if (Array.isArray(v)) {
    const items = v.filter((x) => !isEmpty(x));
    if (items.some((x) => isPlainObject(x) && !looksLikeCurrency(x))) {
      const row = object();
      for (const x of items) mergeValue(row, x);
      return { kind: 'array', items: row };
    }
    return { kind: 'array', items: items.length ? inferNode(items[0]) : leaf('unknown') };
  }
  if (isPlainObject(v)) {
    if (looksLikeCurrency(v)) return leaf('currency');
    const node = object();
    mergeValue(node, v);
    return node;
  }
  if (typeof v === 'string') return leaf('string');
  if (typeof v === 'number') return leaf('number');
  if (typeof v === 'boolean') return leaf('boolean');
  return leaf('unknown');
}

/**
 * Adds to `node` what `value` shows and the tree lacks: with `addKeys`, undeclared keys become
 * fields, shaped by their first non-empty value (a key first seen empty stays a leaf of unknown
 * type until then, so the order of the documents does not matter); leaves of unknown type take
 * the type of the first non-empty value. Declared types are never changed.
 */
export function mergeValue(node: FieldNode, value: unknown, addKeys = true): void {
  if (value === null || value === undefined) return;
  if (node.kind === 'object') {
    if (!isPlainObject(value)) return;
    for (const k of Object.keys(value)) {
      const v = value[k];
      const child = node.props.get(k);
      if (child === undefined) {
        // An empty first value (null, "", {}, an object of empty members) shows no shape: the key
        // waits for a non-empty one. An empty list is a list (its items learn their type later).
        if (addKeys) node.props.set(k, isEmpty(v) && !Array.isArray(v) ? leaf('unknown') : inferNode(v));
      } else if (addKeys && child.kind === 'leaf' && child.valueType === 'unknown' && !isEmpty(v)) {
        // Its first non-empty value gives the shape (rows, an object, a currency), whatever came before.
        node.props.set(k, inferNode(v));
      }
      // Leaves of a known type learn nothing from values: skip the call (every value of every
      // document passes through here).
      else if (child.kind !== 'leaf' || child.valueType === 'unknown') mergeValue(child, v, addKeys);
    }
  } else if (node.kind === 'array') {
    if (!Array.isArray(value)) return;
    if (node.items.kind === 'leaf' && node.items.valueType === 'unknown') {
      const first = value.find((x) => !isEmpty(x));
      if (first !== undefined) {
        const inferred = inferNode(first);
        // Without addKeys an array of unknown items learns a leaf type only, never new keys.
        if (addKeys || inferred.kind === 'leaf') node.items = inferred;
      }
    }
    if (node.items.kind === 'leaf' && node.items.valueType !== 'unknown') return;
    for (const x of value) mergeValue(node.items, x, addKeys);
  } else if (node.valueType === 'unknown' && !isEmpty(value)) {
    const inferred = inferNode(value);
    if (inferred.kind === 'leaf') node.valueType = inferred.valueType;
  }
}

/** `line_items[].amount` -> `line_items.amount`: options may name paths with or without `[]`. */
function plain(path: string): string {
  return path.replace(/\[\]/g, '');
}

/** Whether an option entry (excludeFields, fuzzyMatchFields) names this path or one of its ancestors. */
export function optionCovers(entry: string, path: string): boolean {
  const e = plain(entry.trim());
  const p = plain(path);
  return e !== '' && (p === e || p.startsWith(e + '.'));
}

export function childPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

import { readFileSync } from 'node:fs';
import { distance } from 'fastest-levenshtein';
import { InputError } from '../util/errors.js';
import { isPlainObject } from '../util/json.js';
import { at, type Site } from './detect.js';
import { MAPPING } from './mapping.js';
import { MAPPING_2026 } from './mapping-2026-02-09.js';
import { LAYOUTS, PROCESSOR_TYPES, type Layout, type ProcessorType } from './types.js';

/**
 * The keys a processor config may have: for each type, the union over every layout of the
 * members schemas/config-<layout>.schema.json lists (a member set to `false` there is known: it
 * is another layout's) and of the paths of the mapping tables (MAPPING, MAPPING_2026). Nothing
 * here lists a key by hand.
 *
 * Checked: the config's top level and each object in it that a layout schema describes member
 * by member (advancedOptions, its chunkingOptions, reviewAgent, arrayStrategy; parseConfig, and
 * `parser`, its 2025-04-21 name), and the items of lists whose items a layout schema describes
 * member by member (classes: classifications, splitClassifications, a CLASSIFY config's `fields`
 * and subDocumentClassifications; page ranges). Not checked: what no schema enumerates (the JSON
 * Schema in `schema`, parseConfig.blockOptions and parseConfig.advancedOptions) and the fields
 * form's items (an EXTRACT config's `fields`), whose members the fields conversion checks: it
 * names what it cannot convert as lossy (docs/migrate.md, "Fields-form configs").
 */
interface KnownNode {
  keys: Set<string>;
  /** `excel*` in a mapping path: every key with that prefix. */
  prefixes: string[];
  children: Map<string, KnownNode>;
  /** The members of each item when the value is a list of objects (classes, page ranges). */
  items?: KnownNode;
  /** Members listed one by one in some layout: a key none lists is unknown. */
  closed: boolean;
}

type Schema = Record<string, unknown>;

const node = (): KnownNode => ({ keys: new Set(), prefixes: [], children: new Map(), closed: false });

let TREES: Map<ProcessorType | null, KnownNode> | undefined;
let SCHEMAS: Schema[] | undefined;

/** The layout schemas, in LAYOUTS order: read on first use (three small files, once), not at import. */
function schemas(): Schema[] {
  SCHEMAS ??= LAYOUTS.map((l) => JSON.parse(readFileSync(new URL(`../../schemas/config-${l}.schema.json`, import.meta.url), 'utf8')) as Schema);
  return SCHEMAS;
}

/**
 * The top-level members schemas/config-<layout>.schema.json accepts for `type`, in its order.
 * Members it sets to `false` (another layout's: `type`, `parser`, `fields` in 2026-02-09) are not
 * among them: the schema refuses those itself.
 */
export function layoutMembers(layout: Layout, type: ProcessorType): string[] {
  const s = schemas()[LAYOUTS.indexOf(layout)];
  const defs = s.$defs as Record<string, Schema>;
  const props = defs[DEF_OF[type]]?.properties;
  return isPlainObject(props) ? Object.keys(props).filter((k) => props[k] !== false) : [];
}

/** Built on first use, not at import: most commands never check a config. */
function trees(): Map<ProcessorType | null, KnownNode> {
  if (TREES) return TREES;
  const out = new Map<ProcessorType | null, KnownNode>();
  for (const type of PROCESSOR_TYPES) {
    const root = node();
    for (const s of schemas()) {
      const defs = s.$defs as Record<string, Schema>;
      fromSchema(root, defs[DEF_OF[type]], defs);
    }
    for (const r of MAPPING) if (r.type === type) {
      addPath(root, [r.old]);
      if (r.new) addPath(root, r.new);
    }
    for (const r of MAPPING_2026) if (r.types.includes(type)) {
      if (r.lower) addPath(root, r.lower);
      if (r.upper) addPath(root, r.upper);
    }
    // A renamed object (parser -> parseConfig) knows the members of both names.
    for (const r of MAPPING_2026) {
      if (!r.types.includes(type) || !r.lower || !r.upper || r.lowerValue !== undefined || r.lower.join('.') === r.upper.join('.')) continue;
      const a = nodeAt(root, r.lower);
      const b = nodeAt(root, r.upper);
      if (a && b) {
        merge(a, b);
        merge(b, a);
      }
    }
    out.set(type, root);
  }
  // Without a type (a config none of whose keys depends on it): known to any type.
  const any = node();
  for (const t of PROCESSOR_TYPES) merge(any, out.get(t)!);
  out.set(null, any);
  TREES = out;
  return out;
}

const DEF_OF: Record<ProcessorType, string> = { EXTRACT: 'extract', CLASSIFY: 'classify', SPLITTER: 'splitter' };

/** The fields form's items: the fields conversion, not this check, names their members it cannot convert. */
const FIELDS_FORM_ITEM = '#/$defs/extractionField';

function resolve(s: unknown, defs: Record<string, Schema>): Schema | false {
  if (s === false || !isPlainObject(s)) return false;
  const ref = s.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/$defs/')) return resolve(defs[ref.slice('#/$defs/'.length)], defs);
  return s;
}

function fromSchema(target: KnownNode, schema: Schema | undefined, defs: Record<string, Schema>): void {
  const props = schema?.properties;
  if (!isPlainObject(props)) return;
  for (const [key, sub] of Object.entries(props)) {
    target.keys.add(key);
    const s = resolve(sub, defs);
    if (s === false) continue;
    target.closed = true;
    if (isPlainObject(s.properties)) fromSchema(childOf(target, key), s, defs);
    // A list of objects described member by member (classes, page ranges): each item is checked.
    if (isPlainObject(s.items) && s.items.$ref !== FIELDS_FORM_ITEM) {
      const item = resolve(s.items, defs);
      if (item !== false && isPlainObject(item.properties)) fromSchema(itemsOf(childOf(target, key)), item, defs);
    }
  }
}

function childOf(parent: KnownNode, key: string): KnownNode {
  let child = parent.children.get(key);
  if (!child) parent.children.set(key, (child = node()));
  return child;
}

function itemsOf(list: KnownNode): KnownNode {
  return (list.items ??= node());
}

/** A mapping path's keys are known where they are; `[]` stands for every item of a list. */
function addPath(root: KnownNode, path: readonly string[]): void {
  let cur = root;
  for (const seg of path) {
    if (seg === '[]') {
      cur = itemsOf(cur);
      continue;
    }
    if (seg.endsWith('*')) {
      cur.prefixes.push(seg.slice(0, -1));
      return;
    }
    cur.keys.add(seg);
    cur = childOf(cur, seg);
  }
}

function nodeAt(root: KnownNode, path: readonly string[]): KnownNode | undefined {
  let cur: KnownNode | undefined = root;
  for (const seg of path) cur = cur?.children.get(seg);
  return cur;
}

function merge(into: KnownNode, from: KnownNode): void {
  for (const k of from.keys) into.keys.add(k);
  for (const p of from.prefixes) if (!into.prefixes.includes(p)) into.prefixes.push(p);
  into.closed ||= from.closed;
  for (const [k, c] of from.children) {
    const child = childOf(into, k);
    if (child !== c) merge(child, c);
  }
  if (from.items && from.items !== into.items) merge(itemsOf(into), from.items);
}

/** An unknown key: its path in the config and the known key it is probably a typo of. */
export interface UnknownKey {
  path: string[];
  key: string;
  suggestion?: string;
}

/** The keys of `config` that no layout knows for `type` (null: for any type), in document order. */
export function unknownKeys(config: Record<string, unknown>, type: ProcessorType | null): UnknownKey[] {
  const out: UnknownKey[] = [];
  walk(trees().get(type)!, config, [], out);
  return out;
}

function walk(known: KnownNode, obj: Record<string, unknown>, path: string[], out: UnknownKey[]): void {
  for (const key of Object.keys(obj)) {
    if (known.keys.has(key)) {
      const child = known.children.get(key);
      const value = obj[key];
      if (child && isPlainObject(value)) walk(child, value, [...path, key], out);
      else if (child?.items && Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          if (isPlainObject(item)) walk(child.items, item, [...path, key, String(i)], out);
        }
      }
    } else if (known.closed && !known.prefixes.some((p) => key.startsWith(p))) {
      const suggestion = closest(key, known.keys);
      out.push(suggestion === undefined ? { path: [...path, key], key } : { path: [...path, key], key, suggestion });
    }
  }
}

/** The known key the same but for case, else the nearest within 2 edits (the first of equals). */
export function closest(key: string, known: Iterable<string>): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestD = 3;
  for (const k of known) {
    if (k.toLowerCase() === lower) return k;
    const d = distance(key, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}

const ARTICLE: Record<ProcessorType, string> = { EXTRACT: 'an EXTRACT', CLASSIFY: 'a CLASSIFY', SPLITTER: 'a SPLITTER' };

/** What to do about an unknown key in the file: the known key it is probably a typo of, else remove it. */
export function unknownKeyFix(u: UnknownKey): string {
  return u.suggestion !== undefined ? `did you mean ${u.suggestion}?` : 'remove it';
}

/** The refusal of one unknown key (docs/migrate.md, "Unknown keys"). */
export function unknownKeyError(u: UnknownKey, type: ProcessorType | null, site: Site): InputError {
  const fix = unknownKeyFix(u);
  return new InputError(`unknown key ${JSON.stringify(u.key)} in ${type ? ARTICLE[type] : 'a processor'} config (no config layout has it)`, {
    location: at(site, ...u.path),
    hint: `${fix} (--allow-unknown keeps it as it is: for a key of a service version newer than evalkit)`,
  });
}

/**
 * Every unknown key of a config, one InputError each; the first is the one a caller that throws one
 * reports. `keys` are the same keys, for a caller whose users have another way out than --allow-unknown.
 */
export class UnknownKeysError extends InputError {
  constructor(
    readonly all: readonly InputError[],
    readonly keys: readonly UnknownKey[],
  ) {
    super(all[0].message, { location: all[0].location, hint: all[0].hint });
  }
}

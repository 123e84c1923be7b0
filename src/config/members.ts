import { isPlainObject, valueAt } from '../util/json.js';
import { perArray } from '../util/memo.js';

/**
 * How a migrated config is built from the source config, member by member and in order. The same
 * members build the migrated object and the migrated text, so both agree on key order.
 */
export type Member =
  /** The value at `from` (a path of object keys inside the source config), under `key`. */
  | { key: string; from: readonly string[] }
  /** A new object built from members (advancedOptions gathered from moved keys, a renamed object with a member left out). */
  | { key: string; members: Member[] }
  /** A value that is not in the source (an added `type`, an INFERRED value, an array with members left out). */
  | { key: string; value: unknown };

/** Build the migrated object from members; values are shared with the source, not copied. */
export function applyPlan(config: Record<string, unknown>, members: readonly Member[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const m of members) setOwn(out, m.key, 'from' in m ? valueAt(config, m.from) : 'members' in m ? applyPlan(config, m.members) : m.value);
  return out;
}

/**
 * Whether `members` keep or rename keys of an object whose keys are `keys`, each at most once and
 * in their order, the other keys left out: then the text can be changed in place (text.ts) instead
 * of re-laid out.
 */
export function inPlaceOf(members: readonly Member[], keys: readonly string[]): boolean {
  let k = 0;
  for (const m of members) {
    if (!('from' in m) || m.from.length !== 1) return false;
    while (k < keys.length && keys[k] !== m.from[0]) k++;
    if (k++ === keys.length) return false;
  }
  return true;
}

/** obj[key] = value, also for "__proto__" (which JSON.parse makes an ordinary member). */
export function setOwn(obj: Record<string | number, unknown>, key: string | number, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/**
 * Members of two steps as one: `second` was planned on applyPlan(source, first); the result builds
 * the same object from the source directly, so one text edit serves any number of steps.
 */
export function compose(first: readonly Member[], second: readonly Member[]): Member[] {
  // Built by push, not by map: V8 gives map's arrays another elements kind than the members
  // arrays built everywhere else, and code optimised for one deoptimises on the other.
  const out: Member[] = [];
  for (const m of second) out.push('from' in m ? resolve(first, m.from, 0, m.key) : 'members' in m ? { key: m.key, members: compose(first, m.members) } : m);
  return out;
}

/** Past this many members, a member is found by its key through a map (a config can hold thousands of keys): below it, by a scan. */
const SCAN_LIMIT = 32;

/** A long list's members by key (the last of a key, as a scan finds it), built once per list. */
const byKeyOf = perArray((members: readonly Member[]): Map<string, Member> => new Map(members.map((m) => [m.key, m])));

/** The member of a key (the last one, as a scan finds it): by a scan of a short list, through byKeyOf past SCAN_LIMIT. */
function memberOf(members: readonly Member[], key: string): Member | undefined {
  if (members.length <= SCAN_LIMIT) {
    let hit: Member | undefined;
    for (const m of members) if (m.key === key) hit = m;
    return hit;
  }
  return byKeyOf(members).get(key);
}

function resolve(members: readonly Member[], path: readonly string[], at: number, key: string): Member {
  const hit = memberOf(members, path[at]);
  if (!hit) throw new Error(`no member ${path.slice(0, at + 1).join('.')}`);
  // Most paths end here (a top-level key): no rest to copy.
  if (at + 1 === path.length) return 'from' in hit ? { key, from: hit.from } : 'value' in hit ? { key, value: hit.value } : { key, members: hit.members };
  if ('from' in hit) return { key, from: [...hit.from, ...path.slice(at + 1)] };
  if ('value' in hit) return { key, value: valueAt(hit.value, path.slice(at + 1)) };
  return resolve(hit.members, path, at + 1, key);
}

/** Where a path of the object `members` build comes from in the source, when it is copied from there. */
export function sourcePath(members: readonly Member[], path: readonly string[]): readonly string[] | undefined {
  try {
    const m = resolve(members, path, 0, '');
    return 'from' in m ? m.from : undefined;
  } catch {
    return undefined;
  }
}

/** One change a step makes to a config, at a path of keys (numbers: array items). */
export type Edit =
  | { path: ReadonlyArray<string | number>; kind: 'drop' }
  /** Rename the key (to), or give it a new value, or both. */
  | { path: ReadonlyArray<string | number>; kind: 'replace'; to?: string; value?: unknown; hasValue: boolean }
  /** A new member `path[last]` in the object at path[..last], before the member `before` (null: first). */
  | { path: ReadonlyArray<string | number>; kind: 'add'; value: unknown; before: string | null };

/**
 * The members that apply `edits` to `obj`. Objects on the way to an edit are rebuilt member by
 * member (everything else copied from the source); an array that holds an edit becomes a value.
 */
export function membersOf(obj: Record<string, unknown>, edits: readonly Edit[], base: readonly string[] = []): Member[] {
  if (base.length === 0 && edits.every(isTopLevelChange)) return topLevelMembers(obj, edits);
  const here = new Map<string, Edit[]>();
  const adds: Array<Extract<Edit, { kind: 'add' }>> = [];
  for (const e of edits) {
    if (e.kind === 'add' && e.path.length === 1) adds.push(e);
    else {
      const k = String(e.path[0]);
      const list = here.get(k);
      if (list) list.push(e);
      else here.set(k, [e]);
    }
  }
  const out: Member[] = [];
  const placed = new Set<Edit>();
  const addBefore = (before: string | null) => {
    for (const a of adds) {
      if (a.before === before && !placed.has(a)) {
        out.push({ key: String(a.path[0]), value: a.value });
        placed.add(a);
      }
    }
  };
  addBefore(null);
  for (const key of Object.keys(obj)) {
    if (adds.length) addBefore(key);
    const list = here.get(key);
    const from = base.length ? [...base, key] : [key];
    if (!list) {
      out.push({ key, from });
      continue;
    }
    const exact = list.find((e) => e.path.length === 1);
    const deeper = list.filter((e) => e.path.length > 1).map((e) => ({ ...e, path: e.path.slice(1) }) as Edit);
    if (exact?.kind === 'drop') continue;
    const name = exact?.kind === 'replace' && exact.to !== undefined ? exact.to : key;
    if (exact?.kind === 'replace' && exact.hasValue) {
      out.push({ key: name, value: exact.value });
      continue;
    }
    const v = obj[key];
    if (deeper.length && isPlainObject(v)) out.push({ key: name, members: membersOf(v, deeper, from) });
    else if (deeper.length && Array.isArray(v)) out.push({ key: name, value: editValue(v, deeper) });
    else out.push({ key: name, from });
  }
  for (const a of adds) if (!placed.has(a)) out.push({ key: String(a.path[0]), value: a.value });
  return out;
}

function isTopLevelChange(e: Edit): boolean {
  return e.path.length === 1 && e.kind !== 'add';
}

/** membersOf when every edit drops or replaces a top-level key (the usual step: `type` dropped, keys renamed): the same members, without its maps. */
function topLevelMembers(obj: Record<string, unknown>, edits: readonly Edit[]): Member[] {
  const out: Member[] = [];
  for (const key of Object.keys(obj)) {
    let exact: Edit | undefined;
    for (const e of edits) {
      if (e.path[0] === key) {
        exact = e;
        break;
      }
    }
    if (exact === undefined) out.push({ key, from: [key] });
    else if (exact.kind === 'replace') {
      const name = exact.to !== undefined ? exact.to : key;
      out.push(exact.hasValue ? { key: name, value: exact.value } : { key: name, from: [key] });
    }
  }
  return out;
}

/**
 * `edits` applied to a value (arrays and what is inside them), copy on write: the arrays on the
 * way to an edit are copied, each item is rebuilt once with all its edits (which, as in
 * membersOf, all name paths of the source), and everything else is shared with the source.
 */
function editValue(v: unknown, edits: readonly Edit[]): unknown {
  if (isPlainObject(v)) return applyPlan(v, membersOf(v, edits));
  if (!Array.isArray(v)) return v;
  const out = v.slice();
  // The edits of each item, items in the order of their first edit.
  const items = new Map<number, Edit[]>();
  for (const e of edits) {
    const i = Number(e.path[0]);
    const list = items.get(i);
    if (list) list.push(e);
    else items.set(i, [e]);
  }
  for (const [i, list] of items) {
    let deeper: Edit[] | undefined;
    for (const e of list) {
      if (e.path.length > 1) (deeper ??= []).push({ ...e, path: e.path.slice(1) } as Edit);
      else if (e.kind === 'replace' && e.hasValue) out[i] = e.value;
    }
    if (deeper) out[i] = editValue(out[i], deeper);
  }
  return out;
}

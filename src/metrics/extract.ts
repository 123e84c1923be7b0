/**
 * EXTRACT scoring: per document and per leaf field, the outcome counts TP, TN, FA, FN, FD.
 * Line items (arrays of objects) are paired by maximum-weight bipartite matching, arrays of
 * primitives are scored as multisets. See docs/metrics.md for the rules.
 */
import { isPlainObject, own } from '../util/json.js';
import type { DocumentDiff, ValueType } from './generated/report.js';
import { maxWeightPairs } from './assignment.js';
import { matcherFor, type CompareOptions, type Matcher } from './comparators.js';
import { childPath, mergeValue, optionCovers, treeFromConfig, usesLegacyFields, type FieldNode } from './fields.js';
import { isEmpty } from './values.js';

/** Index of each outcome in a count tuple [tp, tn, fa, fn, fd]. */
export const TP = 0;
export const TN = 1;
export const FA = 2;
export const FN = 3;
export const FD = 4;
export const KINDS = 5;
const OUTCOME_NAME = ['TP', 'TN', 'FA', 'FN', 'FD'] as const;

export interface Leaf {
  index: number;
  path: string;
  valueType: ValueType;
  /** An array of primitives, scored as a multiset of its non-empty elements. */
  multiset: boolean;
  fuzzy: boolean;
  matcher: Matcher;
  /** For fuzzy leaves: the exact matcher, whose counts are reported beside the fuzzy ones. */
  exact?: Matcher;
}

type Plan =
  | { kind: 'leaf'; leaf: Leaf }
  | { kind: 'multiset'; leaf: Leaf }
  | {
      kind: 'object';
      keys: string[];
      children: Plan[];
      known: ReadonlySet<string>;
      path: string;
      /** Indexes of the children that are objects or rows (where unexpected keys can be, below this object's own). */
      nested: number[];
      /**
       * Children whose declared leaves are all excluded (or that declare none): no field, but an
       * undeclared key under them is still an unexpected key. Only strayKeys reads them.
       */
      strays: Array<[key: string, plan: Plan]>;
    }
  | { kind: 'rows'; path: string; row: Plan; cardinality: number; flat?: FlatRow; leaves: Leaf[] };

/** A row made of objects and leaves only (no arrays inside): its leaves and their key paths. */
interface FlatRow {
  leaves: Leaf[];
  keys: string[][];
}

function flatten(plan: Plan): FlatRow | undefined {
  const leaves: Leaf[] = [];
  const keys: string[][] = [];
  const walk = (p: Plan, at: string[]): boolean => {
    if (p.kind === 'leaf') {
      leaves.push(p.leaf);
      keys.push(at);
      return true;
    }
    if (p.kind !== 'object') return false;
    return p.children.every((c, i) => walk(c, [...at, p.keys[i]]));
  };
  return walk(plan, []) ? { leaves, keys } : undefined;
}

/** Every leaf under a plan node. */
function leavesOf(plan: Plan): Leaf[] {
  switch (plan.kind) {
    case 'leaf':
    case 'multiset':
      return [plan.leaf];
    case 'object':
      return plan.children.flatMap(leavesOf);
    case 'rows':
      return plan.leaves;
  }
}

export interface ExtractPlan {
  root: Plan;
  leaves: Leaf[];
  /** Paths of arrays not nested in another array; index = cardinality slot. */
  arrays: string[];
  excluded: string[];
  warnings: string[];
  legacy: boolean;
  /** Whether the fields are the config's (else the keys of the expected outputs). */
  declared: boolean;
}

/**
 * The field values of an EXTRACT output or expectedOutput: `value` of the JSON Schema form,
 * fieldName -> {id, value} of the legacy form (keyed by id), or else the object itself.
 */
export function extractValues(output: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(output)) return undefined;
  const value = own(output, 'value');
  if (isPlainObject(value)) return value;
  const keys = Object.keys(output);
  let fields = 0;
  let wrapped = true;
  for (const k of keys) {
    if (k === 'metadata') continue;
    fields++;
    const v = output[k];
    if (!isPlainObject(v) || !Object.hasOwn(v, 'value')) {
      wrapped = false;
      break;
    }
  }
  if (fields > 0 && wrapped) {
    // fromEntries defines members, so a field id `__proto__` stays an ordinary key.
    return Object.fromEntries(
      keys
        .filter((k) => k !== 'metadata')
        .map((k) => {
          const f = output[k] as Record<string, unknown>;
          const id = own(f, 'id');
          return [typeof id === 'string' && id !== '' ? id : k, own(f, 'value')];
        }),
    );
  }
  if (Object.hasOwn(output, 'value')) return undefined;
  // The values as they are (read, never changed): a copy of a thousand fields cost a millisecond
  // a document, its members added one by one.
  if (!Object.hasOwn(output, 'metadata')) return output;
  return Object.fromEntries(Object.entries(output).filter(([k]) => k !== 'metadata'));
}

export interface PlanOptions extends CompareOptions {
  fuzzyMatchFields: readonly string[];
  excludeFields: readonly string[];
}

/**
 * Builds the plan: the fields the config declares (when it declares none, the keys of the
 * expected values), minus excluded fields. Values only teach leaves of unknown type their
 * type: a key that a prediction adds is never a field, so it cannot add TN to other documents.
 */
export function buildExtractPlan(config: unknown, expected: readonly unknown[], predicted: readonly unknown[], opts: PlanOptions): ExtractPlan {
  const tree = treeFromConfig(config);
  const declared = tree.props.size > 0;
  for (const v of expected) mergeValue(tree, v, !declared);
  for (const v of predicted) mergeValue(tree, v, false);
  return planFromTree(config, tree, declared, opts);
}

/** Whether values could still change the fields: no declared fields, or a field of unknown type. */
export function treeIsOpen(tree: FieldNode, declared: boolean): boolean {
  const open = (n: FieldNode): boolean =>
    n.kind === 'leaf' ? n.valueType === 'unknown' : n.kind === 'array' ? open(n.items) : [...n.props.values()].some(open);
  return !declared || open(tree);
}

/** The plan of a field tree that values have been merged into (see buildExtractPlan). */
export function planFromTree(config: unknown, tree: FieldNode, declared: boolean, opts: PlanOptions): ExtractPlan {
  const leaves: Leaf[] = [];
  const arrays: string[] = [];
  const excluded: string[] = [];
  const usedExclude = new Set<string>();
  const usedFuzzy = new Set<string>();
  const warnings: string[] = [];

  const isExcluded = (path: string): boolean => {
    const hit = opts.excludeFields.find((e) => optionCovers(e, path));
    if (hit === undefined) return false;
    usedExclude.add(hit);
    excluded.push(path);
    return true;
  };
  const makeLeaf = (path: string, valueType: ValueType, multiset: boolean): Leaf => {
    const fuzzyEntry = opts.fuzzyMatchFields.find((e) => optionCovers(e, path));
    if (fuzzyEntry !== undefined) usedFuzzy.add(fuzzyEntry);
    const fuzzyOk = valueType === 'string' || valueType === 'unknown';
    if (fuzzyEntry !== undefined && !fuzzyOk) warnings.push(`fuzzyMatchFields: ${path} is a ${valueType} field; it is compared as a ${valueType}`);
    const fuzzy = fuzzyEntry !== undefined && fuzzyOk;
    const leaf: Leaf = { index: leaves.length, path, valueType, multiset, fuzzy, matcher: matcherFor(valueType, fuzzy, opts) };
    if (fuzzy) leaf.exact = matcherFor(valueType, false, opts);
    leaves.push(leaf);
    return leaf;
  };
  // Objects and rows without a field (every declared leaf excluded): kept for their unexpected keys only.
  const hollow = new WeakSet<Plan>();
  const compile = (node: FieldNode, path: string, inArray: boolean): Plan | undefined => {
    if (path !== '' && isExcluded(path)) return undefined;
    if (node.kind === 'leaf') return { kind: 'leaf', leaf: makeLeaf(path, node.valueType, false) };
    if (node.kind === 'object') {
      const keys: string[] = [];
      const children: Plan[] = [];
      const strays: Array<[string, Plan]> = [];
      const known = new Set(node.props.keys());
      for (const k of [...known].sort()) {
        const child = compile(node.props.get(k) as FieldNode, childPath(path, k), inArray);
        if (child && hollow.has(child)) strays.push([k, child]);
        else if (child) {
          keys.push(k);
          children.push(child);
        }
      }
      const nested = children.flatMap((c, i) => (c.kind === 'object' || c.kind === 'rows' ? [i] : []));
      const plan: Plan = { kind: 'object', keys, children, known, path, nested, strays };
      if (path !== '' && keys.length === 0) hollow.add(plan);
      return plan;
    }
    if (node.items.kind === 'leaf') return { kind: 'multiset', leaf: makeLeaf(path, node.items.valueType, true) };
    if (node.items.kind === 'array') return { kind: 'leaf', leaf: makeLeaf(path, 'unknown', false) };
    const cardinality = inArray ? -1 : arrays.length;
    if (!inArray) arrays.push(path);
    const row = compile(node.items, `${path}[]`, true);
    if (!row || hollow.has(row)) {
      if (!inArray) arrays.pop();
      if (!row) return undefined;
      const rows: Plan = { kind: 'rows', path, row, cardinality: -1, leaves: [] };
      hollow.add(rows);
      return rows;
    }
    return { kind: 'rows', path, row, cardinality, flat: flatten(row), leaves: leavesOf(row) };
  };
  const root = compile(tree, '', false) as Plan;
  for (const e of opts.excludeFields) if (!usedExclude.has(e)) warnings.push(`excludeFields: "${e}" names no field`);
  for (const e of opts.fuzzyMatchFields) if (!usedFuzzy.has(e)) warnings.push(`fuzzyMatchFields: "${e}" names no field`);
  return { root, leaves, arrays, excluded: excluded.sort(), warnings, legacy: usesLegacyFields(config), declared };
}

/** Non-empty elements of an array (a lone non-empty value counts as one), with their positions. */
function nonEmptyElements(v: unknown): Array<[number, unknown]> {
  if (v === undefined || v === null) return [];
  const arr = Array.isArray(v) ? v : [v];
  const out: Array<[number, unknown]> = [];
  for (let i = 0; i < arr.length; i++) if (!isEmpty(arr[i])) out.push([i, arr[i]]);
  return out;
}

const EMPTY: unique symbol = Symbol('empty');

/**
 * Whether two non-empty values are the same JSON value at a glance: identical, or plain objects
 * with the same members holding identical scalars (a currency `{amount, iso_4217_currency_code}`).
 * Every matcher prepares a value from its JSON content alone and finds a form equal to itself,
 * so the same value matches without being prepared.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) || Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (!Object.hasOwn(x, k)) continue;
    const v = x[k];
    if ((typeof v === 'object' && v !== null) || !Object.hasOwn(y, k) || y[k] !== v) return false;
    n++;
  }
  for (const k in y) if (Object.hasOwn(y, k) && --n < 0) return false;
  return n === 0;
}

/** Outcome of one leaf from raw values: TN, FA, FN, or TP/FD by the matcher. */
function outcome(m: Matcher, e: unknown, p: unknown): number {
  const ee = isEmpty(e);
  const pe = isEmpty(p);
  if (ee) return pe ? TN : FA;
  if (pe) return FN;
  return sameValue(e, p) || m.equal(m.prepare(e), m.prepare(p)) ? TP : FD;
}

/** A value not prepared yet (PreparedRows prepares a value the first time a comparison needs it). */
const UNPREPARED: unique symbol = Symbol('unprepared');

/**
 * The non-empty rows of one side of a flat row plan (a lone non-empty value is one row): row
 * r's leaf l at `r * L + l` of `raw` and `prep`. `prep` is EMPTY for an empty value, else its
 * prepared form, made the first time a comparison needs it (most values of rows in place are
 * the same value on both sides and need none). One per side and scorer, filled again for each
 * array scored: flat rows hold no arrays, so no array is scored while another one's rows are in use.
 */
class PreparedRows {
  n = 0;
  L = 0;
  /** Position of each row in its array. */
  readonly index: number[] = [];
  /** Non-empty values of each row: the most TP it can give. */
  readonly capacity: number[] = [];
  readonly raw: unknown[] = [];
  readonly prep: unknown[] = [];

  fill(flat: FlatRow, v: unknown): void {
    this.n = 0;
    this.L = flat.leaves.length;
    if (v === undefined || v === null) return;
    if (!Array.isArray(v)) this.add(flat, 0, v);
    else for (let i = 0; i < v.length; i++) this.add(flat, i, v[i]);
  }

  /**
   * Row `row` (at `index` of its array) when it is not empty. A row with a non-empty value under
   * the plan's keys is not (isEmpty would find that value): only the others are tested whole. A
   * value reached through an array is no proof (an array's `length` is a number even when every
   * element is empty).
   */
  private add(flat: FlatRow, index: number, row: unknown): void {
    const L = this.L;
    const at = this.n * L;
    let capacity = 0;
    let proof = false;
    for (let l = 0; l < L; l++) {
      let v: unknown = row;
      let viaArray = false;
      const keys = flat.keys[l];
      for (let k = 0; k < keys.length; k++) {
        if (Array.isArray(v)) viaArray = true;
        v = own(v, keys[k]);
      }
      this.raw[at + l] = v;
      if (isEmpty(v)) this.prep[at + l] = EMPTY;
      else {
        this.prep[at + l] = UNPREPARED;
        capacity++;
        if (!viaArray) proof = true;
      }
    }
    if (!proof && isEmpty(row)) return;
    this.index[this.n] = index;
    this.capacity[this.n] = capacity;
    this.n++;
  }

  /** The prepared form of the non-empty value at k (leaf l). */
  prepared(flat: FlatRow, k: number, l: number): unknown {
    const x = this.prep[k];
    return x === UNPREPARED ? (this.prep[k] = flat.leaves[l].matcher.prepare(this.raw[k])) : x;
  }
}

/** Whether non-empty value a of E and b of P (leaf l) match: the same value, else by the leaf's matcher. */
function flatMatch(flat: FlatRow, E: PreparedRows, a: number, P: PreparedRows, b: number, l: number): boolean {
  return sameValue(E.raw[a], P.raw[b]) || flat.leaves[l].matcher.equal(E.prepared(flat, a, l), P.prepared(flat, b, l));
}

/** The pairing weight of expected row i and predicted row j: their leaves that match. */
function flatWeight(flat: FlatRow, E: PreparedRows, i: number, P: PreparedRows, j: number): number {
  const L = E.L;
  const a = i * L;
  const b = j * L;
  let w = 0;
  for (let l = 0; l < L; l++) if (E.prep[a + l] !== EMPTY && P.prep[b + l] !== EMPTY && flatMatch(flat, E, a + l, P, b + l, l)) w++;
  return w;
}

/**
 * Whether flatWeight(i, j) > d, comparing only until the answer is known: most rows weighed
 * against another document row's match none of its values, and one mismatch settles it when
 * the bound is all the values but one.
 */
function flatWeightExceeds(flat: FlatRow, E: PreparedRows, i: number, P: PreparedRows, j: number, d: number): boolean {
  if (E.capacity[i] <= d || P.capacity[j] <= d) return false;
  const L = E.L;
  const a = i * L;
  const b = j * L;
  let w = 0;
  for (let l = 0; l < L; l++) {
    if (w + (L - l) <= d) return false;
    if (E.prep[a + l] !== EMPTY && P.prep[b + l] !== EMPTY && flatMatch(flat, E, a + l, P, b + l, l) && ++w > d) return true;
  }
  return false;
}

/** Maximum-weight pairing of prepared rows, into `pairOf`. */
function pairFlat(flat: FlatRow, E: PreparedRows, P: PreparedRows, pairOf: Int32Array): void {
  pairByWeight(
    E.n,
    P.n,
    (i, j) => flatWeight(flat, E, i, P, j),
    (i) => E.capacity[i],
    pairOf,
    (i, j, d) => flatWeightExceeds(flat, E, i, P, j, d),
  );
}

/**
 * Maximum-weight pairing of nE expected with nP predicted rows: `pairOf[i]` is set to the
 * predicted row of expected row i, or -1. `capacity(i)` bounds the weights of expected row i.
 * Pairs of weight 0 stay unpaired. Shortcut: with no more expected than predicted rows, when
 * every expected row i weighs more than 0 against predicted row i and no more against any
 * other, pairing rows in place is a maximum (no pairing can exceed the sum of the row maxima).
 * Rows that reach their capacity in place need no other weight, and the others only need to
 * know whether another weight exceeds theirs (`exceeds`, which for flat rows stops at the first
 * value that settles it), so mostly right predictions are paired without the full matrix or
 * the Hungarian method.
 */
function pairByWeight(
  nE: number,
  nP: number,
  weight: (i: number, j: number) => number,
  capacity: (i: number) => number,
  pairOf: Int32Array,
  exceeds: (i: number, j: number, d: number) => boolean = (i, j, d) => weight(i, j) > d,
): void {
  pairOf.fill(-1, 0, nE);
  if (nE === 0 || nP === 0) return;
  if (nE <= nP) {
    let inPlace = true;
    for (let i = 0; i < nE && inPlace; i++) {
      const d = weight(i, i);
      if (d === 0) inPlace = false;
      else if (d < capacity(i)) for (let j = 0; j < nP && inPlace; j++) inPlace = j === i || !exceeds(i, j, d);
    }
    if (inPlace) {
      for (let i = 0; i < nE; i++) pairOf[i] = i;
      return;
    }
  }
  for (const [i, j] of maxWeightPairs(Array.from({ length: nE }, (_, i) => Array.from({ length: nP }, (_, j) => weight(i, j))))) pairOf[i] = j;
}

const MAX_DIFFS = 50;

/**
 * Every outcome of a document but TN, with its values, for the report's explorer and the
 * errors file. `leaf` is the plan's leaf index (-1: a key outside the fields, named by `path`);
 * `rows` has one [expected row, predicted row] per array level (-1: no row on that side).
 */
export interface Cell {
  leaf: number;
  path: string;
  rows: Array<[number, number]>;
  outcome: number;
  expected: unknown;
  predicted: unknown;
  /** The predicted value's confidence, when the scorer was given a confidence map. */
  confidence?: number;
}

/**
 * Scores one document at a time into reusable buffers: `counts[leaf * 5 + kind]`,
 * `exact` (the same for the exact matcher of fuzzy leaves), `cardinality[array * 2 + side]`
 * (non-empty rows expected, predicted), and the differences of the document.
 */
export class ExtractScorer {
  readonly counts: Int32Array;
  readonly exact: Int32Array;
  readonly cardinality: Int32Array;
  diffs: DocumentDiff[] = [];
  diffsCut = 0;
  /**
   * With a confidence map (metadata path -> confidence) for the document, each predicted value
   * scored as TP, FD or FA in it: its leaf, its confidence (NaN when the map has none) and
   * whether it is right. Multisets give none.
   */
  confidence: ReadonlyMap<string, number> | undefined;
  readonly confLeaf: number[] = [];
  readonly confValue: number[] = [];
  readonly confRight: number[] = [];
  private readonly ppath: Array<string | number> = [];
  /** Non-empty predicted / expected values under keys outside the fields, in the last document. */
  unexpected = 0;
  unexpectedExpected = 0;
  /** Path (`vendor.extra`, `line_items[].note`) -> [predicted, expected] over every document scored. */
  readonly unexpectedKeys = new Map<string, [number, number]>();
  /** Set to an array to collect every outcome but TN of the next documents scored (see Cell). */
  cells: Cell[] | undefined;
  private withDiffs = false;
  private counting = true;
  /** flatRows' buffers, reused from document to document. */
  private readonly rowsE = new PreparedRows();
  private readonly rowsP = new PreparedRows();
  private pairOf = new Int32Array(16);
  private usedP = new Uint8Array(16);
  private readonly path: Array<string | number> = [];

  constructor(readonly plan: ExtractPlan) {
    this.counts = new Int32Array(plan.leaves.length * KINDS);
    this.exact = new Int32Array(plan.leaves.length * KINDS);
    this.cardinality = new Int32Array(plan.arrays.length * 2);
  }

  /**
   * Scores expected against predicted field values (undefined for a failed run). The list of
   * differences is only built `withDiffs`: reports show it for the worst documents alone, and
   * building it for every document was most of the garbage a large report made.
   */
  score(expected: Record<string, unknown> | undefined, predicted: Record<string, unknown> | undefined, withDiffs = false): void {
    // A document scored again for its differences must not count its unexpected keys twice.
    this.counting = !withDiffs;
    this.counts.fill(0);
    this.exact.fill(0);
    this.cardinality.fill(0);
    this.diffs = [];
    this.diffsCut = 0;
    this.confLeaf.length = 0;
    this.confValue.length = 0;
    this.confRight.length = 0;
    this.withDiffs = withDiffs;
    this.node(this.plan.root, expected, predicted);
    this.unexpected = this.strayKeys(this.plan.root, predicted, 0);
    this.unexpectedExpected = this.strayKeys(this.plan.root, expected, 1);
  }

  /**
   * Counts the non-empty values of `v` under keys the plan's objects do not know (excluded
   * fields are known), per path; `side` 0 predicted, 1 expected. Pairing plays no part: an
   * unexpected key is one whatever row it is in.
   */
  private strayKeys(plan: Plan, v: unknown, side: 0 | 1): number {
    if (plan.kind === 'object') {
      if (!isPlainObject(v)) return 0;
      let n = 0;
      // for-in, not Object.keys: no array per object. The own check, for keys outside the
      // fields alone, keeps out members a library may have added to Object.prototype.
      for (const k in v) {
        if (plan.known.has(k) || !Object.hasOwn(v, k)) continue;
        if (isEmpty(v[k])) continue;
        n++;
        const path = childPath(plan.path, k);
        if (side === 0 && this.cells) this.cells.push({ leaf: -1, path, rows: [], outcome: FA, expected: null, predicted: v[k] });
        if (side === 0 && this.withDiffs) {
          if (this.diffs.length >= MAX_DIFFS) this.diffsCut++;
          else this.diffs.push({ path, outcome: 'FA', expected: null, predicted: v[k] });
        }
        if (!this.counting) continue;
        const c = this.unexpectedKeys.get(path) ?? [0, 0];
        c[side]++;
        this.unexpectedKeys.set(path, c);
      }
      for (const i of plan.nested) n += this.strayKeys(plan.children[i], own(v, plan.keys[i]), side);
      for (const [k, p] of plan.strays) n += this.strayKeys(p, own(v, k), side);
      return n;
    }
    if (plan.kind === 'rows') {
      // Every row, empty ones too: an empty row's keys hold only empty values, which count for nothing.
      if (!Array.isArray(v)) return this.strayKeys(plan.row, v, side);
      let n = 0;
      for (let i = 0; i < v.length; i++) n += this.strayKeys(plan.row, v[i], side);
      return n;
    }
    return 0;
  }

  /** Number of wrong outcomes (FA + FN + FD, unexpected keys included) in the last scored document. */
  errors(): number {
    let n = this.unexpected;
    const c = this.counts;
    for (let i = 0; i < c.length; i += KINDS) n += c[i + FA] + c[i + FN] + c[i + FD];
    return n;
  }

  private concretePath(): string {
    let s = '';
    for (const seg of this.path) {
      if (typeof seg === 'number') s += `[${seg}]`;
      else if (seg.startsWith('+')) s += `[${seg}]`;
      else s += s === '' ? seg : `.${seg}`;
    }
    return s;
  }

  private diff(o: number, e: unknown, p: unknown, keys?: string[]): void {
    if (!this.withDiffs) return;
    if (this.diffs.length >= MAX_DIFFS) {
      this.diffsCut++;
      return;
    }
    if (keys) this.path.push(...keys);
    this.diffs.push({
      path: this.concretePath(),
      outcome: OUTCOME_NAME[o] as DocumentDiff['outcome'],
      expected: isEmpty(e) ? null : e,
      predicted: isEmpty(p) ? null : p,
    });
    if (keys) this.path.length -= keys.length;
  }

  /** The [expected, predicted] row of each array level on the current path. */
  private rowPairs(): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    for (let i = 0; i < this.path.length; i++) {
      const seg = this.path[i];
      if (typeof seg === 'number') out.push([seg, this.ppath[i] as number]);
      else if (seg.startsWith('+')) out.push([-1, this.ppath[i] as number]);
    }
    return out;
  }

  private cell(leaf: Leaf, o: number, e: unknown, p: unknown, keys?: string[]): void {
    const c: Cell = { leaf: leaf.index, path: '', rows: this.rowPairs(), outcome: o, expected: isEmpty(e) ? null : e, predicted: isEmpty(p) ? null : p };
    const conf = this.confidenceOf(keys);
    if (conf !== undefined) c.confidence = conf;
    (this.cells as Cell[]).push(c);
  }

  private record(leaf: Leaf, o: number, x: number, e: unknown, p: unknown, keys?: string[]): void {
    this.counts[leaf.index * KINDS + o]++;
    if (leaf.exact) this.exact[leaf.index * KINDS + x]++;
    if (this.cells && o !== TN) this.cell(leaf, o, e, p, keys);
    if (o >= FA) this.diff(o, e, p, keys);
    if (this.confidence && (o === TP || o === FD || o === FA)) {
      const c = this.confidenceOf(keys);
      this.confLeaf.push(leaf.index);
      this.confValue.push(c ?? NaN);
      this.confRight.push(o === TP ? 1 : 0);
    }
  }

  private push(e: string | number, p: string | number): void {
    this.path.push(e);
    this.ppath.push(p);
  }

  private pop(): void {
    this.path.pop();
    this.ppath.pop();
  }

  /** The confidence of the predicted value at the current path (its path is built only when the map has entries). */
  private confidenceOf(keys?: string[]): number | undefined {
    const map = this.confidence;
    return map === undefined || map.size === 0 ? undefined : map.get(this.predictedPath(keys));
  }

  /** The predicted value's path as the service's metadata names it: `line_items[0].amount`. */
  private predictedPath(keys?: string[]): string {
    let s = '';
    const add = (seg: string | number): void => {
      if (typeof seg === 'number') s += `[${seg}]`;
      else s += s === '' ? seg : `.${seg}`;
    };
    for (const seg of this.ppath) add(seg);
    if (keys) for (const k of keys) add(k);
    return s;
  }

  private leaf(leaf: Leaf, e: unknown, p: unknown): void {
    const o = outcome(leaf.matcher, e, p);
    this.record(leaf, o, leaf.exact && (o === TP || o === FD) ? outcome(leaf.exact, e, p) : o, e, p);
  }

  private multiset(leaf: Leaf, e: unknown, p: unknown): void {
    const E = nonEmptyElements(e);
    const P = nonEmptyElements(p);
    const base = leaf.index * KINDS;
    if (E.length === 0 && P.length === 0) {
      this.counts[base + TN]++;
      if (leaf.exact) this.exact[base + TN]++;
      return;
    }
    const pairs = pairElements(leaf.matcher, E, P);
    this.counts[base + TP] += pairs.length;
    this.counts[base + FN] += E.length - pairs.length;
    this.counts[base + FA] += P.length - pairs.length;
    if (leaf.exact) {
      const exactPairs = pairElements(leaf.exact, E, P).length;
      this.exact[base + TP] += exactPairs;
      this.exact[base + FN] += E.length - exactPairs;
      this.exact[base + FA] += P.length - exactPairs;
    }
    if (this.cells) {
      for (const [i, j] of pairs) this.cell(leaf, TP, E[i][1], P[j][1]);
      const pe = new Set(pairs.map(([i]) => i));
      const pp = new Set(pairs.map(([, j]) => j));
      E.forEach(([, v], i) => pe.has(i) || this.cell(leaf, FN, v, null));
      P.forEach(([, v], j) => pp.has(j) || this.cell(leaf, FA, null, v));
    }
    if (pairs.length === E.length && pairs.length === P.length) return;
    const usedE = new Set(pairs.map(([i]) => i));
    const usedP = new Set(pairs.map(([, j]) => j));
    E.forEach(([, v], i) => usedE.has(i) || this.diff(FN, v, null));
    P.forEach(([, v], j) => usedP.has(j) || this.diff(FA, null, v));
  }

  private node(plan: Plan, e: unknown, p: unknown): void {
    switch (plan.kind) {
      case 'leaf':
        return this.leaf(plan.leaf, e, p);
      case 'multiset':
        return this.multiset(plan.leaf, e, p);
      case 'object': {
        const eo = isPlainObject(e) ? e : undefined;
        const po = isPlainObject(p) ? p : undefined;
        for (let i = 0; i < plan.keys.length; i++) {
          const k = plan.keys[i];
          this.push(k, k);
          this.node(plan.children[i], own(eo, k), own(po, k));
          this.pop();
        }
        return;
      }
      case 'rows':
        return plan.flat ? this.flatRows(plan, plan.flat, e, p) : this.rows(plan, e, p);
    }
  }

  /**
   * No rows on either side: every leaf of the row is expected empty and predicted empty in
   * this document, one TN each (as a scalar field or an empty multiset would be).
   */
  private noRows(plan: Extract<Plan, { kind: 'rows' }>): void {
    this.cardinalityOf(plan, 0, 0);
    for (const leaf of plan.leaves) {
      this.counts[leaf.index * KINDS + TN]++;
      if (leaf.exact) this.exact[leaf.index * KINDS + TN]++;
    }
  }

  private cardinalityOf(plan: Extract<Plan, { kind: 'rows' }>, e: number, p: number): void {
    if (plan.cardinality < 0) return;
    this.cardinality[plan.cardinality * 2] = e;
    this.cardinality[plan.cardinality * 2 + 1] = p;
  }

  /** Rows of objects and leaves: values prepared once, pairs weighed on prepared values. */
  private flatRows(plan: Extract<Plan, { kind: 'rows' }>, flat: FlatRow, e: unknown, p: unknown): void {
    const E = this.rowsE;
    const P = this.rowsP;
    E.fill(flat, e);
    P.fill(flat, p);
    if (E.n === 0 && P.n === 0) return this.noRows(plan);
    this.cardinalityOf(plan, E.n, P.n);
    if (this.pairOf.length < E.n) this.pairOf = new Int32Array(E.n * 2);
    if (this.usedP.length < P.n) this.usedP = new Uint8Array(P.n * 2);
    const { pairOf, usedP } = this;
    pairFlat(flat, E, P, pairOf);
    usedP.fill(0, 0, P.n);
    for (let i = 0; i < E.n; i++) if (pairOf[i] >= 0) usedP[pairOf[i]] = 1;
    const L = flat.leaves.length;
    for (let i = 0; i < E.n; i++) {
      const j = pairOf[i];
      const a = i * L;
      this.push(E.index[i], j >= 0 ? P.index[j] : -1);
      if (j >= 0) {
        const b = j * L;
        for (let l = 0; l < L; l++) {
          const leaf = flat.leaves[l];
          const x = E.prep[a + l];
          const y = P.prep[b + l];
          const ex = E.raw[a + l];
          const py = P.raw[b + l];
          let o: number;
          if (x === EMPTY) o = y === EMPTY ? TN : FA;
          else if (y === EMPTY) o = FN;
          else o = flatMatch(flat, E, a + l, P, b + l, l) ? TP : FD;
          this.record(leaf, o, leaf.exact && (o === TP || o === FD) ? outcome(leaf.exact, ex, py) : o, ex, py, flat.keys[l]);
        }
      } else {
        for (let l = 0; l < L; l++) if (E.prep[a + l] !== EMPTY) this.record(flat.leaves[l], FN, FN, E.raw[a + l], null, flat.keys[l]);
      }
      this.pop();
    }
    for (let j = 0; j < P.n; j++) {
      if (usedP[j]) continue;
      const b = j * L;
      this.push(`+${P.index[j]}`, P.index[j]);
      for (let l = 0; l < L; l++) if (P.prep[b + l] !== EMPTY) this.record(flat.leaves[l], FA, FA, null, P.raw[b + l], flat.keys[l]);
      this.pop();
    }
  }

  /** Rows with arrays inside: weights by scoring sub-trees recursively. */
  private rows(plan: Extract<Plan, { kind: 'rows' }>, e: unknown, p: unknown): void {
    const E = nonEmptyElements(e);
    const P = nonEmptyElements(p);
    if (E.length === 0 && P.length === 0) return this.noRows(plan);
    this.cardinalityOf(plan, E.length, P.length);
    const pairOf = pairRows(plan.row, E, P);
    const usedP = new Uint8Array(P.length);
    for (let i = 0; i < E.length; i++) if (pairOf[i] >= 0) usedP[pairOf[i]] = 1;
    for (let i = 0; i < E.length; i++) {
      this.push(E[i][0], pairOf[i] >= 0 ? P[pairOf[i]][0] : -1);
      if (pairOf[i] >= 0) this.node(plan.row, E[i][1], P[pairOf[i]][1]);
      else this.oneSided(plan.row, E[i][1], FN);
      this.pop();
    }
    for (let j = 0; j < P.length; j++) {
      if (usedP[j]) continue;
      this.push(`+${P[j][0]}`, P[j][0]);
      this.oneSided(plan.row, P[j][1], FA);
      this.pop();
    }
  }

  /** An unpaired row: its non-empty leaves are FN (expected row) or FA (predicted row). */
  private oneSided(plan: Plan, v: unknown, o: number): void {
    switch (plan.kind) {
      case 'leaf':
        if (!isEmpty(v)) this.record(plan.leaf, o, o, o === FN ? v : null, o === FA ? v : null);
        return;
      case 'multiset': {
        const elements = nonEmptyElements(v);
        if (elements.length === 0) return;
        const base = plan.leaf.index * KINDS + o;
        this.counts[base] += elements.length;
        if (plan.leaf.exact) this.exact[base] += elements.length;
        if (this.cells) for (const [, x] of elements) this.cell(plan.leaf, o, o === FN ? x : null, o === FA ? x : null);
        for (const [, x] of elements) this.diff(o, o === FN ? x : null, o === FA ? x : null);
        return;
      }
      case 'object': {
        if (!isPlainObject(v)) return;
        for (let i = 0; i < plan.keys.length; i++) {
          this.push(plan.keys[i], plan.keys[i]);
          this.oneSided(plan.children[i], own(v, plan.keys[i]), o);
          this.pop();
        }
        return;
      }
      case 'rows':
        for (const [i, row] of nonEmptyElements(v)) {
          this.push(o === FA ? `+${i}` : i, o === FA ? i : -1);
          this.oneSided(plan.row, row, o);
          this.pop();
        }
        return;
    }
  }
}

/** Number of TP outcomes scoring e against p would give: the pairing weight of two rows. */
export function matchWeight(plan: Plan, e: unknown, p: unknown): number {
  switch (plan.kind) {
    case 'leaf':
      return outcome(plan.leaf.matcher, e, p) === TP ? 1 : 0;
    case 'multiset':
      return pairElements(plan.leaf.matcher, nonEmptyElements(e), nonEmptyElements(p)).length;
    case 'object': {
      if (!isPlainObject(e) || !isPlainObject(p)) return 0;
      let w = 0;
      for (let i = 0; i < plan.keys.length; i++) w += matchWeight(plan.children[i], own(e, plan.keys[i]), own(p, plan.keys[i]));
      return w;
    }
    case 'rows': {
      const E = nonEmptyElements(e);
      const P = nonEmptyElements(p);
      const pairOf = pairRows(plan.row, E, P);
      let w = 0;
      for (let i = 0; i < E.length; i++) if (pairOf[i] >= 0) w += matchWeight(plan.row, E[i][1], P[pairOf[i]][1]);
      return w;
    }
  }
}

/** The most TP outcomes a row can give: its number of non-empty leaf values. */
function capacity(plan: Plan, e: unknown): number {
  switch (plan.kind) {
    case 'leaf':
      return isEmpty(e) ? 0 : 1;
    case 'multiset':
      return nonEmptyElements(e).length;
    case 'object': {
      if (!isPlainObject(e)) return 0;
      let c = 0;
      for (let i = 0; i < plan.keys.length; i++) c += capacity(plan.children[i], own(e, plan.keys[i]));
      return c;
    }
    case 'rows': {
      let c = 0;
      for (const [, row] of nonEmptyElements(e)) c += capacity(plan.row, row);
      return c;
    }
  }
}

/** pairFlat for rows that hold arrays: weights by recursive scoring. Returns each expected row's predicted row, or -1. */
function pairRows(row: Plan, E: Array<[number, unknown]>, P: Array<[number, unknown]>): Int32Array {
  const pairOf = new Int32Array(E.length);
  const weight = (i: number, j: number): number => matchWeight(row, E[i][1], P[j][1]);
  pairByWeight(E.length, P.length, weight, (i) => capacity(row, E[i][1]), pairOf);
  return pairOf;
}

/** Pairs elements of two multisets so that the number of matching pairs is maximal. */
function pairElements(m: Matcher, E: Array<[number, unknown]>, P: Array<[number, unknown]>): Array<[number, number]> {
  if (E.length === 0 || P.length === 0) return [];
  const pe = E.map(([, v]) => m.prepare(v));
  const pp = P.map(([, v]) => m.prepare(v));
  if (E.length <= P.length) {
    let diagonal = true;
    for (let i = 0; i < E.length && diagonal; i++) diagonal = m.equal(pe[i], pp[i]);
    if (diagonal) return E.map((_, i): [number, number] => [i, i]);
  }
  return maxWeightPairs(pe.map((x) => pp.map((y) => (m.equal(x, y) ? 1 : 0))));
}

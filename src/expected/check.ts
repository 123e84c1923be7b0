/**
 * Rich findings for one expected output: walks the document against the expected-output model
 * and says, per JSON pointer, which rule fails, what was expected and what was found, and (only
 * when the repair is certain) the RFC 6902 patch that repairs it. Slow path: the validator runs
 * the compiled JSON Schema first and only comes here for documents that fail it.
 */
import type { Operation } from 'fast-json-patch';
import { distance } from 'fastest-levenshtein';
import { isPlainObject, lossyNumber, overflowPath, toPointer } from '../util/json.js';
import { isCurrencyCode, SHARED_SYMBOLS, UNAMBIGUOUS_SYMBOLS } from './currencies.js';
import { isIsoDate, parseBoolean, parseCurrency, parseDate, parseEnum, parseNumber, type DateOrder } from './coerce.js';
import { classIndex, type Classification, type ExpectedForm, type ExpectedModel, type LegacyField, type Node } from './model.js';
import type { Finding, RuleId, Severity } from './rules.js';

export interface CheckOptions {
  /** Absent configured fields are errors instead of warnings. */
  strict?: boolean;
  /** ISO 4217 code for bare amounts in currency fields (and for a shared symbol such as `$`). */
  currency?: string;
  /** Order of day and month for ambiguous numeric dates. */
  dateOrder?: DateOrder;
}

type Path = Array<string | number>;

const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

const NO_CLASSES: Classification[] = [];

const CODE_ALIASES = ['currency', 'currency_code', 'currencyCode', 'iso4217', 'iso_code', 'code'];
const CLASSIFY_KEYS = new Set(['id', 'type', 'confidence']);
const SPLIT_KEYS = new Set(['id', 'classificationId', 'type', 'startPage', 'endPage', 'identifier', 'observation', 'name', 'fileId']);
/** The 2026-02-09 form (spec 3.7): ProvidedClassifyOutput and ProvidedSplitOutputSplitsItem. */
const CLASSIFY_KEYS_2026 = new Set(['id', 'type']);
const SPLIT_KEYS_2026 = new Set(['classificationId', 'type', 'startPage', 'endPage']);
/** Members of the 2025-04-21 form that 2026-02-09 has no place for: reported as such, removed by the fix. */
const DROPPED_IN_2026 = new Set(['confidence', 'id', 'identifier', 'observation']);
const FIELDS_FORM_CERTAIN = new Set(['id', 'value', 'type']);
const MIGRATE_HINT = '(evalkit migrate FILE --to 2026-02-09 converts a whole file)';
const LEGACY_ENTRY_KEYS = new Set(['id', 'value', 'type', 'confidence', 'page']);

export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') {
    const s = JSON.stringify(v.length > 60 ? v.slice(0, 57) + '...' : v);
    return `string ${s}`;
  }
  if (typeof v === 'number' || typeof v === 'boolean') return `${typeof v} ${String(v)}`;
  if (Array.isArray(v)) return `an array of ${v.length} item${v.length === 1 ? '' : 's'}`;
  if (isPlainObject(v)) {
    const keys = Object.keys(v);
    if (keys.length === 0) return 'an empty object';
    return `an object with ${keys.length === 1 ? 'key' : 'keys'} ${listOf(keys, 5)}`;
  }
  return typeof v;
}

function listOf(items: readonly unknown[], max = 8): string {
  const shown = items.slice(0, max).map((i) => JSON.stringify(i));
  return shown.join(', ') + (items.length > max ? `, ... (${items.length - max} more)` : '');
}

export function expectation(node: Node): string {
  switch (node.kind) {
    case 'string':
      return 'a string';
    case 'number':
      return node.integer ? 'an integer' : 'a number';
    case 'boolean':
      return 'a boolean';
    case 'date':
      return 'a date "YYYY-MM-DD"';
    case 'currency':
      return 'a currency object {amount, iso_4217_currency_code}';
    case 'enum':
      return `one of ${listOf(node.values)}`;
    case 'array':
      return 'an array';
    case 'object':
      return node.signature ? 'a signature object {printed_name, signature_date, is_signed, title_or_role}' : 'an object';
    case 'any':
      return 'any value';
  }
}

function suggestion(key: string, candidates: Iterable<string>): string {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = c.toLowerCase() === key.toLowerCase() ? 0 : distance(key, c);
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(key.length / 3)) ? `; did you mean "${best}"?` : '';
}

/** The innermost value of a chain of `{value: ...}` wrappers, and how many there were. */
function unwrap(v: Record<string, unknown>): { inner: unknown; depth: number } {
  let inner: unknown = v;
  let depth = 0;
  while (isPlainObject(inner) && isWrapper(inner)) {
    inner = inner.value;
    depth++;
  }
  return { inner, depth };
}

/**
 * Moves the wrapped value up into the wrapper's place. Moving (not replacing with a copy) keeps
 * the repairs made inside it earlier in the same round. In an array, `add` inserts, so the
 * emptied wrapper that now follows is removed.
 */
function unwrapFix(path: Path, innerPath: Path): Operation[] {
  const ops: Operation[] = [{ op: 'move', from: toPointer(innerPath), path: toPointer(path) }];
  const last = path[path.length - 1];
  if (typeof last === 'number') ops.push({ op: 'remove', path: toPointer([...path.slice(0, -1), last + 1]) });
  return ops;
}

function isWrapper(v: Record<string, unknown>): boolean {
  const keys = Object.keys(v);
  return keys.length === 1 && keys[0] === 'value';
}

class Checker {
  readonly findings: Finding[] = [];
  constructor(
    readonly opts: CheckOptions,
    readonly api: ExpectedForm = '2025-04-21',
  ) {}

  get current(): boolean {
    return this.api === '2026-02-09';
  }

  /** A member of the 2025-04-21 form in a 2026-02-09 document: the 2026-02-09 form has no place for it. */
  olderMember(path: Path, value: unknown, what: string): void {
    this.add(path, 'api-version-form', `expected no "${String(path[path.length - 1])}" in ${what} (API 2026-02-09 has none), got ${describeValue(value)} ${MIGRATE_HINT}`, [{ op: 'remove', path: toPointer(path) }]);
  }

  add(path: Path, rule: RuleId, message: string, fix?: Operation[], severity: Severity = 'error', settledBy?: Finding['settledBy']): void {
    const f: Finding = { pointer: toPointer(path), rule, severity, message };
    if (fix) f.fix = fix;
    if (settledBy) f.settledBy = settledBy;
    this.findings.push(f);
  }

  // ---------------------------------------------------------------- EXTRACT

  extract(model: Extract<ExpectedModel, { type: 'EXTRACT' }>, doc: unknown): void {
    if (!isPlainObject(doc)) {
      this.add([], 'type-mismatch', `expected an object {value: {...}, metadata?}, got ${describeValue(doc)}`);
      return;
    }
    const fields = model.fields;
    if (model.legacy && looksLegacy(doc, model.legacy)) {
      this.legacy(model.legacy, fields, doc);
      return;
    }
    const metadataIsField = has(fields, 'metadata');
    if (this.current && isFieldsForm(doc)) {
      this.add([], 'api-version-form', `expected {value: {...}} (API 2026-02-09 has no fields form of an EXTRACT expected output), got the fields form with ${describeValue(doc).replace(/^an object with /, '')}`, fieldsFormFix(model, doc));
      return;
    }
    if (!has(doc, 'value')) {
      const keys = Object.keys(doc).filter((k) => k !== 'metadata' || metadataIsField);
      // 2026-02-09's {value?}: no value is "nothing expected", each field absent.
      if (keys.length === 0 && this.current) {
        const from = this.findings.length;
        this.fields(fields, {}, ['value']);
        // The fields' own fixes need a `value` to add to: the first round adds it.
        for (const f of this.findings.slice(from)) if (f.fix) f.fix = [{ op: 'add', path: '/value', value: {} }];
        if (has(doc, 'metadata')) this.metadata(doc.metadata);
        return;
      }
      let fix: Operation[] | undefined;
      if (keys.length === 0) fix = [{ op: 'add', path: '/value', value: {} }];
      else if (!metadataIsField && keys.some((k) => has(fields, k))) {
        fix = [{ op: 'add', path: '/value', value: {} }, ...keys.map((k): Operation => ({ op: 'move', from: toPointer([k]), path: toPointer(['value', k]) }))];
      }
      const got = keys.length ? `top-level ${keys.length === 1 ? 'key' : 'keys'} ${listOf(keys, 5)}` : 'an empty object';
      this.add([], 'value-wrapper', `expected the results under "value" ({value: {...}, metadata?}), got ${got}`, fix);
      const bare: Record<string, unknown> = {};
      for (const k of keys) bare[k] = doc[k];
      // Absent fields are reported once the results sit under "value" (after the fix).
      this.fields(fields, bare, [], false);
      if (!metadataIsField && has(doc, 'metadata')) this.metadata(doc.metadata);
      return;
    }
    const value = doc.value;
    for (const k of Object.keys(doc)) {
      if (k === 'value' || k === 'metadata') continue;
      if (has(fields, k)) {
        const movable = isPlainObject(value) && !has(value, k);
        this.add([k], 'value-wrapper', `expected field "${k}" under "value", got it at the top level`, movable ? [{ op: 'move', from: toPointer([k]), path: toPointer(['value', k]) }] : undefined);
        this.node(fields[k], doc[k], [k]);
      } else {
        this.add([k], 'unknown-field', `expected only "value" and "metadata" at the top level, got "${k}"${suggestion(k, Object.keys(fields))}`);
      }
    }
    if (has(doc, 'metadata')) this.metadata(doc.metadata);
    let v = value;
    let path: Path = ['value'];
    if (isPlainObject(v) && isWrapper(v) && !has(fields, 'value')) {
      const { inner, depth } = unwrap(v);
      const innerPath = [...path, ...Array<string>(depth).fill('value')];
      this.add(path, 'nested-value-wrapper', `expected the fields directly under "value", got ${depth} more {value: ...} wrapper${depth > 1 ? 's' : ''}`, unwrapFix(path, innerPath));
      v = inner;
      path = innerPath;
    }
    if (!isPlainObject(v)) this.add(path, 'type-mismatch', `expected an object of fields under "value", got ${describeValue(v)}`);
    else this.fields(fields, v, path);
  }

  metadata(m: unknown): void {
    if (!isPlainObject(m)) {
      this.add(['metadata'], 'metadata-shape', `expected an object keyed by field path, got ${describeValue(m)}`);
      return;
    }
    for (const [k, entry] of Object.entries(m)) {
      if (!isPlainObject(entry)) this.add(['metadata', k], 'metadata-shape', `expected an object (ocrConfidence, citations, ...), got ${describeValue(entry)}`);
    }
  }

  /** `path` is used as a stack (pushed and popped) here and in node(): nothing may keep it. */
  fields(props: Record<string, Node>, obj: Record<string, unknown>, path: Path, reportAbsent = true): void {
    for (const k in props) {
      path.push(k);
      if (has(obj, k)) this.node(props[k], obj[k], path);
      else if (reportAbsent) {
        const severity: Severity = this.opts.strict ? 'error' : 'warning';
        this.add(path, 'missing-field', `field "${k}" is absent: expected ${expectation(props[k])}, or null when nothing is expected`, [{ op: 'add', path: toPointer(path), value: null }], severity);
      }
      path.pop();
    }
    for (const k in obj) {
      if (!has(props, k)) this.add([...path, k], 'unknown-field', `"${k}" is not a field of the config${suggestion(k, Object.keys(props))}`);
    }
  }

  node(node: Node, v: unknown, path: Path): void {
    if (v === null) return;
    if (typeof v === 'number' && !Number.isFinite(v)) return this.tooLarge(node, path);
    if (node.kind === 'any') return;
    if (isPlainObject(v) && isWrapper(v) && !(node.kind === 'object' && has(node.properties, 'value'))) {
      const { inner, depth } = unwrap(v);
      const innerPath = [...path, ...Array<string>(depth).fill('value')];
      this.add(path, 'nested-value-wrapper', `expected ${expectation(node)} without a {value: ...} wrapper (only the top level has one), got ${describeValue(v)}`, unwrapFix(path, innerPath));
      this.node(node, inner, innerPath);
      return;
    }
    switch (node.kind) {
      case 'string':
        if (typeof v !== 'string') this.mismatch(node, v, path);
        return;
      case 'number':
        return this.number(node, v, path);
      case 'boolean':
        if (typeof v === 'boolean') return;
        if (typeof v === 'string') {
          const b = parseBoolean(v);
          return this.mismatch(node, v, path, b.ok ? b.value : undefined);
        }
        return this.mismatch(node, v, path);
      case 'date':
        return this.date(v, path);
      case 'currency':
        return this.currency(v, path);
      case 'enum':
        return this.enumValue(node.values, v, path);
      case 'array':
        if (!Array.isArray(v)) return this.mismatch(node, v, path);
        for (let i = 0; i < v.length; i++) {
          path.push(i);
          this.node(node.items, v[i], path);
          path.pop();
        }
        return;
      case 'object':
        if (!isPlainObject(v)) return this.mismatch(node, v, path);
        this.fields(node.properties, v, path);
        return;
    }
  }

  /** type-mismatch, with a replacing fix when a certain replacement is known. */
  mismatch(node: Node, v: unknown, path: Path, replacement?: unknown): void {
    const fix: Operation[] | undefined = replacement === undefined ? undefined : [{ op: 'replace', path: toPointer(path), value: replacement }];
    this.add(path, 'type-mismatch', `expected ${expectation(node)}, got ${describeValue(v)}`, fix);
  }

  /** A number literal beyond a double's range (`1e400`): JSON.parse reads Infinity, which JSON writes as null. */
  tooLarge(node: Node, path: Path): void {
    this.add(path, 'type-mismatch', tooLargeMessage(node.kind === 'any' ? 'a value' : expectation(node)));
  }

  number(node: Extract<Node, { kind: 'number' }>, v: unknown, path: Path): void {
    if (typeof v === 'number') {
      if (node.integer && !Number.isInteger(v)) this.mismatch(node, v, path);
      return;
    }
    if (typeof v === 'string') {
      const n = parseNumber(v);
      // Not certain when a double does not hold the digits (a 23-digit id would be rounded).
      const certain = n.ok && (!node.integer || Number.isInteger(n.value)) && lossyNumber(v.replace(/[^\d.eE+-]/g, '')) === undefined;
      return this.mismatch(node, v, path, certain && n.ok ? n.value : undefined);
    }
    this.mismatch(node, v, path);
  }

  date(v: unknown, path: Path): void {
    if (typeof v !== 'string') return this.mismatch({ kind: 'date' }, v, path);
    if (isIsoDate(v)) return;
    const d = parseDate(v, { dateOrder: this.opts.dateOrder });
    const order = !d.ok && d.ambiguous && /order/.test(d.reason);
    const why = d.ok ? '' : order ? ' (ambiguous: the order of day and month is not known)' : d.ambiguous ? ` (${d.reason})` : '';
    this.add(path, 'date-format', `expected a date "YYYY-MM-DD", got ${describeValue(v)}${why}`, d.ok ? [{ op: 'replace', path: toPointer(path), value: d.value }] : undefined, 'error', order ? 'dateOrder' : undefined);
  }

  enumValue(values: Extract<Node, { kind: 'enum' }>['values'], v: unknown, path: Path): void {
    if (values.includes(v as string)) return;
    let fix: Operation[] | undefined;
    if (typeof v === 'string') {
      const e = parseEnum(v, values);
      if (e.ok) fix = [{ op: 'replace', path: toPointer(path), value: e.value }];
      else if (values.some((x) => typeof x === 'number')) {
        const n = parseNumber(v);
        if (n.ok && values.includes(n.value)) fix = [{ op: 'replace', path: toPointer(path), value: n.value }];
      }
    }
    this.add(path, 'enum-value', `expected one of ${listOf(values)}, got ${describeValue(v)}`, fix);
  }

  currency(v: unknown, path: Path): void {
    const want = 'a currency object {amount, iso_4217_currency_code}';
    const code = this.opts.currency && isCurrencyCode(this.opts.currency) ? this.opts.currency : undefined;
    const replace = (value: unknown): Operation[] => [{ op: 'replace', path: toPointer(path), value }];
    if (typeof v === 'number') {
      this.add(path, 'currency-shape', `expected ${want}, got ${describeValue(v)}${code ? '' : ' (no currency code)'}`, code ? replace({ amount: v, iso_4217_currency_code: code }) : undefined, 'error', code ? undefined : 'currency');
      return;
    }
    if (typeof v === 'string') {
      const c = parseCurrency(v, { defaultCurrency: code });
      const why = c.ok ? '' : ` (${c.reason})`;
      this.add(path, 'currency-shape', `expected ${want}, got ${describeValue(v)}${why}`, c.ok ? replace(c.value) : undefined, 'error', !c.ok && /currency/.test(c.reason) && !code ? 'currency' : undefined);
      return;
    }
    if (!isPlainObject(v)) {
      this.add(path, 'currency-shape', `expected ${want}, got ${describeValue(v)}`);
      return;
    }
    const alias = has(v, 'iso_4217_currency_code') ? undefined : CODE_ALIASES.find((k) => has(v, k));
    for (const k of Object.keys(v)) {
      if (k !== 'amount' && k !== 'iso_4217_currency_code' && k !== alias) {
        this.add([...path, k], 'currency-shape', `expected only "amount" and "iso_4217_currency_code" in a currency object, got "${k}"`);
      }
    }
    if (!has(v, 'amount')) this.add(path, 'currency-shape', `expected "amount" (a number or null) in the currency object, got ${describeValue(v)}`);
    else if (typeof v.amount === 'number' && !Number.isFinite(v.amount)) this.tooLarge({ kind: 'number' } as Node, [...path, 'amount']);
    else if (v.amount !== null && typeof v.amount !== 'number') {
      const n = typeof v.amount === 'string' ? parseNumber(v.amount) : undefined;
      this.add([...path, 'amount'], 'type-mismatch', `expected a number, got ${describeValue(v.amount)}`, n?.ok ? [{ op: 'replace', path: toPointer([...path, 'amount']), value: n.value }] : undefined);
    }
    const codeKey = alias ?? 'iso_4217_currency_code';
    if (alias) {
      this.add(path, 'currency-shape', `expected the code under "iso_4217_currency_code", got "${alias}"`, [
        { op: 'move', from: toPointer([...path, alias]), path: toPointer([...path, 'iso_4217_currency_code']) },
      ]);
    }
    if (!has(v, codeKey)) {
      this.add(path, 'currency-shape', `expected "iso_4217_currency_code" in the currency object, got ${describeValue(v)}`, code ? [{ op: 'add', path: toPointer([...path, 'iso_4217_currency_code']), value: code }] : undefined, 'error', code ? undefined : 'currency');
      return;
    }
    const raw = v[codeKey];
    if (raw === null || isCurrencyCode(raw)) return;
    let fixed: string | undefined;
    if (typeof raw === 'string') {
      const t = raw.trim();
      if (isCurrencyCode(t.toUpperCase())) fixed = t.toUpperCase();
      else if (UNAMBIGUOUS_SYMBOLS[t]) fixed = UNAMBIGUOUS_SYMBOLS[t];
      else if (SHARED_SYMBOLS[t] && code && SHARED_SYMBOLS[t].users.includes(code)) fixed = code;
    }
    this.add([...path, codeKey], 'currency-code', `expected an ISO 4217 currency code such as "USD" or "EUR", got ${describeValue(raw)}`, fixed ? [{ op: 'replace', path: toPointer([...path, codeKey]), value: fixed }] : undefined);
  }

  // ---------------------------------------------------------------- legacy fields-array form

  legacy(legacy: LegacyField[], fields: Record<string, Node>, doc: Record<string, unknown>): void {
    const byName = new Map(legacy.map((f) => [f.name, f]));
    const byId = new Map(legacy.map((f) => [f.id, f]));
    const seen = new Set<string>();
    for (const [key, entry] of Object.entries(doc)) {
      let f = byName.get(key);
      if (!f) {
        f = byId.get(key);
        if (!f) {
          this.add([key], 'unknown-field', `"${key}" is not a field name of the config${suggestion(key, byName.keys())}`);
          continue;
        }
        const target = f.name;
        this.add([key], 'legacy-field', `expected legacy entries keyed by field name "${target}", got the field id "${key}"`, has(doc, target) ? undefined : [{ op: 'move', from: toPointer([key]), path: toPointer([target]) }]);
      }
      seen.add(f.id);
      if (!isPlainObject(entry)) {
        this.add([key], 'type-mismatch', `expected an entry {id, value, type?, confidence?, page?}, got ${describeValue(entry)}`);
        continue;
      }
      for (const k of Object.keys(entry)) {
        if (!LEGACY_ENTRY_KEYS.has(k)) this.add([key, k], 'unknown-field', `expected only id, value, type, confidence and page in a legacy entry, got "${k}"`);
      }
      if (!has(entry, 'id')) this.add([key], 'legacy-field', `expected "id": "${f.id}" in the entry of field "${f.name}", got none`, [{ op: 'add', path: toPointer([key, 'id']), value: f.id }]);
      else if (entry.id !== f.id) this.add([key, 'id'], 'legacy-field', `expected id "${f.id}" for field "${f.name}", got ${describeValue(entry.id)}`);
      if (has(entry, 'type') && entry.type !== f.type) {
        this.add([key, 'type'], 'legacy-field', `expected type "${f.type}" (from the config), got ${describeValue(entry.type)}`, [{ op: 'replace', path: toPointer([key, 'type']), value: f.type }]);
      }
      if (has(entry, 'confidence')) this.confidence(entry.confidence, [key, 'confidence']);
      if (has(entry, 'page')) this.page(entry.page, [key, 'page']);
      if (has(entry, 'value')) this.node(fields[f.id], entry.value, [key, 'value']);
    }
    for (const f of legacy) {
      if (seen.has(f.id)) continue;
      const severity: Severity = this.opts.strict ? 'error' : 'warning';
      this.add([f.name], 'missing-field', `field "${f.name}" (id "${f.id}") is absent: expected {id, value} with ${expectation(fields[f.id])} or null`, has(doc, f.name) ? undefined : [{ op: 'add', path: toPointer([f.name]), value: { id: f.id, value: null } }], severity);
    }
  }

  confidence(v: unknown, path: Path): void {
    if (typeof v === 'number' && v >= 0 && v <= 1) return;
    let fix: Operation[] | undefined;
    if (typeof v === 'string') {
      const n = parseNumber(v);
      if (n.ok && n.value >= 0 && n.value <= 1) fix = [{ op: 'replace', path: toPointer(path), value: n.value }];
    }
    this.add(path, 'confidence-range', `expected a confidence from 0 to 1, got ${describeValue(v)}`, fix);
  }

  page(v: unknown, path: Path): void {
    if (typeof v === 'number' && Number.isInteger(v) && v >= 1) return;
    const n = typeof v === 'string' ? parseNumber(v) : undefined;
    const fix: Operation[] | undefined = n?.ok && Number.isInteger(n.value) && n.value >= 1 ? [{ op: 'replace', path: toPointer(path), value: n.value }] : undefined;
    this.add(path, 'page-number', `expected a page number (an integer from 1), got ${describeValue(v)}`, fix);
  }

  // ---------------------------------------------------------------- CLASSIFY and SPLITTER

  classify(list: Classification[], doc: unknown): void {
    if (!isPlainObject(doc)) {
      this.add([], 'type-mismatch', `expected an object {id, type${this.current ? '' : ', confidence?'}}, got ${describeValue(doc)}`);
      return;
    }
    if (isPlainObject(doc.value) && isWrapper(doc)) {
      this.add([], 'value-wrapper', `expected {id, type${this.current ? '' : ', confidence?'}} at the top level (a CLASSIFY expected output has no "value" wrapper), got {value: {...}}`, [{ op: 'move', from: '/value', path: '' }]);
      this.classification(list, doc.value, ['value']);
      return;
    }
    this.classification(list, doc, []);
  }

  classification(list: Classification[], obj: Record<string, unknown>, path: Path): void {
    const keys = this.current ? CLASSIFY_KEYS_2026 : CLASSIFY_KEYS;
    for (const k of Object.keys(obj)) {
      if (this.current && k === 'confidence') this.olderMember([...path, k], obj[k], 'a CLASSIFY expected output');
      else if (!keys.has(k)) this.add([...path, k], 'unknown-field', `expected only ${[...keys].join(', ')}, got "${k}"${suggestion(k, keys)}`);
    }
    this.pair(list, obj, path, 'id', 'type');
    if (!this.current && has(obj, 'confidence')) this.confidence(obj.confidence, [...path, 'confidence']);
  }

  /** An id and a type that must name one configured classification. */
  pair(list: Classification[], obj: Record<string, unknown>, path: Path, idKey: string, typeKey: string): void {
    const id = obj[idKey];
    const type = obj[typeKey];
    const { ids, types, firstById, byType: ofType } = classIndex(list);
    const byId = typeof id === 'string' ? firstById.get(id) : undefined;
    const byType = (typeof type === 'string' ? ofType.get(type) : undefined) ?? NO_CLASSES;
    if (!has(obj, idKey)) {
      const fix: Operation[] | undefined = byType.length === 1 ? [{ op: 'add', path: toPointer([...path, idKey]), value: byType[0].id }] : undefined;
      this.add(path, 'required-property', `expected "${idKey}" (one of ${listOf(ids)}), got none`, fix);
    } else if (typeof id !== 'string') {
      this.add([...path, idKey], 'type-mismatch', `expected a classification id (one of ${listOf(ids)}), got ${describeValue(id)}`);
    } else if (!byId) {
      const e = parseEnum(id, ids);
      this.add([...path, idKey], 'unknown-classification', `expected one of the configured ids ${listOf(ids)}, got "${id}"${e.ok ? '' : suggestion(id, ids)}`, e.ok ? [{ op: 'replace', path: toPointer([...path, idKey]), value: e.value }] : undefined);
    }
    if (!has(obj, typeKey)) {
      const fix: Operation[] | undefined = byId ? [{ op: 'add', path: toPointer([...path, typeKey]), value: byId.type }] : undefined;
      this.add(path, 'required-property', `expected "${typeKey}" (one of ${listOf(types)}), got none`, fix);
    } else if (typeof type !== 'string') {
      this.add([...path, typeKey], 'type-mismatch', `expected a classification type (one of ${listOf(types)}), got ${describeValue(type)}`);
    } else if (byType.length === 0) {
      // The id decides when it is valid; otherwise only a spelling variant of one type is certain.
      const e = parseEnum(type, types);
      const value = byId ? byId.type : e.ok ? e.value : undefined;
      this.add([...path, typeKey], 'unknown-classification', `expected one of the configured types ${listOf(types)}, got "${type}"${byId ? ` (id "${byId.id}" has type "${byId.type}")` : ''}`, value === undefined ? undefined : [{ op: 'replace', path: toPointer([...path, typeKey]), value }]);
    } else if (byId && !byType.includes(byId)) {
      this.add(path, 'classification-mismatch', `expected ${typeKey} "${byId.type}" for ${idKey} "${byId.id}", got "${String(type)}" (the type of ${listOf(byType.map((c) => c.id))})`);
    }
  }

  splitter(list: Classification[], doc: unknown): void {
    if (!isPlainObject(doc)) {
      this.add([], 'type-mismatch', `expected an object {splits: [...]}, got ${describeValue(doc)}`);
      return;
    }
    if (isPlainObject(doc.value) && isWrapper(doc)) {
      this.add([], 'value-wrapper', 'expected {splits: [...]} at the top level (a SPLITTER expected output has no "value" wrapper), got {value: {...}}', [{ op: 'move', from: '/value', path: '' }]);
      this.splitsObject(list, doc.value, ['value']);
      return;
    }
    this.splitsObject(list, doc, []);
  }

  splitsObject(list: Classification[], obj: Record<string, unknown>, path: Path): void {
    for (const k of Object.keys(obj)) {
      if (k !== 'splits' && k !== 'subDocumentClassifications') this.add([...path, k], 'unknown-field', `expected only "splits", got "${k}"${suggestion(k, ['splits'])}`);
    }
    let key = 'splits';
    if (has(obj, 'subDocumentClassifications')) {
      const both = has(obj, 'splits');
      this.add([...path, 'subDocumentClassifications'], 'legacy-splits-key', both
        ? 'expected only "splits" (API 2025-04-21), got both "splits" and the older "subDocumentClassifications"; remove one'
        : 'expected "splits" (API 2025-04-21), got the older "subDocumentClassifications"', both ? undefined : [
        { op: 'move', from: toPointer([...path, 'subDocumentClassifications']), path: toPointer([...path, 'splits']) },
      ]);
      if (!both) key = 'subDocumentClassifications';
    } else if (!has(obj, 'splits')) {
      this.add(path, 'required-property', `expected "splits": [{${this.splitMembers()}}], got ${describeValue(obj)}`);
      return;
    }
    const splits = obj[key];
    if (!Array.isArray(splits)) {
      this.add([...path, key], 'type-mismatch', `expected an array of splits, got ${describeValue(splits)}`);
      return;
    }
    const ranges: Array<{ i: number; start: number; end: number }> = [];
    const idsSeen = new Map<string, number>();
    splits.forEach((s, i) => {
      const p = [...path, key, i];
      const range = this.split(list, s, p);
      if (range) ranges.push({ i, ...range });
      if (!this.current && isPlainObject(s) && typeof s.id === 'string') {
        const first = idsSeen.get(s.id);
        if (first === undefined) idsSeen.set(s.id, i);
        else this.add([...p, 'id'], 'duplicate-split-id', `expected a unique split id, got "${s.id}" again (first at ${toPointer([...path, key, first])})`);
      }
    });
    ranges.sort((a, b) => a.start - b.start || a.i - b.i);
    let widest: (typeof ranges)[number] | undefined;
    for (const r of ranges) {
      if (widest && r.start <= widest.end) {
        const [a, b] = widest.i < r.i ? [widest, r] : [r, widest];
        this.add([...path, key, b.i], 'split-overlap', `expected splits that share no page, got pages ${b.start}-${b.end} overlapping ${toPointer([...path, key, a.i])} (pages ${a.start}-${a.end})`);
      }
      if (!widest || r.end > widest.end) widest = r;
    }
  }

  /** Checks one split; returns its page range when both pages are valid and ordered. */
  split(list: Classification[], s: unknown, p: Path): { start: number; end: number } | undefined {
    if (!isPlainObject(s)) {
      this.add(p, 'type-mismatch', `expected a split {${this.splitMembers()}}, got ${describeValue(s)}`);
      return undefined;
    }
    const keys = this.current ? SPLIT_KEYS_2026 : SPLIT_KEYS;
    for (const k of Object.keys(s)) {
      if (this.current && DROPPED_IN_2026.has(k) && k !== 'confidence') this.olderMember([...p, k], s[k], 'a split');
      else if (!keys.has(k)) this.add([...p, k], 'unknown-field', `expected only ${[...keys].join(', ')} in a split, got "${k}"${suggestion(k, keys)}`);
    }
    if (!this.current) {
      if (!has(s, 'id')) this.add(p, 'required-property', 'expected "id" (a string) in the split, got none');
      else if (typeof s.id !== 'string') this.add([...p, 'id'], 'type-mismatch', `expected a string id, got ${describeValue(s.id)}`);
    }
    this.pair(list, s, p, 'classificationId', 'type');
    for (const k of ['identifier', 'observation', 'name', 'fileId']) {
      if (!this.current && has(s, k) && s[k] !== null && typeof s[k] !== 'string') this.add([...p, k], 'type-mismatch', `expected a string or null, got ${describeValue(s[k])}`);
    }
    const start = this.pageOfSplit(s, p, 'startPage');
    const end = this.pageOfSplit(s, p, 'endPage');
    if (start === undefined || end === undefined) return undefined;
    if (start > end) {
      this.add(p, 'split-range', `expected startPage <= endPage, got startPage ${start} and endPage ${end}`);
      return undefined;
    }
    return { start, end };
  }

  splitMembers(): string {
    return this.current ? 'classificationId, type, startPage, endPage' : 'id, classificationId, type, startPage, endPage';
  }

  private pageOfSplit(s: Record<string, unknown>, p: Path, key: 'startPage' | 'endPage'): number | undefined {
    if (!has(s, key)) {
      this.add(p, 'required-property', `expected "${key}" (a page number from 1) in the split, got none`);
      return undefined;
    }
    const v = s[key];
    if (typeof v === 'number') {
      if (Number.isInteger(v) && v >= 1) return v;
      this.add([...p, key], 'split-range', `expected ${key} to be an integer from 1, got ${describeValue(v)}`);
      return undefined;
    }
    const n = typeof v === 'string' ? parseNumber(v) : undefined;
    const certain = n?.ok && Number.isInteger(n.value) && n.value >= 1;
    this.add([...p, key], 'type-mismatch', `expected ${key} to be an integer from 1, got ${describeValue(v)}`, certain && n?.ok ? [{ op: 'replace', path: toPointer([...p, key]), value: n.value }] : undefined);
    return certain && n?.ok ? n.value : undefined;
  }
}

function looksLegacy(doc: Record<string, unknown>, legacy: LegacyField[]): boolean {
  if (has(doc, 'value')) return false;
  const entries = Object.entries(doc);
  if (entries.length === 0) return false;
  if (!entries.every(([, e]) => isPlainObject(e) && has(e, 'id'))) return false;
  return entries.some(([k]) => legacy.some((f) => f.name === k || f.id === k));
}

/** The fields form of an EXTRACT expected output: no `value`, every member an entry `{id, ...}`. */
function isFieldsForm(doc: Record<string, unknown>): boolean {
  const entries = Object.values(doc);
  return !has(doc, 'value') && entries.length > 0 && entries.every((e) => isPlainObject(e) && has(e, 'id'));
}

/**
 * {value: {id: entry.value}} when the fields form is certain to mean it: every entry's `id` is a
 * configured field, named once, and holds a value (an entry without one says nothing of its field).
 */
function fieldsFormFix(model: Extract<ExpectedModel, { type: 'EXTRACT' }>, doc: Record<string, unknown>): Operation[] | undefined {
  const value: Record<string, unknown> = {};
  for (const entry of Object.values(doc)) {
    const e = entry as Record<string, unknown>;
    // Only id, value and type (which the config gives anyway): a confidence or page would be lost.
    if (typeof e.id !== 'string' || !has(model.fields, e.id) || has(value, e.id) || !has(e, 'value') || Object.keys(e).some((k) => !FIELDS_FORM_CERTAIN.has(k))) return undefined;
    Object.defineProperty(value, e.id, { value: e.value, enumerable: true, writable: true, configurable: true });
  }
  return [{ op: 'replace', path: '', value: { value } }];
}

/** All findings for one document (the slow path). */
export function checkExpected(model: ExpectedModel, doc: unknown, opts: CheckOptions = {}): Finding[] {
  const c = new Checker(opts, model.api);
  if (model.type === 'EXTRACT') c.extract(model, doc);
  else if (model.type === 'CLASSIFY') c.classify(model.classifications, doc);
  else c.splitter(model.classifications, doc);
  return c.findings;
}

function tooLargeMessage(expected: string): string {
  return `expected ${expected}, got a number beyond the range of JSON numbers (${Number.MAX_VALUE.toPrecision(3)}): it would be sent as null`;
}

/**
 * A number beyond a double anywhere in a document read from `text` (an `any` field, an unknown
 * key: where no field check looks, and where ajv's fast path lets Infinity through). The text is
 * searched first (overflowPath): most documents hold no such literal and are not walked. For many
 * documents of one text, pass `mayOverflow(text)` (searched once) instead of the text.
 */
export function overflowFinding(doc: unknown, text: string | boolean): Finding | undefined {
  const path = overflowPath(doc, text);
  return path === undefined ? undefined : { pointer: toPointer(path), rule: 'type-mismatch', severity: 'error', message: tooLargeMessage('a value') };
}

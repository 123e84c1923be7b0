/**
 * Validation of many expected outputs against one processor config. The config is normalised,
 * turned into a model and a JSON Schema, and compiled with ajv once (cached by content hash).
 * A document that passes the compiled schema (every field required, so no warning is possible)
 * is valid without further work; only failing documents are walked for rich findings.
 */
import { createHash } from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import jsonpatch, { type Operation } from 'fast-json-patch';
import { isPlainObject, sortKeysDeep } from '../util/json.js';
import { checkExpected, type CheckOptions } from './check.js';
import { isIsoDate } from './coerce.js';
import { normalizeConfig, type ProcessorType } from './config.js';
import { buildModel, type ExpectedForm, type ExpectedModel, type Node } from './model.js';
import type { Finding, ValidationResult } from './rules.js';
import { schemaFromModel, type JsonSchema } from './schema.js';

export interface ValidateOptions extends CheckOptions {
  /** Processor type when the config does not carry `type`. */
  type?: ProcessorType;
  /** The API version whose expected-output form is checked (default 2025-04-21; see expectedFormOf). */
  form?: ExpectedForm;
}

export interface DeriveOptions {
  type?: ProcessorType;
  form?: ExpectedForm;
  /** Every configured field required, as `--strict` validates. */
  strict?: boolean;
}

interface Compiled {
  model: ExpectedModel;
  /** null for SPLITTER: page order and overlaps are beyond JSON Schema, so every document is walked. */
  fast: ValidateFunction | null;
}

const MAX_CACHED = 64;
const byHash = new Map<string, Compiled>();
const byObject = new WeakMap<object, Map<string, Compiled>>();

function modelOf(config: unknown, type?: ProcessorType, form?: ExpectedForm): ExpectedModel {
  const n = normalizeConfig(config, { type });
  return buildModel(n.config, n.type, form);
}

/**
 * New ajv per config so that an evicted entry takes its generated code with it. `allErrors` for
 * large schemas only: without it ajv nests each property's check in the one before, and its code
 * generator recurses once per nesting (2,000 fields overflowed the stack; 500 took 0.3 s to
 * compile against 0.1 s); with it the checks follow one another, but a run of ordinary documents
 * (validate bench: 30 fields, 1% invalid) is about 10% slower.
 */
export function newAjv(allErrors = false): Ajv {
  return new Ajv({ allErrors, strict: true, allowUnionTypes: true, formats: { date: isIsoDate } });
}

/** Past this many properties (at every depth), the fast validator is compiled with allErrors (see newAjv). */
const LARGE_SCHEMA = 200;

/** How many properties a schema declares at every depth (stops counting past `limit`). */
function propertyCount(schema: unknown, limit: number, seen = 0): number {
  if (schema === null || typeof schema !== 'object') return seen;
  if (Array.isArray(schema)) {
    for (const s of schema) if ((seen = propertyCount(s, limit, seen)) > limit) break;
    return seen;
  }
  const o = schema as Record<string, unknown>;
  if (isPlainObject(o.properties)) seen += Object.keys(o.properties).length;
  for (const k of Object.keys(o)) if (seen <= limit && o[k] !== null && typeof o[k] === 'object') seen = propertyCount(o[k], limit, seen);
  return seen;
}

function compiledFor(config: unknown, type?: ProcessorType, form: ExpectedForm = '2025-04-21'): Compiled {
  const typeKey = `${type ?? ''}\0${form}`;
  const perObject = isPlainObject(config) ? byObject.get(config) : undefined;
  const hit = perObject?.get(typeKey);
  if (hit) return hit;
  const hash = createHash('sha256').update(`${typeKey}\0${JSON.stringify(sortKeysDeep(config))}`).digest('hex');
  let compiled = byHash.get(hash);
  if (compiled) {
    byHash.delete(hash);
  } else {
    const model = modelOf(config, type, form);
    // ajv cannot hold a property named `__proto__` (it refuses it as an additional property): a
    // model with such a field is walked for every document, like SPLITTER's.
    // A CLASSIFY schema pairs each id with its type in an anyOf of one branch per class, which ajv
    // tries in turn (20,000 classes: seconds a document); past LARGE_SCHEMA classes the walker,
    // which looks the pair up, checks every document.
    const fast =
      model.type === 'SPLITTER' || (model.type === 'CLASSIFY' && model.classifications.length > LARGE_SCHEMA) || (model.type === 'EXTRACT' && hasProtoField(model.fields, model.legacy))
        ? null
        : compileFast(schemaFromModel(model, { requireAll: true }));
    compiled = { model, fast };
    if (byHash.size >= MAX_CACHED) byHash.delete(byHash.keys().next().value as string);
  }
  byHash.set(hash, compiled);
  if (isPlainObject(config)) {
    const m = perObject ?? new Map<string, Compiled>();
    m.set(typeKey, compiled);
    if (!perObject) byObject.set(config, m);
  }
  return compiled;
}

/**
 * The schema compiled, or null when ajv cannot compile it (its code generator recurses once per
 * level of nesting: objects nested some thousands deep overflow the stack). The fast path is only
 * a shortcut: without it every document is walked.
 */
function compileFast(schema: JsonSchema): ValidateFunction | null {
  try {
    return newAjv(propertyCount(schema, LARGE_SCHEMA) > LARGE_SCHEMA).compile(schema);
  } catch (e) {
    if (e instanceof RangeError) return null;
    throw e;
  }
}

/** Whether a field (at any depth, or a legacy field name) is named `__proto__`. */
function hasProtoField(fields: Record<string, Node>, legacy?: ReadonlyArray<{ name: string }>): boolean {
  const walk = (n: Node): boolean => (n.kind === 'object' ? hasProtoField(n.properties) : n.kind === 'array' ? walk(n.items) : false);
  return Object.keys(fields).some((k) => k === '__proto__' || walk(fields[k])) || (legacy ?? []).some((f) => f.name === '__proto__');
}

/** The JSON Schema of a valid expectedOutput for a processor config (either layout, any type). */
export function deriveExpectedSchema(config: unknown, opts: DeriveOptions = {}): JsonSchema {
  return schemaFromModel(modelOf(config, opts.type, opts.form), { requireAll: opts.strict === true });
}

/**
 * A validator for many documents against one config: `(doc) => {valid, findings}`. Valid means
 * no error-severity finding (warnings, such as absent fields without `strict`, may remain).
 */
export function createExpectedValidator(config: unknown, opts: ValidateOptions = {}): (doc: unknown) => ValidationResult {
  const { model, fast } = compiledFor(config, opts.type, opts.form);
  const checkOpts: CheckOptions = { strict: opts.strict, currency: opts.currency, dateOrder: opts.dateOrder };
  return (doc) => {
    if (fast !== null && fast(doc)) return { valid: true, findings: [] };
    const findings = checkExpected(model, doc, checkOpts);
    if (findings.length === 0 && fast !== null) findings.push(schemaFallback(fast));
    return { valid: !findings.some((f) => f.severity === 'error'), findings };
  };
}

// The walker and the schema come from one model and are tested to agree; should they ever
// disagree, the schema's own error is reported rather than a failing document passing.
function schemaFallback(fast: ValidateFunction): Finding {
  const e = fast.errors?.[0];
  return { pointer: e?.instancePath ?? '', rule: 'schema-violation', severity: 'error', message: `the document fails the derived schema: ${e?.message ?? 'unknown reason'}` };
}

/** One document against a config; compiled validators are cached by config content. */
export function validateExpected(config: unknown, doc: unknown, opts: ValidateOptions = {}): ValidationResult {
  return createExpectedValidator(config, opts)(doc);
}

export interface FixResult extends ValidationResult {
  /** The document with every certain fix applied (the input object is not changed). */
  doc: unknown;
  /** Findings whose fix was applied, in the order applied. */
  fixed: Finding[];
}

const MAX_ROUNDS = 6;

/**
 * Applies the fixes of error findings (deepest first, so that a move of a parent comes after
 * the repairs inside it), re-validates, and repeats while something changes.
 */
export function fixExpected(config: unknown, doc: unknown, opts: ValidateOptions = {}): FixResult {
  const validate = createExpectedValidator(config, opts);
  let cur = doc;
  const fixed: Finding[] = [];
  let result = validate(cur);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const todo = result.findings.filter((f) => f.fix && f.severity === 'error');
    if (todo.length === 0) break;
    todo.sort((a, b) => depth(b.pointer) - depth(a.pointer));
    let next = cur;
    let applied = 0;
    for (const f of todo) {
      try {
        next = jsonpatch.applyPatch(next, jsonpatch.deepClone(f.fix ?? []) as Operation[], true, false).newDocument;
        fixed.push(f);
        applied++;
      } catch {
        // A fix whose target moved in this round is re-derived from the next validation.
      }
    }
    if (applied === 0) break;
    cur = next;
    result = validate(cur);
  }
  return { ...result, doc: cur, fixed };
}

function depth(pointer: string): number {
  let n = 0;
  for (let i = 0; i < pointer.length; i++) if (pointer.charCodeAt(i) === 47) n++;
  return n;
}

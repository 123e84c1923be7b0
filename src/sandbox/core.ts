/**
 * The sandbox's view of the other core modules: config layouts (src/config) and expected-output
 * validation (src/expected). Routes call only this interface, which turns their input errors
 * into 400s. Both modules (ajv schemas) load lazily so that the server starts listening at once.
 */
import jsonpatch, { type Operation } from 'fast-json-patch';
import { EvalkitError } from '../util/errors.js';
import { toPointer } from '../util/json.js';
import { HttpError } from './http.js';

import type * as ConfigCore from '../config/index.js';
import type * as ExpectedCore from '../expected/index.js';

type ConfigModule = typeof ConfigCore;
type ExpectedModule = typeof ExpectedCore;

export type Layout = '2024-11-14' | '2025-04-21';
export type ProcessorType = 'EXTRACT' | 'CLASSIFY' | 'SPLITTER';
export const PROCESSOR_TYPES: readonly ProcessorType[] = ['EXTRACT', 'CLASSIFY', 'SPLITTER'];
export const HUB: Layout = '2025-04-21';
/** The layout of the 2026-02-09 extractor, classifier and splitter routes (current.ts). */
const CURRENT = '2026-02-09';

export type Json = Record<string, unknown>;

export interface ConfigIssue {
  pointer: string;
  message: string;
}

export interface ExpectedFinding {
  pointer: string;
  rule: string;
  message: string;
  severity: 'error' | 'warning';
}

export interface Core {
  /** Any layout in, 2025-04-21 out. Throws a 400 HttpError for mixed or lossy input. */
  toHub(config: Json, type: ProcessorType): Json;
  /** 2025-04-21 in, the caller's layout out (members without an old name are left out). */
  fromHub(config: Json, layout: Layout, type: ProcessorType): Json;
  /**
   * A 2026-02-09 config (extractor/classifier/splitter layout) -> the hub layout, plus the members
   * the hub has no place for (pointer in the 2026-02-09 layout, value). 400 when it is not a
   * 2026-02-09 config (a `type`, `parser`, `fields`, `fixedPageLimit`... inside) or has a top-level
   * member the layout does not list (SDK 1.17 `ExtractConfigJson`, `ClassifyConfig`, `SplitConfig`).
   * With `base` (the stored config in the 2026-02-09 layout that an override or a clone changes),
   * `config`'s members replace base's; only `config`'s own top-level members are checked by name.
   */
  fromCurrent(config: Json, type: ProcessorType, at?: string, base?: Json): { hub: Json; extras: Array<[string, unknown]> };
  /** Hub layout -> 2026-02-09 layout; members 2026-02-09 has no place for are left out. */
  toCurrent(config: Json, type: ProcessorType): Json;
  /** `splits` <-> `subDocumentClassifications`. */
  splitterOutput(output: Json, layout: Layout): Json;
  /**
   * A stored (2025-04-21) expected output as 2026-02-09 shows it (spec 3.7): CLASSIFY without
   * `confidence`, splits without `id`/`identifier`/`observation`. A fields-form EXTRACT output has
   * no 2026-02-09 form and is returned as stored.
   */
  expectedToCurrent(output: Json, type: ProcessorType): Json;
  /** A 2026-02-09 expected output -> 2025-04-21 (each split gets its `split_<n>` id). */
  expectedFromCurrent(output: Json, type: ProcessorType): Json;
  /** Problems of a 2025-04-21 config (an EXTRACT `schema` also as a JSON Schema); empty when valid. */
  validateConfig(config: Json): ConfigIssue[];
  /** Findings of an expected output against a 2025-04-21 config. */
  validateExpected(config: Json, expected: Json): ExpectedFinding[];
}

let cached: Promise<Core> | undefined;

export function loadCore(): Promise<Core> {
  cached ??= Promise.all([import('../config/index.js'), import('../expected/index.js')]).then(([config, expected]) => buildCore(config, expected));
  return cached;
}

function asHttp400(e: unknown, what: string): never {
  if (e instanceof HttpError) throw e;
  if (e instanceof EvalkitError) {
    const where = e.location.pointer ? ` at ${e.location.pointer}` : '';
    throw new HttpError(400, `${what}${where}: ${e.message}`);
  }
  throw e;
}

type Edits = ReturnType<ConfigModule['expectedDown']>;

/** The drops and adds of src/config's expected-output steps, as an RFC 6902 patch on a copy. */
function applyEdits(doc: Json, edits: Edits): Json {
  if (!edits.length) return doc;
  const ops: Operation[] = edits.map((e) => {
    const path = toPointer(e.path);
    if (e.kind === 'drop') return { op: 'remove', path };
    if (e.kind === 'add') return { op: 'add', path, value: e.value };
    throw new Error(`unexpected ${e.kind} edit of an expected output at ${path}`);
  });
  return jsonpatch.applyPatch(doc, ops, true, false).newDocument;
}

/**
 * Top-level members of a 2026-02-09 config that its layout does not list, one issue each with the
 * listed member it is probably a typo of. Members the schema already refuses are left to its issue.
 */
function unknownMembers(config: ConfigModule, cfg: Json, type: ProcessorType, schemaIssues: readonly ConfigIssue[]): ConfigIssue[] {
  const known = config.layoutMembers(CURRENT, type);
  const out: ConfigIssue[] = [];
  for (const key of Object.keys(cfg)) {
    const pointer = toPointer([key]);
    if (known.includes(key) || schemaIssues.some((i) => i.pointer === pointer)) continue;
    const near = config.closest(key, known);
    const fix = near === undefined ? `remove it (the members are ${known.join(', ')})` : `did you mean "${near}"?`;
    out.push({ pointer, message: `unknown member "${key}"; ${fix}` });
  }
  return out;
}

/**
 * The layout's issues plus those of an EXTRACT config's `schema` as a JSON Schema (src/expected's
 * extractionSchemaIssues, the rule `evalkit validate` and `evalkit schema` apply): the layouts
 * only say `schema` is an object. Left out when the layout already refuses `/schema` itself.
 */
function withExtractionSchema(expected: ExpectedModule, cfg: Json, type: unknown, issues: ConfigIssue[]): ConfigIssue[] {
  if (type !== 'EXTRACT' || cfg.schema === undefined || issues.some((i) => i.pointer === '/schema')) return issues;
  return [...issues, ...expected.extractionSchemaIssues(cfg.schema).map((i) => ({ pointer: `/schema${i.pointer}`, message: i.message }))];
}

function buildCore(config: ConfigModule, expected: ExpectedModule): Core {
  return {
    toHub(cfg, type) {
      try {
        return config.migrateConfig({ ...cfg, type }, { to: HUB, type, allowUnknown: true }).doc as Json;
      } catch (e) {
        return asHttp400(e, 'invalid config');
      }
    },
    fromHub(cfg, layout, type) {
      if (layout === HUB) return cfg;
      // Members without an old name are left out: an older caller cannot see them anyway.
      return config.migrateConfig(cfg, { to: layout, from: HUB, type, allowLossy: true, allowUnknown: true }).doc as Json;
    },
    fromCurrent(given, type, at = '/config', base) {
      if (Object.hasOwn(given, 'type')) throw new HttpError(400, `invalid config at ${at}/type: 2026-02-09 configs have no type (the route says it is ${type}); remove it`);
      const cfg = base ? { ...base, ...given } : given;
      // The 2026-02-09 schema and the top-level members the SDK 1.17 types list: a key of another
      // layout (`parser`, `fields`, `fixedPageLimit`) or an unknown one is a 400 naming it, never a
      // member silently kept or lost on the way down (docs/sandbox-api.md, "Unknown top-level config members").
      const schemaIssues = withExtractionSchema(expected, cfg, type, config.validateConfig(cfg, CURRENT, type));
      const issues = [...unknownMembers(config, given, type, schemaIssues), ...schemaIssues];
      if (issues.length) {
        const shown = issues.slice(0, 5).map((i) => `${at}${i.pointer}: ${i.message}`);
        const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
        throw new HttpError(400, `invalid ${type} config for API version ${CURRENT}: ${shown.join('; ')}${more}`);
      }
      try {
        const r = config.migrateConfig(cfg, { from: CURRENT, to: HUB, type, allowLossy: true, allowUnknown: true });
        return { hub: r.doc as Json, extras: r.dropped.map((d) => [d.pointer, d.value] as [string, unknown]) };
      } catch (e) {
        return asHttp400(e, `invalid config at ${at}`);
      }
    },
    toCurrent(cfg, type) {
      // A fields-form extract config has no 2026-02-09 form to send, but answers show it as
      // ExtractConfigLegacy (spec 3.1): the same members without `type`, `parser` renamed.
      if (Array.isArray(cfg.fields)) {
        const { type: _t, parser, ...rest } = cfg;
        return parser === undefined ? rest : { ...rest, parseConfig: parser };
      }
      return config.migrateConfig(cfg, { from: HUB, to: CURRENT, type, allowLossy: true, allowUnknown: true }).doc as Json;
    },
    splitterOutput(output, layout) {
      try {
        return config.convertSplitterOutput(output, layout) as Json;
      } catch (e) {
        return asHttp400(e, 'invalid splitter output');
      }
    },
    expectedToCurrent(output, type) {
      try {
        return applyEdits(output, config.expectedUp(output, type, { path: [] }).edits);
      } catch (e) {
        if (e instanceof EvalkitError) return output;
        throw e;
      }
    },
    expectedFromCurrent(output, type) {
      return applyEdits(output, config.expectedDown(output, type));
    },
    validateConfig(cfg) {
      return withExtractionSchema(expected, cfg, cfg.type, config.validateConfig(cfg, HUB));
    },
    validateExpected(cfg, doc) {
      return expected.validateExpected(cfg, doc).findings;
    },
  };
}

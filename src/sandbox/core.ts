/**
 * The sandbox's view of the other core modules: config layouts (src/config) and expected-output
 * validation (src/expected). Routes call only this interface, which turns their input errors
 * into 400s. Both modules (ajv schemas) load lazily so that the server starts listening at once.
 */
import { EvalkitError } from '../util/errors.js';
import { HttpError } from './http.js';

import type * as ConfigCore from '../config/index.js';
import type * as ExpectedCore from '../expected/index.js';

type ConfigModule = typeof ConfigCore;
type ExpectedModule = typeof ExpectedCore;

export type Layout = '2024-11-14' | '2025-04-21';
export type ProcessorType = 'EXTRACT' | 'CLASSIFY' | 'SPLITTER';
export const PROCESSOR_TYPES: readonly ProcessorType[] = ['EXTRACT', 'CLASSIFY', 'SPLITTER'];
export const HUB: Layout = '2025-04-21';

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
  /** `splits` <-> `subDocumentClassifications`. */
  splitterOutput(output: Json, layout: Layout): Json;
  /** Problems of a 2025-04-21 config; empty when valid. */
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

function buildCore(config: ConfigModule, expected: ExpectedModule): Core {
  return {
    toHub(cfg, type) {
      try {
        return config.migrateConfig({ ...cfg, type }, { to: HUB, type }).doc as Json;
      } catch (e) {
        return asHttp400(e, 'invalid config');
      }
    },
    fromHub(cfg, layout, type) {
      if (layout === HUB) return cfg;
      // Members without an old name are left out: an older caller cannot see them anyway.
      return config.migrateConfig(cfg, { to: layout, from: HUB, type, allowLossy: true }).doc as Json;
    },
    splitterOutput(output, layout) {
      try {
        return config.convertSplitterOutput(output, layout) as Json;
      } catch (e) {
        return asHttp400(e, 'invalid splitter output');
      }
    },
    validateConfig(cfg) {
      return config.validateConfig(cfg, HUB);
    },
    validateExpected(cfg, doc) {
      return expected.validateExpected(cfg, doc).findings;
    },
  };
}

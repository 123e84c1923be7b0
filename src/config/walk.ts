import { isPlainObject } from '../util/json.js';
import type { Segment } from './detect.js';
import { isFieldsOutput } from './fields-schema.js';
import { ADVANCED, MAPPING, SPLITTER_OUTPUT_KEY, TYPE_EVIDENCE } from './mapping.js';
import { PROCESSOR_TYPES, type Layout, type ProcessorType } from './types.js';

/** What the object around a config says of it: its type (and where), its layout, whether it is an override. */
export interface Envelope {
  value: unknown;
  path: Segment[];
  /** A 2026-02-09 object or request member, or a /processors one (2025-04-21): its config is in that layout unless its keys say otherwise. */
  layout?: Layout;
  /** A run's overrideConfig: only the members it replaces. */
  partial?: boolean;
}

/** A place in a document that migration looks at. */
export type Spot =
  | { kind: 'config'; path: Segment[]; envelope?: Envelope }
  /** expected: an evaluation set item's expectedOutput, or an output saved on its own (its form changes in 2026-02-09; run outputs' does not). */
  | { kind: 'output'; path: Segment[]; envelope?: Envelope; expected?: boolean };

/** 2026-02-09 objects (spec section 7): the kind comes from `object`. */
const OBJECT_TYPES: ReadonlyMap<string, ProcessorType> = new Map([
  ['extractor', 'EXTRACT'],
  ['extractor_version', 'EXTRACT'],
  ['extract_run', 'EXTRACT'],
  ['classifier', 'CLASSIFY'],
  ['classifier_version', 'CLASSIFY'],
  ['classify_run', 'CLASSIFY'],
  ['splitter', 'SPLITTER'],
  ['splitter_version', 'SPLITTER'],
  ['split_run', 'SPLITTER'],
]);

/** 2026-02-09 run create bodies: `extractor: {id, version?, overrideConfig?}` and its kin. */
const RUN_TARGETS: ReadonlyMap<string, ProcessorType> = new Map([
  ['extractor', 'EXTRACT'],
  ['classifier', 'CLASSIFY'],
  ['splitter', 'SPLITTER'],
]);

/** Output objects: run outputs and evaluation set items' expected outputs. */
const OUTPUT_KEYS = ['output', 'initialOutput', 'reviewedOutput', 'expectedOutput'];
/** Caller-owned data: never looked into. */
const OPAQUE_KEYS = new Set(['metadata']);

const CONFIG_KEYS = new Set<string>(['schema', 'fields', 'baseProcessor', 'baseVersion', 'parser', 'parseConfig', ADVANCED, ...TYPE_EVIDENCE.keys(), ...MAPPING.map((r) => r.old)]);
const ENVELOPE_KEYS = new Set<string>(['config', 'draftVersion', 'object', ...OUTPUT_KEYS]);

/**
 * Finds the configs and splitter outputs in a document: a bare config; a processor (`config`,
 * `draftVersion.config`), processor version, processor run or request body (`config`); run
 * outputs and evaluation set items (`output`, `initialOutput`, `reviewedOutput`,
 * `expectedOutput`); API responses and arrays wrapping any of these.
 */
export function findSpots(doc: unknown): Spot[] {
  const spots: Spot[] = [];
  top(doc, [], spots);
  return spots;
}

function top(node: unknown, path: Segment[], spots: Spot[]): void {
  if (Array.isArray(node)) node.forEach((v, i) => top(v, [...path, i], spots));
  else if (isPlainObject(node)) {
    if (isBareOutput(node)) spots.push({ kind: 'output', path, expected: true });
    else if (isBareConfig(node)) spots.push({ kind: 'config', path });
    else container(node, path, undefined, spots);
  }
}

/**
 * A splitter output saved on its own (for example one expected output per file): `splits`, or a
 * `subDocumentClassifications` whose items are sub-documents (pages), not class definitions.
 */
export function isBareOutput(obj: Record<string, unknown>): boolean {
  const keys = Object.keys(obj).filter((k) => k !== 'metadata');
  if (keys.length !== 1) return false;
  const list = obj[keys[0]];
  if (!Array.isArray(list)) return false;
  if (keys[0] === SPLITTER_OUTPUT_KEY['2025-04-21']) return true;
  return keys[0] === SPLITTER_OUTPUT_KEY['2024-11-14'] && list.length > 0 && list.every((s) => isPlainObject(s) && ('startPage' in s || 'classificationId' in s));
}

/** A CLASSIFY output: `{id, type}` (and `confidence` before 2026-02-09). */
function isClassifyOutput(obj: Record<string, unknown>): boolean {
  return typeof obj.id === 'string' && typeof obj.type === 'string' && obj.splits === undefined;
}

/** A bare config: config keys, no envelope keys. Only looked for at the top of a document. */
export function isBareConfig(obj: Record<string, unknown>): boolean {
  let configish = false;
  for (const k of Object.keys(obj)) {
    if (ENVELOPE_KEYS.has(k)) return false;
    if (CONFIG_KEYS.has(k)) configish = true;
  }
  return configish || typeof obj.type === 'string' && /^(EXTRACT|CLASSIFY|SPLITTER)$/.test(obj.type);
}

function container(obj: Record<string, unknown>, path: Segment[], inherited: Envelope | undefined, spots: Spot[]): void {
  const own = obj.type !== undefined ? 'type' : obj.processorType !== undefined ? 'processorType' : undefined;
  const kind = typeof obj.object === 'string' ? OBJECT_TYPES.get(obj.object) : undefined;
  // A type named around the config (`type`, `processorType`) is a /processors object or body, whose configs are 2025-04-21 or older under every API version.
  const envelope: Envelope | undefined = kind ? { value: kind, path: [...path, 'object'], layout: '2026-02-09' } : own ? { value: obj[own], path: [...path, own], layout: '2025-04-21' } : inherited;
  for (const [key, value] of Object.entries(obj)) {
    if (OPAQUE_KEYS.has(key)) continue;
    if (key === 'config' && (isPlainObject(value) || (value !== null && typeof envelope?.value === 'string' && PROCESSOR_TYPES.includes(envelope.value as ProcessorType)))) {
      // A `config` that is no object, around which the type of a processor is named: an input error, not something to skip.
      spots.push({ kind: 'config', path: [...path, key], envelope });
    } else if (RUN_TARGETS.has(key) && isPlainObject(value) && isPlainObject(value.overrideConfig)) {
      spots.push({ kind: 'config', path: [...path, key, 'overrideConfig'], envelope: { value: RUN_TARGETS.get(key), path: [...path, key], layout: '2026-02-09', partial: true } });
    }
    else if (OUTPUT_KEYS.includes(key) && isPlainObject(value)) {
      const expected = key === 'expectedOutput';
      if (Array.isArray(value[SPLITTER_OUTPUT_KEY['2024-11-14']]) || Array.isArray(value[SPLITTER_OUTPUT_KEY['2025-04-21']])) {
        spots.push({ kind: 'output', path: [...path, key], envelope, expected });
      } else if (expected && (isClassifyOutput(value) || (envelope?.value === 'EXTRACT' && value.value === undefined) || (envelope?.value === undefined && isFieldsOutput(value)))) {
        // A fields-form EXTRACT output is found without a type around it too: going up it converts (--convert-fields) or is refused, never passed over.
        spots.push({ kind: 'output', path: [...path, key], envelope, expected });
      }
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => {
        if (isPlainObject(v)) container(v, [...path, key, i], envelope, spots);
      });
    } else if (isPlainObject(value)) container(value, [...path, key], envelope, spots);
  }
}

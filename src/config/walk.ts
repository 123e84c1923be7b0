import { isPlainObject } from '../util/json.js';
import type { Segment } from './detect.js';
import { ADVANCED, MAPPING, SPLITTER_OUTPUT_KEY, TYPE_EVIDENCE } from './mapping.js';

/** A place in a document that migration looks at. */
export type Spot =
  | { kind: 'config'; path: Segment[]; envelope?: { value: unknown; path: Segment[] } }
  | { kind: 'output'; path: Segment[]; envelope?: { value: unknown; path: Segment[] } };

/** Output objects: run outputs and evaluation set items' expected outputs. */
const OUTPUT_KEYS = ['output', 'initialOutput', 'reviewedOutput', 'expectedOutput'];
/** Caller-owned data: never looked into. */
const OPAQUE_KEYS = new Set(['metadata']);

const CONFIG_KEYS = new Set<string>(['schema', 'fields', 'baseProcessor', 'baseVersion', ADVANCED, ...TYPE_EVIDENCE.keys(), ...MAPPING.map((r) => r.old)]);
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
    if (isBareOutput(node)) spots.push({ kind: 'output', path });
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

/** A bare config: config keys, no envelope keys. Only looked for at the top of a document. */
export function isBareConfig(obj: Record<string, unknown>): boolean {
  let configish = false;
  for (const k of Object.keys(obj)) {
    if (ENVELOPE_KEYS.has(k)) return false;
    if (CONFIG_KEYS.has(k)) configish = true;
  }
  return configish || typeof obj.type === 'string' && /^(EXTRACT|CLASSIFY|SPLITTER)$/.test(obj.type);
}

function container(obj: Record<string, unknown>, path: Segment[], inherited: Spot['envelope'], spots: Spot[]): void {
  const own = obj.type !== undefined ? 'type' : obj.processorType !== undefined ? 'processorType' : undefined;
  const envelope = own ? { value: obj[own], path: [...path, own] } : inherited;
  for (const [key, value] of Object.entries(obj)) {
    if (OPAQUE_KEYS.has(key)) continue;
    if (key === 'config' && isPlainObject(value)) spots.push({ kind: 'config', path: [...path, key], envelope });
    else if (OUTPUT_KEYS.includes(key) && isPlainObject(value)) {
      if (Array.isArray(value[SPLITTER_OUTPUT_KEY['2024-11-14']]) || Array.isArray(value[SPLITTER_OUTPUT_KEY['2025-04-21']])) {
        spots.push({ kind: 'output', path: [...path, key], envelope });
      }
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => {
        if (isPlainObject(v)) container(v, [...path, key, i], envelope, spots);
      });
    } else if (isPlainObject(value)) container(value, [...path, key], envelope, spots);
  }
}

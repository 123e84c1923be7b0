import { OPTION_EVIDENCE_2026 } from './mapping-2026-02-09.js';
import type { Layout, ProcessorType } from './types.js';

/**
 * Config key changes of API version 2025-04-21 (service-api.md part 9), as data. Everything
 * else in this module (detection, type inference, both directions, the table test of docs/migrate.md)
 * reads this table; nothing restates it.
 */
export interface MappingRow {
  type: ProcessorType;
  /** Top-level key in the 2024-11-14 layout. */
  old: string;
  /** Path in the 2025-04-21 layout, or null when the key has no replacement. */
  new: readonly [string] | readonly ['advancedOptions', string] | null;
}

export const MAPPING: readonly MappingRow[] = [
  { type: 'EXTRACT', old: 'customExtractionRules', new: ['extractionRules'] },
  { type: 'EXTRACT', old: 'includeBoundingBoxCitations', new: ['advancedOptions', 'citationsEnabled'] },
  { type: 'CLASSIFY', old: 'fields', new: ['classifications'] },
  { type: 'CLASSIFY', old: 'customClassificationRules', new: ['classificationRules'] },
  { type: 'SPLITTER', old: 'subDocumentClassifications', new: ['splitClassifications'] },
  { type: 'SPLITTER', old: 'customSplitterRules', new: ['splitRules'] },
  { type: 'SPLITTER', old: 'identifierRules', new: ['advancedOptions', 'splitIdentifierRules'] },
  { type: 'SPLITTER', old: 'customReminders', new: null },
];

/** The 2025-04-21 object that holds options moved out of the top level; absent in 2024-11-14. */
export const ADVANCED = 'advancedOptions';

/**
 * advancedOptions members that exist only in 2025-04-21 (no old name). They settle the type
 * when a config does not name it; migrating down they are lossy, like any member without a row.
 */
export const NEW_ONLY_OPTIONS: Record<ProcessorType, readonly string[]> = {
  EXTRACT: ['modelReasoningInsightsEnabled', 'chunkingOptions'],
  CLASSIFY: ['context'],
  SPLITTER: ['splitMethod', 'splitExcelDocumentsBySheetEnabled'],
};

/** Splitter outputs (run outputs, expectedOutput): the list's key in each layout. */
export const SPLITTER_OUTPUT_KEY: Record<Layout, string> = {
  '2024-11-14': 'subDocumentClassifications',
  '2025-04-21': 'splits',
  '2026-02-09': 'splits',
};

/** baseProcessor values name their type. */
export const BASE_PROCESSOR_PREFIX: Record<ProcessorType, string> = {
  EXTRACT: 'extraction_',
  CLASSIFY: 'classification_',
  SPLITTER: 'splitting_',
};

// The lists below are asked for once per config migrated: built once per type, not per call.
const ROWS = new Map<ProcessorType, readonly MappingRow[]>();
const OLD_ONLY = new Map<ProcessorType, readonly string[]>();
const NEW_ONLY = new Map<ProcessorType, readonly string[]>();
const BY_OLD = new Map<ProcessorType, ReadonlyMap<string, MappingRow>>();

export function rowsOf(type: ProcessorType): readonly MappingRow[] {
  let rows = ROWS.get(type);
  if (!rows) ROWS.set(type, (rows = MAPPING.filter((r) => r.type === type)));
  return rows;
}

/** The rows of one type by their old key. */
export function rowsByOldKey(type: ProcessorType): ReadonlyMap<string, MappingRow> {
  let m = BY_OLD.get(type);
  if (!m) BY_OLD.set(type, (m = new Map(rowsOf(type).map((r) => [r.old, r]))));
  return m;
}

/** Top-level keys that only the 2024-11-14 layout has, for one type. */
export function oldOnlyKeys(type: ProcessorType): readonly string[] {
  let keys = OLD_ONLY.get(type);
  if (!keys) OLD_ONLY.set(type, (keys = rowsOf(type).map((r) => r.old)));
  return keys;
}

/** Top-level keys that only the 2025-04-21 layout has, for one type (advancedOptions included). */
export function newOnlyKeys(type: ProcessorType): readonly string[] {
  let keys = NEW_ONLY.get(type);
  if (!keys) {
    const set = new Set<string>([ADVANCED]);
    for (const r of rowsOf(type)) if (r.new) set.add(r.new[0]);
    NEW_ONLY.set(type, (keys = [...set]));
  }
  return keys;
}

/**
 * Which types a top-level key (or advancedOptions member) belongs to. Keys shared by all types
 * (type, baseVersion, advancedOptions itself) and unknown keys are not listed.
 * `fields` is both the deprecated EXTRACT form and the old CLASSIFY list: it narrows to two.
 */
export const TYPE_EVIDENCE: ReadonlyMap<string, readonly ProcessorType[]> = (() => {
  const m = new Map<string, ProcessorType[]>();
  const add = (key: string, t: ProcessorType) => m.set(key, [...new Set([...(m.get(key) ?? []), t])]);
  for (const r of MAPPING) {
    add(r.old, r.type);
    if (r.new && r.new.length === 1) add(r.new[0], r.type);
  }
  add('schema', 'EXTRACT');
  add('fields', 'EXTRACT');
  return m;
})();

export const OPTION_EVIDENCE: ReadonlyMap<string, ProcessorType> = (() => {
  const m = new Map<string, ProcessorType>();
  for (const r of MAPPING) if (r.new && r.new.length === 2) m.set(r.new[1], r.type);
  for (const [t, keys] of Object.entries(NEW_ONLY_OPTIONS)) for (const k of keys) m.set(k, t as ProcessorType);
  for (const [k, t] of OPTION_EVIDENCE_2026) m.set(k, t);
  return m;
})();

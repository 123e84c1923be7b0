import type { Operation } from 'fast-json-patch';

/**
 * The config layouts, an ordered chain: each adjacent pair is one step module (steps.ts). The
 * 2024-11-14 layout is that of every API version before 2025-04-21; 2026-02-09 is the layout of the
 * extractor, classifier and splitter endpoints (the legacy /processors endpoints keep 2025-04-21).
 */
export type Layout = '2024-11-14' | '2025-04-21' | '2026-02-09';
export type ProcessorType = 'EXTRACT' | 'CLASSIFY' | 'SPLITTER';

/** Oldest first: the order of the chain. */
export const LAYOUTS: readonly Layout[] = ['2024-11-14', '2025-04-21', '2026-02-09'];
export const OLD_LAYOUT: Layout = '2024-11-14';
/** The layout of the 2025-04-21 processor endpoints (the one the sandbox and client speak today). */
export const NEW_LAYOUT: Layout = '2025-04-21';
export const LATEST_LAYOUT: Layout = '2026-02-09';
export const PROCESSOR_TYPES: readonly ProcessorType[] = ['EXTRACT', 'CLASSIFY', 'SPLITTER'];

export function isLayout(v: unknown): v is Layout {
  return v === '2024-11-14' || v === '2025-04-21' || v === '2026-02-09';
}

/** Position in the chain (0 = oldest). */
export function layoutIndex(l: Layout): number {
  return l === '2024-11-14' ? 0 : l === '2025-04-21' ? 1 : 2;
}

/**
 * The config layout an API version (a release date) speaks: the newest layout not after it.
 * Versions before 2024-11-14 (2024-02-01, 2024-07-30) share the 2024-11-14 layout.
 */
export function layoutOfApiVersion(version: string): Layout {
  let out: Layout = LAYOUTS[0];
  for (const l of LAYOUTS) if (version >= l) out = l;
  return out;
}

/** INFERRED mappings (spec 3.2, 3.5): applied only when named (`--infer`). */
export type Inference = 'fixedPageLimit' | 'splitMethod';
export const INFERENCES: readonly Inference[] = ['fixedPageLimit', 'splitMethod'];

export function isProcessorType(v: unknown): v is ProcessorType {
  return v === 'EXTRACT' || v === 'CLASSIFY' || v === 'SPLITTER';
}

export interface MigrateOptions {
  /** Target layout. */
  to: Layout;
  /** Source layout; overrides detection (the config is treated as being in this layout). */
  from?: Layout;
  /** Processor type to use when neither the config nor its envelope names one. */
  type?: ProcessorType;
  /** Drop keys that have no counterpart in the target (and list them) instead of refusing. */
  allowLossy?: boolean;
  /**
   * Keep keys that no layout knows for the config's type (a key of a service version newer than
   * evalkit) as they are, instead of refusing the config (docs/migrate.md, "Unknown keys").
   */
  allowUnknown?: boolean;
  /** INFERRED mappings to apply (refused by default): fixedPageLimit -> pageRanges, low_latency <-> basic_precision. */
  infer?: readonly Inference[];
  /**
   * The layout of the API version in effect: settles a config that reads the same in several
   * layouts but would migrate differently (after --from and the envelope). Default: NEW_LAYOUT.
   */
  inEffect?: Layout;
  /**
   * Going up to 2026-02-09, convert a fields-form EXTRACT config to a JSON Schema and the
   * fields-form expected outputs of its items (in the same call) to the value form; refused by
   * default (docs/migrate.md, "Fields-form configs").
   */
  convertFields?: boolean;
  /** With convertFields: a converted config none of whose items is in the call is accepted (its processor has none). */
  noItems?: boolean;
}

/** A finding that does not stop the migration (schema validation, disagreeing types...). */
export interface Finding {
  /** RFC 6901 pointer into the document. */
  pointer: string;
  message: string;
  /** JSONL line of the record (the pointer is then inside that record). */
  line?: number;
}

/** A key left out of the migrated document because the target layout has no place for it. */
export interface Dropped {
  pointer: string;
  key: string;
  value: unknown;
  /** JSONL line of the record (the pointer is then inside that record). */
  line?: number;
}

/** The result of migrating one bare config. */
export interface MigrateResult {
  doc: unknown;
  /** Detected (or forced) source layout; null when the config has keys of neither layout. */
  from: Layout | null;
  to: Layout;
  /** null only when no key depends on the type, so the type did not matter. */
  type: ProcessorType | null;
  changed: boolean;
  /** RFC 6902 operations that turn the input into `doc`. */
  patch: Operation[];
  warnings: Finding[];
  dropped: Dropped[];
}

import type { Operation } from 'fast-json-patch';

/** The two config layouts: before and after the service's 2025-04-21 config change. */
export type Layout = '2024-11-14' | '2025-04-21';
export type ProcessorType = 'EXTRACT' | 'CLASSIFY' | 'SPLITTER';

export const LAYOUTS: readonly Layout[] = ['2024-11-14', '2025-04-21'];
export const OLD_LAYOUT: Layout = '2024-11-14';
export const NEW_LAYOUT: Layout = '2025-04-21';
export const PROCESSOR_TYPES: readonly ProcessorType[] = ['EXTRACT', 'CLASSIFY', 'SPLITTER'];

export function isLayout(v: unknown): v is Layout {
  return v === OLD_LAYOUT || v === NEW_LAYOUT;
}

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

/**
 * Processor config layouts (2024-11-14, 2025-04-21, 2026-02-09, a chain of steps): detection,
 * migration in both directions across any number of steps, splitter output conversion and
 * schema validation.
 */
export { migrateConfig, migrateDocument, migrateTree, summarizeFrom } from './document.js';
export { makePatch, sourcePointer } from './patch.js';
export type { DocumentResult, MigrationReport, SpotReport, TreeOptions, TreeResult } from './document.js';
export { convertSplitterOutput } from './splitter.js';
export { validateConfig } from './validate.js';
export { closest, layoutMembers } from './known-keys.js';
export { MAPPING, SPLITTER_OUTPUT_KEY } from './mapping.js';
export type { MappingRow } from './mapping.js';
export { MAPPING_2026 } from './mapping-2026-02-09.js';
export type { Row2026 } from './mapping-2026-02-09.js';
export { STEPS } from './steps.js';
export type { Step } from './steps.js';
export { expectedDown, expectedUp, splitId } from './step-2026-02-09.js';
export { collectFiles, migrateFiles, migrateText, isJsonlName } from './files.js';
export type { FileJob, FileResult, FileStatus, FileError, MigrateFilesOptions, TextOptions, TextResult } from './files.js';
export { INFERENCES, LATEST_LAYOUT, LAYOUTS, NEW_LAYOUT, OLD_LAYOUT, PROCESSOR_TYPES, isLayout, isProcessorType, layoutOfApiVersion } from './types.js';
export type { Dropped, Finding, Inference, Layout, MigrateOptions, MigrateResult, ProcessorType } from './types.js';
export type { ProcessorConfig20241114, ExtractConfig20241114, ClassifyConfig20241114, SplitterConfig20241114 } from './generated/config-2024-11-14.js';
export type {
  ProcessorConfig20250421,
  ExtractConfig20250421,
  ClassifyConfig20250421,
  SplitterConfig20250421,
  ExtractAdvancedOptions,
  ClassifyAdvancedOptions,
  SplitterAdvancedOptions,
  ChunkingOptions,
  PageRange,
  ExtractionField,
  ExtractionFieldEnumValue,
  ExtractionSchema,
  Classification,
} from './generated/config-2025-04-21.js';
export type { ProcessorConfig20260209, ExtractConfig20260209, ClassifyConfig20260209, SplitterConfig20260209 } from './generated/config-2026-02-09.js';

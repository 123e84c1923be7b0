/**
 * evalkit as a library. Every command's core is exported here as a plain async or pure function.
 */
export { EvalkitError, InputError, UsageError, InternalError } from './util/errors.js';
export type { ExitCode, Location } from './util/errors.js';
export { migrateConfig, migrateDocument, convertSplitterOutput, validateConfig, migrateText, migrateFiles, collectFiles, MAPPING as CONFIG_KEY_MAPPING } from './config/index.js';
export type { Layout, ProcessorType, MigrateOptions, MigrateResult, DocumentResult, Finding as ConfigFinding, Dropped as DroppedKey, FileResult as MigrateFileResult, MigrateFilesOptions, ProcessorConfig20241114, ProcessorConfig20250421, ExtractConfig20250421, ClassifyConfig20250421, SplitterConfig20250421 } from './config/index.js';

/**
 * Evaluation runs and the evaluation export: everything other modules and the CLI need from src/eval.
 */
export { runEvaluation } from './run.js';
export { runEvaluation2026, exportEvaluationSetRun, wrongRunIdKind } from './run-2026.js';
export { exportBatchRun, buildExport, listBatchRuns, exportFromRuns, waitForBatch, countItems } from './export.js';
export { pairRuns, exportItem, TIMEOUT_REASON } from './pair.js';
export { loadSet, loadItems, resolveVersion, pickVersion, normalizeVersionRef, prepareOverride } from './resolve.js';
export { writeExport, serializeExport, exportFormatFor, defaultExportPath } from './write.js';
export type { ExportFileFormat } from './write.js';
export { InterruptedError, DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_MS } from './types.js';
export type { EvalItem, Strategy, RunEvaluationOptions, EvalCallbacks, EvalProgress, EvalResult, EvalCounts, ExportBatchRunOptions } from './types.js';
export { readMetadataCsv, attachMetadata } from './metadata.js';
export type { MetadataTable, AttachResult } from './metadata.js';

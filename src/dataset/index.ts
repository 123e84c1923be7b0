/**
 * CSV -> typed rows -> validated items -> upload plan -> journaled upload.
 */
export { uploadDataset, DEFAULT_CHUNK_SIZE, DEFAULT_CONCURRENCY } from './upload.js';
export type { UploadOptions, UploadResult, UploadProgress, Tally, PlanSummary, Failure, RowChange } from './upload.js';
export { CLEAR_LIMIT } from './upload.js';
export { mergeItem, sameLabel, isEmptyLabel } from './merge.js';
export type { ItemMerge, LabelChange, LabelDecision, MergeOptions } from './merge.js';
export { readDatasetConfig } from './config.js';
export { downloadDataset, downloadInto, localName } from './download.js';
export type { DownloadOptions, DownloadResult, DownloadIntoOptions, DownloadIntoResult } from './download.js';
export { harvestReviewed, expectedFromReviewed, parseSince } from './harvest.js';
export type { HarvestOptions, HarvestResult, HarvestRow } from './harvest.js';
export { openCsv, detectDelimiter, parseDelimiterOption } from './csv.js';
export type { CsvRecord, CsvSource } from './csv.js';
export { planColumns, nodeAt } from './columns.js';
export type { Column, ColumnMap, ColumnPlan, ColumnRole } from './columns.js';
export { coerceCell, coerceDeep, parseEnumCell } from './cells.js';
export type { CoerceOptions } from './cells.js';
export { classCell, splitsCell, parseCompactSplits, matchClassification } from './classes.js';
export { parsePath, formatPath } from './paths.js';
export { DATASET_RULES, formatFinding } from './findings.js';
export type { RowFinding } from './findings.js';
export { neutralise, unneutralise, csvLine, rejectsPathFor } from './rejects.js';
export { replayJournal, journalPathFor, serviceKey, recordApplied, appliedKey } from './journal.js';
export type { JournalRecord, JournalState } from './journal.js';
export { planSync, digestOf } from './plan.js';
export type { PlannedRow, ExistingItem, RowAction, SyncPlan } from './plan.js';
export { contentIdentity, fileIdIdentity, uploadName, identityOfUploadName } from './files.js';
export { guardFetch, isCreateRequest, UNCERTAIN } from './guard.js';
export type { RequestStats } from './guard.js';

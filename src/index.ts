/**
 * evalkit as a library. Every command's core is exported here as a plain async or pure function.
 */
export { EvalkitError, InputError, UsageError, InternalError } from './util/errors.js';
export type { ExitCode, Location } from './util/errors.js';
export { createClient, clientFromEnv, ApiError, isApiError, paginate, collect } from './api/index.js';
export { verifyWebhook, signWebhook, startWebhookListener, WebhookVerificationError, isWebhookVerificationError, WEBHOOK_EVENT_TYPES, WEBHOOK_TIMESTAMP_HEADER, WEBHOOK_SIGNATURE_HEADER } from './api/index.js';
export type { WebhookEvent, WebhookEventType, WebhookErrorKind, VerifyWebhookOptions, WebhookListener, WebhookListenerOptions, CreateWorkflowRunInput, RunWorkflowsBatchInput, ListWorkflowRunsParams, UpdateWorkflowRunInput, WorkflowInput, WorkflowRunStatus } from './api/index.js';
export type { Client, ClientOptions, RequestOptions, RetryInfo, WaitOptions, Page, WorkflowRun, ProcessorRun, ProcessorRunStatus, Processor, ProcessorVersion, EvaluationSet, EvaluationSetItem, File as ServiceFile, BatchProcessorRun, BatchMetrics, ProcessorConfig, Output } from './api/index.js';
export { migrateConfig, migrateDocument, convertSplitterOutput, validateConfig, migrateText, migrateFiles, collectFiles, MAPPING as CONFIG_KEY_MAPPING } from './config/index.js';
export type { Layout, ProcessorType, MigrateOptions, MigrateResult, DocumentResult, Finding as ConfigFinding, Dropped as DroppedKey, FileResult as MigrateFileResult, MigrateFilesOptions, ProcessorConfig20241114, ProcessorConfig20250421, ExtractConfig20250421, ClassifyConfig20250421, SplitterConfig20250421 } from './config/index.js';
export { startSandbox } from './sandbox/index.js';
export type { SandboxOptions, SandboxHandle, SandboxEvent, WorkflowSpec, WebhooksSpec, DeliveryPolicy } from './sandbox/index.js';
export { computeReport, loadExport, loadBaseline, parseExport, parseGates, renderJson, renderMarkdown, renderJunit, renderHtml } from './report/index.js';
export type { Report, ComputeReportOptions, BaselineInput, GateSpec } from './report/index.js';
export { evaluateExport, matchExactString, matchFuzzyString, matchNumber, matchCurrency, matchDate, similarity, wilson, clusteredProportion, mcnemarExact, mcnemarMde, holm, benjaminiHochberg } from './metrics/index.js';
export { pairDocuments } from './report/index.js';
export { compareRuns, renderRunsHtml } from './report/index.js';
export type { MultiRun, RunInput } from './report/index.js';
export { historyEntry, detectRevision, appendHistory, readHistory, historySeries, renderHistoryText, renderHistoryHtml, sparkline } from './history/index.js';
export type { HistoryEntry, HistoryView, MetricSeries, StoredEntry } from './history/index.js';
export type { EvaluationExport, ExportItem } from './metrics/index.js';
export { deriveExpectedSchema, validateExpected, createExpectedValidator, fixExpected, expectedSchemaToTypeScript, RULES as EXPECTED_RULES, parseCurrency, parseNumber, parseDate, parseBoolean, parseEnum, isIsoDate, isCurrencyCode, ISO_4217_CODES } from './expected/index.js';
export type { Finding as ExpectedFinding, RuleId as ExpectedRuleId, Severity as ExpectedSeverity, ValidationResult as ExpectedValidationResult, ValidateOptions as ValidateExpectedOptions, DeriveOptions as DeriveExpectedSchemaOptions, FixResult as FixExpectedResult, Coerced, Currency, DateOrder } from './expected/index.js';
export { uploadDataset, readDatasetConfig, formatFinding as formatDatasetFinding, downloadDataset, harvestReviewed } from './dataset/index.js';
export type { DownloadOptions as DownloadDatasetOptions, DownloadResult as DownloadDatasetResult, HarvestOptions, HarvestResult, HarvestRow } from './dataset/index.js';
export { downloadInto } from './dataset/index.js';
export type { DownloadIntoOptions, DownloadIntoResult } from './dataset/index.js';
export { listProcessors, getProcessor, createProcessor, updateProcessor, publishProcessor, listVersions as listProcessorVersions, diffVersions as diffProcessorVersions, readProcessorConfig, diffConfigs } from './processors/index.js';
export type { ProcessorDetails, ConfigChange, VersionDiff, ProcessorConfigFile, ConfigDiff } from './processors/index.js';
export type { ConfigSource } from './expected/index.js';
export type { UploadOptions as UploadDatasetOptions, UploadResult as UploadDatasetResult, UploadProgress, Tally as UploadTally, PlanSummary as UploadPlanSummary, Failure as UploadFailure, RowFinding as DatasetFinding, ColumnMap as DatasetColumnMap, CoerceOptions as DatasetCoerceOptions, ExistingItem as DatasetExistingItem } from './dataset/index.js';
export { runEvaluation, exportBatchRun, writeExport, InterruptedError } from './eval/index.js';
export type { RunEvaluationOptions, EvalCallbacks, EvalProgress, EvalResult, EvalCounts, Strategy as EvalStrategy, ExportBatchRunOptions, ExportFileFormat } from './eval/index.js';
export { runDemo, headlineOf } from './demo/run.js';
export type { DemoOptions, DemoEvent, DemoResult, DemoDatasetResult, Headline } from './demo/run.js';
export { findDatasets } from './demo/datasets.js';
export type { DemoDataset, DatasetManifest } from './demo/datasets.js';

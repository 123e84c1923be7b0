/* Generated from schemas/export.schema.json by scripts/gen-types.mjs (npm run gen:types). Do not edit. */

/**
 * Format marker and version of the export file; an export without it is read as this version.
 *
 * This interface was referenced by `EvaluationExport`'s JSON-Schema
 * via the `definition` "format".
 */
export type ExportFormat = "evalkit-export/1";
/**
 * This interface was referenced by `EvaluationExport`'s JSON-Schema
 * via the `definition` "processorType".
 */
export type ExportProcessorType = "EXTRACT" | "CLASSIFY" | "SPLITTER";
/**
 * Status of the processor run; anything but PROCESSED counts as a failed run.
 *
 * This interface was referenced by `EvaluationExport`'s JSON-Schema
 * via the `definition` "runStatus".
 */
export type ExportRunStatus = "PENDING" | "PROCESSING" | "PROCESSED" | "FAILED" | "CANCELLED";

/**
 * An evaluation export: the processor that ran, the evaluation options and, per evaluation set item, the expected output next to the run's output. `evalkit report --from FILE` reads it with no network. JSON form: this object. JSONL form (for large sets, file name ending in .jsonl or .ndjson): the first line is an EvaluationExportHeader (this object without `items`), and every following non-empty line is one ExportItem.
 */
export interface EvaluationExport {
  format?: ExportFormat;
  processor: ExportProcessor;
  options?: ExportOptions;
  source?: ExportSource;
  service?: ExportServiceRun;
  items: ExportItem[];
}
/**
 * The processor and version whose runs produced the outputs.
 *
 * This interface was referenced by `EvaluationExport`'s JSON-Schema
 * via the `definition` "processor".
 */
export interface ExportProcessor {
  id: string;
  name: string;
  type: ExportProcessorType;
  /**
   * "draft" or a published version number such as "1.0".
   */
  version: string;
  versionId?: string;
  /**
   * The processor config in effect, in either config layout (2024-11-14 or 2025-04-21).
   */
  config: {
    [k: string]: unknown;
  };
}
/**
 * Evaluation options of the batch processor run. Field paths name leaf fields (`total`, `vendor.name`, `line_items[].amount`) or a whole subtree (`line_items`). Missing members (or missing options) mean none.
 *
 * This interface was referenced by `EvaluationExport`'s JSON-Schema
 * via the `definition` "options".
 */
export interface ExportOptions {
  fuzzyMatchFields?: string[];
  excludeFields?: string[];
}
/**
 * Where the export came from; informational, never needed to compute a report.
 *
 * This interface was referenced by `EvaluationExport`'s JSON-Schema
 * via the `definition` "source".
 */
export interface ExportSource {
  evaluationSetId?: string;
  batchProcessorRunId?: string;
  /**
   * ISO 8601 UTC timestamp.
   */
  exportedAt?: string;
}
/**
 * An evaluation set run of the service (API 2026-02-09, `GET /evaluation_set_runs/{id}`), recorded as the service answered it. `evalkit report` reconciles its metrics with its own (docs/report.md, Reconciliation) and refuses to score a run that ended FAILED or CANCELLED unless `--allow-partial`.
 *
 * This interface was referenced by `EvaluationExport`'s JSON-Schema
 * via the `definition` "service".
 */
export interface ExportServiceRun {
  evaluationSetRunId: string;
  status: ExportRunStatus;
  /**
   * The summary of what ran (`extractor`, `classifier` or `splitter`), as answered.
   */
  entity?: {
    [k: string]: unknown;
  };
  /**
   * The version that ran (`extractor_version`...), as answered.
   */
  entityVersion?: {
    [k: string]: unknown;
  };
  metrics?: ExportServiceMetrics;
  /**
   * The run's options as the service reports them.
   */
  options?: {
    fuzzyMatchFields?: string[];
    excludeFields?: string[];
    [k: string]: unknown;
  };
}
/**
 * `EvaluationSetRun.metrics` exactly as answered (spec 4.2); every member is optional, and members the spec does not name are kept.
 *
 * This interface was referenced by `EvaluationExport`'s JSON-Schema
 * via the `definition` "serviceMetrics".
 */
export interface ExportServiceMetrics {
  type?: ExportProcessorType;
  numFilesTotal?: number;
  numFilesProcessed?: number;
  numFiles?: number;
  numPages?: number;
  meanLatencyMs?: number;
  p50LatencyMs?: number;
  p90LatencyMs?: number;
  p95LatencyMs?: number;
  p99LatencyMs?: number;
  accuracy?: number;
  precision?: number;
  recall?: number;
  f1?: number;
  numSplitsExpected?: number;
  numSplitsPredicted?: number;
  numSplitsCorrect?: number;
  fieldMetrics?: {
    [k: string]: ExportServiceFieldMetric;
  };
  classificationMetrics?: {
    [k: string]: ExportServiceClassMetric;
  };
  [k: string]: unknown;
}
/**
 * This interface was referenced by `EvaluationExport`'s JSON-Schema
 * via the `definition` "serviceFieldMetric".
 */
export interface ExportServiceFieldMetric {
  countTotal?: number;
  countPresent?: number;
  countExpected?: number;
  countAccurate?: number;
  accuracy?: number;
  [k: string]: unknown;
}
/**
 * This interface was referenced by `EvaluationExport`'s JSON-Schema
 * via the `definition` "serviceClassMetric".
 */
export interface ExportServiceClassMetric {
  countExpected?: number;
  countPredicted?: number;
  countCorrect?: number;
  precision?: number;
  recall?: number;
  f1?: number;
  [k: string]: unknown;
}
/**
 * One evaluation set item with its run. A run that did not produce an output (failed, cancelled, timed out) has `output: null` and is scored as an empty prediction.
 *
 * This interface was referenced by `EvaluationExport`'s JSON-Schema
 * via the `definition` "item".
 */
export interface ExportItem {
  /**
   * Evaluation set item id; pairs items with a baseline (then file id, file name, content hash).
   */
  id: string;
  fileId: string;
  fileName?: string;
  /**
   * SHA-256 of the file's content in hex (at least its first 24 digits); pairs items with a baseline when ids, file ids and names do not. `dataset upload` puts the first 24 digits in the uploaded name (`inv.ek<hex>.pdf`), from where it is read when this member is absent.
   */
  contentHash?: string;
  /**
   * Number of pages of the file, when known; SPLITTER splits past it are left out with a warning.
   */
  pageCount?: number;
  /**
   * The file's type as the service names it (PDF, IMG, DOCX, EXCEL, CSV), when known; otherwise `--slice-by fileType` reads it from the file name's extension.
   */
  fileType?: string;
  /**
   * The item's metadata for slicing (`--slice-by metadata.KEY`): the CSV's `metadata.*` columns, joined in by `eval run/export --metadata data.csv`. Values are strings, numbers, booleans or null.
   */
  metadata?: {
    [k: string]: string | number | boolean | null;
  };
  /**
   * How long the run took, in milliseconds: its updatedAt less its createdAt once it ended (queueing included). At most 1e15 (some 30,000 years): a larger value is a broken timestamp, and sums of such values would overflow.
   */
  durationMs?: number;
  /**
   * Usage credits of the run (`usage.credits`), where the service reports them. At most 1e15: sums of larger values could overflow.
   */
  credits?: number;
  expectedOutput: {
    [k: string]: unknown;
  };
  output: {
    [k: string]: unknown;
  } | null;
  status: ExportRunStatus;
  runId?: string;
  failureReason?: string;
  failureMessage?: string;
}
/**
 * First line of the JSONL form: every member of the export except `items`.
 *
 * This interface was referenced by `EvaluationExport`'s JSON-Schema
 * via the `definition` "header".
 */
export interface EvaluationExportHeader {
  format?: ExportFormat;
  processor: ExportProcessor;
  options?: ExportOptions;
  source?: ExportSource;
  service?: ExportServiceRun;
}

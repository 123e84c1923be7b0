/**
 * The service's resource model (service-api.md part 2, filled in by service-facts.md).
 *
 * One zod schema per resource, plus the response envelopes the client parses. Every object
 * schema passes unknown members through: the service may add members at any time and a
 * client that drops them would lose data on a read-modify-write. Schemas are built once at
 * module load; the client never builds a schema per request.
 *
 * Timestamps stay strings (ISO 8601 UTC); the client does not reformat what it did not create.
 */
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Enumerations

export const processorTypeSchema = z.enum(['EXTRACT', 'CLASSIFY', 'SPLITTER']);
export type ProcessorType = z.infer<typeof processorTypeSchema>;

/** Processor run statuses (service-facts.md). */
export const processorRunStatusSchema = z.enum(['PENDING', 'PROCESSING', 'PROCESSED', 'FAILED', 'CANCELLED']);
export type ProcessorRunStatus = z.infer<typeof processorRunStatusSchema>;

/** Statuses after which a processor run no longer changes. */
export const TERMINAL_RUN_STATUSES: ReadonlySet<ProcessorRunStatus> = new Set(['PROCESSED', 'FAILED', 'CANCELLED']);

export const batchProcessorRunStatusSchema = z.enum(['PENDING', 'PROCESSING', 'PROCESSED', 'FAILED']);
export type BatchProcessorRunStatus = z.infer<typeof batchProcessorRunStatusSchema>;

export const batchProcessorRunSourceSchema = z.enum(['EVAL_SET', 'PLAYGROUND', 'STUDIO']);
export type BatchProcessorRunSource = z.infer<typeof batchProcessorRunSourceSchema>;

/** `major` bumps the first number of a version ("1.1" -> "2.0"), `minor` the second. */
export const releaseTypeSchema = z.enum(['major', 'minor']);
export type ReleaseType = z.infer<typeof releaseTypeSchema>;

// ---------------------------------------------------------------------------------------------
// Shared building blocks

const timestamp = z.string();
const optionalTimestamp = z.string().nullable().optional();
const metadataSchema = z.record(z.string(), z.unknown());

/**
 * A processor config (2.7). Its members depend on the layout (2024-11-14 or 2025-04-21) and
 * the type; src/config owns those shapes. Here: only `type`, everything else passes through.
 */
export const processorConfigSchema = z.looseObject({
  type: processorTypeSchema,
});
export type ProcessorConfig = z.infer<typeof processorConfigSchema>;

/**
 * A processor's output or an item's expected output. Its shape depends on the processor type
 * and config (EXTRACT `{value, metadata?}`, CLASSIFY `{id, type, confidence}`, SPLITTER
 * `{splits}`, legacy fields-array records); src/expected owns those rules.
 */
export const outputSchema = z.record(z.string(), z.unknown());
export type Output = z.infer<typeof outputSchema>;

/** A file as referenced from a run: `{object: 'file', id, name}`; run files carry at least name. */
export const fileRefSchema = z.looseObject({
  object: z.literal('file').optional(),
  id: z.string().optional(),
  name: z.string(),
});
export type FileRef = z.infer<typeof fileRefSchema>;

/** Every list endpoint: `nextPageToken` out (absent or null on the last page). */
const nextPageToken = z.string().nullable().optional();

// ---------------------------------------------------------------------------------------------
// 2.1 WorkflowRun

/**
 * Workflow run statuses. The spec shows only PROCESSED; the sandbox uses PROCESSING, PROCESSED
 * and FAILED, and the service's event names suggest NEEDS_REVIEW and REJECTED. The schema keeps
 * any string so that a status added by the service does not break the client.
 */
export const WORKFLOW_RUN_STATUSES = ['PENDING', 'PROCESSING', 'PROCESSED', 'FAILED', 'NEEDS_REVIEW', 'REJECTED', 'CANCELLED'] as const;
export type WorkflowRunStatus = (typeof WORKFLOW_RUN_STATUSES)[number];

/** Statuses after which a workflow run's automated processing has ended (waitFor stops there). */
export const SETTLED_WORKFLOW_RUN_STATUSES: ReadonlySet<string> = new Set(['PROCESSED', 'FAILED', 'NEEDS_REVIEW', 'REJECTED', 'CANCELLED']);

export const workflowRunOutputSchema = z.looseObject({
  object: z.literal('document_processor_run'),
  id: z.string(),
  processorId: z.string().optional(),
  processorVersionId: z.string().optional(),
  processorName: z.string().optional(),
  status: z.string().optional(),
  edited: z.boolean().optional(),
  type: processorTypeSchema.optional(),
  initialOutput: outputSchema.nullable().optional(),
  reviewedOutput: outputSchema.nullable().optional(),
  output: outputSchema.nullable().optional(),
});
export type WorkflowRunOutput = z.infer<typeof workflowRunOutputSchema>;

export const workflowRunSchema = z.looseObject({
  object: z.literal('workflow_run'),
  id: z.string(),
  name: z.string().nullable().optional(),
  status: z.string(),
  metadata: metadataSchema.nullable().optional(),
  files: z.array(fileRefSchema).optional(),
  initialRunAt: optionalTimestamp,
  reviewedBy: z.string().nullable().optional(),
  reviewedAt: optionalTimestamp,
  startTime: optionalTimestamp,
  endTime: optionalTimestamp,
  outputs: z.array(workflowRunOutputSchema).optional(),
  workflow: z
    .looseObject({ object: z.literal('workflow').optional(), id: z.string(), version: z.string().optional(), name: z.string().optional() })
    .optional(),
  batchId: z.string().nullable().optional(),
  failureReason: z.string().nullable().optional(),
  failureMessage: z.string().nullable().optional(),
});
export type WorkflowRun = z.infer<typeof workflowRunSchema>;

// ---------------------------------------------------------------------------------------------
// 2.2 ProcessorRun

export const editRecordSchema = z.looseObject({
  originalValue: z.unknown().optional(),
  editedValue: z.unknown().optional(),
  fieldType: z.string().optional(),
  notes: z.string().nullable().optional(),
});
export type EditRecord = z.infer<typeof editRecordSchema>;

export const processorRunSchema = z.looseObject({
  object: z.literal('document_processor_run'),
  id: z.string(),
  status: processorRunStatusSchema,
  /** null until the run is PROCESSED. */
  output: outputSchema.nullable(),
  initialOutput: outputSchema.nullable().optional(),
  reviewedOutput: outputSchema.nullable().optional(),
  failureReason: z.string().nullable().optional(),
  failureMessage: z.string().nullable().optional(),
  processorId: z.string(),
  processorVersionId: z.string().optional(),
  processorName: z.string().optional(),
  metadata: metadataSchema.nullable().optional(),
  reviewed: z.boolean().optional(),
  edited: z.boolean().optional(),
  edits: z.record(z.string(), editRecordSchema).nullable().optional(),
  type: processorTypeSchema.optional(),
  config: processorConfigSchema.optional(),
  files: z.array(fileRefSchema).optional(),
  url: z.string().optional(),
  /** Set on runs that belong to a batch (evaluation) run. */
  batchProcessorRunId: z.string().nullable().optional(),
  createdAt: optionalTimestamp,
  updatedAt: optionalTimestamp,
});
export type ProcessorRun = z.infer<typeof processorRunSchema>;

// ---------------------------------------------------------------------------------------------
// 2.4 ProcessorVersion (before Processor: the update response embeds the draft version)

export const processorVersionSchema = z.looseObject({
  object: z.literal('document_processor_version'),
  id: z.string(),
  processorId: z.string(),
  processorType: processorTypeSchema,
  description: z.string().nullable().optional(),
  /** "1.0", "1.1", "2.0"... or the literal "draft". */
  version: z.string(),
  config: processorConfigSchema,
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type ProcessorVersion = z.infer<typeof processorVersionSchema>;

// ---------------------------------------------------------------------------------------------
// 2.3 Processor

export const draftVersionSchema = z.looseObject({
  id: z.string(),
  version: z.string(),
  config: processorConfigSchema,
});
export type DraftVersion = z.infer<typeof draftVersionSchema>;

export const processorSchema = z.looseObject({
  object: z.literal('document_processor'),
  id: z.string(),
  name: z.string(),
  type: processorTypeSchema,
  createdAt: timestamp,
  updatedAt: timestamp,
  /** Present in the update response. */
  draftVersion: draftVersionSchema.optional(),
});
export type Processor = z.infer<typeof processorSchema>;

// ---------------------------------------------------------------------------------------------
// Evaluation sets (service-facts.md) and 2.5 EvaluationSetItem

export const evaluationSetSchema = z.looseObject({
  object: z.literal('evaluation_set'),
  id: z.string(),
  name: z.string(),
  description: z.string().nullable().optional(),
  processorId: z.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type EvaluationSet = z.infer<typeof evaluationSetSchema>;

export const evaluationSetItemSchema = z.looseObject({
  object: z.literal('evaluation_set_item'),
  id: z.string(),
  evaluationSetId: z.string(),
  fileId: z.string(),
  expectedOutput: outputSchema,
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type EvaluationSetItem = z.infer<typeof evaluationSetItemSchema>;

// ---------------------------------------------------------------------------------------------
// 2.6 File

export const filePageSchema = z.looseObject({
  pageNumber: z.number().int(),
  markdown: z.string().optional(),
  html: z.string().optional(),
});
export type FilePage = z.infer<typeof filePageSchema>;

/** Which parts are present depends on the rawText / markdown / html query flags. */
export const fileContentsSchema = z.looseObject({
  rawText: z.string().optional(),
  markdown: z.string().optional(),
  html: z.string().optional(),
  pages: z.array(filePageSchema).optional(),
});
export type FileContents = z.infer<typeof fileContentsSchema>;

export const parentSplitSchema = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  identifier: z.string().nullable().optional(),
  startPage: z.number().int().optional(),
  endPage: z.number().int().optional(),
});

export const fileSchema = z.looseObject({
  object: z.literal('file'),
  id: z.string(),
  name: z.string(),
  /** PDF, IMG, DOCX, EXCEL and CSV occur; the full list is not published, so any string. */
  type: z.string(),
  presignedUrl: z.string().nullable().optional(),
  parentFileId: z.string().nullable().optional(),
  contents: fileContentsSchema.nullable().optional(),
  metadata: z.looseObject({ parentSplit: parentSplitSchema.optional() }).nullable().optional(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type File = z.infer<typeof fileSchema>;

// ---------------------------------------------------------------------------------------------
// 2.8 BatchProcessorRun and its metrics (service-facts.md)

/** Per-field extraction metrics; `fieldMetrics` nests for object and array children. */
export interface FieldMetric {
  meanConfidence?: number | null;
  recallPerc?: number | null;
  precisionPerc?: number | null;
  fieldMetrics?: Record<string, FieldMetric>;
  [member: string]: unknown;
}
export const fieldMetricSchema: z.ZodType<FieldMetric> = z.lazy(() =>
  z.looseObject({
    meanConfidence: z.number().nullable().optional(),
    recallPerc: z.number().nullable().optional(),
    precisionPerc: z.number().nullable().optional(),
    fieldMetrics: z.record(z.string(), fieldMetricSchema).optional(),
  }),
);

/** Members depend on the processor type; all optional, unknown ones pass through. */
export const batchMetricsSchema = z.looseObject({
  // all types
  numFiles: z.number().optional(),
  numPages: z.number().optional(),
  meanRunTimeMs: z.number().nullable().optional(),
  // EXTRACT
  fieldMetrics: z.record(z.string(), fieldMetricSchema).optional(),
  arrayCardinalityMetrics: z.record(z.string(), z.unknown()).optional(),
  // CLASSIFY
  accuracyPerc: z.number().nullable().optional(),
  meanConfidence: z.number().nullable().optional(),
  distribution: z.record(z.string(), z.number()).optional(),
  accuracyPercByClassification: z.record(z.string(), z.number().nullable()).optional(),
  /** actual -> predicted -> count */
  confusionMatrix: z.record(z.string(), z.record(z.string(), z.number())).optional(),
  // SPLITTER (precisionPerc / recallPerc also used by EXTRACT field metrics)
  precisionPerc: z.number().nullable().optional(),
  recallPerc: z.number().nullable().optional(),
  numExpectedDocs: z.number().optional(),
  numPredictedDocs: z.number().optional(),
  numCorrectDocs: z.number().optional(),
});
export type BatchMetrics = z.infer<typeof batchMetricsSchema>;

export const batchRunOptionsSchema = z.looseObject({
  fuzzyMatchFields: z.array(z.string()).optional(),
  excludeFields: z.array(z.string()).optional(),
  clearPreProcessingCache: z.boolean().optional(),
});
export type BatchRunOptions = z.infer<typeof batchRunOptionsSchema>;

export const batchProcessorRunSchema = z.looseObject({
  object: z.literal('batch_processor_run'),
  id: z.string(),
  processorId: z.string(),
  processorVersionId: z.string(),
  processorName: z.string().optional(),
  status: batchProcessorRunStatusSchema,
  source: batchProcessorRunSourceSchema,
  sourceId: z.string(),
  runCount: z.number().int(),
  /** Sandbox extension: runs that have ended so far (progress while PROCESSING). */
  endedRunCount: z.number().int().optional(),
  options: batchRunOptionsSchema.nullable().optional(),
  /** Filled once the batch is PROCESSED; may be null or empty before. */
  metrics: batchMetricsSchema.nullable().optional(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type BatchProcessorRun = z.infer<typeof batchProcessorRunSchema>;

// ---------------------------------------------------------------------------------------------
// Response envelopes: `{success: true, <key>: resource}`; lists add `nextPageToken`.
// The key names are the wire contract shared with src/sandbox.

function single<K extends string, S extends z.ZodType>(key: K, schema: S) {
  return z.looseObject({ success: z.literal(true) }).extend({ [key]: schema } as { [P in K]: S });
}
function list<K extends string, S extends z.ZodType>(key: K, schema: S) {
  return z.looseObject({ success: z.literal(true), nextPageToken }).extend({ [key]: z.array(schema) } as { [P in K]: z.ZodArray<S> });
}

export const envelopes = {
  workflowRun: single('workflowRun', workflowRunSchema),
  workflowRunList: list('workflowRuns', workflowRunSchema),
  workflowRunCreate: z.looseObject({ success: z.literal(true), workflowRuns: z.array(workflowRunSchema) }),
  workflowBatch: z.looseObject({ success: z.literal(true), batchId: z.string() }),
  processorRun: single('processorRun', processorRunSchema),
  processorRunList: list('processorRuns', processorRunSchema),
  processor: single('processor', processorSchema),
  processorList: list('processors', processorSchema),
  /** `POST /processors/:id/publish` */
  processorVersionPublished: single('processorVersion', processorVersionSchema),
  /** `GET /processors/:id/versions/:versionId` (4.11 names the key `version`). */
  processorVersion: single('version', processorVersionSchema),
  processorVersionList: list('versions', processorVersionSchema),
  file: single('file', fileSchema),
  fileList: list('files', fileSchema),
  evaluationSet: single('evaluationSet', evaluationSetSchema),
  evaluationSetList: list('evaluationSets', evaluationSetSchema),
  evaluationSetItem: single('evaluationSetItem', evaluationSetItemSchema),
  evaluationSetItemList: list('evaluationSetItems', evaluationSetItemSchema),
  batchProcessorRun: single('batchProcessorRun', batchProcessorRunSchema),
  batchProcessorRunList: list('batchProcessorRuns', batchProcessorRunSchema),
  /** DELETE responses: `{success: true}` plus whatever the service adds (for example the id). */
  deleted: z.looseObject({ success: z.literal(true) }),
} as const;

/** Error body (part 7): `{success: false, error}`. */
export const errorBodySchema = z.looseObject({ success: z.literal(false).optional(), error: z.string() });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** One page of a list endpoint, as the paging helper sees it. */
export interface Page<T> {
  items: T[];
  nextPageToken: string | null;
}

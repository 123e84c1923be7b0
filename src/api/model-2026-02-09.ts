/**
 * The 2026-02-09 resource model (spec api-2026-02-09.md section 7): extractors, classifiers and
 * splitters, their versions and runs, batch runs, the `list` and deletion answers and the
 * `ApiError` body. One zod schema per shape; the three kinds share their builders, since the
 * SDK's types for them differ only in names.
 *
 * As in model.ts every object passes unknown members through. The members the spec types as
 * required (nullable or not) are required: the sandbox sends each of them on every answer
 * (test/e2e/processors-2026.test.ts, test/sandbox/runs-2026.test.ts), so an answer
 * without one is a broken answer, reported as such rather than read as null. Members the spec
 * types as optional stay optional. Configs pass through as records: src/config owns their layouts.
 */
import { z } from 'zod';
import type { ProcessorType } from './model.js';

/** The three kinds of 2026-02-09, each a route family. */
export type EntityKind = 'extractor' | 'classifier' | 'splitter';
export const ENTITY_KINDS: readonly EntityKind[] = ['extractor', 'classifier', 'splitter'];

/** Everything that differs between the three families: paths, object names, body keys. */
export interface KindRoutes {
  kind: EntityKind;
  type: ProcessorType;
  /** `/extractors` */
  base: string;
  /** `/extract_runs` */
  runs: string;
  /** `/extract`: the synchronous run. */
  sync: string;
  /** The run object's name: `extract_run`. */
  runObject: string;
  /** The version's parent id member and the runs' list filter: `extractorId`. */
  idKey: string;
  /** `cloneExtractorId` */
  cloneKey: string;
}

export const KIND_ROUTES: Readonly<Record<EntityKind, KindRoutes>> = {
  extractor: { kind: 'extractor', type: 'EXTRACT', base: '/extractors', runs: '/extract_runs', sync: '/extract', runObject: 'extract_run', idKey: 'extractorId', cloneKey: 'cloneExtractorId' },
  classifier: { kind: 'classifier', type: 'CLASSIFY', base: '/classifiers', runs: '/classify_runs', sync: '/classify', runObject: 'classify_run', idKey: 'classifierId', cloneKey: 'cloneClassifierId' },
  splitter: { kind: 'splitter', type: 'SPLITTER', base: '/splitters', runs: '/split_runs', sync: '/split', runObject: 'split_run', idKey: 'splitterId', cloneKey: 'cloneSplitterId' },
};

export function kindOfType(type: ProcessorType): EntityKind {
  return type === 'EXTRACT' ? 'extractor' : type === 'CLASSIFY' ? 'classifier' : 'splitter';
}

// ---------------------------------------------------------------------------------------------
// Building blocks

const timestamp = z.string();
const nullableString = z.string().nullable();
const record = z.record(z.string(), z.unknown());

/** `CreatedBy`: `{type: 'user', email}` or `{type: 'api_key', name}`; open for new kinds. */
export const createdBySchema = z.looseObject({ type: z.string() });

/** `FileSummary` (and the bare `File`, which adds contents and presignedUrl). */
export const fileSummarySchema = z.looseObject({
  object: z.literal('file'),
  id: z.string(),
  name: z.string(),
  type: z.string().nullable(),
  parentFileId: nullableString,
  /** `FileMetadata`: pageCount?, parentSplit? */
  metadata: record,
  createdAt: timestamp,
  updatedAt: timestamp,
});

/** A config of a version or run: its layout (2026-02-09, or the answer-only legacy `fields` form) is src/config's business. */
export const entityConfigSchema = record;

// ---------------------------------------------------------------------------------------------
// Extractors, classifiers, splitters and their versions

function versionSummary<K extends EntityKind>(kind: K) {
  return z.looseObject({
    object: z.literal(`${kind}_version` as `${K}_version`),
    id: z.string(),
    description: nullableString,
    /** "draft", "1.0", "1.1"... */
    version: z.string(),
    createdAt: timestamp,
    createdBy: createdBySchema.nullable(),
  }).extend({ [`${kind}Id`]: z.string() } as { [P in `${K}Id`]: z.ZodString });
}

function entitySummary<K extends EntityKind>(kind: K) {
  return z.looseObject({ object: z.literal(kind), id: z.string(), name: z.string(), createdAt: timestamp, updatedAt: timestamp });
}

function entitySchemas<K extends EntityKind>(kind: K) {
  const versionSum = versionSummary(kind);
  const version = versionSum.extend({ config: entityConfigSchema });
  const summary = entitySummary(kind);
  return { summary, entity: summary.extend({ draftVersion: version }), versionSummary: versionSum, version };
}

export const extractorSchemas = entitySchemas('extractor');
export const classifierSchemas = entitySchemas('classifier');
export const splitterSchemas = entitySchemas('splitter');
export const ENTITY_SCHEMAS = { extractor: extractorSchemas, classifier: classifierSchemas, splitter: splitterSchemas } as const;

/** Any kind's full object (`Extractor`, `Classifier`, `Splitter`): `object` names the kind. */
export type Entity2026 = z.infer<typeof extractorSchemas.entity> | z.infer<typeof classifierSchemas.entity> | z.infer<typeof splitterSchemas.entity>;
export type EntitySummary2026 = z.infer<typeof extractorSchemas.summary> | z.infer<typeof classifierSchemas.summary> | z.infer<typeof splitterSchemas.summary>;
export type EntityVersion2026 = z.infer<typeof extractorSchemas.version> | z.infer<typeof classifierSchemas.version> | z.infer<typeof splitterSchemas.version>;
export type EntityVersionSummary2026 = z.infer<typeof extractorSchemas.versionSummary> | z.infer<typeof classifierSchemas.versionSummary> | z.infer<typeof splitterSchemas.versionSummary>;

// ---------------------------------------------------------------------------------------------
// Runs

const runUsageSchema = z.looseObject({ credits: z.number() });

function runSchemas<K extends EntityKind>(kind: K) {
  const s = ENTITY_SCHEMAS[kind];
  const summary = z.looseObject({
    object: z.literal(KIND_ROUTES[kind].runObject),
    id: z.string(),
    /** PENDING, PROCESSING, PROCESSED, FAILED, CANCELLED; open: the service may add values. */
    status: z.string(),
    failureReason: nullableString,
    failureMessage: nullableString,
    metadata: record.nullable(),
    reviewed: z.boolean(),
    edited: z.boolean(),
    file: fileSummarySchema.nullable(),
    /** Extract runs only (a package run's files); classify and split runs have one `file`. */
    files: z.array(fileSummarySchema).nullable().optional(),
    parseRunId: nullableString,
    dashboardUrl: z.string(),
    usage: runUsageSchema.nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  }).extend({
    [kind]: s.summary.nullable(),
    [`${kind}Version`]: s.versionSummary.nullable(),
  } as { [P in K]: z.ZodNullable<(typeof s)['summary']> } & { [P in `${K}Version`]: z.ZodNullable<(typeof s)['versionSummary']> });
  const run = summary.extend({
    /** null until the run is PROCESSED. */
    output: record.nullable(),
    initialOutput: record.nullable(),
    reviewedOutput: record.nullable(),
    /** Extract runs only. */
    edits: z.record(z.string(), z.unknown()).nullable().optional(),
    config: entityConfigSchema,
  });
  return { summary, run };
}

export const RUN_SCHEMAS = { extractor: runSchemas('extractor'), classifier: runSchemas('classifier'), splitter: runSchemas('splitter') } as const;
export type Run2026 = z.infer<(typeof RUN_SCHEMAS)[EntityKind]['run']>;
export type RunSummary2026 = z.infer<(typeof RUN_SCHEMAS)[EntityKind]['summary']>;

/** `BatchRun`: a run batch (`/extract_runs/batch`...) as `/batch_runs/{id}` answers it. */
export const batchRunSchema = z.looseObject({
  object: z.literal('batch_run'),
  id: z.string(),
  status: z.string(),
  runCount: z.number().int(),
  createdAt: timestamp,
});
export type BatchRun = z.infer<typeof batchRunSchema>;

// ---------------------------------------------------------------------------------------------
// Answers common to every resource

/** `{object: "list", data, nextPageToken?}`: the token is absent on the last page. */
export function listOf<S extends z.ZodType>(item: S) {
  return z.looseObject({ object: z.literal('list'), data: z.array(item), nextPageToken: z.string().nullable().optional() });
}

/** A deletion's answer: `{id}`. */
export const deletedSchema = z.looseObject({ id: z.string() });

/** The error body of the new endpoints (`ApiError`). */
export const apiErrorBodySchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  requestId: z.string().optional(),
  docUrl: z.string().optional(),
});
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;

/** List schemas, built once. */
export const LISTS = {
  extractor: { entities: listOf(extractorSchemas.summary), versions: listOf(extractorSchemas.versionSummary), runs: listOf(RUN_SCHEMAS.extractor.summary) },
  classifier: { entities: listOf(classifierSchemas.summary), versions: listOf(classifierSchemas.versionSummary), runs: listOf(RUN_SCHEMAS.classifier.summary) },
  splitter: { entities: listOf(splitterSchemas.summary), versions: listOf(splitterSchemas.versionSummary), runs: listOf(RUN_SCHEMAS.splitter.summary) },
} as const;

// ---------------------------------------------------------------------------------------------
// Evaluation set runs (spec 4.1, 4.2, 7)

const num = z.number().optional();

/** `EvaluationSetRunFieldMetric`: every member optional (a ratio whose denominator is 0 is omitted). */
export const evaluationSetRunFieldMetricSchema = z.looseObject({ countTotal: num, countPresent: num, countExpected: num, countAccurate: num, accuracy: num });

/** `ClassificationMetric`. */
export const classificationMetricSchema = z.looseObject({ countExpected: num, countPredicted: num, countCorrect: num, precision: num, recall: num, f1: num });

const metricsBase = { numFilesTotal: num, numFilesProcessed: num, numFiles: num, numPages: num, meanLatencyMs: num, p50LatencyMs: num, p90LatencyMs: num, p95LatencyMs: num, p99LatencyMs: num };

/**
 * `EvaluationSetRunMetrics`, discriminated by `type` (EXTRACT, CLASSIFY, SPLITTER). Every member
 * is optional, as the SDK types it; a `type` the spec does not name passes through with the
 * common members typed.
 */
export const evaluationSetRunMetricsSchema = z.union([
  z.looseObject({ ...metricsBase, type: z.literal('EXTRACT'), accuracy: num, fieldMetrics: z.record(z.string(), evaluationSetRunFieldMetricSchema).optional() }),
  z.looseObject({ ...metricsBase, type: z.literal('CLASSIFY'), accuracy: num, classificationMetrics: z.record(z.string(), classificationMetricSchema).optional() }),
  z.looseObject({ ...metricsBase, type: z.literal('SPLITTER'), precision: num, recall: num, f1: num, numSplitsExpected: num, numSplitsPredicted: num, numSplitsCorrect: num }),
  // A type the spec does not name (open enums): the common members typed, the rest passed through.
  z.looseObject({ ...metricsBase, type: z.string().refine((t) => !['EXTRACT', 'CLASSIFY', 'SPLITTER'].includes(t)).optional() }),
]);
export type EvaluationSetRunMetrics = z.infer<typeof evaluationSetRunMetricsSchema>;

const anyEntitySummary = z.union([extractorSchemas.summary, classifierSchemas.summary, splitterSchemas.summary]);
const anyVersionSummary = z.union([extractorSchemas.versionSummary, classifierSchemas.versionSummary, splitterSchemas.versionSummary]);

/**
 * `EvaluationSetRun` (`bpr_` ids): starts PENDING; `metrics` carry progress while it runs. Every
 * member the spec requires is required, except `metrics`: an answer without them is still a run
 * (eval run records them as absent and warns) rather than an invalid response.
 */
export const evaluationSetRunSchema = z.looseObject({
  object: z.literal('evaluation_set_run'),
  id: z.string(),
  evaluationSetId: z.string(),
  entity: anyEntitySummary,
  entityVersion: anyVersionSummary,
  metrics: evaluationSetRunMetricsSchema.optional(),
  /** PENDING, PROCESSING, PROCESSED, FAILED, CANCELLED (BatchRunStatus); open. */
  status: z.string(),
  options: z.looseObject({ fuzzyMatchFields: z.array(z.string()).optional(), excludeFields: z.array(z.string()).optional() }),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type EvaluationSetRun = z.infer<typeof evaluationSetRunSchema>;

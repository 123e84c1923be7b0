/** Building processor runs (direct runs and the runs of an evaluation run share this). */
import type { Json, ProcessorType } from './core.js';
import { fileRef } from './serialize.js';
import type { FileRow, ProcessorRow, RunRow, VersionRow } from './store.js';

/** What the engine needs to process a run; stored beside the run, never served. */
export interface Job {
  /** `package`: a 2026-02-09 extract run over several files, read as one document (their pages in order). */
  input: { kind: 'text'; text: string } | { kind: 'file'; fileId: string } | { kind: 'package'; fileIds: string[] };
  versionLabel: string;
  evaluationSetItemId?: string;
  /** The item's expected output (stored layout) as it was when the run started (evaluationRuns.ts). */
  expected?: Json;
}

/** What a run keeps of its file. */
export type RunFile = Pick<FileRow, 'id' | 'name' | 'type' | 'num_pages' | 'created_at' | 'updated_at'>;

export interface NewRun {
  processor: ProcessorRow;
  version: VersionRow;
  /** Config in effect (2025-04-21): the version's or the request's override. */
  config: Json;
  input: { kind: 'text'; text: string } | { kind: 'file'; file: RunFile } | { kind: 'package'; files: RunFile[] };
  priority: number;
  metadata: Json;
  source: string;
  sourceId: string | null;
  batchId: string | null;
  itemId: string | null;
  /** The item's expected output, copied into the job (evaluation runs). */
  expected?: Json;
  now: string;
  /** From the sandbox's IdSource. */
  id: string;
}

export function buildRun(n: NewRun): RunRow {
  const id = n.id;
  const all = n.input.kind === 'file' ? [n.input.file] : n.input.kind === 'package' ? n.input.files : [];
  const file = all[0];
  const doc: Json = {
    object: 'document_processor_run',
    id,
    status: 'PROCESSING',
    output: null,
    initialOutput: null,
    reviewedOutput: null,
    failureReason: null,
    failureMessage: null,
    processorId: n.processor.id,
    processorVersionId: n.version.id,
    processorVersion: n.version.version,
    processorName: n.processor.name,
    metadata: n.metadata,
    reviewed: false,
    edited: false,
    edits: {},
    type: n.processor.type as ProcessorType,
    config: n.config,
    files: all.map(fileRef),
    // The official SDK's ProcessorRun: the sandbox never merges processors.
    mergedProcessors: [],
    priority: n.priority,
    source: n.source,
    sourceId: n.sourceId,
    batchProcessorRunId: n.batchId,
    ...(n.itemId ? { evaluationSetItemId: n.itemId } : {}),
    createdAt: n.now,
    updatedAt: n.now,
  };
  const job: Job = {
    input:
      n.input.kind === 'text' ? { kind: 'text', text: n.input.text }
      : n.input.kind === 'package' ? { kind: 'package', fileIds: n.input.files.map((f) => f.id) }
      : { kind: 'file', fileId: n.input.file.id },
    versionLabel: n.version.version,
    ...(n.itemId ? { evaluationSetItemId: n.itemId } : {}),
    ...(n.expected !== undefined ? { expected: n.expected } : {}),
  };
  return {
    seq: 0, id, processor_id: n.processor.id, processor_type: n.processor.type, processor_version_id: n.version.id, status: 'PROCESSING',
    priority: n.priority, source: n.source, source_id: n.sourceId, batch_id: n.batchId, item_id: n.itemId, file_id: file?.id ?? null,
    file_name: file?.name ?? null, created_at: n.now, updated_at: n.now, run_time_ms: null, num_pages: all.reduce((sum, f) => sum + f.num_pages, 0) || 1,
    doc: JSON.stringify(doc), job: JSON.stringify(job),
  };
}

/**
 * Stored rows -> resources as the caller's API version sees them. Configs and splitter outputs
 * are stored in the 2025-04-21 layout; older versions get their layout through the core.
 */
import { createHmac } from 'node:crypto';
import type { Ctx } from './context.js';
import type { Json, Layout, ProcessorType } from './core.js';
import { HUB } from './core.js';
import type { BatchRow, FileRow, ItemRow, ProcessorRow, SetRow, VersionRow } from './store.js';
import type { ApiVersion } from './versioning.js';
import { legacyConfig, mayHaveExtras } from './current.js';

export function processorJson(p: ProcessorRow): Json {
  return { object: 'document_processor', id: p.id, name: p.name, type: p.type, createdAt: p.created_at, updatedAt: p.updated_at };
}

/** A stored config as a legacy route shows it: the hub layout (or an older one), no 2026-02-09 members. */
export function configFor(ctx: Ctx, config: Json, layout: Layout, type: ProcessorType): Json {
  const hub = legacyConfig(config);
  return layout === HUB ? hub : ctx.core.fromHub(hub, layout, type);
}

export function versionJson(ctx: Ctx, v: VersionRow, type: ProcessorType, layout: Layout): Json {
  return {
    object: 'document_processor_version',
    id: v.id,
    processorId: v.processor_id,
    processorType: type,
    description: v.description,
    version: v.version,
    config: configFor(ctx, JSON.parse(v.config) as Json, layout, type),
    createdAt: v.created_at,
    updatedAt: v.updated_at,
  };
}

/** Splitter outputs use `splits` from 2025-04-21, `subDocumentClassifications` before. */
export function outputFor(ctx: Ctx, output: unknown, layout: Layout, type: string): unknown {
  if (type !== 'SPLITTER' || layout === HUB || output === null || typeof output !== 'object') return output;
  return ctx.core.splitterOutput(output as Json, layout);
}

/**
 * Members the official SDK's ProcessorRun requires and the spec leaves "not shown", for run
 * documents stored before the sandbox wrote them (data dirs of the first release).
 */
export function sdkRunMembers(run: Json): Json {
  if (Array.isArray(run.mergedProcessors)) return run;
  const created = run.createdAt as string;
  return {
    ...run,
    edits: run.edits ?? {},
    mergedProcessors: [],
    files: ((run.files as Json[] | undefined) ?? []).map((f) => ({ metadata: {}, createdAt: created, updatedAt: created, ...f })),
  };
}

/** A run as served to an older API version: configs and splitter outputs in its layout, plus `url`. */
export function runObject(ctx: Ctx, run: Json, layout: Layout): Json {
  const type = run.type as ProcessorType;
  const out: Json = { ...sdkRunMembers(run), url: `${ctx.baseUrl}/processor_runs/${String(run.id)}` };
  if (out.config && typeof out.config === 'object') out.config = legacyConfig(out.config as Json);
  if (layout !== HUB) {
    out.config = configFor(ctx, run.config as Json, layout, type);
    out.output = outputFor(ctx, run.output, layout, type);
    out.initialOutput = outputFor(ctx, run.initialOutput, layout, type);
    out.reviewedOutput = outputFor(ctx, run.reviewedOutput, layout, type);
  }
  return out;
}

/** `"url":"..."` appended before the closing brace of a stored run document. */
export function runSplice(ctx: Ctx, doc: string, id: string): string {
  if (mayHaveExtras(doc)) return JSON.stringify(runObject(ctx, JSON.parse(doc) as Json, HUB));
  if (!doc.includes('"mergedProcessors":')) return JSON.stringify({ ...sdkRunMembers(JSON.parse(doc) as Json), url: `${ctx.baseUrl}/processor_runs/${id}` });
  return `${doc.slice(0, -1)},"url":${JSON.stringify(`${ctx.baseUrl}/processor_runs/${id}`)}}`;
}

export interface FileFlags {
  rawText: boolean;
  markdown: boolean;
  html: boolean;
}

export function presignedUrl(ctx: Ctx, id: string): string {
  const expires = Math.floor(Date.now() / 1000) + ctx.presignTtlSeconds;
  return `${ctx.baseUrl}/files/${id}/content?expires=${expires}&signature=${signFile(ctx.secret, id, expires)}`;
}

export function signFile(secret: string, id: string, expires: number): string {
  return createHmac('sha256', secret).update(`${id}:${expires}`).digest('hex');
}

/**
 * File (2.6). Contents by flag (4.14): rawText -> contents.rawText; markdown -> contents.pages
 * [{pageNumber, markdown}] for PDF and IMG (and DOCX, which the service converts to PDF);
 * html -> contents.html for DOCX (where html goes is not shown; the sandbox puts it in contents).
 * Versions before 2024-12-23 see EXCEL files as CSV (part 9).
 */
export function fileJson(ctx: Ctx, f: FileRow, flags: FileFlags, version: ApiVersion): Json {
  const contents: Json = {};
  if (flags.rawText) contents.rawText = f.raw_text;
  if (flags.markdown && (f.type === 'PDF' || f.type === 'IMG' || f.type === 'DOCX')) {
    contents.pages = (JSON.parse(f.pages) as string[]).map((markdown, i) => ({ pageNumber: i + 1, markdown }));
  }
  if (flags.html && f.type === 'DOCX') contents.html = f.html ?? '';
  const out: Json = {
    object: 'file',
    id: f.id,
    name: f.name,
    type: f.type === 'EXCEL' && version < '2024-12-23' ? 'CSV' : f.type,
    presignedUrl: presignedUrl(ctx, f.id),
    contents,
    createdAt: f.created_at,
    updatedAt: f.updated_at,
  };
  if (f.parent_file_id) out.parentFileId = f.parent_file_id;
  out.metadata = fileMetadata(f);
  return out;
}

/** `metadata` (the SDK's FileMetadata): pageCount, and parentSplit for derived files. */
function fileMetadata(f: Pick<FileRow, 'num_pages' | 'metadata'>): Json {
  return { pageCount: f.num_pages, ...(f.metadata ? (JSON.parse(f.metadata) as Json) : {}) };
}

/** A file as runs list it: the spec's reference (object, id, name) with what the SDK's File_ requires. */
export function fileRef(f: Pick<FileRow, 'id' | 'name' | 'type' | 'num_pages' | 'created_at' | 'updated_at'>): Json {
  return { object: 'file', id: f.id, name: f.name, type: f.type, metadata: { pageCount: f.num_pages }, createdAt: f.created_at, updatedAt: f.updated_at };
}

export function setJson(s: SetRow): Json {
  return { object: 'evaluation_set', id: s.id, name: s.name, description: s.description, processorId: s.processor_id, createdAt: s.created_at, updatedAt: s.updated_at };
}

export function itemJson(ctx: Ctx, i: ItemRow, layout: Layout, type: string): Json {
  return {
    object: 'evaluation_set_item',
    id: i.id,
    evaluationSetId: i.evaluation_set_id,
    fileId: i.file_id,
    expectedOutput: outputFor(ctx, JSON.parse(i.expected), layout, type),
    createdAt: i.created_at,
    updatedAt: i.updated_at,
  };
}

export function batchJson(b: BatchRow): Json {
  return {
    object: 'batch_processor_run',
    id: b.id,
    processorId: b.processor_id,
    processorVersionId: b.processor_version_id,
    processorName: b.processor_name,
    status: b.status,
    source: b.source,
    sourceId: b.source_id,
    runCount: b.run_count,
    // Extension: how many runs have ended (PROCESSED or FAILED), so waiting clients can show progress.
    endedRunCount: b.done_count,
    options: JSON.parse(b.options),
    metrics: JSON.parse(b.metrics),
    createdAt: b.created_at,
    updatedAt: b.updated_at,
  };
}

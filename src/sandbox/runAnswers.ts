/**
 * Stored processor runs as API version 2026-02-09 shows them (spec 7): `ExtractRun`,
 * `ClassifyRun`, `SplitRun` and their summaries, and `BatchRun`. A run is stored once, as its
 * 2025-04-21 document (serialize.ts serves that one to the legacy routes); this module renders the
 * same row for the 2026-02-09 run routes: `extractor` + `extractorVersion` summaries instead of
 * `processorId`/`processorName`, `file` + `files` as FileSummary, the config in the 2026-02-09
 * layout (current.ts), citations in the 2026-02-09 shape (engine/citations.ts), `dashboardUrl`.
 */
import type { Ctx } from './context.js';
import type { Json, ProcessorType } from './core.js';
import { currentFromStored, fileSummary } from './current.js';
import { citation20260209, citationFrom20250421 } from './engine/citations.js';
import { KINDS, type Kind } from './kinds.js';
import { versionCreatedBy } from './meta.js';
import type { Job } from './runs.js';
import type { FileRow, ProcessorRow, RunRow, VersionRow } from './store.js';

/** Rows looked up once per answer (a list page names the same processor on every run). */
export class Lookups {
  private readonly processors = new Map<string, ProcessorRow | undefined>();
  private readonly versions = new Map<string, VersionRow | undefined>();
  private readonly summaries = new Map<string, Json>();
  private readonly files = new Map<string, FileRow | undefined>();
  constructor(private readonly ctx: Ctx) {}

  processor(id: string): ProcessorRow | undefined {
    if (!this.processors.has(id)) this.processors.set(id, id ? this.ctx.store.byId<ProcessorRow>('processors', id) : undefined);
    return this.processors.get(id);
  }

  version(id: string): VersionRow | undefined {
    if (!this.versions.has(id)) this.versions.set(id, id ? this.ctx.store.byId<VersionRow>('processor_versions', id) : undefined);
    return this.versions.get(id);
  }

  /** The version's summary, rendered once per answer. */
  versionSummary(kind: Kind, v: VersionRow): Json {
    let s = this.summaries.get(v.id);
    if (!s) this.summaries.set(v.id, (s = versionSummary(this.ctx, kind, v)));
    return s;
  }

  file(id: string): FileRow | undefined {
    if (!this.files.has(id)) {
      const row = this.ctx.store.st('SELECT seq, id, name, type, num_pages, parent_file_id, metadata, created_at, updated_at FROM files WHERE id = ?').get(id) as FileRow | undefined;
      this.files.set(id, row);
    }
    return this.files.get(id);
  }
}

/** `ExtractorSummary` / `ClassifierSummary` / `SplitterSummary`, wherever 2026-02-09 shows one (runs, entity lists, sets). */
export function entitySummary(kind: Kind, p: ProcessorRow): Json {
  return { object: kind.noun, id: p.id, name: p.name, createdAt: p.created_at, updatedAt: p.updated_at };
}

/** `ExtractorVersionSummary`...; `createdBy` the token that published the version (meta.ts). */
export function versionSummary(ctx: Ctx, kind: Kind, v: VersionRow): Json {
  return {
    object: `${kind.noun}_version`, id: v.id, description: v.description, version: v.version, [kind.parentKey]: v.processor_id,
    createdAt: v.created_at, createdBy: versionCreatedBy(ctx, v),
  };
}

type FileRef = { id: string; name: string; type: string; metadata?: Json; createdAt: string; updatedAt: string };

/** A run's file as FileSummary: the file's row while it exists, else what the run kept of it. */
function runFile(look: Lookups, ref: FileRef): Json {
  const row = look.file(ref.id);
  if (row) return fileSummary(row);
  return { object: 'file', id: ref.id, name: ref.name, type: ref.type, parentFileId: null, metadata: ref.metadata ?? {}, createdAt: ref.createdAt, updatedAt: ref.updatedAt };
}

/**
 * An EXTRACT output with its citations in the 2026-02-09 shape. A package run reads its files as
 * one document, so a stored page number counts through the package: it is turned back into the
 * file it is on (`fileId`) and the page within that file.
 */
export function extractOutput2026(output: unknown, files: FileRef[]): unknown {
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return output;
  const { metadata } = output as { metadata?: unknown };
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return output;
  const locate = (page: number): { fileId?: string; page: number } => {
    let first = 1;
    for (const f of files) {
      const count = Number((f.metadata as { pageCount?: unknown } | undefined)?.pageCount) || 1;
      if (page < first + count) return { fileId: f.id, page: page - first + 1 };
      first += count;
    }
    return { page };
  };
  const converted = Object.entries(metadata as Record<string, unknown>).map(([path, entry]): [string, unknown] => {
    if (entry === null || typeof entry !== 'object' || !Array.isArray((entry as Json).citations)) return [path, entry];
    const citations = ((entry as Json).citations as unknown[]).map((c) => {
      const n = citationFrom20250421(c);
      if (!n) return c;
      const at = locate(n.page);
      return citation20260209({ ...n, page: at.page }, at.fileId);
    });
    return [path, { ...(entry as Json), citations }];
  });
  // fromEntries: field paths are the user's keys (`__proto__` included), kept as own members.
  return { ...(output as Json), metadata: Object.fromEntries(converted) };
}

/** The full run (`full`) or its summary (no outputs, no config), per spec 7. */
export function runAnswer(ctx: Ctx, row: Pick<RunRow, 'id' | 'processor_id' | 'processor_version_id' | 'processor_type' | 'status' | 'doc' | 'job'>, full: boolean, look = new Lookups(ctx)): Json {
  const kind = KINDS[row.processor_type as ProcessorType];
  const doc = JSON.parse(row.doc) as Json;
  const job = JSON.parse(row.job) as Job;
  const p = look.processor(row.processor_id);
  const v = look.version(row.processor_version_id);
  const refs = ((doc.files as FileRef[] | undefined) ?? []);
  const files = refs.map((f) => runFile(look, f));
  const usage = doc.usage !== null && typeof doc.usage === 'object' ? (doc.usage as Json) : null;
  const out: Json = { object: kind.run.object, id: row.id, status: row.status };
  if (full) {
    const output = (o: unknown): unknown => (o === undefined ? null : kind.type === 'EXTRACT' ? extractOutput2026(o, refs) : o);
    Object.assign(out, { output: output(doc.output), initialOutput: output(doc.initialOutput), reviewedOutput: output(doc.reviewedOutput) });
  }
  out[kind.noun] = p ? entitySummary(kind, p) : null;
  out[`${kind.noun}Version`] = v && p ? look.versionSummary(kind, v) : null;
  Object.assign(out, {
    failureReason: doc.failureReason ?? null,
    failureMessage: doc.failureMessage ?? null,
    metadata: doc.metadata ?? null,
    reviewed: doc.reviewed === true,
    edited: doc.edited === true,
  });
  if (full && kind.type === 'EXTRACT') out.edits = doc.edits ?? null;
  if (full) out.config = currentFromStored(ctx, doc.config as Json, kind.type);
  // A package run has files but no single `file`.
  out.file = job.input.kind === 'package' ? null : (files[0] ?? null);
  if (kind.type === 'EXTRACT') out.files = files;
  Object.assign(out, {
    parseRunId: null,
    dashboardUrl: `${ctx.baseUrl}/${kind.run.route}/${row.id}`,
    usage: usage && (full ? usage : { credits: usage.credits }),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  });
  return out;
}

/**
 * `BatchRun` of a run batch, from its runs (the batch has no row of its own): PROCESSING while a
 * run is PENDING or PROCESSING; then PROCESSED when at least one run was processed, else FAILED
 * when one failed, else CANCELLED. `runCount` counts the batch's runs that still exist.
 */
export function batchRunAnswer(id: string, counts: Array<{ status: string; n: number; created: string }>): Json {
  const has = (s: string): boolean => counts.some((c) => c.status === s && c.n > 0);
  const status = has('PENDING') || has('PROCESSING') ? 'PROCESSING' : has('PROCESSED') ? 'PROCESSED' : has('FAILED') ? 'FAILED' : 'CANCELLED';
  const runCount = counts.reduce((sum, c) => sum + c.n, 0);
  const createdAt = counts.map((c) => c.created).sort()[0];
  return { object: 'batch_run', id, status, runCount, createdAt };
}

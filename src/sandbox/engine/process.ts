/**
 * One run through the engine: wait the run's processing time, gather its input and truth, ask
 * the engine, then write the result (and, for the last run of a batch, the batch's metrics; for a
 * workflow step, the workflow run's progress and its next step) in one transaction. A run whose
 * input is gone fails with a reason instead of hanging.
 */
import { createHash } from 'node:crypto';
import type { Ctx } from '../context.js';
import { HUB, type Json, type ProcessorType } from '../core.js';
import { nowIso } from '../ids.js';
import { computeMetrics, type EvaluatedRun } from '../metrics.js';
import type { Job } from '../runs.js';
import type { BatchRow, FileRow, RunRow } from '../store.js';
import { endStatus, expectedOf, scoreEvaluation, storeEvaluationMetrics } from '../evaluationRuns.js';
import { advanceWorkflowRun, WORKFLOW_SOURCE, type Advanced } from '../workflows/runs.js';
import type { EngineInput, EngineResult, RecordedFile } from './types.js';
import { prepareFile } from '../runOps.js';
import { splitFiles } from './splitFiles.js';
import { pdfLayout, textLayout, type PageLayout } from './citations.js';

export function makeWorker(ctx: () => Ctx): (id: string, started: number) => Promise<void> {
  return async (id, started) => {
    const c = ctx();
    // An evaluation started PENDING is PROCESSING from the moment the engine takes up its first item.
    if (!c.scheduler.isClosed) c.store.markBatchStarted(id, nowIso());
    if (!(await c.scheduler.sleep(c.scheduler.runDelay()))) return;
    if (!c.coreLoaded) await c.ready;
    const row = c.store.byId<RunRow>('processor_runs', id);
    if (!row || row.status !== 'PROCESSING') return;
    const doc = JSON.parse(row.doc) as Json;
    const layout = row.processor_type === 'EXTRACT' ? await layoutOf(c, row) : undefined;
    if (c.scheduler.isClosed) return;
    const { result, pages, parent } = runEngine(c, row, doc, layout);
    if (c.scheduler.isClosed) return;
    const now = nowIso();
    const label = result.label;
    doc.metadata = { ...(doc.metadata as Json | null), evalkitSandbox: label };
    doc.updatedAt = now;
    const derived: Array<{ row: FileRow; bytes: Buffer }> = [];
    if (result.ok) {
      let output = row.processor_type === 'SPLITTER' ? c.core.splitterOutput(result.output, HUB) : result.output;
      if (row.processor_type === 'SPLITTER') {
        if (label.engine === 'replay') {
          const replayed = await replayedSplitFiles(c, output, result.derivedFiles ?? [], parent, now);
          output = replayed.output;
          derived.push(...replayed.files);
          if (replayed.rebuilt) label.derivedFiles = replayed.rebuilt;
          if (c.scheduler.isClosed) return;
        }
        const own = splitFiles(c, output, pages, parent, now);
        output = own.output;
        derived.push(...own.files.map((f) => ({ row: f, bytes: Buffer.from(f.raw_text, 'utf8') })));
      }
      doc.status = 'PROCESSED';
      doc.output = output;
      doc.initialOutput = output;
      doc.usage = { credits: creditsFor(row.processor_type, pages.length) };
    } else {
      doc.status = 'FAILED';
      doc.failureReason = result.reason;
      doc.failureMessage = result.message;
    }
    const runTimeMs = Math.round(performance.now() - started);
    const [batch, step] = c.store.tx((): [BatchRow | undefined, Advanced | undefined] => {
      for (const f of derived) c.store.insertFile(f.row, f.bytes);
      return [
        c.store.finishRun(id, doc.status as string, JSON.stringify(doc), runTimeMs, now, (b) => finishBatch(c, b)),
        row.source === WORKFLOW_SOURCE ? advanceWorkflowRun(c, row, doc, now) : undefined,
      ];
    });
    c.events.emit({ type: result.ok ? 'processor_run.processed' : 'processor_run.failed', runId: id });
    if (batch) c.events.emit({ type: batch.status === 'PROCESSED' ? 'batch_processor_run.processed' : 'batch_processor_run.failed', batchProcessorRunId: batch.id });
    if (step?.next) c.scheduler.enqueue(step.next.id, step.next.priority);
    if (step?.stepEvent) c.events.emit(step.stepEvent);
    if (step?.event) c.events.emit(step.event);
  };
}

/**
 * The splits of a replayed splitter output name the service's derived files (`fileId`), which
 * this sandbox does not have. A split whose file the recording holds (`derivedFiles`, record mode)
 * gets a file of this sandbox with the recorded name and bytes, so that it can be retrieved and
 * run on, and a run on it matches the recorded one by content hash. Any other loses its
 * `fileId`: splitFiles then makes a text file of its pages, as for simulated splits, and
 * `rebuilt` says so (for the run's `metadata.evalkitSandbox`).
 */
async function replayedSplitFiles(c: Ctx, output: Json, recorded: RecordedFile[], parent: Pick<FileRow, 'id' | 'name'> | undefined, now: string): Promise<{ output: Json; files: Array<{ row: FileRow; bytes: Buffer }>; rebuilt?: string }> {
  const splits = Array.isArray(output.splits) ? (output.splits as Json[]) : [];
  const files: Array<{ row: FileRow; bytes: Buffer }> = [];
  const made = new Map<string, string>();
  const missing: string[] = [];
  const out: Json[] = [];
  for (const s of splits) {
    if (typeof s.fileId !== 'string') {
      out.push(s);
      continue;
    }
    const upstreamId = s.fileId;
    let local = made.get(upstreamId);
    const rec = local ? undefined : recorded.find((f) => f.fileId === upstreamId);
    if (rec) {
      try {
        const row: FileRow = {
          ...(await prepareFile(c, rec.name, rec.bytes, 'derived file')),
          parent_file_id: parent?.id ?? null,
          metadata: parent ? JSON.stringify({ parentSplit: { id: s.id, type: s.type, identifier: s.identifier ?? '', startPage: s.startPage, endPage: s.endPage } }) : null,
          created_at: now,
          updated_at: now,
        };
        files.push({ row, bytes: rec.bytes });
        local = row.id;
        made.set(upstreamId, local);
      } catch {
        local = undefined; // an unreadable recorded file: rebuilt as text below
      }
    }
    if (local) out.push({ ...s, fileId: local });
    else {
      missing.push(upstreamId);
      const { fileId: _gone, ...rest } = s;
      out.push(rest);
    }
  }
  const rebuilt = missing.length
    ? `the recording has no derivedFiles for ${missing.join(', ')} (recorded by an older evalkit, or not fetched): their splits are text files of this sandbox made from the input's pages, and runs on them are not in the recording`
    : undefined;
  return { output: { ...output, splits: out }, files, ...(rebuilt ? { rebuilt } : {}) };
}

/** Where the run's text is on its pages, for the engine's citations: a PDF's text positions, a text file's lines. */
async function layoutOf(c: Ctx, row: RunRow): Promise<PageLayout[] | undefined> {
  const job = JSON.parse(row.job) as Job;
  if (job.input.kind === 'text') return textLayout([job.input.text]);
  if (job.input.kind === 'package') {
    // The package read as one document: each file's pages in order (a file without a layout keeps
    // its pages' places, empty, so that page numbers still count through the package).
    const out: PageLayout[] = [];
    for (const id of job.input.fileIds) {
      const pages = (c.store.st('SELECT num_pages FROM files WHERE id = ?').get(id) as { num_pages: number } | undefined)?.num_pages ?? 0;
      const own = await fileLayout(c, id);
      for (let i = 0; i < pages; i++) out.push(own?.[i] ?? { width: 1, height: 1, runs: [] });
    }
    return out;
  }
  return fileLayout(c, job.input.fileId);
}

async function fileLayout(c: Ctx, fileId: string): Promise<PageLayout[] | undefined> {
  const file = c.store.st('SELECT type, pages FROM files WHERE id = ?').get(fileId) as Pick<FileRow, 'type' | 'pages'> | undefined;
  if (!file) return undefined;
  if (file.type === 'TXT' || file.type === 'CSV') return textLayout(JSON.parse(file.pages) as string[]);
  if (file.type !== 'PDF') return undefined;
  const bytes = c.store.fileContent(fileId);
  return bytes ? pdfLayout(bytes) : undefined;
}

function runEngine(c: Ctx, row: RunRow, doc: Json, layout?: PageLayout[]): { result: EngineResult; pages: string[]; parent?: Pick<FileRow, 'id' | 'name'> } {
  const job = JSON.parse(row.job) as Job;
  let text: string;
  let pages: string[];
  let sha256: string;
  let fileName: string | null = null;
  let splitOf: EngineInput['splitOf'];
  if (job.input.kind === 'text') {
    text = job.input.text;
    pages = [text];
    sha256 = createHash('sha256').update(text).digest('hex');
  } else if (job.input.kind === 'package') {
    const stmt = c.store.st('SELECT id, name, sha256, raw_text, pages FROM files WHERE id = ?');
    const files = job.input.fileIds.map((id) => stmt.get(id) as Pick<FileRow, 'id' | 'name' | 'sha256' | 'raw_text' | 'pages'> | undefined);
    const gone = job.input.fileIds.find((_, i) => !files[i]);
    if (gone) return { pages: [], result: { ok: false, reason: 'FILE_NOT_FOUND', message: `file ${gone} was deleted before the run was processed`, label: { engine: c.engine.spec } } };
    const present = files as Array<Pick<FileRow, 'id' | 'name' | 'sha256' | 'raw_text' | 'pages'>>;
    text = present.map((f) => f.raw_text).join('\n\n');
    pages = present.flatMap((f) => JSON.parse(f.pages) as string[]);
    sha256 = createHash('sha256').update(present.map((f) => f.sha256).join(',')).digest('hex');
    fileName = present[0]?.name ?? null;
  } else {
    const file = c.store.st('SELECT id, name, sha256, raw_text, pages, parent_file_id FROM files WHERE id = ?').get(job.input.fileId) as Pick<FileRow, 'id' | 'name' | 'sha256' | 'raw_text' | 'pages' | 'parent_file_id'> | undefined;
    if (!file) return { pages: [], result: { ok: false, reason: 'FILE_NOT_FOUND', message: `file ${job.input.fileId} was deleted before the run was processed`, label: { engine: c.engine.spec } } };
    text = file.raw_text;
    pages = JSON.parse(file.pages) as string[];
    sha256 = file.sha256;
    fileName = file.name;
    if (file.parent_file_id) splitOf = { parentFileId: file.parent_file_id };
  }
  // An evaluation's item run is told the copy of its expected output taken at its start (evaluationRuns.ts).
  let expected: Json | undefined;
  let truthKey: string | undefined;
  if (job.evaluationSetItemId) {
    expected = expectedOf(c, row);
    truthKey = job.evaluationSetItemId;
  } else if (job.input.kind === 'file') {
    const item = c.store.itemForFile(job.input.fileId, row.processor_id);
    if (item) ({ expected, truthKey } = { expected: JSON.parse(item.expected) as Json, truthKey: item.id });
  }
  const input: EngineInput = {
    runId: row.id,
    processorId: row.processor_id,
    processorType: row.processor_type as ProcessorType,
    versionLabel: job.versionLabel,
    versionId: row.processor_version_id,
    config: doc.config as Json,
    text,
    pages,
    layout,
    fileName,
    sha256,
    expected,
    truthKey: truthKey ?? sha256,
    ...(splitOf ? { splitOf } : {}),
  };
  const parent = job.input.kind === 'file' ? { id: job.input.fileId, name: fileName ?? '' } : undefined;
  try {
    return { result: c.engine.run(input), pages, parent };
  } catch {
    return { pages, parent, result: { ok: false, reason: 'ENGINE_ERROR', message: 'the sandbox engine could not process this run', label: { engine: c.engine.spec } } };
  }
}

/**
 * Plausible usage credits of a processed run (the SDK's `usage.credits`; the spec shows none):
 * per page, 1 for EXTRACT, 0.5 for SPLITTER, 0.25 for CLASSIFY, at least one page.
 */
export function creditsFor(type: string, pages: number): number {
  const perPage = type === 'EXTRACT' ? 1 : type === 'SPLITTER' ? 0.5 : 0.25;
  return perPage * Math.max(1, pages);
}

export function finishBatch(c: Ctx, b: BatchRow): { status: string; metrics: string } {
  const runs = c.store.runsOfBatch(b.id);
  const evaluated: EvaluatedRun[] = runs.map((r) => {
    const doc = JSON.parse(r.doc) as Json;
    return {
      status: r.status,
      expected: expectedOf(c, r),
      output: (doc.output as Json | null) ?? null,
      runTimeMs: r.run_time_ms,
      numPages: r.num_pages,
    };
  });
  const opts = JSON.parse(b.options) as { fuzzyMatchFields?: string[]; excludeFields?: string[] };
  const metrics = computeMetrics(runs[0]?.processor_type as ProcessorType, evaluated, opts);
  // The 2026-02-09 figures too: fixed from here on, served as stored (evaluationRuns.ts).
  storeEvaluationMetrics(c, b, scoreEvaluation(c, b, runs));
  return { status: endStatus(runs), metrics: JSON.stringify(metrics) };
}

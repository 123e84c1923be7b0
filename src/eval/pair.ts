/**
 * Pairs processor runs with evaluation set items and turns each pair into an export item.
 * A run names its item in `metadata.evaluationSetItemId` (evalkit's per-item runs and the
 * sandbox's batch runs do); runs that do not are paired by file id, one run per item.
 */
import { TERMINAL_RUN_STATUSES, type ProcessorRun } from '../api/index.js';
import type { ExportItem, ExportRunStatus } from '../metrics/generated/export.js';
import type { EvalItem } from './types.js';

export interface Paired {
  items: ExportItem[];
  /** Runs that match no item of the set (the item was deleted since, or belongs elsewhere). */
  orphanRuns: ProcessorRun[];
  /** Items that no run matched. */
  missing: EvalItem[];
}

/** Where a run says its item is: metadata first, then the sandbox's top-level member. */
export function itemIdOf(run: ProcessorRun): string | undefined {
  const fromMeta = run.metadata?.evaluationSetItemId;
  if (typeof fromMeta === 'string' && fromMeta !== '') return fromMeta;
  const top = (run as Record<string, unknown>).evaluationSetItemId;
  return typeof top === 'string' && top !== '' ? top : undefined;
}

export function fileIdOf(run: ProcessorRun): string | undefined {
  const id = run.files?.[0]?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** Earlier first; the run closest to the evaluation's start wins when an item has several. */
function byCreated(a: ProcessorRun, b: ProcessorRun): number {
  return String(a.createdAt ?? '').localeCompare(String(b.createdAt ?? '')) || a.id.localeCompare(b.id);
}

export function exportItem(item: EvalItem, run: ProcessorRun | undefined, failure?: { reason: string; message: string }): ExportItem {
  const out: ExportItem = {
    id: item.id,
    fileId: item.fileId,
    expectedOutput: item.expectedOutput,
    output: null,
    status: 'FAILED',
  };
  if (run) {
    const name = run.files?.[0]?.name;
    if (typeof name === 'string' && name !== '') out.fileName = name;
    out.runId = run.id;
    out.status = run.status as ExportRunStatus;
    // Only a PROCESSED run's output counts; anything else is scored as an empty prediction.
    out.output = run.status === 'PROCESSED' ? (run.output ?? null) : null;
    if (run.status === 'PROCESSED' && out.output === null) {
      out.status = 'FAILED';
      out.failureReason = 'NO_OUTPUT';
      out.failureMessage = 'the run is PROCESSED but has no output';
    }
    Object.assign(out, costOf(run));
    if (typeof run.failureReason === 'string' && run.failureReason !== '') out.failureReason = run.failureReason;
    if (typeof run.failureMessage === 'string' && run.failureMessage !== '') out.failureMessage = run.failureMessage;
  }
  if (failure) {
    out.failureReason = failure.reason;
    out.failureMessage = failure.message;
  }
  return out;
}

/**
 * What a report's cost and latency need from a run: `durationMs` of an ended run (updatedAt −
 * createdAt: queueing included, as a caller waits for it), `credits` (`usage.credits`, where the
 * service gives it) and the file's `pageCount` (its `metadata`).
 */
function costOf(run: ProcessorRun): Pick<ExportItem, 'durationMs' | 'credits' | 'pageCount'> {
  const out: Pick<ExportItem, 'durationMs' | 'credits' | 'pageCount'> = {};
  const created = Date.parse(String(run.createdAt ?? ''));
  const updated = Date.parse(String(run.updatedAt ?? ''));
  if (TERMINAL_RUN_STATUSES.has(run.status) && Number.isFinite(created) && Number.isFinite(updated)) out.durationMs = Math.max(0, updated - created);
  const usage = (run as { usage?: unknown }).usage;
  const credits = usage !== null && typeof usage === 'object' ? (usage as { credits?: unknown }).credits : undefined;
  if (typeof credits === 'number' && Number.isFinite(credits) && credits >= 0) out.credits = credits;
  const meta = (run.files?.[0] as { metadata?: { pageCount?: unknown } } | undefined)?.metadata;
  if (Number.isInteger(meta?.pageCount) && (meta?.pageCount as number) >= 1) out.pageCount = meta?.pageCount as number;
  return out;
}

/** failureReason of an item whose run had not ended when the evaluation's timeout passed. */
export const TIMEOUT_REASON = 'TIMEOUT';

export const NO_RUN = { reason: 'NO_RUN', message: 'no processor run of this evaluation was found for the item' };

/** Export items in the set's item order; every item appears, with or without a run. */
export function pairRuns(items: readonly EvalItem[], runs: readonly ProcessorRun[]): Paired {
  const itemIds = new Set(items.map((i) => i.id));
  const byItem = new Map<string, ProcessorRun>();
  const byFile = new Map<string, ProcessorRun[]>();
  const orphanRuns: ProcessorRun[] = [];
  for (const run of [...runs].sort(byCreated)) {
    const itemId = itemIdOf(run);
    if (itemId !== undefined) {
      if (!itemIds.has(itemId)) orphanRuns.push(run);
      else if (!byItem.has(itemId)) byItem.set(itemId, run);
      continue;
    }
    const fileId = fileIdOf(run);
    if (fileId === undefined) orphanRuns.push(run);
    else byFile.set(fileId, [...(byFile.get(fileId) ?? []), run]);
  }
  const missing: EvalItem[] = [];
  const out = items.map((item) => {
    let run = byItem.get(item.id);
    if (!run) run = byFile.get(item.fileId)?.shift();
    if (!run) missing.push(item);
    return exportItem(item, run, run ? undefined : NO_RUN);
  });
  for (const rest of byFile.values()) orphanRuns.push(...rest);
  return { items: out, orphanRuns, missing };
}

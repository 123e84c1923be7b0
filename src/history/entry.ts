/** A report's summary for the history folder: headline metrics, per-field F1, gates, where and when. */
import type { Report } from '../metrics/generated/report.js';
import type { HistoryEntry } from './generated/history-entry.js';

export const HISTORY_FORMAT = 'evalkit-history/1';

export interface EntryContext {
  time: Date;
  commit: string | null;
  branch: string | null;
  /** The export's processor version id (the report keeps only the version name). */
  versionId?: string;
}

/** Headline metric names per processor type, as --fail-under names them, in the order shown. */
export const HEADLINE_METRICS: Record<Report['type'], readonly string[]> = {
  EXTRACT: ['micro.f1', 'micro.precision', 'micro.recall', 'micro.accuracy', 'macro.f1', 'document.accuracy'],
  CLASSIFY: ['accuracy', 'macro.f1', 'weighted.f1', 'macro.precision', 'macro.recall'],
  SPLITTER: ['f1', 'precision', 'recall', 'pq', 'page.accuracy'],
};

function headlineValues(r: Report): Array<[string, number | null]> {
  const out: Array<[string, number | null]> = [];
  if (r.extract) {
    const x = r.extract;
    out.push(['micro.f1', x.micro.f1.value], ['micro.precision', x.micro.precision.value], ['micro.recall', x.micro.recall.value], ['micro.accuracy', x.micro.accuracy.value]);
    out.push(['macro.f1', x.macro.f1.value], ['document.accuracy', x.document.accuracy.value]);
  }
  if (r.classify) {
    const c = r.classify;
    out.push(['accuracy', c.accuracy.value], ['macro.f1', c.macro.f1.value], ['weighted.f1', c.weighted.f1.value], ['macro.precision', c.macro.precision.value], ['macro.recall', c.macro.recall.value]);
  }
  if (r.splitter) {
    const s = r.splitter;
    out.push(['f1', s.f1.value], ['precision', s.precision.value], ['recall', s.recall.value], ['pq', s.panoptic.pq.value], ['page.accuracy', s.pageAccuracy.value]);
  }
  out.push(['failed.rate', r.summary.documents === 0 ? null : r.summary.failed / r.summary.documents]);
  if (r.cost?.latency) out.push(['latency.p95', r.cost.latency.p95]);
  if (r.cost?.credits) out.push(['credits.mean', r.cost.credits.mean]);
  return out;
}

function unitValues(r: Report): Array<[string, number | null]> {
  return [
    ...(r.extract?.fields.map((f): [string, number | null] => [`field:${f.path}.f1`, f.f1.value]) ?? []),
    ...(r.classify?.classes.map((c): [string, number | null] => [`class:${c.label}.f1`, c.f1.value]) ?? []),
    ...(r.splitter?.types.map((t): [string, number | null] => [`type:${t.type}.f1`, t.f1.value]) ?? []),
  ];
}

export function historyEntry(report: Report, ctx: EntryContext): HistoryEntry {
  const p = report.source.processor;
  const g = report.gates;
  // Object.fromEntries defines own properties: a field named `__proto__` stays data.
  return {
    format: HISTORY_FORMAT,
    time: ctx.time.toISOString(),
    commit: ctx.commit,
    branch: ctx.branch,
    runId: report.source.batchProcessorRunId ?? null,
    evaluationSetId: report.source.evaluationSetId ?? null,
    source: report.source.file,
    type: report.type,
    processor: { id: p.id, name: p.name, version: p.version, ...(ctx.versionId ? { versionId: ctx.versionId } : {}) },
    documents: report.summary.documents,
    failed: report.summary.failed,
    headline: Object.fromEntries(headlineValues(report)),
    fields: Object.fromEntries(unitValues(report)),
    gates: {
      passed: g.passed,
      results: g.results.map((x) => ({ gate: x.gate, passed: x.passed, value: x.value })),
      ...(g.failOnRegression ? { regressed: [...g.regressed] } : {}),
    },
  };
}

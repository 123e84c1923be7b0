/**
 * Cost and latency of an evaluation's runs, from the export items' `durationMs` and `credits`
 * (docs/metrics.md: Cost and latency).
 */
import type { ExportItem } from '../metrics/generated/export.js';
import type { CostReport, Report } from '../metrics/generated/report.js';
import { quantileSorted } from '../metrics/stats.js';

/** Correct units per processor type: what one credit buys that is right. */
const UNIT = { EXTRACT: 'field', CLASSIFY: 'document', SPLITTER: 'split' } as const;

/** The number of correct units of a report: TP values, right documents, matched splits. */
export function correctUnits(r: Pick<Report, 'type' | 'extract' | 'classify' | 'splitter' | 'documents'>): number {
  if (r.type === 'EXTRACT') return r.extract?.micro.counts.tp ?? 0;
  if (r.type === 'SPLITTER') return r.splitter?.numCorrectDocs ?? 0;
  return r.documents.filter((d) => d.correct).length;
}

/** Undefined when no item carries a duration or credits. */
export function costOf(items: readonly ExportItem[], type: Report['type'], correct: number): CostReport | undefined {
  const durations = items.flatMap((it) => (typeof it.durationMs === 'number' ? [it.durationMs] : [])).sort((a, b) => a - b);
  const credits = items.flatMap((it) => (typeof it.credits === 'number' ? [it.credits] : []));
  if (durations.length === 0 && credits.length === 0) return undefined;
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  const total = sum(credits);
  return {
    latency: durations.length
      ? { runs: durations.length, mean: sum(durations) / durations.length, p50: quantileSorted(durations, 0.5), p95: quantileSorted(durations, 0.95) }
      : null,
    credits: credits.length ? { runs: credits.length, total, mean: total / credits.length, perCorrect: correct > 0 ? total / correct : null, correct, unit: UNIT[type] } : null,
  };
}

/** Gate metrics of cost and latency, by name: `latency.mean|p50|p95`, `credits.total|mean|perCorrect`. */
export function costMetrics(cost: CostReport | undefined): Map<string, number | null> {
  const m = new Map<string, number | null>();
  m.set('latency.mean', cost?.latency?.mean ?? null);
  m.set('latency.p50', cost?.latency?.p50 ?? null);
  m.set('latency.p95', cost?.latency?.p95 ?? null);
  m.set('credits.total', cost?.credits?.total ?? null);
  m.set('credits.mean', cost?.credits?.mean ?? null);
  m.set('credits.perCorrect', cost?.credits?.perCorrect ?? null);
  return m;
}

/**
 * Cost and latency of an evaluation's runs, from the export items' `durationMs` and `credits`
 * (docs/metrics.md: Cost and latency).
 */
import type { ExportItem } from '../metrics/generated/export.js';
import type { CostReport, Report } from '../metrics/generated/report.js';
import { quantileSorted } from '../metrics/stats.js';

/** Correct units per processor type: what one credit buys that is right. */
const UNIT = { EXTRACT: 'field', CLASSIFY: 'document', SPLITTER: 'split' } as const;

/** Durations and credits of the items as they are read; the report's cost section from them. */
export class CostAccumulator {
  private readonly durations: number[] = [];
  private credits = 0;
  private creditRuns = 0;

  add(item: Pick<ExportItem, 'durationMs' | 'credits'>): void {
    if (typeof item.durationMs === 'number') this.durations.push(item.durationMs);
    if (typeof item.credits === 'number') {
      this.credits += item.credits;
      this.creditRuns++;
    }
  }

  /** Undefined when no item carries a duration or credits. `correct`: correct units (TP values, right documents, matched splits). */
  report(type: Report['type'], correct: number): CostReport | undefined {
    const durations = this.durations.sort((a, b) => a - b);
    if (durations.length === 0 && this.creditRuns === 0) return undefined;
    const total = this.credits;
    return {
      latency: durations.length
        ? { runs: durations.length, mean: durations.reduce((a, b) => a + b, 0) / durations.length, p50: quantileSorted(durations, 0.5), p95: quantileSorted(durations, 0.95) }
        : null,
      credits: this.creditRuns ? { runs: this.creditRuns, total, mean: total / this.creditRuns, perCorrect: correct > 0 ? total / correct : null, correct, unit: UNIT[type] } : null,
    };
  }
}

/** The cost section of items in memory (see CostAccumulator). */
export function costOf(items: readonly ExportItem[], type: Report['type'], correct: number): CostReport | undefined {
  const acc = new CostAccumulator();
  for (const it of items) acc.add(it);
  return acc.report(type, correct);
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

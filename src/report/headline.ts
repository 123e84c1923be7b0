/**
 * The metric a report is judged by first, per processor type, and its change against the
 * baseline: what a summary leads with (`micro F1 0.953 -> 0.936`).
 */
import type { ComparisonRow, Report } from '../metrics/generated/report.js';
import { num } from './markdown.js';

const LABELS: Record<string, string> = { 'micro.f1': 'micro F1', accuracy: 'accuracy', f1: 'F1' };

/** The headline metric and its value: micro F1 (EXTRACT), accuracy (CLASSIFY), F1 (SPLITTER). */
export function headlineMetric(r: Report): { metric: string; value: number | null } {
  if (r.extract) return { metric: 'micro.f1', value: r.extract.micro.f1.value };
  if (r.classify) return { metric: 'accuracy', value: r.classify.accuracy.value };
  if (r.splitter) return { metric: 'f1', value: r.splitter.f1.value };
  return { metric: '', value: null };
}

/** The baseline comparison's row of the headline metric (over the paired documents); undefined without a baseline. */
export function headlineRow(r: Report): ComparisonRow | undefined {
  const { metric } = headlineMetric(r);
  return r.baseline?.rows.find((row) => row.key === metric);
}

/**
 * `micro F1 0.953 -> 0.936 (-0.017, inconclusive)`: the headline metric before and after over the
 * paired documents, the delta and the verdict; undefined without a baseline.
 */
export function headlineChangeText(r: Report): string | undefined {
  const row = headlineRow(r);
  if (!row) return undefined;
  const { metric } = headlineMetric(r);
  const label = Object.hasOwn(LABELS, metric) ? LABELS[metric] : metric;
  const delta = row.delta === null ? '' : `${row.delta > 0 ? '+' : row.delta < 0 ? '-' : '±'}${num(Math.abs(row.delta))}, `;
  return `${label} ${num(row.baseline)} -> ${num(row.current)} (${delta}${row.verdict.replace('_', ' ')})`;
}

/**
 * Each metric of a history over time: the data behind `evalkit history show` and the explorer's
 * History tab (a series per metric, a point per report, oldest first).
 */
import { escapeControls } from '../util/controls.js';
import { UsageError } from '../util/errors.js';
import { HEADLINE_METRICS } from './entry.js';
import type { StoredEntry } from './store.js';

export interface SeriesPoint {
  time: string;
  commit: string | null;
  branch: string | null;
  version: string;
  /** The entry's file name in the history folder. */
  file: string;
  /** null: the metric is undefined in that report, or the report does not have it. */
  value: number | null;
}

export interface MetricSeries {
  metric: string;
  points: SeriesPoint[];
  first: number | null;
  last: number | null;
  min: number | null;
  max: number | null;
}

export interface HistoryView {
  entries: number;
  metrics: MetricSeries[];
  /** Whether each report's gates passed, oldest first. */
  gates: Array<{ time: string; commit: string | null; passed: boolean; failed: number; total: number }>;
}

export interface SeriesOptions {
  /** Metric names or patterns with `*` (`field:*.f1`); default the headline metrics. */
  metrics?: readonly string[];
  /** Only the last N reports. */
  last?: number;
}

function valueOf(e: StoredEntry, metric: string): number | null {
  const { headline, fields } = e.entry;
  if (Object.hasOwn(headline, metric)) return headline[metric];
  if (Object.hasOwn(fields, metric)) return fields[metric];
  return null;
}

const globToRegExp = (p: string): RegExp => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);

export function historySeries(all: readonly StoredEntry[], opts: SeriesOptions = {}): HistoryView {
  if (opts.last !== undefined && !(Number.isInteger(opts.last) && opts.last >= 1)) throw new UsageError(`--last ${opts.last}: expected a whole number of reports, 1 or more`);
  const entries = opts.last === undefined ? all : all.slice(-opts.last);
  const headlineNames: string[] = [];
  const fieldNames = new Set<string>();
  for (const e of entries) {
    for (const k of Object.keys(e.entry.headline)) if (!headlineNames.includes(k)) headlineNames.push(k);
    for (const k of Object.keys(e.entry.fields)) fieldNames.add(k);
  }
  // Stored keys are sorted; show the headline in its reading order (HEADLINE_METRICS), the rest after.
  const order = [...new Set([...Object.values(HEADLINE_METRICS).flat(), 'failed.rate', 'latency.p95', 'credits.mean'])];
  const rank = (k: string): number => (order.includes(k) ? order.indexOf(k) : order.length);
  headlineNames.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const known = [...headlineNames, ...[...fieldNames].sort()];
  let names: string[];
  if (opts.metrics?.length) {
    names = [];
    for (const m of opts.metrics) {
      const hits = m.includes('*') ? known.filter((k) => globToRegExp(m).test(k)) : known.includes(m) ? [m] : [];
      if (hits.length === 0 && entries.length > 0) {
        throw new UsageError(`--metric ${m}: no report in the history has it`, { hint: `known: ${known.slice(0, 40).join(', ')}${known.length > 40 ? ', ...' : ''}` });
      }
      for (const h of hits) if (!names.includes(h)) names.push(h);
    }
  } else names = headlineNames;
  const metrics = names.map((metric): MetricSeries => {
    const points = entries.map((e) => ({ time: e.entry.time, commit: e.entry.commit, branch: e.entry.branch, version: e.entry.processor.version, file: e.file, value: valueOf(e, metric) }));
    const defined = points.map((p) => p.value).filter((v): v is number => v !== null);
    return {
      metric,
      points,
      first: defined.length ? defined[0] : null,
      last: defined.length ? defined[defined.length - 1] : null,
      min: defined.length ? lowest(defined) : null,
      max: defined.length ? highest(defined) : null,
    };
  });
  const gates = entries.map((e) => ({ time: e.entry.time, commit: e.entry.commit, passed: e.entry.gates.passed, failed: e.entry.gates.results.filter((g) => !g.passed).length, total: e.entry.gates.results.length }));
  return { entries: entries.length, metrics, gates };
}

// Loops, not Math.min(...values): a spread of some 100,000 values overflows the stack.
const lowest = (xs: readonly number[]): number => xs.reduce((a, b) => (b < a ? b : a));
const highest = (xs: readonly number[]): number => xs.reduce((a, b) => (b > a ? b : a));

const BARS = '▁▂▃▄▅▆▇█';

/** Characters of the text's trend column at most: the last TREND_WIDTH reports (3,000 reports made 3,000-character lines). */
export const TREND_WIDTH = 60;

/** One character per value: ▁ at the series' minimum to █ at its maximum (▄ when flat), a space where undefined. */
export function sparkline(values: ReadonlyArray<number | null>): string {
  const defined = values.filter((v): v is number => v !== null);
  if (defined.length === 0) return values.map(() => ' ').join('');
  const lo = lowest(defined);
  const hi = highest(defined);
  return values.map((v) => (v === null ? ' ' : hi === lo ? BARS[3] : BARS[Math.round(((v - lo) / (hi - lo)) * (BARS.length - 1))])).join('');
}

const num = (v: number | null): string => (v === null ? 'n/a' : Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(3));

/**
 * The text of `evalkit history show`: a line per metric with its sparkline, then the reports.
 * Strings of the entries (commits, field names: anyone may write a file there) are shown with
 * control characters escaped, and the columns padded by the escaped text.
 */
export function renderHistoryText(view: HistoryView, dir: string): string {
  if (view.entries === 0) return `${dir}: no history entries yet (evalkit report --history ${dir} adds one per report)`;
  const first = view.gates[0];
  const last = view.gates[view.gates.length - 1];
  const where = (g: { time: string; commit: string | null }): string => escapeControls(`${g.time}${g.commit ? ` (${g.commit.slice(0, 7)})` : ''}`);
  const lines = [`${escapeControls(dir)}: ${view.entries} report(s), ${where(first)} to ${where(last)}`];
  const names = view.metrics.map((m) => escapeControls(m.metric));
  const width = Math.max(6, ...names.map((n) => n.length));
  // Past TREND_WIDTH reports the trend shows the last ones (scaled to them); first, last, min and max stay every report's.
  const shown = Math.min(view.entries, TREND_WIDTH);
  const trend = shown < view.entries ? `trend (last ${shown})` : 'trend';
  const trendWidth = Math.max(5, shown, trend.length);
  const row = (cells: string[]): string => [cells[0].padEnd(width), cells[1].padEnd(trendWidth), ...cells.slice(2).map((c) => c.padStart(7))].join('  ').trimEnd();
  lines.push(row(['metric', trend, 'first', 'last', 'min', 'max']));
  for (const [i, m] of view.metrics.entries()) lines.push(row([names[i], sparkline(m.points.slice(-shown).map((p) => p.value)), num(m.first), num(m.last), num(m.min), num(m.max)]));
  lines.push(row(['gates', view.gates.slice(-shown).map((g) => (g.total === 0 ? '·' : g.passed ? '✓' : '✗')).join(''), '', '', '', '']));
  return lines.join('\n');
}

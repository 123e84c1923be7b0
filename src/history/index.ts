/** The report history: one summary per report in a folder, and each metric over time. */
export { historyEntry, HISTORY_FORMAT, HEADLINE_METRICS, type EntryContext } from './entry.js';
export { detectRevision, type Revision } from './git.js';
export { appendHistory, readHistory, entryBaseName, type History, type StoredEntry } from './store.js';
export { renderHistoryHtml } from './html.js';
export { historySeries, renderHistoryText, sparkline, type HistoryView, type MetricSeries, type SeriesPoint, type SeriesOptions } from './series.js';
export type { HistoryEntry } from './generated/history-entry.js';

/**
 * Reports of evaluation runs: computeReport (export -> canonical report), loading exports and
 * baselines, gates, and the json, markdown, junit and html renderers.
 */
export { computeReport, computeReportStream, verdict, DEFAULT_BOOTSTRAP, DEFAULT_SEED, DEFAULT_EQUIVALENCE, type ComputeReportOptions, type BaselineInput, type BaselineReport } from './build.js';
export { MemoryDocuments, FileDocuments, DiscardDocuments, DOCUMENTS_FILE, type DocumentsSink } from './documents.js';
export { compareRuns, runSpread, withinSpread, repeatKey, type RunInput } from './runs.js';
export { renderRunsHtml } from './runs-html.js';
export { pairDocuments, minPairedOf, PAIR_BY, type PairBy, type Pairing } from './pairing.js';
export { loadExport, loadBaseline, loadReport, openExport, parseExport, readLineBatches, type OpenedExport } from './load.js';
export { parseGates, evaluateGates, metricCatalog, type GateSpec, type GateOn } from './gates.js';
export { renderJson } from './json.js';
export { renderMarkdown, MAX_BYTES as MARKDOWN_MAX_BYTES } from './markdown.js';
export { renderJunit, type JunitOptions } from './junit.js';
export { renderHtml, renderExplorer, type ExplorerInput } from './explorer/render.js';
export type * from '../metrics/generated/report.js';
export { writeReports, REPORT_FORMATS, REPORT_FILE_NAMES, type ReportFormat, type WrittenReport, type WriteReportsOptions, type ReportSources } from './write.js';

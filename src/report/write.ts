/** Renders a report in the asked formats and writes each file atomically under one folder. */
import path from 'node:path';
import type { Report } from '../metrics/generated/report.js';
import { writeFileAtomic } from '../util/fs.js';
import { checkReportJson } from './load.js';
import { renderExplorer, type ExplorerInput } from './explorer/render.js';
import { renderJson } from './json.js';
import { renderJunit, type JunitOptions } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { documentSlicesOf } from './slices.js';

export const REPORT_FORMATS = ['json', 'md', 'html', 'junit'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
export const REPORT_FILE_NAMES: Record<ReportFormat, string> = { json: 'report.json', md: 'report.md', html: 'report.html', junit: 'report.junit.xml' };

/** What the explorer (report.html) shows beyond the report: the export's values, the baseline's predictions. */
export type ReportSources = Omit<ExplorerInput, 'report' | 'documents'>;

export interface WriteReportsOptions extends ReportSources {
  junit?: JunitOptions;
}

const RENDERERS: Record<ReportFormat, (r: Report, o: WriteReportsOptions) => string> = {
  json: renderJson,
  md: (report) => renderMarkdown(report),
  html: (report, { junit: _junit, ...sources }) =>
    renderExplorer({
      report,
      documents: report.documents,
      ...(sources.export && report.options.sliceBy?.length ? { documentSlices: documentSlicesOf(report.options.sliceBy, sources.export.items) } : {}),
      ...sources,
    }),
  junit: (r, o) => renderJunit(r, o.junit),
};

export interface WrittenReport {
  format: ReportFormat;
  file: string;
  /** The rendered text (the Markdown goes to job summaries too). */
  text: string;
}

/**
 * Renders every asked format, checks the canonical JSON against schemas/report.schema.json, and
 * only then writes the files (each atomically): a renderer that fails, or a report that is not
 * valid, leaves nothing on disk.
 */
export async function writeReports(report: Report, outDir: string, formats: readonly ReportFormat[] = REPORT_FORMATS, opts: WriteReportsOptions = {}): Promise<WrittenReport[]> {
  const rendered: WrittenReport[] = [];
  let json: string | undefined;
  for (const format of formats) {
    const text = RENDERERS[format](report, opts);
    if (format === 'json') json = text;
    rendered.push({ format, file: path.join(outDir, REPORT_FILE_NAMES[format]), text });
  }
  await checkReportJson(json ?? renderJson(report));
  for (const r of rendered) await writeFileAtomic(r.file, r.text);
  return rendered;
}

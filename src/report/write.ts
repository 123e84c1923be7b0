/** Renders a report in the asked formats and writes each file atomically under one folder. */
import path from 'node:path';
import type { Report } from '../metrics/generated/report.js';
import { InternalError } from '../util/errors.js';
import { AtomicWriter } from '../util/fs.js';
import { DOCUMENTS_FILE, FileDocuments, type MemoryDocuments } from './documents.js';
import { checkReportJson } from './load.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';

export const REPORT_FORMATS = ['json', 'md', 'html', 'junit'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
export const REPORT_FILE_NAMES: Record<ReportFormat, string> = { json: 'report.json', md: 'report.md', html: 'report.html', junit: 'report.junit.xml' };

const RENDERERS: Record<ReportFormat, (r: Report) => string> = { json: renderJson, md: renderMarkdown, html: renderHtml, junit: renderJunit };

export interface WrittenReport {
  format: ReportFormat;
  file: string;
  /** The rendered text (the Markdown goes to job summaries too). */
  text: string;
}

/**
 * Renders every asked format, checks the canonical JSON against schemas/report.schema.json, and
 * only then writes the files: a renderer that fails, or a report that is not valid, leaves
 * nothing on disk. With report.json goes its side file of document records (`documents`: the
 * sink computeReport wrote them to), renamed into place first so that a report.json never names
 * a file that is not there.
 */
export async function writeReports(
  report: Report,
  outDir: string,
  formats: readonly ReportFormat[] = REPORT_FORMATS,
  documents?: MemoryDocuments | FileDocuments,
): Promise<WrittenReport[]> {
  const rendered: WrittenReport[] = [];
  try {
    let json: string | undefined;
    for (const format of formats) {
      const text = RENDERERS[format](report);
      if (format === 'json') json = text;
      rendered.push({ format, file: path.join(outDir, REPORT_FILE_NAMES[format]), text });
    }
    await checkReportJson(json ?? renderJson(report));
    if (json !== undefined && !documents) throw new InternalError('report.json is written without its documents file; nothing was written');
  } catch (e) {
    if (documents instanceof FileDocuments) documents.abort();
    throw e;
  }
  const writer = new AtomicWriter();
  const wantsJson = formats.includes('json');
  if (documents instanceof FileDocuments) {
    if (wantsJson) documents.commit();
    else documents.abort();
  } else if (documents && wantsJson) {
    await writer.write(path.join(outDir, DOCUMENTS_FILE), documents.lines.map((l) => l + '\n'), { replace: true });
  }
  for (const r of rendered) await writer.write(r.file, r.text, { replace: true });
  await writer.flush();
  return rendered;
}

/** Renders a report in the asked formats and writes each file atomically under one folder. */
import path from 'node:path';
import type { DocumentRecord, Report } from '../metrics/generated/report.js';
import { InternalError } from '../util/errors.js';
import { AtomicWriter } from '../util/fs.js';
import { DOCUMENTS_FILE, FileDocuments, RECORDS_MAX, type MemoryDocuments } from './documents.js';
import { checkReportJson } from './load.js';
import { renderExplorer, type ExplorerInput } from './explorer/render.js';
import { renderJson } from './json.js';
import { renderJunit, type JunitOptions } from './junit.js';
import { renderMarkdown } from './markdown.js';
import { documentSlicesOf } from './slices.js';

export const REPORT_FORMATS = ['json', 'md', 'html', 'junit'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
export const REPORT_FILE_NAMES: Record<ReportFormat, string> = { json: 'report.json', md: 'report.md', html: 'report.html', junit: 'report.junit.xml' };

/**
 * The explorer lists every document up to this many (50,000 documents x 25 fields make a 22 MB
 * report.html); past it report.html has the overview and the fields, and points at
 * documents.jsonl for the documents.
 */
export const EXPLORER_MAX_DOCUMENTS = RECORDS_MAX;

/** What the explorer (report.html) shows beyond the report: the export's values, the baseline's predictions. */
export type ReportSources = Omit<ExplorerInput, 'report' | 'documents'>;

export interface WriteReportsOptions extends ReportSources {
  junit?: JunitOptions;
  /**
   * The sink computeReport wrote the document records to: written (or renamed into place) as
   * documents.jsonl beside report.json, and read back for the explorer.
   */
  documents?: MemoryDocuments | FileDocuments;
  /** Set by writeReports: whether report.json (and so documents.jsonl) is among the formats. */
  withJson?: boolean;
}

/** The explorer's records: the sink's, unless there are more than it lists. */
function explorerRecords(report: Report, o: WriteReportsOptions): { documents: readonly DocumentRecord[]; omitted?: string } {
  const n = report.summary.documents;
  if (n > EXPLORER_MAX_DOCUMENTS) {
    const where = o.withJson === false ? `write report.json too (json among the formats): ${DOCUMENTS_FILE} beside it has every document's record` : `every document's record is in ${DOCUMENTS_FILE} beside report.json`;
    return { documents: [], omitted: `${n} documents: more than the ${EXPLORER_MAX_DOCUMENTS} report.html lists; ${where}.` };
  }
  if (!o.documents) return { documents: [], omitted: `the document records were not kept; they are in ${DOCUMENTS_FILE} beside report.json.` };
  return { documents: o.documents.records() };
}

const RENDERERS: Record<ReportFormat, (r: Report, o: WriteReportsOptions) => string> = {
  json: renderJson,
  md: (report) => renderMarkdown(report),
  html: (report, o) => {
    const { junit: _junit, documents: _documents, withJson: _withJson, ...sources } = o;
    const records = explorerRecords(report, o);
    return renderExplorer({
      report,
      ...records,
      ...(sources.export && !sources.documentSlices && report.options.sliceBy?.length && !records.omitted ? { documentSlices: documentSlicesOf(report.options.sliceBy, sources.export.items) } : {}),
      ...sources,
      ...(records.omitted ? { export: undefined, values: undefined, baseline: undefined, streamedBaseline: undefined, documentSlices: undefined } : {}),
    });
  },
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
 * only then writes the files: a renderer that fails, or a report that is not valid, leaves
 * nothing on disk. With report.json goes its side file of document records (`opts.documents`:
 * the sink computeReport wrote them to), renamed into place first so that a report.json never
 * names a file that is not there.
 */
export async function writeReports(report: Report, outDir: string, formats: readonly ReportFormat[] = REPORT_FORMATS, opts: WriteReportsOptions = {}): Promise<WrittenReport[]> {
  const documents = opts.documents;
  const rendered: WrittenReport[] = [];
  try {
    let json: string | undefined;
    for (const format of formats) {
      const text = RENDERERS[format](report, { ...opts, withJson: formats.includes('json') });
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

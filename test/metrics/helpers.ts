// Small exports built in code for the metric tables.
import type { EvaluationExport, ExportItem } from '../../src/metrics/index.js';
import { computeReport, MemoryDocuments, type ComputeReportOptions, type DocumentRecord, type Report } from '../../src/report/index.js';

export type Tuple = [tp: number, tn: number, fa: number, fn: number, fd: number];

export interface Doc {
  e: unknown;
  /** The run's output; `null` for a failed run. */
  p: unknown;
  id?: string;
  status?: ExportItem['status'];
}

export function makeExport(
  type: 'EXTRACT' | 'CLASSIFY' | 'SPLITTER',
  config: Record<string, unknown>,
  docs: Doc[],
  options: { fuzzyMatchFields?: string[]; excludeFields?: string[] } = {},
): EvaluationExport {
  return {
    format: 'evalkit-export/1',
    processor: { id: 'dp_test', name: 'Test', type, version: '1.0', config },
    options: { fuzzyMatchFields: options.fuzzyMatchFields ?? [], excludeFields: options.excludeFields ?? [] },
    items: docs.map((d, i) => ({
      id: d.id ?? `item_${String(i).padStart(3, '0')}`,
      fileId: `file_${i}`,
      expectedOutput: d.e as Record<string, unknown>,
      output: d.p as Record<string, unknown> | null,
      status: d.status ?? (d.p === null ? 'FAILED' : 'PROCESSED'),
    })),
  };
}

/** An EXTRACT export whose expected and predicted outputs are the `value` objects given. */
export function extractExport(config: Record<string, unknown>, docs: Array<{ e: object; p: object | null }>, options?: { fuzzyMatchFields?: string[]; excludeFields?: string[] }): EvaluationExport {
  return makeExport(
    'EXTRACT',
    config,
    docs.map((d) => ({ e: { value: d.e }, p: d.p === null ? null : { value: d.p } })),
    options,
  );
}

/** A report with its document records (from the side file's lines) as `documents`. */
export type ReportWithDocuments = Report & { documents: DocumentRecord[] };

export function withDocuments(exp: EvaluationExport, opts: ComputeReportOptions = {}): ReportWithDocuments {
  const sink = new MemoryDocuments();
  const r = computeReport(exp, opts, sink);
  return { ...r, documents: sink.lines.map((l) => JSON.parse(l) as DocumentRecord) };
}

export function report(exp: EvaluationExport, opts: ComputeReportOptions = {}): ReportWithDocuments {
  return withDocuments(exp, { bootstrap: 0, ...opts });
}

/** path -> [tp, tn, fa, fn, fd] of every field of an EXTRACT report. */
export function fieldCounts(r: Report): Record<string, Tuple> {
  const out: Record<string, Tuple> = {};
  for (const f of r.extract?.fields ?? []) out[f.path] = [f.counts.tp, f.counts.tn, f.counts.fa, f.counts.fn, f.counts.fd];
  return out;
}

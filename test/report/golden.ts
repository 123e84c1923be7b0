// The fixed exports behind the golden files (test/fixtures/report/) and how their reports are computed.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { computeReport, loadBaseline, loadExport, MemoryDocuments, type ComputeReportOptions } from '../../src/report/index.js';

export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/report');

interface GoldenCase {
  from: string;
  baseline?: string;
  options?: ComputeReportOptions;
}

export const GOLDEN: Record<string, GoldenCase> = {
  extract: { from: 'extract-export.json' },
  'extract-baseline': {
    from: 'extract-export.json',
    baseline: 'extract-baseline.json',
    options: { gates: ['micro.f1=0.9', 'field:vendor.recall=0.8'], failOnRegression: true },
  },
  classify: { from: 'classify-export.jsonl', options: { gates: ['accuracy=0.6'], gateOn: 'lower' } },
  splitter: { from: 'splitter-export.json' },
};

export async function goldenReport(c: GoldenCase) {
  return (await goldenReportWithDocuments(c)).report;
}

/** The report and its side file's text (documents.jsonl). */
export async function goldenReportWithDocuments(c: GoldenCase) {
  const exp = await loadExport(path.join(FIXTURES, c.from));
  const baseline = c.baseline ? await loadBaseline(path.join(FIXTURES, c.baseline)) : undefined;
  const documents = new MemoryDocuments();
  const report = computeReport(exp, { bootstrap: 200, seed: 1, sourceFile: c.from, baseline, ...c.options }, documents);
  return { report, documents: documents.text() };
}

/** The report with the export and baseline it was computed from (what report.html shows). */
export async function goldenInputs(c: GoldenCase) {
  const exp = await loadExport(path.join(FIXTURES, c.from));
  const baseline = c.baseline ? await loadBaseline(path.join(FIXTURES, c.baseline)) : undefined;
  const sink = new MemoryDocuments();
  const report = computeReport(exp, { bootstrap: 200, seed: 1, sourceFile: c.from, baseline, ...c.options }, sink);
  return { report, export: exp, baseline, documents: sink.records() };
}

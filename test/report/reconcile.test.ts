/**
 * The reconciliation of the service's metrics with evalkit's on small exports computed by hand:
 * a field never expected, a value invented for an empty field, a class never predicted, a split
 * off by one page; the reasons per field; a recomputation mismatch; metrics missing; a FAILED run.
 */
import { describe, expect, test } from 'vitest';
import { computeReport, computeReportStream } from '../../src/report/build.js';
import { MemoryDocuments } from '../../src/report/documents.js';
import { overviewHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { EvaluationExport, ExportItem, ExportServiceMetrics } from '../../src/metrics/generated/export.js';
import type { ReconciliationRow, Report } from '../../src/metrics/generated/report.js';
import { InputError } from '../../src/util/errors.js';

const EXTRACT_CONFIG = {
  schema: {
    type: 'object',
    properties: {
      invoice_number: { type: ['string', 'null'] },
      date: { type: ['string', 'null'], 'extend:type': 'date' },
      vendor: { type: 'object', properties: { name: { type: ['string', 'null'] } } },
      po_number: { type: ['string', 'null'] },
      line_items: { type: 'array', items: { type: 'object', properties: { amount: { type: ['number', 'null'] }, desc: { type: ['string', 'null'] } } } },
    },
  },
};

const item = (id: string, expected: unknown, output: unknown, extra: Partial<ExportItem> = {}): ExportItem =>
  ({ id, fileId: `file_${id}`, expectedOutput: expected, output, status: output === null ? 'FAILED' : 'PROCESSED', ...extra }) as ExportItem;

function exportOf(type: 'EXTRACT' | 'CLASSIFY' | 'SPLITTER', config: object, items: ExportItem[], metrics: ExportServiceMetrics | undefined, status: 'PROCESSED' | 'FAILED' = 'PROCESSED'): EvaluationExport {
  return {
    format: 'evalkit-export/1',
    processor: { id: 'p', name: 'P', type, version: 'draft', config: config as Record<string, unknown> },
    service: { evaluationSetRunId: 'evr_1', status, ...(metrics ? { metrics } : {}) },
    items,
  };
}

const EXTRACT_ITEMS = [
  item(
    'a',
    { value: { invoice_number: 'INV-1', date: '2024-04-17', vendor: { name: 'Acme' }, po_number: null, line_items: [{ amount: 1, desc: 'a' }, { amount: 2, desc: 'b' }] } },
    { value: { invoice_number: 'INV-1', date: '17/04/2024', vendor: { name: 'Acme' }, po_number: 'PO-9', line_items: [{ amount: 1, desc: 'a' }, { amount: 3, desc: 'b' }] } },
  ),
  item(
    'b',
    { value: { invoice_number: 'INV-2', date: '2024-05-01', vendor: { name: '' }, po_number: null, line_items: [] } },
    { value: { invoice_number: 'INV-2', date: '2024-05-01', vendor: { name: 'Beta' }, po_number: null, line_items: [] } },
  ),
  item('c', { value: { invoice_number: 'INV-3', date: '2024-01-01', vendor: { name: 'Gamma' } } }, null),
];

// The service's answer: its definitions by hand (items a and b scored, c failed), except `date`,
// where it claims 2 of 2 (its recomputation gives 1 of 2), and vendor.name's accuracy left out.
const EXTRACT_ANSWER: ExportServiceMetrics = {
  type: 'EXTRACT',
  numFilesTotal: 3,
  numFilesProcessed: 3,
  accuracy: 0.625,
  fieldMetrics: {
    invoice_number: { countTotal: 2, countPresent: 2, countExpected: 2, countAccurate: 2, accuracy: 1 },
    date: { countTotal: 2, countPresent: 2, countExpected: 2, countAccurate: 2, accuracy: 1 },
    'vendor.name': { countTotal: 2, countPresent: 2, countExpected: 2, countAccurate: 1 },
    po_number: { countTotal: 2, countPresent: 1, countExpected: 0, countAccurate: 0 },
    line_items: { countTotal: 2, countPresent: 2, countExpected: 2, countAccurate: 1, accuracy: 0.5 },
  },
};

const rowOf = (rows: ReconciliationRow[], kind: string, key: string, metric = 'accuracy'): ReconciliationRow => {
  const r = rows.find((x) => x.kind === kind && x.key === key && x.metric === metric);
  if (!r) throw new Error(`no row ${kind} ${key} ${metric}`);
  return r;
};
const codes = (r: ReconciliationRow): Record<string, number> => Object.fromEntries(r.reasons.map((x) => [x.code, x.count]));

describe('EXTRACT', () => {
  const report = computeReport(exportOf('EXTRACT', EXTRACT_CONFIG, EXTRACT_ITEMS, EXTRACT_ANSWER), { bootstrap: 0 });
  const rec = report.reconciliation;
  if (!rec) throw new Error('no reconciliation');

  test('each field: the service figure, evalkit counterpart and the reasons', () => {
    // invoice_number: service 2/2; evalkit recall 2/3 (the failed run's INV-3 missed).
    expect(rowOf(rec.rows, 'field', 'invoice_number')).toMatchObject({ service: 1, recomputed: 1, evalkitMetric: 'field:invoice_number.recall', evalkitCounts: { k: 2, n: 3 }, differs: true });
    expect(rowOf(rec.rows, 'field', 'invoice_number').evalkit).toBeCloseTo(2 / 3, 12);
    expect(codes(rowOf(rec.rows, 'field', 'invoice_number'))).toEqual({ 'failed-runs': 1 });
    // date: 17/04/2024 is 2024-04-17 to evalkit's date comparator, not to JSON equality.
    expect(rowOf(rec.rows, 'field', 'date')).toMatchObject({ service: 1, recomputed: 0.5, evalkitCounts: { k: 2, n: 3 } });
    expect(codes(rowOf(rec.rows, 'field', 'date'))).toEqual({ 'failed-runs': 1, 'normalised-match': 1 });
    // vendor.name: "" is a value to the service (1 of 2); to evalkit b's Beta is a false alarm (1 of 2 with c).
    expect(rowOf(rec.rows, 'field', 'vendor.name')).toMatchObject({ service: null, recomputed: 0.5, evalkit: 0.5, evalkitCounts: { k: 1, n: 2 }, differs: false });
    expect(codes(rowOf(rec.rows, 'field', 'vendor.name'))).toEqual({ 'empty-value': 1, 'failed-runs': 1 });
    // po_number: never expected; PO-9 invented: no figure on either side, the reason counted.
    expect(rowOf(rec.rows, 'field', 'po_number')).toMatchObject({ service: null, recomputed: null, evalkit: null, differs: false, evalkitCounts: { k: 0, n: 0 } });
    expect(codes(rowOf(rec.rows, 'field', 'po_number'))).toEqual({ 'invented-value': 1 });
    // line_items: whole lists 1 of 2 ([] = [] counts); evalkit pooled over amount (1 of 2) and desc (2 of 2).
    expect(rowOf(rec.rows, 'field', 'line_items')).toMatchObject({ service: 0.5, recomputed: 0.5, evalkit: 0.75, evalkitCounts: { k: 3, n: 4 }, evalkitMetric: 'field:line_items.*.recall (pooled over 2 fields)', differs: true });
    expect(codes(rowOf(rec.rows, 'field', 'line_items'))).toEqual({ 'array-rows': 1, 'empty-value': 1 });
  });

  test('the aggregate: pooled accuracy 5/8 against micro recall 8/12', () => {
    const agg = rowOf(rec.rows, 'aggregate', '');
    expect(agg).toMatchObject({ service: 0.625, recomputed: 0.625, evalkitMetric: 'micro.recall', evalkitCounts: { k: 8, n: 12 }, differs: true });
    expect(agg.evalkit).toBeCloseTo(8 / 12, 12);
    expect(codes(agg)).toEqual({ 'array-rows': 1, 'empty-value': 2, 'failed-runs': 3, 'invented-value': 1, 'normalised-match': 1 });
  });

  test('the recomputation mismatch is a finding and a warning; the missing accuracy is "not given"', () => {
    expect(rec.findings).toEqual([
      { metric: 'fieldMetrics.date.countAccurate', service: 2, recomputed: 1 },
      { metric: 'fieldMetrics.date.accuracy', service: 1, recomputed: 0.5 },
    ]);
    expect(rec.notGiven).toEqual(['fieldMetrics.vendor.name.accuracy']);
    expect(report.warnings.some((w) => w.includes('disagrees with evalkit') && w.includes('fieldMetrics.date.countAccurate 2 (recomputed 1)'))).toBe(true);
    expect(report.warnings.some((w) => w.includes('does not give 1 metric(s)') && w.includes('fieldMetrics.vendor.name.accuracy'))).toBe(true);
  });

  test('an answer equal to the recomputation gives no finding', () => {
    const answer = structuredClone(EXTRACT_ANSWER);
    Object.assign((answer.fieldMetrics as Record<string, object>).date, { countAccurate: 1, accuracy: 0.5 });
    Object.assign((answer.fieldMetrics as Record<string, object>)['vendor.name'], { accuracy: 0.5 });
    const r = computeReport(exportOf('EXTRACT', EXTRACT_CONFIG, EXTRACT_ITEMS, answer), { bootstrap: 0 });
    expect(r.reconciliation?.findings).toEqual([]);
    expect(r.reconciliation?.notGiven).toEqual([]);
    expect(r.warnings.filter((w) => w.startsWith('reconciliation'))).toEqual([]);
  });

  test('metrics missing from the answer: not given, a warning, no crash', () => {
    const r = computeReport(exportOf('EXTRACT', EXTRACT_CONFIG, EXTRACT_ITEMS, undefined), { bootstrap: 0 });
    expect(r.reconciliation?.notGiven).toEqual(['metrics']);
    expect(r.reconciliation?.rows.every((x) => x.service === null && !x.differs)).toBe(true);
    expect(r.warnings.some((w) => w.includes('does not give') && w.includes('metrics'))).toBe(true);
    const noFields = computeReport(exportOf('EXTRACT', EXTRACT_CONFIG, EXTRACT_ITEMS, { type: 'EXTRACT', accuracy: 0.625 }), { bootstrap: 0 });
    expect(noFields.reconciliation?.notGiven).toContain('fieldMetrics');
  });

  test('metrics of another type: not compared, a warning, no crash', () => {
    const r = computeReport(exportOf('EXTRACT', EXTRACT_CONFIG, EXTRACT_ITEMS, { type: 'CLASSIFY', accuracy: 0.9 }), { bootstrap: 0 });
    expect(r.reconciliation?.rows.every((x) => x.service === null && !x.differs)).toBe(true);
    expect(r.reconciliation?.findings).toEqual([]);
    expect(r.warnings).toContain("reconciliation: the service's metrics are of type CLASSIFY but the processor is EXTRACT: its figures are not compared");
  });

  test('no service run in the export: no reconciliation', () => {
    const { service: _s, ...plain } = exportOf('EXTRACT', EXTRACT_CONFIG, EXTRACT_ITEMS, EXTRACT_ANSWER);
    expect(computeReport(plain as EvaluationExport, { bootstrap: 0 }).reconciliation).toBeUndefined();
  });
});

describe('CLASSIFY', () => {
  const config = { classifications: [{ id: 'c1', type: 'invoice' }, { id: 'c2', type: 'receipt' }, { id: 'c3', type: 'contract' }] };
  const items = [
    item('1', { id: 'c1', type: 'invoice' }, { id: 'c1', type: 'invoice' }),
    item('2', { id: 'c1', type: 'invoice' }, { id: 'c2', type: 'receipt' }),
    item('3', { id: 'c2', type: 'receipt' }, { id: 'c2', type: 'receipt' }),
    // Names its class by id only: no prediction to the service, receipt to evalkit.
    item('4', { id: 'c2', type: 'receipt' }, { id: 'c2' }),
    // contract: never predicted; its one document failed.
    item('5', { id: 'c3', type: 'contract' }, null),
  ];
  const answer: ExportServiceMetrics = {
    type: 'CLASSIFY',
    accuracy: 0.5,
    classificationMetrics: {
      invoice: { countExpected: 2, countPredicted: 1, countCorrect: 1, precision: 1, recall: 0.5, f1: 2 / 3 },
      receipt: { countExpected: 2, countPredicted: 2, countCorrect: 1, precision: 0.5, recall: 0.5, f1: 0.5 },
      contract: { countExpected: 0, countPredicted: 0, countCorrect: 0 },
    },
  };
  const rec = computeReport(exportOf('CLASSIFY', config, items, answer), { bootstrap: 0 }).reconciliation;
  if (!rec) throw new Error('no reconciliation');

  test('per class both sides and the reasons', () => {
    expect(rec.findings).toEqual([]);
    expect(rowOf(rec.rows, 'aggregate', '')).toMatchObject({ service: 0.5, evalkit: 0.6, evalkitCounts: { k: 3, n: 5 }, differs: true });
    expect(codes(rowOf(rec.rows, 'aggregate', ''))).toEqual({ 'class-read': 1, 'failed-runs': 1 });
    expect(rowOf(rec.rows, 'class', 'invoice', 'precision')).toMatchObject({ service: 1, evalkit: 1, differs: false, evalkitMetric: 'class:invoice.precision' });
    expect(rowOf(rec.rows, 'class', 'invoice', 'f1').evalkit).toBeCloseTo(2 / 3, 12);
    expect(rowOf(rec.rows, 'class', 'receipt', 'precision')).toMatchObject({ service: 0.5, serviceCounts: { k: 1, n: 2 }, evalkitCounts: { k: 2, n: 3 }, differs: true });
    expect(rowOf(rec.rows, 'class', 'receipt', 'precision').evalkit).toBeCloseTo(2 / 3, 12);
    expect(rowOf(rec.rows, 'class', 'receipt', 'recall')).toMatchObject({ service: 0.5, evalkit: 1, differs: true });
    expect(rowOf(rec.rows, 'class', 'receipt', 'f1').evalkit).toBeCloseTo(0.8, 12);
    expect(codes(rowOf(rec.rows, 'class', 'receipt', 'recall'))).toEqual({ 'class-read': 1 });
    // contract: undefined on the service's side (0 expected, 0 predicted); evalkit recall 0 of 1, precision undefined.
    expect(rowOf(rec.rows, 'class', 'contract', 'recall')).toMatchObject({ service: null, recomputed: null, evalkit: 0, differs: false });
    expect(rowOf(rec.rows, 'class', 'contract', 'precision')).toMatchObject({ service: null, evalkit: null });
    expect(codes(rowOf(rec.rows, 'class', 'contract', 'recall'))).toEqual({ 'failed-runs': 1 });
  });
});

describe('SPLITTER', () => {
  const items = [
    // The receipt is off by one page: wrong on both sides.
    item('1', { splits: [{ type: 'invoice', startPage: 1, endPage: 3 }, { type: 'receipt', startPage: 4, endPage: 5 }] }, { splits: [{ type: 'invoice', startPage: 1, endPage: 3 }, { type: 'receipt', startPage: 4, endPage: 6 }] }, { pageCount: 6 }),
    // A split past the last page: the service counts it, evalkit leaves it out.
    item('2', { splits: [{ type: 'invoice', startPage: 1, endPage: 2 }] }, { splits: [{ type: 'invoice', startPage: 1, endPage: 2 }, { type: 'receipt', startPage: 3, endPage: 9 }] }, { pageCount: 3 }),
  ];
  const answer: ExportServiceMetrics = { type: 'SPLITTER', numSplitsExpected: 3, numSplitsPredicted: 4, numSplitsCorrect: 2, precision: 0.5, recall: 2 / 3, f1: 4 / 7 };
  const report = computeReport(exportOf('SPLITTER', {}, items, answer), { bootstrap: 0 });
  const rec = report.reconciliation;
  if (!rec) throw new Error('no reconciliation');

  test('precision, recall, F1 both sides and the reason', () => {
    expect(rec.findings).toEqual([]);
    expect(rowOf(rec.rows, 'split', '', 'precision')).toMatchObject({ service: 0.5, serviceCounts: { k: 2, n: 4 }, evalkitCounts: { k: 2, n: 3 }, differs: true });
    expect(rowOf(rec.rows, 'split', '', 'precision').evalkit).toBeCloseTo(2 / 3, 12);
    expect(rowOf(rec.rows, 'split', '', 'recall')).toMatchObject({ differs: false, evalkitCounts: { k: 2, n: 3 } });
    expect(rowOf(rec.rows, 'split', '', 'f1').evalkit).toBeCloseTo(2 / 3, 12);
    expect(codes(rowOf(rec.rows, 'split', '', 'f1'))).toEqual({ 'splits-left-out': 1 });
  });

  test('a wrong split count is a finding', () => {
    const r = computeReport(exportOf('SPLITTER', {}, items, { ...answer, numSplitsCorrect: 3 }), { bootstrap: 0 });
    expect(r.reconciliation?.findings).toEqual([{ metric: 'numSplitsCorrect', service: 3, recomputed: 2 }]);
  });
});

describe('a partial run', () => {
  test('FAILED is refused unless allowPartial, naming /service/status', () => {
    const exp = exportOf('EXTRACT', EXTRACT_CONFIG, EXTRACT_ITEMS, EXTRACT_ANSWER, 'FAILED');
    let err: unknown;
    try {
      computeReport(exp, { bootstrap: 0, sourceFile: 'x.json' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toContain('evr_1 is FAILED');
    expect((err as InputError).location).toMatchObject({ file: 'x.json', pointer: '/service/status' });
    expect((err as InputError).hint).toContain('--allow-partial');
    const r = computeReport(exp, { bootstrap: 0, allowPartial: true });
    expect(r.reconciliation?.partial).toBe(true);
    expect(r.warnings.some((w) => w.includes('partial run'))).toBe(true);
  });
});

describe("users' keys", () => {
  test('fields named __proto__ and constructor are reconciled like any other', () => {
    const config = JSON.parse('{"schema":{"type":"object","properties":{"__proto__":{"type":["string","null"]},"constructor":{"type":["string","null"]}}}}');
    const items = [item('1', JSON.parse('{"value":{"__proto__":"a","constructor":"b"}}'), JSON.parse('{"value":{"__proto__":"a","constructor":"x"}}'))];
    const metrics = JSON.parse('{"type":"EXTRACT","accuracy":0.5,"fieldMetrics":{"__proto__":{"countTotal":1,"countPresent":1,"countExpected":1,"countAccurate":1,"accuracy":1},"constructor":{"countTotal":1,"countPresent":1,"countExpected":1,"countAccurate":1,"accuracy":1}}}');
    const rec = computeReport(exportOf('EXTRACT', config, items, metrics), { bootstrap: 0 }).reconciliation;
    expect(rowOf(rec?.rows ?? [], 'field', '__proto__')).toMatchObject({ service: 1, recomputed: 1, evalkit: 1, differs: false });
    expect(rowOf(rec?.rows ?? [], 'field', 'constructor')).toMatchObject({ service: 1, recomputed: 0, evalkit: 0, differs: true });
    expect(rec?.findings).toEqual([
      { metric: 'fieldMetrics.constructor.countAccurate', service: 1, recomputed: 0 },
      { metric: 'fieldMetrics.constructor.accuracy', service: 1, recomputed: 0 },
    ]);
  });
});

describe('several runs: each run with the service run gets its own reconciliation', () => {
  // Run b: the same set, a's date now extracted as 2024-04-17, so the service's date is 2 of 2
  // there; its answer claims invoice_number 1 of 2 where its recomputation gives 2 of 2.
  const itemsB = EXTRACT_ITEMS.map((x) => (x.id === 'a' ? { ...x, output: { value: { ...(x.output as { value: object }).value, date: '2024-04-17' } } } : x));
  const answerB = structuredClone(EXTRACT_ANSWER);
  Object.assign((answerB.fieldMetrics as Record<string, object>).invoice_number, { countAccurate: 1, accuracy: 0.5 });
  Object.assign(answerB, { accuracy: 0.75 });
  const a = exportOf('EXTRACT', EXTRACT_CONFIG, EXTRACT_ITEMS, EXTRACT_ANSWER);
  const b: EvaluationExport = { ...exportOf('EXTRACT', EXTRACT_CONFIG, itemsB, answerB), service: { evaluationSetRunId: 'evr_2', status: 'PROCESSED', metrics: answerB } };
  const { service: _s, ...c } = exportOf('EXTRACT', EXTRACT_CONFIG, EXTRACT_ITEMS, undefined);

  const check = (report: Report): void => {
    // The reference (a) as before: date 1 of 2 recomputed against the answer's 2 of 2.
    expect(report.reconciliation?.evaluationSetRunId).toBe('evr_1');
    expect(report.reconciliation?.findings.map((f) => f.metric)).toEqual(['fieldMetrics.date.countAccurate', 'fieldMetrics.date.accuracy']);
    expect(rowOf(report.reconciliation?.rows ?? [], 'aggregate', '').recomputed).toBe(0.625);
    const runs = report.runs?.runs ?? [];
    expect(runs.map((r) => r.file)).toEqual(['a.json', 'b.json', 'c.json']);
    expect(runs[0].reconciliation).toBeUndefined();
    expect(runs[2].reconciliation).toBeUndefined();
    const rb = runs[1].reconciliation;
    if (!rb) throw new Error('no reconciliation for run b');
    expect(rb.evaluationSetRunId).toBe('evr_2');
    // b's date: a and b equal as JSON: 2 / 2; evalkit's recall 2 / 3 (c's run failed).
    expect(rowOf(rb.rows, 'field', 'date')).toMatchObject({ service: 1, recomputed: 1, evalkitCounts: { k: 2, n: 3 }, differs: true });
    expect(codes(rowOf(rb.rows, 'field', 'date'))).toEqual({ 'failed-runs': 1 });
    // Pooled over b: invoice 2 + date 2 + vendor.name 1 + line_items 1 = 6 of 8.
    expect(rowOf(rb.rows, 'aggregate', '')).toMatchObject({ service: 0.75, recomputed: 0.75 });
    expect(rb.findings).toEqual([
      { metric: 'fieldMetrics.invoice_number.countAccurate', service: 1, recomputed: 2 },
      { metric: 'fieldMetrics.invoice_number.accuracy', service: 0.5, recomputed: 1 },
    ]);
    expect(report.warnings.some((w) => w.startsWith('reconciliation of run #1 b.json:') && w.includes('fieldMetrics.invoice_number.countAccurate 1 (recomputed 2)'))).toBe(true);
    const files = { md: renderMarkdown(report), html: overviewHtml(report) };
    expect(files.md).toContain("### The service's figures of run #1 `b.json` (evaluation set run `evr_2`, PROCESSED)");
    expect(files.html).toContain('id="reconciliation-run-1"');
    expect(files.html).not.toContain('id="reconciliation-run-2"');
  };

  test('exports in memory (computeReport)', () => {
    check(computeReport(a, { bootstrap: 0, sourceFile: 'a.json', runs: [{ file: 'b.json', export: b }, { file: 'c.json', export: c as EvaluationExport }] }));
  });

  test('exports read item by item (computeReportStream, as evalkit report --from A --from B --from C)', async () => {
    const streamed = (file: string, e: EvaluationExport) => {
      const { items, ...header } = e;
      return { file, header, items: () => items };
    };
    check(await computeReportStream(streamed('a.json', a).header, () => a.items, { bootstrap: 0, sourceFile: 'a.json', runs: [streamed('b.json', b), streamed('c.json', c as EvaluationExport)] }, new MemoryDocuments()));
  });

  test("a later run's partial service run is refused by its file unless allowPartial", () => {
    const failed: EvaluationExport = { ...b, service: { ...(b.service as NonNullable<EvaluationExport['service']>), status: 'FAILED' } };
    const runs = [{ file: 'b.json', export: failed }];
    let err: unknown;
    try {
      computeReport(a, { bootstrap: 0, sourceFile: 'a.json', runs });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).location).toMatchObject({ file: 'b.json', pointer: '/service/status' });
    const r = computeReport(a, { bootstrap: 0, sourceFile: 'a.json', runs, allowPartial: true });
    expect(r.runs?.runs[1].reconciliation?.partial).toBe(true);
    expect(r.warnings.some((w) => w.startsWith('b.json: the service') && w.includes('FAILED'))).toBe(true);
  });
});

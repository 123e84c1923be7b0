// A baseline is held to what --from is held to: a baseline export whose service run did not end
// PROCESSED, or a report.json made of such a run with --allow-partial, is refused unless
// allowPartial; and a baseline of failures alone never lets --fail-on-regression pass.
import { describe, expect, it } from 'vitest';
import { computeReport, type BaselineInput, type EvaluationExport } from '../../src/index.js';
import { InputError } from '../../src/util/errors.js';
import { MemoryDocuments } from '../../src/report/documents.js';
import type { DocumentRecord } from '../../src/report/index.js';
import { extractExport } from '../metrics/helpers.js';

const config = { fields: [{ name: 'total', type: 'number' }, { name: 'vendor', type: 'string' }] };
const twelve = (failed: boolean): EvaluationExport =>
  extractExport(
    config,
    Array.from({ length: 12 }, (_, i) => ({ e: { total: i + 1, vendor: `V${i}` }, p: failed ? null : { total: i + 1, vendor: `V${i}` } })),
  );
const withService = (exp: EvaluationExport, status: 'PROCESSED' | 'FAILED' | 'CANCELLED' | 'PROCESSING'): EvaluationExport => ({ ...exp, service: { evaluationSetRunId: 'evr_9', status } });

function refusal(run: () => unknown): InputError {
  try {
    run();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('not refused');
}

/** A report.json as a baseline reads it: the report and its document records. */
function asReportBaseline(exp: EvaluationExport, opts: Parameters<typeof computeReport>[1]): BaselineInput {
  const sink = new MemoryDocuments();
  const report = computeReport(exp, { bootstrap: 0, ...opts }, sink);
  return { kind: 'report', file: 'report.json', report, documents: sink.lines.map((l) => JSON.parse(l) as DocumentRecord) };
}

describe('a partial baseline', () => {
  const good = withService(twelve(false), 'PROCESSED');

  it.each(['FAILED', 'CANCELLED', 'PROCESSING'] as const)('an export whose service run is %s: refused naming the file, /service/status and --allow-partial', (status) => {
    const e = refusal(() => computeReport(good, { bootstrap: 0, failOnRegression: true, baseline: { kind: 'export', file: 'failed.json', export: withService(twelve(true), status) } }));
    expect(e.message).toBe(`baseline failed.json: the service's evaluation set run evr_9 is ${status}, not PROCESSED: a partial run is not a baseline`);
    expect(e.location).toEqual({ file: 'failed.json', pointer: '/service/status' });
    expect(e.hint).toContain('--allow-partial');
  });

  it('a report.json made with --allow-partial: refused naming /reconciliation/partial', () => {
    const partial = asReportBaseline(withService(twelve(false), 'CANCELLED'), { allowPartial: true });
    const e = refusal(() => computeReport(good, { bootstrap: 0, baseline: partial }));
    expect(e.message).toBe(
      "baseline report.json is the report of a partial run (the service's evaluation set run evr_9 is CANCELLED, not PROCESSED; it was scored with --allow-partial): a partial run is not a baseline",
    );
    expect(e.location).toEqual({ file: 'report.json', pointer: '/reconciliation/partial' });
  });

  it('allowPartial compares with it and says so; a complete baseline has no such warning', () => {
    const partial = asReportBaseline(withService(twelve(false), 'CANCELLED'), { allowPartial: true });
    const r = computeReport(good, { bootstrap: 0, allowPartial: true, failOnRegression: true, baseline: partial });
    expect(r.baseline?.warnings[0]).toMatch(/^partial baseline report\.json is the report of a partial run .*compared as asked \(--allow-partial\)/);
    expect(r.gates.passed).toBe(true);
    const complete = computeReport(good, { bootstrap: 0, baseline: asReportBaseline(good, {}) });
    expect(complete.baseline?.warnings.some((w) => w.includes('partial'))).toBe(false);
  });
});

describe('a baseline where every run failed', () => {
  const reason = 'every run of the baseline failed.json failed (12 of 12): it has no output to regress from, so a regression check against it is no evidence; compare with a run that processed';

  it('fails --fail-on-regression, also with allowPartial (the export of a FAILED service run)', () => {
    const failed: BaselineInput = { kind: 'export', file: 'failed.json', export: withService(twelve(true), 'FAILED') };
    const r = computeReport(withService(twelve(false), 'PROCESSED'), { bootstrap: 0, allowPartial: true, failOnRegression: true, baseline: failed });
    // The comparison itself shows only improvements: nothing in the baseline could go wrong.
    expect(r.baseline?.tally.regressed).toBe(0);
    expect(r.gates.results.find((g) => g.metric === 'baseline.processed')).toEqual({ gate: 'baseline.processed>=1', metric: 'baseline.processed', threshold: 1, op: '>=', on: 'point', value: 0, passed: false, reason });
    expect(r.gates.passed).toBe(false);
  });

  it('fails it when the export records no service run, and when it is a report.json', () => {
    const plain = computeReport(twelve(false), { bootstrap: 0, failOnRegression: true, baseline: { kind: 'export', file: 'failed.json', export: twelve(true) } });
    expect(plain.gates.passed).toBe(false);
    expect(plain.gates.results.at(-1)?.reason).toBe(reason);
    const asReport = { ...asReportBaseline(twelve(true), {}), file: 'failed.json' };
    const r = computeReport(twelve(false), { bootstrap: 0, failOnRegression: true, baseline: asReport });
    expect(r.gates.passed).toBe(false);
    expect(r.gates.results.find((g) => g.metric === 'baseline.processed')?.reason).toBe(reason);
  });

  it('without --fail-on-regression: compared, with a warning and no gate', () => {
    const r = computeReport(twelve(false), { bootstrap: 0, baseline: { kind: 'export', file: 'failed.json', export: twelve(true) } });
    expect(r.baseline?.warnings[0]).toBe('every run of the baseline failed (12 of 12): it has no output to regress from, so its verdicts are no evidence');
    expect(r.gates.results).toEqual([]);
  });

  it('one processed run in the baseline: no such gate', () => {
    const some = twelve(true);
    some.items[0] = twelve(false).items[0];
    const r = computeReport(twelve(false), { bootstrap: 0, failOnRegression: true, allowUnderpowered: true, baseline: { kind: 'export', file: 'b.json', export: some } });
    expect(r.gates.results.some((g) => g.metric === 'baseline.processed')).toBe(false);
  });
});

// Confidence: calibration (bins, ECE, Brier, AUROC) against hand-computed values, the threshold
// rule on the Wilson lower bound, and the report's confidence section from an export.
import { describe, expect, it } from 'vitest';
import { auroc, calibrate, confidenceFrom, thresholdSweep } from '../../src/metrics/calibration.js';
import { wilson } from '../../src/metrics/stats.js';
import { makeExport, report } from './helpers.js';

describe('calibration', () => {
  // conf 0.91, 0.82, 0.73, 0.64, 0.95; right 1, 1, 0, 1, 0.
  const conf = [0.91, 0.82, 0.73, 0.64, 0.95];
  const right = [1, 1, 0, 1, 0];

  it('bins, ECE and Brier by hand', () => {
    const c = calibrate(conf, right);
    // Bins 9 (0.91, 0.95: accuracy 0.5, mean 0.93), 8 (0.82: 1), 7 (0.73: 0), 6 (0.64: 1).
    expect(c.bins.map((b) => [b.lower, b.count])).toEqual([
      [0.6, 1],
      [0.7, 1],
      [0.8, 1],
      [0.9, 2],
    ]);
    expect(c.bins[3].meanConfidence).toBeCloseTo(0.93, 12);
    expect(c.bins[3].accuracy).toBe(0.5);
    expect(c.bins[3].interval).toEqual(wilson(1, 2));
    // ECE = (1·0.36 + 1·0.73 + 1·0.18 + 2·0.43) / 5 = 2.13 / 5.
    expect(c.ece).toBeCloseTo(2.13 / 5, 12);
    // Brier = (0.09² + 0.18² + 0.73² + 0.36² + 0.95²) / 5.
    expect(c.brier).toBeCloseTo((0.0081 + 0.0324 + 0.5329 + 0.1296 + 0.9025) / 5, 12);
  });

  it('AUROC is the Mann-Whitney probability with ties counted half (scikit-learn roc_auc_score)', () => {
    // Right {0.91, 0.82, 0.64} against wrong {0.73, 0.95}: 0.91 > 0.73, 0.82 > 0.73: 2 of 6.
    expect(auroc(conf, right)).toBeCloseTo(2 / 6, 12);
    // A tie counts half: right 0.5 vs wrong 0.5 and 0.4 -> (0.5 + 1) / 2.
    expect(auroc([0.5, 0.5, 0.4], [1, 0, 0])).toBeCloseTo(0.75, 12);
    expect(auroc([0.5, 0.6], [1, 1])).toBeNull();
  });

  it('reads the asked confidence source; review scores 1-5 become 0-1; min takes the least', () => {
    const entry = { logprobsConfidence: 0.9, ocrConfidence: 0.7, reviewAgentScore: 4 };
    expect(confidenceFrom(entry, 'logprobs')).toBe(0.9);
    expect(confidenceFrom(entry, 'ocr')).toBe(0.7);
    expect(confidenceFrom(entry, 'review')).toBe(0.75);
    expect(confidenceFrom(entry, 'min')).toBe(0.7);
    expect(confidenceFrom({ ocrConfidence: 2 }, 'ocr')).toBeUndefined();
  });
});

describe('threshold sweep', () => {
  it('a point estimate that passes is not enough: the Wilson lower bound must reach the target', () => {
    // 5 right values: accuracy 1.0 >= 0.9, but the lower bound of 5 of 5 is 0.566.
    const five = thresholdSweep([0.99, 0.98, 0.97, 0.96, 0.95], [1, 1, 1, 1, 1], 5, 0.9);
    expect(five.points.at(-1)?.accuracy).toBe(1);
    expect(five.choice).toBeNull();
    // 100 right values at 0.9 and above, then wrong ones below: lower bound of 100 of 100 = 0.963.
    const conf = [...Array.from({ length: 100 }, (_, i) => 0.9 + i / 1000), 0.5, 0.4];
    const right = [...Array.from({ length: 100 }, () => 1), 0, 0];
    const hundred = thresholdSweep(conf, right, 110, 0.95);
    expect(hundred.choice).toMatchObject({ threshold: 0.9, accepted: 100, correct: 100, accuracy: 1 });
    expect(hundred.choice?.lower).toBeCloseTo(wilson(100, 100)?.lower ?? NaN, 12);
    expect(hundred.choice?.coverage).toBeCloseTo(100 / 110, 12);
  });
});

describe("the report's confidence section", () => {
  it('CLASSIFY: the output confidence against the class being right, and the straight-through rate', () => {
    const config = { type: 'CLASSIFY', classifications: [{ id: 'a', type: 'invoice' }, { id: 'b', type: 'receipt' }] };
    const docs = Array.from({ length: 40 }, (_, i) => ({ e: { id: 'a', type: 'invoice' }, p: i < 36 ? { id: 'a', type: 'invoice', confidence: 0.9 + i / 1000 } : { id: 'b', type: 'receipt', confidence: 0.5 } }));
    const r = report(makeExport('CLASSIFY', config, docs), { targetAccuracy: 0.85 });
    const c = r.calibration;
    expect(c?.fields.map((f) => f.path)).toEqual(['class']);
    expect(c?.overall.auroc).toBe(1);
    expect(c?.fields[0].threshold?.threshold).toBeCloseTo(0.9, 12);
    // 36 of 40 documents are accepted at 0.9.
    expect(c?.straightThrough).toMatchObject({ k: 36, n: 40 });
  });

  it('CLASSIFY: a confidence outside 0 to 1 is no confidence (counted apart, not in the mean), and the report is valid', () => {
    const config = { type: 'CLASSIFY', classifications: [{ id: 'a', type: 'invoice' }] };
    const confs = [7, -0.5, 1.5, 0.8, 0.4];
    const docs = confs.map((confidence, i) => ({ e: { id: 'a', type: 'invoice' }, p: { id: 'a', type: i === 4 ? 'receipt' : 'invoice', confidence } }));
    // report() checks the result against schemas/report.schema.json (a mean confidence of 7 in a bin failed it).
    const r = report(makeExport('CLASSIFY', config, docs));
    expect(r.calibration?.fields[0]).toMatchObject({ withConfidence: 2, withoutConfidence: 3 });
    expect(r.classify?.meanConfidence).toBeCloseTo((0.8 + 0.4) / 2, 12);
  });

  it('EXTRACT: metadata by the predicted path, line-item rows by the predicted row; values without confidence are counted apart', () => {
    const config = { type: 'EXTRACT', schema: { type: 'object', properties: { total: { type: 'number' }, items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } } } } };
    const e = { value: { total: 1, items: [{ sku: 'A' }, { sku: 'B' }] } };
    // The predicted rows come in the other order: metadata items[0] is sku B (right, 0.9), items[1] sku A (right, 0.8).
    const p = { value: { total: 2, items: [{ sku: 'B' }, { sku: 'A' }] }, metadata: { total: { logprobsConfidence: 0.3 }, 'items[0].sku': { logprobsConfidence: 0.9 } } };
    const r = report(makeExport('EXTRACT', config, [{ e, p }]));
    const f = Object.fromEntries((r.calibration?.fields ?? []).map((x) => [x.path, x]));
    expect(f['items[].sku']).toMatchObject({ withConfidence: 1, withoutConfidence: 1 });
    expect(f['items[].sku'].bins).toMatchObject([{ lower: 0.9, count: 1, accuracy: 1 }]);
    expect(f.total).toMatchObject({ withConfidence: 1, withoutConfidence: 0 });
    expect(f.total.bins).toMatchObject([{ lower: 0.3, count: 1, accuracy: 0 }]);
    expect(r.calibration?.source).toBe('logprobs');
  });
});

describe('EXTRACT confidence in some documents only', () => {
  it('values of documents before, between and after those with a confidence are counted without one', () => {
    const config = { type: 'EXTRACT', schema: { type: 'object', properties: { total: { type: 'number' }, items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } } } } };
    const e = { value: { total: 1, items: [{ sku: 'A' }] } };
    const plain = { value: { total: 1, items: [{ sku: 'A' }] } };
    const withConf = { value: { total: 1, items: [{ sku: 'A' }] }, metadata: { total: { logprobsConfidence: 0.9 } } };
    const wrong = { value: { total: 2, items: [{ sku: 'A' }] } };
    const r = report(makeExport('EXTRACT', config, [{ e, p: plain }, { e, p: plain }, { e, p: withConf }, { e, p: wrong }, { e, p: null }]), { targetAccuracy: 0.5 });
    const f = Object.fromEntries((r.calibration?.fields ?? []).map((x) => [x.path, x]));
    expect(f.total).toMatchObject({ withConfidence: 1, withoutConfidence: 3 });
    expect(f['items[].sku']).toMatchObject({ withConfidence: 0, withoutConfidence: 4 });
    // Only a document whose every value has a confidence can go straight through: none here.
    expect(r.documents.map((d) => d.straightThrough)).toEqual([false, false, false, false, false]);
  });
});

describe('straight-through against a baseline', () => {
  it('both rates over the paired documents, each at its own thresholds, with a paired interval', () => {
    const config = { type: 'CLASSIFY', classifications: [{ id: 'a', type: 'invoice' }, { id: 'b', type: 'receipt' }] };
    const run = (wrong: number) =>
      makeExport(
        'CLASSIFY',
        config,
        Array.from({ length: 40 }, (_, i) => ({ e: { id: 'a', type: 'invoice' }, p: i < 40 - wrong ? { id: 'a', type: 'invoice', confidence: 0.9 + i / 1000 } : { id: 'b', type: 'receipt', confidence: 0.5 } })),
      );
    const r = report(run(4), { targetAccuracy: 0.85, bootstrap: 300, baseline: { kind: 'export', file: 'b.json', export: run(0) } });
    const st = r.baseline?.straightThrough;
    expect(st).toMatchObject({ current: 36 / 40, baseline: 1, paired: 40 });
    expect(st?.delta).toBeCloseTo(-0.1, 12);
    expect(st?.interval?.upper).toBeLessThan(0);
    expect(r.documents.filter((d) => d.straightThrough).length).toBe(36);
  });
});

// CLASSIFY metrics against reference values from scikit-learn, committed in
// test/fixtures/metrics/classify-sklearn.json (see its `_about` for the exact calls).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeExport, report } from './helpers.js';

interface Reference {
  documents: Array<{ expected: string; predicted: string | null; confidence: number | null }>;
  labels: string[];
  accuracy: number;
  perClass: Record<string, { precision: number; recall: number; f1: number; support: number }>;
  macro: { precision: number; recall: number; f1: number };
  weighted: { f1: number };
  confusionMatrix: { labels: string[]; rows: number[][] };
  meanConfidence: number;
}

const ref = JSON.parse(readFileSync(new URL('../fixtures/metrics/classify-sklearn.json', import.meta.url), 'utf8')) as Reference;

const CLASSES = ['invoice', 'receipt', 'contract', 'letter'];
const config = { type: 'CLASSIFY', classifications: CLASSES.map((type) => ({ id: `cls_${type}`, type, description: type })) };

// Outputs name their class by type, some by id only (the config maps id -> type).
const exp = makeExport(
  'CLASSIFY',
  config,
  ref.documents.map((d, i) => ({
    e: { id: `cls_${d.expected}`, type: d.expected },
    p: d.predicted === null ? null : i % 3 === 0 && CLASSES.includes(d.predicted) ? { id: `cls_${d.predicted}`, confidence: d.confidence } : { type: d.predicted, confidence: d.confidence },
  })),
);

describe('CLASSIFY metrics match scikit-learn', () => {
  const r = report(exp, { bootstrap: 200 });
  const c = r.classify;
  if (!c) throw new Error('no classify section');

  it('accuracy', () => {
    expect(c.accuracy.value).toBeCloseTo(ref.accuracy, 12);
    expect([c.accuracy.k, c.accuracy.n]).toEqual([13, 20]);
  });

  it('per-class precision, recall, F1 and support', () => {
    expect(c.classes.map((k) => k.label)).toEqual(ref.labels);
    for (const k of c.classes) {
      const want = ref.perClass[k.label];
      expect([k.label, k.support]).toEqual([k.label, want.support]);
      expect(k.precision.value ?? 0).toBeCloseTo(want.precision, 12);
      expect(k.f1.value ?? 0).toBeCloseTo(want.f1, 12);
      // sklearn's zero_division=0 writes 0 for an undefined recall; evalkit reports null.
      if (want.support === 0) expect(k.recall.value).toBeNull();
      else expect(k.recall.value).toBeCloseTo(want.recall, 12);
    }
  });

  it('macro precision, recall, F1 and weighted F1', () => {
    expect(c.macro.precision.value).toBeCloseTo(ref.macro.precision, 12);
    expect(c.macro.recall.value).toBeCloseTo(ref.macro.recall, 12);
    expect(c.macro.f1.value).toBeCloseTo(ref.macro.f1, 12);
    expect(c.weighted.f1.value).toBeCloseTo(ref.weighted.f1, 12);
    expect(c.macro.f1.interval).not.toBeNull();
  });

  it('confusion matrix (expected -> predicted -> count)', () => {
    const { labels, rows } = ref.confusionMatrix;
    const want: Record<string, Record<string, number>> = {};
    rows.forEach((row, i) =>
      row.forEach((n, j) => {
        if (n > 0) (want[labels[i]] ??= {})[labels[j]] = n;
      }),
    );
    expect(c.confusionMatrix).toEqual(want);
  });

  it('mean confidence over the runs that gave one', () => {
    expect(c.meanConfidence).toBeCloseTo(ref.meanConfidence, 12);
  });

  it('lists the failed run and scores it as no class', () => {
    expect(r.failures.map((f) => f.id)).toEqual(['item_004']);
    expect(r.documents[4].classify).toEqual({ confidence: null, expected: 'invoice', predicted: null });
  });
});

describe('CLASSIFY edge cases', () => {
  it('a class the config declares but no document has is listed with null ratios and left out of the means', () => {
    const r = report(
      makeExport('CLASSIFY', { classifications: [{ id: 'a', type: 'A' }, { id: 'b', type: 'B' }, { id: 'z', type: 'Z' }] }, [
        { e: { type: 'A' }, p: { type: 'A', confidence: 0.5 } },
        { e: { type: 'B' }, p: { type: 'A', confidence: 1 } },
      ]),
    );
    const z = r.classify?.classes.find((k) => k.label === 'Z');
    expect([z?.support, z?.precision.value, z?.recall.value, z?.f1.value]).toEqual([0, null, null, null]);
    // A: P 1/2, R 1, F1 2/3; B: P 0 (none predicted: counted 0), R 0, F1 0.
    expect(r.classify?.macro.f1.value).toBeCloseTo(1 / 3, 12);
    expect(r.classify?.weighted.f1.value).toBeCloseTo((1 * (2 / 3) + 1 * 0) / 2, 12);
    expect(r.classify?.meanConfidence).toBe(0.75);
  });

  it('says when a bootstrap interval leaves out its own estimate (a mean over many classes of a few documents each)', () => {
    // 40 classes, each expected twice: once predicted right (its one prediction), once not at all.
    // Every class's precision is 1/1, so macro precision is 1; a resample that draws the missed
    // document of a class but not the right one counts that class's precision as 0, so every
    // resample's mean is below 1 and the percentile interval lies below the estimate.
    const classes = Array.from({ length: 40 }, (_, c) => ({ id: `c${c}`, type: `t${c}` }));
    const docs = classes.flatMap((c) => [{ e: { type: c.type }, p: { type: c.type, confidence: 0.9 } }, { e: { type: c.type }, p: null }]);
    const r = report(makeExport('CLASSIFY', { classifications: classes }, docs), { bootstrap: 200, seed: 1 });
    const precision = r.classify!.macro.precision;
    expect(precision.value).toBe(1);
    expect(precision.interval!.upper).toBeLessThan(1);
    const warning = r.warnings.filter((w) => w.startsWith('bootstrap interval without its own estimate'));
    expect(warning).toHaveLength(1);
    expect(warning[0]).toMatch(/: macro\.precision 1\.000 outside \[0\.\d{3}, 0\.\d{3}\](; [^;]+)*; read these intervals as approximate$/);
    // Without the bootstrap there is no interval, so nothing to say.
    expect(report(makeExport('CLASSIFY', { classifications: classes }, docs)).warnings.filter((w) => w.startsWith('bootstrap interval'))).toEqual([]);
  });
});

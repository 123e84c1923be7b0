// Slices: headline metrics per metadata value, file type and page-count bucket, and the flag of
// slices significantly worse than the rest, against hand-computed values.
import { describe, expect, it } from 'vitest';
import { ClusterSums, normalCdf, wilson } from '../../src/metrics/stats.js';
import { fileTypeOf, parseSliceKeys, sliceLabel, zTest } from '../../src/report/slices.js';
import type { ExportItem } from '../../src/metrics/index.js';
import { extractExport, makeExport, report } from '../metrics/helpers.js';

const CLASSES = ['invoice', 'receipt'];
const classify = { type: 'CLASSIFY', classifications: CLASSES.map((type) => ({ id: `cls_${type}`, type, description: type })) };

/** 10 documents of vendor A with 2 right, 20 of vendor B with 18 right. */
function vendorExport() {
  const docs = [
    ...Array.from({ length: 10 }, (_, i) => ({ vendor: 'A', right: i < 2 })),
    ...Array.from({ length: 20 }, (_, i) => ({ vendor: 'B', right: i < 18 })),
  ];
  const exp = makeExport(
    'CLASSIFY',
    classify,
    docs.map((d) => ({ e: { type: 'invoice' }, p: { type: d.right ? 'invoice' : 'receipt', confidence: 0.9 } })),
  );
  exp.items.forEach((it, i) => (it.metadata = { vendor: docs[i].vendor }));
  return exp;
}

describe('normal CDF', () => {
  it('matches erfc to 1e-7', () => {
    // Python: 0.5 * math.erfc(-z / math.sqrt(2))
    expect(normalCdf(1.96)).toBeCloseTo(0.9750021048517795, 7);
    expect(normalCdf(-1)).toBeCloseTo(0.15865525393145707, 7);
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(-3.143801240303227)).toBeCloseTo(0.0008338433478677229, 8);
  });
});

describe('slice test', () => {
  it('is the cluster-robust z-test under the pooled ratio (hand-computed)', () => {
    // p0 = 20/30. Slice: Σ(k − p0)² = 2·(1/3)² + 8·(2/3)² = 34/9, v = (10/9)·(34/9)/10² = 0.0419753.
    // Rest: 18·(1/3)² + 2·(2/3)² = 26/9, v = (20/19)·(26/9)/20² = 0.00760234.
    // z = (0.2 − 0.9)/√(v_s + v_r) = −3.14380, p = Φ(z) = 0.000833843.
    const s = new ClusterSums();
    const r = new ClusterSums();
    for (let i = 0; i < 10; i++) s.add(i < 2 ? 1 : 0, 1);
    for (let i = 0; i < 20; i++) r.add(i < 18 ? 1 : 0, 1);
    expect(s.robustVariance(2 / 3)).toBeCloseTo(0.04197530864197531, 12);
    expect(r.robustVariance(2 / 3)).toBeCloseTo(0.00760233918128655, 12);
    expect(zTest(s, r, 2 / 3)).toBeCloseTo(0.0008338433478677229, 8);
    // Fewer than 2 documents on a side: not tested.
    const one = new ClusterSums();
    one.add(1, 1);
    expect(zTest(one, r, 2 / 3)).toBeNull();
  });

  it('flags the worse vendor after Holm, with Wilson intervals per slice', () => {
    const r = report(vendorExport(), { sliceBy: ['metadata.vendor'] });
    const s = r.slices!;
    expect(s.metric).toBe('accuracy');
    expect(s.tested).toBe(2);
    const [b, a] = s.groups[0].slices; // largest first
    expect(b.label).toBe('B');
    expect(a.label).toBe('A');
    expect(a.metrics.accuracy.value).toBeCloseTo(0.2, 12);
    expect(a.metrics.accuracy.interval).toEqual(wilson(2, 10));
    expect(a.rest).toBeCloseTo(0.9, 12);
    expect(a.delta).toBeCloseTo(-0.7, 12);
    expect(a.p).toBeCloseTo(0.0008338433478677229, 8);
    // Holm over 2 tests: the smaller p doubled.
    expect(a.pHolm).toBeCloseTo(2 * 0.0008338433478677229, 8);
    expect(a.flagged).toBe(true);
    expect(b.flagged).toBe(false);
    expect(b.pHolm).toBeCloseTo(1 - 0.0008338433478677229, 8);
    expect(r.options.sliceBy).toEqual(['metadata.vendor']);
  });

  it('EXTRACT: the slice metrics over all documents are the report\'s micro F1, precision and recall', () => {
    const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } } } };
    const exp = extractExport(cfg, [
      { e: { a: 'x', b: 'y', c: 'z' }, p: { a: 'x', b: 'y', c: 'z' } },
      { e: { a: 'x', b: 'y', c: null }, p: { a: 'x', b: 'q', c: 'z' } },
      { e: { a: 'x', b: 'y', c: 'z' }, p: { a: null, b: 'y', c: 'z', extra: 1 } },
      { e: { a: 'x', b: 'y', c: 'z' }, p: null },
    ]);
    const r = report(exp, { sliceBy: ['fileType'] });
    const all = r.slices!.groups[0].slices;
    expect(all).toHaveLength(1);
    expect(all[0].label).toBe('(none)');
    const m = all[0].metrics;
    const x = r.extract!;
    expect(m.f1.value).toBeCloseTo(x.micro.f1.value!, 12);
    expect(m.precision.value).toBeCloseTo(x.micro.precision.value!, 12);
    expect(m.recall.value).toBeCloseTo(x.micro.recall.value!, 12);
    expect(m.precision.interval).toEqual(x.micro.precision.interval);
    expect(m.documentAccuracy.value).toBeCloseTo(x.document.accuracy.value!, 12);
    expect(all[0].failed).toBe(1);
    // One slice: nothing to compare with.
    expect(all[0].p).toBeNull();
    expect(r.slices!.tested).toBe(0);
  });
});

describe('slice keys', () => {
  const item = (over: Partial<ExportItem>): ExportItem => ({ id: 'i', fileId: 'f', expectedOutput: {}, output: null, status: 'FAILED', ...over });

  it('parses metadata paths, fileType and page-count buckets', () => {
    const keys = parseSliceKeys(['vendor', 'metadata.layout.kind,fileType', 'pageCount', 'pageCount:1;3;10', 'vendor']);
    expect(keys.map((k) => k.spec)).toEqual(['metadata.vendor', 'metadata.layout.kind', 'fileType', 'pageCount', 'pageCount:1;3;10']);
    expect(() => parseSliceKeys(['pageCount:3;1'])).toThrow(/increasing/);
    expect(() => parseSliceKeys(['metadata..x'])).toThrow(/empty segment/);
  });

  it('labels documents, with (none) for a missing value', () => {
    const [vendor, kind, type, pages, custom] = parseSliceKeys(['vendor', 'metadata.layout.kind', 'fileType', 'pageCount', 'pageCount:1;3;10']);
    expect(sliceLabel(vendor, item({ metadata: { vendor: 'Acme' } }))).toBe('Acme');
    expect(sliceLabel(vendor, item({ metadata: { vendor: 7 } }))).toBe('7');
    expect(sliceLabel(vendor, item({ metadata: { vendor: '' } }))).toBe('(none)');
    expect(sliceLabel(vendor, item({}))).toBe('(none)');
    // Users' keys are data: a prototype member is not a value.
    expect(sliceLabel(parseSliceKeys(['constructor'])[0], item({ metadata: {} }))).toBe('(none)');
    expect(sliceLabel(kind, item({ metadata: { layout: 'x' } as never }))).toBe('(none)');
    expect(sliceLabel(type, item({ fileName: 'inv 1.ek9deb197ac8be2b77e6a69f24.PDF' }))).toBe('PDF');
    expect(sliceLabel(type, item({ fileName: 'scan.jpeg' }))).toBe('IMG');
    expect(sliceLabel(type, item({ fileName: 'scan.jpeg', fileType: 'PDF' }))).toBe('PDF');
    expect(fileTypeOf({ fileName: 'noext' })).toBeUndefined();
    expect([1, 2, 3, 5, 6, 10, 11, 20, 21, 400].map((n) => sliceLabel(pages, item({ pageCount: n })))).toEqual(['1', '2', '3-5', '3-5', '6-10', '6-10', '11-20', '11-20', '21+', '21+']);
    expect([1, 2, 3, 4, 10, 11].map((n) => sliceLabel(custom, item({ pageCount: n })))).toEqual(['1', '2-3', '2-3', '4-10', '4-10', '11+']);
    expect(sliceLabel(pages, item({}))).toBe('(none)');
  });

  it('merges values past 50 into (other), listed last, keeping every document', () => {
    const exp = makeExport(
      'CLASSIFY',
      classify,
      Array.from({ length: 120 }, () => ({ e: { type: 'invoice' }, p: { type: 'invoice', confidence: 1 } })),
    );
    exp.items.forEach((it, i) => (it.metadata = { v: String(i < 20 ? 'big' : i) }));
    const s = report(exp, { sliceBy: ['v'] }).slices!;
    const g = s.groups[0].slices;
    expect(g).toHaveLength(50);
    expect(g[0].label).toBe('big');
    expect(g.at(-1)!.label).toBe('(other)');
    expect(g.reduce((n, x) => n + x.documents, 0)).toBe(120);
    expect(g.find((x) => x.label === '(other)')!.documents).toBe(120 - 20 - 48);
    expect(s.warnings[0]).toMatch(/101 values; the smallest 52 are merged/);
  });
});

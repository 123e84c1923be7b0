// SPLITTER metrics, hand-computed: exact split matching (type and page range, as the service
// counts numCorrectDocs), panoptic quality (same type, page-set IoU > 0.5) and page accuracy.
import { describe, expect, it } from 'vitest';
import { pageIou, scoreSplitterDoc, type Split } from '../../src/metrics/index.js';
import { makeExport, report } from './helpers.js';

const s = (type: string, startPage: number, endPage: number): Split => ({ type, startPage, endPage });
const out = (...splits: Split[]): object => ({ splits: splits.map((x, i) => ({ id: `s${i}`, classificationId: `c_${x.type}`, ...x })) });

describe('page-set IoU', () => {
  const cases: Array<[string, Split, Split, number]> = [
    ['same range', s('a', 1, 3), s('a', 1, 3), 1],
    ['2 of 3 pages', s('a', 1, 3), s('a', 1, 2), 2 / 3],
    ['half', s('a', 1, 2), s('a', 1, 4), 0.5],
    ['disjoint', s('a', 1, 2), s('a', 3, 4), 0],
    ['one page inside five', s('a', 3, 3), s('a', 1, 5), 0.2],
  ];
  it.each(cases)('%s', (_, a, b, want) => expect(pageIou(a, b)).toBeCloseTo(want, 15));
});

describe('one document', () => {
  const cases: Array<[string, Split[], Split[], Partial<ReturnType<typeof scoreSplitterDoc>>]> = [
    ['all exact', [s('invoice', 1, 2), s('receipt', 3, 3)], [s('receipt', 3, 3), s('invoice', 1, 2)], { correct: 2, pqTp: 2, pqFp: 0, pqFn: 0, iouSum: 2, pages: 3, pagesCorrect: 3 }],
    [
      'boundary shifted by one page: no exact match, both PQ-matched at IoU 2/3',
      [s('invoice', 1, 3), s('receipt', 4, 5)],
      [s('invoice', 1, 2), s('receipt', 3, 5)],
      { correct: 0, pqTp: 2, pqFp: 0, pqFn: 0, iouSum: 4 / 3, pages: 5, pagesCorrect: 4 },
    ],
    ['IoU exactly 0.5 does not match', [s('invoice', 1, 2)], [s('invoice', 1, 4)], { correct: 0, pqTp: 0, pqFp: 1, pqFn: 1, iouSum: 0, pages: 4, pagesCorrect: 2 }],
    ['same pages, other type', [s('invoice', 1, 2)], [s('receipt', 1, 2)], { correct: 0, pqTp: 0, pqFp: 1, pqFn: 1, pages: 2, pagesCorrect: 0 }],
    ['two merged into one', [s('invoice', 1, 1), s('invoice', 2, 2)], [s('invoice', 1, 2)], { correct: 0, pqTp: 0, pqFp: 1, pqFn: 2, pages: 2, pagesCorrect: 2 }],
    ['overlapping predictions: the higher IoU wins', [s('invoice', 1, 4)], [s('invoice', 1, 3), s('invoice', 1, 4)], { correct: 1, pqTp: 1, pqFp: 1, pqFn: 0, iouSum: 1 }],
    ['no prediction (failed run)', [s('invoice', 1, 2)], [], { expected: 1, predicted: 0, correct: 0, pqFn: 1, pages: 2, pagesCorrect: 0 }],
  ];
  it.each(cases)('%s', (_, E, P, want) => {
    const got = scoreSplitterDoc(E, P);
    for (const [k, v] of Object.entries(want)) {
      if (typeof v === 'number') expect([k, got[k as keyof typeof got]]).toEqual([k, expect.closeTo(v, 12)]);
    }
  });
});

describe('one document, splits in any order', () => {
  it('sums the matched IoUs to the same bits whatever the order of the splits (fast-check found 1.9500000000000002 against 1.95)', () => {
    const E = [s('invoice', 4, 7), s('invoice', 4, 7), s('receipt', 4, 7)];
    const P = [s('invoice', 4, 6), s('invoice', 3, 6), s('receipt', 3, 6)];
    const orders = (xs: Split[]): Split[][] => (xs.length <= 1 ? [xs] : xs.flatMap((x, i) => orders([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest])));
    const sums = new Set(orders(E).flatMap((e) => orders(P).map((p) => scoreSplitterDoc(e, p).iouSum)));
    // 3/4 + 3/5 + 3/5, smallest first.
    expect([...sums]).toEqual([0.6 + 0.6 + 0.75]);
  });
});

describe('SPLITTER aggregates', () => {
  const config = { type: 'SPLITTER', splitClassifications: [{ type: 'invoice' }, { type: 'receipt' }] };
  const exp = makeExport('SPLITTER', config, [
    { e: out(s('invoice', 1, 2), s('receipt', 3, 3)), p: out(s('invoice', 1, 2), s('receipt', 3, 3)) },
    { e: out(s('invoice', 1, 3), s('receipt', 4, 5)), p: out(s('invoice', 1, 2), s('receipt', 3, 5)) },
    { e: out(s('invoice', 1, 2)), p: out(s('invoice', 1, 4)) },
    // The 2024-11-14 output key is read too.
    { e: out(s('invoice', 1, 2)), p: { subDocumentClassifications: [{ type: 'receipt', startPage: 1, endPage: 2 }] } },
    { e: out(s('invoice', 1, 1), s('invoice', 2, 2)), p: out(s('invoice', 1, 2)) },
  ]);
  const r = report(exp);
  const x = r.splitter;
  if (!x) throw new Error('no splitter section');

  it('numExpectedDocs, numPredictedDocs, numCorrectDocs, precision, recall, F1 as the service defines them', () => {
    expect([x.numExpectedDocs, x.numPredictedDocs, x.numCorrectDocs]).toEqual([8, 7, 2]);
    expect(x.precision).toMatchObject({ k: 2, n: 7, value: 2 / 7 });
    expect(x.recall).toMatchObject({ k: 2, n: 8, value: 2 / 8 });
    expect(x.f1.value).toBeCloseTo(4 / 15, 15);
  });

  it('panoptic quality: PQ = sum of matched IoU / (TP + FP/2 + FN/2)', () => {
    expect([x.panoptic.tp, x.panoptic.fp, x.panoptic.fn]).toEqual([4, 3, 4]);
    expect(x.panoptic.iouSum).toBeCloseTo(10 / 3, 12);
    expect(x.panoptic.pq.value).toBeCloseTo(10 / 3 / 7.5, 12);
    expect(x.panoptic.sq).toBeCloseTo(10 / 3 / 4, 12);
    expect(x.panoptic.rq).toBeCloseTo(4 / 7.5, 12);
  });

  it('page-level accuracy over every page either side covers', () => {
    expect(x.pageAccuracy).toMatchObject({ k: 11, n: 16 });
  });

  it('per split type', () => {
    expect(x.types.map((t) => [t.type, t.expected, t.predicted, t.correct])).toEqual([
      ['invoice', 6, 4, 1],
      ['receipt', 2, 3, 1],
    ]);
    expect(x.types[0].f1.value).toBeCloseTo(0.2, 15);
    expect(x.types[1].f1.value).toBeCloseTo(0.4, 15);
  });

  it('a document with nothing expected and nothing predicted has undefined ratios', () => {
    const empty = report(makeExport('SPLITTER', config, [{ e: out(), p: out() }]));
    expect([empty.splitter?.precision.value, empty.splitter?.recall.value, empty.splitter?.f1.value, empty.splitter?.panoptic.pq.value, empty.splitter?.pageAccuracy.value]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});

describe('splits left out', () => {
  it('a split longer than 100,000 pages is left out under its own reason (it was called "endPage before startPage")', () => {
    const config = { type: 'SPLITTER', splitClassifications: [{ id: 'inv', type: 'invoice' }] };
    const huge = { splits: [{ type: 'invoice', startPage: 1, endPage: 1_000_000 }] };
    const r = report(makeExport('SPLITTER', config, [{ e: huge, p: huge }, { e: { splits: [{ type: 'invoice', startPage: 1, endPage: 100_000 }] }, p: { splits: [{ type: 'invoice', startPage: 1, endPage: 100_000 }] } }]));
    expect(r.warnings).toContain('1 expected split(s) were left out: 1 longer than 100,000 pages');
    expect(r.warnings).toContain('1 predicted split(s) were left out: 1 longer than 100,000 pages');
    // 100,000 pages exactly is scored.
    expect(r.splitter?.f1.value).toBe(1);
  });
});

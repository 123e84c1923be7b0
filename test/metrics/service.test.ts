/**
 * The service's metric definitions (spec 4.2) on small sets computed by hand: a field never
 * expected, a value invented for an empty field, a class never predicted, a split off by one page.
 */
import { describe, expect, test } from 'vitest';
import { fieldPaths, nearestRank, sameJson, serviceMetrics, type ServiceItem } from '../../src/metrics/service.js';

const EXTRACT_CONFIG = {
  schema: {
    type: 'object',
    properties: {
      invoice_number: { type: ['string', 'null'] },
      total: { type: 'object', 'extend:type': 'currency', properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } } },
      vendor: { type: 'object', properties: { name: { type: ['string', 'null'] }, vat_id: { type: ['string', 'null'] } } },
      po_number: { type: ['string', 'null'] },
    },
  },
};

const run = (expected: unknown, output: unknown, extra: Partial<ServiceItem> = {}): ServiceItem => ({ expected, output, status: 'PROCESSED', ...extra });

describe('EXTRACT', () => {
  test('field paths: plain objects flattened, custom types and arrays whole', () => {
    expect(fieldPaths(EXTRACT_CONFIG)).toEqual(['invoice_number', 'total', 'vendor.name', 'vendor.vat_id', 'po_number']);
    expect(fieldPaths({ fields: [{ name: 'a' }, { name: 'b' }] })).toEqual(['a', 'b']);
  });

  test('counts by hand', () => {
    const items = [
      // 1: number right, total right, vendor name wrong, vat absent both, po invented for an empty field.
      run(
        { value: { invoice_number: 'INV-1', total: { amount: 10, iso_4217_currency_code: 'EUR' }, vendor: { name: 'Acme', vat_id: null }, po_number: null } },
        { value: { invoice_number: 'INV-1', total: { iso_4217_currency_code: 'EUR', amount: 10 }, vendor: { name: 'ACME', vat_id: null }, po_number: 'PO-9' }, metadata: {} },
        { latencyMs: 100, pages: 2 },
      ),
      // 2: number missed, total wrong, vendor right, po never expected, vat expected and right.
      run(
        { value: { invoice_number: 'INV-2', total: { amount: 5, iso_4217_currency_code: 'USD' }, vendor: { name: 'Beta', vat_id: 'DE1' } } },
        { value: { invoice_number: null, total: { amount: 6, iso_4217_currency_code: 'USD' }, vendor: { name: 'Beta', vat_id: 'DE1' }, po_number: null }, metadata: {} },
        { latencyMs: 300, pages: 1 },
      ),
      // 3: failed: counts as finished, nothing scored.
      { expected: { value: { invoice_number: 'INV-3' } }, output: null, status: 'FAILED' },
      // 4: still running.
      { expected: { value: { invoice_number: 'INV-4' } }, output: null, status: 'PROCESSING' },
    ];
    const m = serviceMetrics('EXTRACT', EXTRACT_CONFIG, items);
    if (m.type !== 'EXTRACT') throw new Error('type');
    expect(m.fieldMetrics.invoice_number).toEqual({ countTotal: 2, countPresent: 1, countExpected: 2, countAccurate: 1, accuracy: 0.5 });
    expect(m.fieldMetrics.total).toEqual({ countTotal: 2, countPresent: 2, countExpected: 2, countAccurate: 1, accuracy: 0.5 });
    expect(m.fieldMetrics['vendor.name']).toEqual({ countTotal: 2, countPresent: 2, countExpected: 2, countAccurate: 1, accuracy: 0.5 });
    expect(m.fieldMetrics['vendor.vat_id']).toEqual({ countTotal: 2, countPresent: 1, countExpected: 1, countAccurate: 1, accuracy: 1 });
    // Never expected: no accuracy; the invented PO-9 is present but counts nowhere else.
    expect(m.fieldMetrics.po_number).toEqual({ countTotal: 2, countPresent: 1, countExpected: 0, countAccurate: 0 });
    // Pooled: (1 + 1 + 1 + 1 + 0) / (2 + 2 + 2 + 1 + 0) = 4 / 7.
    expect(m.accuracy).toBeCloseTo(4 / 7, 12);
    expect(m).toMatchObject({ numFilesTotal: 4, numFilesProcessed: 3, numFiles: 3, numPages: 3, meanLatencyMs: 200, p50LatencyMs: 100, p90LatencyMs: 300, p99LatencyMs: 300 });
  });
});

describe('EXTRACT: what the per-document fast paths must keep', () => {
  test.each([
    ['equal primitives', 'a', 'a', true],
    ['number and its text', 1, '1', false],
    ['null and absent', null, undefined, false],
    ['key order ignored', { a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 }, true],
    ['a member more', { a: 1 }, { a: 1, b: 2 }, false],
    ['a member less', { a: 1, b: 2 }, { a: 1 }, false],
    ['a member null on one side, absent on the other', { a: 1, b: null }, { a: 1 }, false],
    ['rows in another order', [{ a: 1 }, { a: 2 }], [{ a: 2 }, { a: 1 }], false],
    ['a row more', [{ a: 1 }], [{ a: 1 }, { a: 1 }], false],
    ['the last row differs', [{ a: 1 }, { a: 2 }], [{ a: 1 }, { a: 3 }], false],
    ['array and object with the same members', [1], { 0: 1 }, false],
    ['empty array and empty object', [], {}, false],
  ])('sameJson: %s', (_name, a, b, same) => {
    expect(sameJson(a, b)).toBe(same);
    expect(sameJson(b, a)).toBe(same);
  });

  test("sameJson compares own members only: an inherited one is not a's", () => {
    const inherited = Object.create({ b: 2 }) as Record<string, unknown>;
    inherited.a = 1;
    expect(sameJson(inherited, { a: 1 })).toBe(true);
    expect(sameJson(inherited, { a: 1, b: 2 })).toBe(false);
    expect(sameJson({ a: 1, b: 2 }, inherited)).toBe(false);
  });

  test('records whose keys come in another order from document to document count the same', () => {
    const config = { schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' }, 'd.e': { type: 'string' } } } };
    const items = [
      run({ value: { a: 'x', b: 'y', c: 'z', 'd.e': 'w' } }, { value: { a: 'x', b: 'y', c: 'q', 'd.e': 'w' } }),
      // Keys reversed on both sides, then a record without some keys, then one with an extra key.
      run({ value: { 'd.e': 'w', c: 'z', b: 'y', a: 'x' } }, { value: { c: 'z', a: 'x', b: 'n' } }),
      run({ value: { c: 'z' } }, { value: { extra: 1, c: 'z', a: 'x' } }),
      run({ value: { a: 'x', b: 'y', c: 'z' } }, { value: { a: 'x', b: 'y', c: 'z', 'd.e': null } }),
    ];
    const m = serviceMetrics('EXTRACT', config, items);
    if (m.type !== 'EXTRACT') throw new Error('type');
    // a: expected in 3 runs, extracted x in 4 (3 accurate); b: y expected 3 times, right in 2 (run 2 n, run 3 absent).
    expect(m.fieldMetrics.a).toEqual({ countTotal: 4, countPresent: 4, countExpected: 3, countAccurate: 3, accuracy: 1 });
    expect(m.fieldMetrics.b).toEqual({ countTotal: 4, countPresent: 3, countExpected: 3, countAccurate: 2, accuracy: 2 / 3 });
    expect(m.fieldMetrics.c).toEqual({ countTotal: 4, countPresent: 4, countExpected: 4, countAccurate: 3, accuracy: 0.75 });
    // A key with a dot is taken whole: expected in runs 1 and 2, extracted in run 1 only (run 4 null).
    expect(m.fieldMetrics['d.e']).toEqual({ countTotal: 4, countPresent: 1, countExpected: 2, countAccurate: 1, accuracy: 0.5 });
  });
});

describe('CLASSIFY', () => {
  test('a class never predicted has recall 0 and no precision; accuracy over expected runs', () => {
    const config = { classifications: [{ id: 'inv', type: 'invoice' }, { id: 'rec', type: 'receipt' }, { id: 'po', type: 'purchase_order' }] };
    const items = [
      run({ id: 'inv', type: 'invoice' }, { id: 'inv', type: 'invoice', confidence: 0.9 }),
      run({ id: 'inv', type: 'invoice' }, { id: 'rec', type: 'receipt', confidence: 0.6 }),
      run({ id: 'rec', type: 'receipt' }, { id: 'rec', type: 'receipt', confidence: 0.8 }),
      run({ id: 'po', type: 'purchase_order' }, { id: 'inv', type: 'invoice', confidence: 0.7 }),
    ];
    const m = serviceMetrics('CLASSIFY', config, items);
    if (m.type !== 'CLASSIFY') throw new Error('type');
    expect(m.accuracy).toBe(0.5);
    expect(m.classificationMetrics.invoice).toEqual({ countExpected: 2, countPredicted: 2, countCorrect: 1, precision: 0.5, recall: 0.5, f1: 0.5 });
    expect(m.classificationMetrics.receipt).toEqual({ countExpected: 1, countPredicted: 2, countCorrect: 1, precision: 0.5, recall: 1, f1: 2 / 3 });
    expect(m.classificationMetrics.purchase_order).toEqual({ countExpected: 1, countPredicted: 0, countCorrect: 0, recall: 0 });
  });
});

describe('SPLITTER', () => {
  test('a split off by one page is not correct', () => {
    const items = [
      run(
        { splits: [{ classificationId: 'a', type: 'invoice', startPage: 1, endPage: 2 }, { classificationId: 'b', type: 'receipt', startPage: 3, endPage: 3 }] },
        { splits: [{ id: 's1', classificationId: 'a', type: 'invoice', startPage: 1, endPage: 2 }, { id: 's2', classificationId: 'b', type: 'receipt', startPage: 3, endPage: 4 }] },
      ),
      run({ splits: [{ classificationId: 'a', type: 'invoice', startPage: 1, endPage: 5 }] }, { splits: [{ id: 's1', classificationId: 'a', type: 'invoice', startPage: 1, endPage: 5 }, { id: 's2', classificationId: 'a', type: 'invoice', startPage: 1, endPage: 5 }] }),
    ];
    const m = serviceMetrics('SPLITTER', {}, items);
    if (m.type !== 'SPLITTER') throw new Error('type');
    // Expected 3; predicted 4; correct: (1,2) and one of the two (1,5) = 2.
    expect(m).toMatchObject({ numSplitsExpected: 3, numSplitsPredicted: 4, numSplitsCorrect: 2, precision: 0.5, recall: 2 / 3 });
    expect(m.f1).toBeCloseTo((2 * 0.5 * (2 / 3)) / (0.5 + 2 / 3), 12);
  });

  test('no predictions: no precision, recall 0', () => {
    const m = serviceMetrics('SPLITTER', {}, [run({ splits: [{ type: 'x', startPage: 1, endPage: 1 }] }, { splits: [] })]);
    expect(m).toMatchObject({ numSplitsPredicted: 0, recall: 0 });
    expect(m).not.toHaveProperty('precision');
    expect(m).not.toHaveProperty('f1');
  });
});

test('nearest-rank percentiles', () => {
  const s = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
  expect(nearestRank(s, 50)).toBe(50);
  expect(nearestRank(s, 90)).toBe(90);
  expect(nearestRank(s, 95)).toBe(100);
  expect(nearestRank([7], 99)).toBe(7);
});

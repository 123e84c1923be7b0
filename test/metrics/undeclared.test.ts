// Issue 35, metric defects. Hand-computed counts; each case failed before its fix.
import { describe, expect, it } from 'vitest';
import { extractExport, fieldCounts, report } from './helpers.js';

describe('no declared fields: a field takes its shape from its first non-empty value, whatever the order', () => {
  const NONE = { type: 'EXTRACT' };
  const a = { e: { line_items: null, total: 1 }, p: { line_items: [{ sku: 'x', qty: 1 }], total: 1 } };
  const b = { e: { line_items: [{ sku: 'a', qty: 2 }, { sku: 'b', qty: 3 }], total: 2 }, p: { line_items: [{ sku: 'a', qty: 2 }], total: 2 } };

  it('a first null does not make line items one opaque field', () => {
    const one = report(extractExport(NONE, [a, b]), { bootstrap: 0 });
    const other = report(extractExport(NONE, [b, a]), { bootstrap: 0 });
    // Leaves line_items[].sku, line_items[].qty, total. Document a: total TP; its predicted row
    // is unpaired: FA for sku and qty. Document b: total TP; row a paired (sku, qty TP), row b
    // unpaired (sku, qty FN). TP 4 (2 total + 2 in rows), FA 2, FN 2: micro F1 = 8 / (8 + 2 + 2) = 2/3.
    for (const r of [one, other]) {
      expect(fieldCounts(r)).toEqual({ 'line_items[].qty': [1, 0, 1, 1, 0], 'line_items[].sku': [1, 0, 1, 1, 0], total: [2, 0, 0, 0, 0] });
      expect(r.extract?.micro.f1.value).toBeCloseTo(2 / 3, 12);
    }
  });

  it('a first {} does not split a currency', () => {
    const price = (amount: number) => ({ amount, iso_4217_currency_code: 'EUR' });
    const r = report(
      extractExport(NONE, [
        { e: { price: {} }, p: { price: {} } },
        { e: { price: price(5) }, p: { price: price(5) } },
        { e: { price: price(7) }, p: { price: price(8) } },
      ]),
      { bootstrap: 0 },
    );
    // One currency leaf: TN, TP, FD (a wrong amount is one wrong value, not a wrong member).
    expect(fieldCounts(r)).toEqual({ price: [1, 1, 0, 0, 1] });
    expect(r.extract?.fields[0].valueType).toBe('currency');
  });
});

describe('an undeclared key under an object or rows whose declared leaves are all excluded', () => {
  const CONFIG = {
    type: 'EXTRACT',
    schema: {
      type: 'object',
      properties: {
        total: { type: ['number', 'null'] },
        vendor: { type: 'object', properties: { name: { type: 'string' }, vat: { type: 'string' } } },
        line_items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'number' } } } },
      },
    },
  };
  const exclude = { excludeFields: ['vendor.name', 'vendor.vat', 'line_items[].sku', 'line_items[].qty'] };

  it('is one false alarm per non-empty value, and its document is not correct', () => {
    const r = report(
      extractExport(
        CONFIG,
        [
          // vendor.extra and two rows' note: 3 unexpected values; total right.
          { e: { total: 1, vendor: { name: 'a' } }, p: { total: 1, vendor: { name: 'a', extra: 'x' }, line_items: [{ sku: 's', note: 'n' }, { note: 'm' }, { note: '' }] } },
          { e: { total: 2 }, p: { total: 2 } },
        ],
        exclude,
      ),
      { bootstrap: 0 },
    );
    expect(r.extract?.fields.map((f) => f.path)).toEqual(['total']);
    expect(r.extract?.unexpected.predicted).toBe(3);
    expect(r.extract?.unexpected.keys).toEqual([
      { path: 'line_items[].note', predicted: 2, expected: 0 },
      { path: 'vendor.extra', predicted: 1, expected: 0 },
    ]);
    // micro: TP 2 (total), FP 3 (the unexpected keys): precision 2/5; document accuracy 1/2.
    expect(r.extract?.micro.precision.value).toBeCloseTo(0.4, 12);
    expect(r.extract?.document.accuracy.value).toBe(0.5);
    expect(r.documents.map((d) => d.unexpected ?? 0)).toEqual([3, 0]);
  });

  it('excluding the object itself leaves every key under it out', () => {
    const r = report(extractExport(CONFIG, [{ e: { total: 1 }, p: { total: 1, vendor: { name: 'a', extra: 'x' } } }], { excludeFields: ['vendor', 'line_items'] }), { bootstrap: 0 });
    expect(r.extract?.unexpected.predicted).toBe(0);
    expect(r.extract?.document.accuracy.value).toBe(1);
  });
});

// The errors file going back: field paths, cells as values, corrections applied to an expected output.
import { describe, expect, it } from 'vitest';
import { applyCorrections, cellValue, fieldPath, isErrorsHeader } from '../../src/dataset/corrections.js';

describe('corrections from an errors file', () => {
  it.each([
    ['total', ['total']],
    ['line_items[2].amount', ['line_items', { row: 2, added: false }, 'amount']],
    ['line_items[+3].amount', ['line_items', { row: 3, added: true }, 'amount']],
    ['amount_due.amount', ['amount_due', 'amount']],
    ['[2]', undefined],
    ['a..b', ['a', 'b']],
  ])('fieldPath(%s)', (field, want) => {
    expect(fieldPath(field)).toEqual(want);
  });

  it.each([
    ['', 'x', null],
    ['0042', 'text', '0042'],
    ['12.5', 3, 12.5],
    ['true', false, true],
    ['{"amount":5,"iso_4217_currency_code":"EUR"}', { amount: 1 }, { amount: 5, iso_4217_currency_code: 'EUR' }],
    ['7', null, 7],
    ['Acme', null, 'Acme'],
  ])('cellValue(%j, old %j) = %j', (cell, old, want) => {
    expect(cellValue(cell, old)).toEqual(want);
  });

  it('sets fields and line-item cells; an unpaired predicted row becomes a new expected row', () => {
    const before = { value: { total: 10, vendor: 'Acme', line_items: [{ sku: 'A', amount: 1 }] } };
    const { output, findings } = applyCorrections(
      before,
      [
        { line: 2, item: 'i', field: 'total', expected: '12' },
        { line: 3, item: 'i', field: 'line_items[0].amount', expected: '2' },
        { line: 4, item: 'i', field: 'line_items[+1].sku', expected: 'B' },
        { line: 5, item: 'i', field: 'line_items[+1].amount', expected: '3' },
        { line: 6, item: 'i', field: 'vendor', expected: '' },
      ],
      'EXTRACT',
    );
    expect(findings).toEqual([]);
    expect(output).toEqual({ value: { total: 12, vendor: null, line_items: [{ sku: 'A', amount: 2 }, { sku: 'B', amount: 3 }] } });
    expect(before.value.total).toBe(10);
    // An unpaired predicted row left empty (the errors file as the report wrote it) adds no row.
    const untouched = applyCorrections(before, [
      { line: 8, item: 'i', field: 'line_items[+1].sku', expected: '' },
      { line: 9, item: 'i', field: 'line_items[+1].amount', expected: ' ' },
    ], 'EXTRACT');
    expect(untouched.output).toEqual(before);
    const missing = applyCorrections(before, [{ line: 7, item: 'i', field: 'line_items[5].amount', expected: '1' }], 'EXTRACT');
    expect(missing.findings[0]).toMatchObject({ line: 7, rule: 'correction', severity: 'error' });
  });

  it('CLASSIFY sets the class; the header tells an errors file from a dataset CSV', () => {
    expect(applyCorrections({ id: 'cls_1', type: 'invoice' }, [{ line: 2, item: 'i', field: 'class', expected: 'receipt' }], 'CLASSIFY').output).toEqual({ type: 'receipt' });
    expect(isErrorsHeader(['item', 'file', 'fileId', 'field', 'outcome', 'expected', 'predicted'])).toBe(true);
    expect(isErrorsHeader(['file', 'vendor', 'total'])).toBe(false);
  });
});

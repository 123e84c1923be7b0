// The errors file going back: field paths, cells as values, corrections applied to an expected output.
import { describe, expect, it } from 'vitest';
import { applyCorrections, cellValue, fieldPath, isErrorsHeader, planCorrections, resolveField } from '../../src/dataset/corrections.js';
import { CLASSIFY_CONFIG, EXTRACT_CONFIG, modelFor } from './helpers.js';

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

describe('corrections typed as the dataset CSV types them', () => {
  const model = modelFor(EXTRACT_CONFIG);
  const before = { value: { invoice_number: 'A-1', invoice_date: '2025-01-10', total: { amount: 1, iso_4217_currency_code: 'EUR' }, pages: 2, paid: false } };

  it.each([
    ['total', '58.76 USD', { amount: 58.76, iso_4217_currency_code: 'USD' }],
    ['total', '{"amount":3,"iso_4217_currency_code":"EUR"}', { amount: 3, iso_4217_currency_code: 'EUR' }],
    ['invoice_date', '11th Jan 2025', '2025-01-11'],
    ['pages', '1,234', undefined],
    ['pages', '12', 12],
    ['paid', 'yes', true],
    ['invoice_number', '=1+1', '=1+1'],
  ])('%s <- %j', (field, cell, want) => {
    const r = applyCorrections(before, [{ line: 2, item: 'i', field, expected: cell }], 'EXTRACT', { model });
    if (want === undefined) {
      // A lone 1,234 is ambiguous (1234 or 1.234) in data.csv too: refused, with the flag that settles it.
      expect(r.findings[0]).toMatchObject({ line: 2, field, rule: 'coerce-number', severity: 'error' });
      expect(r.findings[0].hint).toMatch(/--decimal-comma/);
    } else {
      expect(r.findings).toEqual([]);
      expect((r.output.value as Record<string, unknown>)[field]).toEqual(want);
    }
  });

  it('the options of the dataset CSV apply (--decimal-comma)', () => {
    const r = applyCorrections(before, [{ line: 2, item: 'i', field: 'total', expected: '1.234,50 EUR' }], 'EXTRACT', { model, coerce: { decimalComma: true } });
    expect((r.output.value as Record<string, unknown>).total).toEqual({ amount: 1234.5, iso_4217_currency_code: 'EUR' });
  });

  it('a field id that holds a dot is one key, not a nested path', () => {
    const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { 'vendor.name': { type: ['string', 'null'] }, vendor: { type: 'object', properties: { name: { type: ['string', 'null'] } } } } } };
    const m = modelFor(cfg);
    const doc = { value: { 'vendor.name': 'flat', vendor: { name: 'nested' } } };
    expect(resolveField('vendor.name', doc.value, m.type === 'EXTRACT' ? m.fields : undefined)).toEqual(['vendor.name']);
    const r = applyCorrections(doc, [{ line: 2, item: 'i', field: 'vendor.name', expected: 'Flat Co' }], 'EXTRACT', { model: m });
    expect(r.output).toEqual({ value: { 'vendor.name': 'Flat Co', vendor: { name: 'nested' } } });
  });

  it('CLASSIFY: a class named by type or id becomes {id, type}; the untouched class changes nothing', () => {
    const m = modelFor(CLASSIFY_CONFIG);
    const old = { id: 'invoice', type: 'invoice' };
    expect(applyCorrections(old, [{ line: 2, item: 'i', field: 'class', expected: 'receipt' }], 'CLASSIFY', { model: m }).output).toEqual({ id: 'rcpt', type: 'receipt' });
    expect(applyCorrections(old, [{ line: 2, item: 'i', field: 'class', expected: 'invoice' }], 'CLASSIFY', { model: m }).output).toEqual(old);
    expect(applyCorrections(old, [{ line: 2, item: 'i', field: 'class', expected: 'memo' }], 'CLASSIFY', { model: m }).findings[0]).toMatchObject({ rule: 'unknown-classification' });
  });
});

describe('corrections in the form of the API version in effect', () => {
  const config = { config: CLASSIFY_CONFIG, type: 'CLASSIFY' as const, origin: 'test' };
  const fix = (item: string, expected: string, line = 2) => ({ line, item, field: 'class', expected });
  const items = new Map<string, unknown>([
    ['one', { id: 'invoice', type: 'invoice', confidence: 1 }],
    ['half', { id: 'invoice', type: 'invoice', confidence: 0.5 }],
    ['bare', { id: 'invoice', type: 'invoice' }],
  ]);

  it('2026-02-09: a confidence of 1 goes without loss; the update is sent without it', () => {
    const p = planCorrections([fix('one', 'receipt')], items, config, {}, '2026-02-09');
    expect(p.findings).toEqual([]);
    expect(p.updates).toEqual([{ item: 'one', line: 2, output: { id: 'rcpt', type: 'receipt' } }]);
    // 2025-04-21 keeps the item's confidence, as before.
    expect(planCorrections([fix('one', 'receipt')], items, config, {}, '2025-04-21').updates[0].output).toEqual({ id: 'rcpt', type: 'receipt', confidence: 1 });
  });

  it('2026-02-09: another confidence would be lost going up: the api-version-form finding of upload, nothing sent', () => {
    const p = planCorrections([fix('half', 'receipt', 3)], items, config, {}, '2026-02-09');
    expect(p.updates).toEqual([]);
    expect(p.findings).toEqual([expect.objectContaining({ line: 3, field: '/confidence', rule: 'api-version-form', severity: 'error' })]);
  });

  it('an item whose label does not change is unchanged in either form, whatever form the set holds it in', () => {
    for (const form of ['2025-04-21', '2026-02-09'] as const) {
      const p = planCorrections([fix('one', 'invoice'), fix('half', 'invoice', 3), fix('bare', 'invoice', 4)], items, config, {}, form);
      expect([p.findings, p.updates, p.unchanged]).toEqual([[], [], 3]);
    }
  });
});

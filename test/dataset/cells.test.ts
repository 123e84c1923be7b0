import { describe, expect, it } from 'vitest';
import { coerceCell, parseEnumCell, type CoerceOptions } from '../../src/dataset/cells.js';
import type { Node } from '../../src/expected/model.js';

const N = {
  string: { kind: 'string' },
  number: { kind: 'number' },
  currency: { kind: 'currency' },
  date: { kind: 'date' },
  boolean: { kind: 'boolean' },
  enum: { kind: 'enum', values: ['Open', 'Paid', 'Void'] },
  numEnum: { kind: 'enum', values: [1, 2, true] },
  lineItems: { kind: 'array', items: { kind: 'object', properties: { description: { kind: 'string' }, amount: { kind: 'number' }, total: { kind: 'currency' } } } },
  any: { kind: 'any' },
} satisfies Record<string, Node>;

describe('coerceCell: values by field type', () => {
  it.each<[string, Node, string, CoerceOptions, unknown]>([
    // empty -> null, for every type
    ['empty string', N.string, '', {}, null],
    ['blank number', N.number, '   ', {}, null],
    ['empty currency', N.currency, '', {}, null],
    ['empty date', N.date, '', {}, null],
    ['empty enum', N.enum, '', {}, null],
    ['empty array', N.lineItems, '', {}, null],
    // strings are kept as written
    ['string', N.string, ' INV-1 ', {}, ' INV-1 '],
    // numbers
    ['plain number', N.number, '42', {}, 42],
    ['thousands', N.number, '1,234.50', {}, 1234.5],
    ['european', N.number, '1.234,50', {}, 1234.5],
    ['decimal comma flag', N.number, '1,234', { decimalComma: true }, 1.234],
    ['negative in parens', N.number, '(12.00)', {}, -12],
    ['spaces', N.number, '12 000', {}, 12000],
    // currency
    ['$ with thousands', N.currency, '$1,234.56', {}, { amount: 1234.56, iso_4217_currency_code: 'USD' }],
    ['code first', N.currency, 'USD 1234.56', {}, { amount: 1234.56, iso_4217_currency_code: 'USD' }],
    ['code last, european', N.currency, '1.234,56 EUR', {}, { amount: 1234.56, iso_4217_currency_code: 'EUR' }],
    ['euro sign', N.currency, '€12', {}, { amount: 12, iso_4217_currency_code: 'EUR' }],
    ['pound sign', N.currency, '£7.50', {}, { amount: 7.5, iso_4217_currency_code: 'GBP' }],
    ['default currency', N.currency, '99.90', { currency: 'CHF' }, { amount: 99.9, iso_4217_currency_code: 'CHF' }],
    ['$ with a dollar default', N.currency, '$5', { currency: 'CAD' }, { amount: 5, iso_4217_currency_code: 'CAD' }],
    ['decimal comma amount', N.currency, 'EUR 1,5', { decimalComma: true }, { amount: 1.5, iso_4217_currency_code: 'EUR' }],
    ['JSON currency', N.currency, '{"amount": "12.5", "iso_4217_currency_code": "EUR"}', {}, { amount: 12.5, iso_4217_currency_code: 'EUR' }],
    // dates
    ['iso date', N.date, '2024-03-15', {}, '2024-03-15'],
    ['iso with time', N.date, '2024-03-15T10:00:00Z', {}, '2024-03-15'],
    ['day month name', N.date, '15 March 2024', {}, '2024-03-15'],
    ['month name first', N.date, 'Mar 15, 2024', {}, '2024-03-15'],
    ['day > 12', N.date, '15.03.2024', {}, '2024-03-15'],
    ['compact', N.date, '20240315', {}, '2024-03-15'],
    ['dmy flag', N.date, '03/04/2024', { dateOrder: 'dmy' }, '2024-04-03'],
    ['mdy flag', N.date, '03/04/2024', { dateOrder: 'mdy' }, '2024-03-04'],
    // booleans
    ...(['true', 'Yes', 'y', '1', 'TRUE'].map((t) => [`true ${t}`, N.boolean, t, {}, true]) as Array<[string, Node, string, CoerceOptions, unknown]>),
    ...(['false', 'no', 'N', '0'].map((t) => [`false ${t}`, N.boolean, t, {}, false]) as Array<[string, Node, string, CoerceOptions, unknown]>),
    // enums
    ['enum exact', N.enum, 'Paid', {}, 'Paid'],
    ['enum any case', N.enum, ' paid ', {}, 'Paid'],
    ['numeric enum', N.numEnum, '2', {}, 2],
    ['boolean enum', N.numEnum, 'TRUE', {}, true],
    // JSON cells, with the strings inside coerced
    ['JSON array of objects', N.lineItems, '[{"description": "x", "amount": "1,5", "total": "€3"}]', { decimalComma: true },
      [{ description: 'x', amount: 1.5, total: { amount: 3, iso_4217_currency_code: 'EUR' } }]],
    ['any: JSON', N.any, '{"a": 1}', {}, { a: 1 }],
    ['any: text', N.any, 'free text', {}, 'free text'],
  ])('%s', (_name, node, text, opts, want) => {
    const r = coerceCell(node, text, opts);
    expect(r).toEqual({ ok: true, value: want, problems: [] });
  });

  it.each<[string, Node, string, CoerceOptions, string, RegExp | undefined]>([
    ['not a number', N.number, 'abc', {}, 'coerce-number', undefined],
    ['ambiguous number', N.number, '1,234', {}, 'coerce-number', /--decimal-comma/],
    ['amount without currency', N.currency, '12.50', {}, 'coerce-currency', /--currency/],
    ['two currencies', N.currency, '$12 EUR', {}, 'coerce-currency', undefined],
    ['not a date', N.date, 'someday', {}, 'coerce-date', undefined],
    ['ambiguous date', N.date, '03/04/2024', {}, 'coerce-date', /--date-order/],
    ['impossible date', N.date, '31.02.2024', {}, 'coerce-date', undefined],
    ['not a boolean', N.boolean, 'maybe', {}, 'coerce-boolean', undefined],
    ['not an enum value', N.enum, 'Closed', {}, 'coerce-enum', undefined],
    ['broken JSON', N.lineItems, '[{"amount": 1,]', {}, 'json-syntax', /JSON/],
  ])('refuses %s', (_name, node, text, opts, rule, hint) => {
    const r = coerceCell(node, text, opts);
    expect(r.ok).toBe(false);
    expect(r.problems[0].rule).toBe(rule);
    expect(r.problems[0].message).toBeTruthy();
    if (hint) expect(r.problems[0].hint).toMatch(hint);
  });

  it('locates a bad value inside a JSON cell', () => {
    const r = coerceCell(N.lineItems, '[{"amount": 1}, {"amount": "lots"}]', {});
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([expect.objectContaining({ at: [1, 'amount'], rule: 'coerce-number' })]);
  });

  it('refuses a number in a JSON cell beyond a double (JSON.parse reads Infinity, which would be stored as null)', () => {
    const r = coerceCell(N.lineItems, '[{"amount": 1}, {"amount": 1e400}]', {});
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([expect.objectContaining({ at: [1, 'amount'], rule: 'coerce-number', message: expect.stringMatching(/too large .* stored as null/) })]);
    expect(coerceCell(N.any, '{"a": {"b": -1E+999}}', {}).problems).toEqual([expect.objectContaining({ at: ['a', 'b'] })]);
    expect(coerceCell(N.number, '1e400', {}).ok).toBe(false);
    // A long exponent that stays in range is no problem.
    expect(coerceCell(N.lineItems, '[{"amount": 1e-300, "description": "1e400"}]', {})).toEqual({ ok: true, value: [{ amount: 1e-300, description: '1e400' }], problems: [] });
  });

  it('parseEnumCell refuses a case-insensitive tie', () => {
    expect(parseEnumCell('a', ['A', 'a']).ok).toBe(true);
    expect(parseEnumCell(' A ', ['a', 'A ']).ok).toBe(false);
  });
});

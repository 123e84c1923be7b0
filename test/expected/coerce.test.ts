import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isIsoDate, parseBoolean, parseCurrency, parseDate, parseEnum, parseNumber } from '../../src/expected/coerce.js';
import { ISO_4217_CODES, isCurrencyCode } from '../../src/expected/currencies.js';

describe('parseNumber', () => {
  it.each([
    ['1234', {}, 1234],
    ['1,234.56', {}, 1234.56],
    ['1.234,56', {}, 1234.56],
    ['1 234,56', {}, 1234.56],
    ["1'234.56", {}, 1234.56],
    ['1.234.567', {}, 1234567],
    ['1,234,567', {}, 1234567],
    ['12,50', {}, 12.5],
    ['0,125', {}, 0.125],
    ['-3.5', {}, -3.5],
    ['(12.50)', {}, -12.5],
    ['\u22127', {}, -7],
    ['.5', {}, 0.5],
    ['1e3', {}, 1000],
    ['1,234', { decimalComma: false }, 1234],
    ['1,234', { decimalComma: true }, 1.234],
    ['1.234', { decimalComma: true }, 1234],
  ])('%s %j -> %d', (text, opts, want) => {
    expect(parseNumber(text, opts)).toEqual({ ok: true, value: want });
  });

  it.each([['abc'], [''], ['1,23,4'], ['12.34.5,6,7'], ['1..2'], ['$5']])('refuses %j', (text) => {
    expect(parseNumber(text).ok).toBe(false);
  });

  it('calls a single comma before three digits ambiguous', () => {
    const r = parseNumber('1,234');
    expect(r.ok).toBe(false);
    expect(r.ok === false && r.ambiguous).toBe(true);
  });

  it('reads numbers formatted with either convention back (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), fc.integer({ min: 0, max: 99 }), fc.boolean(), (int, cents, comma) => {
        const grouped = int.toLocaleString('en-US').replace(/,/g, comma ? '.' : ',');
        const text = `${grouped}${comma ? ',' : '.'}${String(cents).padStart(2, '0')}`;
        expect(parseNumber(text)).toEqual({ ok: true, value: Number(`${int}.${String(cents).padStart(2, '0')}`) });
      }),
    );
  });
});

describe('parseBoolean', () => {
  it.each([
    ['true', true], ['Yes', true], ['y', true], ['1', true], ['T', true],
    ['false', false], ['NO', false], ['n', false], ['0', false], [' f ', false],
  ])('%j -> %s', (text, want) => expect(parseBoolean(text)).toEqual({ ok: true, value: want }));

  it('refuses other words', () => expect(parseBoolean('maybe').ok).toBe(false));
});

describe('parseDate', () => {
  it.each([
    ['2024-03-15', {}, '2024-03-15'],
    ['2024-03-15T10:20:30Z', {}, '2024-03-15'],
    ['2024/3/5', {}, '2024-03-05'],
    ['20240315', {}, '2024-03-15'],
    ['15/03/2024', {}, '2024-03-15'],
    ['03/15/2024', {}, '2024-03-15'],
    ['15.03.2024', {}, '2024-03-15'],
    ['05/05/2024', {}, '2024-05-05'],
    ['03/04/2024', { dateOrder: 'dmy' as const }, '2024-04-03'],
    ['03/04/2024', { dateOrder: 'mdy' as const }, '2024-03-04'],
    ['15 March 2024', {}, '2024-03-15'],
    ['March 15, 2024', {}, '2024-03-15'],
    ['Mar 5 2024', {}, '2024-03-05'],
    ['5-Sep-2024', {}, '2024-09-05'],
    ['Friday, March 15, 2024', {}, '2024-03-15'],
    ['1st Feb 2024', {}, '2024-02-01'],
    ['2024 Feb 29', {}, '2024-02-29'],
  ])('%s %j -> %s', (text, opts, want) => {
    expect(parseDate(text, opts)).toEqual({ ok: true, value: want });
  });

  it.each([
    ['03/04/2024', true],
    ['03/04/24', true],
    ['2023-02-29', false],
    ['31/31/2024', false],
    ['yesterday', false],
  ])('refuses %j (ambiguous: %s)', (text, ambiguous) => {
    const r = parseDate(text);
    expect(r.ok).toBe(false);
    expect(r.ok === false && r.ambiguous === true).toBe(ambiguous);
  });

  it('round-trips every calendar day through D/M/Y with the order given (property)', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true }), (d) => {
        const iso = d.toISOString().slice(0, 10);
        const [y, m, day] = iso.split('-');
        expect(isIsoDate(iso)).toBe(true);
        expect(parseDate(`${day}/${m}/${y}`, { dateOrder: 'dmy' })).toEqual({ ok: true, value: iso });
        expect(parseDate(`${m}/${day}/${y}`, { dateOrder: 'mdy' })).toEqual({ ok: true, value: iso });
      }),
    );
  });
});

describe('isIsoDate', () => {
  it.each([
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2024-13-01', false],
    ['2024-1-01', false],
    ['2024-04-31', false],
    [20240101, false],
  ])('%j -> %s', (v, want) => expect(isIsoDate(v)).toBe(want));
});

describe('parseCurrency', () => {
  it.each([
    ['$1,234.56', {}, 1234.56, 'USD'],
    ['EUR 12,50', {}, 12.5, 'EUR'],
    ['1.234,56 EUR', {}, 1234.56, 'EUR'],
    ['USD 1234.56', {}, 1234.56, 'USD'],
    ['€12', {}, 12, 'EUR'],
    ['£ 7.5', {}, 7.5, 'GBP'],
    ['-$5.00', {}, -5, 'USD'],
    ['$-5.00', {}, -5, 'USD'],
    ['($5.00)', {}, -5, 'USD'],
    ['CA$ 10', {}, 10, 'CAD'],
    ['$10', { defaultCurrency: 'CAD' }, 10, 'CAD'],
    ['$10', { defaultCurrency: 'EUR' }, 10, 'USD'],
    ['$12 USD', {}, 12, 'USD'],
    ['eur 3', {}, 3, 'EUR'],
    ['1234.5', { defaultCurrency: 'JPY' }, 1234.5, 'JPY'],
  ])('%s %j -> %d %s', (text, opts, amount, code) => {
    expect(parseCurrency(text, opts)).toEqual({ ok: true, value: { amount, iso_4217_currency_code: code } });
  });

  it.each([['1234.5'], ['$12 EUR'], ['12 apples'], ['USD']])('refuses %j', (text) => {
    expect(parseCurrency(text).ok).toBe(false);
  });
});

describe('parseEnum', () => {
  it.each([
    ['open', ['open', 'closed'], 'open'],
    [' OPEN ', ['open', 'closed'], 'open'],
  ])('%j -> %j', (text, values, want) => expect(parseEnum(text, values)).toEqual({ ok: true, value: want }));

  it('refuses a value that matches several ignoring case', () => {
    expect(parseEnum('a', ['A', 'a ']).ok).toBe(false);
  });
});

describe('ISO 4217 codes', () => {
  it('holds the common codes, fund codes, and no lower-case or duplicate entries', () => {
    for (const c of ['USD', 'EUR', 'JPY', 'GBP', 'CHF', 'XAU', 'CLF', 'ZWG', 'XCG']) expect(isCurrencyCode(c)).toBe(true);
    for (const c of ['usd', 'EURO', 'ABC', 'XYZ', '']) expect(isCurrencyCode(c)).toBe(false);
    expect(new Set(ISO_4217_CODES).size).toBe(ISO_4217_CODES.length);
    for (const c of Intl.supportedValuesOf('currency').filter((x) => !['EEK', 'LTL', 'LVL'].includes(x))) expect(isCurrencyCode(c)).toBe(true);
  });
});

describe('parseNumber: thousandfold and overflowing readings', () => {
  it('calls a single dot before three digits ambiguous, as a single comma is, unless the decimal mark is given', () => {
    for (const text of ['1.234', '-12.500', '999.000']) {
      const r = parseNumber(text);
      expect(r.ok === false && r.ambiguous, text).toBe(true);
    }
    expect(parseNumber('1.234', { decimalComma: false })).toEqual({ ok: true, value: 1.234 });
    expect(parseNumber('1.234', { decimalComma: true })).toEqual({ ok: true, value: 1234 });
    // Not ambiguous: a leading zero, more or fewer than three decimals, four digits before the dot.
    for (const [text, want] of [['0.125', 0.125], ['.125', 0.125], ['1.5', 1.5], ['1.2345', 1.2345], ['1234.567', 1234.567]] as const) {
      expect(parseNumber(text)).toEqual({ ok: true, value: want });
    }
  });

  it('refuses a number beyond a double (JSON would store it as null)', () => {
    for (const text of ['1e400', '-1e999', '9'.repeat(400)]) {
      const r = parseNumber(text);
      expect(r.ok, text).toBe(false);
      expect(r.ok === false && r.reason).toMatch(/too large for a JSON number/);
    }
    expect(parseNumber('1e308')).toEqual({ ok: true, value: 1e308 });
    const money = parseCurrency('$1e400');
    expect(money.ok === false && money.reason).toMatch(/too large/);
  });
});

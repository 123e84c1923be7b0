// Comparators and value forms, one table per comparator: [name, expected, predicted, want].
// Every expected outcome here is worked out by hand from the README's definitions.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameValue } from '../../src/metrics/extract.js';
import {
  asDate,
  comparatorFor,
  DEFAULT_COMPARE,
  fuzzyForm,
  isEmpty,
  matchBoolean,
  matchCurrency,
  matchDate,
  matchExactString,
  matchFuzzyString,
  matchNumber,
  similarity,
} from '../../src/metrics/index.js';
import type { ValueType } from '../../src/metrics/comparators.js';

type Row = [name: string, a: unknown, b: unknown, want: boolean];

describe('empty values', () => {
  const cases: Array<[string, unknown, boolean]> = [
    ['null', null, true],
    ['absent', undefined, true],
    ['empty string', '', true],
    ['blank string (trimmed)', ' \t ', true],
    ['empty array', [], true],
    ['empty object', {}, true],
    ['array of empties', [null, ''], true],
    ['currency with both members null', { amount: null, iso_4217_currency_code: null }, true],
    ['currency with a code only', { amount: null, iso_4217_currency_code: 'USD' }, false],
    ['zero', 0, false],
    ['false', false, false],
    ['a string', 'x', false],
    ['a string after spaces', '  x', false],
    ['blank of other whitespace (no-break space, ideographic space, line separator, BOM)', '\u00a0\u3000\u2028\ufeff', true],
    ['a string after a no-break space', '\u00a0x', false],
    ['a string starting with a control character', '\u0001', false],
    ['a non-ASCII string', 'é', false],
    ['array with one value', [null, 'x'], false],
  ];
  it.each(cases)('%s', (_, v, want) => expect(isEmpty(v)).toBe(want));
});

describe('string exact: Unicode NFC and trimming, nothing else', () => {
  const cases: Row[] = [
    ['same', 'Acme', 'Acme', true],
    ['surrounding whitespace', '  Acme\n', 'Acme', true],
    ['NFD vs NFC é', 'Caf\u0065\u0301', 'Caf\u00e9', true],
    ['case differs', 'Acme', 'acme', false],
    ['inner whitespace differs', 'Acme  Inc', 'Acme Inc', false],
    ['punctuation differs', 'Acme Inc.', 'Acme Inc', false],
    ['NFKC-only equivalence (fullwidth) is not NFC', '\uff21cme', 'Acme', false],
    ['number vs its text', 42, '42', true],
  ];
  it.each(cases)('%s', (_, a, b, want) => expect(matchExactString(a, b)).toBe(want));
});

describe('string fuzzy: NFKC, case fold, whitespace collapse, edge punctuation, similarity >= threshold', () => {
  it('normal form', () => {
    expect(fuzzyForm('  \uff21\uff23\uff2d\uff25   Stra\u00dfe,\tInc.!! ')).toBe('acme strasse, inc');
    expect(fuzzyForm('"(Acme)"')).toBe('acme');
    expect(fuzzyForm('$5')).toBe('$5'); // a currency sign is a symbol, not punctuation
  });
  it('similarity is 1 - levenshtein / longer length on the normal forms', () => {
    expect(similarity('abcdefghij', 'abcdefghix')).toBeCloseTo(0.9, 15);
    expect(similarity('ACME', 'acme.')).toBe(1);
    expect(similarity('abcd', 'wxyz')).toBe(0);
    expect(similarity('', '')).toBe(1);
  });
  const cases: Array<[string, string, string, number, boolean]> = [
    ['case and edge punctuation only', 'ACME Inc.', 'acme inc', 0.9, true],
    ['fullwidth (NFKC) and ß (case fold)', '\uff21\uff23\uff2d\uff25 STRASSE', 'acme straße', 1, true],
    ['collapsed whitespace', 'Acme    Inc', 'Acme Inc', 1, true],
    ['inner punctuation is kept', 'Acme, Inc', 'Acme Inc', 1, false],
    ['similarity exactly 0.9 at threshold 0.9 matches', 'abcdefghij', 'abcdefghix', 0.9, true],
    ['similarity 8/9 = 0.889 at threshold 0.9 does not', 'abcdefghi', 'abcdefghx', 0.9, false],
    ['similarity exactly 0.8 at threshold 0.8 matches', 'abcde', 'abcdx', 0.8, true],
    ['similarity exactly 0.75 at threshold 0.75 matches', 'abcd', 'abxd', 0.75, true],
    ['similarity 0.75 at threshold 0.76 does not', 'abcd', 'abxd', 0.76, false],
    ['threshold 1 means equal normal forms', 'Acme', 'Acmf', 1, false],
  ];
  it.each(cases)('%s', (_, a, b, threshold, want) => expect(matchFuzzyString(a, b, threshold)).toBe(want));
});

describe('number: relative tolerance |a - b| <= tol * max(|a|, |b|)', () => {
  const cases: Array<[string, unknown, unknown, number, boolean]> = [
    ['equal', 12.5, 12.5, 1e-6, true],
    ['within 1e-6 relative', 1_000_000, 1_000_000.5, 1e-6, true],
    ['at exactly 1e-6 relative', 100, 100.0001, 1e-6, true],
    ['just over 1e-6 relative', 100, 100.00011, 1e-6, false],
    ['0 vs tiny is not equal (relative to 1e-12)', 0, 1e-12, 1e-6, false],
    ['wider tolerance 1%', 100, 100.9, 0.01, true],
    ['wider tolerance 1%, outside', 100, 101.5, 0.01, false],
    ['numeric text with thousands separator', '1,234.50', 1234.5, 1e-6, true],
    ['text that is not a number compares exactly', 'n/a', 'N/A', 1e-6, false],
    ['sign matters', -5, 5, 1e-6, false],
  ];
  it.each(cases)('%s', (_, a, b, tol, want) => expect(matchNumber(a, b, tol)).toBe(want));
});

describe('currency: amounts within 0.005, codes equal ignoring case', () => {
  const c = (amount: number | null, code: string | null): unknown => ({ amount, iso_4217_currency_code: code });
  const cases: Row[] = [
    ['equal', c(10, 'USD'), c(10, 'USD'), true],
    ['code case ignored', c(10, 'usd'), c(10, 'USD'), true],
    ['0.005 apart matches', c(10, 'EUR'), c(10.005, 'EUR'), true],
    ['0.005 apart in binary floating point (1.015 vs 1.01)', c(1.015, 'EUR'), c(1.01, 'EUR'), true],
    ['0.0051 apart does not', c(10, 'EUR'), c(10.0051, 'EUR'), false],
    ['0.01 apart does not', c(10, 'EUR'), c(10.01, 'EUR'), false],
    ['codes differ', c(10, 'EUR'), c(10, 'USD'), false],
    ['code missing on one side', c(10, 'EUR'), c(10, null), false],
    ['amount as numeric text', c(1234.5, 'EUR'), { amount: '1,234.50', iso_4217_currency_code: 'eur' }, true],
    ['amount null on one side only', c(null, 'EUR'), c(3, 'EUR'), false],
  ];
  it.each(cases)('%s', (_, a, b, want) => expect(matchCurrency(a, b)).toBe(want));
});

describe('date: the same calendar date', () => {
  it('reads the calendar date as written', () => {
    expect(asDate('2024-03-05T23:30:00-08:00')).toBe('2024-03-05'); // no time-zone shift
    expect(asDate('20240305')).toBe('2024-03-05');
    expect(asDate('2024/3/5')).toBe('2024-03-05');
    expect(asDate('5th March 2024')).toBe('2024-03-05');
    expect(asDate('Sept 5, 2024')).toBe('2024-09-05');
    expect(asDate('2024-02-30')).toBeUndefined(); // not a day
    expect(asDate('03/05/2024')).toBeUndefined(); // ambiguous day/month order
  });
  const cases: Row[] = [
    ['same ISO date', '2024-03-05', '2024-03-05', true],
    ['date vs date-time of that day', '2024-03-05', '2024-03-05T23:59:59Z', true],
    ['unpadded month and day', '2024-03-05', '2024-3-5', true],
    ['English month name, day first', '2024-03-05', '5 March 2024', true],
    ['English month name, month first', '2024-03-05', 'Mar 5, 2024', true],
    ['next day', '2024-03-05', '2024-03-06', false],
    ['ambiguous numeric order is not read as a date', '2024-03-05', '03/05/2024', false],
    ['two unreadable dates compare as exact text', '03/05/2024', ' 03/05/2024 ', true],
  ];
  it.each(cases)('%s', (_, a, b, want) => expect(matchDate(a, b)).toBe(want));
});

describe('boolean and enum: equal', () => {
  const bool: Row[] = [
    ['true', true, true, true],
    ['true vs false', true, false, false],
    ['boolean vs its text', false, 'False', true],
    ['text that is not a boolean', true, 'yes', false],
  ];
  it.each(bool)('boolean: %s', (_, a, b, want) => expect(matchBoolean(a, b)).toBe(want));
  const enumMatch = comparatorFor('enum', false, { fuzzyThreshold: 0.9, numberTolerance: 1e-6 });
  const en: Row[] = [
    ['same value', 'paid', 'paid', true],
    ['other value', 'paid', 'open', false],
    ['case differs', 'paid', 'PAID', false],
  ];
  it.each(en)('enum: %s', (_, a, b, want) => expect(enumMatch(a, b)).toBe(want));
});

describe('the same value always matches (the scorer compares such values without preparing them)', () => {
  // A copy of a value: the same JSON content, another object (as another parse gives).
  const copy = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
  const scalar = fc.oneof(fc.constantFrom('USD', ' eur ', '', '1,234.50', '2024-03-05', '03/05/2024', 'true', 'ß'), fc.string({ maxLength: 6 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constant(null));
  const value = fc.oneof(scalar, fc.dictionary(fc.constantFrom('amount', 'iso_4217_currency_code', 'note', '__proto__'), scalar), fc.record({ amount: scalar, iso_4217_currency_code: scalar }));
  const types: ValueType[] = ['string', 'number', 'integer', 'currency', 'date', 'boolean', 'enum', 'unknown'];
  it('sameValue(a, b) implies every matcher finds a and b equal', () => {
    fc.assert(
      fc.property(value, fc.boolean(), (v, shuffled) => {
        let w = copy(v);
        // Members in another order are the same value too.
        if (shuffled && w !== null && typeof w === 'object') w = Object.fromEntries(Object.entries(w as object).reverse());
        return sameValue(v, w) && types.every((t) => [false, true].every((fuzzy) => comparatorFor(t, fuzzy, DEFAULT_COMPARE)(v, w)));
      }),
      { numRuns: 2000 },
    );
  });
  it('values that differ, or hold an object, are not the same at a glance', () => {
    expect(sameValue({ amount: 1, iso_4217_currency_code: 'USD' }, { amount: 1, iso_4217_currency_code: 'usd' })).toBe(false);
    expect(sameValue({ amount: 1 }, { amount: 1, iso_4217_currency_code: null })).toBe(false);
    expect(sameValue({ amount: 1, iso_4217_currency_code: null }, { amount: 1 })).toBe(false);
    expect(sameValue({ a: { b: 1 } }, { a: { b: 1 } })).toBe(false);
    expect(sameValue([1], [1])).toBe(false);
    expect(sameValue('1', 1)).toBe(false);
    expect(sameValue({ amount: 1, iso_4217_currency_code: 'USD' }, { iso_4217_currency_code: 'USD', amount: 1 })).toBe(true);
  });
});

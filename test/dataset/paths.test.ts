import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatPath, parsePath, setAt } from '../../src/dataset/paths.js';

describe('field paths', () => {
  it.each([
    ['vendor', ['vendor']],
    ['vendor.name', ['vendor', 'name']],
    ['line_items[0].amount', ['line_items', 0, 'amount']],
    ['a[1][2].b', ['a', 1, 2, 'b']],
    ['total.iso_4217_currency_code', ['total', 'iso_4217_currency_code']],
  ])('%s', (text, want) => {
    expect(parsePath(text)).toEqual(want);
    expect(formatPath(want)).toBe(text);
  });

  it.each([['.a'], ['a.'], ['a..b'], ['[0]'], ['a[x]'], ['a[0'], ['']])('refuses %j', (text) => {
    expect(parsePath(text)).toBeUndefined();
  });

  it('round-trips (property)', () => {
    const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
    const path = fc.tuple(key, fc.array(fc.oneof(key, fc.nat(20)), { maxLength: 4 })).map(([h, t]) => [h, ...t]);
    fc.assert(fc.property(path, (segs) => {
      expect(parsePath(formatPath(segs))).toEqual(segs);
    }));
  });

  it('setAt creates objects and arrays on the way', () => {
    const v: Record<string, unknown> = {};
    setAt(v, ['line_items', 1, 'amount'], 5);
    setAt(v, ['vendor', 'name'], 'x');
    expect(v).toEqual({ line_items: [undefined, { amount: 5 }], vendor: { name: 'x' } });
    expect(1 in (v.line_items as unknown[])).toBe(true);
    expect(0 in (v.line_items as unknown[])).toBe(false);
  });
});

// EXTRACT outcome counts, hand-computed: per leaf field and document one of TP, TN, FA, FN, FD
// (line items and multisets: one per row or element). Tuples are [TP, TN, FA, FN, FD].
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractExport, fieldCounts, makeExport, report, type Tuple } from './helpers.js';
import { extractValues } from '../../src/metrics/extract.js';

const str = { type: ['string', 'null'] };
const num = { type: ['number', 'null'] };
const CONFIG = {
  type: 'EXTRACT',
  schema: {
    type: 'object',
    properties: {
      name: str,
      total: num,
      paid: { type: ['boolean', 'null'] },
      due: { type: ['string', 'null'], 'extend:type': 'date' },
      amount: {
        type: 'object',
        'extend:type': 'currency',
        properties: { amount: num, iso_4217_currency_code: str },
      },
      status: { type: ['string', 'null'], enum: ['paid', 'open', null] },
      vendor: { type: 'object', properties: { name: str, vat: str } },
      tags: { type: 'array', items: { type: 'string' } },
      line_items: { type: 'array', items: { type: 'object', properties: { sku: str, qty: num, price: num } } },
    },
  },
};

const T = (tp: number, tn: number, fa: number, fn: number, fd: number): Tuple => [tp, tn, fa, fn, fd];
const li = (sku: string | null, qty: number | null, price: number | null): object => ({ sku, qty, price });

interface Case {
  e: object;
  p: object | null;
  want: Record<string, Tuple>;
  options?: { fuzzyMatchFields?: string[]; excludeFields?: string[] };
}

/** One document per case; only the paths named in `want` are checked. */
const single: Array<[string, Case]> = [
  ['TP: both non-empty and matching', { e: { name: 'Acme' }, p: { name: ' Acme ' }, want: { name: T(1, 0, 0, 0, 0) } }],
  ['TN: null vs null', { e: { name: null }, p: { name: null }, want: { name: T(0, 1, 0, 0, 0) } }],
  ['TN: absent vs ""', { e: {}, p: { name: '' }, want: { name: T(0, 1, 0, 0, 0) } }],
  ['TN: [] vs {}', { e: { name: [] }, p: { name: {} }, want: { name: T(0, 1, 0, 0, 0) } }],
  ['FA: expected empty, predicted non-empty', { e: { name: null }, p: { name: 'X' }, want: { name: T(0, 0, 1, 0, 0) } }],
  ['FN: expected non-empty, predicted null', { e: { name: 'X' }, p: { name: null }, want: { name: T(0, 0, 0, 1, 0) } }],
  ['FN: expected non-empty, predicted absent', { e: { total: 5 }, p: {}, want: { total: T(0, 0, 0, 1, 0) } }],
  ['FD: both non-empty, not matching', { e: { name: 'X' }, p: { name: 'Y' }, want: { name: T(0, 0, 0, 0, 1) } }],
  ['number within tolerance', { e: { total: 1e6 }, p: { total: 1e6 + 0.5 }, want: { total: T(1, 0, 0, 0, 0) } }],
  ['number outside tolerance', { e: { total: 100 }, p: { total: 100.01 }, want: { total: T(0, 0, 0, 0, 1) } }],
  ['date as calendar date', { e: { due: '2024-03-05' }, p: { due: '2024-03-05T12:00:00Z' }, want: { due: T(1, 0, 0, 0, 0) } }],
  ['boolean false is a value, not empty', { e: { paid: false }, p: { paid: null }, want: { paid: T(0, 0, 0, 1, 0) } }],
  ['enum', { e: { status: 'paid' }, p: { status: 'open' }, want: { status: T(0, 0, 0, 0, 1) } }],
  [
    'currency is one leaf: within 0.005 and code case ignored',
    { e: { amount: { amount: 10, iso_4217_currency_code: 'EUR' } }, p: { amount: { amount: 10.004, iso_4217_currency_code: 'eur' } }, want: { amount: T(1, 0, 0, 0, 0) } },
  ],
  [
    'currency with both members null is empty',
    { e: { amount: { amount: null, iso_4217_currency_code: null } }, p: { amount: { amount: 3, iso_4217_currency_code: 'EUR' } }, want: { amount: T(0, 0, 1, 0, 0) } },
  ],
  [
    'nested object: one path per leaf',
    { e: { vendor: { name: 'Acme', vat: 'DE1' } }, p: { vendor: { name: 'Acme', vat: null } }, want: { 'vendor.name': T(1, 0, 0, 0, 0), 'vendor.vat': T(0, 0, 0, 1, 0) } },
  ],
  [
    'failed run: every non-empty expected leaf is FN, empty ones TN',
    { e: { name: 'Acme', total: null, tags: ['a', 'b'] }, p: null, want: { name: T(0, 0, 0, 1, 0), total: T(0, 1, 0, 0, 0), tags: T(0, 0, 0, 2, 0) } },
  ],
  // Multisets of primitives: matched elements TP, unmatched expected FN, unmatched predicted FA.
  ['multiset: order does not matter, duplicates count', { e: { tags: ['a', 'b', 'b'] }, p: { tags: ['b', 'a'] }, want: { tags: T(2, 0, 0, 1, 0) } }],
  ['multiset: an extra element', { e: { tags: ['a'] }, p: { tags: ['a', 'c'] }, want: { tags: T(1, 0, 1, 0, 0) } }],
  ['multiset: a wrong element is one FN and one FA', { e: { tags: ['a'] }, p: { tags: ['z'] }, want: { tags: T(0, 0, 1, 1, 0) } }],
  ['multiset: both empty is one TN', { e: { tags: [] }, p: { tags: [null, ''] }, want: { tags: T(0, 1, 0, 0, 0) } }],
  ['multiset: predicted only', { e: { tags: [] }, p: { tags: ['x', 'y'] }, want: { tags: T(0, 0, 2, 0, 0) } }],
  // Line items: rows paired by maximum-weight matching (weight = matching leaves).
  [
    'line items: reordered rows all pair up',
    {
      e: { line_items: [li('A', 1, 10), li('B', 2, 20)] },
      p: { line_items: [li('B', 2, 20), li('A', 1, 10)] },
      want: { 'line_items[].sku': T(2, 0, 0, 0, 0), 'line_items[].qty': T(2, 0, 0, 0, 0), 'line_items[].price': T(2, 0, 0, 0, 0) },
    },
  ],
  [
    'line items: a missing row is FN for each of its non-empty leaves',
    {
      e: { line_items: [li('A', 1, 10), li('B', 2, null), li('C', 3, 30)] },
      p: { line_items: [li('C', 3, 30), li('A', 1, 10)] },
      want: { 'line_items[].sku': T(2, 0, 0, 1, 0), 'line_items[].qty': T(2, 0, 0, 1, 0), 'line_items[].price': T(2, 0, 0, 0, 0) },
    },
  ],
  [
    'line items: an extra row is FA for each of its non-empty leaves',
    {
      e: { line_items: [li('A', 1, 10)] },
      p: { line_items: [li('A', 1, 10), li('D', null, 40)] },
      want: { 'line_items[].sku': T(1, 0, 1, 0, 0), 'line_items[].qty': T(1, 0, 0, 0, 0), 'line_items[].price': T(1, 0, 1, 0, 0) },
    },
  ],
  [
    'line items: leaves scored inside pairs (FD, FA, TN)',
    {
      e: { line_items: [li('A', 1, 10), li('B', null, null)] },
      p: { line_items: [li('B', 5, null), li('A', 1, 11)] },
      want: { 'line_items[].sku': T(2, 0, 0, 0, 0), 'line_items[].qty': T(1, 0, 1, 0, 0), 'line_items[].price': T(0, 1, 0, 0, 1) },
    },
  ],
  [
    // E0-P0 and E0-P1 both weigh 2; pairing E0 first with P0 would leave E1 with only P1
    // (weight 0): 2 + 0. The maximum-weight pairing is E0-P1 and E1-P0: 2 + 2.
    'line items: maximum total weight, not first best',
    {
      e: { line_items: [li('A', 1, 10), li('A', 2, 20)] },
      p: { line_items: [li('A', 2, 10), li('X', 1, 10)] },
      want: { 'line_items[].sku': T(1, 0, 0, 0, 1), 'line_items[].qty': T(2, 0, 0, 0, 0), 'line_items[].price': T(1, 0, 0, 0, 1) },
    },
  ],
  [
    'line items: rows that share no value are not paired (FN and FA, not FD)',
    {
      e: { line_items: [li('A', 1, 10)] },
      p: { line_items: [li('X', 9, 99)] },
      want: { 'line_items[].sku': T(0, 0, 1, 1, 0), 'line_items[].qty': T(0, 0, 1, 1, 0), 'line_items[].price': T(0, 0, 1, 1, 0) },
    },
  ],
  [
    'line items: no rows on either side is one TN per leaf',
    { e: { line_items: [] }, p: { line_items: null }, want: { 'line_items[].sku': T(0, 1, 0, 0, 0), 'line_items[].qty': T(0, 1, 0, 0, 0), 'line_items[].price': T(0, 1, 0, 0, 0) } },
  ],
  [
    'line items: empty rows are not rows',
    { e: { line_items: [li('A', 1, 10), li(null, null, null)] }, p: { line_items: [{}, li('A', 1, 10)] }, want: { 'line_items[].sku': T(1, 0, 0, 0, 0) } },
  ],
  [
    'line items of a failed run: every expected leaf FN',
    { e: { line_items: [li('A', 1, null), li('B', 2, 20)] }, p: null, want: { 'line_items[].sku': T(0, 0, 0, 2, 0), 'line_items[].price': T(0, 0, 0, 1, 0) } },
  ],
  [
    'fuzzy field: fuzzy outcome counted, exact kept beside it',
    { e: { name: 'ACME Inc.' }, p: { name: 'acme inc' }, want: { name: T(1, 0, 0, 0, 0) }, options: { fuzzyMatchFields: ['name'] } },
  ],
  [
    'fuzzy line-item leaf named with []',
    {
      e: { line_items: [li('Blue Widget', 1, 10)] },
      p: { line_items: [li('blue widget.', 1, 10)] },
      want: { 'line_items[].sku': T(1, 0, 0, 0, 0) },
      options: { fuzzyMatchFields: ['line_items[].sku'] },
    },
  ],
];

describe('EXTRACT outcome counts per leaf field', () => {
  it.each(single)('%s', (_, c) => {
    const r = report(extractExport(CONFIG, [{ e: c.e, p: c.p }], c.options));
    const got = fieldCounts(r);
    for (const [path, want] of Object.entries(c.want)) expect([path, got[path]]).toEqual([path, want]);
  });

  it('reports exact counts beside fuzzy ones', () => {
    const r = report(
      extractExport(
        CONFIG,
        [
          { e: { name: 'ACME Inc.' }, p: { name: 'acme inc' } },
          { e: { name: 'Acme' }, p: { name: 'Acme' } },
          { e: { name: 'Acme' }, p: { name: 'Zenith' } },
        ],
        { fuzzyMatchFields: ['name'] },
      ),
    );
    const name = r.extract?.fields.find((f) => f.path === 'name');
    expect(name?.fuzzy).toBe(true);
    expect([name?.counts.tp, name?.counts.fd]).toEqual([2, 1]);
    expect([name?.exact?.counts.tp, name?.exact?.counts.fd]).toEqual([1, 2]);
    expect(name?.f1.value).toBeCloseTo(2 / 3, 12); // 2TP / (2TP + FP + FN) = 4 / (4 + 1 + 1)
    expect(name?.exact?.f1.value).toBeCloseTo(1 / 3, 12); // 2 / (2 + 2 + 2)
    // Only the fuzzy field has an exact twin.
    expect(r.extract?.fields.find((f) => f.path === 'total')?.exact).toBeUndefined();
  });

  it('leaves excluded fields out entirely and lists them', () => {
    const r = report(
      extractExport(CONFIG, [{ e: { name: 'A', vendor: { name: 'V' }, line_items: [li('A', 1, 10)] }, p: { name: 'B', vendor: { name: 'W' }, line_items: [li('A', 1, 99)] } }], {
        excludeFields: ['vendor', 'line_items[].price', 'no_such_field'],
      }),
    );
    const paths = r.extract?.fields.map((f) => f.path);
    expect(paths).not.toContain('vendor.name');
    expect(paths).not.toContain('line_items[].price');
    expect(paths).toContain('line_items[].sku');
    expect(r.extract?.excludedFields).toEqual(['line_items[].price', 'vendor']);
    // The excluded values count nowhere: only name's FD is an error.
    expect(r.extract?.micro.counts.fd).toBe(1);
    expect(r.documents[0].errors).toBe(1);
    expect(r.warnings).toContain('excludeFields: "no_such_field" names no field');
  });

  it('a row is empty when every value in it is, under the fields or not; a value found through an array proves nothing', () => {
    const config = {
      type: 'EXTRACT',
      schema: {
        type: 'object',
        properties: { line_items: { type: 'array', items: { type: 'object', properties: { sku: str, dims: { type: 'object', properties: { length: num } } } } } },
      },
    };
    const r = report(
      extractExport(config, [
        {
          // Expected rows: a value under an unknown key only (a row), blanks only (none), and
          // dims given as an empty array, whose `length` is 0 (none: every value in it is empty).
          e: { line_items: [{ sku: null, note: 'x' }, { sku: '  ', dims: { length: null } }, { sku: null, dims: [] }] },
          // Predicted: an empty array at dims (none), then a real length (a row).
          p: { line_items: [{ dims: [null, ''] }, { sku: null, dims: { length: 3 } }] },
        },
      ]),
    );
    expect(r.extract?.arrays).toEqual([{ path: 'line_items', expectedRows: 1, predictedRows: 1, rate: expect.objectContaining({ k: 1, n: 1 }) }]);
  });

  it('counts the row-count rate per root array (arrayCardinality)', () => {
    const r = report(
      extractExport(CONFIG, [
        { e: { line_items: [li('A', 1, 1), li('B', 1, 1)] }, p: { line_items: [li('B', 1, 1), li('A', 1, 1)] } }, // 2 = 2
        { e: { line_items: [li('A', 1, 1), li('B', 1, 1)] }, p: { line_items: [li('A', 1, 1)] } }, // 2 != 1
        { e: { line_items: [] }, p: { line_items: [] } }, // 0 = 0
        { e: { line_items: [li('A', 1, 1)] }, p: null }, // 1 != 0 (failed run)
      ]),
    );
    expect(r.extract?.arrays).toEqual([
      { path: 'line_items', expectedRows: 5, predictedRows: 3, rate: expect.objectContaining({ k: 2, n: 4, value: 0.5 }) },
    ]);
  });
});

describe('EXTRACT aggregates', () => {
  // doc1 all right; doc2 name FD, paid FA; doc3 failed: name FN, total and paid TN.
  const exp = extractExport({ type: 'EXTRACT', schema: { type: 'object', properties: { name: str, total: num, paid: { type: ['boolean', 'null'] } } } }, [
    { e: { name: 'A', total: 1, paid: null }, p: { name: 'A', total: 1, paid: null } },
    { e: { name: 'B', total: 2, paid: null }, p: { name: 'C', total: 2, paid: true } },
    { e: { name: 'D', total: null, paid: null }, p: null },
  ]);
  const r = report(exp);
  const x = r.extract;
  const field = (p: string) => x?.fields.find((f) => f.path === p);

  it('per field: precision TP/(TP+FA+FD), recall TP/(TP+FN+FD), F1, accuracy (TP+TN)/documents', () => {
    expect(fieldCounts(r)).toEqual({ name: T(1, 0, 0, 1, 1), paid: T(0, 2, 1, 0, 0), total: T(2, 1, 0, 0, 0) });
    const name = field('name');
    expect([name?.precision.k, name?.precision.n, name?.precision.value]).toEqual([1, 2, 0.5]);
    expect([name?.recall.k, name?.recall.n, name?.recall.value]).toEqual([1, 3, 1 / 3]);
    expect(name?.f1.value).toBeCloseTo(0.4, 15); // harmonic mean of 1/2 and 1/3
    expect([name?.accuracy.k, name?.accuracy.n]).toEqual([1, 3]);
    expect(field('total')?.f1.value).toBe(1);
    expect(field('total')?.accuracy.value).toBe(1);
  });

  it('a zero denominator gives null, never 0 or 1; counts are reported beside', () => {
    const paid = field('paid');
    expect(paid?.recall).toEqual({ value: null, k: 0, n: 0, interval: null });
    expect(paid?.precision.value).toBe(0); // 0 of 1 predicted values right
    expect(paid?.f1.value).toBe(0);
    expect(paid?.counts).toEqual({ tp: 0, tn: 2, fa: 1, fn: 0, fd: 0, fp: 1, n: 3 });
    const empty = report(extractExport({ type: 'EXTRACT', schema: { type: 'object', properties: { name: str } } }, [{ e: { name: null }, p: { name: null } }]));
    const f = empty.extract?.fields[0];
    expect([f?.precision.value, f?.recall.value, f?.f1.value, f?.accuracy.value]).toEqual([null, null, null, 1]);
    expect(empty.extract?.micro.f1.value).toBeNull();
    expect(empty.extract?.macro.f1.value).toBeNull();
  });

  it('fields without a non-empty expected value are unsupported and left out of macro F1', () => {
    expect(x?.unsupportedFields).toEqual(['paid']);
    expect(field('paid')?.supported).toBe(false);
    expect(x?.macro.fields).toBe(2);
    expect(x?.macro.f1.value).toBeCloseTo((0.4 + 1) / 2, 15);
  });

  it('micro pools the counts of every field; document accuracy needs every field TP or TN', () => {
    expect(x?.micro.counts).toEqual({ tp: 3, tn: 3, fa: 1, fn: 1, fd: 1, fp: 2, n: 9 });
    expect(x?.micro.precision.value).toBeCloseTo(3 / 5, 15);
    expect(x?.micro.recall.value).toBeCloseTo(3 / 5, 15);
    expect(x?.micro.f1.value).toBeCloseTo(0.6, 15);
    expect(x?.micro.accuracy.value).toBeCloseTo(6 / 9, 15);
    expect(x?.document.accuracy).toMatchObject({ k: 1, n: 3 });
    expect(r.documents.map((d) => [d.id, d.correct, d.errors, d.failed])).toEqual([
      ['item_000', true, 0, false],
      ['item_001', false, 2, false],
      ['item_002', false, 1, true],
    ]);
  });

  it('failed runs are listed', () => {
    expect(r.summary).toEqual({ documents: 3, processed: 2, failed: 1 });
    expect(r.failures).toEqual([{ id: 'item_002', fileId: 'file_2', status: 'FAILED' }]);
  });

  it('reads the legacy fields form of outputs and configs', () => {
    const legacy = {
      type: 'EXTRACT',
      fields: [
        { id: 'inv_no', name: 'Invoice number', type: 'string' },
        { id: 'total', name: 'Total', type: 'currency' },
      ],
    };
    const r2 = report({
      ...extractExport(legacy, []),
      items: [
        {
          id: 'x',
          fileId: 'f',
          status: 'PROCESSED',
          expectedOutput: { 'Invoice number': { id: 'inv_no', value: '42' }, Total: { id: 'total', value: { amount: 5, iso_4217_currency_code: 'USD' } } },
          output: { 'Invoice number': { id: 'inv_no', value: '42' }, Total: { id: 'total', value: { amount: 6, iso_4217_currency_code: 'USD' } } },
        },
      ],
    });
    expect(fieldCounts(r2)).toEqual({ inv_no: T(1, 0, 0, 0, 0), total: T(0, 0, 0, 0, 1) });
    expect(r2.extract?.fields.find((f) => f.path === 'total')?.valueType).toBe('currency');
  });
});

describe('line-item pairing is a maximum-weight matching (property)', () => {
  // Brute force: the largest total weight over every pairing of expected with predicted rows.
  function bestTotal(E: number[][], P: number[][], weight: (e: number[], p: number[]) => number): number {
    const used = new Array<boolean>(P.length).fill(false);
    const go = (i: number): number => {
      if (i === E.length) return 0;
      let best = go(i + 1); // row i unpaired
      for (let j = 0; j < P.length; j++) {
        if (used[j]) continue;
        used[j] = true;
        best = Math.max(best, weight(E[i], P[j]) + go(i + 1));
        used[j] = false;
      }
      return best;
    };
    return go(0);
  }
  const cell = fc.integer({ min: 0, max: 2 }); // 0 stands for an empty value
  const rowArb = fc.array(cell, { minLength: 3, maxLength: 3 });
  const rows = fc.array(rowArb, { maxLength: 4 });
  const val = (k: number, c: number): string | null => (c === 0 ? null : `${'xyz'[k]}${c}`);

  it('flat rows: total TP equals the best pairing weight', () => {
    const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { a: str, b: str, c: str } } } } } };
    const toRow = (r: number[]) => ({ a: val(0, r[0]), b: val(1, r[1]), c: val(2, r[2]) });
    fc.assert(
      fc.property(rows, rows, (E, P) => {
        const r = report(extractExport(cfg, [{ e: { items: E.map(toRow) }, p: { items: P.map(toRow) } }]));
        const tp = (r.extract?.fields ?? []).reduce((n, f) => n + f.counts.tp, 0);
        const nonEmpty = (x: number[]) => x.some((c) => c !== 0);
        const w = (e: number[], p: number[]) => e.filter((c, k) => c !== 0 && c === p[k]).length;
        return tp === bestTotal(E.filter(nonEmpty), P.filter(nonEmpty), w);
      }),
      { numRuns: 300 },
    );
  });

  it('rows holding an array (recursive weights): total TP equals the best pairing weight', () => {
    const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: { a: str, tags: { type: 'array', items: { type: 'string' } } } } } } } };
    // [a, tag1, tag2]: a as a string leaf, the two others as a multiset of tags.
    const toRow = (r: number[]) => ({ a: val(0, r[0]), tags: [val(1, r[1]), val(1, r[2])].filter((x) => x !== null) });
    const w = (e: number[], p: number[]) => {
      const pool = [p[1], p[2]].filter((c) => c !== 0);
      let n = e[0] !== 0 && e[0] === p[0] ? 1 : 0;
      for (const t of [e[1], e[2]].filter((c) => c !== 0)) {
        const k = pool.indexOf(t);
        if (k >= 0) {
          pool.splice(k, 1);
          n++;
        }
      }
      return n;
    };
    fc.assert(
      fc.property(rows, rows, (E, P) => {
        const r = report(extractExport(cfg, [{ e: { items: E.map(toRow) }, p: { items: P.map(toRow) } }]));
        const tp = (r.extract?.fields ?? []).reduce((n, f) => n + f.counts.tp, 0);
        const nonEmpty = (x: number[]) => x.some((c) => c !== 0);
        return tp === bestTotal(E.filter(nonEmpty), P.filter(nonEmpty), w);
      }),
      { numRuns: 300 },
    );
  });
});

describe('unexpected keys (values under keys the config does not define)', () => {
  it('are counted at any depth, in every row, a lone object as one row; empty values and empty rows count for nothing', () => {
    const r = report(
      extractExport(CONFIG, [
        {
          e: { line_items: [{ sku: 'a', qty: 1, price: 2, note: 'x' }, { sku: null, qty: null, price: null, note: null }, {}], vendor: { name: 'v', vat: null, extra: 'e' } },
          p: {
            line_items: [{ sku: 'a', qty: 1, price: 2, note2: 'y', blank: '  ' }, { sku: 'b', qty: null, price: null, zz: 'z' }, { sku: null, gone: [] }],
            vendor: { name: 'v', extra2: { a: null }, extra3: [1] },
            surprise: 1,
          },
        },
        { e: { line_items: { sku: 'c', qty: null, price: null, odd: 'o' } }, p: { line_items: [{ sku: 'c', qty: null, price: null, odd2: '' }] } },
      ]),
    );
    expect(r.extract?.unexpected).toEqual({
      predicted: 4,
      documents: 1,
      expected: 3,
      keys: [
        { path: 'line_items[].note', predicted: 0, expected: 1 },
        { path: 'line_items[].note2', predicted: 1, expected: 0 },
        { path: 'line_items[].odd', predicted: 0, expected: 1 },
        { path: 'line_items[].zz', predicted: 1, expected: 0 },
        { path: 'surprise', predicted: 1, expected: 0 },
        { path: 'vendor.extra', predicted: 0, expected: 1 },
        { path: 'vendor.extra3', predicted: 1, expected: 0 },
      ],
    });
    // Each predicted one is a false alarm of its document (micro FA), beside the fields' own.
    expect(r.documents.map((d) => d.unexpected ?? 0)).toEqual([4, 0]);
  });

  it('a member added to Object.prototype (by some library) is no key of the values', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = 'x';
    try {
      const r = report(extractExport(CONFIG, [{ e: { name: 'a', line_items: [li('s', 1, 2)] }, p: { name: 'a', line_items: [li('s', 1, 2)] } }]));
      expect(r.extract?.unexpected).toEqual({ predicted: 0, documents: 0, expected: 0, keys: [] });
    } finally {
      delete proto.polluted;
    }
  });
});

describe('document ids', () => {
  const docs = (ids: string[]) =>
    makeExport(
      'EXTRACT',
      CONFIG,
      ids.map((id) => ({ id, e: { value: { name: 'a' } }, p: { value: { name: 'a' } } })),
    );
  it.each([
    ['next to each other', ['a', 'b', 'b', 'c'], '/items/2/id'],
    ['apart, in id order otherwise', ['a', 'b', 'c', 'b'], '/items/3/id'],
    ['apart, out of order', ['c', 'a', 'b', 'a'], '/items/3/id'],
  ])('a duplicate id (%s) is an input error naming the second one', (_, ids, pointer) => {
    expect(() => report(docs(ids))).toThrow(expect.objectContaining({ message: expect.stringContaining('duplicate item id') }));
    try {
      report(docs(ids));
    } catch (e) {
      expect((e as { location?: { pointer?: string } }).location?.pointer).toBe(pointer);
    }
  });

  it('the worst documents and per-document lists are the same whether the export comes in id order or not', () => {
    const ids = ['d1', 'd2', 'd3', 'd4'];
    const ordered = report(docs(ids));
    const shuffled = report(docs(['d3', 'd1', 'd4', 'd2']));
    expect(shuffled.extract).toEqual(ordered.extract);
    expect(shuffled.documents.map((d) => d.id)).toEqual(['d3', 'd1', 'd4', 'd2']);
  });
});

describe('extractValues: the field values of an output in each form', () => {
  it('reads the JSON Schema form, the fields form by id, and plain values without their metadata', () => {
    const schemaForm = { value: { total: 3 }, metadata: { total: { ocrConfidence: 0.9 } } };
    expect(extractValues(schemaForm)).toBe(schemaForm.value);
    expect(extractValues({ 'Total due': { id: 'total', value: 3, confidence: 0.8 }, vendor: { value: 'Acme' }, metadata: {} })).toEqual({ total: 3, vendor: 'Acme' });
    // A field id `__proto__` stays an ordinary member.
    const proto = extractValues(JSON.parse('{"x": {"id": "__proto__", "value": 1}}')) as Record<string, unknown>;
    expect(Object.hasOwn(proto, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    // Plain values: the object itself (read only), or a copy without `metadata`.
    const plain = { total: 3, vendor: null };
    expect(extractValues(plain)).toBe(plain);
    expect(extractValues({ total: 3, metadata: { total: { ocrConfidence: 1 } } })).toEqual({ total: 3 });
    expect(extractValues({})).toEqual({});
    expect(extractValues({ metadata: {} })).toEqual({});
    // One member not in the fields form: plain values, wrapped members kept as they are.
    expect(extractValues({ a: { value: 1 }, b: 2 })).toEqual({ a: { value: 1 }, b: 2 });
    // A `value` that is not an object, and what is not an object: no values.
    expect(extractValues({ value: 'x' })).toBeUndefined();
    expect(extractValues(null)).toBeUndefined();
    expect(extractValues([1])).toBeUndefined();
  });
});

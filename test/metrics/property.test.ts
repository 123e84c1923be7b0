// Invariants of the report's numbers (fast-check): the order of documents and of splits never
// changes a number, line-item rows in another order change nothing when the pairing is unique,
// and a field named after an Object.prototype member is counted like any other.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/index.js';
import { renderJson } from '../../src/report/index.js';
import { extractExport, makeExport, report } from './helpers.js';

/** Every number of a report except the per-document and worst-document lists (the side file is in the export's order). */
function numbers(r: Report): string {
  const { documentsFile: _f, worstDocuments: _w, documents: _d, ...rest } = JSON.parse(renderJson(r)) as Report & { documents?: unknown };
  return JSON.stringify(rest);
}

function shuffle<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const CONFIG = {
  type: 'EXTRACT',
  schema: {
    type: 'object',
    properties: {
      total: { type: 'number' },
      vendor: { type: 'string' },
      line_items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, amount: { type: 'number' } } } },
    },
  },
};

const row = fc.record({ sku: fc.constantFrom('A', 'B', 'C', 'D'), amount: fc.integer({ min: 1, max: 3 }) });
const value = fc.record(
  {
    total: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
    vendor: fc.option(fc.constantFrom('Acme', 'Beta', ' Acme'), { nil: null }),
    line_items: fc.array(row, { maxLength: 4 }),
    extra: fc.constantFrom('x', ''),
  },
  { requiredKeys: ['total'] },
);
const doc = fc.record({ e: value, p: fc.option(value, { nil: null }) });

describe('report numbers are invariant', () => {
  it('under a permutation of documents', () => {
    fc.assert(
      fc.property(fc.array(doc, { minLength: 1, maxLength: 8 }), fc.integer(), (docs, seed) => {
        const a = extractExport(CONFIG, docs);
        const b = extractExport(CONFIG, docs);
        // Ids and files travel with their document.
        b.items = shuffle(b.items, seed);
        expect(numbers(report(b, { bootstrap: 50 }))).toBe(numbers(report(a, { bootstrap: 50 })));
      }),
      { numRuns: 60 },
    );
  });

  it('under a permutation of line-item rows on either side when the maximum pairing is unique', () => {
    // A row agrees with rows of another sku on nothing (its amount is its sku's), so every weight
    // is 0 or that of the same-sku row: the maximum pairing is unique.
    const own = fc.record({ sku: fc.constantFrom('A', 'B', 'C', 'D'), off: fc.integer({ min: 0, max: 1 }) }).map((r) => ({ sku: r.sku, amount: r.sku.charCodeAt(0) * 10 + r.off }));
    const unique = fc.uniqueArray(own, { selector: (r) => r.sku, maxLength: 4 });
    fc.assert(
      fc.property(unique, unique, fc.integer(), fc.integer(), (E, P, s1, s2) => {
        const a = extractExport(CONFIG, [{ e: { total: 1, line_items: E }, p: { total: 1, line_items: P } }]);
        const b = extractExport(CONFIG, [{ e: { total: 1, line_items: shuffle(E, s1) }, p: { total: 1, line_items: shuffle(P, s2) } }]);
        expect(numbers(report(b))).toBe(numbers(report(a)));
      }),
      { numRuns: 100 },
    );
  });

  it('under a permutation of splits on either side', () => {
    const config = { type: 'SPLITTER', splitClassifications: [{ id: 'a', type: 'invoice' }, { id: 'b', type: 'receipt' }] };
    const split = fc
      .record({ type: fc.constantFrom('invoice', 'receipt'), start: fc.integer({ min: 1, max: 6 }), len: fc.integer({ min: 0, max: 3 }) })
      .map((s) => ({ id: `s${s.start}-${s.len}`, classificationId: s.type === 'invoice' ? 'a' : 'b', type: s.type, startPage: s.start, endPage: s.start + s.len }));
    fc.assert(
      fc.property(fc.array(split, { maxLength: 5 }), fc.array(split, { maxLength: 5 }), fc.integer(), fc.integer(), (E, P, s1, s2) => {
        const a = makeExport('SPLITTER', config, [{ e: { splits: E }, p: { splits: P } }]);
        const b = makeExport('SPLITTER', config, [{ e: { splits: shuffle(E, s1) }, p: { splits: shuffle(P, s2) } }]);
        expect(numbers(report(b))).toBe(numbers(report(a)));
      }),
      { numRuns: 150 },
    );
  });

  it('when a field is renamed to an Object.prototype member', () => {
    const names = ['constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty', 'isPrototypeOf'];
    const leaf = fc.option(fc.constantFrom('x', 'y'), { nil: undefined });
    fc.assert(
      fc.property(fc.array(fc.record({ e: leaf, p: leaf }), { minLength: 1, maxLength: 6 }), fc.constantFrom(...names), (docs, name) => {
        // Built as JSON text: in code, a `__proto__` key would set the prototype instead.
        const build = (key: string): ReturnType<typeof extractExport> => {
          const config = { type: 'EXTRACT', schema: { type: 'object', properties: { [key]: { type: 'string' }, other: { type: 'string' } } } };
          const text = JSON.stringify(extractExport(config, docs.map((d) => ({ e: { KEY: d.e, other: 'o' }, p: { KEY: d.p, other: 'o' } })))).replaceAll('"KEY"', JSON.stringify(key));
          return JSON.parse(text) as ReturnType<typeof extractExport>;
        };
        const counts = (r: Report, key: string) => r.extract?.fields.find((f) => f.path === key)?.counts;
        const plain = report(build('field'));
        const odd = report(build(name));
        expect(counts(odd, name)).toEqual(counts(plain, 'field'));
        expect(odd.extract?.micro.counts).toEqual(plain.extract?.micro.counts);
        expect(odd.extract?.document.accuracy).toEqual(plain.extract?.document.accuracy);
      }),
      { numRuns: 120 },
    );
  });
});

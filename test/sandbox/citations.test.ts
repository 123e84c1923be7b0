// Citations of the simulate engine: found in the document's text (a text file's lines in character
// cells, a PDF's text runs in points), shaped as the 2025-04-21 metadata gives them; values the
// document does not print get none, and none at all unless the config enables citations.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addCitations, findCitation, pdfLayout, spellings, textLayout, valueAt, type PageLayout } from '../../src/sandbox/engine/citations.js';
import { ROOT } from '../helpers/cli.js';
import { simulate } from '../../src/sandbox/engine/simulate.js';
import { makePdf } from './helpers.js';

const TEXT = ['Acme Ltd\nTOTAL DUE: USD 1,316.40\nDate: 18 March 2024', 'page two\n  INV-9'];

describe('citations', () => {
  it('a text file: line and column of the value as a box in character cells', () => {
    const c = findCitation(textLayout(TEXT), 1316.4);
    // "1,316.40" starts at column 15 of line 2 (y 1) and is 8 characters long; the page is 23 x 3 cells (its longest line).
    expect(c).toEqual({
      page: 1,
      polygon: [
        { x: 15, y: 1 },
        { x: 23, y: 1 },
        { x: 23, y: 2 },
        { x: 15, y: 2 },
      ],
      referenceText: '1,316.40',
      pageWidth: 23,
      pageHeight: 3,
    });
    expect(findCitation(textLayout(TEXT), '2024-03-18')).toMatchObject({ page: 1, referenceText: '18 March 2024', polygon: [{ x: 6, y: 2 }, { x: 19, y: 2 }, { x: 19, y: 3 }, { x: 6, y: 3 }] });
    expect(findCitation(textLayout(TEXT), 'inv-9')).toMatchObject({ page: 2, referenceText: 'INV-9', polygon: [{ x: 2, y: 1 }, { x: 7, y: 1 }, { x: 7, y: 2 }, { x: 2, y: 2 }] });
  });

  it('an invented value, an empty one and a boolean have no citation', () => {
    const layout = textLayout(TEXT);
    expect(findCitation(layout, 'INV-8')).toBeUndefined();
    expect(findCitation(layout, null)).toBeUndefined();
    expect(findCitation(layout, true)).toBeUndefined();
    expect(findCitation(layout, '')).toBeUndefined();
  });

  it('spellings of numbers, amounts and dates', () => {
    expect(spellings(1316.4)).toEqual(['1,316.40', '1.316,40', '1316.40', '1316.4']);
    expect(spellings({ amount: 86, iso_4217_currency_code: 'EUR' })).toEqual(['86.00', '86,00', '86']);
    expect(spellings('2024-04-17')).toContain('17.04.2024');
  });

  it('a PDF: the text positions pdf.js gives, inside the page', async () => {
    const layout = await pdfLayout(readFileSync(path.join(ROOT, 'datasets/invoice-extract/files/inv-001.pdf')));
    expect(layout).toBeDefined();
    const c = findCitation(layout!, 'INV-001')!;
    expect(c.page).toBe(1);
    expect(c.referenceText).toBe('INV-001');
    expect([c.pageWidth, c.pageHeight]).toEqual([595, 842]);
    for (const p of c.polygon) {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.x).toBeLessThanOrEqual(c.pageWidth);
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeLessThanOrEqual(c.pageHeight);
    }
    expect(c.polygon[2].x - c.polygon[0].x).toBeGreaterThan(10);
    expect(await pdfLayout(Buffer.from('%PDF-1.4 not really'))).toBeUndefined();
  });

  it('addCitations: the 2025-04-21 shape, only where the value is printed, only when enabled', () => {
    const out = () => ({ value: { total: { amount: 1316.4, iso_4217_currency_code: 'EUR' }, rows: [{ n: 'INV-9' }], made_up: 'nope' }, metadata: { total: { ocrConfidence: 0.9 }, 'rows[0].n': {}, made_up: {} } as Record<string, Record<string, unknown>> });
    const on = out();
    addCitations(on, { advancedOptions: { citationsEnabled: true } }, textLayout(TEXT));
    expect(on.metadata.total.citations).toEqual([{ page: 1, referenceText: '1,316.40', polygon: [{ x: 15, y: 1 }, { x: 23, y: 1 }, { x: 23, y: 2 }, { x: 15, y: 2 }], pageWidth: 23, pageHeight: 3 }]);
    expect(on.metadata['rows[0].n'].citations).toMatchObject([{ page: 2 }]);
    expect(on.metadata.made_up.citations).toBeUndefined();
    const off = out();
    addCitations(off, { advancedOptions: {} }, textLayout(TEXT));
    expect(off.metadata.total.citations).toBeUndefined();
    expect(valueAt({ a: [{ b: 1 }] }, 'a[0].b')).toBe(1);
    expect(valueAt({ a: {} }, 'a.constructor')).toBeUndefined();
  });
});

describe('citations: of several places, the one beside the field name', () => {
  it('a total printed as a line amount and beside "TOTAL DUE" is cited at the total', () => {
    const layout = textLayout(['Strategy workshop | 2 | 1800.00 | 3600.00\n\nTOTAL DUE: USD 3600.00']);
    expect(findCitation(layout, 3600, 'total')).toMatchObject({ polygon: [{ x: 15, y: 2 }, { x: 22, y: 2 }, { x: 22, y: 3 }, { x: 15, y: 3 }] });
    expect(findCitation(layout, 3600, 'line_items[0].amount')).toMatchObject({ polygon: [{ x: 34, y: 0 }, { x: 41, y: 0 }, { x: 41, y: 1 }, { x: 34, y: 1 }] });
  });
});

describe('citations: a value as a whole token before a part of a longer one', () => {
  const PAGE = 'VAT ID: GB123456789\n\nDescription | Qty | Unit price | Amount\nStrategy workshop (2 days) | 2 | 1,800.00 | 3,600.00\nTravel | 1 | 120.00 | 120.00';

  it('a short value printed first inside a longer token is cited where it stands alone', () => {
    const layout = textLayout([PAGE]);
    // "2" first occurs inside GB123456789 (line 1), then as the quantity "| 2 |" (line 4, column 29).
    expect(findCitation(layout, 2)).toMatchObject({ referenceText: '2', polygon: [{ x: 19, y: 3 }, { x: 20, y: 3 }, { x: 20, y: 4 }, { x: 19, y: 4 }] });
    // "1" is inside the VAT number and "1,800.00"; on its own only as Travel's quantity.
    expect(findCitation(layout, 1)).toMatchObject({ referenceText: '1', polygon: [{ x: 9, y: 4 }, { x: 10, y: 4 }, { x: 10, y: 5 }, { x: 9, y: 5 }] });
    // Printed only inside a longer token: the part is still cited.
    expect(findCitation(layout, '123456789')).toMatchObject({ referenceText: '123456789', polygon: [{ x: 10, y: 0 }, { x: 19, y: 0 }, { x: 19, y: 1 }, { x: 10, y: 1 }] });
  });

  it("a line item's value is cited on the line with the item's other values, not inside its description", () => {
    const out = {
      value: {
        vendor_vat_id: 'GB123456789',
        line_items: [
          { description: 'Strategy workshop (2 days)', quantity: 2, unit_price: 1800, amount: 3600 },
          { description: 'Travel', quantity: 1, unit_price: 120, amount: 120 },
        ],
      },
      metadata: { 'line_items[0].quantity': {}, 'line_items[1].quantity': {}, 'line_items[1].unit_price': {}, 'line_items[1].amount': {} } as Record<string, Record<string, unknown>>,
    };
    addCitations(out, { advancedOptions: { citationsEnabled: true } }, textLayout([PAGE]));
    const box = (path: string): unknown => (out.metadata[path].citations as Array<{ polygon: unknown }>)[0].polygon;
    expect(box('line_items[0].quantity')).toEqual([{ x: 29, y: 3 }, { x: 30, y: 3 }, { x: 30, y: 4 }, { x: 29, y: 4 }]);
    expect(box('line_items[1].quantity')).toEqual([{ x: 9, y: 4 }, { x: 10, y: 4 }, { x: 10, y: 5 }, { x: 9, y: 5 }]);
    // Unit price and amount print alike: the unit price cites the first "120.00", the amount the second.
    expect(box('line_items[1].unit_price')).toEqual([{ x: 13, y: 4 }, { x: 19, y: 4 }, { x: 19, y: 5 }, { x: 13, y: 5 }]);
    expect(box('line_items[1].amount')).toEqual([{ x: 22, y: 4 }, { x: 28, y: 4 }, { x: 28, y: 5 }, { x: 22, y: 5 }]);
  });
});

describe('citations: values of one line item that print alike cite their own places', () => {
  const CONFIG = {
    type: 'EXTRACT',
    advancedOptions: { citationsEnabled: true },
    schema: {
      type: 'object',
      properties: {
        total: { type: ['number', 'null'] },
        line_items: {
          type: 'array',
          items: { type: 'object', properties: { description: { type: ['string', 'null'] }, quantity: { type: ['number', 'null'] }, unit_price: { type: ['number', 'null'] }, amount: { type: ['number', 'null'] } } },
        },
      },
    },
  };
  const TEXT = 'Description | Qty | Unit price | Amount\nPens | 1 | 12.50 | 12.50\nPaper | 2 | 12.50 | 25.00\nStapler | 1 | 4.00 | 4.00\n\nTOTAL: 41.50';
  const run = (value: Record<string, unknown>): Record<string, { citations?: Array<{ referenceText: string; polygon: Array<{ x: number; y: number }> }> }> => {
    const r = simulate(
      { runId: 'dpr_1', processorId: 'dp_1', processorType: 'EXTRACT', versionLabel: '1.0', versionId: 'dpv_1', config: CONFIG, text: TEXT, pages: [TEXT], layout: textLayout([TEXT]), fileName: 'a.txt', sha256: 'ab'.repeat(32), truthKey: 'evi_1', expected: { value } },
      { seed: 1, errorRate: 0, failureRate: 0 },
    );
    expect(r.ok).toBe(true);
    return (r as unknown as { output: { metadata: ReturnType<typeof run> } }).output.metadata;
  };
  const x0x1 = (meta: ReturnType<typeof run>, p: string): [number, number, number] => {
    const poly = meta[p].citations![0].polygon;
    return [poly[0].x, poly[1].x, poly[0].y];
  };

  it('the simulate engine on a text document: unit price and amount of a quantity of 1 cite the first and the second "12.50"', () => {
    const meta = run({
      total: 41.5,
      line_items: [
        { description: 'Pens', quantity: 1, unit_price: 12.5, amount: 12.5 },
        { description: 'Paper', quantity: 2, unit_price: 12.5, amount: 25 },
        { description: 'Stapler', quantity: 1, unit_price: 4, amount: 4 },
      ],
    });
    // "Pens | 1 | 12.50 | 12.50": the first 12.50 at columns 11-16, the second at 19-24.
    expect(x0x1(meta, 'line_items[0].unit_price')).toEqual([11, 16, 1]);
    expect(x0x1(meta, 'line_items[0].amount')).toEqual([19, 24, 1]);
    expect(meta['line_items[0].quantity'].citations![0].referenceText).toBe('1');
    // Another item's citations do not count: Paper's unit price is its own line's 12.50.
    expect(x0x1(meta, 'line_items[1].unit_price')).toEqual([12, 17, 2]);
    expect(x0x1(meta, 'line_items[1].amount')).toEqual([20, 25, 2]);
    expect(x0x1(meta, 'line_items[2].unit_price')).toEqual([14, 18, 3]);
    expect(x0x1(meta, 'line_items[2].amount')).toEqual([21, 25, 3]);
    expect(x0x1(meta, 'total')).toEqual([7, 12, 5]);
  });

  it("the demo's inv-002.pdf and inv-005.txt: the amount of a quantity of 1 is boxed right of its unit price", async () => {
    const files = path.join(ROOT, 'datasets/invoice-extract/files');
    const cases: Array<[string, PageLayout[], number, Record<string, unknown>]> = [
      ['inv-002.pdf', (await pdfLayout(readFileSync(path.join(files, 'inv-002.pdf'))))!, 1, { description: 'Fuel surcharge', quantity: 1, unit_price: 86.4, amount: 86.4 }],
      ['inv-005.txt', textLayout([readFileSync(path.join(files, 'inv-005.txt'), 'utf8')]), 0, { description: 'Desk chair, ergonomic', quantity: 1, unit_price: 249, amount: 249 }],
    ];
    for (const [name, layout, i, item] of cases) {
      const items = Array.from({ length: i + 1 }, (_, k) => (k === i ? item : {}));
      const paths = ['description', 'quantity', 'unit_price', 'amount'].map((f) => `line_items[${i}].${f}`);
      const out = { value: { line_items: items }, metadata: Object.fromEntries(paths.map((p) => [p, {}])) as Record<string, Record<string, unknown>> };
      addCitations(out, CONFIG, layout);
      const [price, amount] = paths.slice(2).map((p) => (out.metadata[p].citations as Array<{ referenceText: string; polygon: Array<{ x: number; y: number }> }>)[0]);
      expect(amount.referenceText, name).toBe(price.referenceText);
      expect(amount.polygon[0].y, name).toBe(price.polygon[0].y);
      expect(amount.polygon[0].x, name).toBeGreaterThanOrEqual(price.polygon[1].x);
    }
  });

  it('a value printed once on the item\'s line is still cited for both fields that hold it', () => {
    const text = 'Pens 12.50';
    const out = { value: { line_items: [{ description: 'Pens', unit_price: 12.5, amount: 12.5 }] }, metadata: { 'line_items[0].unit_price': {}, 'line_items[0].amount': {} } as Record<string, Record<string, unknown>> };
    addCitations(out, CONFIG, textLayout([text]));
    for (const p of ['line_items[0].unit_price', 'line_items[0].amount']) expect((out.metadata[p].citations as Array<{ referenceText: string }>)[0].referenceText).toBe('12.50');
  });
});

describe('citations: a PDF run\'s characters placed by their Helvetica widths', () => {
  // Widths of Helvetica (the standard 14 font's AFM, 1/1000 em) of the characters these lines use.
  const AFM: Record<string, number> = { ' ': 278, ':': 278, '.': 278, '-': 333, '|': 260, A: 667, D: 722, E: 667, I: 278, N: 722, O: 778, C: 722, T: 611, V: 667, W: 944, a: 556, e: 556, g: 556, i: 222, l: 222, n: 556, o: 556, p: 556, r: 333, s: 500, t: 278, u: 556, m: 833, b: 556, H: 722, B: 667, P: 667 };
  const width = (s: string, size: number): number => [...s].reduce((n, ch) => n + (/\d/.test(ch) ? 556 : AFM[ch]), 0) * (size / 1000);
  const xs = (c: { polygon: Array<{ x: number }> }): [number, number] => [c.polygon[0].x, c.polygon[1].x];

  it("the demo's inv-002.pdf (Helvetica 11 pt at x 56): a value's box starts and ends at its glyphs", async () => {
    const layout = (await pdfLayout(readFileSync(path.join(ROOT, 'datasets/invoice-extract/files/inv-002.pdf'))))!;
    const cases: Array<[unknown, string, string]> = [
      ['DE811907980', 'VAT ID: ', 'DE811907980'],
      ['INV-002', 'INVOICE ', 'INV-002'],
      ['Hamburg-Berlin', 'Pallet transport ', 'Hamburg-Berlin'],
      [410, 'Pallet transport Hamburg-Berlin | 3 | ', '410.00'],
    ];
    for (const [value, before, printed] of cases) {
      const c = findCitation(layout, value)!;
      expect(c.referenceText).toBe(printed);
      const [x0, x1] = xs(c);
      expect(Math.abs(x0 - (56 + width(before, 11)))).toBeLessThan(1);
      expect(Math.abs(x1 - (56 + width(before + printed, 11)))).toBeLessThan(1);
    }
  });

  it('narrow and wide letters before and after the value (Helvetica 12 pt at x 72)', async () => {
    const layout = (await pdfLayout(makePdf(['iiiiiiiiii 777 WWWWWWWWWW'])))!;
    const [x0, x1] = xs(findCitation(layout, 777)!);
    expect(Math.abs(x0 - (72 + width('iiiiiiiiii ', 12)))).toBeLessThan(1);
    expect(Math.abs(x1 - (72 + width('iiiiiiiiii 777', 12)))).toBeLessThan(1);
  });
});

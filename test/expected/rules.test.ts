import { describe, expect, it } from 'vitest';
import { fixExpected, RULES, validateExpected, type RuleId, type Severity, type ValidateOptions } from '../../src/expected/index.js';
import { CLASSIFY_NEW, CLASSIFY_OLD, EXTRACT_FIELDS, EXTRACT_NEW, EXTRACT_OLD, SPLITTER_NEW, SPLITTER_OLD, validInvoice, validLegacy } from './configs.js';

interface Want {
  rule: RuleId;
  pointer: string;
  severity?: Severity;
  /** A fix is offered. */
  fix?: boolean;
}

interface Row {
  name: string;
  config: unknown;
  doc: unknown;
  opts?: ValidateOptions;
  want: Want[];
  /** The document after fixExpected (omitted: nothing to fix). */
  fixed?: unknown;
  /** Rules still reported after the fix. */
  remaining?: RuleId[];
}

type V = Record<string, unknown>;
/** A valid invoice expected output, changed by `edit`. */
function invoice(edit: (v: V, doc: V) => void = () => undefined): V {
  const doc = validInvoice() as unknown as V;
  edit(doc.value as V, doc);
  return doc;
}
const legacy = (edit: (d: V) => void): V => {
  const d = validLegacy();
  edit(d);
  return d;
};

const extractRows = (config: unknown, layout: string): Row[] =>
  [
    { name: 'valid invoice', doc: invoice(), want: [] },
    { name: 'every field null', doc: { value: Object.fromEntries(Object.keys(invoice().value as V).map((k) => [k, null])) }, want: [] },
    { name: 'without metadata', doc: invoice((_v, d) => delete d.metadata), want: [] },
    {
      name: 'absent field is a warning',
      doc: invoice((v) => delete v.notes),
      want: [{ rule: 'missing-field', pointer: '/value/notes', severity: 'warning', fix: true }],
    },
    {
      name: 'absent field is an error with strict, fixed as null',
      doc: invoice((v) => delete v.notes),
      opts: { strict: true },
      want: [{ rule: 'missing-field', pointer: '/value/notes', fix: true }],
      fixed: invoice(),
    },
    {
      name: 'absent member of a line item',
      doc: invoice((v) => delete (v.line_items as V[])[1].quantity),
      want: [{ rule: 'missing-field', pointer: '/value/line_items/1/quantity', severity: 'warning', fix: true }],
    },
    { name: 'unknown field', doc: invoice((v) => (v.invoice_numbr = 'x')), want: [{ rule: 'unknown-field', pointer: '/value/invoice_numbr' }] },
    { name: 'unknown nested member', doc: invoice((v) => ((v.vendor as V).zip = '1')), want: [{ rule: 'unknown-field', pointer: '/value/vendor/zip' }] },
    { name: 'unknown top-level key', doc: invoice((_v, d) => (d.extra = 1)), want: [{ rule: 'unknown-field', pointer: '/extra' }] },
    { name: 'string field holds a number', doc: invoice((v) => (v.invoice_number = 1001)), want: [{ rule: 'type-mismatch', pointer: '/value/invoice_number' }] },
    {
      name: 'integer field holds a numeric string',
      doc: invoice((v) => (v.page_count = '2')),
      want: [{ rule: 'type-mismatch', pointer: '/value/page_count', fix: true }],
      fixed: invoice(),
    },
    { name: 'integer field holds a fraction', doc: invoice((v) => (v.page_count = 2.5)), want: [{ rule: 'type-mismatch', pointer: '/value/page_count' }] },
    {
      name: 'number with thousands separators in a line item',
      doc: invoice((v) => ((v.line_items as V[])[0].quantity = '1,000.5')),
      want: [{ rule: 'type-mismatch', pointer: '/value/line_items/0/quantity', fix: true }],
      fixed: invoice((v) => ((v.line_items as V[])[0].quantity = 1000.5)),
    },
    {
      name: 'boolean written as a word',
      doc: invoice((v) => (v.paid = 'No')),
      want: [{ rule: 'type-mismatch', pointer: '/value/paid', fix: true }],
      fixed: invoice(),
    },
    { name: 'array field holds an object', doc: invoice((v) => (v.line_items = { description: 'x' })), want: [{ rule: 'type-mismatch', pointer: '/value/line_items' }] },
    { name: 'object field holds a string', doc: invoice((v) => (v.vendor = 'Acme')), want: [{ rule: 'type-mismatch', pointer: '/value/vendor' }] },
    { name: 'bare number in a currency field, no --currency', doc: invoice((v) => (v.total = 1234.56)), want: [{ rule: 'currency-shape', pointer: '/value/total' }] },
    {
      name: 'bare number in a currency field with --currency',
      doc: invoice((v) => (v.total = 1234.56)),
      opts: { currency: 'USD' },
      want: [{ rule: 'currency-shape', pointer: '/value/total', fix: true }],
      fixed: invoice(),
    },
    {
      name: 'currency recognised by its two properties',
      doc: invoice((v) => (v.tax = 100)),
      opts: { currency: 'USD' },
      want: [{ rule: 'currency-shape', pointer: '/value/tax', fix: true }],
      fixed: invoice(),
    },
    {
      name: 'money text with symbol and separators',
      doc: invoice((v) => (v.total = '$1,234.56')),
      want: [{ rule: 'currency-shape', pointer: '/value/total', fix: true }],
      fixed: invoice(),
    },
    {
      name: 'money text with code and decimal comma',
      doc: invoice((v) => (v.total = 'EUR 12,50')),
      want: [{ rule: 'currency-shape', pointer: '/value/total', fix: true }],
      fixed: invoice((v) => (v.total = { amount: 12.5, iso_4217_currency_code: 'EUR' })),
    },
    {
      name: 'currency code under another name',
      doc: invoice((v) => (v.total = { amount: 1234.56, currency: 'usd' })),
      want: [
        { rule: 'currency-shape', pointer: '/value/total', fix: true },
        { rule: 'currency-code', pointer: '/value/total/currency', fix: true },
      ],
      fixed: invoice(),
    },
    {
      name: 'currency object without a code',
      doc: invoice((v) => (v.total = { amount: 1234.56 })),
      opts: { currency: 'USD' },
      want: [{ rule: 'currency-shape', pointer: '/value/total', fix: true }],
      fixed: invoice(),
    },
    {
      name: 'currency amount as text',
      doc: invoice((v) => (v.total = { amount: '1.234,56', iso_4217_currency_code: 'USD' })),
      want: [{ rule: 'type-mismatch', pointer: '/value/total/amount', fix: true }],
      fixed: invoice(),
    },
    {
      name: 'extra member in a currency object',
      doc: invoice((v) => (v.total = { amount: 1, iso_4217_currency_code: 'USD', symbol: '$' })),
      want: [{ rule: 'currency-shape', pointer: '/value/total/symbol' }],
    },
    {
      name: 'currency code in lower case',
      doc: invoice((v) => ((v.line_items as V[])[1].amount = { amount: 234.56, iso_4217_currency_code: 'usd' })),
      want: [{ rule: 'currency-code', pointer: '/value/line_items/1/amount/iso_4217_currency_code', fix: true }],
      fixed: invoice(),
    },
    {
      name: 'currency symbol instead of a code',
      doc: invoice((v) => (v.total = { amount: 1, iso_4217_currency_code: '€' })),
      want: [{ rule: 'currency-code', pointer: '/value/total/iso_4217_currency_code', fix: true }],
      fixed: invoice((v) => (v.total = { amount: 1, iso_4217_currency_code: 'EUR' })),
    },
    { name: 'made-up currency code', doc: invoice((v) => (v.total = { amount: 1, iso_4217_currency_code: 'XYZ' })), want: [{ rule: 'currency-code', pointer: '/value/total/iso_4217_currency_code' }] },
    { name: 'null amount and code', doc: invoice((v) => (v.total = { amount: null, iso_4217_currency_code: null })), want: [] },
    {
      name: 'results not under value',
      doc: { ...(invoice().value as V) },
      want: [{ rule: 'value-wrapper', pointer: '', fix: true }],
      fixed: invoice((_v, d) => delete d.metadata),
    },
    {
      name: 'results not under value, with metadata and a bad date',
      doc: { metadata: {}, ...(invoice((v) => (v.invoice_date = '15/03/2024')).value as V) },
      want: [
        { rule: 'value-wrapper', pointer: '', fix: true },
        { rule: 'date-format', pointer: '/invoice_date', fix: true },
      ],
      fixed: invoice((_v, d) => (d.metadata = {})),
    },
    {
      name: 'one field beside value',
      doc: invoice((v, d) => {
        d.notes = 'late';
        delete v.notes;
      }),
      want: [{ rule: 'value-wrapper', pointer: '/notes', fix: true }, { rule: 'missing-field', pointer: '/value/notes', severity: 'warning', fix: true }],
      fixed: invoice((v) => (v.notes = 'late')),
    },
    {
      name: 'an empty object',
      doc: {},
      opts: { strict: true },
      want: [{ rule: 'value-wrapper', pointer: '', fix: true }],
      fixed: { value: Object.fromEntries(Object.keys(invoice().value as V).map((k) => [k, null])) },
    },
    { name: 'value is not an object', doc: { value: [] }, want: [{ rule: 'type-mismatch', pointer: '/value' }] },
    { name: 'not an object at all', doc: 'invoice', want: [{ rule: 'type-mismatch', pointer: '' }] },
    {
      name: 'wrapper repeated inside value',
      doc: { value: { value: invoice().value } },
      want: [{ rule: 'nested-value-wrapper', pointer: '/value', fix: true }],
      fixed: invoice((_v, d) => delete d.metadata),
    },
    {
      name: 'wrapper around an object field',
      doc: invoice((v) => (v.vendor = { value: { name: 'Acme', address: { value: { street: '1 Main St', city: 'Springfield' } } } })),
      want: [
        { rule: 'nested-value-wrapper', pointer: '/value/vendor', fix: true },
        { rule: 'nested-value-wrapper', pointer: '/value/vendor/value/address', fix: true },
      ],
      fixed: invoice(),
    },
    {
      name: 'wrappers around a scalar and a line item',
      doc: invoice((v) => {
        v.invoice_number = { value: { value: 'INV-001' } };
        (v.line_items as V[])[0] = { value: (v.line_items as V[])[0] };
      }),
      want: [
        { rule: 'nested-value-wrapper', pointer: '/value/invoice_number', fix: true },
        { rule: 'nested-value-wrapper', pointer: '/value/line_items/0', fix: true },
      ],
      fixed: invoice(),
    },
    {
      name: 'enum value in another case',
      doc: invoice((v) => (v.status = ' OPEN')),
      want: [{ rule: 'enum-value', pointer: '/value/status', fix: true }],
      fixed: invoice(),
    },
    { name: 'enum value not configured', doc: invoice((v) => (v.status = 'closed')), want: [{ rule: 'enum-value', pointer: '/value/status' }] },
    {
      name: 'unambiguous US date',
      doc: invoice((v) => (v.invoice_date = '03/15/2024')),
      want: [{ rule: 'date-format', pointer: '/value/invoice_date', fix: true }],
      fixed: invoice(),
    },
    {
      name: 'date with a month name',
      doc: invoice((v) => (v.invoice_date = 'March 15, 2024')),
      want: [{ rule: 'date-format', pointer: '/value/invoice_date', fix: true }],
      fixed: invoice(),
    },
    { name: 'ambiguous date without --date-order', doc: invoice((v) => (v.invoice_date = '03/04/2024')), want: [{ rule: 'date-format', pointer: '/value/invoice_date' }] },
    {
      name: 'ambiguous date with --date-order dmy',
      doc: invoice((v) => (v.invoice_date = '15/03/2024')),
      opts: { dateOrder: 'dmy' },
      want: [{ rule: 'date-format', pointer: '/value/invoice_date', fix: true }],
      fixed: invoice(),
    },
    { name: 'impossible calendar date', doc: invoice((v) => (v.invoice_date = '2023-02-29')), want: [{ rule: 'date-format', pointer: '/value/invoice_date' }] },
    { name: 'date as a number', doc: invoice((v) => (v.invoice_date = 20240315)), want: [{ rule: 'type-mismatch', pointer: '/value/invoice_date' }] },
    { name: 'metadata not an object', doc: invoice((_v, d) => (d.metadata = [])), want: [{ rule: 'metadata-shape', pointer: '/metadata' }] },
    { name: 'metadata entry not an object', doc: invoice((_v, d) => (d.metadata = { total: 0.9 })), want: [{ rule: 'metadata-shape', pointer: '/metadata/total' }] },
    { name: 'signature with an unknown member', doc: invoice((v) => ((v.signature as V).stamp = true)), want: [{ rule: 'unknown-field', pointer: '/value/signature/stamp' }] },
    {
      name: 'signature date not ISO',
      doc: invoice((v) => ((v.signature as V).signature_date = '16 Mar 2024')),
      want: [{ rule: 'date-format', pointer: '/value/signature/signature_date', fix: true }],
      fixed: invoice(),
    },
  ].map((r) => ({ ...r, name: `EXTRACT ${layout}: ${r.name}`, config }) as Row);

const legacyRows: Row[] = [
  { name: 'valid legacy entries', doc: validLegacy(), want: [] },
  { name: 'value form of a fields config', doc: { value: { invoice_number: 'x', total: null, invoice_date: null, status: 'open', paid: null, count: 1, signature: null, vendor: null, line_items: [] } }, want: [] },
  {
    name: 'legacy entry keyed by id',
    doc: legacy((d) => {
      d.invoice_number = d['Invoice Number'];
      delete d['Invoice Number'];
    }),
    want: [{ rule: 'legacy-field', pointer: '/invoice_number', fix: true }],
    fixed: (() => {
      const d = validLegacy();
      const e = d['Invoice Number'];
      delete d['Invoice Number'];
      d['Invoice Number'] = e;
      return d;
    })(),
  },
  { name: 'legacy entry with a wrong type', doc: legacy((d) => ((d.Total as V).type = 'number')), want: [{ rule: 'legacy-field', pointer: '/Total/type', fix: true }], fixed: legacy((d) => ((d.Total as V).type = 'currency')) },
  { name: 'legacy entry with another id', doc: legacy((d) => ((d.Total as V).id = 'tax')), want: [{ rule: 'legacy-field', pointer: '/Total/id' }] },
  { name: 'legacy page as text', doc: legacy((d) => ((d['Invoice Number'] as V).page = '1')), want: [{ rule: 'page-number', pointer: '/Invoice Number/page', fix: true }], fixed: validLegacy() },
  { name: 'legacy page zero', doc: legacy((d) => ((d['Invoice Number'] as V).page = 0)), want: [{ rule: 'page-number', pointer: '/Invoice Number/page' }] },
  { name: 'legacy confidence above 1', doc: legacy((d) => ((d['Invoice Number'] as V).confidence = 95)), want: [{ rule: 'confidence-range', pointer: '/Invoice Number/confidence' }] },
  { name: 'legacy value of the wrong type', doc: legacy((d) => ((d.Count as V).value = '3')), want: [{ rule: 'type-mismatch', pointer: '/Count/value', fix: true }], fixed: validLegacy() },
  { name: 'legacy unknown name', doc: legacy((d) => (d.Totl = { id: 'totl', value: 1 })), want: [{ rule: 'unknown-field', pointer: '/Totl' }] },
  { name: 'legacy unknown entry member', doc: legacy((d) => ((d.Paid as V).references = [])), want: [{ rule: 'unknown-field', pointer: '/Paid/references' }] },
  {
    name: 'legacy absent field, strict',
    doc: legacy((d) => delete d.Signature),
    opts: { strict: true },
    want: [{ rule: 'missing-field', pointer: '/Signature', fix: true }],
    fixed: validLegacy(),
  },
].map((r) => ({ ...r, name: `EXTRACT fields: ${r.name}`, config: EXTRACT_FIELDS }) as Row);

const classifyRows = (config: unknown, layout: string): Row[] =>
  [
    { name: 'valid', doc: { id: 'invoice', type: 'Invoice', confidence: 1 }, want: [] },
    { name: 'valid without confidence', doc: { id: 'other', type: 'Other' }, want: [] },
    { name: 'id in another case', doc: { id: 'Invoice', type: 'Invoice' }, want: [{ rule: 'unknown-classification', pointer: '/id', fix: true }], fixed: { id: 'invoice', type: 'Invoice' } },
    { name: 'unknown id', doc: { id: 'bill', type: 'Invoice' }, want: [{ rule: 'unknown-classification', pointer: '/id' }] },
    { name: 'unknown type, valid id', doc: { id: 'receipt', type: 'Bon' }, want: [{ rule: 'unknown-classification', pointer: '/type', fix: true }], fixed: { id: 'receipt', type: 'Receipt' } },
    { name: 'id and type of two classifications', doc: { id: 'invoice', type: 'Receipt' }, want: [{ rule: 'classification-mismatch', pointer: '' }] },
    { name: 'type absent', doc: { id: 'invoice' }, want: [{ rule: 'required-property', pointer: '', fix: true }], fixed: { id: 'invoice', type: 'Invoice' } },
    { name: 'id absent', doc: { type: 'Receipt' }, want: [{ rule: 'required-property', pointer: '', fix: true }], fixed: { type: 'Receipt', id: 'receipt' } },
    { name: 'confidence out of range', doc: { id: 'invoice', type: 'Invoice', confidence: 2 }, want: [{ rule: 'confidence-range', pointer: '/confidence' }] },
    { name: 'confidence as text', doc: { id: 'invoice', type: 'Invoice', confidence: '0.5' }, want: [{ rule: 'confidence-range', pointer: '/confidence', fix: true }], fixed: { id: 'invoice', type: 'Invoice', confidence: 0.5 } },
    { name: 'wrapped in value', doc: { value: { id: 'invoice', type: 'Invoice' } }, want: [{ rule: 'value-wrapper', pointer: '', fix: true }], fixed: { id: 'invoice', type: 'Invoice' } },
    { name: 'output members copied over', doc: { id: 'invoice', type: 'Invoice', insights: [] }, want: [{ rule: 'unknown-field', pointer: '/insights' }] },
    { name: 'id not a string', doc: { id: 3, type: 'Invoice' }, want: [{ rule: 'type-mismatch', pointer: '/id' }] },
  ].map((r) => ({ ...r, name: `CLASSIFY ${layout}: ${r.name}`, config }) as Row);

const split = (id: string, c: string, start: unknown, end: unknown, extra: V = {}): V => ({
  id,
  classificationId: c,
  type: c === 'invoice' ? 'Invoice' : 'Receipt',
  startPage: start,
  endPage: end,
  ...extra,
});

const splitterRows = (config: unknown, layout: string): Row[] =>
  [
    { name: 'valid', doc: { splits: [split('s1', 'invoice', 1, 3, { identifier: 'INV-1', observation: null }), split('s2', 'receipt', 4, 4)] }, want: [] },
    { name: 'no splits', doc: { splits: [] }, want: [] },
    {
      name: 'splits under the old key',
      doc: { subDocumentClassifications: [split('s1', 'invoice', 1, 3)] },
      want: [{ rule: 'legacy-splits-key', pointer: '/subDocumentClassifications', fix: true }],
      fixed: { splits: [split('s1', 'invoice', 1, 3)] },
    },
    {
      name: 'both keys',
      doc: { splits: [], subDocumentClassifications: [] },
      want: [{ rule: 'legacy-splits-key', pointer: '/subDocumentClassifications' }],
    },
    { name: 'start after end', doc: { splits: [split('s1', 'invoice', 3, 1)] }, want: [{ rule: 'split-range', pointer: '/splits/0' }] },
    { name: 'page zero', doc: { splits: [split('s1', 'invoice', 0, 1)] }, want: [{ rule: 'split-range', pointer: '/splits/0/startPage' }] },
    { name: 'fractional page', doc: { splits: [split('s1', 'invoice', 1, 1.5)] }, want: [{ rule: 'split-range', pointer: '/splits/0/endPage' }] },
    {
      name: 'page as text',
      doc: { splits: [split('s1', 'invoice', '1', 2)] },
      want: [{ rule: 'type-mismatch', pointer: '/splits/0/startPage', fix: true }],
      fixed: { splits: [split('s1', 'invoice', 1, 2)] },
    },
    {
      name: 'overlapping splits',
      doc: { splits: [split('s1', 'invoice', 1, 3), split('s2', 'receipt', 5, 6), split('s3', 'receipt', 3, 4)] },
      want: [{ rule: 'split-overlap', pointer: '/splits/2' }],
    },
    { name: 'one split inside another', doc: { splits: [split('s1', 'invoice', 1, 9), split('s2', 'receipt', 4, 5)] }, want: [{ rule: 'split-overlap', pointer: '/splits/1' }] },
    { name: 'duplicate ids', doc: { splits: [split('s1', 'invoice', 1, 1), split('s1', 'receipt', 2, 2)] }, want: [{ rule: 'duplicate-split-id', pointer: '/splits/1/id' }] },
    { name: 'unknown classification', doc: { splits: [{ ...split('s1', 'invoice', 1, 1), classificationId: 'memo' }] }, want: [{ rule: 'unknown-classification', pointer: '/splits/0/classificationId' }] },
    {
      name: 'type absent',
      doc: { splits: [{ id: 's1', classificationId: 'receipt', startPage: 1, endPage: 1 }] },
      want: [{ rule: 'required-property', pointer: '/splits/0', fix: true }],
      fixed: { splits: [{ id: 's1', classificationId: 'receipt', startPage: 1, endPage: 1, type: 'Receipt' }] },
    },
    { name: 'id absent', doc: { splits: [{ classificationId: 'receipt', type: 'Receipt', startPage: 1, endPage: 1 }] }, want: [{ rule: 'required-property', pointer: '/splits/0' }] },
    { name: 'unknown member', doc: { splits: [split('s1', 'invoice', 1, 1, { pages: [1] })] }, want: [{ rule: 'unknown-field', pointer: '/splits/0/pages' }] },
    {
      name: 'wrapped in value, old key inside',
      doc: { value: { subDocumentClassifications: [split('s1', 'invoice', 1, 2)] } },
      want: [
        { rule: 'value-wrapper', pointer: '', fix: true },
        { rule: 'legacy-splits-key', pointer: '/value/subDocumentClassifications', fix: true },
      ],
      fixed: { splits: [split('s1', 'invoice', 1, 2)] },
    },
    { name: 'no splits key', doc: { pages: [] }, want: [{ rule: 'unknown-field', pointer: '/pages' }, { rule: 'required-property', pointer: '' }] },
    { name: 'splits not an array', doc: { splits: {} }, want: [{ rule: 'type-mismatch', pointer: '/splits' }] },
  ].map((r) => ({ ...r, name: `SPLITTER ${layout}: ${r.name}`, config }) as Row);

// API 2026-02-09's expected form (spec 3.7): the members 2025-04-21 has and 2026-02-09 has not are
// findings of their own whose fix removes them.
const CURRENT: ValidateOptions = { form: '2026-02-09' };
const split26 = (c: string, start: number, end: number, extra: V = {}): V => ({ classificationId: c, type: c === 'invoice' ? 'Invoice' : 'Receipt', startPage: start, endPage: end, ...extra });
const currentRows: Row[] = [
  { name: 'CLASSIFY: valid {id, type}', config: CLASSIFY_NEW, doc: { id: 'invoice', type: 'Invoice' }, want: [] },
  { name: 'CLASSIFY: confidence 1', config: CLASSIFY_NEW, doc: { id: 'invoice', type: 'Invoice', confidence: 1 }, want: [{ rule: 'api-version-form', pointer: '/confidence', fix: true }], fixed: { id: 'invoice', type: 'Invoice' } },
  { name: 'CLASSIFY: confidence out of range is the same finding', config: CLASSIFY_NEW, doc: { id: 'other', type: 'Other', confidence: 7 }, want: [{ rule: 'api-version-form', pointer: '/confidence', fix: true }], fixed: { id: 'other', type: 'Other' } },
  { name: 'CLASSIFY: output members', config: CLASSIFY_NEW, doc: { id: 'invoice', type: 'Invoice', insights: [] }, want: [{ rule: 'unknown-field', pointer: '/insights' }] },
  { name: 'SPLITTER: valid splits without ids', config: SPLITTER_NEW, doc: { splits: [split26('invoice', 1, 3), split26('receipt', 4, 4)] }, want: [] },
  {
    name: 'SPLITTER: id, identifier and observation',
    config: SPLITTER_NEW,
    doc: { splits: [split('s1', 'invoice', 1, 3, { identifier: 'INV-1', observation: null }), split('s2', 'receipt', 4, 4)] },
    want: [
      { rule: 'api-version-form', pointer: '/splits/0/id', fix: true },
      { rule: 'api-version-form', pointer: '/splits/0/identifier', fix: true },
      { rule: 'api-version-form', pointer: '/splits/0/observation', fix: true },
      { rule: 'api-version-form', pointer: '/splits/1/id', fix: true },
    ],
    fixed: { splits: [split26('invoice', 1, 3), split26('receipt', 4, 4)] },
  },
  {
    name: 'SPLITTER: the same id twice is not a duplicate (ids are gone)',
    config: SPLITTER_NEW,
    doc: { splits: [split('s1', 'invoice', 1, 1), split('s1', 'receipt', 2, 2)] },
    want: [
      { rule: 'api-version-form', pointer: '/splits/0/id', fix: true },
      { rule: 'api-version-form', pointer: '/splits/1/id', fix: true },
    ],
    fixed: { splits: [split26('invoice', 1, 1), split26('receipt', 2, 2)] },
  },
  { name: 'SPLITTER: run output members', config: SPLITTER_NEW, doc: { splits: [split26('invoice', 1, 1, { name: 'a', fileId: null })] }, want: [{ rule: 'unknown-field', pointer: '/splits/0/name' }, { rule: 'unknown-field', pointer: '/splits/0/fileId' }] },
  { name: 'SPLITTER: still overlaps', config: SPLITTER_NEW, doc: { splits: [split26('invoice', 1, 3), split26('receipt', 3, 4)] }, want: [{ rule: 'split-overlap', pointer: '/splits/1' }] },
  { name: 'EXTRACT: valid invoice', config: EXTRACT_NEW, doc: invoice(), want: [] },
  {
    name: 'EXTRACT: the fields form, id and value only, becomes the value form',
    config: EXTRACT_FIELDS,
    doc: { 'Invoice Number': { id: 'invoice_number', value: 'INV-1', type: 'string' }, Paid: { id: 'paid', value: true } },
    want: [{ rule: 'api-version-form', pointer: '', fix: true }],
    fixed: { value: { invoice_number: 'INV-1', paid: true } },
  },
  { name: 'EXTRACT: the fields form with a confidence is not fixed (it would be lost)', config: EXTRACT_FIELDS, doc: validLegacy(), want: [{ rule: 'api-version-form', pointer: '' }] },
].map((r) => ({ ...r, name: `API 2026-02-09 ${r.name}`, opts: CURRENT }) as Row);

const rows: Row[] = [
  ...currentRows,
  ...extractRows(EXTRACT_NEW, '2025-04-21'),
  ...extractRows(EXTRACT_OLD, '2024-11-14'),
  ...legacyRows,
  ...classifyRows(CLASSIFY_NEW, '2025-04-21'),
  ...classifyRows(CLASSIFY_OLD, '2024-11-14'),
  ...splitterRows(SPLITTER_NEW, '2025-04-21'),
  ...splitterRows(SPLITTER_OLD, '2024-11-14'),
];

const simplify = (fs: Array<{ rule: string; pointer: string; severity: string; fix?: unknown }>) =>
  fs.map((f) => ({ rule: f.rule, pointer: f.pointer, severity: f.severity, fix: f.fix !== undefined })).sort((a, b) => (a.pointer + a.rule < b.pointer + b.rule ? -1 : 1));

describe('validateExpected and fixExpected', () => {
  it.each(rows)('$name', ({ config, doc, opts, want, fixed, remaining }) => {
    const before = structuredClone(doc);
    const r = validateExpected(config, doc, opts);
    expect(simplify(r.findings)).toEqual(simplify(want.map((w) => ({ ...w, severity: w.severity ?? 'error', fix: w.fix ? [] : undefined }))));
    expect(r.valid).toBe(!want.some((w) => (w.severity ?? 'error') === 'error'));
    for (const f of r.findings) {
      expect(f.message).toMatch(/expected .+, got |is absent|is not a field/);
      expect(RULES[f.rule]).toBeDefined();
    }
    const f = fixExpected(config, doc, opts);
    expect(doc).toEqual(before);
    if (fixed !== undefined) {
      expect(f.doc).toEqual(fixed);
      const again = validateExpected(config, f.doc, opts);
      expect(again.findings.filter((x) => x.severity === 'error').map((x) => x.rule)).toEqual(remaining ?? []);
      expect(f.findings).toEqual(again.findings);
    } else {
      expect(f.fixed.filter((x) => x.severity === 'error')).toEqual([]);
    }
  });

  it('has a row for every rule', () => {
    const covered = new Set(rows.flatMap((r) => r.want.map((w) => w.rule)));
    expect(Object.keys(RULES).filter((r) => r !== 'schema-violation' && !covered.has(r as RuleId))).toEqual([]);
  });

  it('calls a number beyond a double (1e400, which JSON.parse reads as Infinity) a type mismatch: it would be sent as null', () => {
    const r = validateExpected(EXTRACT_NEW, JSON.parse('{"value": {"invoice_number": "A", "total": {"amount": 1e400, "iso_4217_currency_code": "USD"}}}'));
    expect(r.valid).toBe(false);
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([expect.objectContaining({ pointer: '/value/total/amount', rule: 'type-mismatch', message: expect.stringMatching(/beyond the range of JSON numbers .* sent as null/) })]);
  });

  it('says what it expected and what it got', () => {
    const r = validateExpected(EXTRACT_NEW, invoice((v) => (v.total = 'twelve')));
    expect(r.findings[0].message).toBe('expected a currency object {amount, iso_4217_currency_code}, got string "twelve" ("twelve" is not an amount of money)');
    const u = validateExpected(EXTRACT_NEW, invoice((v) => (v.invoice_numbr = 'x')));
    expect(u.findings[0].message).toBe('"invoice_numbr" is not a field of the config; did you mean "invoice_number"?');
    const d = validateExpected(EXTRACT_NEW, invoice((v) => (v.invoice_date = '03/04/2024')));
    // The library says what is wrong; the CLI adds its flag (the sandbox answers with the message).
    expect(d.findings[0].message).toContain('the order of day and month is not known');
    expect(d.findings[0].settledBy).toBe('dateOrder');
  });
});

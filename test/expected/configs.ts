/** Processor configs of every type and form, in both layouts, shared by the expected/ tests. */

const currency = (extend: boolean) => ({
  type: 'object',
  ...(extend ? { 'extend:type': 'currency' } : {}),
  properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } },
});

export const invoiceSchema = {
  type: 'object',
  properties: {
    invoice_number: { type: 'string' },
    invoice_date: { type: 'string', format: 'date' },
    total: currency(true),
    tax: currency(false),
    paid: { type: 'boolean' },
    page_count: { type: 'integer' },
    status: { type: 'string', enum: ['open', 'paid', 'void'] },
    vendor: { type: 'object', properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } } },
    signature: {
      type: 'object',
      'extend:type': 'signature',
      properties: { printed_name: { type: 'string' }, signature_date: { type: 'string' }, is_signed: { type: 'boolean' }, title_or_role: { type: 'string' } },
    },
    line_items: {
      type: 'array',
      items: { type: 'object', properties: { description: { type: 'string' }, quantity: { type: 'number' }, amount: currency(true) } },
    },
    notes: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
  $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
};

export const EXTRACT_NEW = {
  type: 'EXTRACT',
  baseProcessor: 'extraction_performance',
  extractionRules: 'Dates as printed.',
  advancedOptions: { citationsEnabled: true },
  schema: invoiceSchema,
};

export const EXTRACT_OLD = {
  type: 'EXTRACT',
  customExtractionRules: 'Dates as printed.',
  includeBoundingBoxCitations: true,
  schema: invoiceSchema,
};

export const EXTRACT_FIELDS = {
  type: 'EXTRACT',
  fields: [
    { id: 'invoice_number', name: 'Invoice Number', type: 'string', description: '' },
    { id: 'total', name: 'Total', type: 'currency', description: '' },
    { id: 'invoice_date', name: 'Invoice Date', type: 'date', description: '' },
    { id: 'status', name: 'Status', type: 'enum', description: '', enum: [{ value: 'open', description: '' }, { value: 'paid', description: '' }] },
    { id: 'paid', name: 'Paid', type: 'boolean', description: '' },
    { id: 'count', name: 'Count', type: 'number', description: '' },
    { id: 'signature', name: 'Signature', type: 'signature', description: '' },
    { id: 'vendor', name: 'Vendor', type: 'object', description: '', schema: [{ id: 'name', name: 'Name', type: 'string', description: '' }] },
    {
      id: 'line_items',
      name: 'Line Items',
      type: 'array',
      description: '',
      schema: [
        { id: 'description', name: 'Description', type: 'string', description: '' },
        { id: 'amount', name: 'Amount', type: 'currency', description: '' },
      ],
    },
  ],
};

const classes = [
  { id: 'invoice', type: 'Invoice', description: 'A bill' },
  { id: 'receipt', type: 'Receipt', description: 'Proof of payment' },
  { id: 'other', type: 'Other', description: 'Anything else' },
];

export const CLASSIFY_NEW = { type: 'CLASSIFY', classifications: classes, classificationRules: 'Prefer invoice.', advancedOptions: { context: 'max' } };
export const CLASSIFY_OLD = { type: 'CLASSIFY', fields: classes, customClassificationRules: 'Prefer invoice.' };

const splitClasses = [
  { id: 'invoice', type: 'Invoice', description: '' },
  { id: 'receipt', type: 'Receipt', description: '' },
];
export const SPLITTER_NEW = { type: 'SPLITTER', splitClassifications: splitClasses, splitRules: 'One invoice per vendor.', advancedOptions: { splitMethod: 'high_precision' } };
export const SPLITTER_OLD = { type: 'SPLITTER', subDocumentClassifications: splitClasses, customSplitterRules: 'One invoice per vendor.', identifierRules: 'Invoice number.' };

export function validInvoice(): { value: Record<string, unknown>; metadata?: Record<string, unknown> } {
  return {
    value: {
      invoice_number: 'INV-001',
      invoice_date: '2024-03-15',
      total: { amount: 1234.56, iso_4217_currency_code: 'USD' },
      tax: { amount: 100, iso_4217_currency_code: 'USD' },
      paid: false,
      page_count: 2,
      status: 'open',
      vendor: { name: 'Acme', address: { street: '1 Main St', city: 'Springfield' } },
      signature: { printed_name: 'J. Doe', signature_date: '2024-03-16', is_signed: true, title_or_role: 'CFO' },
      line_items: [
        { description: 'Widget', quantity: 2, amount: { amount: 1000, iso_4217_currency_code: 'USD' } },
        { description: 'Gadget', quantity: 1, amount: { amount: 234.56, iso_4217_currency_code: 'USD' } },
      ],
      notes: null,
    },
    metadata: { 'line_items[0].description': { ocrConfidence: 0.98 } },
  };
}

export function validLegacy(): Record<string, unknown> {
  return {
    'Invoice Number': { id: 'invoice_number', value: 'INV-1', type: 'string', confidence: 1, page: 1 },
    Total: { id: 'total', value: { amount: 10, iso_4217_currency_code: 'EUR' } },
    'Invoice Date': { id: 'invoice_date', value: '2024-01-31' },
    Status: { id: 'status', value: 'paid' },
    Paid: { id: 'paid', value: true },
    Count: { id: 'count', value: 3 },
    Signature: { id: 'signature', value: null },
    Vendor: { id: 'vendor', value: { name: 'Acme' } },
    'Line Items': { id: 'line_items', value: [{ description: 'x', amount: { amount: 10, iso_4217_currency_code: 'EUR' } }] },
  };
}

/** 2026-02-09 configs (extractor, classifier, splitter layout): no `type`, `parseConfig`. */
export const EXTRACT_2026 = { schema: invoiceSchema, parseConfig: { target: 'markdown' } };
export const CLASSIFY_2026 = { classifications: classes, parseConfig: { target: 'markdown' } };
export const SPLITTER_2026 = { splitClassifications: splitClasses, parseConfig: { target: 'markdown' } };

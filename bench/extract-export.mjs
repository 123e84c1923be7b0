// The seeded EXTRACT export of the report and explorer benchmarks (and the explorer's browser
// test): DOCS documents x 25 fields (24 scalar fields, 2 of them fuzzy, and a 10-row line-item
// array of 5 fields) with realistic errors. The same seed gives the same export.
const ROWS = 10;
let rng;
const u = () => rng();
const below = (n) => Math.floor(rng() * n);
const pick = (a) => a[below(a.length)];
const WORDS = ['acme', 'widget', 'gadget', 'invoice', 'north', 'supply', 'global', 'parts', 'service', 'metro', 'delta', 'prime'];
const words = (n) => Array.from({ length: n }, () => pick(WORDS)).join(' ');

// 24 scalar fields: 8 strings (2 fuzzy), 6 numbers, 4 dates, 3 currencies, 2 booleans, 1 enum.
const SCALARS = [
  ...Array.from({ length: 8 }, (_, i) => [`text_${i}`, 'string']),
  ...Array.from({ length: 6 }, (_, i) => [`number_${i}`, 'number']),
  ...Array.from({ length: 4 }, (_, i) => [`date_${i}`, 'date']),
  ...Array.from({ length: 3 }, (_, i) => [`amount_${i}`, 'currency']),
  ...Array.from({ length: 2 }, (_, i) => [`flag_${i}`, 'boolean']),
  ['status', 'enum'],
];
const schemaOf = (t) =>
  t === 'currency'
    ? { type: 'object', 'extend:type': 'currency', properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } } }
    : t === 'date'
      ? { type: ['string', 'null'], 'extend:type': 'date' }
      : t === 'enum'
        ? { type: ['string', 'null'], enum: ['paid', 'open', 'void', null] }
        : { type: [t, 'null'] };
const ROW = [['description', 'string'], ['quantity', 'number'], ['unit_price', 'number'], ['amount', 'currency'], ['sku', 'string']];
const config = {
  type: 'EXTRACT',
  schema: {
    type: 'object',
    properties: {
      ...Object.fromEntries(SCALARS.map(([k, t]) => [k, schemaOf(t)])),
      line_items: { type: 'array', items: { type: 'object', properties: Object.fromEntries(ROW.map(([k, t]) => [k, schemaOf(t)])) } },
    },
  },
};

function value(t) {
  switch (t) {
    case 'string': return u() < 0.1 ? null : words(1 + below(3));
    case 'number': return Math.round(u() * 100000) / 100;
    case 'date': return `20${10 + below(15)}-${String(1 + below(12)).padStart(2, '0')}-${String(1 + below(28)).padStart(2, '0')}`;
    case 'currency': return { amount: Math.round(u() * 100000) / 100, iso_4217_currency_code: pick(['USD', 'EUR', 'GBP']) };
    case 'boolean': return u() < 0.5;
    case 'enum': return pick(['paid', 'open', 'void']);
  }
}
/** A prediction of `v`: mostly right, sometimes missing, wrong or slightly off. */
function predict(v, t) {
  const r = u();
  if (r < 0.9) return v;
  if (r < 0.93) return null;
  if (t === 'string' && typeof v === 'string' && r < 0.97) return v.toUpperCase() + (u() < 0.5 ? '.' : '');
  if (t === 'date' && r < 0.97) return `${v.slice(5, 7)}/${v.slice(8)}/${v.slice(0, 4)}`;
  return value(t);
}
const row = () => Object.fromEntries(ROW.map(([k, t]) => [k, value(t)]));
const predictRow = (r) => Object.fromEntries(ROW.map(([k, t]) => [k, predict(r[k], t)]));

/** The export without its items (the JSONL export's first line). */
export const exportHeader = {
  format: 'evalkit-export/1',
  processor: { id: 'dp_bench', name: 'Bench invoices', type: 'EXTRACT', version: '1.0', config },
  options: { fuzzyMatchFields: ['text_0', 'text_1'], excludeFields: [] },
};

/** The DOCS items one at a time (ids padded to `idWidth` digits). */
export function* exportItems(seededRandom, DOCS, idWidth = 6) {
  rng = seededRandom(7);
  for (let d = 0; d < DOCS; d++) {
    const exp = Object.fromEntries(SCALARS.map(([k, t]) => [k, value(t)]));
    exp.line_items = Array.from({ length: ROWS }, row);
    const out = Object.fromEntries(SCALARS.map(([k, t]) => [k, predict(exp[k], t)]));
    out.line_items = exp.line_items.map(predictRow);
    const r = u();
    if (r < 0.05) out.line_items.reverse(); // reordered rows
    else if (r < 0.08) out.line_items.pop(); // a missing row
    else if (r < 0.1) out.line_items.push(row()); // an extra row
    const failed = u() < 0.005;
    yield {
      id: `evi_${String(d).padStart(idWidth, '0')}`,
      fileId: `file_${d}`,
      fileName: `doc-${d}.pdf`,
      expectedOutput: { value: exp },
      output: failed ? null : { value: out },
      status: failed ? 'FAILED' : 'PROCESSED',
      runId: `dpr_${d}`,
    };
  }
}

export function makeExport(seededRandom, DOCS = 50_000) {
  return { ...exportHeader, items: [...exportItems(seededRandom, DOCS)] };
}

// `npm run bench -- report [DOCS]`: an EXTRACT export of 50,000 documents x 25 fields (24 scalar
// fields, 2 of them fuzzy, and a 10-row line-item array of 5 fields) with realistic errors.
// Times `evalkit report` without bootstrap (parse + validate + score + json/md/junit/html) against
// JSON.parse of the same export in the same run; then the 2,000-resample bootstrap on its own;
// then peak memory. Last line: the ratio (target <= 3x).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseExport } from '../dist/report/load.js';
import { computeReport } from '../dist/report/build.js';
import { renderJson } from '../dist/report/json.js';
import { renderMarkdown } from '../dist/report/markdown.js';
import { renderJunit } from '../dist/report/junit.js';
import { renderHtml } from '../dist/report/html.js';
import { Rng } from '../dist/metrics/stats.js';

const DOCS = Number(process.argv[2] ?? 50_000);
const ROWS = 10;
const rng = new Rng(7);
const u = () => rng.u32() / 4294967296;
const pick = (a) => a[rng.below(a.length)];
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
    case 'string': return u() < 0.1 ? null : words(1 + rng.below(3));
    case 'number': return Math.round(u() * 100000) / 100;
    case 'date': return `20${10 + rng.below(15)}-${String(1 + rng.below(12)).padStart(2, '0')}-${String(1 + rng.below(28)).padStart(2, '0')}`;
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

function makeExport() {
  const items = [];
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
    items.push({
      id: `evi_${String(d).padStart(6, '0')}`,
      fileId: `file_${d}`,
      fileName: `doc-${d}.pdf`,
      expectedOutput: { value: exp },
      output: failed ? null : { value: out },
      status: failed ? 'FAILED' : 'PROCESSED',
      runId: `dpr_${d}`,
    });
  }
  return {
    format: 'evalkit-export/1',
    processor: { id: 'dp_bench', name: 'Bench invoices', type: 'EXTRACT', version: '1.0', config },
    options: { fuzzyMatchFields: ['text_0', 'text_1'], excludeFields: [] },
    items,
  };
}

const gc = globalThis.gc ?? (() => {});
const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-bench-report-'));
const file = path.join(dir, 'bench.json');
try {
  writeFileSync(file, JSON.stringify(makeExport()));
  const text = readFileSync(file, 'utf8');
  console.log(`export: ${DOCS} documents, ${(Buffer.byteLength(text) / 1e6).toFixed(0)} MB`);

  // Floor: JSON.parse of the same text, best of two.
  let floor = Infinity;
  for (let i = 0; i < 2; i++) {
    gc();
    const t0 = performance.now();
    JSON.parse(text);
    floor = Math.min(floor, performance.now() - t0);
  }
  console.log(`JSON.parse: ${floor.toFixed(0)} ms`);

  gc();
  const t = [performance.now()];
  const exp = await parseExport(text, file);
  t.push(performance.now());
  const report = computeReport(exp, { bootstrap: 0, sourceFile: 'bench.json' });
  t.push(performance.now());
  const sizes = [renderJson(report), renderMarkdown(report), renderJunit(report), renderHtml(report)].map((s) => s.length);
  t.push(performance.now());
  const total = t[3] - t[0];
  console.log(
    `report without bootstrap: ${total.toFixed(0)} ms (parse+validate ${(t[1] - t[0]).toFixed(0)}, score ${(t[2] - t[1]).toFixed(0)}, render ${(t[3] - t[2]).toFixed(0)}; ` +
      `json ${(sizes[0] / 1e6).toFixed(1)} MB, md ${(sizes[1] / 1e3).toFixed(0)} KB)`,
  );
  console.log(`micro F1 ${report.extract.micro.f1.value.toFixed(4)}, document accuracy ${report.extract.document.accuracy.value.toFixed(4)}`);

  gc();
  const b0 = performance.now();
  const withBootstrap = computeReport(exp, { bootstrap: 2000, seed: 1, sourceFile: 'bench.json' });
  const b1 = performance.now();
  console.log(`bootstrap: 2000 resamples: ${(b1 - b0 - (t[2] - t[1])).toFixed(0)} ms on top of scoring (report with bootstrap ${(b1 - b0).toFixed(0)} ms; micro F1 interval ${JSON.stringify(withBootstrap.extract.micro.f1.interval)})`);

  const rss = process.resourceUsage().maxRSS / 1024;
  console.log(`peak memory: maxRSS ${rss.toFixed(0)} MB, heap used now ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB`);
  console.log(`report: ${(total / floor).toFixed(2)}x of JSON.parse floor (target <= 3x)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

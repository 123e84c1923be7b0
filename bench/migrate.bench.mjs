// Benchmark: `evalkit migrate DIR --out-dir OUT` over 10,000 generated configs (mixed types and
// envelopes, about 2 KB each), against a floor measured in the same run: read + JSON.parse +
// JSON.stringify + write of the same files in one Node process. Last line: the ratio.
//   npm run bench -- migrate [--files N] [--rounds N] [--dir DIR]
// --dir /dev/shm measures on tmpfs: without the disk (whose throttling dominates on some VMs),
// the ratio is the CPU cost of the migration against the floor's.
import { numFlag, strFlag } from './args.mjs';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(here, '../dist/cli/index.js');
const N = numFlag('files', 10_000);
const ROUNDS = numFlag('rounds', 3);

// Deterministic pseudo-random numbers, so every run migrates the same files.
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const words = 'invoice total amount vendor date line item tax receipt contract bank statement page number currency due payment order quantity price description'.split(' ');
const sentence = (n) => Array.from({ length: n }, () => pick(words)).join(' ') + '.';

function extractConfig() {
  const properties = {};
  for (let i = 0; i < 6; i++) properties[`field_${i}`] = { type: ['string', 'null'], description: sentence(8) };
  properties.total = { type: 'object', 'extend:type': 'currency', properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } } };
  properties.line_items = { type: 'array', items: { type: 'object', properties: { description: { type: ['string', 'null'] }, amount: { type: ['number', 'null'] } } } };
  return { type: 'EXTRACT', baseProcessor: 'extraction_performance', customExtractionRules: sentence(40), includeBoundingBoxCitations: rand() < 0.5, schema: { type: 'object', properties } };
}
function classes(n) {
  return Array.from({ length: n }, (_, i) => ({ id: `class_${i}`, type: `class_${i}`, description: sentence(14) }));
}
function classifyConfig() {
  return { type: 'CLASSIFY', baseProcessor: 'classification_performance', fields: classes(8), customClassificationRules: sentence(40) };
}
function splitterConfig() {
  return { type: 'SPLITTER', subDocumentClassifications: classes(7), customSplitterRules: sentence(40), identifierRules: sentence(20) };
}
function splitterOutput() {
  return { subDocumentClassifications: Array.from({ length: 4 }, (_, i) => ({ id: `s${i}`, classificationId: 'class_1', type: 'class_1', startPage: i * 2 + 1, endPage: i * 2 + 2, identifier: `INV-${i}` })) };
}
function document(i) {
  const config = pick([extractConfig, classifyConfig, splitterConfig])();
  const { type, ...untyped } = config;
  switch (i % 6) {
    case 0: return config;
    case 1: return { object: 'document_processor', id: `dp_${i}`, name: `processor ${i}`, type, draftVersion: { id: `dpv_${i}`, version: 'draft', config: untyped } };
    case 2: return { object: 'document_processor_version', id: `dpv_${i}`, processorId: `dp_${i}`, processorType: type, version: '1.0', config: untyped };
    case 3: return { name: `processor ${i}`, type, config };
    case 4: return { object: 'document_processor_run', id: `dpr_${i}`, type: 'SPLITTER', status: 'PROCESSED', config: splitterConfig(), output: splitterOutput() };
    default: return [{ fileId: `file_${i}`, expectedOutput: splitterOutput() }, { fileId: `file_${i}b`, expectedOutput: splitterOutput() }, config];
  }
}

const work = mkdtempSync(path.join(strFlag('dir', os.tmpdir()), 'evalkit-bench-migrate-'));
const src = path.join(work, 'src');
const files = [];
let bytes = 0;
for (let i = 0; i < N; i++) {
  const rel = path.join(`d${String(i % 100).padStart(2, '0')}`, `config-${i}.json`);
  mkdirSync(path.join(src, path.dirname(rel)), { recursive: true });
  const text = JSON.stringify(document(i), null, 2) + '\n';
  bytes += text.length;
  writeFileSync(path.join(src, rel), text);
  files.push(rel);
}

async function floor(out) {
  // The same job in its simplest form: bounded concurrency, no migration, plain writes.
  const dirs = new Set(files.map((f) => path.dirname(f)));
  for (const d of dirs) mkdirSync(path.join(out, d), { recursive: true });
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const rel = files[next++];
      const doc = JSON.parse(await fsp.readFile(path.join(src, rel), 'utf8'));
      await fsp.writeFile(path.join(out, rel), JSON.stringify(doc, null, 2) + '\n');
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

function cli(out) {
  const r = spawnSync(process.execPath, [BIN, 'migrate', src, '--out-dir', out], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const tally = r.stdout.trim().split('\n').pop();
  if (r.status !== 0 || !tally.startsWith(`${N} migrated`)) {
    console.error(r.stderr.slice(0, 2000));
    throw new Error(`evalkit migrate failed (exit ${r.status}): ${tally}`);
  }
}

const time = async (fn) => {
  globalThis.gc?.();
  // Flush what earlier phases wrote, so that their writeback does not slow this one down.
  spawnSync('sync');
  const t = performance.now();
  await fn();
  return performance.now() - t;
};

console.log(`${N} files, ${(bytes / N / 1024).toFixed(1)} KB on average, in ${src}`);
let best = { floor: Infinity, cli: Infinity };
for (let round = 0; round < ROUNDS; round++) {
  const f = path.join(work, `floor-${round}`);
  const c = path.join(work, `cli-${round}`);
  const tf = await time(() => floor(f));
  const tc = await time(() => cli(c));
  console.log(`round ${round + 1}: floor ${tf.toFixed(0)} ms, evalkit migrate --out-dir ${tc.toFixed(0)} ms`);
  best = { floor: Math.min(best.floor, tf), cli: Math.min(best.cli, tc) };
  rmSync(f, { recursive: true, force: true });
  if (round < ROUNDS - 1) rmSync(c, { recursive: true, force: true });
}
// A spot check that the copies are migrated, not just copied.
const sample = JSON.parse(readFileSync(path.join(work, `cli-${ROUNDS - 1}`, files[3]), 'utf8'));
if (!sample.config || 'customExtractionRules' in sample.config || 'fields' in sample.config && sample.type === 'CLASSIFY') throw new Error('copy not migrated');
rmSync(work, { recursive: true, force: true });
console.log(`migrate: ${(best.cli / best.floor).toFixed(2)}x of parse+stringify floor (target <= 1.5x)`);

// `npm run bench -- sync`: what the three-way merge adds to planning a sync.
//
// A set of N items (default 5000, one small file each) is uploaded from a CSV, with the journal
// recording each item's labels. Then two dry runs of the same set are timed (median of 3 each):
// the floor, the unchanged CSV (list the items, plan: every row unchanged); and the CSV with every
// row's total and invoice number edited (list, plan, then read the CSV again and merge every
// row with the service's output and the journal's record, label by label). The same two dry runs
// then read the set with API 2026-02-09, whose item list has no expected outputs: each item is
// read on its own. The last line prints each edited dry run's time as a ratio of the 2025-04-21
// floor, and the 2026-02-09 unchanged dry run's (the cost of the per-item reads).
//
// Options: --rows N (5000).
import { numFlag } from './args.mjs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, '..', 'dist');
const ROWS = numFlag('rows', 5000);

const CONFIG = {
  type: 'EXTRACT',
  schema: {
    type: 'object',
    properties: {
      invoice_number: { type: ['string', 'null'] },
      invoice_date: { type: ['string', 'null'], format: 'date' },
      total: { type: 'object', 'extend:type': 'currency', properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } } },
      vendor: { type: 'object', properties: { name: { type: ['string', 'null'] }, country: { type: ['string', 'null'] } } },
    },
  },
};

const { uploadDataset } = await import(path.join(dist, 'dataset/index.js'));
const { createClient } = await import(path.join(dist, 'api/index.js'));
const { startSandbox } = await import(path.join(dist, 'sandbox/index.js'));

const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-bench-sync-'));
mkdirSync(path.join(dir, 'files'));
for (let i = 0; i < ROWS; i++) writeFileSync(path.join(dir, 'files', `doc-${i}.txt`), `INVOICE S-${i}\n`);
const csv = path.join(dir, 'data.csv');
function writeCsv(edit) {
  const lines = ['file,invoice_number,invoice_date,total,vendor.name,vendor.country'];
  for (let i = 0; i < ROWS; i++) lines.push(`files/doc-${i}.txt,S-${i}${edit ? '-fixed' : ''},2024-05-01,"€${(i % 997) + 1 + (edit ? 1000 : 0)},50",Vendor ${i % 50},CH`);
  writeFileSync(csv, lines.join('\n') + '\n');
}

const sb = await startSandbox({ port: 0 });
try {
  const client = createClient({ baseUrl: sb.url, token: sb.token });
  const p = await client.processors.create({ name: 'bench', type: 'EXTRACT', config: CONFIG });
  const set = await client.sets.create({ name: 'sync bench', entityId: p.id });
  const opts = { csv, evaluationSetId: set.id, config: { config: CONFIG, type: 'EXTRACT', origin: 'bench' }, connect: (fetch) => createClient({ baseUrl: sb.url, token: sb.token, fetch }), concurrency: 32, chunkSize: 500 };
  writeCsv(false);
  const first = await uploadDataset(opts);
  if (first.status !== 'done' || first.tally.created !== ROWS) throw new Error(`the first upload did not create ${ROWS} items`);
  const time = async (edit, apiVersion = '2025-04-21') => {
    writeCsv(edit);
    const ms = [];
    let r;
    const connect = (fetch) => createClient({ baseUrl: sb.url, token: sb.token, apiVersion, fetch });
    for (let k = 0; k < 3; k++) {
      const t = performance.now();
      r = await uploadDataset({ ...opts, connect, dryRun: true });
      ms.push(performance.now() - t);
    }
    return { ms: ms.sort((a, b) => a - b)[1], plan: r.plan };
  };
  const floor = await time(false);
  const edited = await time(true);
  // The same set read with 2026-02-09: its item list has no expected outputs, each item is read (concurrency 32).
  const floor26 = await time(false, '2026-02-09');
  const edited26 = await time(true, '2026-02-09');
  if (floor.plan.unchanged !== ROWS || edited.plan.update !== ROWS) throw new Error(`unexpected plans: ${JSON.stringify([floor.plan.unchanged, edited.plan.update])}`);
  if (floor26.plan.unchanged !== ROWS || edited26.plan.update !== ROWS) throw new Error(`unexpected 2026-02-09 plans: ${JSON.stringify([floor26.plan.unchanged, edited26.plan.update])}`);
  console.log(`sync dry run of ${ROWS} unchanged rows: ${floor.ms.toFixed(0)} ms`);
  console.log(`sync dry run of ${ROWS} rows with 2 labels edited each (read again, merged three-way, reviewed): ${edited.ms.toFixed(0)} ms; ${edited.plan.changes.length} changes`);
  console.log(`sync dry runs with API 2026-02-09 (the list, then each of the ${ROWS} items read, 32 at a time): unchanged ${floor26.ms.toFixed(0)} ms (${(floor26.ms / floor.ms).toFixed(2)}x of 2025-04-21's), edited ${edited26.ms.toFixed(0)} ms (${(edited26.ms / floor.ms).toFixed(2)}x)`);
  console.log(`sync: ${(edited.ms / floor.ms).toFixed(2)}x of an unchanged dry run (${ROWS} rows); 2026-02-09: ${(edited26.ms / floor.ms).toFixed(2)}x of the same floor, its own unchanged dry run ${(floor26.ms / floor.ms).toFixed(2)}x`);
} finally {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
}

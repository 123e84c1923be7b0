// `npm run bench -- upload`: evalkit dataset upload into the sandbox under a rate limit.
//
// 10,000 rows naming 1,000 distinct small files, sandbox with 20 ms latency and 200 requests/s,
// concurrency 32. The floor is the ideal request rate min(rate limit, concurrency / latency);
// the last line prints the achieved request rate of the write phase as a ratio of it (target
// >= 0.9), and the peak memory of a 2,500-row and a 10,000-row upload (flat: the CSV is
// streamed). The 10,000-row upload runs again with API 2026-02-09 (set on the extractor, nested
// items, 100 per create call): its ratio and its write time against 2025-04-21's are on the last
// line too. Each upload runs in its own process (so its peak RSS is its own); the sandbox runs
// in this one.
//
// Options: --rows N (default 10000), --files N (1000), --rate N (200), --latency MS (20),
// --concurrency N (32), --max-rps N (client-side pacing; default none).
import { numFlag } from './args.mjs';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, '..', 'dist');


const CONFIG = {
  type: 'EXTRACT',
  schema: {
    type: 'object',
    properties: {
      invoice_number: { type: ['string', 'null'] },
      invoice_date: { type: ['string', 'null'], format: 'date' },
      total: {
        type: 'object',
        'extend:type': 'currency',
        properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } },
      },
    },
  },
};

// ---------------------------------------------------------------------------------------------
// Worker: one upload in its own process; prints a JSON line with its numbers.
if (process.argv[2] === '--worker') {
  const { uploadDataset } = await import(path.join(dist, 'dataset/index.js'));
  const { createClient } = await import(path.join(dist, 'api/index.js'));
  const env = JSON.parse(process.env.BENCH_WORKER);
  let heapPeak = 0;
  const sample = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 50);
  const r = await uploadDataset({
    csv: env.csv,
    evaluationSetId: env.set,
    config: { config: CONFIG, type: 'EXTRACT', origin: 'bench' },
    connect: (fetch) => createClient({ baseUrl: env.url, token: env.token, apiVersion: env.apiVersion, fetch }),
    concurrency: env.concurrency,
    maxRps: env.maxRps || undefined,
    journal: env.journal,
  });
  clearInterval(sample);
  heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  process.stdout.write(JSON.stringify({
    status: r.status,
    tally: r.tally,
    timings: r.timings,
    failures: r.failures.length,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
    heapPeakMB: heapPeak / 1024 / 1024,
  }) + '\n');
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
const ROWS = numFlag('rows', 10_000);
const FILES = numFlag('files', 1000);
const RATE = numFlag('rate', 200);
const LATENCY = numFlag('latency', 20);
const CONCURRENCY = numFlag('concurrency', 32);
const MAX_RPS = numFlag('max-rps', 0);

const { startSandbox } = await import(path.join(dist, 'sandbox/index.js'));
const { createClient } = await import(path.join(dist, 'api/index.js'));

const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-bench-upload-'));
mkdirSync(path.join(dir, 'files'));
for (let f = 0; f < FILES; f++) {
  writeFileSync(path.join(dir, 'files', `doc-${f}.txt`), `INVOICE B-${f}\nIssued 2024-05-01\nTotal due: EUR ${(f * 1.5 + 10).toFixed(2)}\n`);
}
function writeCsv(rows) {
  const file = path.join(dir, `data-${rows}.csv`);
  const lines = ['file,invoice_number,invoice_date,total'];
  for (let i = 0; i < rows; i++) lines.push(`files/doc-${i % FILES}.txt,B-${i},${i % 2 ? '2024-05-01' : '1 May 2024'},"€${(i % 997) + 1},50"`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

// The sandbox keeps every upload's files, so each size gets a sandbox of its own.
async function runSize(rows, apiVersion = '2025-04-21') {
  const sb = await startSandbox({ port: 0, rateLimit: RATE, latencyMs: LATENCY });
  try {
    const client = createClient({ baseUrl: sb.url, token: sb.token, apiVersion });
    const p = await client.processors.create({ name: 'bench', type: 'EXTRACT', config: CONFIG });
    const set = await client.sets.create({ name: `bench ${rows}`, entityId: p.id });
    const csv = writeCsv(rows);
    const env = { csv, set: set.id, url: sb.url, token: sb.token, apiVersion, concurrency: CONCURRENCY, maxRps: MAX_RPS, journal: path.join(dir, `journal-${rows}-${apiVersion}.ndjson`) };
    const out = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--worker'], { env: { ...process.env, BENCH_WORKER: JSON.stringify(env) }, stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(text.trim().split('\n').pop())) : reject(new Error(`worker exited ${code}`))));
    });
    return out;
  } finally {
    await sb.close();
  }
}

// Requests the service accepted: a 429 is a refusal, not throughput (every 429 of the run is
// subtracted, those before the write phase too, so the figure errs low).
const answered = (r) => r.timings.writeRequests - r.tally.rateLimited;

try {
  const ideal = Math.min(RATE, CONCURRENCY / (LATENCY / 1000));
  const small = await runSize(Math.round(ROWS / 4));
  const big = await runSize(ROWS);
  // The same upload with API 2026-02-09: the set on the extractor, items under /evaluation_sets/{id}/items (100 per call).
  const big26 = await runSize(ROWS, '2026-02-09');
  for (const [n, r, v] of [[Math.round(ROWS / 4), small, ''], [ROWS, big, ''], [ROWS, big26, ' (API 2026-02-09)']]) {
    const t = r.tally;
    const rps = answered(r) / (r.timings.writeMs / 1000);
    console.log(
      `upload ${n} rows${v}: ${r.status}, ${t.created} created, ${t.failed} failed, ${t.filesUploaded} files; ` +
        `validate ${r.timings.validateMs} ms, plan ${r.timings.planMs} ms, write ${r.timings.writeMs} ms: ${r.timings.writeRequests} requests ` +
        `(${rps.toFixed(1)}/s accepted, ${t.rateLimited} more answered 429), ${(t.created / (r.timings.writeMs / 1000)).toFixed(0)} items/s; ` +
        `peak RSS ${r.maxRssMB.toFixed(1)} MB, peak heap ${r.heapPeakMB.toFixed(1)} MB`,
    );
    if (r.status !== 'done' || t.failed > 0 || t.created !== n) throw new Error(`upload of ${n} rows did not create every row exactly once`);
  }
  const ratio = answered(big) / (big.timings.writeMs / 1000) / ideal;
  const ratio26 = answered(big26) / (big26.timings.writeMs / 1000) / ideal;
  console.log(
    `upload: ${ratio.toFixed(2)}x of ideal min(${RATE} req/s, ${CONCURRENCY}/${LATENCY} ms) = ${ideal} req/s (target >= 0.9), ${ratio26.toFixed(2)}x with API 2026-02-09 ` +
      `(write phase ${(big26.timings.writeMs / big.timings.writeMs).toFixed(2)}x of 2025-04-21's); ` +
      `peak RSS ${big.maxRssMB.toFixed(0)} MB at ${ROWS} rows vs ${small.maxRssMB.toFixed(0)} MB at ${Math.round(ROWS / 4)} rows (${(big.maxRssMB / small.maxRssMB).toFixed(2)}x)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

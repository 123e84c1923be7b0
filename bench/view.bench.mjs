// `npm run bench -- view [DOCS]`: `evalkit view` on the report of the seeded EXTRACT export of
// 50,000 documents (bench/extract-export.mjs), whose first document's file is a 20-page PDF
// (bench/make-pdf.mjs) with a citation on page 1. In headless Chromium (/usr/bin/chromium) at the
// deep link of that document: the time until the explorer is interactive and until page 1 is
// drawn (pdf.js, from navigation start); the server's resident memory after start and after the
// document is opened (the export's 50,000 items are then read and kept by id). Floor: the same
// report.html opened from disk, until its explorer is interactive. Best of two each. Last line:
// the first drawn page's time over that floor.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { makeExport } from './extract-export.mjs';
import { makePdf } from './make-pdf.mjs';

const DOCS = Number(process.argv[2] ?? 50_000);
const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  console.log(`view: skipped (${CHROMIUM} is absent)`);
  process.exit(0);
}
const BIN = new URL('../dist/cli/index.js', import.meta.url).pathname;
const { seededRandom } = await import(new URL('../dist/util/random.js', import.meta.url).href);

const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-bench-view-'));
const exp = makeExport(seededRandom, DOCS);
const first = exp.items[0];
first.output = { ...first.output, metadata: { invoice_number: { citations: [{ page: 1, referenceText: 'Page 1', polygon: [{ x: 72, y: 58 }, { x: 130, y: 58 }, { x: 130, y: 74 }, { x: 72, y: 74 }], pageWidth: 595, pageHeight: 842 }] } } };
writeFileSync(path.join(dir, 'export.json'), JSON.stringify(exp));
mkdirSync(path.join(dir, 'files'));
writeFileSync(path.join(dir, 'files', first.fileName), makePdf({ pages: 20, lines: (n) => [`Page ${n}`, ...Array.from({ length: 30 }, (_, i) => `line ${i + 1} of page ${n}: some text to draw`)] }));

const run = (args) =>
  new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    c.stderr.on('data', (b) => (err += b));
    c.on('exit', (code) => (code === 0 || code === 1 ? resolve() : reject(new Error(err))));
  });
let t = performance.now();
await run(['report', '--from', 'export.json', '--out-dir', 'report', '--bootstrap', '0', '-q']);
console.log(`report of ${DOCS} documents written in ${((performance.now() - t) / 1000).toFixed(1)} s`);

const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const server = spawn(process.execPath, [BIN, 'view', 'report', '--files', 'files', '--format', 'json'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
const url = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (b) => {
    out += b;
    try {
      resolve(JSON.parse(out).url);
    } catch {
      // not all of it yet
    }
  });
  server.on('exit', (code) => reject(new Error(`evalkit view exited ${code}`)));
});
const rssStart = rss(server.pid);

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const floors = [];
  const runs = [];
  for (let round = 1; round <= 2; round++) {
    let page = await browser.newPage();
    await page.goto(`file://${path.join(dir, 'report', 'report.html')}#doc=${first.id}`, { waitUntil: 'commit' });
    await page.waitForSelector('body[data-state=ready]', { timeout: 300_000 });
    floors.push(Number(await page.evaluate(() => globalThis.document.body.dataset.readyMs)));
    await page.close();
    page = await browser.newPage();
    await page.goto(`${url}r/0/#doc=${first.id}&field=invoice_number`, { waitUntil: 'commit' });
    await page.waitForSelector('.ev-page[data-page="1"][data-drawn="1"]', { timeout: 300_000 });
    const ready = Number(await page.evaluate(() => globalThis.document.body.dataset.readyMs));
    const drawn = await page.evaluate(() => performance.now());
    const pages = await page.locator('.ev-page[data-page]').count();
    runs.push({ ready, drawn, pages });
    await page.close();
    console.log(`round ${round}: report.html from disk interactive ${floors.at(-1)} ms; evalkit view interactive ${ready} ms, page 1 of ${pages} drawn at ${drawn.toFixed(0)} ms`);
  }
  const rssOpen = rss(server.pid);
  const floor = Math.min(...floors);
  const best = runs.reduce((a, b) => (b.drawn < a.drawn ? b : a));
  console.log(`server memory: ${rssStart.toFixed(0)} MB RSS after start, ${rssOpen.toFixed(0)} MB with the ${DOCS}-document export read; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
  console.log(`view: ${(best.drawn / floor).toFixed(2)}x of the report.html-from-disk floor (first page of a 20-page PDF drawn at ${best.drawn.toFixed(0)} ms, explorer interactive at ${best.ready} ms; server ${rssOpen.toFixed(0)} MB RSS at ${DOCS} documents)`);
} finally {
  await browser.close();
  server.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}

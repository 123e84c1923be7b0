// `evalkit view` as a user runs it: the built CLI serves the demo's reports, headless Chromium opens
// deep links, and every request that is not to 127.0.0.1 is refused and counted (none may be made).
// The document pane draws the page, the selected field's box lies on it where the citation says,
// clicking a box selects its field; CLASSIFY shows the class over page 1, SPLITTER a band per page.
// Bad input (a corrupt, a password-protected and a 2,000-page PDF, citations off the page, `../`
// in a file name, a symlink out of the folder, no file) is said in the pane; nothing outside the
// given folders is served. Screenshots go to test-output/view/ (git-ignored).
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium, launchChromium, type Browser } from '../helpers/browser.js';
import { BIN, ROOT, runCli } from '../helpers/cli.js';
import { readCitation } from '../../src/view/documents.js';

const SHOTS = path.join(ROOT, 'test-output', 'view');

if (!hasChromium) console.warn(`test/e2e/view.test.ts skipped: ${CHROMIUM} is absent`);

interface Served {
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

/** Starts `evalkit view ... --format json` and reads its address from the first line. */
function startView(args: string[], cwd: string): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'view', ...args, '--format', 'json'], { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      try {
        resolve({ url: (JSON.parse(out) as { url: string }).url, child, stderr: () => err });
      } catch {
        // not all of it yet
      }
    });
    child.on('exit', (code) => reject(new Error(`evalkit view exited ${code}: ${err}`)));
  });
}

interface Opened {
  page: Page;
  external: string[];
  errors: string[];
}

type Item = { id: string; fileName: string; fileId: string; output: { metadata?: Record<string, { citations?: Array<{ page: number; polygon: Array<{ x: number; y: number }>; pageWidth: number; pageHeight: number }> }> } };
const itemsOf = (file: string): Item[] => (JSON.parse(readFileSync(file, 'utf8')) as { items: Item[] }).items;

describe.skipIf(!hasChromium)('evalkit view in headless Chromium', () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'evalkit-view-'));
  const demo = path.join(cwd, 'reports', 'demo');
  let browser: Browser;
  let served: Served;
  let bad: Served;
  const badItems = new Map<string, string>();

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const r = await runCli(['demo', '--bootstrap', '200'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    served = await startView(['reports/demo'], cwd);
    bad = await startBad();
    browser = await launchChromium();
  }, 600_000);

  afterAll(async () => {
    served?.child.kill('SIGTERM');
    bad?.child.kill('SIGTERM');
    await browser?.close();
  });

  /**
   * A report whose documents are bad files: the invoice export with its items renamed to them,
   * reported again, served with --files over a folder that holds them.
   */
  async function startBad(): Promise<Served> {
    const { makePdf } = (await import(pathToFileURL(path.join(ROOT, 'bench/make-pdf.mjs')).href)) as { makePdf: (o: { pages: number; encrypted?: boolean; lines?: (n: number) => string[] }) => Buffer };
    const dir = path.join(cwd, 'bad');
    const files = path.join(dir, 'files');
    mkdirSync(files, { recursive: true });
    writeFileSync(path.join(files, 'corrupt.pdf'), '%PDF-1.4\nthis is not a PDF body\n%%EOF\n');
    writeFileSync(path.join(files, 'locked.pdf'), makePdf({ pages: 1, encrypted: true }));
    writeFileSync(path.join(files, 'huge.pdf'), makePdf({ pages: 2000, lines: (n) => [`Page ${n}`, `TOTAL 1${n}.00`] }));
    writeFileSync(path.join(dir, 'secret.txt'), 'outside the files folder\n');
    symlinkSync(path.join(dir, 'secret.txt'), path.join(files, 'link.txt'));
    const exp = JSON.parse(readFileSync(path.join(demo, 'invoice-extract', 'export-draft.json'), 'utf8')) as { items: Array<Item & { pageCount?: number }> };
    const names = ['corrupt.pdf', 'locked.pdf', 'huge.pdf', '../secret.txt', 'link.txt', 'nowhere.pdf'];
    exp.items = exp.items.slice(0, names.length).map((it, k) => {
      badItems.set(names[k], it.id);
      const item = { ...it, fileName: names[k] };
      if (names[k] === 'huge.pdf') {
        const poly = (x: number, y: number) => [{ x, y }, { x: x + 60, y }, { x: x + 60, y: y + 14 }, { x, y: y + 14 }];
        item.output = {
          ...it.output,
          metadata: {
            total: { citations: [{ page: 1500, polygon: poly(72, 88), pageWidth: 595, pageHeight: 842 }] },
            invoice_number: { citations: [{ page: 1, polygon: poly(900, 88), pageWidth: 595, pageHeight: 842 }] },
            invoice_date: { citations: [{ page: 2500, polygon: poly(72, 88), pageWidth: 595, pageHeight: 842 }] },
          },
        };
      }
      return item;
    });
    writeFileSync(path.join(dir, 'run.json'), JSON.stringify(exp));
    const rep = await runCli(['report', '--from', 'run.json', '--out-dir', 'report', '--bootstrap', '0'], { cwd: dir });
    expect(rep.code, rep.stderr).toBeLessThan(2);
    return startView(['report', '--files', 'files'], dir);
  }

  async function open(url: string): Promise<Opened> {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1400, height: 1000 });
    const external: string[] = [];
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.hostname !== '127.0.0.1') {
        external.push(u.href);
        return route.abort();
      }
      return route.continue();
    });
    await page.goto(url);
    await page.waitForSelector('body[data-pane=ready], body[data-pane=missing], body[data-pane=error]', { timeout: 60_000 });
    return { page, external, errors };
  }
  const shot = (o: Opened, name: string) => o.page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  const clean = (o: Opened): void => {
    expect(o.external).toEqual([]);
    expect(o.errors).toEqual([]);
  };
  const idOf = (dataset: string, prefix: string): Item => itemsOf(path.join(demo, dataset, 'export-draft.json')).find((i) => i.fileName.startsWith(prefix)) as Item;

  it('EXTRACT, a PDF at a deep link: the page is drawn, the field\'s box lies on it where its citation says, nothing leaves the machine', async () => {
    const item = idOf('invoice-extract', 'inv-001');
    const o = await open(`${served.url}r/1/#doc=${item.id}&field=invoice_number`);
    const { page } = o;
    await page.waitForSelector('.ev-page[data-page="1"][data-drawn="1"]');
    expect(await page.locator('body').getAttribute('data-pane')).toBe('ready');
    // Drawn: the canvas has dark pixels (the invoice's text).
    const dark = await page.evaluate(`(() => {
      const c = document.querySelector('.ev-page[data-page="1"] canvas');
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < px.length; i += 4) if (px[i + 3] > 0 && px[i] < 128) n++;
      return n;
    })()`);
    expect(dark).toBeGreaterThan(100);
    const box = page.locator('.ev-page[data-page="1"] .ev-box.ev-sel[data-field="invoice_number"][data-side="run"]');
    await expect.poll(() => box.count()).toBe(1);
    const pb = (await page.locator('.ev-page[data-page="1"]').boundingBox())!;
    const bb = (await box.boundingBox())!;
    expect(bb.x).toBeGreaterThanOrEqual(pb.x);
    expect(bb.y).toBeGreaterThanOrEqual(pb.y);
    expect(bb.x + bb.width).toBeLessThanOrEqual(pb.x + pb.width);
    expect(bb.y + bb.height).toBeLessThanOrEqual(pb.y + pb.height);
    // Where the citation says: its left edge at x0 / pageWidth of the page (2px border allowed).
    // Read as the viewer reads it: the demo's export holds the output of the API version in effect (2026-02-09: {page: {number, width, height}}).
    const c = readCitation(item.output.metadata!.invoice_number.citations![0], 'invoice_number', 'run')!;
    expect(c.pageWidth).toBeGreaterThan(0);
    expect(Math.abs(bb.x - pb.x - (c.polygon[0].x / c.pageWidth!) * pb.width)).toBeLessThan(3);
    expect(Math.abs(bb.y - pb.y - (c.polygon[0].y / c.pageHeight!) * pb.height)).toBeLessThan(3);
    expect(await page.locator('.ev-tip').textContent()).toMatch(/expected: INV-001.*predicted: INV-001/);
    await shot(o, 'extract-pdf');
    // Reverse: a click on another box selects its field in the address and the values table.
    await page.locator('.ev-box[data-field="invoice_date"][data-side="run"]').click();
    await expect.poll(() => page.evaluate('location.hash')).toContain('field=invoice_date');
    await expect.poll(() => page.locator('#ek-docbody tr.hl code').first().textContent()).toBe('invoice_date');
    expect(await page.locator('.ev-box.ev-sel[data-field="invoice_date"]').count()).toBeGreaterThan(0);
    // And a row of the table selects its box.
    await page.locator('#ek-docbody tr', { has: page.locator('code', { hasText: /^due_date$/ }) }).click();
    await expect.poll(() => page.locator('.ev-box.ev-sel[data-field="due_date"]').count()).toBeGreaterThan(0);
    // A cell of the line-item table selects its column's field.
    const cell = page.locator('#ek-docbody table.rows td[data-unit]').first();
    const unit = await cell.getAttribute('data-unit');
    expect(unit).toMatch(/^line_items\[\]/);
    await cell.click();
    await expect.poll(() => page.evaluate('decodeURIComponent(location.hash)')).toContain(`field=${unit}`);
    await page.close();
    clean(o);
  }, 120_000);

  it('EXTRACT, a text file: the total boxed on the line that prints it, with expected, predicted and baseline', async () => {
    const item = idOf('invoice-extract', 'inv-003');
    const o = await open(`${served.url}r/1/#doc=${item.id}&field=total`);
    const box = o.page.locator('.ev-page[data-page="1"] .ev-box.ev-sel[data-field="total"][data-side="run"]');
    await expect.poll(() => box.count()).toBe(1);
    expect(await o.page.locator('.ev-page[data-page="1"] pre').textContent()).toContain('TOTAL DUE');
    expect(await o.page.locator('.ev-tip').textContent()).toMatch(/expected: 3600 USD.*predicted:.*baseline:/);
    await shot(o, 'extract-text');
    await o.page.close();
    clean(o);
  }, 60_000);

  it('EXTRACT, inv-005.txt beside the list: unit price and amount (both 249.00) boxed at their own places; the list scrolls sideways to its last column', async () => {
    const item = idOf('invoice-extract', 'inv-005');
    const o = await open(`${served.url}r/1/#doc=${item.id}`);
    const at = async (sel: string): Promise<{ left: number; right: number }> => {
      const b = (await o.page.locator(sel).first().boundingBox())!;
      return { left: b.x, right: b.x + b.width };
    };
    // The baseline (1.0) predicted both right (the draft's unit price is wrong, not printed, no box).
    const base = (field: string): string => `.ev-page[data-page="1"] .ev-box[data-field="${field}"][data-side="baseline"]`;
    await expect.poll(() => o.page.locator(base('line_items[0].unit_price')).count()).toBe(1);
    // "Desk chair, ergonomic | 1 | 249.00 | 249.00": the amount's box right of the unit price's.
    expect((await at(base('line_items[0].amount'))).left).toBeGreaterThan((await at(base('line_items[0].unit_price'))).right);
    // The list beside the pages: its last column (vs baseline) comes into view from the keyboard, the header with it.
    const list = o.page.locator('#ek-list');
    await list.focus();
    for (let k = 0; k < 12; k++) await o.page.keyboard.press('ArrowRight');
    const scrollLeft = (): Promise<number> => list.evaluate((el) => (el as unknown as { scrollLeft: number }).scrollLeft);
    await expect.poll(scrollLeft).toBeGreaterThan(0);
    for (let prev = -1, now = await scrollLeft(); prev !== now; prev = now, now = await scrollLeft()) await o.page.waitForTimeout(200);
    const edge = await list.evaluate((el) => {
      const e = el as unknown as { clientWidth: number; getBoundingClientRect(): { left: number } };
      return e.getBoundingClientRect().left + e.clientWidth;
    });
    const chg = await at('#ek-rows .row .c-chg');
    expect(chg.left).toBeLessThan(edge - 30);
    expect(Math.abs((await at('#ek-listhead .c-chg')).left - chg.left)).toBeLessThan(1);
    await shot(o, 'extract-list-scrolled');
    await o.page.close();
    clean(o);
  }, 60_000);

  it("the baseline's export not found (two files of its name): a warning, and the pane says its citations are not available", async () => {
    // The report folder moved without the baseline's export; a copy of it elsewhere makes two of that name under the working folder.
    const moved = path.join(cwd, 'moved', 'invoice-extract');
    mkdirSync(moved, { recursive: true });
    for (const f of ['report.json', 'report.html', 'documents.jsonl', 'export-draft.json']) copyFileSync(path.join(demo, 'invoice-extract', f), path.join(moved, f));
    mkdirSync(path.join(cwd, 'moved', 'old'));
    copyFileSync(path.join(demo, 'invoice-extract', 'export-1.0.json'), path.join(cwd, 'moved', 'old', 'export-1.0.json'));
    const v = await startView(['moved', '--config-file', 'reports/demo/evalkit.config.json'], cwd);
    try {
      await expect.poll(() => v.stderr()).toContain("moved/invoice-extract: the baseline's export export-1.0.json is not beside report.json");
      // inv-003: the run cites no due_date.
      const item = idOf('invoice-extract', 'inv-003');
      const o = await open(`${v.url}r/0/#doc=${item.id}&field=due_date`);
      const note = o.page.locator('.ev-note', { hasText: 'due_date' });
      await expect.poll(() => note.count()).toBe(1);
      expect(await note.textContent()).toContain("the baseline's citations are not available (its export export-1.0.json was not found");
      expect(await note.textContent()).not.toContain('the value was not found in the document');
      await shot(o, 'baseline-missing');
      await o.page.close();
      clean(o);
    } finally {
      v.child.kill('SIGTERM');
    }
  }, 60_000);

  it('no request of a page it serves gets a 404 (the favicon is answered, 204)', async () => {
    const page = await browser.context.newPage();
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    for (const p of ['', 'r/1/']) {
      await page.goto(`${served.url}${p}`, { waitUntil: 'load' });
      // The browser asks for the favicon after the page has loaded.
      await page.waitForTimeout(500);
    }
    expect(failed).toEqual([]);
    expect((await fetch(`${served.url}favicon.ico`)).status).toBe(204);
    await page.close();
  }, 60_000);

  it('CLASSIFY: the classes over the first page', async () => {
    const item = idOf('document-classify', 'lease');
    const o = await open(`${served.url}r/0/#doc=${item.id}`);
    await o.page.waitForSelector('.ev-page[data-page="1"][data-drawn="1"]');
    const cls = await o.page.locator('.ev-class').textContent();
    expect(cls).toMatch(/expected class: .+predicted class: .+baseline class: /);
    await shot(o, 'classify');
    await o.page.close();
    clean(o);
  }, 60_000);

  it('SPLITTER: a band of splits over every page', async () => {
    const item = idOf('packet-splitter', 'packet-01');
    const o = await open(`${served.url}r/2/#doc=${item.id}`);
    const pages = await o.page.locator('.ev-page[data-page]').count();
    expect(pages).toBe(5);
    expect(await o.page.locator('.ev-band').count()).toBe(pages);
    expect(await o.page.locator('.ev-band[data-band-page="4"]').textContent()).toMatch(/expected: receipt 4–5/);
    await shot(o, 'splitter');
    await o.page.close();
    clean(o);
  }, 60_000);

  it('bad files are said in the pane: corrupt, password-protected, missing, outside the folder', async () => {
    const said = async (name: string): Promise<string> => {
      const o = await open(`${bad.url}r/0/#doc=${badItems.get(name)}`);
      const text = (await o.page.locator('#ev-pane').textContent()) ?? '';
      expect(o.external).toEqual([]);
      await o.page.close();
      return text;
    };
    expect(await said('corrupt.pdf')).toMatch(/corrupt\.pdf cannot be drawn: it is not a readable PDF/);
    expect(await said('locked.pdf')).toMatch(/locked\.pdf cannot be drawn: it is protected by a password/);
    expect(await said('nowhere.pdf')).toMatch(/no file named "nowhere\.pdf"/);
    // `../secret.txt` is looked up by its name alone; the symlink leads out of --files.
    expect(await said('../secret.txt')).toMatch(/no file named "secret\.txt"/);
    expect(await said('link.txt')).toMatch(/lies outside the folders evalkit view serves/);
    const res = await fetch(`${bad.url}r/0/file?id=${badItems.get('link.txt')}`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('outside the files folder');
  }, 120_000);

  it('a 2,000-page PDF opens with every page listed and only those in view drawn; citations off the page are said', async () => {
    const o = await open(`${bad.url}r/0/#doc=${badItems.get('huge.pdf')}&field=total`);
    const { page } = o;
    expect(await page.locator('.ev-page[data-page]').count()).toBe(2000);
    // Selecting total scrolled to page 1500, which is then drawn.
    await page.waitForSelector('.ev-page[data-page="1500"][data-drawn="1"]', { timeout: 30_000 });
    expect(await page.locator('.ev-page[data-drawn="1"]').count()).toBeLessThan(20);
    const notes = (await page.locator('.ev-notes').textContent()) ?? '';
    expect(notes).toMatch(/citation of invoice_number lies outside page 1/);
    expect(notes).toMatch(/citation of invoice_date is on page 2500, but the document has 2000 page\(s\)/);
    await shot(o, 'huge-pdf');
    await page.close();
    clean(o);
  }, 120_000);

  it('report --export-errors --view-url: each wrong value links to its document and field in evalkit view', async () => {
    const viewUrl = `${served.url}r/1/`;
    const r = await runCli(['report', '--from', 'reports/demo/invoice-extract/export-draft.json', '--out-dir', 'errs', '--bootstrap', '0', '--export-errors', 'errs/errors.csv', '--view-url', viewUrl], { cwd });
    expect(r.code, r.stderr).toBeLessThan(2);
    const { parse } = await import('csv-parse/sync');
    const rows = parse(readFileSync(path.join(cwd, 'errs', 'errors.csv'), 'utf8'), { columns: true }) as Array<Record<string, string>>;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.view).toBe(`${viewUrl}#doc=${row.item}&field=${encodeURIComponent(row.field.replace(/\[\+?\d+\]/g, '[]'))}`);
    const row = rows.find((x) => !x.field.includes('['))!;
    const o = await open(row.view);
    await expect.poll(() => o.page.locator('#ek-docbody tr.hl code').first().textContent()).toBe(row.field);
    expect(await o.page.locator('#ek-doctitle').textContent()).toBeTruthy();
    await o.page.close();
    clean(o);
    const bad = await runCli(['report', '--from', 'reports/demo/invoice-extract/export-draft.json', '--out-dir', 'errs2', '--view-url', viewUrl], { cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--view-url sets the links of the errors file');
    const other = await runCli(['report', '--from', 'reports/demo/invoice-extract/export-draft.json', '--out-dir', 'errs3', '--export-errors', 'errs3/e.csv', '--view-url', 'http://localhost:8790/r/0/'], { cwd });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('not the address of a report in evalkit view');
  }, 120_000);

  it('answers only to the Host it printed, GET only, and serves no path from the URL', async () => {
    const u = new URL(served.url);
    const get = (p: string, host = u.host, method = 'GET'): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        import('node:http').then(({ request }) => {
          const req = request({ host: '127.0.0.1', port: u.port, path: p, method, headers: { host } }, (res) => {
            let body = '';
            res.on('data', (b: Buffer) => (body += b.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.on('error', reject);
          req.end();
        }, reject);
      });
    expect((await get('/r/1/', `attacker.example:${u.port}`)).status).toBe(421);
    expect((await get('/r/1/', `localhost:${u.port}`)).status).toBe(421);
    expect((await get('/r/1/')).status).toBe(200);
    expect((await get('/r/1/', u.host, 'POST')).status).toBe(405);
    for (const p of ['/_view/pdfjs/standard_fonts/../../package.json', '/_view/pdfjs/cmaps/..%2f..%2fpackage.json', '/r/1/../../../etc/passwd', '/r/1/file?id=../../etc/passwd']) {
      const r = await get(p);
      expect(r.status, p).toBeGreaterThanOrEqual(400);
      expect(r.body).not.toMatch(/"version"|root:/);
    }
    const page = await get('/r/1/');
    expect(page.body).toContain("script-src 'sha256-");
    expect(page.body).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
  });
});

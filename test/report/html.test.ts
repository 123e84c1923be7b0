// The HTML report (the explorer) in a real browser: Debian's headless Chromium driven by
// playwright-core (no browser download). Skipped only when /usr/bin/chromium is absent (CI installs it).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeReport, loadBaseline, loadExport, MemoryDocuments, renderExplorer, renderHtml } from '../../src/report/index.js';
import { CHROMIUM, hasChromium, launchChromium, openFile, type Browser, type Loaded } from '../helpers/browser.js';
import { FIXTURES, GOLDEN, goldenInputs } from './golden.js';

// The text-align of each cell of a table row, as the page computes it (the test's tsconfig has no DOM types).
type Aligned = { getComputedStyle(el: unknown): { textAlign: string } };
const aligns = (row: { locator(s: string): { evaluateAll<R>(f: (els: unknown[]) => R): Promise<R> } }): Promise<string[]> =>
  row.locator('td').evaluateAll((els) => els.map((el) => (globalThis as unknown as Aligned).getComputedStyle(el).textAlign));

if (!hasChromium) console.warn(`test/report/html.test.ts skipped: ${CHROMIUM} is absent (apt-get install chromium to run it)`);

describe.skipIf(!hasChromium)('HTML report in headless Chromium', () => {
  let dir: string;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-html-'));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a rendered report from a file; every request but the file itself is recorded and refused. */
  async function open(name: string, html: string, hash = ''): Promise<Loaded> {
    const file = path.join(dir, `${name}.html`);
    writeFileSync(file, html);
    const loaded = await openFile(browser.context, file, hash);
    await loaded.page.waitForSelector('body[data-state=ready][data-values=ready]');
    return loaded;
  }

  it('EXTRACT with a baseline: no network, no console errors, F1 bars with whiskers, deltas, every document, escaped values', async () => {
    const input = await goldenInputs(GOLDEN['extract-baseline']);
    const report = input.report;
    const { page, requests, errors } = await open('extract', renderExplorer(input));
    const fields = report.extract?.fields ?? [];

    // F1 per field: one bar per field, a whisker (three lines) per field with an interval.
    const barRows = page.locator('h2:has-text("F1 per field") + table tbody tr');
    expect(await barRows.count()).toBe(fields.length);
    expect(await barRows.locator('svg rect.bar').count()).toBe(fields.filter((f) => f.f1.value !== null).length);
    expect(await barRows.locator('svg line.wh').count()).toBe(3 * fields.filter((f) => f.f1.interval).length);
    const vendor = fields.find((f) => f.path === 'vendor');
    const vendorRow = barRows.filter({ hasText: 'vendor' });
    // The bar is 200 px wide at F1 = 1; the fill and the whisker ends sit at the values.
    expect(Number(await vendorRow.locator('rect.bar').getAttribute('width'))).toBeCloseTo(200 * (vendor?.f1.value ?? 0), 0);
    const ends = await vendorRow.locator('line.wh').first().evaluate((l) => [Number(l.getAttribute('x1')), Number(l.getAttribute('x2'))]);
    expect(ends[0]).toBeCloseTo(200 * (vendor?.f1.interval?.lower ?? 0), 0);
    expect(ends[1]).toBeCloseTo(200 * (vendor?.f1.interval?.upper ?? 0), 0);

    // Baseline deltas: one row per compared metric, each with a delta bar.
    const deltaRows = page.locator('h2:has-text("Baseline") ~ table').first().locator('tbody tr');
    expect(await deltaRows.count()).toBe(report.baseline?.rows.length);
    expect(await deltaRows.locator('svg line.axis').count()).toBe(report.baseline?.rows.length);
    expect(await page.locator('text=Unpaired in the baseline').count()).toBeGreaterThan(0);
    expect(await page.locator('text=5 paired of 6 current, 6 baseline').count()).toBe(1);

    // Outcome heatmap for EXTRACT fields.
    expect(await page.locator('table.heat tbody tr').count()).toBe(fields.length);
    // Row labels (the field) left-aligned, the counts centred in their columns.
    expect(await aligns(page.locator('table.heat tbody tr').first())).toEqual(['left', 'center', 'center', 'center', 'center', 'center']);

    // Documents: every one listed; filtered to the FA of `notes`, inv_003 opens side by side.
    await page.click('#ek-tab-documents');
    expect(await page.locator('#ek-count').textContent()).toBe(`${report.summary.documents} of ${report.summary.documents} documents`);
    await page.selectOption('#ek-f-field', 'notes');
    await page.selectOption('#ek-f-outcome', 'FA');
    expect(await page.locator('#ek-rows .row').count()).toBe(1);
    await page.click('#ek-rows .row');
    expect(page.url()).toContain('doc=inv_003');
    const notesRow = page.locator('#ek-docbody table.diff tbody tr').filter({ hasText: 'notes' });
    expect(await notesRow.getAttribute('class')).toContain('hl');
    const cells = await notesRow.locator('td').allTextContents();
    // field, expected, predicted, baseline, outcome, confidence: the <script> value is shown as text.
    // The baseline (an export) predicted the same value.
    expect(cells.slice(0, 5)).toEqual(['notes', '(empty)', '<script>window.__pwned = 1</script>', '<script>window.__pwned = 1</script>', 'FA']);
    expect(await page.locator('script').count()).toBe(3);
    expect(await page.locator('script:not([type])').count()).toBe(1);
    expect(await page.locator('b', { hasText: 'row' }).count()).toBe(0); // "Extra <b>row</b>" stays text
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();

    // Line items: rows as they were paired, the unpaired predicted row on its own line.
    const lineItems = page.locator('#ek-docbody table.rows');
    expect(await lineItems.count()).toBe(1);

    // Keyboard: Escape closes the document, the list keeps the filter.
    await page.keyboard.press('Escape');
    expect(await page.locator('#ek-doc').isHidden()).toBe(true);
    expect(page.url()).toContain('field=notes');

    // Gates and failed runs are shown.
    expect(await page.locator('h2', { hasText: 'Gates' }).textContent()).toContain('failed');
    expect(await page.locator('h2', { hasText: 'Failed runs (1)' }).count()).toBe(1);
    // The service's short code (failureReason) beside its message.
    const failedTable = page.locator('h2:has-text("Failed runs") ~ table').first();
    expect(await failedTable.locator('thead th').allTextContents()).toEqual(['item', 'file', 'status', 'reason', 'message']);
    expect(await failedTable.locator('tbody tr td').allTextContents()).toEqual(['inv_004', 'inv_004.pdf', 'FAILED', 'TIMEOUT', 'run took longer than 300 s']);

    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('a document open beside a narrow list: the item id collapses into the name\'s title, the other columns scroll into view (←/→), the header with them', async () => {
    const input = await goldenInputs(GOLDEN['extract-baseline']);
    const { page, errors } = await open('extract-narrow', renderExplorer(input));
    await page.setViewportSize({ width: 1000, height: 800 });
    await page.click('#ek-tab-documents');
    await page.locator('#ek-rows .row').first().click();
    const row = page.locator('#ek-rows .row').first();
    expect(await row.locator('.c-id').isHidden()).toBe(true);
    expect(await page.locator('#ek-listhead .c-id').isHidden()).toBe(true);
    expect(await row.locator('.c-name').getAttribute('title')).toContain(`(item ${await row.locator('.c-id').textContent()})`);
    // Too narrow for every column at 1000 px: the list scrolls sideways from the keyboard.
    type Box = { left: number; right: number };
    const box = async (sel: string): Promise<Box> => {
      const b = (await page.locator(sel).first().boundingBox())!;
      return { left: b.x, right: b.x + b.width };
    };
    await page.locator('#ek-list').focus();
    const scrollLeft = (): Promise<number> => page.locator('#ek-list').evaluate((el) => (el as unknown as { scrollLeft: number }).scrollLeft);
    for (let k = 0; k < 10; k++) await page.keyboard.press('ArrowRight');
    await expect.poll(scrollLeft).toBeGreaterThan(0);
    // Settled: a smooth scroll has ended when two readings 200 ms apart agree.
    for (let prev = -1, now = await scrollLeft(); prev !== now; prev = now, now = await scrollLeft()) await page.waitForTimeout(200);
    const list = await page.locator('#ek-list').evaluate((el) => {
      const e = el as unknown as { clientWidth: number; getBoundingClientRect(): Box };
      return { left: e.getBoundingClientRect().left, right: e.getBoundingClientRect().left + e.clientWidth };
    });
    const cols = ['.c-name', '.c-err', '.c-out', '.c-conf', '.c-chg'];
    const last = await box('#ek-rows .row .c-chg');
    // The last column's text (a Range around it) inside the list's box; not the column's box, whose
    // last pixels headless Chromium's overlay scrollbar leaves under the stable gutter.
    const text = await page.locator('#ek-rows .row .c-chg').first().evaluate((el) => {
      type Doc = { createRange(): { selectNodeContents(n: unknown): void; getBoundingClientRect(): Box } };
      const r = (globalThis as unknown as { document: Doc }).document.createRange();
      r.selectNodeContents(el);
      return r.getBoundingClientRect();
    });
    expect(text.right - text.left).toBeGreaterThan(20);
    expect(text.right).toBeLessThanOrEqual(list.right + 1);
    expect(last.left).toBeGreaterThanOrEqual(list.left);
    // The row (its background, the cursor's highlight) reaches the last column, and each header sits above its column.
    expect((await box('#ek-rows .row')).right).toBeGreaterThanOrEqual(last.right);
    for (const c of cols) expect(Math.abs((await box(`#ek-listhead ${c}`)).left - (await box(`#ek-rows .row ${c}`)).left), c).toBeLessThan(1);
    // ↑/↓ still move the cursor (and open the next document).
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('#ek-rows .row.open').getAttribute('data-k')).toBe('1');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('CLASSIFY: the confusion-matrix heatmap shades each cell by its share of the row; a document shows both classes', async () => {
    const input = await goldenInputs(GOLDEN.classify);
    const report = input.report;
    const { page, requests, errors } = await open('classify', renderExplorer(input));
    const m = report.classify?.confusionMatrix ?? {};
    const labels = [...new Set([...Object.keys(m), ...Object.values(m).flatMap((r) => Object.keys(r))])].sort();
    const heat = page.locator('h2:has-text("Confusion matrix") ~ table.heat').first();
    expect(await heat.locator('thead th').allTextContents()).toEqual(['', ...labels]);
    const rows = heat.locator('tbody tr');
    expect(await rows.count()).toBe(Object.keys(m).length);
    // invoice row: 2 of 3 right (green, 2/3 of the strongest shade), 1 of 3 as receipt (red).
    const invoice = rows.filter({ hasText: 'invoice' }).first();
    const cells = invoice.locator('.cell');
    // The row label (the expected class) left-aligned, the counts centred in their columns.
    expect(await aligns(invoice)).toEqual(['left', ...labels.map(() => 'center')]);
    expect(await cells.allTextContents()).toEqual(labels.map((p) => String(m.invoice?.[p] ?? 0)));
    // The callback runs in the page (the test's tsconfig has no DOM types).
    type Styled = { getComputedStyle(el: unknown): { backgroundColor: string } };
    const colour = async (label: string) => cells.nth(labels.indexOf(label)).evaluate((el) => (globalThis as unknown as Styled).getComputedStyle(el).backgroundColor);
    expect(await colour('invoice')).toBe('rgba(34, 139, 34, 0.57)');
    expect(await colour('receipt')).toBe('rgba(200, 40, 40, 0.28)');
    expect(await page.locator('h2', { hasText: 'F1 per class' }).count()).toBe(1);

    // The worst document first (a confident mistake): expected and predicted class, its confidence.
    await page.click('#ek-tab-documents');
    await page.locator('#ek-list').focus();
    await page.keyboard.press('Enter');
    const wrong = input.documents.filter((d) => !d.correct).sort((a, b) => (b.classify?.confidence ?? -1) - (a.classify?.confidence ?? -1))[0];
    const row = await page.locator('#ek-docbody table.diff tbody td').allTextContents();
    expect(row.slice(0, 2)).toEqual([wrong.classify?.expected ?? '(empty)', wrong.classify?.predicted ?? '(empty)']);
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('CLASSIFY of many classes: the most frequent confusions instead of a matrix too large to draw', async () => {
    const input = await goldenInputs(GOLDEN.classify);
    // 70 classes: each right 10 times, class i taken for class i+1 i % 4 times (52 such pairs), class 69 for class 0 5 times.
    const m: Record<string, Record<string, number>> = {};
    const name = (i: number): string => `c${String(i).padStart(2, '0')}`;
    for (let i = 0; i < 70; i++) {
      m[name(i)] = { [name(i)]: 10 };
      if (i % 4) m[name(i)][name((i + 1) % 70)] = i % 4;
    }
    m[name(69)][name(0)] = 5;
    const report = { ...input.report, classify: { ...input.report.classify!, confusionMatrix: m } };
    const { page, errors } = await open('classify-many', renderExplorer({ ...input, report }));
    const section = page.locator('h2:has-text("Confusion matrix") + p');
    expect(await section.textContent()).toBe('The confusion matrix has 70 labels, too many to draw (report.json holds it whole): the 50 of 52 most frequent confusions, by number of documents.');
    const rows = page.locator('h2:has-text("Confusion matrix") ~ table.heat').first().locator('tbody tr');
    expect(await rows.count()).toBe(50);
    // Most documents first (c69 -> c00: 5 of 15; then the 3s in class order), each with its share of the expected class.
    expect(await rows.nth(0).locator('td').allTextContents()).toEqual(['c69', 'c00', '5', '0.333 of 15']);
    expect(await rows.nth(1).locator('td').allTextContents()).toEqual(['c03', 'c04', '3', '0.231 of 13']);
    // Both labels of a pair left-aligned.
    expect((await aligns(rows.nth(0))).slice(0, 3)).toEqual(['left', 'left', 'center']);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('SPLITTER: a deep link opens a document with its splits on a page ruler', async () => {
    const input = await goldenInputs(GOLDEN.splitter);
    const doc = input.documents.find((d) => d.errors > 0) ?? input.documents[0];
    const { page, requests, errors } = await open('splitter', renderExplorer(input), `#doc=${doc.id}`);
    expect(await page.locator('#ek-doctitle').textContent()).toBe(doc.fileName ?? doc.fileId);
    const s = doc.splitter;
    expect(await page.locator('#ek-docbody .ruler .seg').count()).toBe((s?.expected ?? 0) + (s?.predicted ?? 0));
    expect(await page.locator('#ek-docbody .ruler .seg.o-TP').count()).toBe(2 * (s?.correct ?? 0));
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('keys: j moves the cursor and Enter opens its document without the list focused', async () => {
    const input = await goldenInputs(GOLDEN['extract-baseline']);
    const { page, errors } = await open('keys', renderExplorer(input), '#view=documents');
    expect(await page.locator('#ek-doc').isHidden()).toBe(true);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    const second = await page.locator('#ek-rows .row.cur').getAttribute('data-k');
    expect(second).toBe('1');
    await page.keyboard.press('Enter');
    expect(await page.locator('#ek-doc').isVisible()).toBe(true);
    const id = new URL(page.url()).hash;
    expect(await page.locator('#ek-rows .row.open').getAttribute('data-k')).toBe('1');
    expect(id).toBeTruthy();
    // Typing in the search box: Enter is the box's.
    await page.keyboard.press('Escape');
    await page.focus('#ek-f-q');
    await page.keyboard.press('Enter');
    expect(await page.locator('#ek-doc').isHidden()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('a 200-character field name: the numbers beside it stay in view at 1400 px (the name breaks)', async () => {
    const long = `vendor_${'x'.repeat(193)}`;
    for (const f of ['extract-export.json', 'extract-baseline.json']) writeFileSync(path.join(dir, f), readFileSync(path.join(FIXTURES, f), 'utf8').replaceAll('"vendor"', JSON.stringify(long)));
    const exp = await loadExport(path.join(dir, 'extract-export.json'));
    const baseline = await loadBaseline(path.join(dir, 'extract-baseline.json'));
    const sink = new MemoryDocuments();
    const report = computeReport(exp, { bootstrap: 50, seed: 1, sourceFile: 'extract-export.json', baseline }, sink);
    const { page, errors } = await open('long-field', renderExplorer({ report, export: exp, baseline, documents: sink.records() }));
    await page.setViewportSize({ width: 1400, height: 900 });
    /** The right edge of the cell after the field's name, in each visible row that names the field. */
    const rightEdges = (): Promise<number[]> =>
      page.evaluate(`[...document.querySelectorAll('tr')].filter((tr) => tr.cells[0]?.textContent.includes(${JSON.stringify(long)}) && tr.offsetParent).map((tr) => tr.cells[1].getBoundingClientRect().right)`);
    const overview = await rightEdges();
    expect(overview.length).toBeGreaterThanOrEqual(3); // baseline deltas, F1 per field, outcomes per field
    for (const r of overview) expect(r).toBeLessThanOrEqual(1400);
    await page.click('#ek-tab-fields');
    const fields = await rightEdges();
    expect(fields.length).toBe(1);
    expect(fields[0]).toBeLessThanOrEqual(1400);
    await page.click('#ek-tab-documents');
    expect((await page.locator('#ek-f-field').boundingBox())!.width).toBeLessThan(700);
    await page.click('#ek-rows .row >> text=inv_003');
    const pane = await rightEdges();
    expect(pane.length).toBe(1);
    expect(pane[0]).toBeLessThanOrEqual(1400);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('bidi controls and invisible format characters in values, field names and file names are shown escaped, never raw', async () => {
    const spoof = 'مرحبا \u202egnp.exe';
    const swap = (text: string): string => text.replaceAll('"Acme GmbH"', JSON.stringify(spoof)).replaceAll('"tags"', JSON.stringify('tags\u200f\u2066')).replaceAll('"inv_003.pdf"', JSON.stringify('inv_\u202efdp.003'));
    for (const f of ['extract-export.json', 'extract-baseline.json']) writeFileSync(path.join(dir, f), swap(readFileSync(path.join(FIXTURES, f), 'utf8')));
    const exp = await loadExport(path.join(dir, 'extract-export.json'));
    const baseline = await loadBaseline(path.join(dir, 'extract-baseline.json'));
    const sink = new MemoryDocuments();
    const report = computeReport(exp, { bootstrap: 50, seed: 1, sourceFile: 'extract-export.json', baseline }, sink);
    const { page, errors } = await open('bidi', renderExplorer({ report, export: exp, baseline, documents: sink.records() }));
    const RAW = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
    const text = (): Promise<string> => page.evaluate('document.body.innerText');
    // Overview (static HTML): the field name.
    expect(await text()).toContain('tags\\u200f\\u2066');
    expect(await text()).not.toMatch(RAW);
    await page.click('#ek-tab-fields');
    expect(await text()).toContain('tags\\u200f\\u2066');
    expect(await text()).not.toMatch(RAW);
    await page.click('#ek-tab-documents');
    expect(await text()).toContain('inv_\\u202efdp.003');
    await page.click('#ek-rows .row >> text=inv_001');
    expect(await text()).toContain('مرحبا \\u202egnp.exe');
    expect(await text()).not.toMatch(RAW);
    expect(await page.evaluate('[...document.querySelectorAll("[title]")].map((e) => e.title).join(" ")')).not.toMatch(RAW);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("the baseline column: 'not in the baseline' for a field a paired document's baseline lacks, 'not paired' for an unpaired document", async () => {
    const input = await goldenInputs(GOLDEN['extract-baseline']);
    const baselineCell = (page: Loaded['page'], field: string) => page.locator('#ek-docbody table.diff tbody tr', { has: page.locator('code', { hasText: new RegExp(`^${field}$`) }) }).locator('td').nth(3);
    const paired = await open('paired', renderExplorer(input), '#doc=inv_001');
    expect(await paired.page.locator('#ek-docbody .facts').textContent()).toContain('against the baseline: fixed');
    expect(await baselineCell(paired.page, 'notes').textContent()).toBe('not in the baseline');
    await paired.page.close();
    const unpaired = await open('unpaired', renderExplorer(input), '#doc=inv_006');
    expect(await unpaired.page.locator('#ek-docbody .facts').textContent()).toContain('against the baseline: unpaired');
    expect(await baselineCell(unpaired.page, 'notes').textContent()).toBe('not paired');
    expect(paired.errors.concat(unpaired.errors)).toEqual([]);
    await unpaired.page.close();
  }, 60_000);

  it('a report alone (no export): documents list their outcomes, and say where the values are', async () => {
    const { report, documents } = await goldenInputs(GOLDEN.extract);
    const { page, requests, errors } = await open('alone', renderHtml(report, documents), '#doc=inv_003&field=notes');
    expect(await page.locator('#ek-docbody .note').first().textContent()).toContain('Values are not in this report');
    expect(await page.locator('#ek-docbody tr', { hasText: 'notes' }).locator('td').nth(1).textContent()).toBe('FA');
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});

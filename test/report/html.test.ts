// The HTML report in a real browser: Debian's headless Chromium driven by playwright-core (no
// browser download). Skipped only when /usr/bin/chromium is absent (CI installs it).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/index.js';
import { CHROMIUM, hasChromium, launchChromium, openFile, type Browser, type Loaded } from '../helpers/browser.js';
import { GOLDEN, goldenReport } from './golden.js';

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
  async function open(name: string, html: string): Promise<Loaded> {
    const file = path.join(dir, `${name}.html`);
    writeFileSync(file, html);
    return openFile(browser.context, file);
  }

  it('EXTRACT with a baseline: no network, no console errors, F1 bars with whiskers, deltas, worst documents, escaped values', async () => {
    const report = await goldenReport(GOLDEN['extract-baseline']);
    const { page, requests, errors } = await open('extract', renderHtml(report));
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

    // Worst documents: expected vs predicted side by side; the <script> value is shown as text.
    const worst = page.locator('h2:has-text("Worst documents") ~ details');
    expect(await worst.count()).toBe(report.worstDocuments.length);
    const inv3 = worst.filter({ hasText: 'inv_003' });
    await inv3.locator('summary').click();
    const notesRow = inv3.locator('table.diff tbody tr').filter({ hasText: 'notes' });
    expect(await notesRow.locator('td').nth(1).textContent()).toBe('FA');
    expect(await notesRow.locator('td').nth(2).textContent()).toBe('(empty)');
    expect(await notesRow.locator('td').nth(3).textContent()).toBe('"<script>window.__pwned = 1</script>"');
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.locator('b', { hasText: 'row' }).count()).toBe(0); // "Extra <b>row</b>" stays text
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();

    // Gates and failed runs are shown.
    expect(await page.locator('h2', { hasText: 'Gates' }).textContent()).toContain('failed');
    expect(await page.locator('h2', { hasText: 'Failed runs (1)' }).count()).toBe(1);

    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('CLASSIFY: the confusion-matrix heatmap shades each cell by its share of the row', async () => {
    const report = await goldenReport(GOLDEN.classify);
    const { page, requests, errors } = await open('classify', renderHtml(report));
    const m = report.classify?.confusionMatrix ?? {};
    const labels = [...new Set([...Object.keys(m), ...Object.values(m).flatMap((r) => Object.keys(r))])].sort();
    const heat = page.locator('h2:has-text("Confusion matrix") ~ table.heat').first();
    expect(await heat.locator('thead th').allTextContents()).toEqual(['', ...labels]);
    const rows = heat.locator('tbody tr');
    expect(await rows.count()).toBe(Object.keys(m).length);
    // invoice row: 2 of 3 right (green, 2/3 of the strongest shade), 1 of 3 as receipt (red).
    const invoice = rows.filter({ hasText: 'invoice' }).first();
    const cells = invoice.locator('.cell');
    expect(await cells.allTextContents()).toEqual(labels.map((p) => String(m.invoice?.[p] ?? 0)));
    // The callback runs in the page (the test's tsconfig has no DOM types).
    type Styled = { getComputedStyle(el: unknown): { backgroundColor: string } };
    const colour = async (label: string) => cells.nth(labels.indexOf(label)).evaluate((el) => (globalThis as unknown as Styled).getComputedStyle(el).backgroundColor);
    expect(await colour('invoice')).toBe('rgba(34, 139, 34, 0.57)');
    expect(await colour('receipt')).toBe('rgba(200, 40, 40, 0.28)');
    expect(await page.locator('h2', { hasText: 'F1 per class' }).count()).toBe(1);
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});

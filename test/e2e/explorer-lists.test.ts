// The explorer's two lists as a user reads them (headless Chromium): file names as the user named
// them (not the content tag `dataset upload` adds, `.ek<24 hex>`), column headers above the
// document list, and the fields table worst first. Saves screenshots into test-output/explorer/.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadName } from '../../src/dataset/files.js';
import { computeReport, MemoryDocuments, renderExplorer } from '../../src/report/index.js';
import { CHROMIUM, hasChromium, launchChromium, openFile, type Browser } from '../helpers/browser.js';
import { ROOT } from '../helpers/cli.js';
import { extractExport } from '../metrics/helpers.js';

const SHOTS = path.join(ROOT, 'test-output', 'explorer');
if (!hasChromium) console.warn(`test/e2e/explorer-lists.test.ts skipped: ${CHROMIUM} is absent`);

describe.skipIf(!hasChromium)('the explorer lists', () => {
  let browser: Browser;
  let file: string;
  const names = ['acme invoice.pdf', 'globex-2025-03.pdf', 'initech.png', 'umbrella.pdf'];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // amount is wrong on 3 of 4, vendor on 1, number never: worst first is amount, vendor, number.
    const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { number: { type: 'string' }, vendor: { type: 'string' }, amount: { type: 'number' } } } };
    const exp = extractExport(cfg, [
      { e: { number: '1', vendor: 'Acme', amount: 10 }, p: { number: '1', vendor: 'Acme', amount: 11 } },
      { e: { number: '2', vendor: 'Globex', amount: 20 }, p: { number: '2', vendor: 'Globex', amount: 21 } },
      { e: { number: '3', vendor: 'Initech', amount: 30 }, p: { number: '3', vendor: 'Initch', amount: 30 } },
      { e: { number: '4', vendor: 'Umbrella', amount: 40 }, p: { number: '4', vendor: 'Umbrella', amount: 41 } },
    ]);
    exp.items.forEach((item, i) => (item.fileName = uploadName(names[i], `${'0123456789abcdef'.repeat(4)}`.replace(/^./, String(i)))));
    expect(exp.items[0].fileName).toMatch(/^acme invoice\.ek[0-9a-f]{24}\.pdf$/);
    const sink = new MemoryDocuments();
    const report = computeReport(exp, { bootstrap: 0, sourceFile: 'run.json' }, sink);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-explorer-lists-'));
    file = path.join(dir, 'report.html');
    writeFileSync(file, renderExplorer({ report, documents: sink.records(), export: exp }));
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it("documents: the user's file names under column headers; fields: worst F1 first", async () => {
    const l = await openFile(browser.context, file, '#view=documents');
    const { page } = l;
    await page.waitForSelector('body[data-state=ready]', { timeout: 60_000 });
    await page.waitForSelector('#ek-rows .row');
    expect(await page.locator('#ek-listhead span').allTextContents()).toEqual(['file', 'item id', 'wrong', 'outcomes', 'conf.']);
    const shown = await page.locator('#ek-rows .row .c-name').allTextContents();
    expect([...shown].sort()).toEqual([...names].sort());
    // The headers sit over their columns.
    const head = await page.locator('#ek-listhead .c-id').boundingBox();
    const cell = await page.locator('#ek-rows .row .c-id').first().boundingBox();
    expect(Math.abs(head!.x - cell!.x)).toBeLessThan(2);
    await page.locator('#ek-list').focus();
    await page.keyboard.press('Enter');
    expect(await page.locator('#ek-doctitle').textContent()).not.toMatch(/\.ek[0-9a-f]{24}/);
    await page.screenshot({ path: path.join(SHOTS, 'lists-documents.png') });

    await page.click('#ek-tab-fields');
    expect(await page.locator('#ek-fbody tr td:first-child').allTextContents()).toEqual(['amount', 'vendor', 'number']);
    expect(await page.locator('#ek-fhead th.asc').textContent()).toMatch(/^F1/);
    await page.screenshot({ path: path.join(SHOTS, 'lists-fields.png') });
    await page.close();
    expect(l.requests).toEqual([]);
    expect(l.errors).toEqual([]);
  }, 120_000);
});

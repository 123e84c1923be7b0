// The explorer (report.html) as a user opens it: the demo's three reports and a generated report of
// 50,000 documents in headless Chromium. Filters, opens a document, follows a deep link, and saves
// screenshots (light, dark, phone width) into test-output/explorer/ (git-ignored). Any console
// error or network request fails the test.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvaluationExport } from '../../src/metrics/generated/export.js';
import { computeReport, MemoryDocuments, renderExplorer } from '../../src/report/index.js';
import { seededRandom } from '../../src/util/random.js';
import { CHROMIUM, hasChromium, launchChromium, openFile, type Browser, type Loaded } from '../helpers/browser.js';
import { ROOT, runCli } from '../helpers/cli.js';

const SHOTS = path.join(ROOT, 'test-output', 'explorer');
const DATASETS = ['document-classify', 'invoice-extract', 'packet-splitter'];

if (!hasChromium) console.warn(`test/e2e/explorer.test.ts skipped: ${CHROMIUM} is absent`);

describe.skipIf(!hasChromium)('the explorer in headless Chromium', () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'evalkit-explorer-'));
  let browser: Browser;
  let big: string;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const demo = await runCli(['demo', '--bootstrap', '200'], { cwd });
    expect(demo.code, demo.stderr).toBe(0);
    const { makeExport } = (await import(pathToFileURL(path.join(ROOT, 'bench/extract-export.mjs')).href)) as { makeExport: (r: typeof seededRandom, docs: number) => EvaluationExport };
    const exp = makeExport(seededRandom, 50_000);
    const sink = new MemoryDocuments();
    const report = computeReport(exp, { bootstrap: 0, sourceFile: 'bench.json' }, sink);
    big = path.join(cwd, 'big.html');
    writeFileSync(big, renderExplorer({ report, documents: sink.records(), export: exp }));
    browser = await launchChromium();
  }, 900_000);

  afterAll(async () => {
    await browser?.close();
  });

  async function open(file: string, hash = '', look: { dark?: boolean; phone?: boolean } = {}): Promise<Loaded> {
    const loaded = await openFile(browser.context, file, hash);
    if (look.dark) await loaded.page.emulateMedia({ colorScheme: 'dark' });
    if (look.phone) await loaded.page.setViewportSize({ width: 390, height: 844 });
    await loaded.page.waitForSelector('body[data-state=ready][data-values=ready]', { timeout: 120_000 });
    return loaded;
  }
  const shot = (l: Loaded, name: string) => l.page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  const clean = (l: Loaded): void => {
    expect(l.requests).toEqual([]);
    expect(l.errors).toEqual([]);
  };

  it.each(DATASETS)('%s: overview, the wrong documents, one opened, a deep link, dark and phone width', async (name) => {
    const file = path.join(cwd, 'reports', 'demo', name, 'report.html');
    const l = await open(file);
    const { page } = l;
    await shot(l, `${name}-overview`);
    await page.click('#ek-tab-fields');
    expect(await page.locator('#ek-fbody tr').count()).toBeGreaterThan(0);
    await shot(l, `${name}-fields`);
    await page.click('#ek-tab-documents');
    await page.selectOption('#ek-f-outcome', 'wrong');
    const count = (await page.locator('#ek-count').textContent()) ?? '';
    const [shown, all] = count.match(/[\d,]+/g)!.map((x) => Number(x.replace(/,/g, '')));
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(all);
    await page.locator('#ek-list').focus();
    await page.keyboard.press('Enter');
    const title = await page.locator('#ek-doctitle').textContent();
    expect(title).toBeTruthy();
    await shot(l, `${name}-document`);
    // The baseline (the 1.0 export) is beside this run in every demo report.
    expect(await page.locator('#ek-docbody').textContent()).toMatch(/baseline/i);
    const link = await page.locator('#ek-docbody a', { hasText: 'link to this document' }).getAttribute('href');
    await page.close();
    clean(l);

    for (const look of [{ dark: true }, { phone: true }, { dark: true, phone: true }]) {
      const d = await open(file, link ?? '', look);
      expect(await d.page.locator('#ek-doctitle').textContent()).toBe(title);
      expect(await d.page.locator('#ek-doc').isVisible()).toBe(true);
      await shot(d, `${name}-document-${look.dark ? 'dark' : 'light'}${look.phone ? '-phone' : ''}`);
      await d.page.close();
      clean(d);
    }
  }, 180_000);

  it('each document\'s badges count its wrong outcomes (two splits of one type are two), and a field\'s right and wrong documents add up to all', async () => {
    const split = await open(path.join(cwd, 'reports', 'demo', 'packet-splitter', 'report.html'), '#view=documents');
    // Every row shown: the counts of its FA/FN/FD badges sum to its wrong outcomes.
    const rows = await split.page.locator('#ek-rows .row').evaluateAll((els) =>
      els.map((r) => ({ wrong: r.querySelector('.c-err')?.textContent ?? '', badges: [...r.querySelectorAll('.c-out .b')].map((b) => b.textContent ?? '') })),
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      if (r.wrong === 'failed') continue;
      const sum = r.badges.filter((b) => /^F[AND] \d+$/.test(b)).reduce((n, b) => n + Number(b.split(' ')[1]), 0);
      expect(sum, JSON.stringify(r)).toBe(Number(r.wrong));
    }
    await split.page.close();
    clean(split);

    const inv = await open(path.join(cwd, 'reports', 'demo', 'invoice-extract', 'report.html'), '#view=documents');
    const count = async (): Promise<number> => Number(((await inv.page.locator('#ek-count').textContent()) ?? '').split(' ')[0]);
    const all = await count();
    await inv.page.selectOption('#ek-f-field', 'due_date');
    expect(await count()).toBe(all);
    await inv.page.selectOption('#ek-f-outcome', 'right');
    const right = await count();
    await inv.page.selectOption('#ek-f-outcome', 'wrong');
    expect(right + (await count())).toBe(all);
    await inv.page.close();
    clean(inv);
  }, 120_000);

  it('50,000 documents: every one listed, a field filter, a document with its line items, a deep link', async () => {
    const l = await open(big, '#view=documents');
    const { page } = l;
    expect(await page.locator('#ek-count').textContent()).toBe('50,000 of 50,000 documents');
    // Only the rows in view are in the page.
    expect(await page.locator('#ek-rows .row').count()).toBeLessThan(100);
    await page.selectOption('#ek-f-field', 'line_items[].amount');
    await page.selectOption('#ek-f-outcome', 'FD');
    const n = Number(((await page.locator('#ek-count').textContent()) ?? '').split(' ')[0].replace(/,/g, ''));
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(50_000);
    await page.locator('#ek-list').focus();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    expect(await page.locator('#ek-docbody table.rows').count()).toBe(1);
    expect(await page.locator('#ek-docbody table.rows td.hl.o-FD').count()).toBeGreaterThan(0);
    await shot(l, 'big-document');
    await page.close();
    clean(l);

    const d = await open(big, '#doc=evi_012345&field=text_3');
    expect(await d.page.locator('#ek-doctitle').textContent()).toBe('doc-12345.pdf');
    expect(await d.page.locator('#ek-docbody tr.hl code').textContent()).toBe('text_3');
    await shot(d, 'big-deep-link');
    await d.page.close();
    clean(d);
  }, 300_000);
});

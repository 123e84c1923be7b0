// Debian's headless Chromium driven by playwright-core (never a downloaded browser), for tests
// that open rendered HTML. Tests skip only when /usr/bin/chromium is absent; .ci/run installs it.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A fresh profile; flags that keep Chromium off the (closed) network. */
export async function launchChromium(): Promise<Browser> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-chromium-'));
  const context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Loaded {
  page: Page;
  /** Every request but the file itself (each refused). */
  requests: string[];
  /** Console errors and uncaught page errors. */
  errors: string[];
}

/** Opens a local HTML file; any other request is recorded and refused. */
export async function openFile(context: BrowserContext, file: string, hash = ''): Promise<Loaded> {
  const url = pathToFileURL(file).href;
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
  await page.goto(url + hash, { waitUntil: 'load' });
  return { page, requests, errors };
}

// `evalkit view --remote-files` and `--history DIR` as a user runs them: the built CLI against the
// real sandbox (behind a counting proxy on 127.0.0.1). A document whose file is on no disk is drawn
// from the service's copy, downloaded once, through the presigned URL; the token is never printed
// nor sent to the page; a file the service does not have is said in the pane. `--history` serves
// the report history's charts at /history, linked from the index.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { hasChromium, launchChromium } from '../helpers/browser.js';
import { BIN, ROOT, runCli } from '../helpers/cli.js';
import { lossyProxy, type LossyProxy } from '../helpers/lossy-proxy.js';
import { makeTiff } from '../helpers/tiff.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';

interface Served {
  url: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
}

function startView(args: string[], cwd: string, env: Record<string, string | undefined>): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'view', ...args, '--format', 'json'], { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      try {
        resolve({ url: (JSON.parse(out) as { url: string }).url, child, stdout: () => out, stderr: () => err });
      } catch {
        // not all of it yet
      }
    });
    child.on('exit', (code) => reject(new Error(`evalkit view exited ${code}: ${err}`)));
  });
}

/** The environment without the service: a test must not pick up the caller's. */
const NO_SERVICE = { EVALKIT_BASE_URL: undefined, EVALKIT_API_TOKEN: undefined };

type Item = { id: string; fileId: string; fileName: string; output: Record<string, unknown> };

describe('evalkit view --remote-files and --history (built CLI, real sandbox)', () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'evalkit-view-remote-'));
  const work = path.join(cwd, 'work');
  let t: TestSandbox;
  let proxy: LossyProxy;
  let served: Served;
  const ids = { pdf: '', text: '', gone: '', tiff: '', broken: '' };
  const pdfBytes = readFileSync(path.join(ROOT, 'datasets', 'invoice-extract', 'files', 'inv-001.pdf'));

  beforeAll(async () => {
    t = await start();
    proxy = await lossyProxy(t.url, () => false);
    const client = createClient({ baseUrl: t.url, token: t.token });
    const pdf = await client.files.upload({ name: 'inv-001.pdf', data: new Uint8Array(pdfBytes) });
    const text = await client.files.upload({ name: 'inv-003.txt', data: readFileSync(path.join(ROOT, 'datasets', 'invoice-extract', 'files', 'inv-003.txt')) });
    const r = await runCli(['demo', '--bootstrap', '0'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    // The demo's invoices, named so that no folder holds them and pointing at the sandbox's files;
    // the report folder lies outside the demo's config, so only the service has them.
    const exp = JSON.parse(readFileSync(path.join(cwd, 'reports', 'demo', 'invoice-extract', 'export-draft.json'), 'utf8')) as { items: Item[] };
    const [a, b, c, d, e] = exp.items;
    // And two TIFF scans on disk (--files): one of two pages whose second holds the cited value, one broken.
    const poly = [{ x: 60, y: 100 }, { x: 240, y: 100 }, { x: 240, y: 140 }, { x: 60, y: 140 }];
    exp.items = [
      { ...a, fileId: pdf.id, fileName: 'remote-inv-001.pdf' },
      { ...c, fileId: text.id, fileName: 'remote-inv-003.txt' },
      { ...b, fileId: 'file_notOnTheService0000', fileName: 'remote-gone.pdf' },
      { ...d, fileName: 'scan.tif', output: { ...d.output, metadata: { invoice_number: { citations: [{ page: 2, polygon: poly, pageWidth: 300, pageHeight: 400 }] } } } },
      { ...e, fileName: 'broken.tiff' },
    ];
    [ids.pdf, ids.text, ids.gone, ids.tiff, ids.broken] = exp.items.map((i) => i.id);
    mkdirSync(path.join(work, 'files'), { recursive: true });
    writeFileSync(path.join(work, 'files', 'scan.tif'), makeTiff([{ width: 300, height: 400, black: [0, 0, 0, 0] }, { width: 300, height: 400, black: [60, 100, 240, 140] }]));
    writeFileSync(path.join(work, 'files', 'broken.tiff'), 'II*\0 this is not the rest of a TIFF file');
    writeFileSync(path.join(work, 'run.json'), JSON.stringify(exp));
    for (let k = 0; k < 2; k++) {
      const rep = await runCli(['report', '--from', 'run.json', '--out-dir', 'report', '--bootstrap', '0', '--history', 'hist'], { cwd: work, env: NO_SERVICE });
      expect(rep.code, rep.stderr).toBeLessThan(2);
    }
    served = await startView(['report', '--remote-files', '--base-url', proxy.url, '--history', 'hist', '--files', 'files'], work, { ...NO_SERVICE, EVALKIT_API_TOKEN: t.token });
  }, 300_000);

  afterAll(async () => {
    served?.child.kill('SIGTERM');
    await proxy?.close();
    await t?.close();
  });

  const fileGets = (): number => proxy.forwarded.filter((f) => f.method === 'GET' && /^\/files\/[^/?]+(\?|$)/.test(f.url)).length;

  it("a file on no disk is the service's copy: the pane gets a file address, the bytes are the upload's, downloaded once", async () => {
    const before = fileGets();
    const doc = (await (await fetch(`${served.url}r/0/api/doc?id=${ids.pdf}`)).json()) as { fileUrl: string | null; missing?: string; kind: string };
    expect(doc.missing).toBeUndefined();
    expect(doc).toMatchObject({ kind: 'pdf', fileUrl: `/r/0/file?id=${ids.pdf}` });
    const file = await fetch(new URL(doc.fileUrl!, served.url));
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await file.arrayBuffer()).equals(pdfBytes)).toBe(true);
    // Opening a document asks for its pane data and then its file: one download, not one each.
    expect(fileGets() - before).toBe(1);
    const text = await fetch(`${served.url}r/0/file?id=${ids.text}`);
    expect(await text.text()).toContain('TOTAL DUE');
  });

  it("on API 2026-02-09 the service's copy comes through the 2026-02-09 file route, byte for byte", async () => {
    const v26 = await startView(['report', '--remote-files', '--base-url', t.url, '--api-version', '2026-02-09', '--port', '0'], work, { ...NO_SERVICE, EVALKIT_API_TOKEN: t.token });
    try {
      const file = await fetch(`${v26.url}r/0/file?id=${ids.pdf}`);
      expect(file.status).toBe(200);
      expect(Buffer.from(await file.arrayBuffer()).equals(pdfBytes)).toBe(true);
    } finally {
      v26.child.kill('SIGTERM');
    }
  });

  it('a file the service does not have is said in the pane; nothing is served', async () => {
    const doc = (await (await fetch(`${served.url}r/0/api/doc?id=${ids.gone}`)).json()) as { fileUrl: string | null; missing?: string };
    expect(doc.fileUrl).toBeNull();
    expect(doc.missing).toMatch(/no file named "remote-gone\.pdf".*the service's copy of file_notOnTheService0000 could not be downloaded/);
    expect((await fetch(`${served.url}r/0/file?id=${ids.gone}`)).status).toBe(404);
  });

  it('the token stays in the server: not in its output, the page, the pane data or the file answers', async () => {
    const bodies = await Promise.all(
      [`r/0/`, `r/0/api/doc?id=${ids.pdf}`, `r/0/api/doc?id=${ids.gone}`, `r/0/file?id=${ids.gone}`, '', 'history'].map(async (p) => (await fetch(served.url + p)).text()),
    );
    for (const b of [...bodies, served.stdout(), served.stderr()]) expect(b).not.toContain(t.token);
    // The service saw the token (it answered), the presigned download carried none.
    expect(proxy.forwarded.some((f) => f.status === 200 && f.url.startsWith('/files/'))).toBe(true);
  });

  it.skipIf(!hasChromium)("the service's PDF is drawn in the browser with its citation boxed", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      const external: string[] = [];
      await page.route('**/*', (route) => {
        const u = new URL(route.request().url());
        if (u.hostname !== '127.0.0.1') {
          external.push(u.href);
          return route.abort();
        }
        return route.continue();
      });
      await page.goto(`${served.url}r/0/#doc=${ids.pdf}&field=invoice_number`);
      await page.waitForSelector('.ev-page[data-page="1"][data-drawn="1"]', { timeout: 60_000 });
      expect(await page.locator('body').getAttribute('data-pane')).toBe('ready');
      await expect.poll(() => page.locator('.ev-page[data-page="1"] .ev-box.ev-sel[data-field="invoice_number"]').count()).toBeGreaterThan(0);
      expect(external).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it.skipIf(!hasChromium)('the explorer links each wrong value to its place: Fields row -> its wrong documents -> the document with the field selected, and the address is that link', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      await page.goto(`${served.url}r/0/#view=fields`);
      await page.locator('#ek-fbody tr', { has: page.locator('code', { hasText: /^invoice_number$/ }) }).click();
      await expect.poll(() => page.locator('#ek-count').textContent()).toMatch(/^1 of 5 documents/);
      await page.locator('#ek-list').focus();
      await page.keyboard.press('Enter');
      // inv-003 is the one whose invoice number is wrong: opened with the field selected. The
      // sandbox invented the wrong number (INV-2034-0310), so the run cites nothing and the pane says so.
      await expect.poll(() => page.evaluate('location.hash')).toContain(`doc=${ids.text}`);
      expect(await page.evaluate('location.hash')).toContain('field=invoice_number');
      await expect.poll(() => page.locator('#ev-pane').textContent()).toContain('invoice_number: no citation in the output');
      expect(await page.locator('#ek-docbody tr.hl code').first().textContent()).toBe('invoice_number');
      // A row of the values table selects its value, and the address is the link to that place.
      await page.locator('#ek-docbody tr', { has: page.locator('code', { hasText: /^total$/ }) }).click();
      await expect.poll(() => page.evaluate('location.hash')).toContain('field=total');
      const hash = new URLSearchParams(((await page.evaluate('location.hash')) as string).slice(1));
      expect([hash.get('doc'), hash.get('field')]).toEqual([ids.text, 'total']);
      expect(await page.locator('.ev-box.ev-sel[data-field="total"]').count()).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('TIFF: its pages listed with their sizes and each served as PNG; a broken one is said in the pane', async () => {
    const doc = (await (await fetch(`${served.url}r/0/api/doc?id=${ids.tiff}`)).json()) as { kind: string; pageCount: number; pageSizes: unknown; fileUrl: string };
    expect(doc).toMatchObject({ kind: 'tiff', pageCount: 2, pageSizes: [{ width: 300, height: 400 }, { width: 300, height: 400 }], fileUrl: `/r/0/file?id=${ids.tiff}` });
    const png = await fetch(`${served.url}r/0/file?id=${ids.tiff}&page=2`);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const { decode } = await import('fast-png');
    const img = decode(new Uint8Array(await png.arrayBuffer()));
    expect([img.width, img.height, img.channels]).toEqual([300, 400, 1]);
    // Inside the black rectangle of page 2, and outside it.
    expect([img.data[120 * 300 + 100], img.data[10 * 300 + 10]]).toEqual([0, 255]);
    expect((await fetch(`${served.url}r/0/file?id=${ids.tiff}&page=3`)).status).toBe(404);
    expect((await fetch(`${served.url}r/0/file?id=${ids.tiff}&page=0`)).status).toBe(400);
    const broken = (await (await fetch(`${served.url}r/0/api/doc?id=${ids.broken}`)).json()) as { fileUrl: string | null; missing: string };
    expect(broken.fileUrl).toBeNull();
    expect(broken.missing).toMatch(/^broken\.tiff cannot be drawn: it is not a readable TIFF/);
  });

  it.skipIf(!hasChromium)("TIFF in the browser: both pages drawn, the citation's box on page 2 over the value", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 1400, height: 1000 });
      await page.goto(`${served.url}r/0/#doc=${ids.tiff}&field=invoice_number`);
      await page.waitForSelector('body[data-pane=ready]', { timeout: 60_000 });
      expect(await page.locator('.ev-page[data-page]').count()).toBe(2);
      await page.waitForSelector('.ev-page[data-page="2"][data-drawn="1"]', { timeout: 30_000 });
      const box = page.locator('.ev-page[data-page="2"] .ev-box.ev-sel[data-field="invoice_number"]');
      await expect.poll(() => box.count()).toBe(1);
      const pb = (await page.locator('.ev-page[data-page="2"]').boundingBox())!;
      const bb = (await box.boundingBox())!;
      // At the black rectangle: x 60 of 300, y 100 of 400 (2px border allowed).
      expect(Math.abs(bb.x - pb.x - (60 / 300) * pb.width)).toBeLessThan(3);
      expect(Math.abs(bb.y - pb.y - (100 / 400) * pb.height)).toBeLessThan(3);
      mkdirSync(path.join(ROOT, 'test-output', 'view'), { recursive: true });
      await page.screenshot({ path: path.join(ROOT, 'test-output', 'view', 'tiff.png') });
      const broken = await browser.context.newPage();
      await broken.goto(`${served.url}r/0/#doc=${ids.broken}`);
      await broken.waitForSelector('body[data-pane=missing]', { timeout: 60_000 });
      expect(await broken.locator('#ev-pane').textContent()).toContain('broken.tiff cannot be drawn: it is not a readable TIFF');
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('--history: the charts at /history, linked from the index and back; --format json gives its address', async () => {
    expect((JSON.parse(served.stdout()) as { history?: string }).history).toBe(`${served.url}history`);
    const index = await fetch(served.url, { redirect: 'manual' });
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('<a href="/history">');
    const h = await fetch(`${served.url}history`);
    expect(h.status).toBe(200);
    expect(h.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'");
    const html = await h.text();
    expect(html).toMatch(/2 report\(s\), \d{4}-\S+ to \d{4}-\S+;/);
    expect(html).toContain('<td>micro.f1</td>');
    expect(html).toContain('<a href="/">all reports</a>');
  });

  it('--history reads the folder on each request: a report added while it runs is shown', async () => {
    const rep = await runCli(['report', '--from', 'run.json', '--out-dir', 'report', '--bootstrap', '0', '--history', 'hist'], { cwd: work, env: NO_SERVICE });
    expect(rep.code, rep.stderr).toBeLessThan(2);
    expect(await (await fetch(`${served.url}history`)).text()).toMatch(/3 report\(s\), /);
  }, 60_000);

  it('bad input is exit 2 before anything is served: no service for --remote-files, no history folder', async () => {
    const noUrl = await runCli(['view', 'report', '--remote-files'], { cwd: work, env: { ...NO_SERVICE, EVALKIT_API_TOKEN: t.token } });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/--remote-files needs the service: EVALKIT_BASE_URL \(or --base-url\) and EVALKIT_API_TOKEN/);
    expect(noUrl.stderr + noUrl.stdout).not.toContain(t.token);
    const noToken = await runCli(['view', 'report', '--remote-files', '--base-url', t.url], { cwd: work, env: NO_SERVICE });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('EVALKIT_API_TOKEN');
    const noHist = await runCli(['view', 'report', '--history', 'nowhere'], { cwd: work, env: NO_SERVICE });
    expect(noHist.code).toBe(2);
    expect(noHist.stderr).toContain('cannot read the history folder nowhere');
  }, 60_000);

  it('--port: a port in use is a usage error naming it; a value that is no number is echoed as typed', async () => {
    const port = new URL(served.url).port;
    const inUse = await runCli(['view', 'report', '--port', port], { cwd: work, env: NO_SERVICE });
    expect(inUse.code).toBe(2);
    expect(inUse.stderr).toContain(`--port ${port}: the port is in use on 127.0.0.1`);
    expect(inUse.stderr).toContain('--port 0');
    expect(inUse.stderr).not.toMatch(/unexpected error|EADDRINUSE/);
    const abc = await runCli(['view', 'report', '--port', 'abc'], { cwd: work, env: NO_SERVICE });
    expect(abc.code).toBe(2);
    expect(abc.stderr).toContain('--port "abc": must be an integer from 0 to 65535');
  }, 60_000);

  it('a wrong token: the pane says the service refused, and the token is not printed', async () => {
    const wrong = 'ek_wrong_token_0123456789abcdef';
    const v = await startView(['report', '--remote-files', '--base-url', t.url], work, { ...NO_SERVICE, EVALKIT_API_TOKEN: wrong });
    try {
      const doc = (await (await fetch(`${v.url}r/0/api/doc?id=${ids.pdf}`)).json()) as { fileUrl: string | null; missing?: string };
      expect(doc.fileUrl).toBeNull();
      expect(doc.missing).toMatch(/could not be downloaded: .*(401|token|unauthori)/i);
      expect(JSON.stringify(doc) + v.stdout() + v.stderr()).not.toContain(wrong);
    } finally {
      v.child.kill('SIGTERM');
    }
  });
});

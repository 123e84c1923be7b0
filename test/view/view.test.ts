// The core of `evalkit view` without a browser: where files are found and what is refused, both
// citation shapes read into one form, the page's CSP, and the errors file's view links.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { viewLink } from '../../src/report/errors.js';
import { readCitation } from '../../src/view/documents.js';
import { FileFinder, isInside } from '../../src/view/files.js';
import { viewCsp, viewPage } from '../../src/view/page.js';
import type { ViewReport } from '../../src/view/reports.js';
import { startView } from '../../src/view/server.js';

describe('FileFinder', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-view-files-'));
  const files = path.join(dir, 'files');
  mkdirSync(path.join(files, 'sub'), { recursive: true });
  writeFileSync(path.join(files, 'sub', 'inv 1.pdf'), '%PDF-1.4');
  writeFileSync(path.join(dir, 'secret.txt'), 'secret');
  symlinkSync(path.join(dir, 'secret.txt'), path.join(files, 'link.txt'));
  const data = path.join(dir, 'data');
  mkdirSync(path.join(data, 'docs'), { recursive: true });
  writeFileSync(path.join(data, 'docs', 'a.txt'), 'a');
  writeFileSync(path.join(data, 'data.csv'), 'file,total\ndocs/a.txt,1\n../secret.txt,2\n');

  it('finds a file below --files by its name, with the upload tag taken off', () => {
    const f = new FileFinder({ filesDirs: [files] });
    expect(f.find('inv 1.ek2c26b46b68ffc68ff99b453c.pdf')).toMatchObject({ ok: true, file: path.join(files, 'sub', 'inv 1.pdf') });
  });

  it('finds the files a dataset CSV names, relative to the CSV', () => {
    expect(new FileFinder({ csvFiles: [path.join(data, 'data.csv')] }).find('a.txt')).toMatchObject({ ok: true, file: path.join(data, 'docs', 'a.txt') });
  });

  it('refuses what lies outside the folders: a symlink out, a CSV path out, `../` in a name', () => {
    const f = new FileFinder({ filesDirs: [files], csvFiles: [path.join(data, 'data.csv')] });
    const link = f.find('link.txt');
    expect(link.ok).toBe(false);
    expect(!link.ok && link.why).toMatch(/lies outside the folders evalkit view serves/);
    // The CSV names ../secret.txt (outside data/); the name alone is looked up, never joined.
    const up = f.find('../secret.txt');
    expect(up.ok).toBe(false);
    expect(!up.ok && up.why).toMatch(/outside/);
    const missing = f.find('nothing.pdf');
    expect(!missing.ok && missing.why).toMatch(/no file named "nothing\.pdf".*pass --files DIR/);
    expect(isInside('/a/b', '/a/b/c')).toBe(true);
    expect(isInside('/a/b', '/a/bc')).toBe(false);
    expect(isInside('/a/b', '/a')).toBe(false);
  });
});

describe('readCitation', () => {
  const poly = [{ x: 1, y: 2 }, { x: 5, y: 2 }, { x: 5, y: 4 }, { x: 1, y: 4 }];
  it('reads the 2025-04-21 and the 2026-02-09 shape into one form', () => {
    const want = { field: 'total', side: 'run', page: 2, polygon: poly, pageWidth: 595, pageHeight: 842, text: '7' };
    expect(readCitation({ page: 2, polygon: poly, pageWidth: 595, pageHeight: 842, referenceText: '7' }, 'total', 'run')).toEqual(want);
    expect(readCitation({ page: { number: 2, width: 595, height: 842 }, polygon: poly, referenceText: '7' }, 'total', 'run')).toEqual(want);
    expect(readCitation({ page: { number: 2 }, polygon: poly }, 'total', 'run')).toEqual({ field: 'total', side: 'run', page: 2, polygon: poly });
  });
  it('refuses a citation without a page or a polygon', () => {
    expect(readCitation({ polygon: poly }, 't', 'run')).toBeUndefined();
    expect(readCitation({ page: 0, polygon: poly }, 't', 'run')).toBeUndefined();
    expect(readCitation({ page: 1, polygon: [{ x: 'a', y: 1 }, { x: 1, y: 1 }] }, 't', 'run')).toBeUndefined();
  });
});

describe('the served page', () => {
  const html = `<head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-abc='">\n</head><body><header><h1>x</h1></header></body>`;
  it("keeps report.html's policy, adding only 'self' for the pane's script, worker and fetches", () => {
    const page = viewPage(html, '/r/0/', null)!;
    expect(page.csp).toBe(viewCsp("'sha256-abc='"));
    expect(page.csp).toBe("default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-abc=' 'self'; worker-src 'self'; connect-src 'self'; img-src 'self' blob:; font-src 'self'; base-uri 'none'; form-action 'none'");
    expect(page.html).toContain(`content="${page.csp}"`);
    expect(page.html).not.toContain("content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-abc='\"");
    expect(page.html).toContain('<script type="module" src="/_view/view.js"></script>');
    expect(viewPage('<html>no policy</html>', '/r/0/', null)).toBeUndefined();
  });
});

describe('viewLink', () => {
  it('the deep link of a row: rows as [] for the explorer, class and splits link the document', () => {
    expect(viewLink('http://127.0.0.1:8790/r/0/', { item: 'evi_1', field: 'line_items[+3].amount' })).toBe('http://127.0.0.1:8790/r/0/#doc=evi_1&field=line_items%5B%5D.amount');
    expect(viewLink('http://127.0.0.1:8790/r/0/', { item: 'evi_1', field: 'total' })).toBe('http://127.0.0.1:8790/r/0/#doc=evi_1&field=total');
    expect(viewLink('http://127.0.0.1:8790/r/0/', { item: 'evi 2', field: 'class' })).toBe('http://127.0.0.1:8790/r/0/#doc=evi%202');
  });
});

describe("the server's copies of the service's files (--remote-files)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-view-remote-'));
  const items = ['a', 'b', 'c', 'big'].map((k) => ({ id: `evi_${k}`, fileId: `file_${k}`, fileName: `${k}.txt`, output: {}, expectedOutput: {} }));
  writeFileSync(path.join(dir, 'run.json'), JSON.stringify({ items }));
  const report = { index: 0, dir, shown: dir, html: path.join(dir, 'report.html'), exportFile: path.join(dir, 'run.json'), report: { type: 'EXTRACT', source: { file: 'run.json' } } } as unknown as ViewReport;
  const size: Record<string, number> = { file_a: 40, file_b: 40, file_c: 40, file_big: 101 };

  it('downloads a file once for its pane data and its file, keeps the most recent within the budget, and refuses one over the size limit', async () => {
    const asked: string[] = [];
    const view = await startView({
      reports: [report],
      finder: new FileFinder({}),
      port: 0,
      remoteFile: async (id) => {
        asked.push(id);
        if (id === 'file_b' && asked.filter((x) => x === id).length === 1) throw new Error('HTTP 503');
        return new Uint8Array(size[id]);
      },
      remoteCacheBytes: 100,
      maxFileBytes: 100,
    });
    const get = async (what: string, id: string): Promise<Response> => fetch(`${view.url}r/0/${what}?id=evi_${id}`);
    try {
      expect((await get('api/doc', 'a')).status).toBe(200);
      expect((await (await get('file', 'a')).arrayBuffer()).byteLength).toBe(40);
      expect(asked).toEqual(['file_a']);
      // A failed download is said in the pane and not kept: the next request asks again.
      expect(((await (await get('api/doc', 'b')).json()) as { missing: string }).missing).toMatch(/the service's copy of file_b could not be downloaded: HTTP 503/);
      expect((await get('file', 'b')).status).toBe(200);
      expect(asked).toEqual(['file_a', 'file_b', 'file_b']);
      // a (40) and b (40) fit in 100; c makes 120: a, the least recently used, goes.
      await get('file', 'c');
      await get('file', 'b');
      await get('file', 'a');
      expect(asked).toEqual(['file_a', 'file_b', 'file_b', 'file_c', 'file_a']);
      const big = await get('file', 'big');
      expect(big.status).toBe(404);
      expect(await big.text()).toMatch(/the service's copy of file_big is 101 bytes, more than evalkit view serves \(100\)/);
    } finally {
      await view.close();
    }
  });
});

describe('the export of a report', () => {
  it('`report --from exports/run.json` then `view reports/run`: found under the working folder, once; two of that name: none (the warning asks to move one)', async () => {
    const { runCli } = await import('../helpers/cli.js');
    const { copyFileSync } = await import('node:fs');
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'evalkit-view-export-'));
    mkdirSync(path.join(cwd, 'exports'));
    copyFileSync(path.resolve('test/fixtures/report/extract-export.json'), path.join(cwd, 'exports', 'run.json'));
    const r = await runCli(['report', '--from', 'exports/run.json', '--bootstrap', '0', '-q'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const { findReports } = await import('../../src/view/reports.js');
    const [one] = await findReports(['reports/run'], cwd);
    expect(one.exportFile).toBe(path.join(cwd, 'exports', 'run.json'));
    expect(one.shown).toBe(path.join('reports', 'run'));
    mkdirSync(path.join(cwd, 'old'));
    copyFileSync(path.join(cwd, 'exports', 'run.json'), path.join(cwd, 'old', 'run.json'));
    const [two] = await findReports(['reports/run'], cwd);
    expect(two.exportFile).toBeUndefined();
  });
});

// Report format 3 and the streamed path: JSONL exports read item by item, the document records
// in a side file (documents.jsonl) that report.json names with its count and SHA-256, baselines
// of every report format, and the same numbers as the in-memory path.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EvaluationExport, ExportItem } from '../../src/metrics/index.js';
import {
  computeReport,
  computeReportStream,
  FileDocuments,
  loadBaseline,
  loadExport,
  MemoryDocuments,
  openExport,
  renderJson,
  writeReports,
  type Report,
} from '../../src/report/index.js';
import { ExtractRecord } from '../../src/metrics/records.js';
import { renderExplorer } from '../../src/report/explorer/render.js';
import { FIXTURES, GOLDEN } from './golden.js';

const tmp = (): string => mkdtempSync(path.join(os.tmpdir(), 'evalkit-scale-'));

/** The export as JSONL: the header line, then one item per line. */
function toJsonl(exp: EvaluationExport): string {
  const { items, ...header } = exp;
  return [JSON.stringify(header), ...items.map((i) => JSON.stringify(i))].join('\n') + '\n';
}

async function collect(items: () => AsyncIterable<ExportItem> | Iterable<ExportItem>): Promise<ExportItem[]> {
  const out: ExportItem[] = [];
  for await (const it of items()) out.push(it);
  return out;
}

/** Writes a report (all formats) of `exp` to a new folder and returns it. */
async function writeReportOf(exp: EvaluationExport, opts: Parameters<typeof computeReport>[1] = {}): Promise<{ dir: string; report: Report }> {
  const dir = tmp();
  const documents = new FileDocuments(dir);
  const report = computeReport(exp, { bootstrap: 100, ...opts }, documents);
  await writeReports(report, dir, undefined, { documents });
  return { dir, report };
}

describe('streaming JSONL loader', () => {
  it('reads the header, then the items each time they are iterated', async () => {
    const exp = await loadExport(path.join(FIXTURES, 'extract-export.json'));
    const file = path.join(tmp(), 'run.jsonl');
    writeFileSync(file, '\ufeff' + toJsonl(exp).replace(/\n/g, '\r\n'));
    const opened = await openExport(file);
    expect(opened.header.processor).toEqual(exp.processor);
    expect(await collect(opened.items)).toEqual(exp.items);
    expect(await collect(opened.items)).toEqual(exp.items);
  });

  it('a malformed line is an input error naming the file and its line number', async () => {
    const exp = await loadExport(path.join(FIXTURES, 'extract-export.json'));
    const lines = toJsonl(exp).split('\n');
    lines[3] = lines[3].slice(0, 40);
    const file = path.join(tmp(), 'bad.jsonl');
    writeFileSync(file, lines.join('\n'));
    const opened = await openExport(file);
    const err = await collect(opened.items).then(
      () => undefined,
      (e: unknown) => e as { message: string; location?: { file?: string; line?: number } },
    );
    expect(err?.location?.file).toBe(file);
    expect(err?.location?.line).toBe(4);
  });

  it('an item that is not valid names its line and pointer', async () => {
    const exp = await loadExport(path.join(FIXTURES, 'extract-export.json'));
    const lines = toJsonl(exp).split('\n');
    const item = JSON.parse(lines[2]) as Record<string, unknown>;
    delete item.fileId;
    lines[2] = JSON.stringify(item);
    const file = path.join(tmp(), 'bad.jsonl');
    writeFileSync(file, lines.join('\n'));
    const opened = await openExport(file);
    await expect(collect(opened.items)).rejects.toMatchObject({ location: { file, line: 3, pointer: '/items/1' } });
  });
});

describe('the streamed path gives the numbers of the in-memory path', () => {
  it.each(Object.entries(GOLDEN))('%s: report.json and documents.jsonl equal the golden files', async (name, c) => {
    const exp = await loadExport(path.join(FIXTURES, c.from));
    const file = path.join(tmp(), 'run.jsonl');
    writeFileSync(file, toJsonl(exp));
    const opened = await openExport(file);
    const baseline = c.baseline ? await loadBaseline(path.join(FIXTURES, c.baseline)) : undefined;
    const documents = new MemoryDocuments();
    const report = await computeReportStream(opened.header, opened.items, { bootstrap: 200, seed: 1, sourceFile: c.from, baseline, ...c.options }, documents);
    expect(renderJson(report)).toBe(readFileSync(path.join(FIXTURES, 'golden', name, 'report.json'), 'utf8'));
    expect(documents.text()).toBe(readFileSync(path.join(FIXTURES, 'golden', name, 'documents.jsonl'), 'utf8'));
  });

  it('documents in another order give the same numbers (only the side file order differs)', async () => {
    const exp = await loadExport(path.join(FIXTURES, 'extract-export.json'));
    const reversed = { ...exp, items: [...exp.items].reverse() };
    const a = computeReport(exp, { bootstrap: 200 });
    const b = computeReport(reversed, { bootstrap: 200 });
    const strip = (r: Report): unknown => ({ ...r, documentsFile: { ...r.documentsFile, sha256: '' } });
    expect(strip(b)).toEqual(strip(a));
    expect(b.documentsFile.sha256).not.toBe(a.documentsFile.sha256);
  });
});

describe('report format 3: the side file', () => {
  it('is written beside report.json, which names it with its count and SHA-256', async () => {
    const exp = await loadExport(path.join(FIXTURES, 'extract-export.json'));
    const { dir, report } = await writeReportOf(exp);
    expect(readdirSync(dir).sort()).toEqual(['documents.jsonl', 'report.html', 'report.json', 'report.junit.xml', 'report.md']);
    const json = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as Report & { documents?: unknown };
    expect(json.format).toBe('evalkit-report/3');
    expect(json.documents).toBeUndefined();
    expect(json.worstDocuments.length).toBeGreaterThan(0);
    const bytes = readFileSync(path.join(dir, 'documents.jsonl'));
    expect(json.documentsFile).toEqual({ file: 'documents.jsonl', count: exp.items.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(report.documentsFile).toEqual(json.documentsFile);
    expect(bytes.toString('utf8').trim().split('\n')).toHaveLength(exp.items.length);
  });

  it('carries the straight-through flags, set after every document was scored', async () => {
    const exp = await loadExport(path.join(FIXTURES, 'extract-export.json'));
    for (const [i, item] of exp.items.entries()) {
      const out = item.output as { value?: Record<string, unknown>; metadata?: Record<string, unknown> } | null;
      if (out?.value) out.metadata = Object.fromEntries(Object.keys(out.value).map((k) => [k, { logprobsConfidence: i % 2 ? 0.99 : 0.5 }]));
    }
    const { dir, report } = await writeReportOf(exp, { targetAccuracy: 0.5 });
    const records = readFileSync(path.join(dir, 'documents.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { straightThrough?: boolean });
    expect(records.every((r) => typeof r.straightThrough === 'boolean')).toBe(true);
    expect(records.filter((r) => r.straightThrough).length).toBe(report.calibration?.straightThrough?.k);
    const bytes = readFileSync(path.join(dir, 'documents.jsonl'));
    expect(report.documentsFile.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('nothing is written, and no temp file is left, when a renderer fails', async () => {
    const exp = await loadExport(path.join(FIXTURES, 'extract-export.json'));
    const dir = tmp();
    const documents = new FileDocuments(dir);
    const r = computeReport(exp, { bootstrap: 0 }, documents);
    // The HTML renderer reads the worst documents; a broken one throws after json and md rendered.
    (r as { worstDocuments: unknown }).worstDocuments = [null];
    await expect(writeReports(r, dir, ['json', 'md', 'html'], { documents })).rejects.toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('baselines of every report format', () => {
  const rowsWith = async (baselineFile: string): Promise<Report['baseline']> => {
    const cur = await loadExport(path.join(FIXTURES, 'extract-baseline.json'));
    return computeReport(cur, { bootstrap: 200, baseline: await loadBaseline(baselineFile) }).baseline;
  };

  it('a format 2 report (records inline) and a format 3 report (side file) compare as their export does', async () => {
    const fromExport = await rowsWith(path.join(FIXTURES, 'extract-export.json'));
    const fromV2 = await rowsWith(path.join(FIXTURES, 'extract-report-v2.json'));
    const exp = await loadExport(path.join(FIXTURES, 'extract-export.json'));
    const { dir } = await writeReportOf(exp, { bootstrap: 200, seed: 1, sourceFile: 'extract-export.json' });
    const fromV3 = await rowsWith(path.join(dir, 'report.json'));
    expect(fromExport?.rows.length).toBeGreaterThan(0);
    expect(fromV2?.rows).toEqual(fromExport?.rows);
    expect(fromV3?.rows).toEqual(fromExport?.rows);
    expect(fromV3?.pairing).toEqual(fromExport?.pairing);
    expect(fromV3?.kind).toBe('report');
  });

  it('a format 3 report whose side file is missing or changed is refused, naming the file', async () => {
    const exp = await loadExport(path.join(FIXTURES, 'extract-export.json'));
    const { dir } = await writeReportOf(exp);
    const side = path.join(dir, 'documents.jsonl');
    const text = readFileSync(side, 'utf8');
    writeFileSync(side, text.replace('"errors":0', '"errors":1'));
    await expect(loadBaseline(path.join(dir, 'report.json'))).rejects.toThrow(new RegExp(`${side.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} does not belong to .*report\\.json`));
    const { rmSync } = await import('node:fs');
    rmSync(side);
    await expect(loadBaseline(path.join(dir, 'report.json'))).rejects.toMatchObject({ message: expect.stringMatching(/documents\.jsonl: no such file/), location: { file: side } });
    expect(existsSync(side)).toBe(false);
  });
});

describe('past the documents report.html lists', () => {
  it('report.html keeps the overview, lists no document and names documents.jsonl; the records are all in the side file', async () => {
    const { EXPLORER_MAX_DOCUMENTS } = await import('../../src/report/write.js');
    const exp = await loadExport(path.join(FIXTURES, 'extract-export.json'));
    const dir = tmp();
    const documents = new FileDocuments(dir);
    const report = computeReport(exp, { bootstrap: 0 }, documents);
    const listed = await writeReports(report, tmp(), ['html'], { documents: Object.assign(new MemoryDocuments(), { lines: [] }) });
    expect(listed[0].text).not.toContain('more than the');
    // The same report claiming more documents than the explorer lists: no records are read.
    const big = { ...report, summary: { ...report.summary, documents: EXPLORER_MAX_DOCUMENTS + 1 } };
    const files = await writeReports(big, dir, ['html', 'md'], { documents, export: exp });
    const html = files.find((f) => f.format === 'html')!.text;
    expect(html).toContain(`${EXPLORER_MAX_DOCUMENTS + 1} documents: more than the ${EXPLORER_MAX_DOCUMENTS} report.html lists`);
    expect(html).toContain('documents.jsonl');
    expect(html).toContain('micro');
    // Without json, the side file is not kept.
    expect(readdirSync(dir).sort()).toEqual(['report.html', 'report.md']);
    // Slices of documents not listed change nothing (the CLI gathers them while it scores).
    const none = () => Object.assign(new MemoryDocuments(), { lines: [] });
    const plain = await writeReports(big, tmp(), ['html'], { documents: none(), export: exp });
    const sliced = await writeReports(big, tmp(), ['html'], { documents: none(), export: exp, documentSlices: new Map(exp.items.map((i) => [i.id, ['fileName=a']])) });
    expect(sliced[0].text).toBe(plain[0].text);
  });
});

describe('progress', () => {
  it('onProgress hears every 1,000 documents scored, in the one scoring pass', async () => {
    const exp = await loadExport(path.join(FIXTURES, 'extract-export.json'));
    const items = Array.from({ length: 2500 }, (_, i) => ({ ...exp.items[i % exp.items.length], id: `it_${String(i).padStart(5, '0')}` }));
    const heard: number[] = [];
    computeReport({ ...exp, items }, { bootstrap: 0, onProgress: (n) => heard.push(n) });
    expect(heard).toEqual([1000, 2000]);
  });
});

describe('loadReport', () => {
  it('reads a format 3 report.json without its side file; anything else is an input error naming the file', async () => {
    const { loadReport } = await import('../../src/report/load.js');
    const dir = tmp();
    const golden = readFileSync(path.join(FIXTURES, 'golden/extract/report.json'), 'utf8');
    writeFileSync(path.join(dir, 'report.json'), golden);
    // No documents.jsonl beside it: loadReport does not need one (loadBaseline does).
    expect((await loadReport(path.join(dir, 'report.json'))).format).toBe('evalkit-report/3');
    await expect(loadBaseline(path.join(dir, 'report.json'))).rejects.toThrow(/documents/);
    for (const f of ['extract-export.json', 'extract-report-v2.json']) {
      await expect(loadReport(path.join(FIXTURES, f))).rejects.toMatchObject({ message: expect.stringContaining('not a report.json of this evalkit version'), location: { file: path.join(FIXTURES, f) } });
    }
  });
});

describe('records the side file keeps for the explorer', () => {
  it('are the objects the scorer made, equal to the lines parsed back, and the explorer page is the same either way', async () => {
    const exp = await loadExport(path.join(FIXTURES, 'extract-export.json'));
    const dir = tmp();
    const kept = new FileDocuments(dir);
    const report = computeReport(exp, { bootstrap: 50, seed: 3 }, kept);
    const records = kept.records();
    // Objects, not parsed lines: no second parse of a 50,000-line side file.
    expect(records.every((r) => r instanceof ExtractRecord)).toBe(true);
    const parsed = new MemoryDocuments();
    computeReport(exp, { bootstrap: 50, seed: 3 }, parsed);
    expect(records.map((r) => JSON.parse(JSON.stringify(r)) as unknown)).toEqual(parsed.records());
    expect(renderExplorer({ report, documents: records, export: exp })).toBe(renderExplorer({ report, documents: parsed.records(), export: exp }));
  });
});

// The explorer's packed values: one gzip of every document's line, and each line's UTF-8 length
// in the index, by which the page cuts the lines apart again.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildExplorerData, type ExplorerData } from '../../src/report/explorer/data.js';
import { GOLDEN, goldenInputs } from './golden.js';
import { packExplorerData, renderExplorer } from '../../src/report/explorer/render.js';
import { computeReport, MemoryDocuments, type BaselineInput } from '../../src/report/index.js';
import { recordsOfExport } from '../../src/report/scored.js';
import { DEFAULT_COMPARE } from '../../src/metrics/comparators.js';
import type { EvaluationExport } from '../../src/metrics/generated/export.js';
import type { DocumentRecord } from '../../src/metrics/generated/report.js';

describe('packExplorerData', () => {
  it('gives back every line, multi-byte characters included, cut by the byte lengths in the index', () => {
    const details = ['["a",1]', '', '["Zürich","東京",null]', '["😀 ok"]', 'x'.repeat(300_000)];
    const packed = packExplorerData({ index: { type: 'EXTRACT' } as ExplorerData['index'], details });
    const index = JSON.parse(gunzipSync(Buffer.from(packed.index, 'base64')).toString('utf8')) as { lineBytes: number[] };
    expect(index.lineBytes).toEqual([7, 0, 25, 11, 300_000]);
    // Each block is the base64 of its own slice of the one gzip stream.
    const bytes = Buffer.concat(packed.details.map((c) => Buffer.from(c, 'base64')));
    const all = gunzipSync(bytes);
    expect(all.length).toBe(index.lineBytes.reduce((a, b) => a + b, 0));
    let at = 0;
    const back = index.lineBytes.map((n) => all.subarray(at, (at += n)).toString('utf8'));
    expect(back).toEqual(details);
  });
});

describe('buildExplorerData', () => {
  it('tells onProgress how many documents have their line, from 0 to all of them', async () => {
    const input = await goldenInputs(GOLDEN.extract);
    const seen: Array<[number, number]> = [];
    const data = buildExplorerData({ ...input, onProgress: (done, total) => seen.push([done, total]) });
    const n = input.documents.length;
    expect(n).toBeGreaterThan(0);
    expect(data.details).toHaveLength(n);
    expect(seen[0]).toEqual([0, n]);
    expect(seen.at(-1)).toEqual([n, n]);
  });
});

describe('buildExplorerData: each document\'s wrong outcomes by kind', () => {
  it.each(Object.keys(GOLDEN))('%s: FA, FN and FD counted per outcome (not per field or split type; CLASSIFY per class)', async (name) => {
    const input = await goldenInputs(GOLDEN[name]);
    const { index } = buildExplorerData(input);
    const w = index.docs.wrong;
    expect(w).toHaveLength(3 * input.documents.length);
    input.documents.forEach((d, i) => {
      expect(w.slice(3 * i, 3 * i + 3).every((x) => x >= 0)).toBe(true);
      if (d.classify) {
        // Per class: the predicted class's FA, the expected class's FN (one wrong outcome of the document).
        const wrong = d.classify.expected !== d.classify.predicted;
        expect([w[3 * i], w[3 * i + 1], w[3 * i + 2]]).toEqual([wrong && d.classify.predicted !== null ? 1 : 0, wrong && d.classify.expected !== null ? 1 : 0, 0]);
        return;
      }
      expect(w[3 * i] + w[3 * i + 1] + w[3 * i + 2]).toBe(d.errors);
      if (d.splitter) expect([w[3 * i], w[3 * i + 1], w[3 * i + 2]]).toEqual([d.splitter.predicted - d.splitter.correct, d.splitter.expected - d.splitter.correct, 0]);
      if (d.fields) {
        const sum = (k: number): number => Object.values(d.fields!).reduce((n, t) => n + t[k], 0);
        expect([w[3 * i + 1], w[3 * i + 2]]).toEqual([sum(3), sum(4)]);
      }
    });
  });
});

describe('buildExplorerData: CLASSIFY outcome masks', () => {
  it('gives each class its digit and, against a baseline, its change, as a pass over every class does', async () => {
    const input = await goldenInputs(GOLDEN.classify);
    const exp = input.export as EvaluationExport;
    const classes = (exp.processor.config as { classifications: Array<{ id: string; type: string }> }).classifications;
    // The baseline predicted the next class (or none) for every other document.
    const items = exp.items.map((it, i) => {
      if (i % 2) return it;
      const at = classes.findIndex((c) => c.id === (it.output as { id?: string } | null)?.id);
      const next = classes[at + 1];
      return { ...it, output: next ? { id: next.id, type: next.type, confidence: 0.5 } : null };
    });
    const baseline: BaselineInput = { kind: 'export', file: 'baseline.json', export: { ...exp, items } };
    const sink = new MemoryDocuments();
    const report = computeReport(exp, { bootstrap: 50, seed: 1, sourceFile: 'classify-export.jsonl', baseline }, sink);
    const documents = sink.records();
    const data = buildExplorerData({ report, export: exp, baseline, documents });
    const units = data.index.units;
    expect(units.length).toBe(classes.length);
    const bits = (d: DocumentRecord, u: string): number => {
      const c = d.classify;
      if (!c) return 0;
      if (c.expected === u && c.predicted === u) return 1;
      return (c.expected === u ? 4 : 0) | (c.predicted === u ? 2 : 0);
    };
    const change = (cur: number, base: number): string => (cur === 0 && base === 0 ? '.' : base & 6 ? (cur & 6 ? 'w' : 'f') : cur & 6 ? 'b' : 'r');
    const baseDocs = new Map(recordsOfExport({ ...exp, items }, DEFAULT_COMPARE).map((d) => [d.id, d]));
    expect(data.index.docs.mask).toEqual(documents.map((d) => units.map((u) => '0123456789abcdef'[bits(d, u)]).join('')));
    expect(data.index.docs.fchange).toEqual(
      documents.map((d) => {
        const b = baseDocs.get(d.id)!;
        return units.map((u) => change(bits(d, u), bits(b, u))).join('');
      }),
    );
    // Some classes changed both ways.
    expect(data.index.docs.fchange.join('')).toMatch(/f/);
    expect(data.index.docs.fchange.join('')).toMatch(/b/);
  });
});

describe('renderExplorer: the units tab', () => {
  it.each([
    ['extract', 'search fields'],
    ['classify', 'search classes'],
    ['splitter', 'search split types'],
  ] as const)('%s: its search box says %s', async (kind, label) => {
    const html = renderExplorer(await goldenInputs(GOLDEN[kind]));
    expect(html).toContain(`placeholder="${label}" aria-label="${label}"`);
  });
});

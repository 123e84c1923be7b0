// The values of a JSONL export read back from the file (fileValueSource) against those of the
// same export held in memory (valueSource): the same paths and, for every item, the same values,
// whatever the line endings, characters, blank lines and chunk sizes, and whether the items were
// found by a pass of its own or noted by another (ItemSpans); the EXTRACT fields taken from the
// values when the config declares none; the slices; a file changed meanwhile.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_COMPARE } from '../../src/metrics/comparators.js';
import type { EvaluationExport } from '../../src/metrics/generated/export.js';
import { fileValueSource, ItemSpans, valueSource } from '../../src/report/explorer/values.js';
import { loadExport, openExport } from '../../src/report/load.js';
import { documentSlicesOf } from '../../src/report/slices.js';
import { FIXTURES } from './golden.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-values-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CMP = { fuzzyThreshold: DEFAULT_COMPARE.fuzzyThreshold, numberTolerance: DEFAULT_COMPARE.numberTolerance };

function jsonl(exp: EvaluationExport, eol = '\n', bom = ''): string {
  const { items, ...header } = exp;
  return bom + [JSON.stringify(header), ...items.map((i) => JSON.stringify(i))].join(eol) + eol;
}

let n = 0;
function write(text: string): string {
  const file = path.join(dir, `e${n++}.jsonl`);
  writeFileSync(file, text);
  return file;
}

const json = (file: string): EvaluationExport => JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as EvaluationExport;

/**
 * fileValueSource of `file` equals valueSource of the same export loaded whole, item by item:
 * finding the items with a pass of its own, and with the spans another pass noted (read whole,
 * or stopped by their limit: then it finds them itself).
 */
async function same(file: string, source?: 'logprobs' | 'ocr' | 'review', chunkSize?: number): Promise<number> {
  const whole = await loadExport(file);
  const want = valueSource(whole, CMP, source);
  const opened = await openExport(file);
  const noted = async (limit: number): Promise<ItemSpans> => {
    const spans = new ItemSpans(limit, ['fileName']);
    const seen: string[] = [];
    for await (const item of spans.source(file, opened, { chunkSize })()) seen.push(item.id);
    expect(seen).toEqual(whole.items.map((i) => i.id));
    expect(spans.complete).toBe(limit >= whole.items.length);
    return spans;
  };
  for (const spans of [undefined, await noted(Infinity), await noted(whole.items.length - 1), new ItemSpans()]) {
    const got = await fileValueSource(file, opened, CMP, source, { chunkSize, sliceBy: ['fileName'], spans });
    try {
      expect(got.paths).toEqual(want.paths);
      for (const item of whole.items) expect(got.of(item.id)).toEqual(want.of(item.id));
      expect(got.of('no such item')).toBeUndefined();
      expect(got.documentSlices).toEqual(documentSlicesOf(['fileName'], whole.items));
    } finally {
      got.close();
    }
  }
  return whole.items.length;
}

describe('fileValueSource', () => {
  const extract = json('extract-export.json');
  const splitter = json('splitter-export.json');

  it('EXTRACT, CLASSIFY and SPLITTER exports: the values of every item, as held in memory', async () => {
    expect(await same(write(jsonl(extract)))).toBe(extract.items.length);
    expect(await same(write(jsonl(extract)), 'logprobs')).toBe(extract.items.length);
    expect(await same(path.join(FIXTURES, 'classify-export.jsonl'))).toBeGreaterThan(0);
    expect(await same(write(jsonl(splitter)))).toBe(splitter.items.length);
  });

  it('CRLF, a BOM, blank lines, characters of several bytes, and lines cut by small chunks', async () => {
    const wide = structuredClone(extract);
    wide.items.forEach((it, i) => {
      it.fileName = `Zürich 東京 😀 ${i}`;
      it.id = `ïd-${i}-✓`;
    });
    const text = jsonl(wide, '\r\n\r\n', '\ufeff');
    for (const size of [undefined, 5, 64]) expect(await same(write(text), undefined, size)).toBe(wide.items.length);
  });

  it('a config without fields: the fields come from the expected values, as in the report', async () => {
    const open = structuredClone(extract);
    delete (open.processor.config as { schema?: unknown }).schema;
    // `tags` is a field only because the expected outputs have the key (empty lists everywhere).
    open.items.forEach((it, i) => {
      const value = (o: unknown) => (o as { value: Record<string, unknown> }).value;
      if (value(it.expectedOutput)) value(it.expectedOutput).tags = [];
      if (it.output && value(it.output)) value(it.output).tags = i % 2 ? ['paid', 'late'] : [];
    });
    const file = write(jsonl(open));
    expect(await same(file)).toBe(open.items.length);
    const got = await fileValueSource(file, await openExport(file), CMP);
    expect(got.paths).toContain('tags');
    const cells = open.items.flatMap((it) => {
      const v = got.of(it.id);
      return v?.type === 'EXTRACT' ? v.cells.filter((c) => got.paths[c.leaf] === 'tags') : [];
    });
    // A list of text scored element by element: one FA per predicted tag.
    expect(cells.map((c) => c.predicted)).toEqual(expect.arrayContaining(['paid', 'late']));
    got.close();
  });

  it('an item that is no longer where it was read: an error naming the file and the line; closed, it reads nothing', async () => {
    const file = write(jsonl(extract));
    const values = await fileValueSource(file, await openExport(file), CMP);
    const first = extract.items[0].id;
    const second = extract.items[1].id;
    // The second item's line now holds the first item (same length: the ids are swapped).
    const lines = readFileSync(file, 'utf8').split('\n');
    const swapped = (s: string) => s.replace(JSON.stringify(second), JSON.stringify(first));
    expect(first.length).toBe(second.length);
    writeFileSync(file, [lines[0], lines[1], swapped(lines[2]), ...lines.slice(3)].join('\n'));
    expect(() => values.of(second)).toThrow(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} changed while the report was being written: line 3 holds item`));
    writeFileSync(file, lines[0]);
    expect(() => values.of(second)).toThrow(/line 3 is shorter/);
    values.close();
    expect(() => values.of(first)).toThrow(/closed/);
  });
});

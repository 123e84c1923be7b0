// The explorer's packed values: one gzip of every document's line, and each line's UTF-8 length
// in the index, by which the page cuts the lines apart again.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildExplorerData, type ExplorerData } from '../../src/report/explorer/data.js';
import { GOLDEN, goldenInputs } from './golden.js';
import { packExplorerData } from '../../src/report/explorer/render.js';

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

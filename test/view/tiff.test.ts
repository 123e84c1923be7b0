// TIFF pages decoded to PNG for the document pane: sizes, the pixels of each page, and refusals.
import { decode } from 'fast-png';
import UTIF from 'utif2';
import { describe, expect, it } from 'vitest';
import { MAX_TIFF_PIXELS, tiffPagePng, tiffPages } from '../../src/view/tiff.js';
import { makeTiff, pagePixels, type TiffPageSpec } from '../helpers/tiff.js';

const PAGES: TiffPageSpec[] = [
  { width: 40, height: 30, black: [5, 5, 15, 10] },
  { width: 20, height: 50, black: [0, 40, 20, 50] },
];

describe('TIFF pages', () => {
  const tiff = makeTiff(PAGES);

  it('lists every page with its size in pixels', () => {
    expect(tiffPages(tiff)).toEqual([{ width: 40, height: 30 }, { width: 20, height: 50 }]);
  });

  it.each(['none', 'deflate'] as const)('draws each page as PNG with the same pixels (compression: %s)', (compression) => {
    const file = makeTiff(PAGES, compression);
    // The pixels (6,600 bytes) compress to a few hundred: the strips are Deflate indeed.
    if (compression === 'deflate') expect(file.length).toBeLessThan(tiff.length - 5000);
    PAGES.forEach((p, k) => {
      const png = decode(tiffPagePng(file, k + 1));
      // Black and white: one grey channel.
      expect([png.width, png.height, png.channels, png.depth]).toEqual([p.width, p.height, 1, 8]);
      const rgb = pagePixels(p);
      const data = png.data as Uint8Array;
      for (let i = 0; i < p.width * p.height; i++) expect(data[i], `page ${k + 1} pixel ${i}`).toBe(rgb[i * 3]);
    });
  });

  it('a page in colour keeps its three channels', () => {
    const p = { width: 4, height: 2, black: [0, 0, 1, 1] as [number, number, number, number] };
    const file = makeTiff([p]);
    // Make pixel 1 red: its RGB bytes follow the 4,096-byte head in the helper's layout.
    file.set([255, 0, 0], 4096 + 3);
    const png = decode(tiffPagePng(file, 1));
    expect(png.channels).toBe(3);
    expect(Array.from((png.data as Uint8Array).slice(0, 9))).toEqual([0, 0, 0, 255, 0, 0, 255, 255, 255]);
  });

  it('a file given at an offset of a larger buffer is read from its own first byte', () => {
    const within = Buffer.concat([Buffer.from('padding!'), tiff]).subarray(8);
    expect(tiffPages(within)).toHaveLength(2);
  });

  it('refuses what is not a TIFF, a page it does not have, and a page too large to decode', () => {
    expect(() => tiffPages(Buffer.from('this is not a TIFF file at all, only text'))).toThrow(/not a readable TIFF/);
    expect(() => tiffPagePng(tiff, 3)).toThrow(/page 3 of 2: no such page/);
    // A page whose size says more pixels than the limit (its pixels need not be there: refused before decoding).
    const side = Math.ceil(Math.sqrt(MAX_TIFF_PIXELS)) + 1;
    const ifd = { t256: [side], t257: [side], t258: [8, 8, 8], t259: [1], t262: [2], t273: [4096], t277: [3], t278: [side], t279: [side * side * 3], t284: [1] } as unknown as UTIF.IFD;
    const huge = Buffer.alloc(4096);
    huge.set(new Uint8Array(UTIF.encode([ifd])));
    expect(tiffPages(huge)).toEqual([{ width: side, height: side }]);
    expect(() => tiffPagePng(huge, 1)).toThrow(new RegExp(`page 1 is ${side} x ${side} pixels, more than evalkit view decodes`));
  });
});

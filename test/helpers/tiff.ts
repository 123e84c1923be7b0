// Small TIFF files for tests, written with utif2's own encoder (no image tool needed): big-endian,
// 8-bit RGB, uncompressed or Deflate (zlib, TIFF compression 8), one strip per page, each page
// white with a black rectangle.
import { deflateSync } from 'node:zlib';
import UTIF from 'utif2';

export interface TiffPageSpec {
  width: number;
  height: number;
  /** The black rectangle: [x0, y0, x1, y1) in pixels. */
  black: [number, number, number, number];
}

/** The RGB pixels of a page as specified. */
export function pagePixels(p: TiffPageSpec): Uint8Array {
  const px = new Uint8Array(p.width * p.height * 3).fill(255);
  const [x0, y0, x1, y1] = p.black;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) px.fill(0, (y * p.width + x) * 3, (y * p.width + x) * 3 + 3);
  return px;
}

/** A TIFF file holding the pages in order. */
export function makeTiff(pages: readonly TiffPageSpec[], compression: 'none' | 'deflate' = 'none'): Buffer {
  const HEAD = 4096;
  const strips = pages.map((p) => (compression === 'deflate' ? deflateSync(pagePixels(p)) : pagePixels(p)));
  const offsets: number[] = [];
  let at = HEAD;
  for (const s of strips) {
    offsets.push(at);
    at += s.length;
  }
  const ifds = pages.map((p, k) => ({
    t256: [p.width], t257: [p.height], t258: [8, 8, 8], t259: [compression === 'deflate' ? 8 : 1], t262: [2], t273: [offsets[k]], t277: [3], t278: [p.height], t279: [strips[k].length], t284: [1],
  })) as unknown as UTIF.IFD[];
  const head = new Uint8Array(UTIF.encode(ifds));
  if (head.length > HEAD) throw new Error('TIFF header too long for the test helper');
  const out = Buffer.alloc(at);
  out.set(head, 0);
  strips.forEach((s, k) => out.set(s, offsets[k]));
  return out;
}

/**
 * TIFF pages as PNG: browsers do not draw TIFF, so `evalkit view` decodes a page on the server
 * (utif2: pure JS, reads the compressions scans use, CCITT G3/G4, LZW, Deflate, PackBits and
 * JPEG) and sends it as PNG (fast-png). Each page is decoded when the browser asks for it, so a
 * long scan costs only the pages looked at.
 */
import { encode } from 'fast-png';
import UTIF from 'utif2';

export interface TiffPage {
  width: number;
  height: number;
}

/** Largest page decoded, in pixels (4 bytes each as RGBA): an A4 page scanned at 750 dpi is 54 MP. */
export const MAX_TIFF_PIXELS = 60_000_000;

const dim = (v: unknown): number => (Array.isArray(v) && typeof v[0] === 'number' ? v[0] : typeof v === 'number' ? v : 0);

// utif2 reads an ArrayBuffer from its first byte; a Buffer is often a view into a larger one
// (Buffer#slice does not copy), so the file's bytes are copied out.
const own = (bytes: Uint8Array): ArrayBuffer => new Uint8Array(bytes).buffer;

function pagesOf(bytes: Uint8Array): UTIF.IFD[] {
  const ifds = UTIF.decode(own(bytes));
  return ifds.filter((ifd) => dim(ifd.t256) > 0 && dim(ifd.t257) > 0);
}

/** The pages of a TIFF file with their size in pixels; throws, saying why, when it is not one. */
export function tiffPages(bytes: Uint8Array): TiffPage[] {
  let pages: UTIF.IFD[];
  try {
    pages = pagesOf(bytes);
  } catch (e) {
    throw new Error(`not a readable TIFF (${e instanceof Error ? e.message : String(e)})`);
  }
  if (!pages.length) throw new Error('not a readable TIFF (no image in it)');
  return pages.map((p) => ({ width: dim(p.t256), height: dim(p.t257) }));
}

/** Page `n` (1-based) of a TIFF file as PNG. */
export function tiffPagePng(bytes: Uint8Array, n: number): Uint8Array {
  const pages = pagesOf(bytes);
  const ifd = pages[n - 1];
  if (!ifd) throw new Error(`page ${n} of ${pages.length}: no such page`);
  const width = dim(ifd.t256);
  const height = dim(ifd.t257);
  if (width * height > MAX_TIFF_PIXELS) throw new Error(`page ${n} is ${width} x ${height} pixels, more than evalkit view decodes (${MAX_TIFF_PIXELS})`);
  UTIF.decodeImage(own(bytes), ifd);
  const rgba = UTIF.toRGBA8(ifd);
  if (rgba.length !== width * height * 4) throw new Error(`page ${n} cannot be decoded (its compression or layout is not supported)`);
  return encode({ width, height, depth: 8, ...fewestChannels(rgba) });
}

/**
 * The pixels with no more channels than they use: scans are mostly grey and opaque, and the PNG
 * encoder's time grows with the bytes it is given (an A4 page at 300 dpi: about 1 s as RGBA,
 * 0.25 s as grey).
 */
function fewestChannels(rgba: Uint8Array): { data: Uint8Array; channels: 1 | 3 | 4 } {
  const n = rgba.length / 4;
  let grey = true;
  for (let j = 0; j < rgba.length; j += 4) {
    if (rgba[j + 3] !== 255) return { data: rgba, channels: 4 };
    if (grey && (rgba[j] !== rgba[j + 1] || rgba[j] !== rgba[j + 2])) grey = false;
  }
  if (grey) {
    const data = new Uint8Array(n);
    for (let i = 0; i < n; i++) data[i] = rgba[i * 4];
    return { data, channels: 1 };
  }
  const data = new Uint8Array(n * 3);
  for (let i = 0, j = 0; i < n; i++, j += 3) {
    data[j] = rgba[i * 4];
    data[j + 1] = rgba[i * 4 + 1];
    data[j + 2] = rgba[i * 4 + 2];
  }
  return { data, channels: 3 };
}

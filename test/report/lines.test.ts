// readLineBatches (JSONL exports) against the plain reading of the whole file: the same lines,
// numbered alike, whatever the line endings, the characters and where 1 MiB chunks cut them;
// with spans, each line's bytes in the file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExport, openExport, readLineBatches } from '../../src/report/load.js';
import { InputError } from '../../src/util/errors.js';
import { FIXTURES } from './golden.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The reference: the whole file decoded, split at \n, a final empty piece dropped, \r cut from each end, a BOM from the first. */
function reference(file: string): string[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length && lines[0].charCodeAt(0) === 0xfeff) lines[0] = lines[0].slice(1);
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

async function read(file: string): Promise<string[]> {
  const out: string[] = [];
  for await (const { first, lines } of readLineBatches(file)) {
    expect(first).toBe(out.length + 1);
    expect(lines.length).toBeGreaterThan(0);
    out.push(...lines);
  }
  return out;
}

/** The lines read with their spans: each span's bytes, decoded, must be its line. */
async function readSpans(file: string, chunkSize?: number): Promise<string[]> {
  const bytes = readFileSync(file);
  const out: string[] = [];
  for await (const { first, lines, starts, ends } of readLineBatches(file, { spans: true, chunkSize })) {
    expect(first).toBe(out.length + 1);
    expect(starts).toHaveLength(lines.length);
    expect(ends).toHaveLength(lines.length);
    lines.forEach((l, i) => {
      const [s, e] = [(starts as number[])[i], (ends as number[])[i]];
      expect(s).toBeLessThanOrEqual(e);
      expect(e).toBeLessThanOrEqual(bytes.length);
      expect(bytes.toString('utf8', s, e)).toBe(l);
      // The line ends at a newline, a carriage return before one, or the end of the file.
      expect(e === bytes.length || bytes[e] === 10 || (bytes[e] === 13 && (e + 1 === bytes.length || bytes[e + 1] === 10))).toBe(true);
    });
    out.push(...lines);
  }
  return out;
}

let n = 0;
async function check(content: string | Buffer): Promise<string[]> {
  const file = path.join(dir, `f${n++}.jsonl`);
  writeFileSync(file, content);
  const got = await read(file);
  expect(got).toEqual(reference(file));
  // With spans, in 1 MiB chunks and in chunks of a few bytes (lines and characters cut everywhere).
  expect(await readSpans(file)).toEqual(got);
  if (Buffer.byteLength(content) < 1 << 16) for (const size of [1, 2, 3, 7]) expect(await readSpans(file, size)).toEqual(got);
  return got;
}

describe('readLineBatches', () => {
  it('small files: endings, BOM, empty lines, no final newline', async () => {
    expect(await check('')).toEqual([]);
    expect(await check('\n')).toEqual(['']);
    expect(await check('a')).toEqual(['a']);
    expect(await check('a\r\nb\r\n')).toEqual(['a', 'b']);
    expect(await check('\ufeff{"x":1}\n\n{"y":2}')).toEqual(['{"x":1}', '', '{"y":2}']);
    expect(await check('\ufeff')).toEqual(['']);
    expect(await check('\r\n\r')).toEqual(['', '']);
    expect(await check('"Zürich"\n"東京"\r\n"😀"')).toEqual(['"Zürich"', '"東京"', '"😀"']);
  });

  it('lines cut by the 1 MiB chunks, multi-byte characters across a cut, a line longer than several chunks', async () => {
    let seed = 7;
    const rnd = (k: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % k);
    const alphabet = ['a', 'b', '"', ' ', 'é', '東', '😀', '\r'];
    const lines: string[] = [];
    let size = 0;
    while (size < 3.5 * 2 ** 20) {
      const len = rnd(10) === 0 ? rnd(40_000) : rnd(300);
      let l = '';
      for (let i = 0; i < len; i++) l += alphabet[rnd(alphabet.length)];
      lines.push(l);
      size += len + 1;
    }
    lines.splice(5, 0, 'x'.repeat(2.5 * 2 ** 20) + 'ü');
    const got = await check('\ufeff' + lines.join('\n') + '\r\n');
    expect(got.length).toBe(lines.length);
    expect(got[5]).toHaveLength(2.5 * 2 ** 20 + 1);
  });

  it('bytes that are not UTF-8 read as U+FFFD, as the whole file decoded reads them', async () => {
    expect(await check(Buffer.from([0x61, 0xff, 0x0a, 0xc3, 0x0a, 0xe6, 0x9d]))).toEqual(['a\ufffd', '\ufffd', '\ufffd']);
  });
});

describe('loadExport', () => {
  it('tells onLines how many lines it has read, up to the last', async () => {
    const seen: number[] = [];
    const exp = await loadExport(path.join(FIXTURES, 'classify-export.jsonl'), { onLines: (n) => seen.push(n) });
    const lines = readFileSync(path.join(FIXTURES, 'classify-export.jsonl'), 'utf8').split('\n').filter((l) => l !== '').length;
    expect(exp.items).toHaveLength(lines - 1);
    expect(seen.at(-1)).toBe(lines);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });
});

describe('a JSONL export cut short', () => {
  const text = readFileSync(path.join(FIXTURES, 'classify-export.jsonl'), 'utf8');
  const lines = text.trimEnd().split('\n');
  const write = (name: string, body: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, body);
    return file;
  };
  const drain = async (file: string): Promise<unknown> => {
    const opened = await openExport(file);
    for await (const _ of opened.items()) void _;
    return opened;
  };
  const failure = async (read: () => Promise<unknown>): Promise<InputError> => {
    const e = await read().then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  };

  it('says a line that ends too soon is cut short, whichever way the export is read, with or without a newline after it', async () => {
    // The fourth line cut in the middle of a key (an unfinished string) or after one (no colon).
    for (const [name, cutAt, after] of [
      ['in-string.jsonl', 40, ''],
      ['after-key.jsonl', 43, ''],
      ['then-newline.jsonl', 40, '\n'],
    ] as const) {
      const cut = write(name, `${lines.slice(0, 3).join('\n')}\n${lines[3].slice(0, cutAt)}${after}`);
      for (const read of [() => loadExport(cut), () => drain(cut)]) {
        const e = await failure(read);
        expect(e.location).toMatchObject({ file: cut, line: 4 });
        expect(e.message, name).toMatch(/^invalid JSON: .*; the line ends too soon, as if cut short$/);
        expect(e.hint).toBe('an interrupted write or copy cuts a file short: write it again, or delete the unfinished line');
      }
    }
  });

  it('says nothing of the kind for a wrong token inside a line', async () => {
    const inside = write('inside.jsonl', `${lines.slice(0, 3).join('\n')}\n{"id": x, "fileId": "f"}`);
    const e = await failure(() => loadExport(inside));
    expect(e.message).toBe('invalid JSON: invalid symbol');
    expect(e.hint).toBe('fix the JSON syntax at that position');
  });
});

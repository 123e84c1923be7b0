// The side file's writer: lines encoded into one reused buffer, hashed and written from it.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCUMENTS_FILE, FileDocuments, type LineWriter } from '../../src/report/documents.js';

const tmp = (): string => mkdtempSync(path.join(os.tmpdir(), 'evalkit-documents-'));

/** A line that writes itself (as ExtractRecord does), counting how it was asked. */
function writer(line: string, asked: { text: number; bytes: number }): LineWriter {
  return {
    jsonText: () => {
      asked.text++;
      return line;
    },
    writeJson: (out, at) => {
      asked.bytes++;
      const b = Buffer.from(line);
      if (at + b.length > out.length) return -1;
      out.set(b, at);
      return at + b.length;
    },
  };
}

/** Writes the lines, commits, and returns the reference and the file's bytes. */
function written(lines: Array<string | LineWriter>, flags?: Uint8Array): { ref: ReturnType<FileDocuments['finish']>; bytes: Buffer; dir: string } {
  const dir = tmp();
  const docs = new FileDocuments(dir);
  for (const l of lines) docs.write(l);
  const ref = docs.finish(flags);
  docs.commit();
  return { ref, bytes: readFileSync(path.join(dir, DOCUMENTS_FILE)), dir };
}

describe('FileDocuments', () => {
  it('writes every line whole across its 1 MiB writes: multi-byte characters at the edges, lines longer than the buffer', () => {
    // Lines of 1-4 byte characters whose lengths put the buffer's edge inside a character, and
    // lines of more than 1 MiB (written on their own) between them.
    const lines: string[] = [];
    const chars = ['a', 'é', '€', '😀'];
    for (let i = 0; i < 3000; i++) lines.push(`{"id":"${i}","v":"${chars[i % 4].repeat(200 + (i % 97))}"}`);
    lines.splice(1000, 0, `{"big":"${'€'.repeat(400_000)}"}`);
    lines.splice(2000, 0, `{"big":"${'x'.repeat((1 << 20) + 5)}"}`);
    lines.push('{"last":"ü"}');
    const { ref, bytes } = written(lines);
    const text = lines.map((l) => l + '\n').join('');
    expect(bytes.equals(Buffer.from(text))).toBe(true);
    expect(ref).toEqual({ file: DOCUMENTS_FILE, count: lines.length, sha256: createHash('sha256').update(text).digest('hex') });
  });

  it('sets the flags line by line, the hash of the file as rewritten', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ id: `d${i}`, name: 'ñ'.repeat(i % 300) }));
    const flags = Uint8Array.from(lines, (_, i) => i % 3 === 0 ? 1 : 0);
    const { ref, bytes, dir } = written(lines, flags);
    const want = lines.map((l, i) => JSON.stringify({ id: `d${i}`, name: 'ñ'.repeat(i % 300), straightThrough: i % 3 === 0 }) + '\n').join('');
    expect(bytes.toString('utf8')).toBe(want);
    expect(ref.sha256).toBe(createHash('sha256').update(want).digest('hex'));
    expect(readdirSync(dir)).toEqual([DOCUMENTS_FILE]);
  });

  it('lines that write themselves: the same bytes as strings, across the buffer edges; a line past the buffer as its text', () => {
    const lines: string[] = [];
    for (let i = 0; i < 4000; i++) lines.push(`{"id":"${i}","v":"${'é€x'.repeat(100 + (i % 211))}"}`);
    lines.splice(1501, 0, `{"big":"${'x'.repeat(1 << 20)}"}`);
    const asked = { text: 0, bytes: 0 };
    const { ref, bytes } = written(lines.map((l, i) => (i % 2 ? writer(l, asked) : l)));
    const text = lines.map((l) => l + '\n').join('');
    expect(bytes.equals(Buffer.from(text))).toBe(true);
    expect(ref.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    // Past the first 50,000 nothing is kept; here each writer line was kept as its text once, and
    // only the big one was also asked for its text to be written.
    expect(asked.text).toBe(2000 + 1);
    expect(asked.bytes).toBeGreaterThan(2000);
  });

  it('no lines: an empty file and the hash of nothing', () => {
    const { ref, bytes } = written([]);
    expect(bytes.length).toBe(0);
    expect(ref).toEqual({ file: DOCUMENTS_FILE, count: 0, sha256: createHash('sha256').digest('hex') });
  });
});

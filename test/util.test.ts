import { mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/util/errors.js';
import { CopyWriter } from '../src/util/copies.js';
import { writeFileAtomic } from '../src/util/fs.js';
import { detectJsonStyle, fromPointer, parseJson, stringifyWithStyle, toPointer } from '../src/util/json.js';
import { redact } from '../src/util/secrets.js';

describe('json pointer', () => {
  it.each([
    [['a', 0, 'b/c', 'd~e'], '/a/0/b~1c/d~0e'],
    [[], ''],
    [['plain', 'a/b/c', '~~', '~/', 12], '/plain/a~1b~1c/~0~0/~0~1/12'],
  ])('%j <-> %s', (segments, pointer) => {
    expect(toPointer(segments)).toBe(pointer);
    expect(fromPointer(pointer)).toEqual(segments.map(String));
  });
});

describe('parseJson', () => {
  it('names file, line and column of a syntax error', () => {
    let caught: unknown;
    try {
      parseJson('{\n  "a": 1,\n  "b": }\n', 'x.json');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(InputError);
    const e = caught as InputError;
    expect(e.location.file).toBe('x.json');
    expect(e.location.line).toBe(3);
    expect(e.location.column).toBe(8);
    expect(e.describe()).toMatch(/^x\.json:3:8: invalid JSON/);
  });

  it('accepts a BOM', () => {
    expect(parseJson('\ufeff{"a":1}', 'x')).toEqual({ a: 1 });
  });
});

describe('json style', () => {
  it.each([
    ['{\n    "a": 1\n}\n', 4, true],
    ['{\n\t"a": 1\n}', '\t', false],
    ['{"a":1}', 0, false],
  ])('detects %j', (text, indent, nl) => {
    const style = detectJsonStyle(text);
    expect(style.indent).toBe(indent);
    expect(style.trailingNewline).toBe(nl);
    expect(stringifyWithStyle(JSON.parse(text), style)).toBe(text);
  });
});

describe('writeFileAtomic', () => {
  it('replaces the file and leaves no temp file behind', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-'));
    const f = path.join(dir, 'a.json');
    await writeFileAtomic(f, 'one');
    await writeFileAtomic(f, 'two');
    expect(readFileSync(f, 'utf8')).toBe('two');
    expect(readdirSync(dir)).toEqual(['a.json']);
  });
});

describe('CopyWriter', () => {
  it('writes copies into new folders, text and bytes as given, and leaves no temp file', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-copies-'));
    const w = new CopyWriter();
    for (let i = 0; i < 12; i++) expect(w.write(path.join(dir, `d${i % 3}`, `${i}.json`), i % 2 ? `{"i":${i}}` : `\ufeff{"i":${i}}`)).toBeUndefined();
    expect(readdirSync(dir).sort()).toEqual(['d0', 'd1', 'd2']);
    expect(readdirSync(path.join(dir, 'd1')).filter((f) => f.startsWith('.'))).toEqual([]);
    expect(readFileSync(path.join(dir, 'd1/7.json'), 'utf8')).toBe('{"i":7}');
    expect(readFileSync(path.join(dir, 'd0/6.json'))).toEqual(Buffer.from('\ufeff{"i":6}'));
  });

  it('reports a copy that cannot be written by its error code, removes its temp file and writes the others', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-copies-'));
    mkdirSync(path.join(dir, 'b.json', 'x'), { recursive: true });
    const w = new CopyWriter();
    const done = Object.fromEntries(['a.json', 'b.json', 'c.json'].map((name) => [name, w.write(path.join(dir, name), name)]));
    expect(done).toEqual({ 'a.json': undefined, 'b.json': 'EISDIR', 'c.json': undefined });
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.json', 'c.json']);
    expect(readFileSync(path.join(dir, 'c.json'), 'utf8')).toBe('c.json');
  });
});

describe('redact', () => {
  it('removes secrets from text', () => {
    expect(redact('token sk_live_abcdef in message', ['sk_live_abcdef'])).toBe('token *** in message');
  });
});

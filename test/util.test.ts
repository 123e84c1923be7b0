import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { fileSystemError, InputError } from '../src/util/errors.js';
import { CopyWriter, isAbsent, StagedCopies } from '../src/util/copies.js';
import { yielder } from '../src/util/pause.js';
import { removeLiveTempsSync, sweepStaleTemps, writeFileAtomic } from '../src/util/fs.js';
import { detectJsonStyle, endsInside, fromPointer, identicalJson, lossyNumber, own, parseJson, stringifyWithStyle, toPointer } from '../src/util/json.js';
import { redact } from '../src/util/secrets.js';
import { perArray } from '../src/util/memo.js';

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

describe('own', () => {
  it('own members of JSON data only: keys named like the prototype\'s members read as absent unless the data has them', () => {
    const parsed = JSON.parse('{"constructor":"c","toString":0,"__proto__":{"x":1},"hasOwnProperty":null,"a":[1,2]}') as Record<string, unknown>;
    expect(own(parsed, 'constructor')).toBe('c');
    expect(own(parsed, 'toString')).toBe(0);
    expect(own(parsed, '__proto__')).toEqual({ x: 1 });
    expect(own(parsed, 'hasOwnProperty')).toBeNull();
    expect(own(parsed, 'valueOf')).toBeUndefined();
    expect(own(parsed.a, 'length')).toBe(2);
    expect(own(parsed.a, 'map')).toBeUndefined();
    for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'missing']) {
      expect(own({}, key), key).toBeUndefined();
      expect(own([], key), key).toBeUndefined();
    }
    const dict = Object.create(null) as Record<string, unknown>;
    dict.__proto__ = 5;
    expect(own(dict, '__proto__')).toBe(5);
    expect(own({ a: undefined }, 'a')).toBeUndefined();
    expect(own(null, 'a')).toBeUndefined();
    expect(own('text', 'length')).toBeUndefined();
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

describe('endsInside', () => {
  /** Where parseJson puts the error of a one-line text (its column, 0-based). */
  const errorAt = (text: string): number => {
    try {
      parseJson(text, 'x.jsonl');
    } catch (e) {
      return (e as InputError).location.column! - 1;
    }
    throw new Error(`${text} parses`);
  };
  it.each([
    ['{"a": 1, "b"', true],
    ['{"a": 1, "b": "some te', true],
    ['{"a": 1, "b": 12', true],
    ['{"a": 1.', true],
    ['{"a": tr', true],
    ['{"a": -', true],
    ['[1, 2,', true],
    ['{"a": x, "b": 1}', false],
    ['{"a": 1}}', false],
    ['{"a": 1} 2', false],
    ['{"a" 1}', false],
  ])('%s: %s', (text, cut) => {
    expect(endsInside(text, errorAt(text))).toBe(cut);
  });

  it('parseJson says a text or a line that ends too soon is cut short, and an empty one is not', () => {
    const fail = (f: () => unknown): InputError => {
      try {
        f();
      } catch (e) {
        return e as InputError;
      }
      throw new Error('parsed');
    };
    const whole = fail(() => parseJson('{"a": [1, 2', 'a.json'));
    expect(whole.message).toBe('invalid JSON: close bracket expected; the text ends too soon, as if cut short');
    expect(whole.hint).toBe('an interrupted write or copy cuts a file short: write it again, or complete it');
    const line = fail(() => parseJson('{"a": "b', 'a.jsonl', 0));
    expect(line.location).toEqual({ file: 'a.jsonl', line: 1, column: 7 });
    expect(line.message).toMatch(/; the line ends too soon, as if cut short$/);
    expect(fail(() => parseJson('', 'a.json')).message).not.toMatch(/cut short/);
    // A first JSONL line too deeply nested names its line (it named none).
    const deep = `${'['.repeat(300)}${']'.repeat(300)}`;
    expect(fail(() => parseJson(deep, 'a.jsonl', 0)).location.line).toBe(1);
    expect(fail(() => parseJson(deep, 'a.json')).location.line).toBeUndefined();
  });
});

describe('identicalJson (migrate\'s self-check of a re-laid-out object; the explorer\'s "predicted differs")', () => {
  // Each pair as JSON texts; the answer must be that of comparing their JSON.stringify forms.
  it.each([
    ['equal nested values', '{"a":[1,{"b":null}],"c":"x"}', '{"a":[1,{"b":null}],"c":"x"}', true],
    ['numbers by value', '{"n":1.0,"e":1e2,"z":-0}', '{"n":1,"e":100,"z":0}', true],
    ['escapes by value', '{"s":"\\u0041"}', '{"s":"A"}', true],
    ['members in another order', '{"a":1,"b":2}', '{"b":2,"a":1}', false],
    ['nested members in another order', '{"o":{"a":1,"b":2}}', '{"o":{"b":2,"a":1}}', false],
    ['a member more', '{"a":1}', '{"a":1,"b":2}', false],
    ['a member less', '{"a":1,"b":2}', '{"a":1}', false],
    ['another key', '{"a":1}', '{"b":1}', false],
    ['another value', '{"a":[1,2]}', '{"a":[1,3]}', false],
    ['arrays of other lengths', '[1,2]', '[1,2,3]', false],
    ['an array and an object', '{"a":[]}', '{"a":{}}', false],
    ['an object and an array', '{"0":1}', '[1]', false],
    ['null and an object', '{"a":null}', '{"a":{}}', false],
    ['a string and a number', '{"a":"1"}', '{"a":1}', false],
    ['__proto__ members, equal', '{"__proto__":{"x":1}}', '{"__proto__":{"x":1}}', true],
    ['__proto__ members, different', '{"__proto__":{"x":1}}', '{"__proto__":{"x":2}}', false],
  ])('%s', (_name, a, b, same) => {
    const x: unknown = JSON.parse(a);
    const y: unknown = JSON.parse(b);
    expect(JSON.stringify(x) === JSON.stringify(y)).toBe(same);
    expect(identicalJson(x, y)).toBe(same);
  });

  it('says what comparing JSON.stringify forms says, over generated JSON values and their near copies', () => {
    // A value against itself re-parsed, against a copy with one leaf changed or its members
    // reordered, and against another generated value.
    const reorder = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(reorder) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reorder(x)])) : v;
    const tweak = (v: unknown): unknown =>
      Array.isArray(v) ? (v.length ? [tweak(v[0]), ...v.slice(1)] : [null]) : v !== null && typeof v === 'object' ? (Object.keys(v).length ? { ...v, [Object.keys(v)[0]]: tweak(Object.values(v)[0]) } : { x: 1 }) : typeof v === 'number' ? v + 1 : typeof v === 'string' ? v + 'x' : v === null ? 0 : !v;
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, other) => {
        for (const b of [JSON.parse(JSON.stringify(a)) as unknown, reorder(a), tweak(a), other]) {
          expect(identicalJson(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
        }
      }),
      { numRuns: 500 },
    );
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

describe('StagedCopies', () => {
  const fresh = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-staged-'));
    return { dir, out: path.join(dir, 'out') };
  };

  it('writes every copy into one hidden folder beside the target, which becomes the target at commit', () => {
    const { dir, out } = fresh();
    const w = new StagedCopies(out);
    for (let i = 0; i < 6; i++) expect(w.write(path.join(out, `d${i % 2}`, `${i}.json`), i % 2 ? `{"i":${i}}` : Buffer.from(`\ufeff{"i":${i}}`), i)).toBeUndefined();
    expect(isAbsent(out)).toBe(true);
    const [stage] = readdirSync(dir);
    expect(stage).toMatch(new RegExp(`^\\.evalkit-tmp-out\\.${process.pid}\\.[0-9a-f]{8}$`));
    expect(readFileSync(path.join(dir, stage, 'd1/3.json'), 'utf8')).toBe('{"i":3}');
    expect(w.commit()).toEqual([]);
    expect(readdirSync(dir)).toEqual(['out']);
    expect(readdirSync(path.join(out, 'd0')).sort()).toEqual(['0.json', '2.json', '4.json']);
    expect(readFileSync(path.join(out, 'd0/2.json'))).toEqual(Buffer.from('\ufeff{"i":2}'));
  });

  it('nothing written: commit makes no target; abort removes the staging folder and leaves no target', () => {
    const { dir, out } = fresh();
    expect(new StagedCopies(out).commit()).toEqual([]);
    const w = new StagedCopies(out);
    w.write(path.join(out, 'a.json'), '{}', 0);
    w.abort();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a target that appeared meanwhile is not replaced: the copies move into it one by one, and one that cannot is named by its id', () => {
    const { dir, out } = fresh();
    const w = new StagedCopies(out);
    for (const [i, name] of ['a.json', 'b.json', 'sub/c.json'].entries()) w.write(path.join(out, name), name, i);
    mkdirSync(path.join(out, 'b.json', 'x'), { recursive: true });
    writeFileSync(path.join(out, 'theirs.json'), 'kept');
    expect(w.commit()).toEqual([{ id: 1, file: path.join(out, 'b.json'), code: 'EISDIR' }]);
    expect(readdirSync(dir)).toEqual(['out']);
    expect(readdirSync(out).sort()).toEqual(['a.json', 'b.json', 'sub', 'theirs.json']);
    expect(readFileSync(path.join(out, 'theirs.json'), 'utf8')).toBe('kept');
    expect(readFileSync(path.join(out, 'sub/c.json'), 'utf8')).toBe('sub/c.json');
  });

  it('a signal handler removes the staging folder (removeLiveTempsSync); a later run removes a killed run\'s (sweepStaleTemps)', async () => {
    const { dir, out } = fresh();
    const w = new StagedCopies(out);
    w.write(path.join(out, 'a/b.json'), '{}', 0);
    expect(removeLiveTempsSync()).toHaveLength(1);
    expect(readdirSync(dir)).toEqual([]);
    // A staging folder of a process that is gone (pid 2^22 + 1 is above Linux's pid_max).
    const stale = path.join(dir, '.evalkit-tmp-out.4194305.0123abcd');
    mkdirSync(path.join(stale, 'd'), { recursive: true });
    writeFileSync(path.join(stale, 'd/x.json'), '{}');
    const live = path.join(dir, `.evalkit-tmp-out.${process.pid}.0123abcd`);
    mkdirSync(live);
    expect(await sweepStaleTemps(dir)).toEqual([stale]);
    expect(existsSync(live)).toBe(true);
  });
});

describe('yielder', () => {
  it('pauses (a promise that resolves after pending I/O and timers) only once `ms` have passed since the last pause', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const pause = yielder(20);
      expect(pause()).toBeUndefined();
      vi.advanceTimersByTime(19);
      expect(pause()).toBeUndefined();
      vi.advanceTimersByTime(1);
      const paused = pause();
      expect(paused).toBeInstanceOf(Promise);
      await paused;
      expect(pause()).toBeUndefined();
      vi.advanceTimersByTime(20);
      expect(pause()).toBeInstanceOf(Promise);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('redact', () => {
  it('removes secrets from text', () => {
    expect(redact('token sk_live_abcdef in message', ['sk_live_abcdef'])).toBe('token *** in message');
  });
});

describe('fileSystemError', () => {
  const sys = (code: string, syscall: string, p: string, dest?: string): Error => Object.assign(new Error(`${code}: x, ${syscall} '${p}'`), { code, syscall, path: p, ...(dest ? { dest } : {}) });
  it('names the path, what failed and why, with a hint; leaves other errors alone', () => {
    const e = fileSystemError(sys('ENOSPC', 'write', '/out/report.json'));
    expect(e?.message).toBe('cannot write /out/report.json: no space left on the device (ENOSPC)');
    expect(e?.hint).toMatch(/free some space/);
    expect(e?.exitCode).toBe(2);
    expect(fileSystemError(sys('EXDEV', 'rename', '/a', '/b'))?.message).toBe('cannot rename /a -> /b: EXDEV');
    expect(fileSystemError(new Error('plain'))).toBeUndefined();
    expect(fileSystemError(Object.assign(new Error('no path'), { code: 'ECONNREFUSED', syscall: 'connect' }))).toBeUndefined();
    expect(fileSystemError('EEXIST')).toBeUndefined();
  });
});

describe('lossyNumber', () => {
  it.each([
    ['{"a": 12345678901234567890123}', '12345678901234567890123'],
    ['{"a": 9007199254740993}', '9007199254740993'],
    ['[1e999]', '1e999'],
    ['[-1E+400]', '-1E+400'],
    ['[1e-400]', '1e-400'],
  ])('finds %s', (text, literal) => expect(lossyNumber(text)?.literal).toBe(literal));
  it.each([['{"a": "12345678901234567890123"}'], ['{"a": 1234567890123456}'], ['[9007199254740992, 100000000000000000000, 1.5e300, 1e-300, 0.1]'], ['{"s": "x\\"12345678901234567890"}']])('passes %s', (text) => {
    expect(lossyNumber(text)).toBeUndefined();
  });
});

describe('perArray', () => {
  it('builds once per array, again when its length changed, apart for another array', () => {
    let builds = 0;
    const sum = perArray((xs: readonly number[]) => {
      builds++;
      return xs.reduce((a, b) => a + b, 0);
    });
    const a = [1, 2];
    expect([sum(a), sum(a), builds]).toEqual([3, 3, 1]);
    a.push(3);
    expect([sum(a), builds]).toEqual([6, 2]);
    expect([sum([1, 2]), builds]).toEqual([3, 3]);
  });
});

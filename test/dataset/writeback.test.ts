// The write-back's file rewrite: only the edited cells change, every other byte stays (delimiter,
// quoting, line breaks, a last line without one, multi-line cells), appended rows take the file's
// line break, and a failed write leaves the file as it was.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyWriteBack, type WriteBackPlan } from '../../src/dataset/writeback.js';
import { writeTmp, tmpDir } from './helpers.js';

function plan(csv: string, delimiter: string, edits: Array<[number, Array<[number, string]>]>, appended: string[][] = []): WriteBackPlan {
  return {
    csv,
    delimiter,
    edits: edits.map(([line, cells]) => ({ line, item: 'i', cells: new Map(cells), changes: [] })),
    unchanged: 0,
    pending: 0,
    appended,
    missing: [],
    problems: [],
    dropped: [],
    cellsChanged: edits.reduce((n, [, c]) => n + c.length, 0),
  };
}

describe('applyWriteBack', () => {
  type Edits = Array<[number, Array<[number, string]>]>;
  it.each<[string, string, string, Edits, string]>([
    ['semicolons, no line break at the end; a value with the delimiter is quoted', 'file;total;note\nx.pdf;1,5;"a;b"\ny.pdf;2,5;c', ';', [[3, [[1, '3;0']]]], 'file;total;note\nx.pdf;1,5;"a;b"\ny.pdf;"3;0";c'],
    ['a multi-line cell before the edited one stays', 'a,b,c\r\n"l1\r\nl2",x,  y  \r\n', ',', [[2, [[1, 'z']]]], 'a,b,c\r\n"l1\r\nl2",z,  y  \r\n'],
    ['a formula start is guarded; a quote doubled; leading spaces quoted', 'a,b,c\n1,2,3\n4,5,6\n', ',', [[3, [[0, '=A1'], [1, 'say "hi"'], [2, ' x']]]], 'a,b,c\n1,2,3\n\'=A1,"say ""hi"""," x"\n'],
    ['a cell past the end of a short row', 'a,b,c\n1\n', ',', [[2, [[2, 'z']]]], 'a,b,c\n1,,z\n'],
    ['blank lines before a row are kept', 'a,b\n\n\n1,2\n', ',', [[4, [[1, '9']]]], 'a,b\n\n\n1,9\n'],
  ])('%s', async (_name, text, d, edits, want) => {
    const file = writeTmp('data.csv', text);
    await applyWriteBack(plan(file, d, edits));
    expect(readFileSync(file, 'utf8')).toBe(want);
  });

  it('appended rows take the file\'s line break, after a last line that had none', async () => {
    const file = writeTmp('data.csv', 'fileId,expectedOutput\r\nf1,"{""a"":1}"');
    await applyWriteBack(plan(file, ',', [], [['f2', '{"a":2}']]));
    expect(readFileSync(file, 'utf8')).toBe('fileId,expectedOutput\r\nf1,"{""a"":1}"\r\nf2,"{""a"":2}"\r\n');
  });

  it('a CSV that changed since the plan is not written: the file stays as it was, no temp file behind', async () => {
    const dir = tmpDir();
    const file = writeTmp('data.csv', 'a,b\n1,2\n', dir);
    // The CSV changed since the plan (a row gone): nothing is written.
    await expect(applyWriteBack(plan(file, ',', [[5, [[1, 'x']]]]))).rejects.toThrow(/changed while it was being written back/);
    expect(readFileSync(file, 'utf8')).toBe('a,b\n1,2\n');
    expect(readdirSync(path.dirname(file))).toEqual(['data.csv']);
  });
});

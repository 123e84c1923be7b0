import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectDelimiter, openCsv, parseDelimiterOption, type CsvRecord } from '../../src/dataset/csv.js';
import { InputError } from '../../src/util/errors.js';
import { writeTmp } from './helpers.js';

async function all(file: string, delimiter?: string): Promise<{ header: string[]; delimiter: string; bom: boolean; records: CsvRecord[] }> {
  const src = await openCsv(file, { delimiter });
  const records: CsvRecord[] = [];
  for await (const r of src.records()) records.push(r);
  return { header: src.header, delimiter: src.delimiter, bom: src.bom, records };
}

describe('openCsv', () => {
  it('a folder is an input error naming it (eval --metadata and dataset upload said "unexpected error: EISDIR")', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-csv-dir-'));
    await expect(openCsv(dir)).rejects.toThrow(InputError);
    await expect(openCsv(dir)).rejects.toThrow('a folder, not a CSV file');
    rmSync(dir, { recursive: true });
  });

  it('reads UTF-8 with a BOM, quoted newlines, CRLF, and names the line each record starts on', async () => {
    const file = writeTmp('a.csv', '\ufeffa,b\r\n1,"x\r\ny"\r\n\r\n2,"p ""q"""\r\n3,z');
    const r = await all(file);
    expect(r.bom).toBe(true);
    expect(r.header).toEqual(['a', 'b']);
    expect(r.records).toEqual([
      // Byte offsets: from the previous record's end (the BOM, blank lines before it) to the end of its line break.
      { line: 2, cells: ['1', 'x\r\ny'], start: 8, end: 18 },
      { line: 5, cells: ['2', 'p "q"'], start: 18, end: 33 },
      { line: 6, cells: ['3', 'z'], start: 33, end: 36 },
    ]);
  });

  it.each([
    ['comma', 'file,class\nx.txt,invoice\n', ','],
    ['semicolon', 'file;total;date\nx.txt;"1,5";2024-01-01\n', ';'],
    ['tab', 'file\ttotal\nx.txt\t1,5\n', '\t'],
    ['one column', 'file\nx.txt\n', ','],
    ['delimiters inside quotes do not count', '"a;b;c",d,e\n1,2,3\n', ','],
  ])('detects the delimiter: %s', async (_name, text, want) => {
    expect((await all(writeTmp('d.csv', text))).delimiter).toBe(want);
    expect(detectDelimiter(text)).toBe(want);
  });

  it('takes --delimiter over detection', async () => {
    const r = await all(writeTmp('d.csv', 'a;b,c\n1;2,3\n'), ',');
    expect(r.header).toEqual(['a;b', 'c']);
  });

  it('skips blank and all-empty rows', async () => {
    const r = await all(writeTmp('e.csv', 'a,b\n\n,,\n1,2\n , \n'));
    expect(r.records).toEqual([{ line: 4, cells: ['1', '2'], start: 8, end: 12 }]);
  });

  it.each([
    ['an unclosed quote', 'a,b\n1,2\n3,"open\n4,5\n', 'CSV: Quote Not Closed', 3],
    ['a stray quote', 'a,b\n1,"x"y\n', 'CSV: Invalid Closing Quote', 2],
    ['a quote inside an unquoted cell (columns counted from 1)', 'a,b\n1,=F("x")\n', 'CSV: Invalid Opening Quote: a quote is found in column 2', 2],
  ])('reports %s with file, line and column', async (_n, text, msg, line) => {
    const file = writeTmp('bad.csv', text);
    const err = await all(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    const e = err as InputError;
    expect(e.message).toContain(msg);
    expect(e.location.file).toBe(file);
    expect(e.location.line).toBe(line);
    expect(e.location.column).toBeGreaterThanOrEqual(1);
    expect(e.hint).toBeTruthy();
  });

  it('refuses an empty or missing file', async () => {
    await expect(openCsv(writeTmp('empty.csv', '\n\n'))).rejects.toThrow(/empty/);
    await expect(openCsv('/nonexistent/x.csv')).rejects.toThrow(/not found/);
  });

  it('parses --delimiter names', () => {
    expect(parseDelimiterOption('tab')).toBe('\t');
    expect(parseDelimiterOption(';')).toBe(';');
    expect(() => parseDelimiterOption('ab')).toThrow(InputError);
  });
});

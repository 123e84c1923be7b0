import { describe, expect, it } from 'vitest';
import { parseExpectedFile, renderExpectedFile } from '../../src/expected/documents.js';
import { InputError } from '../../src/util/errors.js';

const E = { value: { a: 1 } };

describe('parseExpectedFile', () => {
  it.each([
    ['a bare expected output', 'x.json', JSON.stringify(E), [{ pointer: '', doc: E }]],
    ['an evaluation set item', 'x.json', JSON.stringify({ fileId: 'file_1', expectedOutput: E }), [{ pointer: '/expectedOutput', doc: E }]],
    ['an API response with one item', 'x.json', JSON.stringify({ success: true, evaluationSetItem: { id: 'evi_1', expectedOutput: E } }), [{ pointer: '/evaluationSetItem/expectedOutput', doc: E }]],
    ['an array of both', 'x.json', JSON.stringify([E, { expectedOutput: E }]), [{ pointer: '/0', doc: E }, { pointer: '/1/expectedOutput', doc: E }]],
    ['a bulk-create body', 'x.json', JSON.stringify({ evaluationSetId: 'ev_1', items: [{ fileId: 'f', expectedOutput: E }] }), [{ pointer: '/items/0/expectedOutput', doc: E }]],
    ['a list response', 'x.json', JSON.stringify({ success: true, evaluationSetItems: [{ expectedOutput: E }], nextPageToken: null }), [{ pointer: '/evaluationSetItems/0/expectedOutput', doc: E }]],
    ['JSONL with a blank line', 'x.jsonl', `${JSON.stringify(E)}\n\n${JSON.stringify({ expectedOutput: E })}\n`, [{ line: 1, pointer: '', doc: E }, { line: 3, pointer: '/expectedOutput', doc: E }]],
    ['NDJSON with CRLF', 'x.ndjson', `${JSON.stringify(E)}\r\n${JSON.stringify(E)}`, [{ line: 1, pointer: '', doc: E }, { line: 2, pointer: '', doc: E }]],
    ['an empty array', 'x.json', '[]', []],
  ])('reads %s', (_n, file, text, want) => {
    expect(parseExpectedFile(file, text).documents).toEqual(want);
  });

  it('names the JSONL line of a syntax error', () => {
    let caught: unknown;
    try {
      parseExpectedFile('x.jsonl', '{"value":{}}\n{"value": }\n');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(InputError);
    expect((caught as InputError).location).toMatchObject({ file: 'x.jsonl', line: 2 });
  });

  it('refuses an empty JSON file', () => {
    expect(() => parseExpectedFile('x.json', '  \n')).toThrow(InputError);
  });
});

describe('renderExpectedFile', () => {
  it('keeps the indentation and trailing newline of a JSON file', () => {
    const text = '{\n    "fileId": "file_1",\n    "expectedOutput": {"value": {"a": "1"}}\n}\n';
    const f = parseExpectedFile('x.json', text);
    expect(renderExpectedFile(f, new Map([[0, { value: { a: 1 } }]]))).toBe('{\n    "fileId": "file_1",\n    "expectedOutput": {\n        "value": {\n            "a": 1\n        }\n    }\n}\n');
  });

  it('replaces a bare root', () => {
    const f = parseExpectedFile('x.json', '{"a":1}');
    expect(renderExpectedFile(f, new Map([[0, { value: { a: 1 } }]]))).toBe('{"value":{"a":1}}');
  });

  it('rewrites only the changed JSONL lines, byte for byte elsewhere', () => {
    const text = '{ "value": {"a": 1} }\r\n\r\n{"value":{"a":"2"}}\r\n';
    const f = parseExpectedFile('x.jsonl', text);
    expect(renderExpectedFile(f, new Map([[1, { value: { a: 2 } }]]))).toBe('{ "value": {"a": 1} }\r\n\r\n{"value":{"a":2}}\r\n');
  });

  it('returns the text unchanged when nothing is replaced', () => {
    const text = '{ "value" : {} }';
    expect(renderExpectedFile(parseExpectedFile('x.json', text), new Map())).toBe(text);
  });
});

/**
 * The expected outputs inside an input file: a bare expectedOutput, an evaluation set item
 * (`expectedOutput` inside), an array of either, a bulk-create body or list response (`items`,
 * `evaluationSetItems`), or JSONL with one of those per line. Each document keeps its JSON
 * pointer (and line for JSONL) so findings and fixes point back into the file.
 */
import { InputError } from '../util/errors.js';
import { detectJsonStyle, fromPointer, isPlainObject, lineColumnAt, lossyNumber, parseJson, stringifyWithStyle, toPointer } from '../util/json.js';

export interface ExpectedDocument {
  /** 1-based line, for JSONL. */
  line?: number;
  /** Pointer of the expected output inside the file's JSON value (inside the line's, for JSONL). */
  pointer: string;
  doc: unknown;
}

export interface ExpectedFile {
  file: string;
  kind: 'json' | 'jsonl';
  text: string;
  documents: ExpectedDocument[];
  /** Parsed roots: one for JSON, one per line for JSONL (undefined for blank lines). */
  roots: unknown[];
}

export function isJsonlName(file: string): boolean {
  return /\.(jsonl|ndjson)$/i.test(file);
}

export function parseExpectedFile(file: string, text: string): ExpectedFile {
  if (isJsonlName(file)) {
    const lines = text.split(/\r?\n/);
    const roots: unknown[] = [];
    const documents: ExpectedDocument[] = [];
    lines.forEach((raw, i) => {
      if (raw.trim() === '') {
        roots.push(undefined);
        return;
      }
      const root = parseJson(raw, file, i);
      roots.push(root);
      for (const d of documentsIn(root)) documents.push({ line: i + 1, ...d });
    });
    return { file, kind: 'jsonl', text, documents, roots };
  }
  if (text.trim() === '') throw new InputError('the file is empty', { location: { file }, hint: 'give a JSON expected output, an evaluation set item, an array of them, or JSONL' });
  const root = parseJson(text, file);
  return { file, kind: 'json', text, documents: documentsIn(root), roots: [root] };
}

function documentsIn(root: unknown): Array<{ pointer: string; doc: unknown }> {
  const out: Array<{ pointer: string; doc: unknown }> = [];
  const unit = (v: unknown, path: Array<string | number>): void => {
    if (isPlainObject(v) && Object.prototype.hasOwnProperty.call(v, 'expectedOutput')) out.push({ pointer: toPointer([...path, 'expectedOutput']), doc: v.expectedOutput });
    else out.push({ pointer: toPointer(path), doc: v });
  };
  if (Array.isArray(root)) root.forEach((v, i) => unit(v, [i]));
  else if (isPlainObject(root) && isPlainObject(root.evaluationSetItem)) unit(root.evaluationSetItem, ['evaluationSetItem']);
  else if (isPlainObject(root) && !('expectedOutput' in root) && listOfItems(root) !== undefined) {
    const key = listOfItems(root) as string;
    (root[key] as unknown[]).forEach((v, i) => unit(v, [key, i]));
  } else unit(root, []);
  return out;
}

/** `items` of a bulk-create body or `evaluationSetItems` of a list response. */
function listOfItems(root: Record<string, unknown>): string | undefined {
  for (const key of ['evaluationSetItems', 'items']) {
    const list = root[key];
    if (Array.isArray(list) && list.length > 0 && list.every((i) => isPlainObject(i) && 'expectedOutput' in i)) return key;
  }
  return undefined;
}

/** The file's text with some documents replaced (index into `documents` -> new document). */
export function renderExpectedFile(f: ExpectedFile, replaced: ReadonlyMap<number, unknown>): string {
  const roots = [...f.roots];
  const touched = new Set<number>();
  for (const [index, doc] of replaced) {
    const d = f.documents[index];
    const r = f.kind === 'jsonl' ? (d.line as number) - 1 : 0;
    roots[r] = setAt(roots[r], d.pointer, doc);
    touched.add(r);
  }
  if (f.kind === 'json') {
    if (!touched.size) return f.text;
    refuseLossyNumbers(f, f.text, 0);
    return stringifyWithStyle(roots[0], detectJsonStyle(f.text));
  }
  const eol = f.text.includes('\r\n') ? '\r\n' : '\n';
  return f.text
    .split(/\r?\n/)
    .map((line, i) => {
      if (!touched.has(i)) return line;
      refuseLossyNumbers(f, line, i);
      return JSON.stringify(roots[i]);
    })
    .join(eol);
}

/**
 * A text rewritten from its parsed form must not hold a number a double does not hold (1e400,
 * 12345678901234567890123): its rewrite would change the number without a word. An InputError
 * at its line: nothing of the file is written.
 */
function refuseLossyNumbers(f: ExpectedFile, text: string, lineIndex: number): void {
  const lossy = lossyNumber(text);
  if (!lossy) return;
  const at = lineColumnAt(text, lossy.offset);
  throw new InputError(`cannot write the fixes: the number ${lossy.literal.length > 40 ? `${lossy.literal.slice(0, 40)}...` : lossy.literal} would be rewritten as ${lossy.becomes} (a JSON number in JavaScript holds about 16 significant digits, up to 1.8e308)`, {
    location: { file: f.file, line: lineIndex + at.line, column: at.column },
    hint: 'write that number as a string, or within range, then run --fix again (nothing was written)',
  });
}

function setAt(root: unknown, pointer: string, value: unknown): unknown {
  const tokens = fromPointer(pointer);
  if (tokens.length === 0) return value;
  let parent = root as Record<string, unknown>;
  for (const t of tokens.slice(0, -1)) parent = parent[t] as Record<string, unknown>;
  parent[tokens[tokens.length - 1]] = value;
  return root;
}

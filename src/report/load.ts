/**
 * Reading evaluation exports (JSON or JSONL) and baselines (an export or a report.json),
 * validated against schemas/export.schema.json and schemas/report.schema.json. Every error
 * names the file, the line and the JSON pointer.
 */
import { createReadStream, promises as fsp } from 'node:fs';
import { createInterface } from 'node:readline';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { InputError, InternalError } from '../util/errors.js';
import { fromPointer, isPlainObject, lineColumnAt, parseJson } from '../util/json.js';
import type { EvaluationExport, EvaluationExportHeader, ExportItem } from '../metrics/generated/export.js';
import type { Report } from '../metrics/generated/report.js';
import type { BaselineInput } from './build.js';

const EXPORT_ID = 'https://evalkit.dev/schemas/export.schema.json';
const REPORT_ID = 'https://evalkit.dev/schemas/report.schema.json';
const EXPORT_HINT = 'the export format is described in schemas/export.schema.json (docs/report.md)';

interface Validators {
  export: ValidateFunction;
  header: ValidateFunction;
  item: ValidateFunction;
  report: ValidateFunction;
  /** What a baseline needs of a report of any version (format 1 or 2): its type, options and documents. */
  baselineReport: ValidateFunction;
}
let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

/** Validators compiled on first use (the report schema is large and only needed for baselines). */
async function getValidators(): Promise<Validators> {
  if (!ajv) {
    // Checking our own schemas against the meta-schema took longer than validating a large
    // export; test/report/schemas.test.ts does it once instead.
    const instance = new Ajv2020({ allErrors: false, strict: true, strictTypes: false, validateSchema: false });
    for (const name of ['export', 'report']) {
      const url = new URL(`../../schemas/${name}.schema.json`, import.meta.url);
      instance.addSchema(JSON.parse(await fsp.readFile(url, 'utf8')) as object);
    }
    ajv = instance;
  }
  const a = ajv;
  const get = (ref: string): ValidateFunction => {
    let fn = compiled.get(ref);
    if (!fn) {
      fn = a.getSchema(ref);
      if (!fn) throw new Error(`schema ${ref} not found`);
      compiled.set(ref, fn);
    }
    return fn;
  };
  return {
    get export() {
      return get(EXPORT_ID);
    },
    get header() {
      return get(`${EXPORT_ID}#/$defs/header`);
    },
    get item() {
      return get(`${EXPORT_ID}#/$defs/item`);
    },
    get report() {
      return get(REPORT_ID);
    },
    get baselineReport() {
      let fn = compiled.get('baseline');
      if (!fn) {
        fn = a.compile({
          type: 'object',
          required: ['format', 'type', 'options', 'documents'],
          properties: {
            format: { enum: ['evalkit-report/1', 'evalkit-report/2'] },
            type: { $ref: `${REPORT_ID}#/$defs/processorType` },
            options: { type: 'object' },
            documents: { type: 'array', items: { $ref: `${REPORT_ID}#/$defs/documentRecord` } },
          },
        });
        compiled.set('baseline', fn);
      }
      return fn;
    },
  };
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') return `unknown member "${String(p.additionalProperty)}"`;
  if (e.keyword === 'required') return `missing member "${String(p.missingProperty)}"`;
  if (e.keyword === 'enum') return `${e.message} (${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')})`;
  if (e.keyword === 'const') return `must be ${JSON.stringify(p.allowedValue)}`;
  return e.message ?? 'is invalid';
}

/** Line and column of the value at a JSON pointer in a JSON text (only computed on error). */
function positionOf(text: string, pointer: string): { line?: number; column?: number } {
  try {
    const tree = parseTree(text);
    const segs = fromPointer(pointer).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    const node = tree && findNodeAtLocation(tree, segs);
    return node ? lineColumnAt(text, node.offset) : {};
  } catch {
    return {};
  }
}

function invalid(fn: ValidateFunction, file: string, what: string, where: { text?: string; line?: number; prefix?: string }, hint = EXPORT_HINT): InputError {
  const e = (fn.errors ?? [])[0];
  const pointer = (where.prefix ?? '') + (e?.instancePath ?? '');
  const pos = where.line !== undefined ? { line: where.line } : where.text !== undefined ? positionOf(where.text, pointer) : {};
  return new InputError(`not a valid ${what}: ${e ? describe(e) : 'invalid'}`, { location: { file, ...pos, pointer }, hint });
}

function isJsonlName(file: string): boolean {
  return /\.(jsonl|ndjson)$/i.test(file);
}

/** JSONL when named so, or when the first line alone is a header (an object with `processor` and no `items`). */
function looksLikeJsonl(text: string): boolean {
  // A header line longer than this is not looked for: name such a file .jsonl.
  const nl = text.slice(0, 4 << 20).indexOf('\n');
  if (nl < 0 || text.trimStart()[0] !== '{') return false;
  try {
    const first = JSON.parse(text.slice(0, nl)) as unknown;
    return isPlainObject(first) && 'processor' in first && !('items' in first);
  } catch {
    return false;
  }
}

/** A missing `format` is the current one; missing options (or members of them) are none. */
function withDefaults(exp: EvaluationExport): EvaluationExport {
  return {
    ...exp,
    format: exp.format ?? 'evalkit-export/1',
    options: { fuzzyMatchFields: exp.options?.fuzzyMatchFields ?? [], excludeFields: exp.options?.excludeFields ?? [] },
  };
}

async function checkExport(data: unknown, file: string, text: string): Promise<EvaluationExport> {
  const v = await getValidators();
  if (!v.export(data)) throw invalid(v.export, file, 'evaluation export', { text });
  return withDefaults(data as EvaluationExport);
}

/** Parses an export from text (JSON, or JSONL when `file` ends in .jsonl/.ndjson or the text looks like it). */
export async function parseExport(text: string, file: string): Promise<EvaluationExport> {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (isJsonlName(file) || looksLikeJsonl(body)) {
    const reader = new JsonlExportReader(file);
    const lines = body.split('\n');
    for (let i = 0; i < lines.length; i++) await reader.line(lines[i], i + 1);
    return reader.finish();
  }
  return checkExport(parseJson(body, file), file, body);
}

/** Builds an export from JSONL lines: a header line, then one item per line. */
class JsonlExportReader {
  private header: EvaluationExportHeader | undefined;
  private readonly items: ExportItem[] = [];
  constructor(private readonly file: string) {}

  async line(raw: string, lineNo: number): Promise<void> {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return;
    const v = await getValidators();
    const data = parseJson(text, this.file, lineNo - 1);
    if (!this.header) {
      if (!v.header(data)) throw invalid(v.header, this.file, 'export header (first line of a JSONL export)', { line: lineNo });
      this.header = data as EvaluationExportHeader;
      return;
    }
    if (!v.item(data)) throw invalid(v.item, this.file, 'export item', { line: lineNo, prefix: `/items/${this.items.length}` });
    this.items.push(data as ExportItem);
  }

  finish(): EvaluationExport {
    if (!this.header) throw new InputError('empty export: no header line', { location: { file: this.file, line: 1 }, hint: EXPORT_HINT });
    return withDefaults({ ...this.header, items: this.items });
  }
}

function readError(file: string, e: unknown): InputError {
  const code = (e as NodeJS.ErrnoException).code;
  return new InputError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`, {
    location: { file },
    hint: 'check the path; exports are written by `evalkit eval run` or `evalkit eval export`',
  });
}

/** Reads an export file; JSONL is streamed line by line, so it may exceed the largest string. */
export async function loadExport(file: string): Promise<EvaluationExport> {
  if (isJsonlName(file)) {
    const reader = new JsonlExportReader(file);
    try {
      const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
      let n = 0;
      for await (const line of rl) {
        n++;
        await reader.line(n === 1 && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line, n);
      }
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw readError(file, e);
    }
    return reader.finish();
  }
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    throw readError(file, e);
  }
  return parseExport(text, file);
}

/**
 * The canonical report text parses and matches schemas/report.schema.json; an internal error
 * otherwise (a report evalkit made that is not valid is evalkit's bug, and nothing is written).
 */
export async function checkReportJson(text: string): Promise<void> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new InternalError(`the report is not valid JSON (${(e as Error).message}); nothing was written`);
  }
  const v = await getValidators();
  if (!v.report(data)) {
    const e = (v.report.errors ?? [])[0];
    throw new InternalError(`the report does not match schemas/report.schema.json at ${e?.instancePath || '/'}: ${e ? describe(e) : 'invalid'}; nothing was written`);
  }
}

/** Reads a baseline: a report.json written by `evalkit report`, or an export. */
export async function loadBaseline(file: string): Promise<BaselineInput> {
  const name = file.split(/[\\/]/).pop() ?? file;
  if (isJsonlName(file)) return { kind: 'export', file: name, export: await loadExport(file) };
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    throw readError(file, e);
  }
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (looksLikeJsonl(body)) return { kind: 'export', file: name, export: await parseExport(body, file) };
  const data = parseJson(body, file);
  if (isPlainObject(data) && typeof data.format === 'string' && data.format.startsWith('evalkit-report/')) {
    const v = await getValidators();
    // Reports of this version are checked whole; of the previous one, what a comparison reads.
    const check = data.format === 'evalkit-report/2' ? v.report : v.baselineReport;
    if (!check(data)) throw invalid(check, file, 'evalkit report', { text: body }, 'pass a report.json written by `evalkit report` (format 1 or 2), or the export it was made from');
    return { kind: 'report', file: name, report: data as unknown as Report };
  }
  return { kind: 'export', file: name, export: await checkExport(data, file, body) };
}

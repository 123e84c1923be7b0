import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
import type { ConfigSource, ExpectedForm, Finding, ProcessorType } from '../expected/index.js';
import { DEFAULT_API_VERSION } from '../api/version.js';
import { SETTLED_BY_FLAG } from '../expected/rules.js';
import { EvalkitError, InputError, UsageError } from '../util/errors.js';
import { walkFiles } from '../util/walk.js';
import { isQuiet } from './style.js';
import { defineCommand } from './command.js';
import { err, formatOption, out, outJson } from './io.js';

export interface ConfigArgs {
  config?: string;
  processor?: string;
  version?: string;
  type?: ProcessorType;
}

/** --config / --processor / --version / --type, shared by `validate` and `schema`. */
export function configOptions<T>(y: Argv<T>): Argv<T & ConfigArgs> {
  return y
    .version(false)
    .option('config', { type: 'string', describe: 'processor config file: a bare config (any layout: 2024-11-14, 2025-04-21 or 2026-02-09) or a processor, version or request body holding one' })
    .option('processor', { type: 'string', describe: 'fetch the config of this processor from the service (EVALKIT_BASE_URL, EVALKIT_API_TOKEN)' })
    .option('version', { type: 'string', describe: 'with --processor: draft, latest (default), a published number such as 1.0, or a version id' })
    .option('type', { choices: ['EXTRACT', 'CLASSIFY', 'SPLITTER'] as const, describe: 'processor type, when the config does not say' })
    .conflicts('config', 'processor') as Argv<T & ConfigArgs>;
}

export async function loadConfigSource(argv: ConfigArgs): Promise<ConfigSource> {
  const { readConfigFile, fetchProcessorConfig } = await import('../expected/index.js');
  if (argv.version !== undefined && argv.processor === undefined) throw new UsageError('--version needs --processor', { hint: 'pass --processor ID --version V, or --config FILE' });
  if (argv.config !== undefined) return readConfigFile(argv.config, argv.type);
  if (argv.processor !== undefined) {
    const { clientFromEnv } = await import('../api/index.js');
    const source = await fetchProcessorConfig(clientFromEnv(), argv.processor, argv.version);
    return argv.type ? { ...source, type: argv.type } : source;
  }
  throw new UsageError('say which config to check against: --config FILE or --processor ID', { hint: 'for example: evalkit validate items.jsonl --config invoice.config.json' });
}

/**
 * The expected-output form to check: 2026-02-09 for a 2026-02-09 config or under API version
 * 2026-02-09 (--api-version, EVALKIT_API_VERSION, the config file's apiVersion), else 2025-04-21.
 */
export async function expectedFormFor(source: ConfigSource): Promise<ExpectedForm> {
  const { expectedFormOf } = await import('../expected/index.js');
  return expectedFormOf(source.layout, process.env.EVALKIT_API_VERSION?.trim() || DEFAULT_API_VERSION);
}

/** Config problems found while compiling name the config's file (or processor). */
export function inConfig<T>(source: ConfigSource, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof InputError && e.location.file === undefined) {
      throw new InputError(e.message, { location: { ...e.location, file: source.origin }, hint: e.hint });
    }
    throw e;
  }
}

interface ValidateArgs extends ConfigArgs {
  files?: string[];
  strict: boolean;
  fix: boolean;
  outDir?: string;
  ignore: boolean;
  currency?: string;
  dateOrder?: 'dmy' | 'mdy';
  format: 'text' | 'json';
}

/** A finding placed in its file: the pointer and fix paths are relative to the file's JSON value (the line's, for JSONL). */
export interface FileFinding extends Finding {
  file: string;
  line?: number;
}

interface FileResult {
  file: string;
  documents: number;
  invalid: number;
  findings: FileFinding[];
  fixed: FileFinding[];
  written?: string;
  error?: { message: string; line?: number; column?: number; pointer?: string; hint?: string };
}

export default defineCommand<ValidateArgs>({
  command: 'validate [files..]',
  describe: 'check expected outputs (bare, evaluation set items, arrays, JSONL) against a processor config; --fix applies certain fixes',
  builder: (y) =>
    configOptions(y)
      .positional('files', { type: 'string', array: true, describe: '.json/.jsonl files or folders (searched for .json/.jsonl); none (or -) reads stdin' })
      .option('strict', { type: 'boolean', default: false, describe: 'absent configured fields are errors, not warnings' })
      .option('ignore', { type: 'boolean', default: true, describe: 'in folders, skip node_modules, hidden entries and what .gitignore names (--no-ignore walks everything)' })
      .option('fix', { type: 'boolean', default: false, describe: 'apply the certain fixes (atomic rewrite), then re-validate and report what remains' })
      .option('out-dir', { type: 'string', describe: 'with --fix: write fixed copies under DIR (mirroring the inputs) instead of rewriting them' })
      .option('currency', { type: 'string', describe: 'ISO 4217 code for bare amounts in currency fields (and for a bare $ or ¥)' })
      .option('date-order', { choices: ['dmy', 'mdy'] as const, describe: 'order of day and month in ambiguous dates such as 03/04/2024' })
      .option('format', formatOption)
      .example('$0 validate items.jsonl --config invoice.config.json', 'check every line; exit 1 when findings remain')
      .example('$0 validate set/ --config cfg.json --fix --currency EUR --date-order dmy', 'repair what is certain, in place')
      .example('$0 validate items.json --processor ex_123 --version 1.0 --strict --format json', 'against a published version, every field required') as unknown as Argv<ValidateArgs>,
  run: async (argv) => {
    const expected = await import('../expected/index.js');
    // yargs drops a lone "-", so no file names at all means stdin.
    const files = argv.files?.length ? argv.files : ['-'];
    if (files.includes('-') && process.stdin.isTTY) throw new UsageError('name the files to check, or pipe one into stdin', { hint: 'for example: evalkit validate items.jsonl --config config.json' });
    if (argv.outDir !== undefined && !argv.fix) throw new UsageError('--out-dir needs --fix', { hint: 'add --fix to write fixed copies under the folder' });
    if (argv.fix && argv.outDir === undefined && files.includes('-')) throw new UsageError('--fix cannot rewrite stdin', { hint: 'save the input to a file, or add --out-dir DIR' });
    let currency: string | undefined;
    if (argv.currency !== undefined) {
      currency = argv.currency.trim().toUpperCase();
      if (!expected.isCurrencyCode(currency)) throw new UsageError(`--currency "${argv.currency}" is not an ISO 4217 code`, { hint: 'use a code such as USD, EUR or GBP' });
    }
    const source = await loadConfigSource(argv);
    const form = await expectedFormFor(source);
    const opts = { type: source.type, form, strict: argv.strict, currency, dateOrder: argv.dateOrder };
    const validate = inConfig(source, () => expected.createExpectedValidator(source.config, opts));

    const inputs = await expandInputs(files, argv.ignore);
    const root = commonDir(inputs.filter((i) => i.file !== '-').map((i) => path.resolve(path.dirname(i.file))));
    const results: FileResult[] = [];
    for (const input of inputs) {
      const r: FileResult = { file: input.file, documents: 0, invalid: 0, findings: [], fixed: [] };
      results.push(r);
      try {
        if (input.error) throw input.error;
        const text = input.file === '-' ? await readStdin() : await fsp.readFile(input.file, 'utf8');
        const parsed = input.file === '-' ? parseStdin(expected.parseExpectedFile, text) : expected.parseExpectedFile(input.file, text);
        r.documents = parsed.documents.length;
        const replaced = new Map<number, unknown>();
        // The text searched for a number beyond a double once per file (per line for JSONL), not
        // once per document: that made a file of 20,000 documents take minutes.
        const { mayOverflow } = await import('../util/json.js');
        const lines = parsed.kind === 'jsonl' ? text.split(/\r?\n/).map(mayOverflow) : undefined;
        const whole = lines ? false : mayOverflow(text);
        parsed.documents.forEach((d, i) => {
          let result = validate(d.doc);
          if (argv.fix && result.findings.some((f) => f.fix && f.severity === 'error')) {
            const fixed = expected.fixExpected(source.config, d.doc, opts);
            if (fixed.fixed.length) {
              replaced.set(i, fixed.doc);
              r.fixed.push(...fixed.fixed.map((f) => place(f, input.file, d.line, d.pointer)));
            }
            result = fixed;
          }
          // A number beyond a double anywhere (an `any` field, metadata: where no field check looks)
          // would be sent as null. The text is searched first: most files hold no such literal.
          const huge = expected.overflowFinding(d.doc, lines ? lines[(d.line ?? 1) - 1] : whole);
          if (huge && !result.findings.some((f) => f.pointer === huge.pointer)) result = { ...result, valid: false, findings: [...result.findings, huge] };
          if (!result.valid) r.invalid++;
          r.findings.push(...result.findings.map((f) => place(f, input.file, d.line, d.pointer)));
        });
        if (argv.fix) {
          // Stdin read as JSON Lines is written back as JSON Lines, under a name that says so.
          const stdinName = parsed.kind === 'jsonl' ? 'stdin.jsonl' : 'stdin.json';
          const target = argv.outDir !== undefined ? path.join(argv.outDir, input.file === '-' ? stdinName : path.relative(root, path.resolve(input.file))) : input.file;
          if (replaced.size > 0 || argv.outDir !== undefined) {
            const { writeFileAtomic } = await import('../util/fs.js');
            await writeFileAtomic(target, expected.renderExpectedFile(parsed, replaced));
            r.written = target;
          }
        }
      } catch (e) {
        if (!(e instanceof EvalkitError)) throw e;
        r.error = { message: e.message, ...e.location, hint: e.hint };
        delete (r.error as { file?: string }).file;
        // A file with an input error counts as that alone: its documents, valid or not (fixed in
        // memory, but not written), are not in the tally, which said "1 valid, 0 fixed".
        r.documents = 0;
        r.invalid = 0;
        r.findings = [];
        r.fixed = [];
        if (argv.format === 'text') err(`evalkit: ${e.describe()}`);
      }
    }

    const summary = tally(results);
    if (argv.format === 'json') {
      outJson({ config: { origin: source.origin, type: source.type, expectedForm: form }, files: results, summary });
    } else {
      const text = renderText(results, summary, argv.fix);
      if (text) out(text);
    }
    if (summary.inputErrors > 0) return 2;
    return summary.errors > 0 ? 1 : 0;
  },
});

function place(f: Finding, file: string, line: number | undefined, base: string): FileFinding {
  const placed: FileFinding = { file, ...(line !== undefined ? { line } : {}), pointer: base + f.pointer, rule: f.rule, severity: f.severity, message: f.message, ...(f.settledBy ? { settledBy: f.settledBy } : {}) };
  if (f.fix) {
    placed.fix = f.fix.map((op) => {
      const o = { ...op, path: base + op.path } as typeof op;
      if ('from' in o) (o as { from: string }).from = base + (op as { from: string }).from;
      return o;
    });
  }
  return placed;
}

interface Summary {
  files: number;
  documents: number;
  invalid: number;
  errors: number;
  warnings: number;
  fixable: number;
  fixed: number;
  inputErrors: number;
}

function tally(results: FileResult[]): Summary {
  const s: Summary = { files: results.length, documents: 0, invalid: 0, errors: 0, warnings: 0, fixable: 0, fixed: 0, inputErrors: 0 };
  for (const r of results) {
    s.documents += r.documents;
    s.invalid += r.invalid;
    s.fixed += r.fixed.length;
    if (r.error) s.inputErrors++;
    for (const f of r.findings) {
      if (f.severity === 'error') s.errors++;
      else s.warnings++;
      if (f.fix && f.severity === 'error') s.fixable++;
    }
  }
  return s;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function renderText(results: FileResult[], s: Summary, fixing: boolean): string {
  const lines: string[] = [];
  for (const r of results) {
    if (r.findings.length === 0 && r.fixed.length === 0) continue;
    lines.push(r.file);
    for (const f of r.findings) {
      const where = `${f.line !== undefined ? `line ${f.line} ` : ''}${f.pointer || '/'}`;
      const hint = f.fix && f.severity === 'error' && !fixing ? ' (fixable with --fix)' : f.settledBy ? ` (${SETTLED_BY_FLAG[f.settledBy]})` : '';
      lines.push(`  ${where}: ${f.severity} ${f.rule}: ${f.message}${hint}`);
    }
    if (r.fixed.length) lines.push(`  fixed ${plural(r.fixed.length, 'finding')}${r.written ? ` -> ${r.written}` : ''}`);
    lines.push('');
  }
  const parts = [`${plural(s.files, 'file')}, ${plural(s.documents, 'document')}: ${s.documents - s.invalid} valid, ${s.invalid} invalid`];
  parts.push(`${plural(s.errors, 'error')}, ${plural(s.warnings, 'warning')}${s.fixable && !fixing ? ` (${s.fixable} fixable with --fix)` : ''}`);
  if (fixing) parts.push(`${s.fixed} fixed`);
  if (s.inputErrors) parts.push(`${plural(s.inputErrors, 'file')} with an input error (named above)`);
  // --quiet: the findings, without the tally.
  if (!isQuiet()) lines.push(parts.join('; '));
  return lines.join('\n').replace(/\n+$/, '');
}

interface Input {
  file: string;
  error?: EvalkitError;
}

async function expandInputs(args: string[], ignore: boolean): Promise<Input[]> {
  const out: Input[] = [];
  for (const a of args) {
    if (a === '-') {
      out.push({ file: '-' });
      continue;
    }
    let stat;
    try {
      stat = await fsp.stat(a);
    } catch (e) {
      out.push({ file: a, error: new InputError(`cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { location: { file: a }, hint: 'check the path' }) });
      continue;
    }
    if (!stat.isDirectory()) {
      out.push({ file: a });
      continue;
    }
    const found = (await walkFiles(a, { match: (name) => /\.(json|jsonl|ndjson)$/i.test(name), ignore }))
      .map((e) => path.join(a, e.rel))
      .sort();
    if (found.length === 0) out.push({ file: a, error: new InputError('no .json or .jsonl files in this folder', { location: { file: a } }) });
    for (const f of found) out.push({ file: f });
  }
  return out;
}

function commonDir(dirs: string[]): string {
  if (dirs.length === 0) return process.cwd();
  let parts = dirs[0].split(path.sep);
  for (const d of dirs.slice(1)) {
    const q = d.split(path.sep);
    let i = 0;
    while (i < parts.length && i < q.length && parts[i] === q[i]) i++;
    parts = parts.slice(0, i);
  }
  return parts.join(path.sep) || path.sep;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** stdin holds JSON, or JSONL when it does not parse as one JSON text. */
function parseStdin<F>(parse: (file: string, text: string) => F, text: string): F {
  try {
    return parse('stdin', text);
  } catch (e) {
    if (text.trim().includes('\n')) return parse('stdin.jsonl', text);
    throw e;
  }
}

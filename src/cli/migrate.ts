import path from 'node:path';
import type { Argv } from 'yargs';
import { formatLocation, UsageError, type ExitCode } from '../util/errors.js';
import { stableStringify } from '../util/json.js';
import type { FileResult } from '../config/files.js';
import { MAPPING } from '../config/mapping.js';
import { MAPPING_2026 } from '../config/mapping-2026-02-09.js';
import { INFERENCES, LAYOUTS, PROCESSOR_TYPES, layoutOfApiVersion, type Inference, type Layout, type ProcessorType } from '../config/types.js';
import { DEFAULT_API_VERSION } from '../api/version.js';
import { checkOutputTargets } from '../util/fs.js';
import { isQuiet } from './style.js';
import { defineCommand } from './command.js';
import { err, formatOption, out, outGathered, outJson } from './io.js';

interface MigrateArgs {
  paths: string[];
  to?: Layout;
  infer?: Inference[];
  from?: Layout;
  type?: ProcessorType;
  write: boolean;
  outDir?: string;
  ignore: boolean;
  check: boolean;
  allowLossy: boolean;
  allowUnknown: boolean;
  convertFields: boolean;
  items: boolean;
  format: 'text' | 'json';
}

const shown = (path: readonly string[] | null, value?: string) => (path ? path.join('.') + (value ? `=${value}` : '') : '');
const mappingHelp =
  'Key changes (2024-11-14 -> 2025-04-21):\n' +
  MAPPING.map((r) => `  ${r.type.padEnd(9)}${r.old.padEnd(29)}-> ${r.new ? r.new.join('.') : '(no replacement: lossy)'}`).join('\n') +
  '\n  SPLITTER outputs: subDocumentClassifications -> splits\n' +
  'advancedOptions members without an old name are lossy going down.\n' +
  'Key changes (2025-04-21 -> 2026-02-09), for every type unless named:\n' +
  MAPPING_2026.filter((r) => !r.upper || !r.upper[0].startsWith('parseConfig') || r.lower)
    .map((r) => `  ${(r.types.length === 3 ? '' : r.types.join(',')).padEnd(9)}${(shown(r.lower, r.lowerValue) || '(none)').padEnd(29)}-> ${r.route ? '(the route carries the type)' : r.lower && r.upper ? shown(r.upper, r.upperValue) + (r.inferred ? ` (INFERRED: --infer ${r.inferred})` : '') : r.lower ? `(no counterpart: lossy${r.inferred ? `, or --infer ${r.inferred}` : ''})` : `${shown(r.upper, r.upperValue)} (lossy going down${r.defaultValue !== undefined ? ` unless ${JSON.stringify(r.defaultValue)}` : ''})`}`)
    .join('\n') +
  '\n  parseConfig members new in 2026-02-09 (engine, blockOptions.keyValue, ...) are lossy going down; docs/migrate.md lists them.\n' +
  'A key no layout has for the config\'s type (a typo such as extractonRules) fails its file, unless --allow-unknown.\n' +
  'Exit codes: 0 ok, 1 --check found files to migrate, 2 input errors (nothing is written for a file that fails).';

export default defineCommand<MigrateArgs>({
  command: 'migrate [paths..]',
  describe: 'convert saved processor configs (and splitter outputs) between the 2024-11-14, 2025-04-21 and 2026-02-09 layouts',
  builder: (y) =>
    (y as Argv<object>)
      // The default is also how `-` arrives: yargs turns a lone `-` in a variadic positional into the default.
      .positional('paths', { type: 'string', array: true, default: ['-'], describe: '.json/.jsonl files or folders (searched recursively); - (the default) reads stdin and writes the result to stdout' })
      .option('to', { choices: LAYOUTS, describe: `target layout (default: that of the API version in effect: --api-version, EVALKIT_API_VERSION, the config file's apiVersion, else ${DEFAULT_API_VERSION})` })
      .option('from', { choices: LAYOUTS, describe: 'source layout, for configs whose keys fit several layouts or mix them (a config whose keys rule it out is an error)' })
      .option('infer', {
        choices: INFERENCES,
        array: true,
        describe: 'apply an INFERRED mapping (docs/migrate.md): fixedPageLimit N -> pageRanges [{start: 1, end: N}]; splitMethod low_latency <-> basic_precision',
      })
      .option('type', {
        choices: PROCESSOR_TYPES,
        coerce: (s: string) => (typeof s === 'string' ? s.toUpperCase() : s) as ProcessorType,
        describe: 'processor type for configs whose type is given neither by the config nor by its envelope',
      })
      .option('write', { type: 'boolean', default: false, describe: 'rewrite changed files in place (atomically, keeping formatting and key order)' })
      .option('out-dir', { type: 'string', describe: 'write migrated copies of all files under this folder, mirroring their paths' })
      .option('check', { type: 'boolean', default: false, describe: 'write nothing; exit 1 when any file needs migration (for CI)' })
      .option('allow-lossy', { type: 'boolean', default: false, describe: 'drop keys that have no counterpart in the target layout, listing them with their values' })
      .option('allow-unknown', { type: 'boolean', default: false, describe: 'keep keys that no config layout has (a newer service version\'s) as they are, instead of failing the file (a typo: "did you mean ...?")' })
      .option('convert-fields', {
        type: 'boolean',
        default: false,
        describe: 'going up to 2026-02-09, convert fields-form EXTRACT configs to a JSON Schema and their items\' fields-form expected outputs to {"value": {...}}; the items must be in the same command (docs/migrate.md)',
      })
      .option('items', { type: 'boolean', default: true, describe: 'with --convert-fields, --no-items accepts a converted config none of whose items is in the command (its processor has none)' })
      .option('ignore', { type: 'boolean', default: true, describe: 'in folders, skip node_modules, hidden entries and what .gitignore names (--no-ignore walks everything)' })
      .option('format', formatOption)
      .example('$0 migrate configs/', 'dry run: what would change, per file, as an RFC 6902 patch')
      .example('$0 migrate configs/ --write', 'rewrite the files in place')
      .example('$0 migrate configs/ --out-dir migrated/', 'write migrated copies under migrated/')
      .example('$0 migrate configs/ --check', 'CI: exit 1 while any file still needs migration')
      .example('$0 migrate processor.json --to 2024-11-14 --allow-lossy', 'migrate down, dropping options that have no old name')
      .example('$0 migrate configs/ --to 2026-02-09 --write', 'to the extractor/classifier/splitter layout of API 2026-02-09, from either older layout')
      .example('$0 migrate processor.json items.jsonl --to 2026-02-09 --convert-fields --allow-lossy --write', 'a fields-form config to a JSON Schema, with its evaluation items converted in the same run (field names dropped, listed)')
      .example('$0 migrate configs/ --allow-unknown --write', 'keep keys evalkit does not know (a newer service version\'s) instead of failing their files')
      .example('cat config.json | $0 migrate - --type CLASSIFY > new.json', 'stdin to stdout')
      .epilogue(mappingHelp) as unknown as Argv<MigrateArgs>,
  async run(argv) {
    const paths = argv.paths.map(String);
    if (paths.length === 0 || (paths.length === 1 && paths[0] === '-' && process.stdin.isTTY)) {
      throw new UsageError('name the files or folders to migrate, or pipe a document to stdin', { hint: 'for example: evalkit migrate configs/' });
    }
    if (argv.write && argv.outDir !== undefined) throw new UsageError('--write and --out-dir cannot be combined', { hint: '--write rewrites files in place; --out-dir writes copies elsewhere' });
    if (argv.check && (argv.write || argv.outDir !== undefined)) throw new UsageError('--check writes nothing; it cannot be combined with --write or --out-dir');
    const stdin = paths.includes('-');
    if (stdin && paths.length > 1) throw new UsageError('- (stdin) cannot be combined with other paths');
    if (stdin && (argv.write || argv.outDir !== undefined)) throw new UsageError('- (stdin) writes its result to stdout; --write and --out-dir do not apply');
    if (argv.outDir !== undefined) {
      checkOutputTargets([{ path: argv.outDir, kind: 'folder', flag: '--out-dir' }]);
      // The walk leaves the --out-dir folder out: a named folder that is the --out-dir would give no file at all.
      const same = paths.find((p) => path.resolve(p) === path.resolve(argv.outDir as string));
      if (same !== undefined) throw new UsageError(`--out-dir ${argv.outDir} is the folder being migrated (${same}): its copies would overwrite the files`, { hint: 'use --write to rewrite the files in place, or name another --out-dir folder' });
    }
    const mode = argv.check ? 'check' : argv.write ? 'write' : argv.outDir !== undefined ? 'out-dir' : 'dry-run';
    const core = await import('../config/index.js');
    // The API version in effect: --api-version (which sets the variable), EVALKIT_API_VERSION, the config file (which fills the variable when unset).
    const inEffect = layoutOfApiVersion(process.env.EVALKIT_API_VERSION?.trim() || DEFAULT_API_VERSION);
    const to = argv.to ?? inEffect;
    argv.to = to;
    if (argv.items === false && !argv.convertFields) throw new UsageError('--no-items applies only with --convert-fields', { hint: 'drop --no-items, or add --convert-fields' });
    if (argv.convertFields && to !== '2026-02-09') throw new UsageError(`--convert-fields converts fields-form configs going up to 2026-02-09; the target here is ${to}`, { hint: 'add --to 2026-02-09 (going down, a schema stays a schema)' });
    const common = { to, from: argv.from, type: argv.type, allowLossy: argv.allowLossy, allowUnknown: argv.allowUnknown, infer: argv.infer, inEffect, validate: true, convertFields: argv.convertFields === true, noItems: argv.items === false };
    const results: FileResult[] = [];

    if (stdin) {
      const text = await readStdin();
      let r = core.migrateText(text, '-', { ...common, patch: argv.format === 'json' });
      if (r.status === 'error' && r.errors[0]?.message.startsWith('invalid JSON') && text.trim().includes('\n')) {
        const asLines = core.migrateText(text, '-', { ...common, patch: argv.format === 'json', jsonl: true });
        if (asLines.status !== 'error' || !asLines.errors[0]?.message.startsWith('invalid JSON')) r = asLines;
      }
      const { text: next, ...result } = r;
      // The document exactly as migrated: no newline added.
      if (result.status !== 'error' && mode !== 'check') process.stdout.write(next ?? text);
      results.push(result);
      // Nothing is "dry" about stdin: the result is on stdout.
      report(results, argv, mode === 'check' ? 'check' : 'write', err);
      return exitCode(countResults(results), mode);
    }

    const { jobs, missing } = await core.collectFiles(paths, { outDir: argv.outDir, ignore: argv.ignore });
    for (const m of missing) m.to = to;
    const text = argv.format === 'text';
    // In text mode a file's result is printed and then only counted: over thousands of files,
    // keeping every result would only make work for the garbage collector.
    const tally = { migrated: 0, unchanged: 0, error: 0 };
    const take = (r: FileResult) => {
      tally[r.status]++;
      if (text) printResult(r, mode, outGathered);
      else results.push(r);
    };
    for (const m of missing) take(m);
    // Results are printed in file order as soon as the files before them are done.
    const done: Array<FileResult | undefined> = new Array(jobs.length);
    // The status each file was counted with (an index into STATUSES), for a result that is replaced.
    const counted = new Uint8Array(jobs.length);
    let next = 0;
    await core.migrateFiles(jobs, { ...common, mode, outDir: argv.outDir, patch: argv.format === 'json' || mode === 'dry-run' || mode === 'check' }, (r, i) => {
      if (i < next) {
        // A copy that could not be moved into a new --out-dir at the end: this error replaces the result taken.
        tally[STATUSES[counted[i]]]--;
        tally[r.status]++;
        if (text) printResult(r, mode, outGathered);
        else results[missing.length + i] = r;
        return;
      }
      done[i] = r;
      while (next < jobs.length && done[next]) {
        const ready = done[next]!;
        done[next] = undefined;
        counted[next++] = STATUSES.indexOf(ready.status);
        take(ready);
      }
    });
    report(results, argv, mode, out, !text, tally);
    return exitCode(tally, mode);
  },
});

type Mode = 'dry-run' | 'check' | 'write' | 'out-dir';

type Tally = Record<FileResult['status'], number>;

const STATUSES = ['migrated', 'unchanged', 'error'] as const;

function countResults(results: readonly FileResult[]): Tally {
  const tally = { migrated: 0, unchanged: 0, error: 0 };
  for (const r of results) tally[r.status]++;
  return tally;
}

function exitCode(tally: Tally, mode: Mode): ExitCode {
  if (tally.error) return 2;
  if (mode === 'check' && tally.migrated) return 1;
  return 0;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

// Called for every file of a run: one pass over the items, no intermediate arrays.
function describeTypes(r: FileResult): string {
  let configs = 0;
  let outputs = 0;
  let expected = 0;
  let types = '';
  for (const i of r.items) {
    if (i.kind === 'output') {
      if (i.type === 'SPLITTER') outputs++;
      else expected++;
    } else {
      configs++;
      const t = i.type ?? 'type not needed';
      if (types === '') types = t;
      else if (!`, ${types}, `.includes(`, ${t}, `)) types += `, ${t}`;
    }
  }
  let parts = types;
  if (configs > 1) parts += `${parts ? '; ' : ''}${configs} configs`;
  if (outputs) parts += `${parts ? '; ' : ''}${outputs} splitter output${outputs > 1 ? 's' : ''}`;
  if (expected) parts += `${parts ? '; ' : ''}${expected} expected output${expected > 1 ? 's' : ''}`;
  return parts ? ` (${parts})` : '';
}

function where(x: { pointer: string; line?: number }): string {
  return `${x.line !== undefined ? `line ${x.line} ` : ''}at ${x.pointer || '/'}`;
}

/** Human text for one file: errors to stderr, everything else to stdout. */
function printResult(r: FileResult, mode: Mode, print: (s: string) => void): void {
  if (r.status === 'error') {
    for (const e of r.errors) err(`evalkit: ${formatLocation(e.location)}: ${e.message}${e.hint ? `\n  hint: ${e.hint}` : ''}`);
    return;
  }
  const lines: string[] = [];
  if (r.status === 'migrated') {
    const verb = mode === 'dry-run' || mode === 'check' ? 'would migrate' : 'migrated';
    lines.push(`${r.path}: ${verb} ${r.from ?? '?'} -> ${r.to}${describeTypes(r)}${mode === 'out-dir' && r.written ? ` -> ${r.written}` : ''}`);
    if (mode === 'dry-run' || mode === 'check') {
      lines.push('  patch: [', ...r.patch.map((op, i) => `    ${JSON.stringify(op)}${i < r.patch.length - 1 ? ',' : ''}`), '  ]');
    }
  } else if (r.warnings.length || r.dropped.length) lines.push(`${r.path}: unchanged${describeTypes(r)}`);
  for (const d of r.dropped) lines.push(`  dropped ${where(d)}: ${JSON.stringify(d.value)}`);
  for (const w of r.warnings) lines.push(`  warning ${where(w)}: ${w.message}`);
  if (lines.length) print(lines.join('\n'));
}

function report(results: readonly FileResult[], argv: MigrateArgs, mode: Mode, print: (s: string) => void, json = argv.format === 'json', tally = countResults(results)): void {
  if (json) {
    const files = results.map((r) => ({ ...r, patch: mode === 'write' || mode === 'out-dir' || r.status !== 'error' ? r.patch : [] }));
    // stdin to stdout: the report goes to stderr, sorted as --format json is everywhere.
    if (print === err) err(stableStringify({ mode, to: argv.to, tally, files }));
    else outJson({ mode, to: argv.to, tally, files });
    return;
  }
  if (print === err) for (const r of results) printResult(r, 'write', err);
  const suffix =
    mode === 'dry-run' ? ' (dry run: nothing written; --write rewrites in place, --out-dir DIR writes copies)' : mode === 'check' && tally.migrated ? ` (check: ${tally.migrated} need${tally.migrated === 1 ? 's' : ''} migration)` : '';
  if (!isQuiet()) print(`${tally.migrated} migrated, ${tally.unchanged} unchanged, ${tally.error} error${tally.error === 1 ? '' : 's'}${suffix}`);
}

import { setMaxListeners } from 'node:events';
/**
 * `evalkit dataset <command>`: evaluation set data. Subcommands: upload, download, harvest.
 *
 * A group's subcommands cannot reach main's exit-code callback, so a subcommand that ends with
 * a non-zero code throws an EvalkitError carrying it: main prints its one-line summary (what
 * went wrong and what to do) to stderr and returns the code.
 */
import { createInterface } from 'node:readline/promises';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import type { FetchLike } from '../api/index.js';
import type { ExistingItem, RowChange, RowFinding, Tally, UploadProgress, UploadResult } from '../dataset/index.js';
import { EvalkitError, InputError, UsageError, type ExitCode } from '../util/errors.js';
import { fmtDuration, progressReporter, type ProgressState } from './progress.js';
import { defineCommand, listSubcommands, type EvalkitCommand } from './command.js';
import { err, formatOption, out, outJson } from './io.js';
import { settingsSources } from './settings.js';
import { isQuiet } from './style.js';

interface UploadArgs {
  csv?: string;
  evaluationSet?: string;
  createSet?: string;
  processor?: string;
  description?: string;
  config?: string;
  version?: string;
  v?: string;
  type?: 'EXTRACT' | 'CLASSIFY' | 'SPLITTER';
  map?: string;
  delimiter?: string;
  currency?: string;
  decimalComma?: boolean;
  dateOrder?: 'dmy' | 'mdy';
  strict: boolean;
  skipInvalid: boolean;
  allowOutside: boolean;
  dryRun: boolean;
  prune: boolean;
  yes: boolean;
  overwrite: boolean;
  pruneFields: boolean;
  allowClear: boolean;
  journal?: string;
  source?: string;
  writeBack: boolean;
  allowLossy: boolean;
  concurrency: number;
  chunkSize: number;
  maxRps?: number;
  progress?: boolean;
  format: 'text' | 'json';
}

/** Carries a subcommand's exit code through main (see the file comment). */
class ExitWith extends EvalkitError {
  constructor(code: ExitCode, message: string, hint?: string) {
    super(message, { exitCode: code, hint });
  }
}

function sub<A>(cmd: EvalkitCommand<A>): CommandModule<object, A> {
  return {
    command: cmd.command as string,
    describe: cmd.describe,
    builder: cmd.builder as unknown as CommandModule<object, A>['builder'],
    handler: async (argv: ArgumentsCamelCase<A>) => {
      await cmd.run(argv);
    },
  };
}

const upload = defineCommand<UploadArgs>({
  // Optional for yargs so that evalkit.config.json's "csv" can name it (checked in runUpload).
  command: 'upload [csv]',
  describe: 'create or update evaluation set items from a CSV: typed, validated before any write, resumable',
  builder: (y) =>
    y
      .version(false)
      .positional('csv', { type: 'string', describe: 'the CSV: one row per document; file paths are relative to it (default: the config file\'s "csv")' })
      .option('evaluation-set', { alias: 'e', type: 'string', describe: 'target: an existing evaluation set id' })
      .option('create-set', { type: 'string', describe: 'target: the set of this name under --processor (created if the processor has none)' })
      .option('processor', { type: 'string', describe: 'with --create-set: the processor id' })
      .option('description', { type: 'string', describe: 'with --create-set: the new set\'s description' })
      .option('config', { type: 'string', describe: 'processor config file (any layout: 2024-11-14, 2025-04-21 or 2026-02-09) instead of the service\'s; enough for an offline --dry-run' })
      .option('version', { type: 'string', describe: 'processor version whose config checks the rows: draft (default, as the service checks items), latest, 1.0, a version id (exv_...; dpv_... on 2025-04-21)' })
      // -v is evalkit's own version at the top level; here it would be ambiguous, so it is refused with a pointer.
      .option('v', { type: 'string', hidden: true })
      .option('type', { choices: ['EXTRACT', 'CLASSIFY', 'SPLITTER'] as const, describe: 'processor type, when the config does not say' })
      .option('map', { type: 'string', describe: 'JSON file renaming columns: {"CSV header": "field.path" | "file" | "class" | null (ignore)}' })
      .option('delimiter', { type: 'string', describe: 'cell delimiter (default: detected among comma, semicolon, tab)' })
      .option('currency', { type: 'string', describe: 'ISO 4217 code for amounts that name no currency (and for a bare $ or ¥)' })
      .option('decimal-comma', { type: 'boolean', describe: '"," is the decimal mark in numbers and amounts (1.234,56); --no-decimal-comma: "." is (1,234.56). Neither: a lone 1,234 or 1.234 is refused as ambiguous' })
      .option('date-order', { choices: ['dmy', 'mdy'] as const, describe: 'order of day and month in ambiguous dates such as 03/04/2024' })
      .option('strict', { type: 'boolean', default: false, describe: 'every configured field must have a value column' })
      .option('skip-invalid', { type: 'boolean', default: false, describe: 'upload the valid rows even when some are invalid (exit 1; rejects file still written)' })
      .option('allow-outside', { type: 'boolean', default: false, describe: 'allow file paths that leave the CSV\'s folder' })
      .option('dry-run', { type: 'boolean', default: false, describe: 'validate and print the plan (create / update / unchanged / delete) without writing' })
      .option('prune', { type: 'boolean', default: false, describe: 'delete the set\'s items that are not in the CSV (asks on a terminal)' })
      .option('yes', { alias: 'y', type: 'boolean', default: false, describe: 'with --prune: delete without asking' })
      .option('overwrite', { type: 'boolean', default: false, describe: 'the CSV\'s value wins over labels changed on the service since the last sync, conflicts and items with no record of their last sync' })
      .option('prune-fields', { type: 'boolean', default: false, describe: 'remove fields that no column of the CSV names (default: the service\'s values stay)' })
      .option('allow-clear', { type: 'boolean', default: false, describe: 'let the sync clear more than 3 labels (a value becoming empty)' })
      .option('journal', { type: 'string', describe: 'journal file (default <csv>.journal.ndjson next to the CSV)' })
      .option('source', { type: 'string', describe: 'with an errors file (report --export-errors): the dataset CSV the corrections are also written into (default: the config file\'s "csv")' })
      .option('write-back', { type: 'boolean', default: true, describe: 'with an errors file: write the corrections into the dataset CSV too (--no-write-back: the set only)' })
      .option('allow-lossy', { type: 'boolean', default: false, describe: 'with an errors file: drop what the API version in effect cannot hold (a class\'s confidence other than 1 under 2026-02-09), listing each value, instead of refusing' })
      .option('concurrency', { type: 'number', default: 8, describe: 'requests in flight at once' })
      .option('chunk-size', { type: 'number', default: 100, describe: 'items per create call (1 to 1000; at most 100 with API 2026-02-09)' })
      .option('max-rps', { type: 'number', describe: 'send at most this many requests per second (meet a known rate limit without 429 pauses)' })
      .option('progress', { type: 'boolean', describe: 'progress on stderr (default: a bar on a terminal, a line every 5 s otherwise; --no-progress: none)' })
      .option('format', formatOption)
      .conflicts('evaluation-set', 'create-set')
      .example('$0 dataset upload data.csv --evaluation-set ev_123', 'sync the set with the CSV (create new rows, update edited ones)')
      .example('$0 dataset upload data.csv --create-set "invoices v1" --processor ex_123', 'into a new set of that name')
      .example('$0 dataset upload data.csv -e ev_123 --dry-run', 'validate and show the plan, write nothing')
      .example('$0 dataset upload data.csv --config invoice.json --create-set x --processor ex_1 --dry-run', 'offline check against a config file')
      .example('$0 dataset upload data.csv -e ev_123 --prune --yes --format json', 'also delete items no longer in the CSV; machine-readable tally')
      .example('$0 dataset upload data.csv -e ev_123 --currency EUR --decimal-comma --date-order dmy', 'European spreadsheets')
      .example('$0 dataset upload errors.csv -e ev_123 --source data.csv', 'corrections from report --export-errors: into the set and into data.csv') as unknown as Argv<UploadArgs>,
  run: async (argv) => {
    const code = await runUpload(argv);
    return code;
  },
});

async function readMap(file: string): Promise<Record<string, string | null>> {
  const { promises: fsp } = await import('node:fs');
  const { parseJson } = await import('../util/json.js');
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read the column map (${(e as NodeJS.ErrnoException).code ?? String(e)})`, { location: { file }, hint: 'check the --map path' });
  }
  const value = parseJson(text, file);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError('the column map must be a JSON object {"CSV header": "field.path"}', { location: { file, pointer: '' } });
  }
  for (const [k, v] of Object.entries(value)) {
    if (v !== null && typeof v !== 'string') {
      throw new InputError(`the target of "${k}" must be a string (a field path or file, fileId, class, splits, expectedOutput) or null`, { location: { file, pointer: `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}` } });
    }
  }
  return value as Record<string, string | null>;
}

/** The upload's phases as the shared progress reporter shows them: rate and ETA while writing. */
function progressOf(p: UploadProgress): ProgressState {
  if (p.phase === 'write') {
    return { label: 'upload', value: p.done, total: p.total ?? p.done, unit: 'items', detail: `${p.created} created, ${p.updated} updated, ${p.deleted} deleted, ${p.failed} failed, ${p.filesUploaded} files uploaded` };
  }
  return p.phase === 'validate' ? { label: 'validate', value: p.done, total: 0, unit: 'rows', detail: '' } : { label: 'list', value: p.done, total: 0, unit: 'items', detail: 'existing items' };
}

async function confirmPrune(orphans: readonly ExistingItem[], setId: string | undefined): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const shown = orphans.slice(0, 5).map((o) => o.id).join(', ') + (orphans.length > 5 ? `, ... (${orphans.length - 5} more)` : '');
    const answer = await rl.question(`Delete ${orphans.length} item${orphans.length === 1 ? '' : 's'} of ${setId ?? 'the set'} that the CSV does not hold (${shown})? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

function tallyLine(t: Tally): string {
  const sync = `${t.kept ? `, ${t.kept} kept (changed on the service)` : ''}${t.conflicts ? `, ${t.conflicts} conflict${t.conflicts === 1 ? '' : 's'}` : ''}${t.cleared ? `, ${t.cleared} label${t.cleared === 1 ? '' : 's'} cleared` : ''}`;
  return `${t.created} created, ${t.updated} updated, ${t.unchanged} unchanged${sync}, ${t.deleted} deleted, ${t.failed} failed in ${fmtDuration(t.elapsedMs)} (${t.itemsPerSecond} items/s)`;
}

/** A typed value as a reviewer reads it: an amount with its currency, empty as (empty), else JSON. */
export function showValue(v: unknown): string {
  if (v === null || v === undefined) return '(empty)';
  if (typeof v === 'object' && !Array.isArray(v)) {
    const keys = Object.keys(v);
    const o = v as Record<string, unknown>;
    if (keys.length === 2 && keys.includes('amount') && keys.includes('iso_4217_currency_code') && (typeof o.amount === 'number' || o.amount === null)) {
      return o.amount === null && o.iso_4217_currency_code === null ? '(empty)' : `${o.amount === null ? '?' : String(o.amount)} ${o.iso_4217_currency_code === null ? '(no currency)' : String(o.iso_4217_currency_code)}`;
    }
  }
  return JSON.stringify(v);
}

/** The CSV's side of a label: the cell as typed and what it became, or the value alone. */
function typed(value: unknown, cell?: string): string {
  const shown = showValue(value);
  if (cell === undefined || cell.trim() === '' || cell === shown || JSON.stringify(cell) === shown) return shown;
  return `${JSON.stringify(cell)} typed as ${shown}`;
}

/** One line per row change: `update line 7 (evi_1): total: 1250 EUR -> "CHF 1'250.00" typed as 1250 CHF`. */
export function changeLine(c: RowChange): string {
  const where = `line ${c.line}${c.item ? ` (${c.item})` : ''}`;
  if (c.action === 'create') return `  create ${where}: ${(c.values ?? []).map((v) => `${v.label} ${typed(v.value, v.cell)}`).join(', ')}`;
  const parts = (c.labels ?? []).map((l) => {
    const last = l.lastSynced !== undefined ? `, the last sync ${showValue(l.lastSynced)}` : '';
    switch (l.decision) {
      case 'update':
        return `${l.label}: ${showValue(l.service)} -> ${typed(l.csv, l.cell)}${l.overwrite ? ' (--overwrite)' : ''}`;
      case 'clear':
        return `${l.label}: ${showValue(l.service)} -> cleared${l.overwrite ? ' (--overwrite)' : ''}`;
      case 'kept':
        return `${l.label}: changed on the service since the last sync, kept: ${showValue(l.service)} (the CSV ${typed(l.csv, l.cell)}; --overwrite sends the CSV's)`;
      case 'conflict':
        return `${l.label}: conflict: the CSV says ${typed(l.csv, l.cell)}, the service ${showValue(l.service)}${last}`;
      default:
        return `${l.label}: no record of the last sync: the CSV says ${typed(l.csv, l.cell)}, the service ${showValue(l.service)}`;
    }
  });
  return `  ${c.action} ${where}: ${parts.join('; ')}`;
}

/** Row changes of one kind, the first 20 (the JSON has them all). */
function renderChanges(changes: readonly RowChange[], action: RowChange['action'], verb: string): void {
  const rows = changes.filter((c) => c.action === action);
  for (const c of rows.slice(0, 20)) out(changeLine(c));
  if (rows.length > 20) out(`  ... and ${rows.length - 20} more to ${verb} (--format json lists every row)`);
}

function render(r: UploadResult, csv: string, formatFinding: (file: string, f: RowFinding) => string): void {
  const errors = r.findings.filter((f) => f.severity === 'error');
  const warnings = r.findings.filter((f) => f.severity === 'warning');
  for (const f of errors) out(formatFinding(csv, f));
  const shownWarnings = warnings.slice(0, 20);
  for (const f of shownWarnings) out(formatFinding(csv, f));
  if (warnings.length > shownWarnings.length) out(`... and ${warnings.length - shownWarnings.length} more warnings (--format json lists them all)`);
  if (r.rejectsFile) out(`rejected rows written to ${r.rejectsFile}`);
  if (r.status === 'invalid') return;
  const target = r.set?.id ? `set ${r.set.id}${r.set.name ? ` "${r.set.name}"` : ''}` : r.set?.name ? `new set "${r.set.name}"` : 'the set';
  const changes = r.plan?.changes ?? [];
  if (r.plan && r.dryRun && (r.status === 'planned' || r.status === 'refused')) {
    const p = r.plan;
    const sync = `${p.kept ? `, ${p.kept} kept` : ''}${p.conflict ? `, ${p.conflict} conflict${p.conflict === 1 ? '' : 's'}` : ''}`;
    out(`plan for ${target}: ${p.create} create, ${p.update} update, ${p.unchanged} unchanged${sync}, ${p.delete} delete${p.cleared ? `; ${p.cleared} label${p.cleared === 1 ? '' : 's'} cleared` : ''}${p.keep ? ` (${p.keep} items not in the CSV kept; --prune deletes them)` : ''}`);
    if (p.offline) out('  offline (no EVALKIT_BASE_URL): the set\'s items were not read, so every row counts as a create');
    renderChanges(changes, 'create', 'create');
    renderChanges(changes, 'update', 'update');
    renderChanges(changes, 'kept', 'keep');
    renderChanges(changes, 'conflict', 'refuse');
    const rows = (p.rows ?? []).filter((x) => x.action === 'skip');
    for (const x of rows.slice(0, 20)) out(`  unchanged line ${x.line}${x.item ? ` (${x.item})` : ''}`);
    if (rows.length > 20) out(`  ... and ${rows.length - 20} more to leave unchanged (--format json lists every row)`);
    for (const id of (p.deletes ?? []).slice(0, 20)) out(`  delete ${id}`);
    if ((p.deletes?.length ?? 0) > 20) out(`  ... and ${p.deletes!.length - 20} more to delete`);
    if (r.writeBack) {
      out(`  write back: ${writeBackText(r.writeBack)}`);
      for (const d of r.writeBack.dropped ?? []) out(`  ${droppedText(r.writeBack.csv, d)}`);
    }
    out('dry run: nothing was written');
    return;
  }
  if (r.status === 'refused') {
    renderChanges(changes, 'update', 'update');
    return;
  }
  renderChanges(changes, 'kept', 'keep');
  renderChanges(changes, 'conflict', 'refuse');
  for (const f of r.failures.slice(0, 50)) out(`failed ${f.operation}${f.line !== undefined ? ` line ${f.line}` : ''}${f.item ? ` ${f.item}` : ''}: ${f.error}`);
  if (r.failures.length > 50) out(`... and ${r.failures.length - 50} more failures (--format json lists them all)`);
  // --quiet: no tally on success (failures, conflicts and kept labels above still print).
  if (r.tally && !(isQuiet() && r.status === 'done' && r.tally.failed === 0 && r.tally.conflicts === 0)) {
    const t = r.tally;
    const files = t.filesUploaded || t.filesReused ? `; ${t.filesUploaded} files uploaded${t.filesReused ? `, ${t.filesReused} found already uploaded` : ''}` : '';
    out(`${target}${r.set?.created ? ' (created)' : ''}: ${tallyLine(t)}${files}`);
  }
  // The set just made is not in the dataset section yet: eval run and the next upload need it there.
  const section = settingsSources().dataset;
  if (r.set?.created && r.set.id && section && !section.evaluationSet && !isQuiet()) {
    out(`next: add "evaluationSet": "${r.set.id}" to dataset "${section.name}" in ${section.file} (eval run, dataset download and the next upload read it)`);
  }
  if (r.writeBack) {
    out(`write back: ${writeBackText(r.writeBack)}`);
    for (const d of r.writeBack.dropped ?? []) out(droppedText(r.writeBack.csv, d));
  }
}

/** One value a write-back drops (--allow-lossy), as migrate lists them. */
function droppedText(csv: string, d: { line: number; item: string; pointer: string; value: unknown }): string {
  return `dropped: ${csv}:${d.line} (item ${d.item}) ${d.pointer} ${JSON.stringify(d.value)} (no place for it in the 2026-02-09 expected output)`;
}

function writeBackText(w: NonNullable<UploadResult['writeBack']>): string {
  if (w.rows === 0) return `${w.csv} already holds the corrections`;
  return `${w.cells} cell${w.cells === 1 ? '' : 's'} in ${w.rows} row${w.rows === 1 ? '' : 's'} of ${w.csv}${w.written ? ' written' : ''}`;
}

async function runUpload(argv: ArgumentsCamelCase<UploadArgs>): Promise<ExitCode> {
  const dataset = await import('../dataset/index.js');
  const expected = await import('../expected/index.js');
  if (argv.csv === undefined || argv.csv.trim() === '') throw new UsageError('name the CSV to upload', { hint: 'evalkit dataset upload data.csv, or set "csv" in evalkit.config.json' });
  const csv = argv.csv;
  if (argv.v !== undefined) throw new UsageError('-v is not an option of dataset upload', { hint: 'the processor version is --version V (draft, latest, 1.0 or a version id); `evalkit --version` prints evalkit\'s own version' });
  if (argv.version !== undefined && argv.version.trim() === '') throw new UsageError('--version needs a value', { hint: 'pass --version draft, latest, a published number such as 1.0, or a version id' });
  if (argv.version !== undefined && argv.config !== undefined) throw new UsageError('--version picks the config on the service; --config replaces it', { hint: 'drop one of --version and --config' });
  // Offline validation (a dry run with --config) needs no set: every row is then a create.
  if (!argv.evaluationSet && !argv.createSet && !(argv.dryRun && argv.config !== undefined)) throw new UsageError('name the target set', { hint: 'pass --evaluation-set ID, or --create-set NAME --processor ID (a --dry-run with --config needs neither)' });
  if (argv.createSet !== undefined && !argv.processor) throw new UsageError('--create-set needs --processor', { hint: 'pass the id of the processor the new set evaluates' });
  if (argv.processor !== undefined && argv.createSet === undefined) throw new UsageError('--processor goes with --create-set', { hint: 'an existing set (--evaluation-set) already names its processor' });
  if (argv.yes && !argv.prune) throw new UsageError('--yes only confirms --prune', { hint: 'add --prune to delete items no longer in the CSV, or drop --yes' });
  if (!Number.isInteger(argv.concurrency) || argv.concurrency < 1 || argv.concurrency > 256) throw new UsageError('--concurrency must be an integer from 1 to 256');
  if (!Number.isInteger(argv.chunkSize) || argv.chunkSize < 1 || argv.chunkSize > 1000) throw new UsageError('--chunk-size must be an integer from 1 to 1000');
  if (argv.maxRps !== undefined && !(argv.maxRps > 0)) throw new UsageError('--max-rps must be a positive number');
  let currency: string | undefined;
  if (argv.currency !== undefined) {
    currency = argv.currency.trim().toUpperCase();
    if (!expected.isCurrencyCode(currency)) throw new UsageError(`--currency "${argv.currency}" is not an ISO 4217 code`, { hint: 'use a code such as USD, EUR or GBP' });
  }
  const delimiter = argv.delimiter !== undefined ? dataset.parseDelimiterOption(argv.delimiter) : undefined;
  const map = argv.map !== undefined ? await readMap(argv.map) : undefined;
  const config = argv.config !== undefined ? await dataset.readDatasetConfig(argv.config, argv.type) : undefined;
  const hasService = Boolean(process.env.EVALKIT_BASE_URL?.trim());
  const { clientFromEnv } = await import('../api/index.js');
  // Without the service only a dry run can go on (uploadDataset says so otherwise).
  const connect = hasService ? (fetch: FetchLike) => clientFromEnv({ fetch }) : undefined;

  const showProgress = argv.progress ?? true;
  const progress = progressReporter({ enabled: showProgress && !argv.dryRun });
  const ac = new AbortController();
  // Every request in flight listens on it (and stops listening when it ends): many at once are not a leak.
  setMaxListeners(0, ac.signal);
  const onSigint = (): void => {
    err('evalkit: stopping after the requests in flight (Ctrl-C again to quit at once); re-run the same command to finish');
    ac.abort(new Error('interrupted'));
    process.removeListener('SIGINT', onSigint);
  };
  process.on('SIGINT', onSigint);
  let result: UploadResult;
  try {
    result = await dataset.uploadDataset({
      csv,
      // With the service, the client's API version decides the expected-output form; offline, the one in effect does.
      offlineApiVersion: hasService ? undefined : process.env.EVALKIT_API_VERSION?.trim() || undefined,
      delimiter,
      map,
      coerce: { currency, decimalComma: argv.decimalComma, dateOrder: argv.dateOrder },
      strict: argv.strict,
      skipInvalid: argv.skipInvalid,
      allowOutside: argv.allowOutside,
      evaluationSetId: argv.evaluationSet,
      createSet: argv.createSet !== undefined ? { name: argv.createSet, processorId: argv.processor!, description: argv.description } : undefined,
      config,
      processorVersion: argv.version,
      connect,
      maxRps: argv.maxRps,
      dryRun: argv.dryRun,
      prune: argv.prune,
      overwrite: argv.overwrite,
      pruneFields: argv.pruneFields,
      allowClear: argv.allowClear,
      confirmPrune: async (orphans) => {
        if (argv.yes) return true;
        if (!process.stdin.isTTY || !process.stderr.isTTY) {
          throw new UsageError(`--prune would delete ${orphans.length} item${orphans.length === 1 ? '' : 's'} that the CSV does not hold; nothing was written`, { hint: 'add --yes to confirm without a terminal, or check the plan with --dry-run --prune' });
        }
        progress.stop();
        return confirmPrune(orphans, argv.evaluationSet);
      },
      journal: argv.journal,
      source: argv.writeBack ? argv.source : false,
      allowLossy: argv.allowLossy,
      concurrency: argv.concurrency,
      chunkSize: argv.chunkSize,
      onProgress: (p) => progress.update(progressOf(p)),
      onNotice: (m) => (isQuiet() ? undefined : err(`evalkit: ${m}`)),
      signal: ac.signal,
    });
  } finally {
    progress.stop();
    process.removeListener('SIGINT', onSigint);
  }

  if (argv.format === 'json') outJson(result);
  else render(result, csv, dataset.formatFinding);
  return exitOf(result);
}

/** The exit code of an upload (a harvest's too); non-zero ones are thrown with what to do. */
function exitOf(result: UploadResult): ExitCode {
  const errors = result.findings.filter((f) => f.severity === 'error').length;
  switch (result.status) {
    case 'invalid': {
      const where = result.rejectsFile ? ` and ${result.rejectsFile}` : '';
      if (result.rows.invalid === 0) throw new ExitWith(2, `the CSV's columns do not fit the processor config (${errors} problem${errors === 1 ? '' : 's'}); nothing was written`, 'fix the header (or pass --map FILE) as the findings above say');
      throw new ExitWith(2, `${result.rows.invalid} of ${result.rows.total} rows are invalid (${errors} finding${errors === 1 ? '' : 's'}); nothing was written`,
        result.rows.valid === 0 ? `fix the rows (see the findings above${where}): none is valid` : `fix the rows (see the findings above${where}), or pass --skip-invalid to upload the ${result.rows.valid} valid row${result.rows.valid === 1 ? '' : 's'}`);
    }
    case 'cancelled':
      throw new ExitWith(2, 'cancelled: nothing was deleted or written');
    case 'interrupted':
      throw new ExitWith(1, 'interrupted before the upload finished', 're-run the same command to finish; it creates nothing twice');
    case 'refused': {
      const n = result.refusal?.cleared ?? 0;
      throw new ExitWith(2, `the sync would clear ${n} labels (more than ${result.refusal?.limit ?? 3} at once); nothing was written`,
        'check the cleared labels above (an empty cell clears a label; a missing column does not): fill the cells, or pass --allow-clear to clear them');
    }
    default:
      break;
  }
  const conflicts = result.tally?.conflicts ?? result.plan?.conflict ?? 0;
  if (conflicts > 0) {
    throw new ExitWith(1, `${conflicts} item${conflicts === 1 ? ' was' : 's were'} not ${result.dryRun ? 'to be ' : ''}written: a label changed in the CSV and on the service, or no record of its last sync (see above)`,
      'make the CSV say what the item should hold (e.g. the service\'s value), or pass --overwrite to send the CSV\'s values');
  }
  if (result.tally && result.tally.failed > 0) {
    // "Re-run to finish" only for what a re-run can finish: the service's refusals fail again.
    const refused = result.failures.filter((f) => f.permanent).length;
    const n = result.tally.failed;
    const failed = `${n} operation${n === 1 ? '' : 's'} failed`;
    if (refused === 0) throw new ExitWith(1, failed, 're-run the same command to finish; it creates nothing twice');
    if (refused >= result.failures.length) throw new ExitWith(1, `${failed}: the service refused ${refused === 1 ? 'it' : 'them'}`, 'a re-run sends the same and fails the same way: fix what the errors above name, then run the upload again');
    throw new ExitWith(1, `${failed}, ${refused} refused by the service`, `fix what the refusals above name; re-running the same command finishes the other ${result.failures.length - refused} and creates nothing twice`);
  }
  if (result.rows.invalid > 0) {
    throw new ExitWith(1, `${result.rows.invalid} invalid row${result.rows.invalid === 1 ? ' was' : 's were'} left out${result.rejectsFile ? ` (see ${result.rejectsFile})` : ''}`, 'fix them and run the upload again');
  }
  return 0;
}

interface DownloadArgs {
  evaluationSet: string;
  out?: string;
  into?: string;
  files?: string;
  dryRun: boolean;
  allowLossy: boolean;
  currency?: string;
  decimalComma?: boolean;
  dateOrder?: 'dmy' | 'mdy';
  concurrency: number;
  format: 'text' | 'json';
}

const download = defineCommand<DownloadArgs>({
  command: 'download',
  describe: 'an evaluation set as a CSV (and its files) that `dataset upload` reads back to the same items',
  builder: (y) =>
    y
      .option('evaluation-set', { alias: 'e', type: 'string', demandOption: true, describe: 'the set to download' })
      .option('out', { alias: 'o', type: 'string', describe: 'the CSV to write: fileId (or file), expectedOutput (JSON), # item' })
      .option('into', { type: 'string', describe: 'instead of --out: an existing dataset CSV to bring the set\'s labels into (only the cells that differ change)' })
      .option('files', { type: 'string', describe: 'also download every file into this folder; the CSV then names them by path (file column)' })
      .option('dry-run', { type: 'boolean', default: false, describe: 'with --into: say what would change, write nothing' })
      .option('allow-lossy', { type: 'boolean', default: false, describe: 'with --into: rewrite rows whose cells hold what the API version in effect cannot (a class\'s confidence other than 1 under 2026-02-09), listing each value dropped, instead of refusing' })
      .option('currency', { type: 'string', describe: 'with --into: as dataset upload reads the CSV' })
      .option('decimal-comma', { type: 'boolean', describe: 'with --into: as dataset upload reads the CSV' })
      .option('date-order', { choices: ['dmy', 'mdy'] as const, describe: 'with --into: as dataset upload reads the CSV' })
      .option('concurrency', { type: 'number', default: 8, describe: 'downloads in flight at once' })
      .option('format', formatOption)
      .example('$0 dataset download -e ev_123 --out data.csv', 'rows name the files by fileId')
      .example('$0 dataset download -e ev_123 --out data/data.csv --files data/files', 'with the files, to upload anywhere: evalkit dataset upload data/data.csv --create-set copy --processor ex_456')
      .example('$0 dataset download -e ev_123 --into data.csv', "labels corrected on the service brought into your own CSV") as unknown as Argv<DownloadArgs>,
  run: async (a) => {
    if (!Number.isInteger(a.concurrency) || a.concurrency < 1 || a.concurrency > 256) throw new UsageError('--concurrency must be an integer from 1 to 256');
    if (a.out !== undefined && a.into !== undefined) throw new UsageError('--out writes a new CSV, --into updates an existing one: pass one of them');
    if (a.into !== undefined) return runDownloadInto(a, a.into);
    if (a.out === undefined) throw new UsageError('name the CSV: --out FILE (a new CSV of the set) or --into FILE (bring the set\'s labels into your dataset CSV)');
    if (a.dryRun) throw new UsageError('--dry-run goes with --into', { hint: '--out writes a new file and changes nothing else' });
    if (a.allowLossy) throw new UsageError('--allow-lossy goes with --into', { hint: '--out writes the set as it is: nothing is dropped' });
    if (a.out.trim() === '') throw new UsageError('--out must not be empty');
    const { downloadDataset } = await import('../dataset/index.js');
    const { clientFromEnv } = await import('../api/index.js');
    const r = await downloadDataset(clientFromEnv(), { evaluationSetId: a.evaluationSet, out: a.out, filesDir: a.files, concurrency: a.concurrency });
    if (r.outside) err(`evalkit: ${a.files} is outside the CSV's folder: upload it with --allow-outside`);
    if (a.format === 'json') outJson(r);
    else if (!isQuiet()) out(`set ${r.set.id} "${r.set.name}": ${r.items} item${r.items === 1 ? '' : 's'} -> ${r.csv}${r.files ? `; ${r.files.written} file${r.files.written === 1 ? '' : 's'} -> ${r.files.dir}` : ''}`);
    return 0;
  },
});

async function runDownloadInto(a: ArgumentsCamelCase<DownloadArgs>, into: string): Promise<ExitCode> {
  if (into.trim() === '') throw new UsageError('--into must not be empty');
  if (a.files !== undefined) throw new UsageError('--files goes with --out', { hint: 'with --into the CSV keeps naming its files as it does' });
  const expected = await import('../expected/index.js');
  let currency: string | undefined;
  if (a.currency !== undefined) {
    currency = a.currency.trim().toUpperCase();
    if (!expected.isCurrencyCode(currency)) throw new UsageError(`--currency "${a.currency}" is not an ISO 4217 code`, { hint: 'use a code such as USD, EUR or GBP' });
  }
  const { downloadInto } = await import('../dataset/index.js');
  const { clientFromEnv } = await import('../api/index.js');
  const r = await downloadInto(clientFromEnv(), { evaluationSetId: a.evaluationSet, into, dryRun: a.dryRun, allowLossy: a.allowLossy, coerce: { currency, decimalComma: a.decimalComma, dateOrder: a.dateOrder } });
  if (r.missing.length) err(`evalkit: ${r.missing.length} item${r.missing.length === 1 ? '' : 's'} of the set ha${r.missing.length === 1 ? 's' : 've'} no row in ${into}, which has no fileId column to add ${r.missing.length === 1 ? 'it' : 'them'} (${r.missing.slice(0, 5).join(', ')}${r.missing.length > 5 ? ', ...' : ''}): download them with --out`);
  if (a.format === 'json') outJson(r);
  else {
    const verb = r.written ? 'written' : a.dryRun ? 'would change' : 'unchanged';
    const changes = r.rows === 0 && r.appended === 0 ? `nothing of the set's to bring in` : `${r.cells} cell${r.cells === 1 ? '' : 's'} in ${r.rows} row${r.rows === 1 ? '' : 's'}${r.appended ? `, ${r.appended} row${r.appended === 1 ? '' : 's'} appended` : ''} (${verb})`;
    const pending = r.pending ? `; ${r.pending} row${r.pending === 1 ? ' keeps its edit' : 's keep their edits'} not yet uploaded (\`dataset upload\` sends ${r.pending === 1 ? 'it' : 'them'})` : '';
    out(`set ${r.set.id} "${r.set.name}" -> ${into}: ${changes}; ${r.unchanged} row${r.unchanged === 1 ? '' : 's'} already agree${r.unchanged === 1 ? 's' : ''}${pending}`);
    // Cell by cell (at most 20 rows; --format json lists all).
    for (const c of r.changes.slice(0, 20)) out(`  line ${c.line} (${c.item}): ${c.cells.map((x) => `${x.column}: ${JSON.stringify(x.from)} -> ${JSON.stringify(x.to)}`).join(', ')}`);
    if (r.changes.length > 20) out(`  ... and ${r.changes.length - 20} more row(s) (--format json lists every one)`);
    for (const d of r.dropped) out(`${r.written ? '' : 'would be '}${droppedText(into, d)}`);
    if (a.dryRun) out('dry run: nothing was written');
  }
  return 0;
}

interface HarvestArgs {
  processor: string;
  reviewed: boolean;
  since?: string;
  evaluationSet?: string;
  createSet?: string;
  description?: string;
  out?: string;
  version?: string;
  skipInvalid: boolean;
  dryRun: boolean;
  journal?: string;
  concurrency: number;
  progress?: boolean;
  format: 'text' | 'json';
}

const harvest = defineCommand<HarvestArgs>({
  command: 'harvest',
  describe: "reviewed runs' reviewedOutput (with the reviewer's edits) as new evaluation items: validated, journaled and synced like an upload",
  builder: (y) =>
    y
      .version(false)
      .option('processor', { alias: 'p', type: 'string', demandOption: true, describe: 'the processor whose reviewed runs are harvested' })
      .option('reviewed', { type: 'boolean', default: false, describe: 'take reviewed runs (required: the only source there is today)' })
      .option('since', { type: 'string', describe: 'only runs reviewed at or after this date (2025-05-01, midnight UTC) or ISO date-time' })
      .option('evaluation-set', { alias: 'e', type: 'string', describe: "target: an existing set of the processor" })
      .option('create-set', { type: 'string', describe: "target: the processor's set of this name (created if it has none)" })
      .option('description', { type: 'string', describe: "with --create-set: the new set's description" })
      .option('out', { alias: 'o', type: 'string', describe: 'the harvest CSV kept as the record (default reviewed-<processor>.csv); journal and rejects file go beside it' })
      .option('version', { type: 'string', describe: 'processor version whose config checks the items: draft (default), latest, 1.0, a version id (exv_...; dpv_... on 2025-04-21)' })
      .option('skip-invalid', { type: 'boolean', default: false, describe: 'upload the valid rows even when some are invalid (exit 1)' })
      .option('dry-run', { type: 'boolean', default: false, describe: 'validate and print the plan; write nothing (not even the CSV)' })
      .option('journal', { type: 'string', describe: 'journal file (default <out>.journal.ndjson)' })
      .option('concurrency', { type: 'number', default: 8, describe: 'requests in flight at once' })
      .option('progress', { type: 'boolean', describe: 'progress on stderr (--no-progress: none)' })
      .option('format', formatOption)
      .conflicts('evaluation-set', 'create-set')
      .example('$0 dataset harvest --processor ex_123 --reviewed --create-set "reviewed in production"', 'every reviewed run into a set of that name')
      .example('$0 dataset harvest -p ex_123 --reviewed --since 2025-05-01 -e ev_456 --dry-run', 'what a harvest into ev_456 would add, writing nothing')
      .example('$0 dataset harvest -p ex_123 --reviewed -e ev_456 --out harvest/may.csv --format json', 'keep the record elsewhere; machine-readable result') as unknown as Argv<HarvestArgs>,
  run: async (a) => {
    if (!a.reviewed) throw new UsageError('dataset harvest takes reviewed runs: pass --reviewed', { hint: "reviewers' corrections (reviewedOutput) are what makes a run an expected output" });
    if (!a.evaluationSet && !a.createSet) throw new UsageError('name the target set', { hint: 'pass --evaluation-set ID, or --create-set NAME' });
    if (a.description !== undefined && a.createSet === undefined) throw new UsageError('--description goes with --create-set');
    if (!Number.isInteger(a.concurrency) || a.concurrency < 1 || a.concurrency > 256) throw new UsageError('--concurrency must be an integer from 1 to 256');
    const dataset = await import('../dataset/index.js');
    const { clientFromEnv } = await import('../api/index.js');
    const since = a.since !== undefined ? dataset.parseSince(a.since) : undefined;
    const csv = a.out ?? `reviewed-${a.processor.replace(/[^\w.-]/g, '_')}.csv`;
    const progress = progressReporter({ enabled: (a.progress ?? true) && !a.dryRun });
    let r: Awaited<ReturnType<typeof dataset.harvestReviewed>>;
    try {
      r = await dataset.harvestReviewed({
        processorId: a.processor,
        since,
        csv,
        evaluationSetId: a.evaluationSet,
        createSet: a.createSet !== undefined ? { name: a.createSet, description: a.description } : undefined,
        connect: (fetch) => clientFromEnv({ fetch }),
        processorVersion: a.version,
        dryRun: a.dryRun,
        skipInvalid: a.skipInvalid,
        journal: a.journal,
        concurrency: a.concurrency,
        onProgress: (p) => progress.update(progressOf(p)),
        onNotice: (m) => (isQuiet() ? undefined : err(`evalkit: ${m}`)),
      });
    } finally {
      progress.stop();
    }
    if (a.format === 'json') outJson(r);
    else {
      const window = r.since ? ` reviewed since ${r.since}` : ' reviewed';
      out(`harvest: ${r.runs.reviewed} run${r.runs.reviewed === 1 ? '' : 's'} of ${r.processorId}${window}: ${r.runs.harvested} to harvest${r.csv ? ` -> ${r.csv}` : ''}${r.skipped.length ? `, ${r.skipped.length} skipped` : ''}`);
      for (const s of r.skipped.slice(0, 20)) out(`  skipped ${s.run}: ${s.reason}`);
      if (r.skipped.length > 20) out(`  ... and ${r.skipped.length - 20} more skipped (--format json lists them all)`);
      if (r.upload) render(r.upload, r.csv ?? csv, dataset.formatFinding);
      else out('nothing to harvest');
    }
    return r.upload ? exitOf(r.upload) : 0;
  },
});

interface GroupArgs {
  command?: string;
}

export default defineCommand<GroupArgs>({
  command: 'dataset [command]',
  describe: 'evaluation set data: upload a CSV as items, download a set as a CSV, harvest reviewed runs as items',
  builder: (y) =>
    y
      .command(sub(upload))
      .command(sub(download))
      .command(sub(harvest))
      .example('$0 dataset upload data.csv --evaluation-set ev_123', 'sync a set with a CSV')
      .example('$0 dataset download -e ev_123 --out data.csv --files files', 'the set as a CSV and its files')
      .example('$0 dataset harvest -p ex_123 --reviewed -e ev_123', "reviewers' corrections as new items") as unknown as Argv<GroupArgs>,
  // yargs runs the subcommand's handler; this one runs for none (a list) or an unknown one.
  listing: [upload, download, harvest].map((c) => ({ command: c.command as string, describe: c.describe })),
  run: async (argv) => listSubcommands('dataset', argv.command, [upload, download, harvest]),
});

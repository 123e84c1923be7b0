import { setMaxListeners } from 'node:events';
/**
 * `evalkit eval run` and `evalkit eval export`: make (or fetch) an evaluation's runs and write
 * the evaluation export that `evalkit report --from` reads with no network.
 */
import { constants as fsc, promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
import type { EvalProgress, EvalResult, ExportFileFormat } from '../eval/index.js';
import { InputError, UsageError, type ExitCode } from '../util/errors.js';
import { defineCommand, listSubcommands } from './command.js';
import { allowUnknownOption, err, formatOption, out, outJson, warn } from './io.js';
import { fmtDuration, progressReporter, type ProgressState } from './progress.js';
import { isQuiet } from './style.js';
import { settingsSources } from './settings.js';

interface OutputArgs {
  out?: string;
  jsonl: boolean;
  timeout: string;
  progress?: boolean;
  format: 'text' | 'json';
  metadata?: string;
}

interface RunArgs extends OutputArgs {
  evaluationSet: string;
  version: string;
  config?: string;
  allowUnknown: boolean;
  strategy: 'auto' | 'batch' | 'per-item';
  fuzzyMatchFields: string[];
  excludeFields: string[];
  concurrency: number;
  priority?: number;
}

interface ExportArgs extends OutputArgs {
  run?: string;
  batchRun?: string;
  wait: boolean;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "90" (seconds), "90s", "15m", "1.5h", "500ms". */
export function parseDuration(text: string, flag: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  const ms = m ? Number(m[1]) * DURATION_UNITS[(m[2] ?? 's').toLowerCase()] : NaN;
  if (!(ms > 0)) throw new UsageError(`${flag} "${text}" is not a duration`, { hint: `give seconds (600) or a number with a unit: 90s, 15m, 2h` });
  return ms;
}

/** Comma-separated and repeatable: `--exclude-fields a,b --exclude-fields c`. */
function fieldList(values: readonly string[]): string[] {
  return [...new Set(values.flatMap((v) => String(v).split(',')).map((s) => s.trim()).filter((s) => s !== ''))];
}

/** Where to write, and as what; checked before any run is made, so a bad path costs nothing. */
async function outputTarget(a: OutputArgs): Promise<{ file?: string; format: ExportFileFormat }> {
  const { exportFormatFor } = await import('../eval/index.js');
  if (a.out === undefined) return { format: a.jsonl ? 'jsonl' : 'json' };
  if (a.out.trim() === '') throw new UsageError('--out must not be empty');
  const byName = exportFormatFor(a.out);
  if (a.jsonl && /\.json$/i.test(a.out)) {
    throw new UsageError(`--jsonl writes JSON Lines, but --out ${a.out} is named .json`, { hint: 'name the file .jsonl (the format follows the name), or drop --jsonl' });
  }
  await checkWritable(a.out);
  return { file: a.out, format: a.jsonl ? 'jsonl' : byName };
}

async function checkWritable(file: string): Promise<void> {
  const st = await fsp.stat(file).catch(() => undefined);
  if (st?.isDirectory()) throw new UsageError(`--out ${file} is a folder`, { hint: 'give a file name such as reports/run.json' });
  // The nearest folder that exists must be writable (the missing ones are created).
  let dir = path.dirname(path.resolve(file));
  for (;;) {
    const d = await fsp.stat(dir).catch(() => undefined);
    if (d) {
      if (!d.isDirectory()) throw new UsageError(`--out ${file}: ${dir} is not a folder`);
      break;
    }
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  try {
    await fsp.access(dir, fsc.W_OK);
  } catch {
    throw new UsageError(`--out ${file}: cannot write in ${dir}`, { hint: 'choose a folder you can write to' });
  }
}

async function readOverride(file: string): Promise<Record<string, unknown>> {
  const { parseJson, isPlainObject } = await import('../util/json.js');
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read the config override (${(e as NodeJS.ErrnoException).code ?? String(e)})`, { location: { file }, hint: 'check the --config path' });
  }
  const value = parseJson(text, file);
  if (!isPlainObject(value)) throw new InputError('the config override must be a JSON object (a config, or a processor, version or request body holding one)', { location: { file, pointer: '' } });
  return value;
}

/** `command`: which command waits (its name labels the evaluation set run's progress). */
export function progressView(p: EvalProgress, command: 'run' | 'export'): ProgressState | undefined {
  switch (p.phase) {
    case 'start':
      return { label: 'resolve', value: 0, total: 0, detail: 'reading the set, its items and the processor version' };
    case 'wait':
      if (p.strategy === 'evaluation-set-run') {
        return { label: `eval ${command}`, value: p.ended ?? 0, total: p.total, detail: `${p.batchRunId ?? ''} ${p.status ?? ''}`.trim() };
      }
      if (p.strategy === 'batch') {
        const counts = p.ended === null ? ' (the service does not report how many runs ended)' : '';
        return { label: 'batch', value: p.ended ?? 0, total: p.total, detail: `${p.batchRunId ?? ''} ${p.status ?? ''}${counts}`.trim() };
      }
      return { label: 'runs', value: p.ended ?? 0, total: p.total, detail: `${p.created} created, ${p.processed ?? 0} processed, ${p.failed ?? 0} failed` };
    case 'collect':
      return { label: 'collect', value: p.total, total: p.total, detail: `reading the runs of ${p.batchRunId ?? 'the batch'}` };
    default:
      return undefined;
  }
}

/** Ctrl-C (or SIGTERM from a CI job being cancelled) stops waiting; a second Ctrl-C quits at once. */
function interruptible(): { signal: AbortSignal; release: () => void } {
  const ac = new AbortController();
  // Every request in flight listens on it (and stops listening when it ends): many at once are not a leak.
  setMaxListeners(0, ac.signal);
  const onSignal = (): void => {
    err('evalkit: stopping (Ctrl-C again to quit at once)');
    ac.abort(new Error('interrupted'));
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { signal: ac.signal, release: () => (process.removeListener('SIGINT', onSignal), void process.removeListener('SIGTERM', onSignal)) };
}

/** A CSV the config file named (its dataset's csv, read because it slices by metadata) says so when it cannot serve. */
function fromConfig(file: string): (e: unknown) => never {
  return (e) => {
    if (!(e instanceof InputError) || !settingsSources().filled?.includes('metadata')) throw e;
    throw new InputError(`${e.message} (read for the metadata of the config file's slices, as eval run --metadata ${file})`, {
      location: e.location,
      hint: `${e.hint ? `${e.hint}; ` : ''}or remove the metadata keys from "slices" in the config file, or pass --metadata with another CSV`,
    });
  };
}

async function execute(
  command: 'run' | 'export',
  a: OutputArgs,
  work: (cb: { signal: AbortSignal; onProgress: (p: EvalProgress) => void; onNotice: (m: string) => void; onResult: (r: EvalResult) => Promise<void> }) => Promise<EvalResult>,
  defaultName: (r: EvalResult) => string,
): Promise<ExitCode> {
  const target = await outputTarget(a);
  const { writeExport, defaultExportPath, readMetadataCsv, attachMetadata } = await import('../eval/index.js');
  // Read before any run is made: a bad CSV costs nothing.
  const metadata = a.metadata !== undefined ? await readMetadataCsv(a.metadata).catch(fromConfig(a.metadata)) : undefined;
  const progress = progressReporter({ enabled: a.progress ?? true });
  const stop = interruptible();
  let result: EvalResult;
  let file = '';
  let written: Awaited<ReturnType<typeof writeExport>> | undefined;
  try {
    result = await work({
      signal: stop.signal,
      onProgress: (p) => {
        const v = progressView(p, command);
        if (v) progress.update(v);
        else progress.stop();
      },
      onNotice: (m) => err(`evalkit: note: ${m}`),
      // Written before the record of a stopped run is removed: a failed write leaves the run to take up again.
      onResult: async (r) => {
        progress.stop();
        if (metadata) {
          const m = attachMetadata(r.export.items, metadata);
          const note = `${m.matched} of ${r.export.items.length} item(s) described by ${metadata.file} (metadata ${metadata.keys.join(', ')})`;
          if (m.unmatched > 0) warn(`${note}; ${m.unmatched} match no row (by file id, content hash or file name) or rows that disagree`);
          else if (a.format !== 'json') err(`evalkit: ${note}`);
        }
        file = target.file ?? defaultExportPath(defaultName(r), target.format);
        written = await writeExport(file, r.export, target.format);
      },
    });
  } finally {
    progress.stop();
    stop.release();
  }
  if (!written) throw new Error('internal: the evaluation ended without its export written');
  render(a, result, written);
  if (result.serviceStatus === 'FAILED' || result.serviceStatus === 'CANCELLED') {
    err(`evalkit: evaluation set run ${result.batchRunId ?? ''} ended ${result.serviceStatus}; ${file} records it (service.status)`);
    err('  hint: `evalkit report` refuses to score it unless --allow-partial; look at the failed items above, then run the evaluation again');
    return 1;
  }
  if (result.counts.timedOut > 0) {
    err(`evalkit: ${result.counts.timedOut} of ${result.counts.items} items had not finished when --timeout passed; they are in ${file} as failed (failureReason TIMEOUT)`);
    err('  hint: raise --timeout; the runs still go on on the service');
    return 1;
  }
  return 0;
}

function render(a: OutputArgs, r: EvalResult, w: { file: string; format: ExportFileFormat; bytes: number }): void {
  const p = r.export.processor;
  const c = r.counts;
  const failures = r.export.items.filter((i) => i.status !== 'PROCESSED');
  const tally = `${c.items} item${c.items === 1 ? '' : 's'}: ${c.processed} processed, ${c.failed} failed${c.timedOut ? ` (${c.timedOut} timed out)` : ''} · ${p.type} ${JSON.stringify(p.name || p.id)} ${r.configFile !== undefined ? `config ${r.configFile} (over version ${p.version})` : `version ${p.version}`} · ${r.strategy === 'batch' ? `batch ${r.batchRunId}` : r.strategy === 'evaluation-set-run' ? `evaluation set run ${r.batchRunId} ${r.serviceStatus ?? ''}`.trimEnd() : 'per-item runs'} · ${fmtDuration(r.elapsedMs)}`;
  if (a.format === 'json') {
    outJson({
      file: w.file,
      fileFormat: w.format,
      bytes: w.bytes,
      strategy: r.strategy,
      batchRunId: r.batchRunId,
      ...(r.serviceStatus !== undefined ? { serviceStatus: r.serviceStatus } : {}),
      evaluationSetId: r.export.source?.evaluationSetId ?? null,
      processor: { id: p.id, name: p.name, type: p.type, version: p.version, versionId: p.versionId ?? null, configFile: r.configFile ?? null },
      options: r.export.options,
      counts: c,
      failures: failures.map((i) => ({ id: i.id, fileId: i.fileId, fileName: i.fileName ?? null, runId: i.runId ?? null, status: i.status, failureReason: i.failureReason ?? null, failureMessage: i.failureMessage ?? null })),
      notices: r.notices,
      elapsedMs: Math.round(r.elapsedMs),
    });
    if (!isQuiet()) err(tally);
    return;
  }
  const lines = [`wrote ${w.file} (${w.format === 'jsonl' ? 'JSON Lines' : 'JSON'}, ${c.items} items, ${kb(w.bytes)})`];
  const failed: string[] = [];
  for (const i of failures.slice(0, 20)) {
    const why = [i.failureReason, i.failureMessage].filter(Boolean).join(': ');
    failed.push(`failed ${i.id}${i.fileName ? ` (${i.fileName})` : ''}: ${i.status}${why ? ` ${why}` : ''}${i.runId ? ` [run ${i.runId}]` : ''}`);
  }
  if (failures.length > 20) failed.push(`... and ${failures.length - 20} more failed items (--format json lists them all)`);
  // --quiet: what failed, nothing else.
  if (isQuiet()) {
    if (failed.length) out(failed.join('\n'));
    return;
  }
  lines.push(...failed, `next: evalkit report --from ${w.file}`);
  lines.push(tally);
  out(lines.join('\n'));
}

function kb(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1 << 20 ? `${(bytes / 1024).toFixed(1)} kB` : `${(bytes / (1 << 20)).toFixed(1)} MB`;
}

function outputOptions(y: Argv): Argv {
  return y
    .option('out', { alias: 'o', type: 'string', describe: 'export file (JSON; JSON Lines when named .jsonl/.ndjson or with --jsonl)' })
    .option('jsonl', { type: 'boolean', default: false, describe: 'write JSON Lines (a header line, then one item per line): for large sets; refused with an --out named .json' })
    .option('timeout', { type: 'string', default: '1h', describe: 'how long to wait for the runs: seconds, or 90s, 15m, 2h' })
    .option('progress', { type: 'boolean', describe: 'progress on stderr (default: a bar on a terminal, a line every 5 s otherwise; --no-progress: none)' })
    .option('metadata', { type: 'string', describe: "the upload CSV whose metadata.KEY columns describe the items: joined into the export for `report --slice-by metadata.KEY`" })
    .option('format', { ...formatOption, describe: 'summary on stdout: human text, or JSON with stable sorted keys' });
}

const run = defineCommand<RunArgs>({
  command: 'run',
  describe: 'evaluate a processor version on an evaluation set: make the runs, wait, write the evaluation export',
  builder: (y) =>
    outputOptions(
      y
        .version(false)
        .option('evaluation-set', { alias: 'e', type: 'string', demandOption: true, describe: 'the evaluation set (its processor is evaluated)' })
        .option('version', { type: 'string', default: 'latest', describe: 'processor version: latest (newest published, else the draft), draft, or a number such as 1.0' })
        .option('config', { type: 'string', describe: 'JSON file with a config to run instead of the version\'s (any layout; a processor, version or request body works too); implies per-item runs. A key no config layout has (a typo) is refused' })
        .option('allow-unknown', allowUnknownOption)
        .option('strategy', { choices: ['auto', 'batch', 'per-item'] as const, default: 'auto' as const, describe: 'batch: one evaluation run (POST /batch_processor_runs, the sandbox; 2025-04-21); per-item: one processor run per item (POST /processor_runs, which 2026-02-09 keeps; what --config uses); auto: batch when the service has it (API 2026-02-09: the evaluation set run, POST /evaluation_set_runs)' })
        .option('fuzzy-match-fields', { type: 'string', array: true, default: [] as string[], describe: 'field paths compared fuzzily (comma-separated, repeatable); recorded in the export' })
        .option('exclude-fields', { type: 'string', array: true, default: [] as string[], describe: 'field paths left out of the metrics (comma-separated, repeatable); recorded in the export' })
        .option('concurrency', { type: 'number', default: 8, describe: 'per-item: runs in flight at once (1-256)' })
        .option('priority', { type: 'number', describe: 'run priority 1-100, lower served first under rate limiting (service default 50); with per-item runs only on 2026-02-09 (an evaluation set run takes none)' }),
    )
      .example('$0 eval run -e ev_123', 'latest version; writes reports/ev_123-<version>.json')
      .example('$0 eval run --version draft', 'the set, fields and export path from evalkit.config.json (docs/configuration.md)')
      .example('$0 eval run -e ev_123 --version draft --out draft.json && $0 report --from draft.json', 'evaluate the draft and report on it')
      .example('$0 eval run -e ev_123 --config candidate.json --out candidate.jsonl', 'a config that is not saved anywhere yet (one processor run per item)')
      .example('$0 eval run -e ev_123 --fuzzy-match-fields vendor.name --exclude-fields notes --format json', 'evaluation options; machine-readable summary')
      .example('$0 eval run -e ev_123 --metadata data.csv', "items carry the CSV's metadata.* columns, for report --slice-by")
      .example('$0 --api-version 2025-04-21 eval run -e ev_123 --strategy per-item --concurrency 4 --priority 80 --timeout 2h', 'API 2025-04-21: against a service without evaluation runs, gently') as unknown as Argv<RunArgs>,
  run: async (a) => {
    const { runEvaluation } = await import('../eval/index.js');
    const timeoutMs = parseDuration(a.timeout, '--timeout');
    const config = a.config !== undefined ? await readOverride(a.config) : undefined;
    const { clientFromEnv } = await import('../api/index.js');
    return execute(
      'run',
      a,
      (cb) =>
        runEvaluation(
          clientFromEnv(),
          {
            evaluationSetId: a.evaluationSet,
            version: a.version,
            config,
            configFile: a.config,
            allowUnknown: a.allowUnknown,
            strategy: a.strategy,
            fuzzyMatchFields: fieldList(a.fuzzyMatchFields),
            excludeFields: fieldList(a.excludeFields),
            concurrency: a.concurrency,
            priority: a.priority,
            timeoutMs,
          },
          cb,
        ),
      (r) => `${r.export.source?.evaluationSetId ?? a.evaluationSet}-${r.export.processor.version}${config ? '-override' : ''}`,
    );
  },
});

const exportCmd = defineCommand<ExportArgs>({
  command: 'export [run]',
  describe: 'write the evaluation export of an existing evaluation run (2026-02-09: an evaluation set run; 2025-04-21: a batch processor run)',
  builder: (y) =>
    outputOptions(
      y
        .version(false)
        .positional('run', { type: 'string', describe: 'the evaluation set run (bpr_...; API 2026-02-09), or the batch processor run (2025-04-21, as --batch-run)' })
        .option('batch-run', { alias: 'b', type: 'string', describe: 'the batch processor run (source EVAL_SET); same as the positional id' })
        .option('wait', { type: 'boolean', default: false, describe: 'wait for a batch that is still running (up to --timeout) instead of refusing' }),
    )
      .example('$0 eval export bpr_123', 'writes reports/bpr_123.json')
      .example('$0 eval export --batch-run bpr_123', 'the same (2025-04-21 spelling)')
      .example('$0 eval export -b bpr_123 --wait --out run.jsonl && $0 report --from run.jsonl', 'wait for it, then report') as unknown as Argv<ExportArgs>,
  run: async (a) => {
    const { exportBatchRun, exportEvaluationSetRun } = await import('../eval/index.js');
    const { clientFromEnv, speaks2026 } = await import('../api/index.js');
    const timeoutMs = parseDuration(a.timeout, '--timeout');
    if (a.run !== undefined && a.batchRun !== undefined && a.run !== a.batchRun) {
      throw new UsageError(`two run ids: ${a.run} and --batch-run ${a.batchRun}`, { hint: 'pass one: `evalkit eval export bpr_123`' });
    }
    const id = a.run ?? a.batchRun;
    if (id === undefined) throw new UsageError('which run? pass its id', { hint: '`evalkit eval export bpr_123` (the id `evalkit eval run` prints)' });
    const client = clientFromEnv();
    const work = speaks2026(client.options.apiVersion) ? exportEvaluationSetRun : exportBatchRun;
    return execute('export', a, (cb) => work(client, id, { wait: a.wait, timeoutMs }, cb), (r) => r.batchRunId ?? id);
  },
});

export default defineCommand<{ command?: string }>({
  command: 'eval [command]',
  describe: 'evaluation runs: run a processor version on an evaluation set, or export an existing run, for `evalkit report`',
  builder: (y) =>
    y
      .example('$0 eval run -e ev_123 --version draft', 'evaluate the draft on the set')
      .example('$0 eval export --batch-run bpr_123', 'export an evaluation run made elsewhere') as unknown as Argv<{ command?: string }>,
  subcommands: [run, exportCmd],
  // yargs runs a subcommand's handler; this one runs for none (a list) or an unknown one.
  run: async (argv) => listSubcommands('eval', argv.command, [run, exportCmd]),
});

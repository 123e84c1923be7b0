import { setMaxListeners } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Argv } from 'yargs';
import type { DemoDatasetResult, DemoEvent, Headline } from '../demo/run.js';
import type { ExitCode } from '../util/errors.js';
import { UsageError } from '../util/errors.js';
import { shellWord } from '../util/controls.js';
import { defineCommand } from './command.js';
import { err, formatOption, out, outJson } from './io.js';

interface DemoArgs {
  datasets?: string;
  outDir: string;
  only: string[];
  seed: number;
  errorRate: number;
  bootstrap: number;
  verbose: boolean;
  format: 'text' | 'json';
}

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const rel = (p: string): string => path.relative(process.cwd(), p) || '.';
/** Quoted for a POSIX shell when it needs to be. */
const sh = shellWord;
const f3 = (v: number | null): string => (v === null ? 'n/a' : v.toFixed(3));
const withInterval = (h: Headline): string => `${f3(h.value)}${h.interval ? ` [${f3(h.interval.lower)}, ${f3(h.interval.upper)}]` : ''}`;
const METRIC_NAMES: Record<string, string> = { 'micro.f1': 'micro F1', accuracy: 'accuracy', f1: 'F1' };

/** The commands a user would type for one step. */
function equivalents(e: DemoEvent): string[] {
  switch (e.step) {
    case 'sandbox':
      return ['evalkit sandbox --port 0 --engine ' + e.engine + ' --id-seed evalkit-demo --engine-delay-ms 50   # then export EVALKIT_BASE_URL and EVALKIT_API_TOKEN as it prints'];
    case 'migrate':
      return [`evalkit migrate ${sh(rel(e.dataset.configPath))} --out-dir ${sh(rel(path.dirname(e.file)))}`];
    case 'processor': {
      const id = e.processor.id;
      return [
        `evalkit processors create --name ${sh(e.processor.name)} --type ${e.processor.type} --config ${sh(rel(e.configFile))}`,
        `evalkit processors publish ${id} --release major${e.published.description ? ` --description ${sh(e.published.description)}` : ''}`,
        `evalkit processors update ${id} --config ${sh(rel(e.draftConfigFile))}`,
        `evalkit processors diff ${id} ${e.published.version} draft   # what the draft changes`,
      ];
    }
    case 'validate':
    case 'upload': {
      const base = `evalkit dataset upload ${sh(rel(e.dataset.csvPath))} --create-set ${sh(e.dataset.title)} --processor ${e.processorId}`;
      const u = e.dataset.upload;
      const coerce = `${u.currency ? ` --currency ${u.currency}` : ''}${u.decimalComma === true ? ' --decimal-comma' : u.decimalComma === false ? ' --no-decimal-comma' : ''}${u.dateOrder ? ` --date-order ${u.dateOrder}` : ''}`;
      return [e.step === 'validate' ? `${base}${coerce} --config ${sh(rel(e.configFile))} --dry-run` : `${base}${coerce}`];
    }
    case 'evaluate': {
      const o = e.dataset.evaluation;
      const opts = `${o.fuzzyMatchFields.length ? ` --fuzzy-match-fields ${sh(o.fuzzyMatchFields.join(','))}` : ''}${o.excludeFields.length ? ` --exclude-fields ${sh(o.excludeFields.join(','))}` : ''}`;
      return [`evalkit eval run --evaluation-set ${e.evaluationSetId} --version ${e.version}${opts} --out ${sh(rel(e.file))}`];
    }
    case 'config':
      return [];
    case 'report':
      // The export, baseline, target accuracy and folder come from the demo's config file.
      return [`evalkit report --config-file ${sh(rel(e.settingsFile))} --dataset ${sh(e.dataset.name)}   # = --from ${sh(rel(e.from))} --baseline ${sh(rel(e.baseline))}${e.report.calibration?.targetAccuracy ? ` --target-accuracy ${e.report.calibration.targetAccuracy}` : ''} --out-dir ${sh(rel(path.dirname(e.files[0]?.file ?? e.from)))}`];
  }
}

/** One line per step, as the command would print its result. */
function describe(e: DemoEvent): string[] {
  const tag = 'dataset' in e ? `[${e.dataset.name}] ` : '';
  switch (e.step) {
    case 'sandbox':
      return [`sandbox: ${e.url} in memory, engine ${e.engine} (simulated outputs with seeded errors)`];
    case 'config':
      return [`config: ${rel(e.file)} with a section per dataset (${e.datasets.join(', ')}); the evaluations and reports take their settings from it`];
    case 'migrate': {
      const r = e.result;
      const ops = r.patch.map((op) => `    ${JSON.stringify(op)}`);
      return [`${tag}migrate: ${rel(e.dataset.configPath)} ${r.from ?? 'any of the layouts its keys fit'} -> ${r.to} (${r.type ?? 'any type'}), ${r.patch.length} change(s) -> ${rel(e.file)}`, ...ops];
    }
    case 'processor':
      return [`${tag}processor ${e.processor.id} "${e.processor.name}" (${e.processor.type}) created; published ${e.published.version}; draft edited: ${e.dataset.draftEdit.description}`];
    case 'validate': {
      const r = e.result;
      const plan = r.plan ? ` (plan: ${r.plan.create} to create, ${r.plan.update} to update, ${r.plan.unchanged} unchanged)` : '';
      return [`${tag}validate: ${r.rows.valid} of ${r.rows.total} rows valid against the draft config${plan}`];
    }
    case 'upload': {
      const t = e.result.tally;
      const set = e.result.set;
      return [`${tag}upload: set ${set?.id ?? '?'} "${set?.name ?? ''}"${set?.created ? ' (created)' : ''}: ${t?.created ?? 0} created, ${t?.updated ?? 0} updated, ${t?.unchanged ?? 0} unchanged, ${t?.failed ?? 0} failed; ${t?.filesUploaded ?? 0} files uploaded`];
    }
    case 'evaluate': {
      const c = e.result.counts;
      const how = e.result.batchRunId ? `evaluation run ${e.result.batchRunId}` : `${c.items} processor runs`;
      return [`${tag}eval ${e.version}: ${c.items} items, ${c.processed} processed, ${c.failed} failed (${how}) -> ${rel(e.file)}`];
    }
    case 'report': {
      const b = e.report.baseline?.tally;
      const verdicts = b ? `; vs 1.0: ${b.improved} improved, ${b.regressed} regressed, ${b.inconclusive} inconclusive, ${b.no_change} no change` : '';
      return [`${tag}report: ${e.report.summary.documents} documents, ${e.report.summary.failed} failed run(s)${verdicts} -> ${rel(path.dirname(e.files[0]?.file ?? '.'))}/report.{${e.files.map((f) => path.basename(f.file).replace(/^report\./, '')).join(',')}}`];
    }
  }
}

function table(rows: DemoDatasetResult[]): string {
  const head = ['dataset', 'type', 'metric', 'draft [95% interval]', '1.0 [95% interval]', 'verdict'];
  const body = rows.map((r) => [r.name, r.type, METRIC_NAMES[r.candidate.metric] ?? r.candidate.metric, withInterval(r.candidate), withInterval(r.baseline), (r.verdict ?? 'n/a').replace('_', ' ')]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

export default defineCommand<DemoArgs>({
  command: 'demo',
  describe: 'the whole pipeline on the bundled sample datasets against an embedded sandbox: migrate, create and publish, validate and upload, evaluate 1.0 and the draft, report',
  builder: (y) =>
    (y as Argv<object>)
      .option('datasets', { type: 'string', describe: "folder of datasets, each with a dataset.json (default: evalkit's bundled datasets/)" })
      .option('out-dir', { type: 'string', default: 'reports/demo', describe: 'reports go to OUT-DIR/<dataset>/ (overwritten on every run)' })
      .option('only', { type: 'string', array: true, default: [], describe: 'run only these datasets (folder names; comma-separated or repeated)' })
      .option('seed', { type: 'number', default: 42, describe: "seed of the sandbox's simulate engine" })
      .option('error-rate', { type: 'number', default: 0.1, describe: 'share of fields the simulate engine gets wrong (0-1)' })
      .option('bootstrap', { type: 'number', default: 2000, describe: 'bootstrap resamples of the reports (0 turns intervals of F1 and the paired deltas off)' })
      .option('verbose', { type: 'boolean', default: false, describe: 'also print the command lines each step stands for, to copy' })
      .option('format', { ...formatOption, describe: 'summary on stdout: a table, or JSON with stable sorted keys' })
      .example('$0 demo', 'run everything; open reports/demo/<dataset>/report.html')
      .example('$0 demo --verbose', 'show the equivalent evalkit command of every step')
      .example('$0 demo --only invoice-extract --error-rate 0.3', 'one dataset, a worse simulated processor')
      .epilogue('Offline: the sandbox runs in this process on a free loopback port and is gone when the demo ends. Same inputs, same reports (byte for byte).') as unknown as Argv<DemoArgs>,
  async run(argv): Promise<ExitCode> {
    if (!(argv.errorRate >= 0 && argv.errorRate <= 1)) throw new UsageError('--error-rate must be a number from 0 to 1');
    if (!Number.isInteger(argv.seed)) throw new UsageError('--seed must be a whole number');
    const only = argv.only.flatMap((s) => String(s).split(',')).map((s) => s.trim()).filter(Boolean);
    const { runDemo } = await import('../demo/run.js');
    const controller = new AbortController();
    // Every request in flight listens on it (and stops listening when it ends): many at once are not a leak.
    setMaxListeners(0, controller.signal);
    const abort = (): void => controller.abort(new UsageError('interrupted'));
    process.once('SIGINT', abort);
    try {
      const result = await runDemo(
        {
          datasetsDir: argv.datasets ? path.resolve(argv.datasets) : path.join(PACKAGE_ROOT, 'datasets'),
          outDir: path.resolve(argv.outDir),
          only,
          engineSeed: argv.seed,
          errorRate: argv.errorRate,
          bootstrap: argv.bootstrap,
          // The version in effect: --api-version (which sets the variable), EVALKIT_API_VERSION, the config file.
          apiVersion: process.env.EVALKIT_API_VERSION?.trim() || undefined,
          signal: controller.signal,
        },
        (e) => {
          if (argv.verbose) for (const c of equivalents(e)) err(`  $ ${c}`);
          for (const l of describe(e)) err(l);
        },
      );
      if (argv.format === 'json') {
        outJson(result);
        return 0;
      }
      out('');
      out(table(result.datasets));
      out('');
      out('HTML reports:');
      for (const d of result.datasets) out(`  ${rel(d.reports.html)}`);
      out(`\n${result.datasets.length} dataset${result.datasets.length === 1 ? '' : 's'} in ${(result.elapsedMs / 1000).toFixed(1)} s. The same pipeline against the service: README "Use it against the service".`);
      return 0;
    } finally {
      process.off('SIGINT', abort);
    }
  },
});

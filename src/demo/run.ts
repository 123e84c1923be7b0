/**
 * The main job on the sample datasets, against an embedded sandbox: for each dataset migrate
 * the saved config, create the processor and publish 1.0, edit the draft, validate and upload
 * the CSV, evaluate 1.0 and the draft, and report on the draft with 1.0 as its baseline.
 *
 * Each step calls the same core function as its command and reports a typed event, so the CLI
 * can print it the way that command would and show the command line it stands for. The run
 * is reproducible: a fresh in-memory sandbox with seeded ids and a seeded engine, uploads in
 * CSV order, a seeded bootstrap.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, type Client, type FetchLike } from '../api/index.js';
import { layoutOfApiVersion, migrateConfig, type MigrateResult, type ProcessorType } from '../config/index.js';
import { DEFAULT_API_VERSION } from '../api/version.js';
import { expectedFormOf } from '../expected/index.js';
import { uploadDataset, type UploadResult } from '../dataset/index.js';
import { runEvaluation, writeExport } from '../eval/index.js';
import type { EvalResult } from '../eval/index.js';
import type { Report, Verdict } from '../metrics/generated/report.js';
import { createProcessor, publishProcessor, updateProcessor, type ProcessorJson, type VersionJson } from '../processors/index.js';
import { computeReport, loadExport, MemoryDocuments, writeReports, type WrittenReport } from '../report/index.js';
import { startSandbox } from '../sandbox/index.js';
import { CONFIG_FILE_NAME, readSettings, renderSettings, SCHEMA_FILE, type DatasetSettings, type LoadedSettings } from '../settings/load.js';
import { EvalkitError, InputError } from '../util/errors.js';
import { writeFileAtomic } from '../util/fs.js';
import { parseJson } from '../util/json.js';
import { findDatasets, type DemoDataset } from './datasets.js';

export const BASELINE_VERSION = '1.0';
export const CANDIDATE_VERSION = 'draft';
export const PUBLISH_DESCRIPTION = 'first release (evalkit demo)';

/** The auto-accept target of the demo's reports (docs/metrics.md: Confidence). */
export const DEMO_TARGET_ACCURACY = 0.8;

export interface DemoOptions {
  /** Folder of sample datasets (each with a dataset.json). */
  datasetsDir: string;
  /** Reports go to `<outDir>/<dataset>/`. */
  outDir: string;
  /** Run only these datasets (folder names). */
  only?: readonly string[];
  /** Seed and per-field error rate of the sandbox's simulate engine. */
  engineSeed?: number;
  errorRate?: number;
  /** Bootstrap resamples of the reports (default 2000). */
  bootstrap?: number;
  /** The API version the pipeline speaks to the embedded sandbox (default: evalkit's default). */
  apiVersion?: string;
  signal?: AbortSignal;
}

/** The first metric a reader looks at, per processor type. */
export interface Headline {
  metric: string;
  value: number | null;
  interval: { lower: number; upper: number } | null;
}

export type DemoEvent =
  | { step: 'sandbox'; url: string; engine: string }
  | { step: 'config'; file: string; datasets: string[] }
  | { step: 'migrate'; dataset: DemoDataset; result: MigrateResult; file: string }
  | { step: 'processor'; dataset: DemoDataset; processor: ProcessorJson; published: VersionJson; configFile: string; draftConfigFile: string }
  | { step: 'validate'; dataset: DemoDataset; result: UploadResult; processorId: string; configFile: string }
  | { step: 'upload'; dataset: DemoDataset; result: UploadResult; processorId: string }
  | { step: 'evaluate'; dataset: DemoDataset; version: string; result: EvalResult; file: string; evaluationSetId: string }
  | { step: 'report'; dataset: DemoDataset; report: Report; files: WrittenReport[]; from: string; baseline: string; settingsFile: string };

export interface DemoDatasetResult {
  name: string;
  title: string;
  type: ProcessorType;
  processorId: string;
  evaluationSetId: string;
  documents: number;
  failed: number;
  candidate: Headline;
  baseline: Headline;
  /** The headline metric's verdict against 1.0. */
  verdict: Verdict | null;
  tally: { improved: number; regressed: number; inconclusive: number; no_change: number; not_comparable: number };
  reports: Record<WrittenReport['format'], string>;
}

export interface DemoResult {
  datasets: DemoDatasetResult[];
  elapsedMs: number;
}

const HEADLINE_KEY: Record<ProcessorType, string> = { EXTRACT: 'micro.f1', CLASSIFY: 'accuracy', SPLITTER: 'f1' };

export function headlineOf(report: Report): Headline {
  const metric = HEADLINE_KEY[report.type];
  const v = report.extract ? report.extract.micro.f1 : report.classify ? report.classify.accuracy : report.splitter?.f1;
  return { metric, value: v?.value ?? null, interval: v?.interval ?? null };
}

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The demo's evalkit.config.json, in its work folder: a section per dataset with what the
 * evaluation and the report take from it, written and then read back like any user's file.
 * `evalkit report --config-file OUT-DIR/evalkit.config.json --dataset NAME` re-makes a report.
 */
async function writeDemoSettings(outDir: string, datasets: readonly DemoDataset[]): Promise<LoadedSettings> {
  const file = path.join(outDir, CONFIG_FILE_NAME);
  const posix = (p: string): string => p.split(path.sep).join('/');
  const section = (d: DemoDataset): DatasetSettings => ({
    csv: posix(path.relative(outDir, d.csvPath)),
    export: `${d.name}/export-${CANDIDATE_VERSION}.json`,
    baseline: `${d.name}/export-${BASELINE_VERSION}.json`,
    outDir: d.name,
    fuzzyFields: d.evaluation.fuzzyMatchFields,
    excludeFields: d.evaluation.excludeFields,
    targetAccuracy: DEMO_TARGET_ACCURACY,
  });
  const text = renderSettings({
    $schema: posix(path.relative(outDir, path.join(PACKAGE_ROOT, SCHEMA_FILE))),
    datasets: Object.fromEntries(datasets.map((d) => [d.name, section(d)])),
  });
  await writeFileAtomic(file, text);
  return readSettings(file);
}

function apiVersionOf(opts: DemoOptions): string {
  return opts.apiVersion ?? DEFAULT_API_VERSION;
}

export async function runDemo(opts: DemoOptions, onEvent: (e: DemoEvent) => void = () => undefined): Promise<DemoResult> {
  const started = performance.now();
  let datasets = await findDatasets(opts.datasetsDir);
  if (opts.only?.length) {
    const unknown = opts.only.filter((n) => !datasets.some((d) => d.name === n));
    if (unknown.length) throw new InputError(`no dataset named ${unknown.join(', ')}`, { location: { file: opts.datasetsDir }, hint: `choose from ${datasets.map((d) => d.name).join(', ')}` });
    datasets = datasets.filter((d) => opts.only?.includes(d.name));
  }
  // Every dataset's config read and migrated, and its CSV found, before anything is started or
  // written: a broken dataset is exit 2 with nothing written.
  const configs = new Map<DemoDataset, MigratedConfig>();
  for (const d of datasets) configs.set(d, await migratedConfigOf(d, opts));
  const engine = `simulate:${opts.engineSeed ?? 42},${opts.errorRate ?? 0.1}`;
  const sandbox = await startSandbox({ port: 0, engine, idSeed: 'evalkit-demo', engineDelayMs: 50 });
  try {
    onEvent({ step: 'sandbox', url: sandbox.url, engine });
    const settings = await writeDemoSettings(opts.outDir, datasets);
    onEvent({ step: 'config', file: settings.file, datasets: datasets.map((d) => d.name) });
    const client = createClient({ baseUrl: sandbox.url, token: sandbox.token, apiVersion: apiVersionOf(opts) });
    const results: DemoDatasetResult[] = [];
    for (const d of datasets) {
      opts.signal?.throwIfAborted();
      results.push(await runDataset(d, configs.get(d)!, { file: settings.file, settings: settings.config.datasets?.[d.name] ?? {} }, client, sandbox.url, sandbox.token, opts, onEvent));
    }
    return { datasets: results, elapsedMs: performance.now() - started };
  } finally {
    await sandbox.close();
  }
}

interface MigratedConfig {
  migrated: ReturnType<typeof migrateConfig>;
  config: Record<string, unknown>;
  type: ProcessorType;
}

/** A dataset's saved config, migrated to the layout of the API version in effect; its CSV must exist. */
async function migratedConfigOf(d: DemoDataset, opts: DemoOptions): Promise<MigratedConfig> {
  const text = await fsp.readFile(d.configPath, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new InputError(`cannot read the config: ${e.code ?? String(e)}`, { location: { file: d.configPath }, hint: 'each dataset names its processor config in its manifest (docs/demo.md)' });
  });
  await fsp.access(d.csvPath).catch((e: NodeJS.ErrnoException) => {
    throw new InputError(`cannot read the dataset's CSV: ${e.code ?? String(e)}`, { location: { file: d.csvPath } });
  });
  const migrated = migrateConfig(parseJson(text, d.configPath), { to: layoutOfApiVersion(apiVersionOf(opts)), from: d.configLayout });
  const config = migrated.doc as Record<string, unknown>;
  return { migrated, config, type: migrated.type ?? (config.type as ProcessorType) };
}

async function runDataset(d: DemoDataset, { migrated, config, type }: MigratedConfig, { file: settingsFile, settings }: { file: string; settings: DatasetSettings }, client: Client, baseUrl: string, token: string, opts: DemoOptions, onEvent: (e: DemoEvent) => void): Promise<DemoDatasetResult> {
  const dir = path.join(opts.outDir, d.name);
  const signal = opts.signal;

  // 1. The saved config, migrated to the layout of the API version in effect (read above), next to the reports.
  const configFile = path.join(dir, path.basename(d.configPath));
  await writeFileAtomic(configFile, JSON.stringify(config, null, 2) + '\n');
  onEvent({ step: 'migrate', dataset: d, result: migrated, file: configFile });

  // 2. The processor, version 1.0, and a draft that differs from it.
  // Through the core of `evalkit processors`, from the files written here: the command lines
  // the demo prints with --verbose do exactly this.
  const { processor } = await createProcessor(client, { name: d.processorName, type, configFile }, signal);
  const published = await publishProcessor(client, processor.id, { releaseType: 'major', description: PUBLISH_DESCRIPTION }, signal);
  const draftConfig = { ...config, ...d.draftEdit.config };
  const draftConfigFile = path.join(dir, 'draft-config.json');
  await writeFileAtomic(draftConfigFile, JSON.stringify(draftConfig, null, 2) + '\n');
  await updateProcessor(client, processor.id, { configFile: draftConfigFile }, signal);
  onEvent({ step: 'processor', dataset: d, processor, published, configFile, draftConfigFile });

  // 3. Every row validated against the draft (what the service checks items against), then uploaded.
  const common = {
    csv: d.csvPath,
    coerce: d.upload,
    createSet: { name: d.title, processorId: processor.id, description: `${d.title}: evalkit demo` },
    // A fresh sandbox every run: a journal of an earlier run would name ids that no longer exist.
    journal: false as const,
    // Its own sandbox, so the lock goes with this run's output: demos of the bundled CSVs into
    // different folders (tests run several at once) do not refuse each other.
    lockFile: path.join(dir, 'upload.lock'),
    rejectsFile: path.join(dir, 'rejects.csv'),
    // One request at a time, so that ids follow the CSV's order and the reports are reproducible.
    concurrency: 1,
    connect: (fetch: FetchLike) => createClient({ baseUrl, token, fetch, apiVersion: apiVersionOf(opts) }),
    // Items are built in the expected-output form of the API version spoken (spec 3.7).
    form: expectedFormOf(null, apiVersionOf(opts)),
    signal,
  };
  const checked = await uploadDataset({ ...common, config: { config, origin: configFile, type }, dryRun: true });
  onEvent({ step: 'validate', dataset: d, result: checked, processorId: processor.id, configFile });
  if (checked.status === 'invalid') {
    throw new EvalkitError(`${checked.rows.invalid} of ${checked.rows.total} rows of ${d.csvPath} are invalid`, {
      exitCode: 1,
      location: { file: d.csvPath },
      hint: `see ${checked.rejectsFile ?? 'the findings above'}`,
    });
  }
  const uploaded = await uploadDataset(common);
  onEvent({ step: 'upload', dataset: d, result: uploaded, processorId: processor.id });
  const setId = uploaded.set?.id;
  if (uploaded.status !== 'done' || !setId || uploaded.failures.length) {
    throw new EvalkitError(`the upload of ${d.csvPath} did not finish (${uploaded.status}, ${uploaded.failures.length} failed)`, { exitCode: 1, location: { file: d.csvPath } });
  }

  // 4. Both versions on the set.
  const evaluate = async (version: string): Promise<{ result: EvalResult; file: string; written: EvalResult['export'] }> => {
    const evaluation = { fuzzyMatchFields: settings.fuzzyFields ?? [], excludeFields: settings.excludeFields ?? [] };
    const result = await runEvaluation(client, { evaluationSetId: setId, version, ...evaluation }, { signal });
    // Run durations are the embedded sandbox's wall-clock time: left out so that a re-run gives
    // the same export and report bytes (credits, from page counts, stay).
    for (const item of result.export.items) delete item.durationMs;
    const file = path.join(dir, `export-${version}.json`);
    await writeExport(file, result.export);
    onEvent({ step: 'evaluate', dataset: d, version, result, file, evaluationSetId: setId });
    // The report is made from the export as written (its keys sorted), as `evalkit report` reads
    // it: the reconciliation lists the config's fields in the order it finds them.
    return { result, file, written: await loadExport(file) };
  };
  const base = await evaluate(BASELINE_VERSION);
  const cand = await evaluate(CANDIDATE_VERSION);

  // 5. The draft's report, 1.0 as its baseline, in every format, with the config file's settings.
  const documents = new MemoryDocuments();
  const baselineInput = { kind: 'export' as const, file: path.basename(base.file), export: base.written };
  const report = computeReport(
    cand.written,
    {
      sourceFile: path.basename(cand.file),
      baseline: baselineInput,
      bootstrap: opts.bootstrap,
      targetAccuracy: settings.targetAccuracy,
      fuzzyThreshold: settings.fuzzyThreshold,
      numberTolerance: settings.numberTolerance,
    },
    documents,
  );
  const files = await writeReports(report, dir, undefined, { export: cand.written, baseline: baselineInput, documents });
  onEvent({ step: 'report', dataset: d, report, files, from: cand.file, baseline: base.file, settingsFile });

  const baselineReport = computeReport(base.written, { bootstrap: opts.bootstrap, sourceFile: path.basename(base.file) });
  const headline = headlineOf(report);
  const row = report.baseline?.rows.find((r) => r.key === headline.metric);
  return {
    name: d.name,
    title: d.title,
    type,
    processorId: processor.id,
    evaluationSetId: setId,
    documents: report.summary.documents,
    failed: report.summary.failed,
    candidate: headline,
    baseline: headlineOf(baselineReport),
    verdict: row?.verdict ?? null,
    tally: report.baseline?.tally ?? { improved: 0, regressed: 0, inconclusive: 0, no_change: 0, not_comparable: 0 },
    reports: Object.fromEntries(files.map((f) => [f.format, f.file])) as DemoDatasetResult['reports'],
  };
}

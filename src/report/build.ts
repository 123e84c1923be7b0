/**
 * computeReport: export -> canonical report. Scores the documents, adds bootstrap intervals,
 * the paired comparison with a baseline and the gates. Deterministic: the same inputs and
 * seed give the same report; rows are sorted here, keys when rendered (src/report/json.ts).
 */
import { InputError, InternalError, UsageError } from '../util/errors.js';
import type { EvaluationExport, EvaluationExportHeader, ExportItem } from '../metrics/generated/export.js';
import { evaluateExport, evaluateSource, type ItemSource, type ScoreOptions } from '../metrics/accumulate.js';
import { bootstrap, documentsDefining, pointAndBootstrap, pointStats, type StatModel } from '../metrics/bootstrap.js';
import { DEFAULT_COMPARE, type CompareOptions } from '../metrics/comparators.js';
import { exportOptions, type ConfidenceOptions, type Evaluation } from '../metrics/evaluate.js';
import { CONFIDENCE_SOURCES, type ConfidenceSource } from '../metrics/calibration.js';
import { benjaminiHochberg, boundaryInterval, holm, mcnemarExact, mcnemarMde, mcnemarPairsNeeded, percentileInterval } from '../metrics/stats.js';
import { ExtractTable, type Pairable } from '../metrics/table.js';
import { keysOf, modelOf } from './scored.js';
import { discordant } from '../metrics/models.js';
import type { BaselineComparison, ComparisonRow, CostReport, DocumentRecord, Estimate, Interval, Report, ReportProcessorType, Verdict } from '../metrics/generated/report.js';
import { CostAccumulator } from './cost.js';
import { compactRecord } from './json.js';
import { lineText, MemoryDocuments, type DocumentsSink, type LineWriter } from './documents.js';
import { ALPHA, evaluateGates, fmtGate, isCountGate, parseGates, underpoweredRegression, underpoweredText, type GateOn, type GateSpec } from './gates.js';
import { parseSliceKeys, SliceAccumulator, sliceLabel, type SliceKey } from './slices.js';
import { minPairedOf, pairDocuments, PAIR_BY, type PairBy } from './pairing.js';
import { applyRunSpread, compareRuns, type RunInput } from './runs.js';
import { partialRunCheck, Reconciler, reconciliationWarnings } from './reconcile.js';

/**
 * A baseline: an export (in memory, or read item by item from a JSONL file) or a report with its
 * document records (inline in formats 1 and 2, from the side file in format 3; EXTRACT records
 * as a table of counts).
 */
export type BaselineInput =
  | { kind: 'export'; file: string; export: EvaluationExport }
  | { kind: 'stream'; file: string; header: EvaluationExportHeader; items: ItemSource }
  | { kind: 'report'; file: string; report: BaselineReport; documents: DocumentRecord[] | ExtractTable };

/**
 * What a comparison reads of a baseline report of any format (records apart). `summary` and
 * `reconciliation` (format 3) say whether the baseline's runs failed or its service run was partial.
 */
export type BaselineReport = Pick<Report, 'type' | 'options' | 'extract' | 'classify' | 'splitter' | 'cost'> & Partial<Pick<Report, 'summary' | 'reconciliation'>>;

export interface ComputeReportOptions {
  fuzzyThreshold?: number;
  numberTolerance?: number;
  /** Bootstrap resamples for intervals and baseline deltas (default 2000; 0 turns the bootstrap off). */
  bootstrap?: number;
  seed?: number;
  /** File name shown as the report's source. */
  sourceFile?: string;
  baseline?: BaselineInput;
  /** How documents pair with the baseline's (default auto: id, file id, file name, content hash). */
  pairBy?: PairBy;
  /** Fewest pairs a baseline comparison accepts: a count or a share (`90%`, the default). */
  minPaired?: number | string;
  /** A delta whose interval lies inside ±equivalence is `no_change` (default 0.01). */
  equivalence?: number;
  gates?: ReadonlyArray<string | GateSpec>;
  gateOn?: GateOn;
  failOnRegression?: boolean;
  /** Fail when more than this share of the runs failed. */
  maxFailedRate?: number;
  /**
   * With failOnRegression: pass a comparison on too few paired documents for any regression to be
   * significant (by default such a gate fails and says how many documents it needs); a warning stays.
   */
  allowUnderpowered?: boolean;
  /** Which confidence to read: logprobs, ocr, review (1-5 as 0-1) or min (default: logprobs where present). */
  confidence?: ConfidenceSource;
  /** Auto-accept thresholds: the lowest confidence whose accepted values' Wilson lower bound reaches this. */
  targetAccuracy?: number;
  /** Slice keys: `metadata.PATH`, `fileType`, `pageCount` or `pageCount:1;3;10` (README: Slices). */
  sliceBy?: readonly string[];
  /** Called every 1,000 documents scored, with their count (progress of a long report). */
  onProgress?: (scored: number) => void;
  /**
   * More runs of the same set beside this one (the reference): the multi-run section
   * (src/report/runs.ts). A run given as `header` and `items` (a JSONL export read line by line)
   * is evaluated by computeReportStream, not held in memory.
   */
  runs?: ReadonlyArray<RunInput | StreamedRun>;
  /**
   * Score an export whose service evaluation set run (`service.status`) did not end PROCESSED; by
   * default such a partial run is refused (an InputError at `/service/status`). It covers the
   * baseline too: a baseline export whose service run did not end PROCESSED, or a report.json
   * made of a partial run (`reconciliation.partial`), is refused without it.
   */
  allowPartial?: boolean;
}

/** A run whose items are read one at a time (openExport). */
export interface StreamedRun {
  file: string;
  header: EvaluationExportHeader;
  items: ItemSource;
}

export const DEFAULT_BOOTSTRAP = 2000;
export const DEFAULT_SEED = 1;
export const DEFAULT_EQUIVALENCE = 0.01;
export { ALPHA };

function check(ok: boolean, message: string, hint: string): void {
  if (!ok) throw new UsageError(message, { hint });
}

const nullable = (v: number): number | null => (Number.isNaN(v) ? null : v);

function settingsOf(opts: ComputeReportOptions, type: ReportProcessorType): Settings {
  const cmp: CompareOptions = {
    fuzzyThreshold: opts.fuzzyThreshold ?? DEFAULT_COMPARE.fuzzyThreshold,
    numberTolerance: opts.numberTolerance ?? DEFAULT_COMPARE.numberTolerance,
  };
  const B = opts.bootstrap ?? DEFAULT_BOOTSTRAP;
  const seed = opts.seed ?? DEFAULT_SEED;
  const equivalence = opts.equivalence ?? DEFAULT_EQUIVALENCE;
  const pairBy = opts.pairBy ?? 'auto';
  check(cmp.fuzzyThreshold >= 0 && cmp.fuzzyThreshold <= 1, `--fuzzy-threshold ${cmp.fuzzyThreshold} is not between 0 and 1`, 'the default is 0.9');
  check(cmp.numberTolerance >= 0 && Number.isFinite(cmp.numberTolerance), `--number-tolerance ${cmp.numberTolerance} must be 0 or more`, 'the default is 1e-6 (relative)');
  check(Number.isInteger(B) && B >= 0, `--bootstrap ${B} must be a whole number, 0 or more`, 'the default is 2000; 0 turns the bootstrap off');
  check(Number.isInteger(seed), `--seed ${seed} must be a whole number`, 'the default is 1');
  check(Number.isFinite(equivalence) && equivalence >= 0 && equivalence < 1, `--equivalence ${equivalence} must be from 0 up to 1`, `the default is ${DEFAULT_EQUIVALENCE} (one point)`);
  check((PAIR_BY as readonly string[]).includes(pairBy), `--pair-by ${pairBy} is not one of ${PAIR_BY.join(', ')}`, 'the default is auto');
  if (opts.maxFailedRate !== undefined) {
    check(Number.isFinite(opts.maxFailedRate) && opts.maxFailedRate >= 0 && opts.maxFailedRate <= 1, `--max-failed-rate ${opts.maxFailedRate} must be between 0 and 1`, 'for example 0.05 fails when more than 5% of the runs failed');
  }
  const gateSpecs = (opts.gates ?? []).flatMap((g) => (typeof g === 'string' ? parseGates([g]) : [g]));
  if (opts.failOnRegression && !opts.baseline) {
    throw new UsageError('--fail-on-regression needs --baseline', { hint: 'pass the report.json or export of the run to compare with' });
  }

  if (opts.targetAccuracy !== undefined) {
    check(Number.isFinite(opts.targetAccuracy) && opts.targetAccuracy > 0 && opts.targetAccuracy < 1, `--target-accuracy ${opts.targetAccuracy} must be between 0 and 1`, 'for example 0.99');
  }
  if (opts.confidence !== undefined) check((CONFIDENCE_SOURCES as readonly string[]).includes(opts.confidence), `--confidence ${opts.confidence} is not one of ${CONFIDENCE_SOURCES.join(', ')}`, 'the default reads logprobsConfidence where present');
  const sliceKeys = parseSliceKeys(opts.sliceBy ?? []);
  const slices = sliceKeys.length ? { sliceLabels: new Map<string, string[]>(), slices: new SliceAccumulator(type, sliceKeys) } : {};
  return { cmp, B, seed, equivalence, pairBy, gateSpecs, sliceKeys, ...slices, conf: { source: opts.confidence, targetAccuracy: opts.targetAccuracy } };
}

interface Settings {
  cmp: CompareOptions;
  B: number;
  seed: number;
  equivalence: number;
  pairBy: PairBy;
  gateSpecs: GateSpec[];
  sliceKeys: SliceKey[];
  /** With --slice-by: each scored item's labels (by id) until its record is added, and the slices. */
  sliceLabels?: Map<string, string[]>;
  slices?: SliceAccumulator;
  conf: ConfidenceOptions;
  /** When the export records the service's evaluation set run: its reconciliation, fed while scoring. */
  rec?: Reconciler;
  /** The warning of a partial run scored with allowPartial. */
  partial?: string;
  /** Per later run (index in opts.runs): its reconciliation when its export records the service's run. */
  runServices?: Array<RunService | undefined>;
  /** The warning of a partial baseline compared with allowPartial. */
  baselinePartial?: string;
}

/** A later run's service run: its reconciler, fed while the run is scored, and that scoring. */
interface RunService {
  rec: Reconciler;
  partial?: string;
  evaluation?: Evaluation;
}

/** The service run's checks and reconciler (before any scoring: a refused partial run writes nothing). */
function withService(s: Settings, header: EvaluationExportHeader, opts: ComputeReportOptions): Settings {
  // Every run's service run is checked before any scoring too (a partial one is refused by name).
  const runServices = (opts.runs ?? []).map((r): RunService | undefined => {
    const h = 'header' in r ? r.header : r.export;
    // A run given already evaluated has no items left to reconcile.
    if (!h.service || 'evaluation' in r) return undefined;
    const partial = partialRunCheck(h, opts.allowPartial ?? false, r.file);
    return { rec: new Reconciler(h), ...(partial ? { partial: `${r.file}: ${partial}` } : {}) };
  });
  if (runServices.some((r) => r !== undefined)) s = { ...s, runServices };
  // The baseline too: a partial run is no baseline unless asked for (before any scoring).
  const baselinePartial = opts.baseline ? partialBaselineCheck(opts.baseline, opts.allowPartial ?? false) : undefined;
  if (baselinePartial) s = { ...s, baselinePartial };
  if (!header.service) return s;
  const partial = partialRunCheck(header, opts.allowPartial ?? false, opts.sourceFile);
  return { ...s, rec: new Reconciler(header), ...(partial ? { partial } : {}) };
}

/**
 * A baseline whose service run did not end PROCESSED (an export's `service.status`), or a
 * report.json made of such a run with --allow-partial (`reconciliation.partial`), is refused (an
 * InputError naming the file and the pointer) unless allowPartial; with it, the warning to give.
 */
export function partialBaselineCheck(b: BaselineInput, allowPartial: boolean): string | undefined {
  let what: string;
  let pointer: string;
  if (b.kind === 'report') {
    const rec = b.report.reconciliation;
    if (!rec?.partial) return undefined;
    what = `${b.file} is the report of a partial run (the service's evaluation set run ${rec.evaluationSetRunId} is ${rec.status}, not PROCESSED; it was scored with --allow-partial)`;
    pointer = '/reconciliation/partial';
  } else {
    const service = b.kind === 'export' ? b.export.service : b.header.service;
    if (!service || service.status === 'PROCESSED') return undefined;
    what = `${b.file}: the service's evaluation set run ${service.evaluationSetRunId} is ${service.status}, not PROCESSED`;
    pointer = '/service/status';
  }
  if (!allowPartial) {
    throw new InputError(`baseline ${what}: a partial run is not a baseline`, {
      location: { file: b.file, pointer },
      hint: 'compare with a run that ended PROCESSED, or pass --allow-partial (allowPartial) to compare with the items it has; the report then says the baseline is partial',
    });
  }
  return `partial baseline ${what}: compared as asked (--allow-partial); its documents that failed count as wrong, so a regression against them is harder to show`;
}

/** How a later run is scored: its reconciler (if any) sees each item and EXTRACT record. */
function runScoring(rs: RunService | undefined): ScoreOptions {
  if (!rs) return { keepKeys: true };
  const rec = rs.rec;
  return { keepKeys: true, onItem: (item) => rec.add(item), sink: (line) => rec.record(line) };
}

/**
 * The report of an export held in memory. Document records go to `documents` (by default kept in
 * memory); report.json carries the reference to them.
 */
export function computeReport(exp: EvaluationExport, opts: ComputeReportOptions = {}, documents: DocumentsSink = new MemoryDocuments()): Report {
  const s = withService(settingsOf(opts, exp.processor.type), exp, opts);
  const cost = new CostAccumulator();
  documents = slicing(s, documents);
  const ev = evaluateExport(exp, s.cmp, s.conf, scoreOptions(opts, s, documents, cost));
  let side: BaselineSide | undefined;
  if (opts.runs?.some((r) => 'items' in r)) throw new InternalError('a streamed run needs computeReportStream');
  if (opts.baseline) {
    if (opts.baseline.kind === 'stream') throw new InternalError('a streamed baseline needs computeReportStream');
    side = baselineSide(opts.baseline, s.cmp, s.conf, opts.baseline.kind === 'export' ? evaluateExport(opts.baseline.export, s.cmp, s.conf, baselineScoring(opts.baseline)) : undefined);
  }
  // A run with the service's run is evaluated here (as compareRuns would) to reconcile it on the way.
  let runs = opts.runs;
  if (s.runServices) {
    runs = (opts.runs as readonly RunInput[]).map((r, i) => {
      const rs = s.runServices?.[i];
      if (!rs || 'evaluation' in r) return r;
      rs.evaluation = evaluateExport(r.export, s.cmp, s.conf, runScoring(rs));
      return { file: r.file, export: r.export, evaluation: rs.evaluation };
    });
  }
  return assemble(exp, ev, cost, side, s, { ...opts, runs }, documents);
}

/**
 * Runs the scoring of one export; an input error that names no file (a duplicate item id, found
 * once every item is read) gets the export's, so that with a baseline or several runs it says
 * which export it is in.
 */
async function inFile<T>(file: string | undefined, score: () => Promise<T> | T): Promise<T> {
  try {
    return await score();
  } catch (e) {
    if (file === undefined || !(e instanceof InputError) || e.location.file !== undefined) throw e;
    throw new InputError(e.message, { location: { ...e.location, file }, ...(e.hint ? { hint: e.hint } : {}), cause: e });
  }
}

/**
 * The report of an export read item by item (a JSONL file): only each document's sufficient
 * statistics stay in memory; its record goes to `documents` as it is scored.
 */
export async function computeReportStream(header: EvaluationExportHeader, items: ItemSource, opts: ComputeReportOptions, documents: DocumentsSink): Promise<Report> {
  const s = withService(settingsOf(opts, header.processor.type), header, opts);
  const cost = new CostAccumulator();
  documents = slicing(s, documents);
  const ev = await inFile(opts.sourceFile, () => evaluateSource(header, items, s.cmp, s.conf, scoreOptions(opts, s, documents, cost)));
  let side: BaselineSide | undefined;
  const b = opts.baseline;
  if (b) {
    const bev =
      b.kind === 'export'
        ? await inFile(b.file, () => evaluateExport(b.export, s.cmp, s.conf, baselineScoring(b)))
        : b.kind === 'stream'
          ? await inFile(b.file, () => evaluateSource(b.header, b.items, s.cmp, s.conf, baselineScoring(b)))
          : undefined;
    side = baselineSide(b, s.cmp, s.conf, bev);
  }
  // Streamed runs are evaluated here, one after the other, as compareRuns evaluates an export.
  let runs = opts.runs;
  if (runs?.some((r) => 'items' in r)) {
    const evaluated: RunInput[] = [];
    for (const [i, r] of runs.entries()) {
      if (!('items' in r)) {
        evaluated.push(r);
        continue;
      }
      const rs = s.runServices?.[i];
      const evaluation = await inFile(r.file, () => evaluateSource(r.header, r.items, s.cmp, s.conf, runScoring(rs)));
      if (rs) rs.evaluation = evaluation;
      evaluated.push({ file: r.file, export: r.header, evaluation });
    }
    runs = evaluated;
  }
  return assemble(header, ev, cost, side, s, { ...opts, runs }, documents);
}

const baselineCost = new WeakMap<BaselineInput, CostAccumulator>();

function baselineScoring(b: BaselineInput): ScoreOptions {
  const cost = new CostAccumulator();
  baselineCost.set(b, cost);
  return { keepKeys: true, onItem: (item) => cost.add(item) };
}

function scoreOptions(opts: ComputeReportOptions, s: Settings, documents: DocumentsSink, cost: CostAccumulator): ScoreOptions {
  const labels = s.sliceLabels;
  const progress = opts.onProgress;
  let scored = 0;
  const rec = s.rec;
  const onItem = (item: ExportItem): void => {
    cost.add(item);
    if (rec) rec.add(item);
    if (labels) labels.set(item.id, s.sliceKeys.map((k) => sliceLabel(k, item)));
    if (progress && ++scored % 1000 === 0) progress(scored);
  };
  const sink: ScoreOptions['sink'] = rec
    ? (line, record) => {
        rec.record(line);
        documents.write(line, record);
      }
    : (line, record) => documents.write(line, record);
  return { sink, keepKeys: opts.baseline !== undefined || (opts.runs?.length ?? 0) > 0, onItem };
}

/**
 * With --slice-by, the records pass through here on their way to the side file: each is added
 * to its slices (labels taken from its item as it was scored), so slices need no second pass.
 */
function slicing(s: Settings, documents: DocumentsSink): DocumentsSink {
  const labels = s.sliceLabels;
  const acc = s.slices;
  if (!labels || !acc) return documents;
  return {
    write(line: string | LineWriter, made?: () => DocumentRecord): void {
      const record = made ? made() : (JSON.parse(lineText(line)) as DocumentRecord);
      const l = labels.get(record.id);
      if (l) {
        acc.addLabelled(l, record);
        labels.delete(record.id);
      }
      documents.write(line, () => record);
    },
    finish: (flags) => documents.finish(flags),
  };
}

function assemble(exp: EvaluationExportHeader, ev: Evaluation, costs: CostAccumulator, side: BaselineSide | undefined, s: Settings, opts: ComputeReportOptions, documents: DocumentsSink): Report {
  const { cmp, B, seed, equivalence, pairBy, gateSpecs } = s;
  // CLASSIFY and SPLITTER records are kept (small) and written once their flags are set.
  if (ev.documents) for (const d of ev.documents) documents.write(compactRecord(d));
  const documentsFile = documents.finish(ev.straightThrough);
  const exactFields = ev.extract?.fields.filter((f) => f.fuzzy).map((f) => f.path) ?? [];
  const model = modelOf(ev, ev.units, exactFields);
  const n = ev.n;
  const { point, replicates } = pointAndBootstrap(model, n, B, seed);
  // A percentile interval collapsed at 0 or 1 is widened to what its documents can justify.
  const intervals: Array<Interval | null> = replicates ? replicates.map((r, k) => boundaryInterval(percentileInterval(r), () => documentsDefining(model, n, k))) : model.keys.map(() => null);
  const keyIndex = new Map(model.keys.map((k, i) => [k, i]));
  const est = (key: string): Estimate => {
    const i = keyIndex.get(key) as number;
    return { value: nullable(point[i]), interval: intervals[i] };
  };
  fillEstimates(ev, est);

  const options = exportOptions(exp);
  const report: Report = {
    format: 'evalkit-report/3',
    type: ev.type,
    source: {
      file: opts.sourceFile ?? 'export.json',
      processor: { id: exp.processor.id, name: exp.processor.name, type: exp.processor.type, version: exp.processor.version },
    },
    options: {
      fuzzyThreshold: cmp.fuzzyThreshold,
      numberTolerance: cmp.numberTolerance,
      bootstrap: B,
      seed,
      equivalence,
      pairBy,
      fuzzyMatchFields: [...options.fuzzyMatchFields].sort(),
      excludeFields: [...options.excludeFields].sort(),
    },
    summary: { documents: n, processed: n - ev.failures.length, failed: ev.failures.length },
    warnings: [...ev.warnings, ...biasWarnings(model.keys, point, intervals)],
    failures: ev.failures,
    documentsFile,
    worstDocuments: ev.worstDocuments,
    gates: { gateOn: 'point', failOnRegression: false, results: [], regressed: [], passed: true },
  };
  if (exp.source?.evaluationSetId) report.source.evaluationSetId = exp.source.evaluationSetId;
  if (exp.source?.batchProcessorRunId) report.source.batchProcessorRunId = exp.source.batchProcessorRunId;
  if (ev.extract) report.extract = ev.extract;
  if (ev.classify) report.classify = ev.classify;
  if (ev.splitter) report.splitter = ev.splitter;
  if (ev.calibration) report.calibration = ev.calibration;
  const cost = costs.report(ev.type, ev.type === 'EXTRACT' ? (ev.extract?.micro.counts.tp ?? 0) : ev.type === 'SPLITTER' ? (ev.splitter?.numCorrectDocs ?? 0) : ev.correct);
  if (cost) report.cost = cost;
  else if (opts.targetAccuracy !== undefined) report.warnings.push('--target-accuracy: no predicted value carries a confidence, so no threshold can be chosen');
  if (s.sliceKeys.length) {
    report.options.sliceBy = s.sliceKeys.map((k) => k.spec);
    if (s.slices) report.slices = s.slices.result();
  }
  if (opts.runs?.length) {
    report.runs = compareRuns({ file: report.source.file, export: exp, evaluation: ev }, opts.runs as readonly RunInput[], {
      cmp,
      conf: s.conf,
      pairBy,
      minPaired: minPairedOf(opts.minPaired, n),
      bootstrap: B,
      seed,
      equivalence,
      verdict,
    });
  }
  if (opts.baseline && side) {
    report.baseline = compareBaseline(ev, report.options, opts.baseline.file, side, B, seed, minPairedOf(opts.minPaired, n), opts.failOnRegression ?? false, opts.baseline.kind === 'report' ? 'report' : 'export', opts.baseline.kind === 'report' ? opts.baseline.report : undefined);
    // Repeats among the runs: the baseline's verdicts hold to their run-to-run spread too.
    if (report.runs) applyRunSpread(report.baseline, report.runs);
    if (s.baselinePartial) report.baseline.warnings.unshift(s.baselinePartial);
  }
  // A baseline of failures alone: nothing it got right can go wrong, so no regression can show.
  const baselineFailed = side && side.total > 0 && side.failed === side.total ? { file: opts.baseline?.file ?? 'baseline', failed: side.failed, documents: side.total } : undefined;
  if (baselineFailed && report.baseline) {
    report.baseline.warnings.unshift(
      `every run of the baseline failed (${baselineFailed.failed} of ${baselineFailed.documents}): it has no output to regress from, so its verdicts are no evidence` +
        (opts.failOnRegression ? ' and --fail-on-regression fails' : ''),
    );
  }
  report.gates = evaluateGates(report, gateSpecs, opts.gateOn ?? 'point', opts.failOnRegression ?? false, { maxFailedRate: opts.maxFailedRate, allowUnderpowered: opts.allowUnderpowered, alpha: ALPHA, baselineFailed });
  if (opts.failOnRegression && opts.allowUnderpowered && report.baseline) {
    const u = underpoweredRegression(report.baseline, ALPHA);
    if (u) report.warnings.push(`allowed underpowered comparison: ${underpoweredText(u, ALPHA)}, so the regression check cannot fail`);
  }
  report.warnings.push(...gatePowerWarnings(report));
  if (s.rec) {
    if (s.partial) report.warnings.push(s.partial);
    report.reconciliation = s.rec.result(report, s.partial !== undefined);
    report.warnings.push(...reconciliationWarnings(report.reconciliation, s.rec.typeMismatch()));
  }
  // Each later run with the service's run: its own reconciliation, beside the run.
  s.runServices?.forEach((rs, i) => {
    const run = report.runs?.runs[i + 1];
    if (!rs?.evaluation || !run) return;
    if (rs.partial) report.warnings.push(rs.partial);
    run.reconciliation = rs.rec.result(rs.evaluation, rs.partial !== undefined);
    const label = `reconciliation of run #${i + 1} ${run.file}:`;
    report.warnings.push(...reconciliationWarnings(run.reconciliation, rs.rec.typeMismatch()).map((w) => w.replace(/^reconciliation:/, label)));
  });
  return report;
}


function fillEstimates(ev: Evaluation, est: (key: string) => Estimate): void {
  if (ev.extract) {
    for (const f of ev.extract.fields) {
      f.f1 = est(`field:${f.path}.f1`);
      if (f.exact) f.exact.f1 = est(`field:${f.path}.exact.f1`);
    }
    ev.extract.micro.f1 = est('micro.f1');
    ev.extract.macro.f1 = est('macro.f1');
  }
  if (ev.classify) {
    for (const c of ev.classify.classes) c.f1 = est(`class:${c.label}.f1`);
    ev.classify.macro = { precision: est('macro.precision'), recall: est('macro.recall'), f1: est('macro.f1') };
    ev.classify.weighted = { f1: est('weighted.f1') };
  }
  if (ev.splitter) {
    ev.splitter.f1 = est('f1');
    ev.splitter.panoptic.pq = est('pq');
    for (const t of ev.splitter.types) t.f1 = est(`type:${t.type}.f1`);
  }
}

/** A baseline's documents as the comparison reads them. */
interface BaselineSide extends Pick<Evaluation, 'type' | 'table' | 'documents'> {
  units: string[];
  warnings: string[];
  cost?: CostReport;
  /** The documents' pairing keys, in the order of the model's documents. */
  keys: Pairable[];
  /** How many documents the baseline has, and of them how many runs failed. */
  total: number;
  failed: number;
}


/** The straight-through flag of the document at id-order position i (undefined: none). */
function flagOf(ev: Pick<Evaluation, 'table' | 'documents'>, i: number): boolean | undefined {
  return ev.table ? ev.table.straightThrough(ev.table.order[i]) : ev.documents?.[i].straightThrough;
}

function baselineSide(input: BaselineInput, cmp: CompareOptions, conf: ConfidenceOptions, ev: Evaluation | undefined): BaselineSide {
  void cmp;
  void conf;
  if (input.kind !== 'report') {
    if (!ev) throw new InternalError('a baseline export that was not scored');
    const cost = baselineCost.get(input)?.report(ev.type, ev.type === 'EXTRACT' ? (ev.extract?.micro.counts.tp ?? 0) : ev.type === 'SPLITTER' ? (ev.splitter?.numCorrectDocs ?? 0) : ev.correct);
    const keys = keysOf(ev);
    return { type: ev.type, table: ev.table, documents: ev.documents, units: ev.units, warnings: [], cost, keys, total: keys.length, failed: ev.failures.length };
  }
  const r = input.report;
  const units = r.extract?.fields.map((f) => f.path) ?? r.classify?.classes.map((c) => c.label) ?? r.splitter?.types.map((t) => t.type) ?? [];
  const docs = input.documents;
  const table = docs instanceof ExtractTable ? docs : r.type === 'EXTRACT' ? ExtractTable.fromRecords(docs, units) : undefined;
  const records = docs instanceof ExtractTable ? undefined : r.type === 'EXTRACT' ? undefined : docs;
  const side = { type: r.type, table, documents: records };
  const keys = keysOf(side);
  // Format 3 says how many runs failed; older formats in their records.
  const failed = r.summary?.failed ?? (Array.isArray(docs) ? docs.filter((d) => d.failed).length : 0);
  return { ...side, units, warnings: [], cost: r.cost, keys, total: keys.length, failed };
}

function optionWarnings(r: BaselineReport, options: Report['options']): string[] {
  const warnings: string[] = [];
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  for (const k of ['fuzzyThreshold', 'numberTolerance', 'fuzzyMatchFields', 'excludeFields'] as const) {
    if (!same(r.options[k], options[k])) warnings.push(`the baseline report was computed with ${k} ${JSON.stringify(r.options[k])}, this report with ${JSON.stringify(options[k])}`);
  }
  return warnings;
}

function compareBaseline(
  ev: Evaluation,
  options: Report['options'],
  file: string,
  side: BaselineSide,
  B: number,
  seed: number,
  minPaired: number,
  gated: boolean,
  kind: 'export' | 'report',
  baselineReport?: BaselineReport,
): BaselineComparison {
  if (side.type !== ev.type) {
    throw new InputError(`the baseline is a ${side.type} evaluation but this export is ${ev.type}`, {
      location: { file },
      hint: 'compare runs of the same processor type',
    });
  }
  const warnings = [...side.warnings, ...(baselineReport ? optionWarnings(baselineReport, options) : [])];
  const curKeys = keysOf(ev);
  const pairing = pairDocuments(curKeys, side.keys, options.pairBy);
  const paired = pairing.pairs.length;
  const curIndex = Int32Array.from(pairing.pairs, ([i]) => i);
  const baseIndex = Int32Array.from(pairing.pairs, ([, j]) => j);
  const onlyInCurrent = pairing.onlyInCurrent.map((i) => curKeys[i].id).sort();
  const onlyInBaseline = pairing.onlyInBaseline.map((j) => side.keys[j].id).sort();
  const sufficient = paired >= minPaired;
  if (!sufficient) {
    warnings.push(
      `only ${paired} of ${ev.n} document(s) paired with the baseline's ${side.keys.length} (at least ${minPaired} needed); ` +
        'the comparison is not evidence' +
        (gated ? ' and --fail-on-regression fails' : ''),
    );
  }

  // EXTRACT compares the fields both runs have (aggregates too); classes and split types are pooled.
  let units: string[];
  const onlyCurrentUnits: string[] = [];
  if (ev.type === 'EXTRACT') {
    const baseUnits = new Set(side.units);
    units = ev.units.filter((u) => baseUnits.has(u));
    onlyCurrentUnits.push(...ev.units.filter((u) => !baseUnits.has(u)));
    const curUnits = new Set(ev.units);
    const onlyBase = side.units.filter((u) => !curUnits.has(u));
    if (onlyCurrentUnits.length || onlyBase.length) {
      warnings.push(
        `aggregates compare the ${units.length} field(s) both runs have` +
          (onlyCurrentUnits.length ? `; only in this run: ${onlyCurrentUnits.join(', ')}` : '') +
          (onlyBase.length ? `; only in the baseline: ${onlyBase.join(', ')}` : ''),
      );
    }
  } else {
    units = [...new Set([...ev.units, ...side.units])].sort();
  }

  const curModel = modelOf(ev, units, [], curIndex);
  const baseModel = modelOf(side, units, [], baseIndex);
  const curPoint = pointStats(curModel);
  const basePoint = pointStats(baseModel);
  const K = curModel.keys.length;
  let deltaIntervals: Array<Interval | null> = curModel.keys.map(() => null);
  if (B > 0 && paired > 0) {
    const [rc, rb] = bootstrap([curModel, baseModel], paired, B, seed + 1);
    deltaIntervals = Array.from({ length: K }, (_, k) => {
      const d = new Float64Array(B);
      for (let b = 0; b < B; b++) d[b] = rc[k][b] - rb[k][b];
      return percentileInterval(d);
    });
  }
  const rows: ComparisonRow[] = curModel.keys.map((key, k) => {
    const { b, c } = discordant(curModel, baseModel, key, paired);
    const current = nullable(curPoint[k]);
    const baseline = nullable(basePoint[k]);
    const delta = current === null || baseline === null ? null : current - baseline;
    const p = mcnemarExact(b, c);
    return { key, current, baseline, delta, interval: deltaIntervals[k], mcnemar: { b, c, p }, pHolm: p, q: p, mde: mcnemarMde(b, c, paired), verdict: 'not_comparable' };
  });
  // Many metrics, many tests: Holm across the comparable rows for the verdicts (and so the gate),
  // Benjamini-Hochberg q-values for reading the table.
  const comparable = rows.filter((r) => r.delta !== null);
  const adjusted = holm(comparable.map((r) => r.mcnemar.p));
  const qs = benjaminiHochberg(comparable.map((r) => r.mcnemar.p));
  comparable.forEach((r, i) => {
    r.pHolm = adjusted[i];
    r.q = qs[i];
  });
  for (const r of rows) r.verdict = verdict(r.delta, r.interval, r.mcnemar.b, r.mcnemar.c, r.pHolm, B, options.equivalence);
  if (ev.type === 'EXTRACT' && units.length === 0) {
    // No field in both runs: even document accuracy would weigh each run on other fields (or on
    // none). Nothing is compared, and --fail-on-regression fails (gates.ts).
    for (const r of rows) Object.assign(r, { delta: null, interval: null, verdict: 'not_comparable' });
    warnings.push(`the runs share no field: nothing is compared${gated ? ' and --fail-on-regression fails' : ''}`);
  }
  for (const u of onlyCurrentUnits) {
    rows.push({ key: `field:${u}.f1`, current: null, baseline: null, delta: null, interval: null, mcnemar: { b: 0, c: 0, p: 1 }, pHolm: 1, q: 1, mde: null, verdict: 'not_comparable' });
  }
  rows.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  const tally = { improved: 0, regressed: 0, inconclusive: 0, no_change: 0, not_comparable: 0 };
  for (const r of rows) tally[r.verdict]++;
  if (gated && paired > 0) warnings.push(...comparisonPowerWarnings(rows, paired, options.equivalence));
  const straightThrough = compareStraightThrough(
    Array.from(curIndex, (i) => flagOf(ev, i)),
    Array.from(baseIndex, (j) => flagOf(side, j)),
    B,
    seed + 2,
  );
  return {
    ...(straightThrough ? { straightThrough } : {}),
    ...(side.cost ? { cost: side.cost } : {}),
    file,
    kind,
    paired,
    pairing: {
      by: options.pairBy,
      current: ev.n,
      baseline: side.keys.length,
      paired,
      byKey: pairing.byKey,
      minPaired,
      sufficient,
    },
    equivalence: options.equivalence,
    onlyInCurrent,
    onlyInBaseline,
    warnings,
    rows,
    tally,
  };
}

/**
 * A percentile interval that does not contain its own estimate: the statistic's resampled values
 * sit to one side of it (a mean over many classes of a few documents each, where a resample that
 * leaves out a class's one prediction counts its precision as 0). Said, not hidden: the interval
 * is approximate there (docs/metrics.md#intervals).
 */
function biasWarnings(keys: readonly string[], point: Float64Array, intervals: ReadonlyArray<Interval | null>): string[] {
  const outside: string[] = [];
  keys.forEach((key, k) => {
    const i = intervals[k];
    const v = point[k];
    if (i && Number.isFinite(v) && (v < i.lower || v > i.upper)) outside.push(`${key} ${v.toFixed(3)} outside [${i.lower.toFixed(3)}, ${i.upper.toFixed(3)}]`);
  });
  if (outside.length === 0) return [];
  const shown = outside.slice(0, 5).join('; ') + (outside.length > 5 ? `; and ${outside.length - 5} more` : '');
  return [`bootstrap interval without its own estimate (the resamples lean to one side of it, as a mean over many classes or fields of a few documents each does): ${shown}; read these intervals as approximate`];
}

/**
 * The straight-through rate of both runs over the paired documents (each at its own thresholds)
 * and a paired bootstrap interval of the difference; undefined unless every paired document
 * carries the flag on both sides.
 */
function compareStraightThrough(cur: Array<boolean | undefined>, base: Array<boolean | undefined>, B: number, seed: number): BaselineComparison['straightThrough'] {
  const n = cur.length;
  if (n === 0 || cur.some((d) => d === undefined) || base.some((d) => d === undefined)) return undefined;
  const c = Float64Array.from(cur, (d) => (d ? 1 : 0));
  const b = Float64Array.from(base, (d) => (d ? 1 : 0));
  const current = c.reduce((x, y) => x + y, 0) / n;
  const baseline = b.reduce((x, y) => x + y, 0) / n;
  const model: StatModel = { keys: ['delta'], columns: [c, b], compute: (s, out) => void (out[0] = (s[0] - s[1]) / n) };
  // Every resample draws n documents, so the sums over n are the resampled rates.
  const interval = B > 0 ? percentileInterval(bootstrap([model], n, B, seed)[0][0]) : null;
  return { current, baseline, delta: current - baseline, interval, paired: n };
}

/**
 * Power of the regression gate: for each aggregate whose minimum detectable effect (80% power)
 * exceeds the equivalence margin, how large a change these documents can detect and about how
 * many documents a change of the margin would need.
 */
function comparisonPowerWarnings(rows: ComparisonRow[], n: number, margin: number): string[] {
  const weak = rows.filter((r) => !r.key.includes(':') && r.mde !== null && r.delta !== null && r.mde > margin);
  if (weak.length === 0 || margin === 0) return [];
  const byMde = new Map<string, string[]>();
  for (const r of weak) {
    const m = (r.mde as number) >= 1 ? 'no change of any size' : `a change of ${fmtGate(r.mde as number, margin)} or more`;
    byMde.set(m, [...(byMde.get(m) ?? []), r.key]);
  }
  const worst = weak.reduce((a, r) => ((r.mde as number) > (a.mde as number) ? r : a));
  const d = (worst.mcnemar.b + worst.mcnemar.c) / n;
  return [
    `power: these ${n} paired documents cannot detect a regression of the equivalence margin (${margin}); in per-document correctness they detect at 80% power ` +
      [...byMde].map(([m, keys]) => `${m} for ${keys.join(', ')}`).join('; ') +
      `; detecting ${margin} needs about ${mcnemarPairsNeeded(margin, d)} documents`,
  ];
}

/** For a threshold gate: the estimate is closer to the threshold than the set can resolve. */
function gatePowerWarnings(report: Report): string[] {
  const out: string[] = [];
  for (const g of report.gates.results) {
    if (g.mde === undefined || g.mde === null || g.value === null || g.metric === 'failed.rate' || isCountGate(g.metric)) continue;
    const margin = Math.abs(g.value - g.threshold);
    if (margin >= g.mde) continue;
    const need = margin > 0 ? Math.ceil(report.summary.documents * (g.mde / margin) ** 2) : undefined;
    out.push(
      `power: gate ${g.gate}: ${fmtGate(g.value, g.threshold)} is ${fmtGate(margin, 0)} from the threshold, less than this set resolves at 80% power (${fmtGate(g.mde, 0)})` +
        (need ? `; resolving that needs about ${need} documents` : ''),
    );
  }
  return out;
}

/**
 * Corrected verdicts. `improved` / `regressed`: the delta's interval lies above / below 0 and
 * the Holm-adjusted exact McNemar p is below 0.05 with the discordant pairs in the same
 * direction (with --bootstrap 0 the delta's sign stands in for the interval). `no_change`: the
 * interval lies inside [−margin, +margin] (with --bootstrap 0: |delta| ≤ margin). Otherwise
 * `inconclusive`: the data cannot tell a change of the margin from none.
 */
export function verdict(delta: number | null, interval: Interval | null, b: number, c: number, pHolm: number, B: number, margin = DEFAULT_EQUIVALENCE): Verdict {
  if (delta === null) return 'not_comparable';
  const significant = pHolm < ALPHA;
  const above = B > 0 ? interval !== null && interval.lower > 0 : delta > 0;
  const below = B > 0 ? interval !== null && interval.upper < 0 : delta < 0;
  if (significant && c > b && above) return 'improved';
  if (significant && b > c && below) return 'regressed';
  const inside = B > 0 ? interval !== null && interval.lower >= -margin && interval.upper <= margin : Math.abs(delta) <= margin;
  return inside ? 'no_change' : 'inconclusive';
}

/**
 * computeReport: export -> canonical report. Scores the documents, adds bootstrap intervals,
 * the paired comparison with a baseline and the gates. Deterministic: the same inputs and
 * seed give the same report; rows are sorted here, keys when rendered (src/report/json.ts).
 */
import { InputError, UsageError } from '../util/errors.js';
import type { EvaluationExport } from '../metrics/generated/export.js';
import { bootstrap, pointStats, type StatModel } from '../metrics/bootstrap.js';
import { DEFAULT_COMPARE, type CompareOptions } from '../metrics/comparators.js';
import { evaluateExport, exportOptions, modelFor, sortedItems, type ConfidenceOptions, type Evaluation } from '../metrics/evaluate.js';
import { extractModel } from '../metrics/models.js';
import { CONFIDENCE_SOURCES, type ConfidenceSource } from '../metrics/calibration.js';
import { benjaminiHochberg, holm, mcnemarExact, mcnemarMde, mcnemarPairsNeeded, percentileInterval } from '../metrics/stats.js';
import type { BaselineComparison, ComparisonRow, CostReport, DocumentRecord, Estimate, Interval, Report, Verdict } from '../metrics/generated/report.js';
import { correctUnits, costOf } from './cost.js';
import { evaluateGates, fmtGate, parseGates, type GateOn, type GateSpec } from './gates.js';
import { parseSliceKeys, SliceAccumulator } from './slices.js';
import { minPairedOf, pairDocuments, PAIR_BY, type PairBy } from './pairing.js';
import { applyRunSpread, compareRuns, type RunInput } from './runs.js';

export type BaselineInput = { kind: 'export'; file: string; export: EvaluationExport } | { kind: 'report'; file: string; report: Report };

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
  /** Which confidence to read: logprobs, ocr, review (1-5 as 0-1) or min (default: logprobs where present). */
  confidence?: ConfidenceSource;
  /** Auto-accept thresholds: the lowest confidence whose accepted values' Wilson lower bound reaches this. */
  targetAccuracy?: number;
  /** Slice keys: `metadata.PATH`, `fileType`, `pageCount` or `pageCount:1;3;10` (README: Slices). */
  sliceBy?: readonly string[];
  /** More runs of the same set beside this one (the reference): the multi-run section (src/report/runs.ts). */
  runs?: readonly RunInput[];
}

export const DEFAULT_BOOTSTRAP = 2000;
export const DEFAULT_SEED = 1;
export const DEFAULT_EQUIVALENCE = 0.01;
/** Family-wise error rate of the regression verdicts (Holm-adjusted McNemar p below it). */
export const ALPHA = 0.05;

function check(ok: boolean, message: string, hint: string): void {
  if (!ok) throw new UsageError(message, { hint });
}

const nullable = (v: number): number | null => (Number.isNaN(v) ? null : v);

export function computeReport(exp: EvaluationExport, opts: ComputeReportOptions = {}): Report {
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
  const ev = evaluateExport(exp, cmp, { source: opts.confidence, targetAccuracy: opts.targetAccuracy });
  const exactFields = ev.extract?.fields.filter((f) => f.fuzzy).map((f) => f.path) ?? [];
  const model = ev.type === 'EXTRACT' ? extractModel(ev.documents, ev.units, ev.dense, exactFields) : modelFor(ev.type, ev.documents, ev.units, ev.dense);
  const point = pointStats(model);
  const n = ev.documents.length;
  const intervals: Array<Interval | null> = B > 0 && n > 0 ? bootstrap([model], n, B, seed)[0].map(percentileInterval) : model.keys.map(() => null);
  const keyIndex = new Map(model.keys.map((k, i) => [k, i]));
  const est = (key: string): Estimate => {
    const i = keyIndex.get(key) as number;
    return { value: nullable(point[i]), interval: intervals[i] };
  };
  fillEstimates(ev, est);

  const options = exportOptions(exp);
  const report: Report = {
    format: 'evalkit-report/2',
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
    warnings: ev.warnings,
    failures: ev.failures,
    documents: ev.documents,
    worstDocuments: ev.worstDocuments,
    gates: { gateOn: 'point', failOnRegression: false, results: [], regressed: [], passed: true },
  };
  if (exp.source?.evaluationSetId) report.source.evaluationSetId = exp.source.evaluationSetId;
  if (exp.source?.batchProcessorRunId) report.source.batchProcessorRunId = exp.source.batchProcessorRunId;
  if (ev.extract) report.extract = ev.extract;
  if (ev.classify) report.classify = ev.classify;
  if (ev.splitter) report.splitter = ev.splitter;
  if (ev.calibration) report.calibration = ev.calibration;
  const cost = costOf(exp.items, ev.type, correctUnits(report));
  if (cost) report.cost = cost;
  else if (opts.targetAccuracy !== undefined) report.warnings.push('--target-accuracy: no predicted value carries a confidence, so no threshold can be chosen');
  if (sliceKeys.length) {
    report.options.sliceBy = sliceKeys.map((k) => k.spec);
    const slices = new SliceAccumulator(ev.type, sliceKeys);
    sortedItems(exp).forEach((item, i) => slices.add(item, ev.documents[i]));
    report.slices = slices.result();
  }
  if (opts.runs?.length) {
    report.runs = compareRuns({ file: report.source.file, export: exp, evaluation: ev }, opts.runs, {
      cmp,
      conf: { source: opts.confidence, targetAccuracy: opts.targetAccuracy },
      pairBy,
      minPaired: minPairedOf(opts.minPaired, n),
      bootstrap: B,
      seed,
      equivalence,
      verdict,
    });
  }
  if (opts.baseline) {
    report.baseline = compareBaseline(ev, report.options, opts.baseline, cmp, B, seed, minPairedOf(opts.minPaired, n), opts.failOnRegression ?? false, {
      source: opts.confidence,
      targetAccuracy: opts.targetAccuracy,
    });
    // Repeats among the runs: the baseline's verdicts hold to their run-to-run spread too.
    if (report.runs) applyRunSpread(report.baseline, report.runs);
  }
  report.gates = evaluateGates(report, gateSpecs, opts.gateOn ?? 'point', opts.failOnRegression ?? false, { maxFailedRate: opts.maxFailedRate });
  report.warnings.push(...gatePowerWarnings(report));
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

interface BaselineSide {
  type: Report['type'];
  documents: DocumentRecord[];
  units: string[];
  warnings: string[];
  cost?: CostReport;
}

function baselineSide(input: BaselineInput, options: Report['options'], cmp: CompareOptions, conf: ConfidenceOptions): BaselineSide {
  if (input.kind === 'export') {
    const ev = evaluateExport(input.export, cmp, conf);
    const cost = costOf(input.export.items, ev.type, correctUnits({ ...ev, type: ev.type }));
    return { type: ev.type, documents: ev.documents, units: ev.units, warnings: [], cost };
  }
  const r = input.report;
  const warnings: string[] = [];
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  for (const k of ['fuzzyThreshold', 'numberTolerance', 'fuzzyMatchFields', 'excludeFields'] as const) {
    if (!same(r.options[k], options[k])) warnings.push(`the baseline report was computed with ${k} ${JSON.stringify(r.options[k])}, this report with ${JSON.stringify(options[k])}`);
  }
  const units = r.extract?.fields.map((f) => f.path) ?? r.classify?.classes.map((c) => c.label) ?? r.splitter?.types.map((t) => t.type) ?? [];
  return { type: r.type, documents: r.documents, units, warnings, cost: r.cost };
}

function compareBaseline(
  ev: Evaluation,
  options: Report['options'],
  input: BaselineInput,
  cmp: CompareOptions,
  B: number,
  seed: number,
  minPaired: number,
  gated: boolean,
  conf: ConfidenceOptions,
): BaselineComparison {
  const side = baselineSide(input, options, cmp, conf);
  if (side.type !== ev.type) {
    throw new InputError(`the baseline is a ${side.type} evaluation but this export is ${ev.type}`, {
      location: { file: input.file },
      hint: 'compare runs of the same processor type',
    });
  }
  const warnings = [...side.warnings];
  const pairing = pairDocuments(ev.documents, side.documents, options.pairBy);
  const cur = pairing.pairs.map(([i]) => ev.documents[i]);
  const base = pairing.pairs.map(([, j]) => side.documents[j]);
  const onlyInCurrent = pairing.onlyInCurrent.map((i) => ev.documents[i].id).sort();
  const onlyInBaseline = pairing.onlyInBaseline.map((j) => side.documents[j].id).sort();
  const sufficient = cur.length >= minPaired;
  if (!sufficient) {
    warnings.push(
      `only ${cur.length} of ${ev.documents.length} document(s) paired with the baseline's ${side.documents.length} (at least ${minPaired} needed); ` +
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

  const curModel = modelFor(ev.type, cur, units);
  const baseModel = modelFor(ev.type, base, units);
  const curPoint = pointStats(curModel);
  const basePoint = pointStats(baseModel);
  const K = curModel.keys.length;
  let deltaIntervals: Array<Interval | null> = curModel.keys.map(() => null);
  if (B > 0 && cur.length > 0) {
    const [rc, rb] = bootstrap([curModel, baseModel], cur.length, B, seed + 1);
    deltaIntervals = Array.from({ length: K }, (_, k) => {
      const d = new Float64Array(B);
      for (let b = 0; b < B; b++) d[b] = rc[k][b] - rb[k][b];
      return percentileInterval(d);
    });
  }
  const rows: ComparisonRow[] = curModel.keys.map((key, k) => {
    const isCorrect = curModel.correct(key);
    let b = 0;
    let c = 0;
    for (let i = 0; i < cur.length; i++) {
      const was = isCorrect(base[i]);
      const now = isCorrect(cur[i]);
      if (was && !now) b++;
      else if (!was && now) c++;
    }
    const current = nullable(curPoint[k]);
    const baseline = nullable(basePoint[k]);
    const delta = current === null || baseline === null ? null : current - baseline;
    const p = mcnemarExact(b, c);
    return { key, current, baseline, delta, interval: deltaIntervals[k], mcnemar: { b, c, p }, pHolm: p, q: p, mde: mcnemarMde(b, c, cur.length), verdict: 'not_comparable' };
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
  for (const u of onlyCurrentUnits) {
    rows.push({ key: `field:${u}.f1`, current: null, baseline: null, delta: null, interval: null, mcnemar: { b: 0, c: 0, p: 1 }, pHolm: 1, q: 1, mde: null, verdict: 'not_comparable' });
  }
  rows.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  const tally = { improved: 0, regressed: 0, inconclusive: 0, no_change: 0, not_comparable: 0 };
  for (const r of rows) tally[r.verdict]++;
  if (gated && cur.length > 0) warnings.push(...comparisonPowerWarnings(rows, cur.length, options.equivalence));
  const straightThrough = compareStraightThrough(cur, base, B, seed + 2);
  return {
    ...(straightThrough ? { straightThrough } : {}),
    ...(side.cost ? { cost: side.cost } : {}),
    file: input.file,
    kind: input.kind,
    paired: cur.length,
    pairing: {
      by: options.pairBy,
      current: ev.documents.length,
      baseline: side.documents.length,
      paired: cur.length,
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
 * The straight-through rate of both runs over the paired documents (each at its own thresholds)
 * and a paired bootstrap interval of the difference; undefined unless every paired document
 * carries the flag on both sides.
 */
function compareStraightThrough(cur: DocumentRecord[], base: DocumentRecord[], B: number, seed: number): BaselineComparison['straightThrough'] {
  const n = cur.length;
  if (n === 0 || cur.some((d) => d.straightThrough === undefined) || base.some((d) => d.straightThrough === undefined)) return undefined;
  const c = Float64Array.from(cur, (d) => (d.straightThrough ? 1 : 0));
  const b = Float64Array.from(base, (d) => (d.straightThrough ? 1 : 0));
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
    if (g.mde === undefined || g.mde === null || g.value === null || g.metric === 'failed.rate' || g.metric === 'baseline.paired') continue;
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

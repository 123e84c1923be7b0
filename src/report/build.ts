/**
 * computeReport: export -> canonical report. Scores the documents, adds bootstrap intervals,
 * the paired comparison with a baseline and the gates. Deterministic: the same inputs and
 * seed give the same report; rows are sorted here, keys when rendered (src/report/json.ts).
 */
import { InputError, UsageError } from '../util/errors.js';
import type { EvaluationExport } from '../metrics/generated/export.js';
import { bootstrap, pointStats } from '../metrics/bootstrap.js';
import { DEFAULT_COMPARE, type CompareOptions } from '../metrics/comparators.js';
import { evaluateExport, modelFor, type Evaluation } from '../metrics/evaluate.js';
import { mcnemarExact, percentileInterval } from '../metrics/stats.js';
import type { BaselineComparison, ComparisonRow, DocumentRecord, Estimate, Interval, Report, Verdict } from '../metrics/generated/report.js';
import { evaluateGates, parseGates, type GateOn, type GateSpec } from './gates.js';

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
  gates?: ReadonlyArray<string | GateSpec>;
  gateOn?: GateOn;
  failOnRegression?: boolean;
}

export const DEFAULT_BOOTSTRAP = 2000;
export const DEFAULT_SEED = 1;
/** McNemar p-value below which a change in per-document correctness counts as real. */
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
  check(cmp.fuzzyThreshold >= 0 && cmp.fuzzyThreshold <= 1, `--fuzzy-threshold ${cmp.fuzzyThreshold} is not between 0 and 1`, 'the default is 0.9');
  check(cmp.numberTolerance >= 0 && Number.isFinite(cmp.numberTolerance), `--number-tolerance ${cmp.numberTolerance} must be 0 or more`, 'the default is 1e-6 (relative)');
  check(Number.isInteger(B) && B >= 0, `--bootstrap ${B} must be a whole number, 0 or more`, 'the default is 2000; 0 turns the bootstrap off');
  check(Number.isInteger(seed), `--seed ${seed} must be a whole number`, 'the default is 1');
  const gateSpecs = (opts.gates ?? []).flatMap((g) => (typeof g === 'string' ? parseGates([g]) : [g]));
  if (opts.failOnRegression && !opts.baseline) {
    throw new UsageError('--fail-on-regression needs --baseline', { hint: 'pass the report.json or export of the run to compare with' });
  }

  const ev = evaluateExport(exp, cmp);
  const model = modelFor(ev.type, ev.documents, ev.units, ev.dense);
  const point = pointStats(model);
  const n = ev.documents.length;
  const intervals: Array<Interval | null> = B > 0 && n > 0 ? bootstrap([model], n, B, seed)[0].map(percentileInterval) : model.keys.map(() => null);
  const keyIndex = new Map(model.keys.map((k, i) => [k, i]));
  const est = (key: string): Estimate => {
    const i = keyIndex.get(key) as number;
    return { value: nullable(point[i]), interval: intervals[i] };
  };
  fillEstimates(ev, est);

  const report: Report = {
    format: 'evalkit-report/1',
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
      fuzzyMatchFields: [...exp.options.fuzzyMatchFields].sort(),
      excludeFields: [...exp.options.excludeFields].sort(),
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
  if (opts.baseline) report.baseline = compareBaseline(ev, report.options, opts.baseline, cmp, B, seed);
  report.gates = evaluateGates(report, gateSpecs, opts.gateOn ?? 'point', opts.failOnRegression ?? false);
  return report;
}

function fillEstimates(ev: Evaluation, est: (key: string) => Estimate): void {
  if (ev.extract) {
    for (const f of ev.extract.fields) f.f1 = est(`field:${f.path}.f1`);
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
}

function baselineSide(input: BaselineInput, options: Report['options'], cmp: CompareOptions): BaselineSide {
  if (input.kind === 'export') {
    const ev = evaluateExport(input.export, cmp);
    return { type: ev.type, documents: ev.documents, units: ev.units, warnings: [] };
  }
  const r = input.report;
  const warnings: string[] = [];
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  for (const k of ['fuzzyThreshold', 'numberTolerance', 'fuzzyMatchFields', 'excludeFields'] as const) {
    if (!same(r.options[k], options[k])) warnings.push(`the baseline report was computed with ${k} ${JSON.stringify(r.options[k])}, this report with ${JSON.stringify(options[k])}`);
  }
  const units = r.extract?.fields.map((f) => f.path) ?? r.classify?.classes.map((c) => c.label) ?? r.splitter?.types.map((t) => t.type) ?? [];
  return { type: r.type, documents: r.documents, units, warnings };
}

function compareBaseline(ev: Evaluation, options: Report['options'], input: BaselineInput, cmp: CompareOptions, B: number, seed: number): BaselineComparison {
  const side = baselineSide(input, options, cmp);
  if (side.type !== ev.type) {
    throw new InputError(`the baseline is a ${side.type} evaluation but this export is ${ev.type}`, {
      location: { file: input.file },
      hint: 'compare runs of the same processor type',
    });
  }
  const warnings = [...side.warnings];
  const baseById = new Map(side.documents.map((d) => [d.id, d]));
  const curIds = new Set(ev.documents.map((d) => d.id));
  const cur: DocumentRecord[] = [];
  const base: DocumentRecord[] = [];
  for (const d of ev.documents) {
    const b = baseById.get(d.id);
    if (b) {
      cur.push(d);
      base.push(b);
    }
  }
  const onlyInCurrent = ev.documents.filter((d) => !baseById.has(d.id)).map((d) => d.id);
  const onlyInBaseline = side.documents.filter((d) => !curIds.has(d.id)).map((d) => d.id).sort();
  if (cur.length === 0) warnings.push('no document is in both runs (items are paired by id); nothing can be compared');

  // EXTRACT compares the fields both runs have (aggregates too); classes and split types are pooled.
  let units: string[];
  const onlyCurrentUnits: string[] = [];
  if (ev.type === 'EXTRACT') {
    const baseUnits = new Set(side.units);
    units = ev.units.filter((u) => baseUnits.has(u));
    onlyCurrentUnits.push(...ev.units.filter((u) => !baseUnits.has(u)));
    const onlyBase = side.units.filter((u) => !ev.units.includes(u));
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
    return { key, current, baseline, delta, interval: deltaIntervals[k], mcnemar: { b, c, p }, verdict: verdict(delta, deltaIntervals[k], b, c, p, B) };
  });
  for (const u of onlyCurrentUnits) {
    rows.push({ key: `field:${u}.f1`, current: null, baseline: null, delta: null, interval: null, mcnemar: { b: 0, c: 0, p: 1 }, verdict: 'not_comparable' });
  }
  rows.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  const tally = { improved: 0, regressed: 0, within_noise: 0, not_comparable: 0 };
  for (const r of rows) tally[r.verdict]++;
  return { file: input.file, kind: input.kind, paired: cur.length, onlyInCurrent, onlyInBaseline, warnings, rows, tally };
}

/**
 * A change is called real only when both tests agree: the paired bootstrap interval of the
 * delta excludes 0 and the exact McNemar test on per-document correctness gives p < 0.05 in
 * the same direction. With --bootstrap 0, McNemar and the sign of the delta decide.
 */
export function verdict(delta: number | null, interval: Interval | null, b: number, c: number, p: number, B: number): Verdict {
  if (delta === null) return 'not_comparable';
  const significant = p < ALPHA;
  if (B > 0) {
    if (interval && interval.lower > 0 && significant && c > b) return 'improved';
    if (interval && interval.upper < 0 && significant && b > c) return 'regressed';
    return 'within_noise';
  }
  if (significant && c > b && delta > 0) return 'improved';
  if (significant && b > c && delta < 0) return 'regressed';
  return 'within_noise';
}

/**
 * Gates: `METRIC>=N`, `METRIC<=N` or `METRIC=N` (as `>=`), evaluated on the point estimate or on the lower
 * bound of its 95% interval, and `--fail-on-regression` over the baseline verdicts.
 */
import { UsageError } from '../util/errors.js';
import type { GateResult, Gates, Interval, Report } from '../metrics/generated/report.js';
import { mcnemarExact, pairsForSignificance, smallestHolmMcnemar, wilson, Z80, Z95 } from '../metrics/stats.js';
import { costMetrics } from './cost.js';

/** Family-wise error rate of the regression verdicts (Holm-adjusted McNemar p below it). */
export const ALPHA = 0.05;

export interface GateSpec {
  /** As the user wrote it, e.g. `micro.f1>=0.9`. */
  gate: string;
  metric: string;
  threshold: number;
  /** `>=` (also written `=`) or `<=`. */
  op?: '>=' | '<=';
  /** Where the gate was given (`--fail-under`, `--gate`), for messages; `gate` when unset. */
  label?: string;
}

/**
 * The one gate syntax (the CLI's --fail-under and --gate, the config file's `gates`, the
 * library's `gates`): `METRIC>=N`, `METRIC<=N`, or `METRIC=N`, the same as `>=`. Several may be
 * joined with commas. METRIC is any metric of the report (thresholds 0 to 1) or a cost metric
 * (`latency.mean|p50|p95` in ms, `credits.total|mean|perCorrect`; thresholds 0 or more).
 * `label` names where the gates came from in messages (the CLI passes its flag).
 */
export function parseGates(texts: readonly string[], label = 'gate'): GateSpec[] {
  const out: GateSpec[] = [];
  for (const text of texts) {
    for (const part of text.split(',')) {
      const gate = part.trim();
      if (gate === '') continue;
      const m = /^(.+?)\s*(<=|>=|=)\s*(\S+)$/.exec(gate);
      const threshold = m ? Number(m[3]) : NaN;
      if (!m || !Number.isFinite(threshold)) {
        throw new UsageError(`${label} "${gate}": expected METRIC>=N, METRIC<=N or METRIC=N (the same as >=)`, { hint: "for example 'micro.f1>=0.9', 'field:total.recall>=0.95' or 'latency.p95<=30000'" });
      }
      const metric = m[1].trim();
      const cost = isCostMetric(metric);
      if (threshold < 0 || (!cost && threshold > 1)) {
        const fix = `write ${metric}${m[2]}${threshold > 1 && threshold <= 100 ? threshold / 100 : 0.9}`;
        throw new UsageError(`${label} "${gate}": the threshold must be ${cost ? '0 or more' : 'between 0 and 1'}`, { hint: cost ? 'latency in milliseconds, credits as the service counts them' : `quality metrics are shares from 0 to 1: ${fix}` });
      }
      out.push({ gate, metric, threshold, op: m[2] === '<=' ? '<=' : '>=', label });
    }
  }
  return out;
}

/** Gates on a count of documents or metrics (the baseline's pairing and comparison): printed as integers. */
export function isCountGate(metric: string): boolean {
  return metric === 'baseline.paired' || metric === 'baseline.compared' || metric === 'baseline.processed' || metric === 'processed';
}

export function isCostMetric(name: string): boolean {
  return /^(latency\.(mean|p50|p95)|credits\.(total|mean|perCorrect))$/.test(name);
}

export type GateOn = 'point' | 'lower';

export interface MetricValue {
  value: number | null;
  interval: Interval | null;
}

const ALIASES: Record<Report['type'], Record<string, string>> = {
  EXTRACT: { precision: 'micro.precision', recall: 'micro.recall', f1: 'micro.f1', accuracy: 'micro.accuracy' },
  CLASSIFY: { precision: 'macro.precision', recall: 'macro.recall', f1: 'macro.f1' },
  SPLITTER: { accuracy: 'page.accuracy' },
};

const UNIT_HINT: Record<Report['type'], string> = {
  EXTRACT: 'field: field:PATH.precision|recall|f1|accuracy (e.g. field:total.recall), per array: array:PATH.cardinality',
  CLASSIFY: 'class: class:LABEL.precision|recall|f1',
  SPLITTER: 'split type: type:TYPE.precision|recall|f1',
};

/** Every metric a gate can name, by its canonical name. */
export function metricCatalog(report: Report): Map<string, MetricValue> {
  const m = new Map<string, MetricValue>();
  const put = (k: string, v: MetricValue): void => void m.set(k, { value: v.value, interval: v.interval });
  if (report.extract) {
    const x = report.extract;
    for (const k of ['precision', 'recall', 'f1', 'accuracy'] as const) put(`micro.${k}`, x.micro[k]);
    put('macro.f1', x.macro.f1);
    put('document.accuracy', x.document.accuracy);
    for (const f of x.fields) for (const k of ['precision', 'recall', 'f1', 'accuracy'] as const) put(`field:${f.path}.${k}`, f[k]);
    for (const a of x.arrays) put(`array:${a.path}.cardinality`, a.rate);
  }
  if (report.classify) {
    const c = report.classify;
    put('accuracy', c.accuracy);
    for (const k of ['precision', 'recall', 'f1'] as const) put(`macro.${k}`, c.macro[k]);
    put('weighted.f1', c.weighted.f1);
    for (const row of c.classes) for (const k of ['precision', 'recall', 'f1'] as const) put(`class:${row.label}.${k}`, row[k]);
  }
  if (report.splitter) {
    const s = report.splitter;
    for (const k of ['precision', 'recall', 'f1'] as const) put(k, s[k]);
    put('pq', s.panoptic.pq);
    put('page.accuracy', s.pageAccuracy);
    for (const t of s.types) for (const k of ['precision', 'recall', 'f1'] as const) put(`type:${t.type}.${k}`, t[k]);
  }
  return m;
}

/** The canonical name of a metric a user named; a usage error listing the choices otherwise. */
export function resolveMetric(report: Report, catalog: Map<string, MetricValue>, name: string, label = 'gate'): string {
  const aliases = ALIASES[report.type];
  const canonical = Object.hasOwn(aliases, name) ? aliases[name] : name;
  if (catalog.has(canonical)) return canonical;
  const prefix = /^(field|class|type|array):/.exec(name)?.[1];
  let hint: string;
  if (prefix) {
    // field:PATH.METRIC: name the units and the metrics rather than every combination.
    const units = [...new Set([...catalog.keys()].filter((k) => k.startsWith(`${prefix}:`)).map((k) => k.slice(prefix.length + 1, k.lastIndexOf('.'))))];
    const metrics = [...new Set([...catalog.keys()].filter((k) => k.startsWith(`${prefix}:`)).map((k) => k.slice(k.lastIndexOf('.') + 1)))];
    hint = units.length
      ? `${prefix}:NAME.METRIC with NAME one of ${units.slice(0, 40).join(', ')}${units.length > 40 ? ', ...' : ''} and METRIC one of ${metrics.join(', ')}`
      : `this report has no ${prefix}: metrics`;
  } else {
    hint = `choose one of: ${[...catalog.keys()].filter((k) => !k.includes(':')).join(', ')}, ${FAILED_RATE}; per ${UNIT_HINT[report.type]}`;
  }
  throw new UsageError(`${label}: no metric "${name}" in this ${report.type} report`, { hint });
}

/**
 * A gate's number, rounded for people: three decimals, or more where three would hide the
 * difference from the threshold (0.8999 against 0.9 prints 0.8999, not 0.900).
 */
export function fmtGate(value: number, threshold: number): string {
  for (let digits = 3; digits < 12; digits++) {
    const text = value.toFixed(digits);
    if (value === threshold || Number(text) !== threshold) return String(Number(text));
  }
  return String(value);
}

/** 2.80 standard errors (80% power at two-sided 5%), the standard error taken from a 95% interval. */
function gateMde(iv: Interval | null): number | null {
  return iv ? ((Z95 + Z80) * (iv.upper - iv.lower)) / (2 * Z95) : null;
}

/** The share of the export's runs that failed: a gate of its own (`--max-failed-rate R` is `failed.rate<=R`). */
const FAILED_RATE = 'failed.rate';

/**
 * `failed.rate<=R` (or `>=`): failed runs / documents, a proportion like any other: with
 * --gate-on lower held to its Wilson interval's bound on the gate's side (the upper for `<=`).
 */
function failedRateGate(report: Report, gate: string, threshold: number, op: '>=' | '<=', gateOn: GateOn): GateResult {
  const { documents, failed } = report.summary;
  const iv = wilson(failed, documents);
  const point = documents === 0 ? null : failed / documents;
  const rate = point === null || gateOn === 'point' || iv === null ? point : op === '<=' ? iv.upper : iv.lower;
  const r: GateResult = { gate, metric: FAILED_RATE, threshold, op, on: gateOn, value: rate, passed: rate !== null && (op === '<=' ? rate <= threshold : rate >= threshold) };
  if (rate === null) r.reason = 'the export has no documents';
  else if (!r.passed) {
    const shown = gateOn === 'lower' ? `${op === '<=' ? 'upper' : 'lower'} bound ${fmtGate(rate, threshold)} of ${fmtGate(point as number, threshold)}` : fmtGate(rate, threshold);
    r.reason = `${failed} of ${documents} run(s) failed (${shown}), ${op === '<=' ? 'more' : 'fewer'} than ${threshold}`;
  }
  return r;
}

export interface GateExtras {
  maxFailedRate?: number;
  /** Let --fail-on-regression pass on a comparison that could not show a regression (a warning says so instead). */
  allowUnderpowered?: boolean;
  /** The significance level of the verdicts (Holm-adjusted McNemar p below it). */
  alpha?: number;
  /** Every run of the baseline failed: --fail-on-regression fails (the gate `baseline.processed>=1`). */
  baselineFailed?: { file: string; failed: number; documents: number };
}

/**
 * A regression gate that cannot fail: whatever the outcomes, no Holm-adjusted McNemar p of the
 * m comparable rows can fall below alpha on these paired documents (so no verdict can be
 * `regressed`). Undefined when the comparison can show a regression (or compares nothing).
 */
export function underpoweredRegression(baseline: NonNullable<Report['baseline']>, alpha: number): { paired: number; m: number; smallest: number; needed: number } | undefined {
  const paired = baseline.pairing.paired;
  const m = baseline.rows.filter((r) => r.delta !== null).length;
  if (paired === 0 || m === 0) return undefined;
  const smallest = smallestHolmMcnemar(paired, m);
  if (smallest < alpha) return undefined;
  return { paired, m, smallest, needed: pairsForSignificance(m, alpha) };
}

/** Why an underpowered regression gate fails (or, allowed, what the warning says). */
export function underpoweredText(u: NonNullable<ReturnType<typeof underpoweredRegression>>, alpha: number): string {
  return (
    `no regression can be significant on ${u.paired} paired document(s): with ${u.m} metric(s) compared, the smallest Holm-adjusted McNemar p any outcome could give ` +
    `is min(1, ${u.m}·2^(1−${u.paired})) = ${fmtGate(u.smallest, alpha)}, not below ${alpha}; a regression gate needs at least ${u.needed} paired documents here`
  );
}

/** A compared row that fell whose changed documents could not make it a significant regression. */
export interface UnreachableRow {
  key: string;
  delta: number;
  /** Its discordant paired documents (McNemar's b + c). */
  changed: number;
  /** The fewest changed documents, all going wrong, that would give a Holm-adjusted p below alpha (the other rows as they are); null: not even all the paired documents. */
  needed: number | null;
}

/**
 * The Holm-adjusted p of row `i` were its raw p `q` (the others as they are): Holm's step-down
 * over `sorted` (every row's raw p, ascending, ties by index, as holm() orders them).
 */
function holmWith(sorted: ReadonlyArray<{ p: number; i: number }>, i: number, q: number): number {
  const m = sorted.length;
  let run = 0;
  let rank = 0;
  for (const s of sorted) {
    if (s.i === i) continue;
    if (q < s.p || (q === s.p && i < s.i)) break;
    run = Math.max(run, Math.min(1, (m - rank) * s.p));
    rank++;
  }
  return Math.max(run, Math.min(1, (m - rank) * q));
}

/**
 * The rows a regression check could not catch: comparable rows whose estimate fell (delta < 0)
 * and whose verdict is `inconclusive`, and for which even every one of their changed (discordant)
 * documents going wrong would leave the Holm-adjusted McNemar p at or above alpha. The statistics
 * are not changed: this says what these paired documents could show. Undefined when there is none.
 */
export function unreachableRegressions(baseline: NonNullable<Report['baseline']>, alpha: number): { paired: number; rows: UnreachableRow[] } | undefined {
  const family = baseline.rows.filter((r) => r.delta !== null);
  const sorted = family.map((r, i) => ({ p: r.mcnemar.p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const paired = baseline.pairing.paired;
  const rows: UnreachableRow[] = [];
  family.forEach((r, i) => {
    if ((r.delta as number) >= 0 || r.verdict !== 'inconclusive') return;
    const changed = r.mcnemar.b + r.mcnemar.c;
    // The smallest p d changed documents can give: all d the same way (b = d, c = 0).
    const reaches = (d: number): boolean => holmWith(sorted, i, mcnemarExact(d, 0)) < alpha;
    if (reaches(changed)) return;
    // Holm's adjusted p only falls as one raw p falls: the least d that reaches, by bisection.
    let needed: number | null = null;
    if (changed < paired && reaches(paired)) {
      let lo = changed;
      let hi = paired;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (reaches(mid)) hi = mid;
        else lo = mid;
      }
      needed = hi;
    }
    rows.push({ key: r.key, delta: r.delta as number, changed, needed });
  });
  // Aggregates first (micro.f1 before a field), then the largest fall.
  rows.sort((a, b) => Number(a.key.includes(':')) - Number(b.key.includes(':')) || a.delta - b.delta || (a.key < b.key ? -1 : 1));
  return rows.length ? { paired, rows } : undefined;
}

/** One such row: `micro.f1 −0.317 (5 changed, 10 needed)`; `brief`: the key and the fall alone. */
export function unreachableRowText(r: UnreachableRow, paired: number, brief = false): string {
  const fall = `${r.key} ${r.delta.toFixed(3).replace('-', '−')}`;
  return brief ? fall : `${fall} (${r.changed} changed, ${r.needed === null ? `not even all ${paired} would do` : `${r.needed} needed`})`;
}

/** What the regression line says of the rows unreachableRegressions found (up to `shown` named). */
export function unreachableText(u: NonNullable<ReturnType<typeof unreachableRegressions>>, alpha: number, shown = 8): string {
  // Not one could be significant even were every paired document to go wrong: said once.
  const none = u.rows.every((r) => r.needed === null);
  const each = u.rows.slice(0, shown).map((r) => unreachableRowText(r, u.paired, none));
  return (
    `${u.rows.length} metric(s) fell but could not reach significance with ${u.paired} paired documents: ` +
    (none
      ? `not even all ${u.paired} going wrong would give a Holm-adjusted McNemar p below ${alpha}: `
      : `even were every changed document to go wrong, the Holm-adjusted McNemar p would stay at or above ${alpha} (changed: its discordant documents; needed: the fewest that, all going wrong, would be significant): `) +
    `${each.join(', ')}${u.rows.length > shown ? `, and ${u.rows.length - shown} more` : ''}`
  );
}

/** Evaluates the gates against a report (whose baseline section, if any, is already filled). */
export function evaluateGates(report: Report, specs: readonly GateSpec[], gateOn: GateOn, failOnRegression: boolean, extras: GateExtras = {}): Gates {
  const catalog = metricCatalog(report);
  const cost = costMetrics(report.cost);
  const { documents, failed } = report.summary;
  // Every run failed: no gate passes on that (failed.rate gates are judged as they are: they fail).
  const allFailed = documents > 0 && failed === documents;
  const results: GateResult[] = specs.map((spec) => {
    const op = spec.op ?? '>=';
    if (isCostMetric(spec.metric)) {
      const value = cost.get(spec.metric) ?? null;
      const r: GateResult = { gate: spec.gate, metric: spec.metric, threshold: spec.threshold, op, on: 'point', value, passed: !allFailed && value !== null && (op === '<=' ? value <= spec.threshold : value >= spec.threshold) };
      // Failed runs carry durations (and may carry credits): a latency gate on them alone would pass on nothing.
      if (allFailed) r.reason = `every run failed (${failed} of ${documents}): no output to judge${value !== null ? ` (${fmtGate(value, spec.threshold)} is of failed runs)` : ''}`;
      else if (value === null) r.reason = `the export carries no ${spec.metric.startsWith('latency') ? 'run durations' : 'credits'}`;
      else if (!r.passed) r.reason = `${fmtGate(value, spec.threshold)} is ${op === '<=' ? 'above' : 'below'} ${spec.threshold}`;
      return r;
    }
    if (spec.metric === FAILED_RATE) return failedRateGate(report, spec.gate, spec.threshold, op, gateOn);
    const metric = resolveMetric(report, catalog, spec.metric, spec.label);
    if (allFailed) {
      // Every run failed: each is scored as an empty prediction, so a metric that counts true
      // negatives (accuracy: the fields nobody expected) can still look good. Nothing ran to judge.
      return { gate: spec.gate, metric, threshold: spec.threshold, on: gateOn, ...(op === '<=' ? { op } : {}), value: null, passed: false, reason: `every run failed (${failed} of ${documents}): no output to judge` };
    }
    if (report.extract && report.extract.fields.length === 0) {
      // Every field excluded (or none declared or found): document accuracy would be the share of
      // runs that did not fail, and micro metrics are undefined. Nothing to pass on.
      return { gate: spec.gate, metric, threshold: spec.threshold, on: gateOn, ...(op === '<=' ? { op } : {}), value: null, passed: false, reason: 'no field is scored (every field is excluded, or the config declares none and the expected outputs hold none)' };
    }
    const mv = catalog.get(metric) as MetricValue;
    const value = gateOn === 'lower' ? (mv.interval?.lower ?? null) : mv.value;
    // `<=` gates an upper limit: on the interval's upper bound with --gate-on lower.
    const v = op === '<=' && gateOn === 'lower' ? (mv.interval?.upper ?? null) : value;
    const r: GateResult = { gate: spec.gate, metric, threshold: spec.threshold, on: gateOn, value: v, passed: v !== null && (op === '<=' ? v <= spec.threshold : v >= spec.threshold), mde: gateMde(mv.interval) };
    if (op === '<=') r.op = '<=';
    if (value === null) {
      r.reason =
        mv.value === null
          ? 'the metric is undefined here (zero denominator)'
          : 'the metric has no interval (F1-type intervals need --bootstrap greater than 0)';
    } else if (!r.passed) {
      r.reason = op === '<=' ? `${gateOn === 'lower' ? 'upper bound ' : ''}${fmtGate(v as number, spec.threshold)} is above ${spec.threshold}` : `${gateOn === 'lower' ? 'lower bound ' : ''}${fmtGate(value, spec.threshold)} is below ${spec.threshold}`;
    }
    return r;
  });
  if (extras.maxFailedRate !== undefined) results.push(failedRateGate(report, `${FAILED_RATE}<=${extras.maxFailedRate}`, extras.maxFailedRate, '<=', gateOn));
  const pairing = report.baseline?.pairing;
  if (failOnRegression && pairing) {
    // A comparison that paired (almost) nothing is no evidence of "no regression".
    const r: GateResult = { gate: `baseline.paired>=${pairing.minPaired}`, metric: 'baseline.paired', threshold: pairing.minPaired, op: '>=', on: 'point', value: pairing.paired, passed: pairing.sufficient };
    if (!r.passed) {
      const k = pairing.byKey;
      r.reason =
        `only ${pairing.paired} of ${pairing.current} document(s) paired with the baseline's ${pairing.baseline} (by item id ${k.id}, file id ${k.file}, file name ${k.name}, content hash ${k.hash}); ` +
        'compare runs of the same documents, or lower --min-paired';
    }
    results.push(r);
  }
  if (failOnRegression && report.baseline && allFailed) {
    // No output to compare: a run of failures alone shows no regression where the baseline was
    // wrong too (a document is never right for an aggregate when its run failed).
    results.push({
      gate: 'processed>=1',
      metric: 'processed',
      threshold: 1,
      op: '>=',
      on: 'point',
      value: 0,
      passed: false,
      reason: `every run failed (${failed} of ${documents}): no output to compare with the baseline`,
    });
  }
  if (failOnRegression && report.baseline && extras.baselineFailed) {
    // A baseline of failures alone has no output that could go wrong: a regression check against
    // it cannot fail, so it fails (also with --allow-partial, which only lets it be compared).
    const f = extras.baselineFailed;
    results.push({
      gate: 'baseline.processed>=1',
      metric: 'baseline.processed',
      threshold: 1,
      op: '>=',
      on: 'point',
      value: f.documents - f.failed,
      passed: false,
      reason: `every run of the baseline ${f.file} failed (${f.failed} of ${f.documents}): it has no output to regress from, so a regression check against it is no evidence; compare with a run that processed`,
    });
  }
  if (failOnRegression && report.baseline && !extras.allowUnderpowered) {
    // A gate that cannot fail must not pass: on too few paired documents no outcome could be a
    // significant regression (the power warning covers the cases in between).
    const alpha = extras.alpha ?? 0.05;
    const u = underpoweredRegression(report.baseline, alpha);
    if (u) {
      results.push({
        gate: `baseline.paired>=${u.needed}`,
        metric: 'baseline.paired',
        threshold: u.needed,
        op: '>=',
        on: 'point',
        value: u.paired,
        passed: false,
        reason: `${underpoweredText(u, alpha)}; compare more documents, or accept a gate that cannot fail with allowUnderpowered (--allow-underpowered)`,
      });
    }
  }
  if (failOnRegression && report.baseline) {
    // A gate never passes on nothing: a comparison where no metric is comparable (runs that
    // share no field) is no evidence of "no regression" either.
    // Listed only when it fails (a comparison that compared something needs no line of its own).
    // Not when nothing paired: the pairing gate says so, with the right reason.
    if (report.baseline.pairing.paired > 0 && !report.baseline.rows.some((r) => r.verdict !== 'not_comparable')) {
      results.push({
        gate: 'baseline.compared>=1',
        metric: 'baseline.compared',
        threshold: 1,
        op: '>=',
        on: 'point',
        value: 0,
        passed: false,
        reason: `no metric is comparable with the baseline (${report.type === 'EXTRACT' ? 'the runs share no field' : 'every metric is undefined in one run or the other'}); compare runs of the same fields`,
      });
    }
  }
  const regressed = (report.baseline?.rows ?? []).filter((r) => r.verdict === 'regressed').map((r) => r.key);
  const passed = results.every((r) => r.passed) && !(failOnRegression && regressed.length > 0);
  return { gateOn, failOnRegression, results, regressed, passed };
}

/**
 * Several runs of one evaluation set side by side (`report --from A --from B ...`, `--runs DIR`).
 * The documents every run has are paired with the reference's (the first run) by the baseline's
 * pairing; on them each metric is computed per run, each later run is compared with the
 * reference (paired bootstrap interval, exact McNemar, Holm across every metric x run), and runs
 * of one processor version (repeats) give the run-to-run spread that verdicts must exceed.
 * Definitions: docs/multi-run.md.
 */
import { InputError } from '../util/errors.js';
import { stableStringify } from '../util/json.js';
import type { EvaluationExport, EvaluationExportHeader } from '../metrics/generated/export.js';
import type { BaselineComparison, ComparisonRow, Interval, MultiRun, MultiRunComparison, MultiRunMetric, MultiRunRun, Verdict } from '../metrics/generated/report.js';
import { bootstrap, pointStats } from '../metrics/bootstrap.js';
import type { CompareOptions } from '../metrics/comparators.js';
import { evaluateExport } from '../metrics/accumulate.js';
import { exportOptions, type ConfidenceOptions, type Evaluation } from '../metrics/evaluate.js';
import { discordant, type Model } from '../metrics/models.js';
import { benjaminiHochberg, holm, mcnemarExact, mcnemarMde, percentileInterval, Z95 } from '../metrics/stats.js';
import { pairDocuments, type PairBy } from './pairing.js';
import { keysOf, modelOf } from './scored.js';

export type RunInput =
  | {
      /** File name shown in the report (without folders). */
      file: string;
      export: EvaluationExport;
    }
  | {
      file: string;
      /** The export's header: the run is already evaluated (its items read one at a time). */
      export: EvaluationExportHeader;
      /** Evaluated as compareRuns evaluates an export (the report's comparator and confidence options, keepKeys). */
      evaluation: Evaluation;
    };

export interface CompareRunsOptions {
  cmp: CompareOptions;
  conf: ConfidenceOptions;
  pairBy: PairBy;
  /** Fewest documents every run must share (already resolved from --min-paired against the reference). */
  minPaired: number;
  bootstrap: number;
  seed: number;
  equivalence: number;
  /** The verdict rule of the baseline comparison (src/report/build.ts). */
  verdict: (delta: number | null, interval: Interval | null, b: number, c: number, pHolm: number, B: number, margin: number) => Verdict;
}

/** Seeds of the comparisons' bootstraps: seed + RUN_SEED_OFFSET + run index (the report's own use seed, seed + 1, seed + 2). */
export const RUN_SEED_OFFSET = 100;

const nullable = (v: number): number | null => (Number.isNaN(v) ? null : v);
const emptyTally = (): MultiRunComparison['tally'] => ({ improved: 0, regressed: 0, inconclusive: 0, no_change: 0, not_comparable: 0 });

/**
 * Runs are repeats of one processor version when processor id, version id (else version name)
 * and config are all the same: a draft edited between two runs is not a repeat of itself.
 */
export function repeatKey(exp: Pick<EvaluationExportHeader, 'processor' | 'options'>): string {
  const p = exp.processor;
  return stableStringify([p.id, p.versionId ?? `name:${p.version}`, p.config ?? null, exportOptions(exp)]);
}

/**
 * The multi-run section. `reference` is the first run, already evaluated (the report's own
 * evaluation); `others` are evaluated here with the same comparator and confidence options.
 */
export function compareRuns(reference: { file: string; export: EvaluationExportHeader; evaluation: Evaluation }, others: readonly RunInput[], opts: CompareRunsOptions): MultiRun {
  const ref = reference.evaluation;
  const evs: Evaluation[] = [ref];
  const warnings: string[] = [];
  const refOptions = stableStringify(exportOptions(reference.export));
  for (const run of others) {
    const ev = 'evaluation' in run ? run.evaluation : evaluateExport(run.export, opts.cmp, opts.conf, { keepKeys: true });
    if (ev.type !== ref.type) {
      throw new InputError(`${run.file} is a ${ev.type} evaluation but ${reference.file} (the first run) is ${ref.type}`, {
        location: { file: run.file },
        hint: 'runs side by side must be of the same processor type',
      });
    }
    if (stableStringify(exportOptions(run.export)) !== refOptions) warnings.push(`${run.file} was evaluated with other fuzzyMatchFields or excludeFields than ${reference.file}; its numbers follow its own`);
    evs.push(ev);
  }
  const inputs = [reference, ...others];

  // Documents every run has: the reference's, paired with each other run in turn.
  const refKeys = keysOf(ref);
  const maps: Array<Map<number, number>> = [new Map(refKeys.map((_, i) => [i, i]))];
  const runs: MultiRunRun[] = [];
  for (let r = 1; r < evs.length; r++) {
    const pairing = pairDocuments(refKeys, keysOf(evs[r]), opts.pairBy);
    maps.push(new Map(pairing.pairs));
  }
  const common = refKeys.map((_, i) => i).filter((i) => maps.every((m) => m.has(i)));
  const n = common.length;
  const sufficient = n >= opts.minPaired;
  if (!sufficient) {
    warnings.push(`only ${n} of the first run's ${ref.n} document(s) are in every run (at least ${opts.minPaired} needed); the comparison of runs is not evidence`);
  }

  // EXTRACT compares the fields every run has; classes and split types are pooled.
  let units: string[];
  if (ref.type === 'EXTRACT') {
    units = ref.units.filter((u) => evs.every((e) => e.units.includes(u)));
    const dropped = [...new Set(evs.flatMap((e) => e.units))].filter((u) => !units.includes(u)).sort();
    if (dropped.length) warnings.push(`runs side by side compare the ${units.length} field(s) every run has; left out: ${dropped.join(', ')}`);
  } else {
    units = [...new Set(evs.flatMap((e) => e.units))].sort();
  }

  const models: Model[] = evs.map((ev, r) => modelOf(ev, units, [], Int32Array.from(common, (i) => maps[r].get(i) as number)));
  const points = models.map(pointStats);
  const keys = models[0].keys;

  // Repeat groups: runs of one processor version, in order of their first run.
  const byKey = new Map<string, number[]>();
  inputs.forEach((run, r) => {
    const k = repeatKey(run.export);
    byKey.set(k, [...(byKey.get(k) ?? []), r]);
  });
  const groups = [...byKey.values()].filter((g) => g.length > 1);
  const labels = groups.map((g) => inputs[g[0]].export.processor.version);
  const repeatGroups = groups.map((g, i) => ({ label: labels.filter((l) => l === labels[i]).length > 1 ? `${labels[i]} #${labels.slice(0, i + 1).filter((l) => l === labels[i]).length}` : labels[i], runs: g }));

  inputs.forEach((run, r) => {
    const p = run.export.processor;
    const group = groups.findIndex((g) => g.includes(r));
    runs.push({
      index: r,
      file: run.file,
      processor: { id: p.id, name: p.name, version: p.version, ...(p.versionId ? { versionId: p.versionId } : {}) },
      documents: evs[r].n,
      paired: maps[r].size,
      group: group < 0 ? null : group,
    });
  });

  const correctness = (model: Model, key: string): Uint8Array => {
    const wrong = model.wrongOf?.(key);
    if (wrong) {
      const right = new Uint8Array(n).fill(1);
      for (const i of wrong) if (i < n) right[i] = 0;
      return right;
    }
    const isCorrect = model.correct(key);
    return Uint8Array.from({ length: n }, (_, i) => (isCorrect(i) ? 1 : 0));
  };
  const metrics: MultiRunMetric[] = keys.map((key, k) => {
    const values = points.map((pt) => nullable(pt[k]));
    const spread = runSpread(
      groups.map((g) => g.map((r) => values[r])),
      groups.map((g) => g.map((r) => correctness(models[r], key))),
    );
    return { key, values, ...spread };
  });

  // Each later run against the reference.
  const B = opts.bootstrap;
  const comparisons: MultiRunComparison[] = [];
  for (let r = 1; r < evs.length; r++) {
    let intervals: Array<Interval | null> = keys.map(() => null);
    if (B > 0 && n > 0) {
      const [rc, rb] = bootstrap([models[r], models[0]], n, B, opts.seed + RUN_SEED_OFFSET + r);
      intervals = keys.map((_, k) => {
        const d = new Float64Array(B);
        for (let b = 0; b < B; b++) d[b] = rc[k][b] - rb[k][b];
        return percentileInterval(d);
      });
    }
    const rows: ComparisonRow[] = keys.map((key, k) => {
      const { b, c } = discordant(models[r], models[0], key, n);
      const current = nullable(points[r][k]);
      const baseline = nullable(points[0][k]);
      const delta = current === null || baseline === null ? null : current - baseline;
      const p = mcnemarExact(b, c);
      return { key, current, baseline, delta, interval: intervals[k], mcnemar: { b, c, p }, pHolm: p, q: p, mde: mcnemarMde(b, c, n), verdict: 'not_comparable' };
    });
    comparisons.push({ run: r, file: inputs[r].file, rows, withinSpread: [], tally: emptyTally() });
  }

  // Holm (verdicts) and Benjamini-Hochberg (reading) across every comparable row of every run.
  const comparable = comparisons.flatMap((c) => c.rows.filter((row) => row.delta !== null));
  const adjusted = holm(comparable.map((row) => row.mcnemar.p));
  const qs = benjaminiHochberg(comparable.map((row) => row.mcnemar.p));
  comparable.forEach((row, i) => {
    row.pHolm = adjusted[i];
    row.q = qs[i];
  });
  const bands = new Map(metrics.map((m) => [m.key, m.band]));
  for (const c of comparisons) {
    for (const row of c.rows) row.verdict = opts.verdict(row.delta, row.interval, row.mcnemar.b, row.mcnemar.c, row.pHolm, B, opts.equivalence);
    c.withinSpread = withinSpread(c.rows, bands);
    c.rows.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    c.tally = tallyOf(c.rows);
  }
  metrics.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));

  return { paired: n, pairing: { by: opts.pairBy, minPaired: opts.minPaired, sufficient }, runs, metrics, comparisons, repeatGroups, warnings };
}

/**
 * The run-to-run spread of one metric. `values[g]` are the metric in each repeat of group g,
 * `correct[g][r][i]` whether document i is right for it in repeat r of group g.
 *
 * - sd: pooled within-group standard deviation, sqrt(Σ_g Σ_r (x_gr − x̄_g)² / Σ_g (k_g − 1)),
 *   over the groups where every repeat defines the metric; null when none does.
 * - flipRate: Σ_g (documents whose correctness is not the same in every repeat of g) / (groups · n);
 *   null without groups or documents.
 * - band: z₀.₉₇₅ · √2 · sd, the 95% range of the difference of two single runs of one version
 *   when runs vary by sd; null with sd.
 */
export function runSpread(values: ReadonlyArray<ReadonlyArray<number | null>>, correct: ReadonlyArray<readonly Uint8Array[]>): Pick<MultiRunMetric, 'sd' | 'flipRate' | 'band'> {
  let ss = 0;
  let df = 0;
  for (const g of values) {
    if (g.length < 2 || g.some((v) => v === null)) continue;
    const xs = g as number[];
    const mean = xs.reduce((a, x) => a + x, 0) / xs.length;
    ss += xs.reduce((a, x) => a + (x - mean) ** 2, 0);
    df += xs.length - 1;
  }
  const sd = df > 0 ? Math.sqrt(ss / df) : null;
  let flips = 0;
  let cells = 0;
  for (const g of correct) {
    if (g.length < 2) continue;
    const n = g[0].length;
    cells += n;
    for (let i = 0; i < n; i++) if (g.some((run) => run[i] !== g[0][i])) flips++;
  }
  return { sd, flipRate: cells > 0 ? flips / cells : null, band: sd === null ? null : Z95 * Math.SQRT2 * sd };
}

/**
 * Verdicts that account for the run-to-run spread: an `improved` or `regressed` row whose |delta|
 * is no larger than its metric's band becomes `inconclusive`. Returns the keys so changed.
 */
export function withinSpread(rows: ComparisonRow[], bands: ReadonlyMap<string, number | null>): string[] {
  const out: string[] = [];
  for (const row of rows) {
    if (row.verdict !== 'improved' && row.verdict !== 'regressed') continue;
    const band = bands.get(row.key);
    if (band === null || band === undefined || row.delta === null) continue;
    if (Math.abs(row.delta) <= band) {
      row.verdict = 'inconclusive';
      out.push(row.key);
    }
  }
  return out.sort();
}

export function tallyOf(rows: readonly ComparisonRow[]): MultiRunComparison['tally'] {
  const t = emptyTally();
  for (const r of rows) t[r.verdict]++;
  return t;
}

/**
 * A --baseline comparison made beside repeats: its verdicts hold to the same band (the spread
 * is the processor's, whichever runs it was seen in). Changes the comparison in place.
 */
export function applyRunSpread(comparison: BaselineComparison, runs: MultiRun): void {
  const bands = new Map(runs.metrics.map((m) => [m.key, m.band]));
  const changed = withinSpread(comparison.rows, bands);
  if (changed.length === 0) return;
  comparison.tally = tallyOf(comparison.rows);
  comparison.warnings.push(
    `${changed.length} significant change(s) are no larger than the run-to-run spread between repeats of one version, so inconclusive: ${changed.join(', ')}`,
  );
}

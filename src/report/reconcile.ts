/**
 * The reconciliation of the service's own metrics (API 2026-02-09, `EvaluationSetRun.metrics`,
 * recorded in the export's `service`) with evalkit's: each service figure beside evalkit's
 * counterpart computed evalkit's way, the differences of definition seen in the items (each
 * counted), and evalkit's recomputation of the service's definitions (src/metrics/service.ts)
 * checked against the service's answer. Fed item by item during the scoring pass, so a JSONL
 * export stays streamed. docs/metrics.md, "Reconciliation", defines every number.
 */
import type { EvaluationExportHeader, ExportItem, ExportServiceMetrics } from '../metrics/generated/export.js';
import type { CountPair, Reconciliation, ReconciliationFinding, ReconciliationReason, ReconciliationRow, Report } from '../metrics/generated/report.js';
import type { ExtractRecord } from '../metrics/records.js';
import { ACCURATE, classType, EXPECTED, fieldPaths, isScored, PRESENT, ServiceMetricsAccumulator, serviceRecords, splitsOf as serviceSplits, valueAt, type ServiceItem, type ServiceMetrics } from '../metrics/service.js';
import { isEmpty } from '../metrics/values.js';
import { classOf, configClasses } from '../metrics/classify.js';
import { splitsOf as evalkitSplits } from '../metrics/splitter.js';
import { InputError } from '../util/errors.js';

type Json = Record<string, unknown>;
type Code = ReconciliationReason['code'];

/** Figures closer than this are the same (sums of floating-point ratios). */
export const TOLERANCE = 1e-9;

/** What each reason says; `n` is the number of items that show it. docs/metrics.md quotes these. */
const REASON_TEXT: Record<Code, (n: number) => string> = {
  'invented-value': (n) => `${n} item(s) with a value extracted where none is expected: the service counts it as present only; evalkit counts a false alarm (precision, F1, document accuracy; not recall)`,
  'empty-value': (n) => `${n} item(s) with "", whitespace, [] or {} on one side: a value to the service, empty to evalkit`,
  'normalised-match': (n) => `${n} item(s) that evalkit's comparator matches and the service's exact JSON equality does not`,
  'evalkit-stricter': (n) => `${n} item(s) that the service's exact JSON equality matches and evalkit does not score as all right`,
  'array-rows': (n) => `${n} item(s) with a list expected: the service compares the list whole, evalkit row by row (or element by element)`,
  'failed-runs': (n) => `${n} item(s) whose run failed with something expected: the service leaves them out, evalkit counts them missed`,
  excluded: (n) => `excluded by the export's excludeFields: evalkit does not score it (${n} item(s) expect it)`,
  'no-counterpart': (n) => `evalkit has no field here (${n} item(s) expect it)`,
  'no-expected-class': (n) => `${n} item(s) with no expected class: the service leaves them out, evalkit counts them as documents`,
  'class-read': (n) => `${n} item(s) whose class the service reads from \`type\` alone and evalkit from its \`type\` (trimmed) or \`id\``,
  'splits-left-out': (n) => `${n} item(s) with splits evalkit leaves out (no type, pages not whole, start below 1, end before start, over 100,000 pages or past the last page) that the service counts`,
  'split-type-read': (n) => `${n} item(s) with a split whose type the service reads from \`type\` alone and evalkit from \`type\` (trimmed) or \`classificationId\``,
};

/** The export's service run as the report checks it before scoring. */
export function partialRunCheck(header: EvaluationExportHeader, allowPartial: boolean, file?: string): string | undefined {
  const s = header.service;
  if (!s || s.status === 'PROCESSED') return undefined;
  const what = `the service's evaluation set run ${s.evaluationSetRunId} is ${s.status}, not PROCESSED`;
  if (!allowPartial) {
    throw new InputError(`${what}: a partial run is not scored`, {
      location: { ...(file !== undefined ? { file } : {}), pointer: '/service/status' },
      hint: 'run the evaluation again, or pass --allow-partial (allowPartial) to score the items the export has; the report then says it is partial',
    });
  }
  return `${what}: scoring the partial run as asked (--allow-partial); the service's figures cover only what it finished`;
}

class Tally {
  readonly counts = new Map<Code, number>();
  add(code: Code, n = 1): void {
    this.counts.set(code, (this.counts.get(code) ?? 0) + n);
  }
  reasons(only?: ReadonlySet<Code>): ReconciliationReason[] {
    const out: ReconciliationReason[] = [];
    for (const [code, count] of this.counts) if (count > 0 && (!only || only.has(code))) out.push({ code, count, text: REASON_TEXT[code](count) });
    return out.sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  }
}

/** Per service field path: how many items showed each reason (seenTally makes them a Tally). */
interface FieldSeen {
  invented: number;
  empty: number;
  failed: number;
  normalised: number;
  stricter: number;
  /** Items (any status) with a value expected, whose value is a non-empty list. */
  lists: number;
}

const fieldSeen = (): FieldSeen => ({ invented: 0, empty: 0, failed: 0, normalised: 0, stricter: 0, lists: 0 });

function seenTally(seen: FieldSeen): Tally {
  const t = new Tally();
  t.add('invented-value', seen.invented);
  t.add('empty-value', seen.empty);
  t.add('failed-runs', seen.failed);
  t.add('normalised-match', seen.normalised);
  t.add('evalkit-stricter', seen.stricter);
  return t;
}

export class Reconciler {
  readonly #type: ServiceMetrics['type'];
  readonly #service: NonNullable<EvaluationExportHeader['service']>;
  readonly #recompute: ServiceMetricsAccumulator;
  readonly #paths: string[];
  /** Per service path (by its index in #paths): what the items showed. */
  readonly #seen: FieldSeen[];
  /** The current EXTRACT item's facts per path (bits F_*), until its record arrives. */
  readonly #facts: Uint8Array;
  /** evalkit's field paths under each service path, once the first record shows the run's fields. */
  #leaves: string[][] | undefined;
  #leavesFor: readonly string[] | undefined;
  readonly #sum = [0, 0, 0, 0, 0];
  readonly #classes = new Map<string, Tally>();
  readonly #aggregate = new Tally();
  readonly #idToType: Map<string, string>;
  #pending: string | undefined;
  readonly #onField = (k: number, got: unknown, want: unknown, bits: number): void => {
    this.#facts[k] = factsOf(true, got, want, bits);
  };
  #processedWithoutPages = 0;

  constructor(header: EvaluationExportHeader) {
    this.#type = header.processor.type;
    this.#service = header.service as NonNullable<EvaluationExportHeader['service']>;
    const config = header.processor.config as Json;
    this.#recompute = new ServiceMetricsAccumulator(this.#type, config);
    this.#paths = this.#type === 'EXTRACT' ? fieldPaths(config) : [];
    this.#seen = this.#paths.map(fieldSeen);
    this.#facts = new Uint8Array(this.#paths.length);
    this.#idToType = configClasses(config).idToType;
  }

  /** Every item of the scoring pass, before its record (EXTRACT: `record` after). */
  add(item: ExportItem): void {
    const s: ServiceItem = { expected: item.expectedOutput, status: item.status, output: item.output, pages: item.pageCount };
    if (item.status === 'PROCESSED' && item.pageCount === undefined) this.#processedWithoutPages++;
    if (this.#type === 'EXTRACT') {
      // A scored run's facts come from the recomputation's own comparisons (onField).
      this.#recompute.add(s, this.#onField);
      if (!isScored(s)) this.#unscoredFacts(s);
      this.#pending = item.id;
      return;
    }
    this.#recompute.add(s);
    if (this.#type === 'CLASSIFY') this.#classifyItem(s);
    else this.#splitterItem(s, item.pageCount);
  }

  /** EXTRACT: the document's record, right after its item: evalkit's outcomes per leaf. */
  record(line: ExtractRecord): void {
    if (this.#pending !== line.id) return;
    this.#pending = undefined;
    const leaves = this.#leavesOf(line.paths);
    const sum = this.#sum;
    for (let k = 0; k < this.#paths.length; k++) {
      const f = this.#facts[k];
      const seen = this.#seen[k];
      if (f & F_REASONS) {
        if (f & F_INVENTED) seen.invented++;
        if (f & F_EMPTY) seen.empty++;
        if (f & F_LIST) seen.lists++;
        if (f & F_FAILED) seen.failed++;
      }
      // Both sides hold a value for both: do the two matchings agree?
      if ((f & (F_SCORED | F_EXPECTED)) !== (F_SCORED | F_EXPECTED)) continue;
      const mine = leaves[k];
      if (mine.length === 0) continue;
      sum[0] = sum[1] = sum[2] = sum[3] = sum[4] = 0;
      for (let j = 0; j < mine.length; j++) line.addTo(mine[j], sum);
      if (sum[0] + sum[3] + sum[4] === 0) continue;
      const evalkitRight = sum[0] > 0 && sum[2] + sum[3] + sum[4] === 0;
      if (evalkitRight && !(f & F_ACCURATE) && f & F_GOT) seen.normalised++;
      else if (!evalkitRight && f & F_ACCURATE) seen.stricter++;
    }
  }

  #leavesOf(paths: readonly string[]): string[][] {
    if (this.#leaves && this.#leavesFor === paths) return this.#leaves;
    this.#leavesFor = paths;
    this.#leaves = this.#paths.map((s) => paths.filter((leaf) => underPath(leaf, s)));
    return this.#leaves;
  }

  #unscoredFacts(s: ServiceItem): void {
    const { want } = serviceRecords(s);
    for (let k = 0; k < this.#paths.length; k++) {
      const w = valueAt(want, this.#paths[k]);
      this.#facts[k] = factsOf(false, undefined, w, w === undefined || w === null ? 0 : EXPECTED);
    }
  }

  #classTally(t: string): Tally {
    let x = this.#classes.get(t);
    if (!x) this.#classes.set(t, (x = new Tally()));
    return x;
  }

  #classifyItem(s: ServiceItem): void {
    const want = classType(s.expected);
    if (!isScored(s)) {
      if (want !== undefined) {
        this.#classTally(want).add('failed-runs');
        this.#aggregate.add('failed-runs');
      }
      return;
    }
    if (want === undefined) this.#aggregate.add('no-expected-class');
    const touched = new Set<string>();
    for (const v of [s.expected, s.output]) {
      const theirs = classType(v);
      const ours = classOf(v, this.#idToType) ?? undefined;
      if (theirs === ours) continue;
      for (const c of [theirs, ours]) if (c !== undefined) touched.add(c);
    }
    for (const c of touched) this.#classTally(c).add('class-read');
    if (touched.size) this.#aggregate.add('class-read');
  }

  #splitterItem(s: ServiceItem, pageCount: number | undefined): void {
    const want = serviceSplits(s.expected);
    if (!isScored(s)) {
      if (want.length) this.#aggregate.add('failed-runs');
      return;
    }
    let leftOut = false;
    let typeRead = false;
    for (const v of [s.expected, s.output]) {
      const theirs = serviceSplits(v);
      const ours = evalkitSplits(v, pageCount).splits;
      if (ours.length < theirs.length) leftOut = true;
      for (const sp of theirs) {
        const raw = sp as unknown as Json;
        const evalkitType = typeof raw.type === 'string' && raw.type.trim() !== '' ? raw.type.trim() : raw.classificationId;
        if (evalkitType !== raw.type) typeRead = true;
      }
    }
    if (leftOut) this.#aggregate.add('splits-left-out');
    if (typeRead) this.#aggregate.add('split-type-read');
  }

  /** The reconciliation, once the run's metrics are computed (the report's, or a later run's evaluation). */
  result(report: Pick<Report, 'extract' | 'classify' | 'splitter'>, partial: boolean): Reconciliation {
    const given = this.#service.metrics;
    const mine = this.#recompute.result();
    const findings: ReconciliationFinding[] = [];
    const notGiven: string[] = [];
    const rows: ReconciliationRow[] = [];
    const sameType = given === undefined || given.type === undefined || given.type === this.#type;
    const g: ExportServiceMetrics | undefined = sameType ? given : undefined;
    if (given === undefined) notGiven.push('metrics');
    // Recomputation: every member both define or either gives.
    const check = (name: string, theirs: unknown, ours: number | undefined): void => {
      const t = typeof theirs === 'number' ? theirs : undefined;
      if (t === undefined) {
        if (ours !== undefined && g !== undefined) notGiven.push(name);
        return;
      }
      if (ours === undefined || Math.abs(t - ours) > TOLERANCE) findings.push({ metric: name, service: t, recomputed: ours ?? null });
    };
    if (g) {
      check('numFilesTotal', g.numFilesTotal, mine.numFilesTotal);
      check('numFilesProcessed', g.numFilesProcessed, mine.numFilesProcessed);
      // A deprecated alias: checked when given, never missed.
      if (g.numFiles !== undefined) check('numFiles', g.numFiles, mine.numFiles);
      if (this.#processedWithoutPages === 0) check('numPages', g.numPages, mine.numPages);
    }
    const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
    const row = (r: Omit<ReconciliationRow, 'differs'>): void => {
      const differs = r.service !== null && (r.evalkit === null || Math.abs(r.service - r.evalkit) > TOLERANCE);
      rows.push({ ...r, differs });
    };

    if (mine.type === 'EXTRACT') {
      const theirs = (g?.fieldMetrics ?? {}) as Record<string, Json>;
      const ourFields = mine.fieldMetrics;
      const paths = [...new Set([...Object.keys(ourFields), ...Object.keys(theirs)])];
      const fields = report.extract?.fields ?? [];
      const excluded = report.extract?.excludedFields ?? [];
      const all = new Tally();
      if (g && g.fieldMetrics === undefined && paths.length) notGiven.push('fieldMetrics');
      for (const path of paths) {
        const t = Object.hasOwn(theirs, path) ? theirs[path] : undefined;
        const o = Object.hasOwn(ourFields, path) ? ourFields[path] : undefined;
        if (t === undefined) {
          if (g?.fieldMetrics !== undefined) notGiven.push(`fieldMetrics.${path}`);
        } else for (const m of ['countTotal', 'countPresent', 'countExpected', 'countAccurate', 'accuracy'] as const) check(`fieldMetrics.${path}.${m}`, t[m], o?.[m]);
        const k = this.#paths.indexOf(path);
        const seen = k >= 0 ? this.#seen[k] : undefined;
        const leaves = fields.filter((f) => underPath(f.path, path));
        const tally = new Tally();
        for (const r of seen ? seenTally(seen).reasons() : []) tally.add(r.code, r.count);
        const expecting = o?.countExpected ?? (typeof t?.countExpected === 'number' ? t.countExpected : 0);
        let evalkit: number | null = null;
        let evalkitMetric = '';
        let evalkitCounts: CountPair | undefined;
        if (leaves.length === 0) {
          const isExcluded = excluded.some((e) => e === path || path.startsWith(`${e}.`) || path.startsWith(`${e}[]`) || e.startsWith(`${path}.`) || e.startsWith(`${path}[]`));
          if (expecting > 0) tally.add(isExcluded ? 'excluded' : 'no-counterpart', expecting);
        } else {
          const k = leaves.reduce((s, f) => s + f.counts.tp, 0);
          const n = leaves.reduce((s, f) => s + f.counts.tp + f.counts.fn + f.counts.fd, 0);
          evalkitCounts = { k, n };
          if (leaves.length === 1 && leaves[0].path === path) {
            evalkit = leaves[0].recall.value;
            evalkitMetric = `field:${path}.recall`;
            if (leaves[0].multiset && seen?.lists) tally.add('array-rows', seen.lists);
          } else {
            evalkit = n === 0 ? null : k / n;
            evalkitMetric = `field:${path}.*.recall (pooled over ${leaves.length} fields)`;
            if (seen?.lists) tally.add('array-rows', seen.lists);
          }
        }
        for (const r of tally.reasons()) all.add(r.code, r.count);
        const tc = t && typeof t.countAccurate === 'number' && typeof t.countExpected === 'number' ? { serviceCounts: { k: t.countAccurate, n: t.countExpected } } : {};
        row({ kind: 'field', key: path, metric: 'accuracy', service: num(t?.accuracy), ...tc, recomputed: o?.accuracy ?? null, evalkit, ...(evalkitCounts ? { evalkitCounts } : {}), evalkitMetric, reasons: tally.reasons() });
      }
      check('accuracy', g?.accuracy, mine.accuracy);
      const micro = report.extract?.micro;
      rows.unshift({
        kind: 'aggregate',
        key: '',
        metric: 'accuracy',
        service: num(g?.accuracy),
        recomputed: mine.accuracy ?? null,
        evalkit: micro?.recall.value ?? null,
        ...(micro ? { evalkitCounts: { k: micro.counts.tp, n: micro.counts.tp + micro.counts.fn + micro.counts.fd } } : {}),
        evalkitMetric: 'micro.recall',
        differs: false,
        reasons: all.reasons(),
      });
      rows[0].differs = rows[0].service !== null && (rows[0].evalkit === null || Math.abs(rows[0].service - rows[0].evalkit) > TOLERANCE);
    } else if (mine.type === 'CLASSIFY') {
      const theirs = (g?.classificationMetrics ?? {}) as Record<string, Json>;
      const ours = mine.classificationMetrics;
      check('accuracy', g?.accuracy, mine.accuracy);
      const acc = report.classify?.accuracy;
      row({ kind: 'aggregate', key: '', metric: 'accuracy', service: num(g?.accuracy), recomputed: mine.accuracy ?? null, evalkit: acc?.value ?? null, ...(acc ? { evalkitCounts: { k: acc.k, n: acc.n } } : {}), evalkitMetric: 'accuracy', reasons: this.#aggregate.reasons() });
      const classes = report.classify?.classes ?? [];
      if (g && g.classificationMetrics === undefined && Object.keys(ours).length) notGiven.push('classificationMetrics');
      for (const type of [...new Set([...Object.keys(ours), ...Object.keys(theirs)])]) {
        const t = Object.hasOwn(theirs, type) ? theirs[type] : undefined;
        const o = Object.hasOwn(ours, type) ? ours[type] : undefined;
        if (t === undefined) {
          if (g?.classificationMetrics !== undefined) notGiven.push(`classificationMetrics.${type}`);
        } else for (const m of ['countExpected', 'countPredicted', 'countCorrect', 'precision', 'recall', 'f1'] as const) check(`classificationMetrics.${type}.${m}`, t[m], o?.[m]);
        const c = classes.find((x) => x.label === type);
        const reasons = this.#classes.get(type)?.reasons() ?? [];
        for (const m of ['precision', 'recall', 'f1'] as const) {
          const ev = c ? (m === 'f1' ? c.f1.value : c[m].value) : null;
          const counts = c && m !== 'f1' ? { evalkitCounts: { k: c.tp, n: m === 'precision' ? c.predicted : c.support } } : {};
          const sc = t && m !== 'f1' && typeof t.countCorrect === 'number' && typeof (m === 'precision' ? t.countPredicted : t.countExpected) === 'number' ? { serviceCounts: { k: t.countCorrect as number, n: (m === 'precision' ? t.countPredicted : t.countExpected) as number } } : {};
          row({ kind: 'class', key: type, metric: m, service: num(t?.[m]), ...sc, recomputed: o?.[m] ?? null, evalkit: ev, ...counts, evalkitMetric: c ? `class:${type}.${m}` : '', reasons });
        }
      }
    } else {
      for (const m of ['numSplitsExpected', 'numSplitsPredicted', 'numSplitsCorrect', 'precision', 'recall', 'f1'] as const) check(m, g?.[m], mine[m]);
      const sp = report.splitter;
      const reasons = this.#aggregate.reasons();
      for (const m of ['precision', 'recall', 'f1'] as const) {
        const ev = sp ? (m === 'f1' ? sp.f1.value : sp[m].value) : null;
        const counts = sp && m !== 'f1' ? { evalkitCounts: { k: sp.numCorrectDocs, n: m === 'precision' ? sp.numPredictedDocs : sp.numExpectedDocs } } : {};
        const den = m === 'precision' ? g?.numSplitsPredicted : g?.numSplitsExpected;
        const sc = m !== 'f1' && typeof g?.numSplitsCorrect === 'number' && typeof den === 'number' ? { serviceCounts: { k: g.numSplitsCorrect, n: den } } : {};
        row({ kind: 'split', key: '', metric: m, service: num(g?.[m]), ...sc, recomputed: mine[m] ?? null, evalkit: ev, ...counts, evalkitMetric: m, reasons });
      }
    }
    return {
      evaluationSetRunId: this.#service.evaluationSetRunId,
      status: this.#service.status,
      partial,
      rows,
      findings,
      notGiven,
    };
  }

  /** The service's metrics are of another type than the export's processor. */
  typeMismatch(): string | undefined {
    const t = this.#service.metrics?.type;
    return t !== undefined && t !== this.#type ? `the service's metrics are of type ${t} but the processor is ${this.#type}: its figures are not compared` : undefined;
  }
}

const F_SCORED = 1;
const F_EXPECTED = 2;
const F_ACCURATE = 4;
/** The extracted value is not empty to evalkit. */
const F_GOT = 8;
const F_INVENTED = 16;
const F_EMPTY = 32;
const F_LIST = 64;
const F_FAILED = 128;
/** Any of the reasons counted per item. */
const F_REASONS = F_INVENTED | F_EMPTY | F_LIST | F_FAILED;

/** One field of one item as bits: what the service saw (`bits`: PRESENT, EXPECTED, ACCURATE) and which reasons it shows. */
function factsOf(scored: boolean, got: unknown, want: unknown, bits: number): number {
  const gotEmpty = !(bits & PRESENT) || isEmpty(got);
  // Equal JSON values are equally empty: an accurate field's expected value is as empty as its extracted one.
  const wantEmpty = !(bits & EXPECTED) || (bits & ACCURATE ? gotEmpty : isEmpty(want));
  let f = 0;
  if (scored) f |= F_SCORED;
  if (bits & EXPECTED) f |= F_EXPECTED;
  if (bits & ACCURATE) f |= F_ACCURATE;
  if (!gotEmpty) f |= F_GOT;
  if (scored && !(bits & EXPECTED) && !gotEmpty) f |= F_INVENTED;
  if (scored && ((bits & EXPECTED && wantEmpty) || (bits & PRESENT && gotEmpty))) f |= F_EMPTY;
  if (bits & EXPECTED && Array.isArray(want) && !wantEmpty) f |= F_LIST;
  if (!scored && !wantEmpty) f |= F_FAILED;
  return f;
}

/** An evalkit field path under a service field path: itself, a member (`p.x`) or a row's (`p[].x`). */
function underPath(leaf: string, path: string): boolean {
  return leaf === path || leaf.startsWith(`${path}.`) || leaf.startsWith(`${path}[]`);
}

/** The warnings a reconciliation gives (report.warnings: stderr and every report). */
export function reconciliationWarnings(r: Reconciliation, mismatch?: string): string[] {
  const out: string[] = [];
  if (mismatch) out.push(`reconciliation: ${mismatch}`);
  if (r.findings.length) {
    const shown = r.findings.slice(0, 5).map((f) => `${f.metric} ${f.service ?? 'absent'} (recomputed ${f.recomputed ?? 'none'})`);
    out.push(
      `reconciliation: the service's answer disagrees with evalkit's recomputation of the service's own definitions for ${r.findings.length} figure(s): ${shown.join(', ')}${r.findings.length > 5 ? ', ...' : ''}; every one is under reconciliation.findings`,
    );
  }
  if (r.notGiven.length) {
    const shown = r.notGiven.slice(0, 5);
    out.push(`reconciliation: the service's answer does not give ${r.notGiven.length} metric(s) its definitions define for this run: ${shown.join(', ')}${r.notGiven.length > 5 ? ', ...' : ''} (shown as "not given")`);
  }
  return out;
}

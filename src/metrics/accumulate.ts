/**
 * Scoring an export as its items arrive: each EXTRACT document is scored, its record handed to
 * a sink (the report's side file) and only its sufficient statistics kept (src/metrics/table.ts),
 * so that a JSONL export of a million documents is scored in bounded memory. The same code
 * scores an export held in memory. CLASSIFY and SPLITTER items are small and are kept.
 */
import { InputError } from '../util/errors.js';
import { isPlainObject, own } from '../util/json.js';
import type { EvaluationExport, EvaluationExportHeader, ExportItem } from './generated/export.js';
import type { ArrayCardinality, CalibrationReport, Counts, DocumentRecord, ExtractMetrics, FailedItem, FieldMetrics, Scores } from './generated/report.js';
import { buildCalibration, ConfidenceLog, confidenceMap, defaultSource, metadataEntries, type ConfidenceSource, type ValuesByDocument } from './calibration.js';
import type { CompareOptions } from './comparators.js';
import {
  countsOf,
  evaluateClassify,
  evaluateSplitter,
  exportOptions,
  failureOf,
  isFailed,
  moreErrors,
  sortedItems,
  WORST,
  WorstList,
  type ConfidenceOptions,
  type Evaluation,
} from './evaluate.js';
import { extractValues, ExtractScorer, FA, FD, FN, KINDS, planFromTree, TN, TP, treeIsOpen, type ExtractPlan } from './extract.js';
import { mergeValue, treeFromConfig } from './fields.js';
import { CountArena, ExtractRecord, type RecordLayout } from './records.js';
import { ClusterSums, f1Score, proportion } from './stats.js';
import { CountStore, ExtractTable, META } from './table.js';

export interface ScoreOptions {
  /**
   * Receives each EXTRACT document's record, in export order, to be written as one line of
   * JSON (keys sorted: its jsonText or writeJson) during the call (the record reads the scorer's
   * counts, which the next document overwrites), and a function that makes the same record as
   * an object with its own copy of the counts (for a sink that keeps records, also to be called
   * during the call).
   */
  sink?: (line: ExtractRecord, record: () => DocumentRecord) => void;
  /** Keep each document's file id, name and content hash (a baseline will pair with them). */
  keepKeys?: boolean;
  /** Sees every item of the scoring pass (cost and latency, slice labels), before its record goes to the sink. */
  onItem?: (item: ExportItem) => void;
}

/** One pass over the items in export order; `end` after the last. */
interface Pass {
  add(item: ExportItem): void;
  end?(): void;
}

/**
 * An evaluation in passes. EXTRACT needs one pass when the config declares every field with a
 * type; otherwise the values decide the fields (as buildExtractPlan does): one pass merges the
 * expected values, one the predicted values (only while a field of unknown type remains), then
 * the scoring pass.
 */
interface Job {
  next(): Pass | undefined;
  finish(): Evaluation;
}

function jobFor(header: EvaluationExportHeader, cmp: CompareOptions, conf: ConfidenceOptions, opts: ScoreOptions): Job {
  const type = header.processor.type;
  if (type !== 'EXTRACT') {
    const items: ExportItem[] = [];
    let done = false;
    return {
      next() {
        if (done) return undefined;
        done = true;
        return { add: (item) => (items.push(item), opts.onItem?.(item)) };
      },
      finish() {
        const sorted = sortedItems({ items });
        const failures = sorted.filter(isFailed).map(failureOf);
        const scored = type === 'CLASSIFY' ? evaluateClassify(header, sorted, conf) : evaluateSplitter(header, sorted);
        return { ...scored, failures, n: sorted.length };
      },
    };
  }
  const options = exportOptions(header);
  const tree = treeFromConfig(header.processor.config);
  const declared = tree.props.size > 0;
  let stage = treeIsOpen(tree, declared) ? 0 : 2;
  let acc: ExtractAccumulator | undefined;
  return {
    next() {
      if (stage === 0) {
        stage = 1;
        return { add: (item) => mergeValue(tree, extractValues(item.expectedOutput), !declared) };
      }
      if (stage === 1) {
        stage = 2;
        if (treeIsOpen(tree, true)) return { add: (item) => isFailed(item) || mergeValue(tree, extractValues(item.output), false) };
      }
      if (stage === 2) {
        stage = 3;
        const plan = planFromTree(header.processor.config, tree, declared, { ...cmp, ...options });
        const a = new ExtractAccumulator(plan, conf, opts);
        acc = a;
        // onItem first: it may key what the sink receives for this item (slice labels).
        return { add: (item) => (opts.onItem?.(item), a.add(item)) };
      }
      return undefined;
    },
    finish() {
      if (!acc) throw new Error('finish before the scoring pass');
      return acc.finish();
    },
  };
}

/** Scores an export held in memory. `cmp` are the comparator settings; options of the export apply as given. */
export function evaluateExport(exp: EvaluationExport, cmp: CompareOptions, conf: ConfidenceOptions = {}, opts: ScoreOptions = {}): Evaluation {
  const job = jobFor(exp, cmp, conf, opts);
  for (let pass = job.next(); pass; pass = job.next()) {
    for (const item of exp.items) pass.add(item);
    pass.end?.();
  }
  return job.finish();
}

/** Items that can be read more than once, in export order (a JSONL file is read again). */
export type ItemSource = () => AsyncIterable<ExportItem> | Iterable<ExportItem>;

/** Scores an export whose items arrive one at a time (a JSONL file read line by line). */
export async function evaluateSource(header: EvaluationExportHeader, items: ItemSource, cmp: CompareOptions, conf: ConfidenceOptions = {}, opts: ScoreOptions = {}): Promise<Evaluation> {
  const job = jobFor(header, cmp, conf, opts);
  for (let pass = job.next(); pass; pass = job.next()) {
    for await (const item of items()) pass.add(item);
    pass.end?.();
  }
  return job.finish();
}

const EMPTY_CONFIDENCE: ReadonlyMap<string, number> = new Map();
const SOURCES: readonly ConfidenceSource[] = ['logprobs', 'ocr', 'review'];

const CS = ClusterSums.PACKED;

/**
 * The precision, recall and accuracy sums of each of `count` fields (or of all, for micro),
 * packed in one array: one object per sum, updated for every field of every document, cost
 * more than the sums.
 */
class FieldSums {
  private readonly v: Float64Array;
  constructor(count: number) {
    this.v = new Float64Array(count * 3 * CS);
  }
  add(f: number, t: ArrayLike<number>, at: number, unexpected = 0): void {
    const tp = t[at + TP];
    const tn = t[at + TN];
    const fa = t[at + FA] + unexpected;
    const fn = t[at + FN];
    const fd = t[at + FD];
    const o = f * 3 * CS;
    ClusterSums.addPacked(this.v, o, tp, tp + fa + fd);
    ClusterSums.addPacked(this.v, o + CS, tp, tp + fn + fd);
    ClusterSums.addPacked(this.v, o + 2 * CS, tp + tn, tp + tn + fa + fn + fd);
  }
  scores(f: number, c: Counts): Scores {
    const o = f * 3 * CS;
    return { counts: c, precision: ClusterSums.fromPacked(this.v, o).proportion(), recall: ClusterSums.fromPacked(this.v, o + CS).proportion(), f1: { value: f1Score(c.tp, c.fp, c.fn + c.fd), interval: null }, accuracy: ClusterSums.fromPacked(this.v, o + 2 * CS).proportion() };
  }
}

/**
 * Confidence of predicted values, logged per source until the source is known (the default is
 * logprobs where any value has it, else OCR, else review: only the whole export tells). Before
 * the first document with a confidence, documents are counted without logging each value.
 */
class ConfidenceTrack {
  private readonly sources: readonly ConfidenceSource[];
  private logs: ConfidenceLog[] | undefined;
  private byDoc: ValuesByDocument[] | undefined;
  /** Before the first confidence: per document 1 when it predicted values (none with a confidence). */
  private readonly early = new CountStore(1);
  private readonly earlyMissing: Int32Array;
  private readonly seen = new Set<ConfidenceSource>();
  private values: Float64Array[] = [];

  constructor(
    private readonly units: number,
    private readonly fixed: ConfidenceSource | undefined,
  ) {
    this.sources = fixed ? [fixed] : SOURCES;
    this.earlyMissing = new Int32Array(units);
  }

  /** The map the scorer looks values up in: path -> confidence, or (several sources) path -> index into `values`. */
  mapFor(output: unknown): ReadonlyMap<string, number> {
    // The common output: field values under `value` and no metadata, so no confidence from
    // any source (what the lines below find, without a map per source).
    if (isPlainObject(output) && isPlainObject(own(output, 'value')) && !isPlainObject(own(output, 'metadata'))) return EMPTY_CONFIDENCE;
    if (!this.fixed) {
      const s = defaultSource(metadataEntries([output]));
      if (s) this.seen.add(s);
    }
    const maps = this.sources.map((s) => confidenceMap(output, s));
    if (maps.every((m) => m === undefined)) return EMPTY_CONFIDENCE;
    if (!this.logs) this.start();
    if (this.fixed) return maps[0] as Map<string, number>;
    const index = new Map<string, number>();
    for (const m of maps) if (m) for (const p of m.keys()) if (!index.has(p)) index.set(p, index.size);
    this.values = maps.map((m) => {
      const v = new Float64Array(index.size).fill(NaN);
      if (m) for (const [p, c] of m) v[index.get(p) as number] = c;
      return v;
    });
    return index;
  }

  private start(): void {
    this.logs = this.sources.map(() => new ConfidenceLog(this.units));
    this.byDoc = this.sources.map(() => {
      const byDoc: ValuesByDocument = { start: [0], unit: [], conf: [] };
      for (let d = 0; d < this.early.n; d++) {
        // Values without confidence: one stands for all (the document is not straight-through).
        if (this.early.get(d, 0)) {
          byDoc.unit.push(0);
          byDoc.conf.push(NaN);
        }
        byDoc.start.push(byDoc.unit.length);
      }
      return byDoc;
    });
    for (const log of this.logs) log.missing.set(this.earlyMissing);
  }

  /** Whether values are logged one by one (a document had a confidence): else only counted, and the scorer need not list them. */
  get logging(): boolean {
    return this.logs !== undefined;
  }

  /** After a document was scored with the map (or without one: a failed run). */
  logged(scorer: ExtractScorer, rank: Int32Array, plan: ExtractPlan, failed: boolean): void {
    if (!this.logs || !this.byDoc) {
      if (!failed) {
        let any = false;
        for (const leaf of plan.leaves) {
          if (leaf.multiset) continue;
          const o = leaf.index * KINDS;
          const predicted = scorer.counts[o + TP] + scorer.counts[o + FA] + scorer.counts[o + FD];
          if (predicted > 0) {
            this.earlyMissing[rank[leaf.index]] += predicted;
            any = true;
          }
        }
        this.early.push([any ? 1 : 0]);
      } else this.early.push([0]);
      return;
    }
    for (let s = 0; s < this.logs.length; s++) {
      const log = this.logs[s];
      const byDoc = this.byDoc[s];
      if (!failed) {
        for (let k = 0; k < scorer.confLeaf.length; k++) {
          const u = rank[scorer.confLeaf[k]];
          const v = scorer.confValue[k];
          const c = this.fixed || Number.isNaN(v) ? v : this.values[s][v];
          log.add(u, c, scorer.confRight[k]);
          byDoc.unit.push(u);
          byDoc.conf.push(c);
        }
      }
      byDoc.start.push(byDoc.unit.length);
    }
  }

  /** The source the report uses and its log (undefined when no value had a confidence). */
  result(): { source: ConfidenceSource; log: ConfidenceLog; byDoc: ValuesByDocument } | undefined {
    const source = this.fixed ?? (this.seen.has('logprobs') ? 'logprobs' : this.seen.has('ocr') ? 'ocr' : this.seen.has('review') ? 'review' : undefined);
    if (!source || !this.logs || !this.byDoc) return undefined;
    const s = this.sources.indexOf(source);
    return { source, log: this.logs[s], byDoc: this.byDoc[s] };
  }
}

/** EXTRACT scoring, one document at a time (the scoring pass of an evaluation). */
export class ExtractAccumulator {
  private readonly scorer: ExtractScorer;
  private readonly L: number;
  private readonly totals: Float64Array;
  private readonly exactTotals: Float64Array;
  private readonly card: Array<{ equal: number; expected: number; predicted: number }>;
  private readonly worst = new WorstList(WORST, moreErrors);
  private readonly table: ExtractTable;
  private readonly sums: FieldSums;
  private readonly exactSums: FieldSums;
  private readonly micro = new FieldSums(1);
  private readonly microRow = new Float64Array(KINDS);
  private readonly paths: string[];
  private readonly slots: number[];
  /** What the records of this run share, and the chunks the counts of the records a sink keeps go to. */
  private readonly layout: RecordLayout;
  private readonly arena: CountArena;
  private readonly rank: Int32Array;
  private readonly confidence: ConfidenceTrack;
  private readonly failures: FailedItem[] = [];
  /** Leaves with an exact matcher beside the fuzzy one, and the row of their exact counts. */
  private readonly fuzzyLeaves: number[];
  private readonly exactRow: Int32Array;
  private missingExpected = 0;
  private correctDocs = 0;
  private unexpectedDocs = 0;
  private unexpectedTotal = 0;

  constructor(
    private readonly plan: ExtractPlan,
    private readonly conf: ConfidenceOptions,
    private readonly opts: ScoreOptions,
  ) {
    const L = (this.L = plan.leaves.length);
    this.scorer = new ExtractScorer(plan);
    this.totals = new Float64Array(L * KINDS);
    this.exactTotals = new Float64Array(L * KINDS);
    this.card = plan.arrays.map(() => ({ equal: 0, expected: 0, predicted: 0 }));
    const fuzzy = plan.leaves.filter((l) => l.exact);
    this.fuzzyLeaves = fuzzy.map((l) => l.index);
    this.exactRow = new Int32Array(fuzzy.length * KINDS);
    this.table = new ExtractTable(new Map(plan.leaves.map((l) => [l.path, l.index])), fuzzy.map((l) => l.path), opts.keepKeys ?? false);
    this.sums = new FieldSums(L);
    this.exactSums = new FieldSums(L);
    const byPath = [...plan.leaves].sort((a, b) => (a.path < b.path ? -1 : 1));
    this.paths = byPath.map((l) => l.path);
    this.slots = byPath.map((l) => l.index);
    this.layout = {
      paths: this.paths,
      slots: this.slots,
      slotOf: this.table.slot,
      keys: this.paths.map((p) => `${JSON.stringify(p)}:[`),
      texts: this.paths.map(() => new Map<number, Uint8Array>()),
    };
    this.arena = new CountArena(L * KINDS);
    // Confidence is logged by field in path order (the report's).
    this.rank = new Int32Array(L);
    this.slots.forEach((slot, r) => (this.rank[slot] = r));
    this.confidence = new ConfidenceTrack(L, conf.source);
  }

  add(item: ExportItem): void {
    const { scorer, L } = this;
    const failed = isFailed(item);
    if (failed) this.failures.push(failureOf(item));
    const expected = extractValues(item.expectedOutput);
    if (expected === undefined) this.missingExpected++;
    const predicted = failed ? undefined : extractValues(item.output);
    const map = failed ? undefined : this.confidence.mapFor(item.output);
    // Before the first confidence, a document without any is only counted (see logged).
    scorer.confidence = map === EMPTY_CONFIDENCE && !this.confidence.logging ? undefined : map;
    scorer.score(expected, predicted);
    this.confidence.logged(scorer, this.rank, this.plan, failed);
    scorer.confidence = undefined;
    const c = scorer.counts;
    const totals = this.totals;
    for (let i = 0; i < c.length; i++) totals[i] += c[i];
    const m = this.microRow;
    m.fill(0);
    for (let l = 0; l < L; l++) {
      this.sums.add(l, c, l * KINDS);
      for (let k = 0; k < KINDS; k++) m[k] += c[l * KINDS + k];
    }
    this.micro.add(0, m, 0, scorer.unexpected);
    if (this.table.exact) {
      const x = scorer.exact;
      for (let i = 0; i < x.length; i++) this.exactTotals[i] += x[i];
      for (const l of this.fuzzyLeaves) this.exactSums.add(l, x, l * KINDS);
    }
    this.card.forEach((a, i) => {
      const e = scorer.cardinality[i * 2];
      const p = scorer.cardinality[i * 2 + 1];
      a.expected += e;
      a.predicted += p;
      if (e === p) a.equal++;
    });
    const errors = scorer.errors();
    // A failed run is never a correct document, even when nothing was expected.
    const correct = errors === 0 && !failed;
    if (correct) this.correctDocs++;
    if (scorer.unexpected > 0) {
      this.unexpectedDocs++;
      this.unexpectedTotal += scorer.unexpected;
    }
    const doc = { contentHash: item.contentHash, correct, errors, failed, fileId: item.fileId, fileName: item.fileName, id: item.id, unexpected: scorer.unexpected };
    if (this.table.exact) {
      const row = this.exactRow;
      this.fuzzyLeaves.forEach((leaf, x) => {
        for (let k = 0; k < KINDS; k++) row[x * KINDS + k] = scorer.exact[leaf * KINDS + k];
      });
    }
    this.table.add(doc, c, this.table.exact ? this.exactRow : undefined);
    if (this.opts.sink) {
      const record = new ExtractRecord(doc, this.layout, c);
      this.opts.sink(record, () => this.arena.record(doc, this.layout, c));
    }
    if (this.worst.wants({ errors, id: item.id })) {
      scorer.score(expected, predicted, true);
      const w = { id: item.id, fileId: item.fileId, failed, errors, diffs: scorer.diffs, diffsCut: scorer.diffsCut };
      if (item.fileName !== undefined) Object.assign(w, { fileName: item.fileName });
      this.worst.offer(w);
    }
  }

  finish(): Evaluation {
    const { plan, table, L } = this;
    const n = table.n;
    const dup = table.sortById().duplicate;
    if (dup) {
      throw new InputError(`duplicate item id "${table.ids[dup[0]]}" (items ${dup[0]} and ${dup[1]})`, {
        location: { pointer: `/items/${dup[1]}/id` },
        hint: 'every item of an export needs its own id; re-export the evaluation run',
      });
    }
    const warnings = [...plan.warnings];
    if (!plan.declared) warnings.push('the config declares no fields (no `schema` or `fields`); the fields scored are the keys of the expected outputs');
    if (this.missingExpected) warnings.push(`${this.missingExpected} item(s) have an expectedOutput without field values; every field counts as expected empty`);
    const unexpectedKeys = [...this.scorer.unexpectedKeys].map(([path, [p, e]]) => ({ path, predicted: p, expected: e })).sort((a, b) => (a.path < b.path ? -1 : 1));
    const expectedStray = unexpectedKeys.reduce((s, k) => s + k.expected, 0);
    if (expectedStray) {
      const named = unexpectedKeys.filter((k) => k.expected > 0).map((k) => k.path);
      warnings.push(
        `${expectedStray} expected value(s) under keys the config does not define are not scored (${named.slice(0, 10).join(', ')}${named.length > 10 ? ', ...' : ''}); \`evalkit validate\` reports them as unknown-field`,
      );
    }
    const leaves = [...plan.leaves].sort((a, b) => (a.path < b.path ? -1 : 1));
    const fields: FieldMetrics[] = leaves.map((leaf) => {
      const counts = countsOf(this.totals, leaf.index * KINDS);
      const row: FieldMetrics = {
        path: leaf.path,
        valueType: leaf.valueType,
        multiset: leaf.multiset,
        fuzzy: leaf.fuzzy,
        supported: counts.tp + counts.fn + counts.fd > 0,
        ...this.sums.scores(leaf.index, counts),
      };
      if (leaf.fuzzy && table.exact) row.exact = this.exactSums.scores(leaf.index, countsOf(this.exactTotals, leaf.index * KINDS));
      return row;
    });
    const micro = new Float64Array(KINDS);
    for (let i = 0; i < L * KINDS; i++) micro[i % KINDS] += this.totals[i];
    micro[FA] += this.unexpectedTotal;
    const arrays: ArrayCardinality[] = plan.arrays
      .map((path, i) => ({ path, rate: proportion(this.card[i].equal, n), expectedRows: this.card[i].expected, predictedRows: this.card[i].predicted }))
      .sort((a, b) => (a.path < b.path ? -1 : 1));
    const extract: ExtractMetrics = {
      fields,
      micro: this.micro.scores(0, countsOf(micro)),
      macro: { f1: { value: null, interval: null }, fields: fields.filter((f) => f.supported).length },
      document: { accuracy: proportion(this.correctDocs, n) },
      unsupportedFields: fields.filter((f) => !f.supported).map((f) => f.path),
      excludedFields: plan.excluded,
      arrays,
      unexpected: { predicted: this.unexpectedTotal, documents: this.unexpectedDocs, expected: expectedStray, keys: unexpectedKeys },
    };
    let calibration: CalibrationReport | undefined;
    let straightThrough: Uint8Array | undefined;
    const logged = this.confidence.result();
    if (logged && logged.log.conf.some((c) => c.length > 0)) {
      const failed = Uint8Array.from({ length: n }, (_, d) => table.meta.get(d, META.failed));
      const { perDocument, ...rest } = buildCalibration(logged.log, this.paths, logged.byDoc, failed, logged.source, this.conf.targetAccuracy);
      calibration = rest;
      if (perDocument) {
        straightThrough = perDocument;
        for (let d = 0; d < n; d++) table.meta.set(d, META.straightThrough, perDocument[d]);
      }
    }
    const failures = this.failures.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return { type: 'EXTRACT', n, table, worstDocuments: this.worst.docs, warnings, extract, units: this.paths, calibration, failures, straightThrough, correct: this.correctDocs };
  }
}

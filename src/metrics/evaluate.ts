/**
 * Scores every document of an evaluation export and computes the point metrics of its
 * processor type. Intervals from the bootstrap, baseline comparison and gates are added by
 * src/report/build.ts.
 */
import { InputError } from '../util/errors.js';
import type { EvaluationExport, ExportItem, ExportOptions } from './generated/export.js';
import type {
  ArrayCardinality,
  CalibrationReport,
  ClassifyMetrics,
  Counts,
  DocumentRecord,
  ExtractMetrics,
  FailedItem,
  FieldMetrics,
  ReportProcessorType,
  Scores,
  SplitterMetrics,
  SplitTypeMetrics,
  WorstDocument,
} from './generated/report.js';
import { classifyMetrics, classLabels, classOf, confidenceOf, configClasses, NONE } from './classify.js';
import type { CompareOptions } from './comparators.js';
import { buildExtractPlan, extractValues, ExtractScorer, FA, FD, FN, KINDS, TN, TP } from './extract.js';
import { classifyModel, extractModel, splitterModel, type DenseCounts, type Model } from './models.js';
import { ExtractRecord } from './records.js';
import { configSplitTypes, describeInvalid, invalidCount, noInvalidSplits, scoreSplitterDoc, splitsOf } from './splitter.js';
import { ClusterSums, clusteredProportion, f1Score, proportion } from './stats.js';
import { buildCalibration, ConfidenceLog, confidenceMap, defaultSource, metadataEntries, type ConfidenceSource, type ValuesByDocument } from './calibration.js';

/** How confidence is read and judged (docs/metrics.md: Confidence). */
export interface ConfidenceOptions {
  /** Which confidence to read (default: logprobs where present, else OCR, else review). */
  source?: ConfidenceSource;
  /** Accuracy the auto-accept thresholds must reach on their Wilson lower bound. */
  targetAccuracy?: number;
}

export interface Evaluation {
  type: ReportProcessorType;
  calibration?: CalibrationReport;
  documents: DocumentRecord[];
  worstDocuments: WorstDocument[];
  failures: FailedItem[];
  warnings: string[];
  extract?: ExtractMetrics;
  classify?: ClassifyMetrics;
  splitter?: SplitterMetrics;
  /** Field paths, class labels or split types the statistic model covers. */
  units: string[];
  /** EXTRACT: the per-document counts, as scored (saves rebuilding them from the records). */
  dense?: DenseCounts;
}

/** A run failed when it is not PROCESSED or produced no output; it is scored as an empty prediction. */
export function isFailed(item: ExportItem): boolean {
  return item.status !== 'PROCESSED' || item.output === null || item.output === undefined;
}

/** The items in id order; duplicate ids are an input error (pairing with a baseline needs them unique). */
export function sortedItems(exp: EvaluationExport): ExportItem[] {
  const order = exp.items.map((it, i) => [it, i] as const).sort((a, b) => (a[0].id < b[0].id ? -1 : a[0].id > b[0].id ? 1 : a[1] - b[1]));
  for (let k = 1; k < order.length; k++) {
    if (order[k][0].id === order[k - 1][0].id) {
      throw new InputError(`duplicate item id "${order[k][0].id}" (items ${order[k - 1][1]} and ${order[k][1]})`, {
        location: { pointer: `/items/${order[k][1]}/id` },
        hint: 'every item of an export needs its own id; re-export the evaluation run',
      });
    }
  }
  return order.map(([it]) => it);
}

const WORST = 20;

/** Keeps the k documents ranked first by `before` (documents arrive in id order). */
class WorstList {
  readonly docs: WorstDocument[] = [];
  constructor(
    private readonly k: number,
    private readonly before: (a: WorstDocument, b: WorstDocument) => boolean,
  ) {}
  /** Whether a document with these ranking members would make the list (to build its details only then). */
  wants(d: Pick<WorstDocument, 'errors' | 'confidence'>): boolean {
    return d.errors > 0 && (this.docs.length < this.k || this.before(d as WorstDocument, this.docs[this.k - 1]));
  }
  offer(d: WorstDocument): void {
    if (!this.wants(d)) return;
    let i = this.docs.length;
    while (i > 0 && this.before(d, this.docs[i - 1])) i--;
    this.docs.splice(i, 0, d);
    if (this.docs.length > this.k) this.docs.pop();
  }
}

const moreErrors = (a: WorstDocument, b: WorstDocument): boolean => a.errors > b.errors;

/** The export's options with missing members as none. */
export function exportOptions(exp: Pick<EvaluationExport, 'options'>): Required<ExportOptions> {
  return { fuzzyMatchFields: exp.options?.fuzzyMatchFields ?? [], excludeFields: exp.options?.excludeFields ?? [] };
}

function base(item: ExportItem): Pick<DocumentRecord, 'id' | 'fileId' | 'fileName' | 'failed'> {
  const out: Pick<DocumentRecord, 'id' | 'fileId' | 'fileName' | 'failed'> = { id: item.id, fileId: item.fileId, failed: isFailed(item) };
  if (item.fileName !== undefined) out.fileName = item.fileName;
  return out;
}

/**
 * A CLASSIFY or SPLITTER document record with its keys inserted in sorted order (`classify`,
 * `splitter` sorted by the caller), so that the JSON renderer can use the native JSON.stringify.
 */
function record(item: ExportItem, correct: boolean, errors: number, extra: Pick<DocumentRecord, 'classify' | 'splitter'>): DocumentRecord {
  const r = { classify: extra.classify, contentHash: item.contentHash, correct, errors, failed: isFailed(item), fileId: item.fileId, fileName: item.fileName, id: item.id, splitter: extra.splitter };
  if (r.classify === undefined) delete r.classify;
  if (r.contentHash === undefined) delete r.contentHash;
  if (r.fileName === undefined) delete r.fileName;
  if (r.splitter === undefined) delete r.splitter;
  return r as DocumentRecord;
}

function failureOf(item: ExportItem): FailedItem {
  const f: FailedItem = { id: item.id, fileId: item.fileId, status: item.status };
  if (item.fileName !== undefined) f.fileName = item.fileName;
  if (item.runId !== undefined) f.runId = item.runId;
  if (item.failureReason !== undefined) f.failureReason = item.failureReason;
  if (item.failureMessage !== undefined) f.failureMessage = item.failureMessage;
  return f;
}

export function countsOf(c: ArrayLike<number>, at = 0): Counts {
  const [tp, tn, fa, fn, fd] = [c[at + TP], c[at + TN], c[at + FA], c[at + FN], c[at + FD]];
  return { tp, tn, fa, fn, fd, fp: fa + fd, n: tp + tn + fa + fn + fd };
}

export function scoresOf(c: Counts): Scores {
  return {
    counts: c,
    precision: proportion(c.tp, c.tp + c.fp),
    recall: proportion(c.tp, c.tp + c.fn + c.fd),
    f1: { value: f1Score(c.tp, c.fp, c.fn + c.fd), interval: null },
    accuracy: proportion(c.tp + c.tn, c.n),
  };
}

/** Scores an export. `opts` are the comparator settings; options of the export apply as given. */
export function evaluateExport(exp: EvaluationExport, opts: CompareOptions, conf: ConfidenceOptions = {}): Evaluation {
  const items = sortedItems(exp);
  const failures = items.filter(isFailed).map(failureOf);
  switch (exp.processor.type) {
    case 'EXTRACT':
      return { ...evaluateExtract(exp, items, opts, conf), failures };
    case 'CLASSIFY':
      return { ...evaluateClassify(exp, items, conf), failures };
    case 'SPLITTER':
      return { ...evaluateSplitter(exp, items), failures };
  }
}

type Scored = Omit<Evaluation, 'failures'>;

function evaluateExtract(exp: EvaluationExport, items: ExportItem[], opts: CompareOptions, confOpts: ConfidenceOptions): Scored {
  const expected = items.map((it) => extractValues(it.expectedOutput));
  const predicted = items.map((it) => (isFailed(it) ? undefined : extractValues(it.output)));
  const options = exportOptions(exp);
  const plan = buildExtractPlan(exp.processor.config, expected, predicted, { ...opts, ...options });
  const warnings = [...plan.warnings];
  if (!plan.declared) warnings.push('the config declares no fields (no `schema` or `fields`); the fields scored are the keys of the expected outputs');
  const missing = items.filter((_, i) => expected[i] === undefined).length;
  if (missing) warnings.push(`${missing} item(s) have an expectedOutput without field values; every field counts as expected empty`);

  const L = plan.leaves.length;
  const scorer = new ExtractScorer(plan);
  const totals = new Float64Array(L * KINDS);
  const exactTotals = new Float64Array(L * KINDS);
  const card = plan.arrays.map(() => ({ equal: 0, expected: 0, predicted: 0 }));
  const worst = new WorstList(WORST, moreErrors);
  const documents: DocumentRecord[] = [];
  const anyFuzzy = plan.leaves.some((l) => l.exact);
  const dense: DenseCounts = {
    width: L,
    data: new Int32Array(items.length * L * KINDS),
    slot: new Map(plan.leaves.map((l) => [l.path, l.index])),
    correct: new Uint8Array(items.length),
    unexpected: new Int32Array(items.length),
  };
  if (anyFuzzy) dense.exact = new Int32Array(items.length * L * KINDS);
  let correctDocs = 0;
  let unexpectedDocs = 0;
  let unexpectedTotal = 0;
  const byPath = [...plan.leaves].sort((a, b) => (a.path < b.path ? -1 : 1));
  const paths = byPath.map((l) => l.path);
  const slots = byPath.map((l) => l.index);
  const keys = paths.map((p) => `${JSON.stringify(p)}:[`);
  const source = confOpts.source ?? defaultSource(metadataEntries(items.map((it) => (isFailed(it) ? undefined : it.output))));
  // Confidence is logged by field in path order (the report's), values of each document in turn.
  const rank = new Int32Array(L);
  slots.forEach((slot, r) => (rank[slot] = r));
  const log = source ? new ConfidenceLog(L) : undefined;
  const byDoc: ValuesByDocument = { start: [0], unit: [], conf: [] };
  items.forEach((item, d) => {
    scorer.confidence = log && source && !isFailed(item) ? (confidenceMap(item.output, source) ?? EMPTY_CONFIDENCE) : undefined;
    scorer.score(expected[d], predicted[d]);
    if (log) {
      for (let k = 0; k < scorer.confLeaf.length; k++) {
        const u = rank[scorer.confLeaf[k]];
        log.add(u, scorer.confValue[k], scorer.confRight[k]);
        byDoc.unit.push(u);
        byDoc.conf.push(scorer.confValue[k]);
      }
      byDoc.start.push(byDoc.unit.length);
      scorer.confidence = undefined;
    }
    const c = scorer.counts;
    dense.data.set(c, d * L * KINDS);
    for (let i = 0; i < c.length; i++) totals[i] += c[i];
    if (dense.exact) {
      dense.exact.set(scorer.exact, d * L * KINDS);
      for (let i = 0; i < c.length; i++) exactTotals[i] += scorer.exact[i];
    }
    card.forEach((a, i) => {
      const e = scorer.cardinality[i * 2];
      const p = scorer.cardinality[i * 2 + 1];
      a.expected += e;
      a.predicted += p;
      if (e === p) a.equal++;
    });
    const errors = scorer.errors();
    const failed = isFailed(item);
    // A failed run is never a correct document, even when nothing was expected.
    const correct = errors === 0 && !failed;
    if (correct) correctDocs++;
    dense.correct[d] = correct ? 1 : 0;
    (dense.unexpected as Int32Array)[d] = scorer.unexpected;
    if (scorer.unexpected > 0) {
      unexpectedDocs++;
      unexpectedTotal += scorer.unexpected;
    }
    documents.push(
      new ExtractRecord(
        { contentHash: item.contentHash, correct, errors, failed, fileId: item.fileId, fileName: item.fileName, id: item.id, unexpected: scorer.unexpected },
        { data: dense.data, offset: d * L * KINDS, paths, slots, slotOf: dense.slot, keys },
      ) as DocumentRecord,
    );
    if (worst.wants({ errors })) {
      scorer.score(expected[d], predicted[d], true);
      worst.offer({ ...base(item), errors, diffs: scorer.diffs, diffsCut: scorer.diffsCut });
    }
  });

  const unexpectedKeys = [...scorer.unexpectedKeys].map(([path, [p, e]]) => ({ path, predicted: p, expected: e })).sort((a, b) => (a.path < b.path ? -1 : 1));
  const expectedStray = unexpectedKeys.reduce((n, k) => n + k.expected, 0);
  if (expectedStray) {
    const named = unexpectedKeys.filter((k) => k.expected > 0).map((k) => k.path);
    warnings.push(
      `${expectedStray} expected value(s) under keys the config does not define are not scored (${named.slice(0, 10).join(', ')}${named.length > 10 ? ', ...' : ''}); \`evalkit validate\` reports them as unknown-field`,
    );
  }

  const leaves = byPath;
  const units = paths;
  const fields: FieldMetrics[] = leaves.map((leaf) => {
    const counts = countsOf(totals, leaf.index * KINDS);
    const row: FieldMetrics = {
      path: leaf.path,
      valueType: leaf.valueType,
      multiset: leaf.multiset,
      fuzzy: leaf.fuzzy,
      supported: counts.tp + counts.fn + counts.fd > 0,
      ...fieldScores(counts, dense.data, leaf.index, L, items.length),
    };
    if (leaf.fuzzy && dense.exact) row.exact = fieldScores(countsOf(exactTotals, leaf.index * KINDS), dense.exact, leaf.index, L, items.length);
    return row;
  });
  const micro = new Float64Array(KINDS);
  for (let i = 0; i < totals.length; i++) micro[i % KINDS] += totals[i];
  micro[FA] += unexpectedTotal;
  const arrays: ArrayCardinality[] = plan.arrays
    .map((path, i) => ({ path, rate: proportion(card[i].equal, items.length), expectedRows: card[i].expected, predictedRows: card[i].predicted }))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  const extract: ExtractMetrics = {
    fields,
    micro: microScores(countsOf(micro), dense, items.length),
    macro: { f1: { value: null, interval: null }, fields: fields.filter((f) => f.supported).length },
    document: { accuracy: proportion(correctDocs, items.length) },
    unsupportedFields: fields.filter((f) => !f.supported).map((f) => f.path),
    excludedFields: plan.excluded,
    arrays,
    unexpected: { predicted: unexpectedTotal, documents: unexpectedDocs, expected: expectedStray, keys: unexpectedKeys },
  };
  const failed = Uint8Array.from(items, (it) => (isFailed(it) ? 1 : 0));
  const calibration = log && source && log.conf.some((c) => c.length > 0) ? withFlags(documents, buildCalibration(log, paths, byDoc, failed, source, confOpts.targetAccuracy)) : undefined;
  return { type: 'EXTRACT', documents, worstDocuments: worst.docs, warnings, extract, units, dense, calibration };
}

const EMPTY_CONFIDENCE: ReadonlyMap<string, number> = new Map();

/** Puts each document's straight-through flag on its record (keys stay sorted: it sorts last but one). */
function withFlags(documents: DocumentRecord[], c: CalibrationReport & { perDocument?: Uint8Array }): CalibrationReport {
  const { perDocument, ...calibration } = c;
  if (perDocument) documents.forEach((d, i) => ((d as { straightThrough?: boolean }).straightThrough = perDocument[i] === 1));
  return calibration;
}

/**
 * Scores with intervals clustered by document, from each document's outcome counts as
 * `outcomes(d)` gives them ([tp, tn, fa, fn, fd]): per document k and n of precision (TP of
 * TP + FA + FD), recall (TP of TP + FN + FD) and accuracy (TP + TN of all outcomes).
 */
function clusteredScores(c: Counts, docs: number, outcomes: (d: number, out: Float64Array) => void): Scores {
  const precision = new ClusterSums();
  const recall = new ClusterSums();
  const accuracy = new ClusterSums();
  const t = new Float64Array(KINDS);
  for (let d = 0; d < docs; d++) {
    outcomes(d, t);
    precision.add(t[TP], t[TP] + t[FA] + t[FD]);
    recall.add(t[TP], t[TP] + t[FN] + t[FD]);
    accuracy.add(t[TP] + t[TN], t[TP] + t[TN] + t[FA] + t[FN] + t[FD]);
  }
  return {
    counts: c,
    precision: precision.proportion(),
    recall: recall.proportion(),
    f1: { value: f1Score(c.tp, c.fp, c.fn + c.fd), interval: null },
    accuracy: accuracy.proportion(),
  };
}

/** One field's scores: its counts in each document. */
function fieldScores(c: Counts, data: Int32Array, slot: number, width: number, docs: number): Scores {
  return clusteredScores(c, docs, (d, t) => {
    const o = (d * width + slot) * KINDS;
    for (let k = 0; k < KINDS; k++) t[k] = data[o + k];
  });
}

/** Micro scores: each document's counts summed over every field, plus its unexpected keys as FA. */
function microScores(c: Counts, dense: DenseCounts, docs: number): Scores {
  const { data, width } = dense;
  return clusteredScores(c, docs, (d, t) => {
    t.fill(0);
    t[FA] = dense.unexpected?.[d] ?? 0;
    for (let o = d * width * KINDS, end = o + width * KINDS; o < end; o += KINDS) for (let k = 0; k < KINDS; k++) t[k] += data[o + k];
  });
}

function evaluateClassify(exp: EvaluationExport, items: ExportItem[], confOpts: ConfidenceOptions): Scored {
  const { types, idToType } = configClasses(exp.processor.config);
  // Confidently wrong documents first.
  const worse = (a: WorstDocument, b: WorstDocument): boolean => (a.confidence ?? -1) > (b.confidence ?? -1);
  const worst = new WorstList(WORST, worse);
  const documents: DocumentRecord[] = [];
  let noExpected = 0;
  for (const item of items) {
    const failed = isFailed(item);
    const e = classOf(item.expectedOutput, idToType);
    const p = failed ? null : classOf(item.output, idToType);
    const confidence = failed ? null : confidenceOf(item.output);
    if (e === null) noExpected++;
    const correct = e !== null && e === p;
    documents.push(record(item, correct, correct ? 0 : 1, { classify: { confidence, expected: e, predicted: p } }));
    if (!correct) {
      worst.offer({
        ...base(item),
        errors: 1,
        confidence,
        diffs: [{ path: 'class', outcome: p === null ? 'FN' : 'FD', expected: e ?? NONE, predicted: p ?? NONE }],
        diffsCut: 0,
      });
    }
  }
  const warnings = noExpected ? [`${noExpected} item(s) have no expected class (expectedOutput needs a type or id); they count as wrong`] : [];
  const units = classLabels(documents, types);
  // The class is one value per document; its confidence is the output's `confidence`.
  const log = new ConfidenceLog(1);
  const byDoc: ValuesByDocument = { start: [0], unit: [], conf: [] };
  for (const d of documents) {
    const conf = d.failed ? null : (d.classify?.confidence ?? null);
    if (!d.failed && d.classify?.predicted !== null) {
      log.add(0, conf ?? NaN, d.correct ? 1 : 0);
      byDoc.unit.push(0);
      byDoc.conf.push(conf ?? NaN);
    }
    byDoc.start.push(byDoc.unit.length);
  }
  const failed = Uint8Array.from(documents, (d) => (d.failed ? 1 : 0));
  const calibration = log.conf[0].length ? withFlags(documents, buildCalibration(log, ['class'], byDoc, failed, confOpts.source ?? 'logprobs', confOpts.targetAccuracy)) : undefined;
  return { type: 'CLASSIFY', documents, worstDocuments: worst.docs, warnings, classify: classifyMetrics(documents, units), units, calibration };
}

function evaluateSplitter(exp: EvaluationExport, items: ExportItem[]): Scored {
  const declared = configSplitTypes(exp.processor.config);
  const worst = new WorstList(WORST, moreErrors);
  const documents: DocumentRecord[] = [];
  const typeSet = new Set(declared);
  const invalidE = noInvalidSplits();
  const invalidP = noInvalidSplits();
  const sum = { expected: 0, predicted: 0, correct: 0, pqTp: 0, pqFp: 0, pqFn: 0, iouSum: 0, pages: 0, pagesCorrect: 0 };
  const perType = new Map<string, [number, number, number]>();
  const perDoc = { correct: new Float64Array(items.length), predicted: new Float64Array(items.length), expected: new Float64Array(items.length), pages: new Float64Array(items.length), pagesCorrect: new Float64Array(items.length) };
  const perDocType = new Map<string, Float64Array[]>();
  items.forEach((item, d) => {
    const failed = isFailed(item);
    const E = splitsOf(item.expectedOutput, item.pageCount, invalidE);
    const P = failed ? { splits: [] } : splitsOf(item.output, item.pageCount, invalidP);
    const s = scoreSplitterDoc(E.splits, P.splits);
    for (const k of Object.keys(sum) as Array<keyof typeof sum>) sum[k] += s[k];
    perDoc.correct[d] = s.correct;
    perDoc.predicted[d] = s.predicted;
    perDoc.expected[d] = s.expected;
    perDoc.pages[d] = s.pages;
    perDoc.pagesCorrect[d] = s.pagesCorrect;
    for (const [t, v] of Object.entries(s.types)) {
      typeSet.add(t);
      const acc = perType.get(t) ?? [0, 0, 0];
      perType.set(t, [acc[0] + v[0], acc[1] + v[1], acc[2] + v[2]]);
      let cols = perDocType.get(t);
      if (!cols) perDocType.set(t, (cols = [0, 1, 2].map(() => new Float64Array(items.length))));
      cols[0][d] = v[0];
      cols[1][d] = v[1];
      cols[2][d] = v[2];
    }
    const errors = s.expected - s.correct + (s.predicted - s.correct);
    const { diffs, ...counts } = s;
    const splitter = Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1))) as typeof counts;
    splitter.types = Object.fromEntries(Object.entries(counts.types).sort(([a], [b]) => (a < b ? -1 : 1)));
    documents.push(record(item, errors === 0 && !failed, errors, { splitter }));
    worst.offer({ ...base(item), errors, diffs: diffs.slice(0, 50), diffsCut: Math.max(0, diffs.length - 50) });
  });
  const units = [...typeSet].sort();
  const none = new Float64Array(items.length);
  const types: SplitTypeMetrics[] = units.map((type) => {
    const [e, p, c] = perType.get(type) ?? [0, 0, 0];
    const [ce, cp, cc] = perDocType.get(type) ?? [none, none, none];
    return { type, expected: e, predicted: p, correct: c, precision: clusteredProportion(cc, cp), recall: clusteredProportion(cc, ce), f1: { value: f1Score(c, p - c, e - c), interval: null } };
  });
  const pqDen = sum.pqTp + sum.pqFp / 2 + sum.pqFn / 2;
  const splitter: SplitterMetrics = {
    numExpectedDocs: sum.expected,
    numPredictedDocs: sum.predicted,
    numCorrectDocs: sum.correct,
    precision: clusteredProportion(perDoc.correct, perDoc.predicted),
    recall: clusteredProportion(perDoc.correct, perDoc.expected),
    f1: { value: f1Score(sum.correct, sum.predicted - sum.correct, sum.expected - sum.correct), interval: null },
    panoptic: {
      pq: { value: pqDen === 0 ? null : sum.iouSum / pqDen, interval: null },
      sq: sum.pqTp === 0 ? null : sum.iouSum / sum.pqTp,
      rq: pqDen === 0 ? null : sum.pqTp / pqDen,
      tp: sum.pqTp,
      fp: sum.pqFp,
      fn: sum.pqFn,
      iouSum: sum.iouSum,
    },
    pageAccuracy: clusteredProportion(perDoc.pagesCorrect, perDoc.pages),
    types,
  };
  const warnings: string[] = [];
  if (invalidCount(invalidE)) warnings.push(`${invalidCount(invalidE)} expected split(s) were left out: ${describeInvalid(invalidE)}`);
  if (invalidCount(invalidP)) warnings.push(`${invalidCount(invalidP)} predicted split(s) were left out: ${describeInvalid(invalidP)}`);
  return { type: 'SPLITTER', documents, worstDocuments: worst.docs, warnings, splitter, units };
}

/** The statistic model of an evaluation's type over the given documents and units. */
export function modelFor(type: ReportProcessorType, documents: DocumentRecord[], units: string[], dense?: DenseCounts): Model {
  switch (type) {
    case 'EXTRACT':
      return extractModel(documents, units, dense);
    case 'CLASSIFY':
      return classifyModel(documents, units);
    case 'SPLITTER':
      return splitterModel(documents, units);
  }
}

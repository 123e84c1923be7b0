/**
 * Scores every document of an evaluation export and computes the point metrics of its
 * processor type. Intervals from the bootstrap, baseline comparison and gates are added by
 * src/report/build.ts.
 */
import { InputError } from '../util/errors.js';
import type { EvaluationExport, EvaluationExportHeader, ExportItem, ExportOptions } from './generated/export.js';
import type {
  CalibrationReport,
  ClassifyMetrics,
  Counts,
  DocumentRecord,
  ExtractMetrics,
  FailedItem,
  ReportProcessorType,
  Scores,
  SplitterMetrics,
  SplitTypeMetrics,
  WorstDocument,
} from './generated/report.js';
import { classifyMetrics, classLabels, classOf, confidenceOf, configClasses, NONE } from './classify.js';
import { FA, FD, FN, TN, TP } from './extract.js';
import { classifyModel, splitterModel, type Model } from './models.js';
import type { ExtractTable } from './table.js';
import { configSplitTypes, describeInvalid, invalidCount, noInvalidSplits, scoreSplitterDoc, splitsOf } from './splitter.js';
import { clusteredProportion, f1Score, proportion } from './stats.js';
import { buildCalibration, ConfidenceLog, type ConfidenceSource, type ValuesByDocument } from './calibration.js';

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
  /** Documents scored. */
  n: number;
  /** Documents that are correct (every outcome right; the class right; every split matched). */
  correct: number;
  /** EXTRACT: each document's sufficient statistics (its record went to the sink as it was scored). */
  table?: ExtractTable;
  /** EXTRACT with a target accuracy: each document's straight-through flag, in export order. */
  straightThrough?: Uint8Array;
  /** CLASSIFY, SPLITTER: the records, in id order. */
  documents?: DocumentRecord[];
  worstDocuments: WorstDocument[];
  failures: FailedItem[];
  warnings: string[];
  extract?: ExtractMetrics;
  classify?: ClassifyMetrics;
  splitter?: SplitterMetrics;
  /** Field paths, class labels or split types the statistic model covers. */
  units: string[];
}

/** A run failed when it is not PROCESSED or produced no output; it is scored as an empty prediction. */
export function isFailed(item: ExportItem): boolean {
  return item.status !== 'PROCESSED' || item.output === null || item.output === undefined;
}

/** The items in id order; duplicate ids are an input error (pairing with a baseline needs them unique). */
export function sortedItems(exp: Pick<EvaluationExport, 'items'>): ExportItem[] {
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

export const WORST = 20;

/** Keeps the k documents ranked first by `before` (documents arrive in id order). */
export class WorstList {
  readonly docs: WorstDocument[] = [];
  constructor(
    private readonly k: number,
    private readonly before: (a: WorstDocument, b: WorstDocument) => boolean,
  ) {}
  /** Whether a document with these ranking members would make the list (to build its details only then). */
  wants(d: Pick<WorstDocument, 'errors' | 'confidence' | 'id'>): boolean {
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

/** Most errors first, ties by id (documents may arrive in any order). */
export const moreErrors = (a: WorstDocument, b: WorstDocument): boolean => a.errors > b.errors || (a.errors === b.errors && a.id < b.id);

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

export function failureOf(item: ExportItem): FailedItem {
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

type Scored = Omit<Evaluation, 'failures' | 'n'>;

/** Puts each document's straight-through flag on its record (keys stay sorted: it sorts last but one). */
function withFlags(documents: DocumentRecord[], c: CalibrationReport & { perDocument?: Uint8Array }): CalibrationReport {
  const { perDocument, ...calibration } = c;
  if (perDocument) documents.forEach((d, i) => ((d as { straightThrough?: boolean }).straightThrough = perDocument[i] === 1));
  return calibration;
}

export function evaluateClassify(exp: EvaluationExportHeader, items: ExportItem[], confOpts: ConfidenceOptions): Scored {
  const { types, idToType } = configClasses(exp.processor.config);
  // Confidently wrong documents first.
  const worse = (a: WorstDocument, b: WorstDocument): boolean => (a.confidence ?? -1) > (b.confidence ?? -1) || ((a.confidence ?? -1) === (b.confidence ?? -1) && a.id < b.id);
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
  return { type: 'CLASSIFY', documents, correct: documents.filter((d) => d.correct).length, worstDocuments: worst.docs, warnings, classify: classifyMetrics(documents, units), units, calibration };
}

export function evaluateSplitter(exp: EvaluationExportHeader, items: ExportItem[]): Scored {
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
  return { type: 'SPLITTER', documents, correct: documents.filter((d) => d.correct).length, worstDocuments: worst.docs, warnings, splitter, units };
}

/** The statistic model of CLASSIFY or SPLITTER records over the given units. */
export function recordModel(type: 'CLASSIFY' | 'SPLITTER', documents: DocumentRecord[], units: string[]): Model {
  return type === 'CLASSIFY' ? classifyModel(documents, units) : splitterModel(documents, units);
}

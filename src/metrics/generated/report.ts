/* Generated from schemas/report.schema.json by scripts/gen-types.mjs (npm run gen:types). Do not edit. */

/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "processorType".
 */
export type ReportProcessorType = "EXTRACT" | "CLASSIFY" | "SPLITTER";
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "valueType".
 */
export type ValueType = "string" | "number" | "integer" | "currency" | "date" | "boolean" | "enum" | "unknown";
/**
 * A ratio in [0, 1], or null when its denominator is zero.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "ratio".
 */
export type Ratio = number | null;
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "interval_or_null".
 */
export type IntervalOrNull = Interval | null;
/**
 * improved / regressed: the delta's interval excludes 0 and the Holm-adjusted McNemar p < 0.05 in the same direction; no_change: the interval lies inside the equivalence margin; inconclusive: neither; not_comparable: a side is undefined.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "verdict".
 */
export type Verdict = "improved" | "regressed" | "inconclusive" | "no_change" | "not_comparable";
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "fieldCalibration".
 */
export type FieldCalibration = CalibrationStats & {
  /**
   * Field path (EXTRACT) or `class` (CLASSIFY).
   */
  path: string;
  /**
   * The threshold sweep, thinned to at most 50 points evenly spaced by rank (the choice is made on every distinct threshold).
   */
  sweep: ThresholdPoint[];
  /**
   * With --target-accuracy: the chosen threshold (the lowest whose accepted values' accuracy has its Wilson lower bound at or above the target), or null when none reaches it.
   */
  threshold: ThresholdPoint | null;
};
/**
 * A ratio in [0, 1], or null when its denominator is zero.
 */
export type Ratio1 = number | null;
/**
 * [tp, tn, fa, fn, fd] of one field in one document.
 *
 * @minItems 5
 * @maxItems 5
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "outcomeTuple".
 */
export type OutcomeTuple = [number, number, number, number, number];
/**
 * @minItems 3
 * @maxItems 3
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "typeTuple".
 */
export type TypeTuple = [number, number, number];

/**
 * The canonical evaluation report written by `evalkit report` (report.json). Deterministic: the same export, options and seed give the same bytes (keys sorted; rows sorted by path, label or id). Every metric is defined in the README section `evalkit report`.
 */
export interface Report {
  /**
   * Format marker. Version 3: the per-document records moved out of report.json into a side file (`documentsFile`), so that report.json stays small at any size. Version 2 (evalkit 0.2): corrected verdicts (improved, regressed, inconclusive, no_change), pairing, clustered intervals. Reports of versions 1 and 2 (records inline in `documents`) are still read as baselines.
   */
  format: "evalkit-report/3";
  type: ReportProcessorType;
  source: ReportSource;
  options: ReportOptions;
  summary: ReportSummary;
  /**
   * Things the reader should know: option entries that name no field, fuzzy matching asked of a non-string field, a baseline computed with other options.
   */
  warnings: string[];
  failures: FailedItem[];
  extract?: ExtractMetrics;
  classify?: ClassifyMetrics;
  splitter?: SplitterMetrics;
  documentsFile: DocumentsFile;
  worstDocuments: WorstDocument[];
  baseline?: BaselineComparison;
  gates: Gates;
  calibration?: CalibrationReport;
  cost?: CostReport;
  slices?: SliceReport;
  runs?: MultiRun;
  reconciliation?: Reconciliation1;
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "source".
 */
export interface ReportSource {
  /**
   * File name of the export (without folders).
   */
  file: string;
  processor: {
    id: string;
    name: string;
    type: ReportProcessorType;
    version: string;
  };
  evaluationSetId?: string;
  batchProcessorRunId?: string;
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "options".
 */
export interface ReportOptions {
  fuzzyThreshold: number;
  numberTolerance: number;
  bootstrap: number;
  seed: number;
  fuzzyMatchFields: string[];
  excludeFields: string[];
  /**
   * Equivalence margin: a delta whose 95% interval lies inside [-margin, +margin] is `no_change`.
   */
  equivalence: number;
  /**
   * How documents pair with a baseline's: `auto` (item id, then file id, then file name, then content hash) or one key alone.
   */
  pairBy: "auto" | "id" | "file" | "name";
  /**
   * The --slice-by keys, as given (metadata paths with their `metadata.` prefix).
   */
  sliceBy?: string[];
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "summary".
 */
export interface ReportSummary {
  documents: number;
  processed: number;
  failed: number;
}
/**
 * An item whose run produced no output; it is scored as an empty prediction.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "failure".
 */
export interface FailedItem {
  id: string;
  fileId: string;
  fileName?: string;
  status: string;
  runId?: string;
  failureReason?: string;
  failureMessage?: string;
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "extractMetrics".
 */
export interface ExtractMetrics {
  fields: FieldMetrics[];
  micro: Scores;
  macro: {
    f1: Estimate;
    /**
     * Number of supported fields averaged.
     */
    fields: number;
  };
  document: {
    accuracy: Proportion;
  };
  unsupportedFields: string[];
  excludedFields: string[];
  arrays: ArrayCardinality[];
  unexpected: UnexpectedKeys;
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "fieldMetrics".
 */
export interface FieldMetrics {
  /**
   * Leaf field path: `total`, `vendor.name`, `line_items[].amount`.
   */
  path: string;
  valueType: ValueType;
  /**
   * An array of primitives scored as a multiset.
   */
  multiset: boolean;
  /**
   * Listed in fuzzyMatchFields: counts use the fuzzy comparator, `exact` holds the exact ones.
   */
  fuzzy: boolean;
  /**
   * At least one non-empty expected value (tp + fn + fd > 0); only supported fields enter the macro mean.
   */
  supported: boolean;
  counts: Counts;
  precision: Proportion;
  recall: Proportion;
  f1: Estimate;
  accuracy: Proportion;
  exact?: Scores;
}
/**
 * Outcome counts: tp, tn, fa (false alarm), fn (missed), fd (wrong value); fp = fa + fd; n = tp + tn + fa + fn + fd.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "counts".
 */
export interface Counts {
  tp: number;
  tn: number;
  fa: number;
  fn: number;
  fd: number;
  fp: number;
  n: number;
}
/**
 * k successes out of n, value k/n (null when n = 0) with its Wilson 95% interval; when documents contribute several outcomes each, the Wilson interval is widened by the design effect (`designEffect`, README: Intervals).
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "proportion".
 */
export interface Proportion {
  value: Ratio;
  k: number;
  n: number;
  interval: Interval | null;
  /**
   * Present when some document contributes more than one outcome: the cluster design effect (at least 1) by which n was divided for the interval.
   */
  designEffect?: number;
}
/**
 * A 95% interval: Wilson score for proportions, bootstrap percentile otherwise.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "interval".
 */
export interface Interval {
  lower: number;
  upper: number;
}
/**
 * A statistic that is not a single proportion (F1, panoptic quality, means of F1), with a bootstrap percentile 95% interval over documents (null when --bootstrap 0 or too few defined resamples).
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "estimate".
 */
export interface Estimate {
  value: Ratio;
  interval: Interval | null;
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "scores".
 */
export interface Scores {
  counts: Counts;
  precision: Proportion;
  recall: Proportion;
  f1: Estimate;
  accuracy: Proportion;
}
/**
 * Per array field not nested in another array: share of documents whose predicted number of non-empty rows equals the expected number.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "arrayCardinality".
 */
export interface ArrayCardinality {
  path: string;
  rate: Proportion;
  expectedRows: number;
  predictedRows: number;
}
/**
 * Keys outside the config's fields. Predicted values under them count as false alarms (FA, so FP) of a pseudo-field in the micro counts, never as TN elsewhere; expected values under them are not scored (a warning says so).
 */
export interface UnexpectedKeys {
  /**
   * Predicted non-empty values under undeclared keys (the pseudo-field's FA count).
   */
  predicted: number;
  /**
   * Documents with at least one such predicted value.
   */
  documents: number;
  /**
   * Expected non-empty values under undeclared keys (not scored).
   */
  expected: number;
  keys: {
    path: string;
    predicted: number;
    expected: number;
  }[];
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "classifyMetrics".
 */
export interface ClassifyMetrics {
  accuracy: Proportion;
  classes: ClassMetrics[];
  macro: {
    precision: Estimate;
    recall: Estimate;
    f1: Estimate;
  };
  weighted: {
    f1: Estimate;
  };
  /**
   * expected label -> predicted label -> count; `(none)` is a failed run or an output without a class.
   */
  confusionMatrix: {
    [k: string]: {
      [k: string]: number;
    };
  };
  /**
   * Mean `confidence` of the outputs that carry one; null when none does.
   */
  meanConfidence: number | null;
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "classMetrics".
 */
export interface ClassMetrics {
  label: string;
  /**
   * Documents whose expected class is this one.
   */
  support: number;
  /**
   * Documents predicted as this class.
   */
  predicted: number;
  tp: number;
  fp: number;
  fn: number;
  precision: Proportion;
  recall: Proportion;
  f1: Estimate;
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "splitterMetrics".
 */
export interface SplitterMetrics {
  numExpectedDocs: number;
  numPredictedDocs: number;
  numCorrectDocs: number;
  precision: Proportion;
  recall: Proportion;
  f1: Estimate;
  panoptic: {
    pq: Estimate;
    sq: Ratio;
    rq: Ratio;
    tp: number;
    fp: number;
    fn: number;
    iouSum: number;
  };
  pageAccuracy: Proportion;
  types: SplitTypeMetrics[];
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "splitTypeMetrics".
 */
export interface SplitTypeMetrics {
  type: string;
  expected: number;
  predicted: number;
  correct: number;
  precision: Proportion;
  recall: Proportion;
  f1: Estimate;
}
/**
 * The side file of per-document records: JSON Lines next to report.json, one `documentRecord` per line (keys sorted), one line per document of the export. A baseline report is read with it and refused when it is missing or its SHA-256 differs.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "documentsFile".
 */
export interface DocumentsFile {
  /**
   * File name, relative to the folder of report.json.
   */
  file: string;
  /**
   * Number of records (lines).
   */
  count: number;
  /**
   * SHA-256 of the file's bytes, lowercase hex.
   */
  sha256: string;
}
/**
 * Documents with the most wrong outcomes (ties by id), with their differences.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "worstDocument".
 */
export interface WorstDocument {
  id: string;
  fileId: string;
  fileName?: string;
  failed: boolean;
  errors: number;
  confidence?: number | null;
  diffs: DocumentDiff[];
  /**
   * Differences left out to keep the report small.
   */
  diffsCut: number;
}
/**
 * One wrong outcome of a document with the expected and predicted values (null when empty).
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "diff".
 */
export interface DocumentDiff {
  /**
   * Concrete path: `line_items[2].amount` is expected row 2 (from 0) or its pair, `line_items[+3].amount` an unpaired predicted row 3; `class` for CLASSIFY; `splits` for SPLITTER.
   */
  path: string;
  outcome: "FA" | "FN" | "FD";
  expected: unknown;
  predicted: unknown;
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "baselineComparison".
 */
export interface BaselineComparison {
  file: string;
  kind: "export" | "report";
  paired: number;
  /**
   * Ids of this run's documents that paired with none of the baseline's.
   */
  onlyInCurrent: string[];
  /**
   * Ids of the baseline's documents that paired with none of this run's.
   */
  onlyInBaseline: string[];
  warnings: string[];
  rows: ComparisonRow[];
  tally: {
    improved: number;
    regressed: number;
    inconclusive: number;
    no_change: number;
    not_comparable: number;
  };
  pairing: Pairing;
  equivalence: number;
  straightThrough?: StraightThroughComparison;
  cost?: CostReport;
}
/**
 * One metric on the documents present in both runs: baseline and current values, their difference with a paired bootstrap 95% interval, an exact McNemar test on per-document correctness, and the verdict.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "comparisonRow".
 */
export interface ComparisonRow {
  /**
   * Metric name as accepted by --fail-under, e.g. `micro.f1`, `field:total.f1`.
   */
  key: string;
  current: Ratio;
  baseline: Ratio;
  delta: number | null;
  interval: IntervalOrNull;
  mcnemar: {
    /**
     * Documents right in the baseline and wrong now.
     */
    b: number;
    /**
     * Documents wrong in the baseline and right now.
     */
    c: number;
    /**
     * Two-sided exact p-value.
     */
    p: number;
  };
  verdict: Verdict;
  /**
   * McNemar p adjusted by Holm's step-down procedure across the comparable rows (what the verdict and --fail-on-regression use).
   */
  pHolm: number;
  /**
   * Benjamini-Hochberg q-value of the McNemar p across the comparable rows.
   */
  q: number;
  /**
   * Minimum detectable effect at 80% power (two-sided 5%) on per-document correctness for this number of paired documents and this discordance (1: no change of any size is detectable); null when nothing is paired.
   */
  mde: number | null;
}
/**
 * How documents were paired with the baseline's.
 */
export interface Pairing {
  by: "auto" | "id" | "file" | "name";
  /**
   * Documents of this run.
   */
  current: number;
  /**
   * Documents of the baseline.
   */
  baseline: number;
  paired: number;
  /**
   * Pairs found by each key, in the order tried.
   */
  byKey: {
    id: number;
    file: number;
    name: number;
    hash: number;
  };
  /**
   * Fewest pairs the comparison accepts (--min-paired; default 90% of this run's documents, at least 1).
   */
  minPaired: number;
  sufficient: boolean;
}
/**
 * With --target-accuracy and straight-through flags on both sides: the rate over the paired documents, each run at its own thresholds, and the paired bootstrap 95% interval of the difference.
 */
export interface StraightThroughComparison {
  current: number;
  baseline: number;
  delta: number;
  interval: IntervalOrNull;
  paired: number;
}
/**
 * Latency and credits of the runs (README: Cost and latency), from the export's durationMs and credits.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "cost".
 */
export interface CostReport {
  /**
   * Over the runs with a duration: mean, median and 95th percentile in milliseconds (percentiles with linear interpolation); null when no run has one.
   */
  latency: {
    runs: number;
    mean: number;
    p50: number;
    p95: number;
  } | null;
  /**
   * Over the runs with credits: the total, the mean per document, and the total per correct unit (EXTRACT: TP field value; CLASSIFY: right document; SPLITTER: matched split); null when no run has credits.
   */
  credits: {
    runs: number;
    total: number;
    mean: number;
    perCorrect: number | null;
    correct: number;
    unit: "field" | "document" | "split";
  } | null;
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "gates".
 */
export interface Gates {
  gateOn: "point" | "lower";
  failOnRegression: boolean;
  results: GateResult[];
  /**
   * Comparison rows with verdict regressed, Holm-corrected (they fail the run only with --fail-on-regression).
   */
  regressed: string[];
  passed: boolean;
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "gateResult".
 */
export interface GateResult {
  /**
   * The gate as given, e.g. `micro.f1=0.9`; `failed.rate<=0.05` for --max-failed-rate, `baseline.paired>=11` for --min-paired.
   */
  gate: string;
  metric: string;
  threshold: number;
  on: "point" | "lower";
  value: number | null;
  passed: boolean;
  reason?: string;
  /**
   * How value is held against threshold: `>=` (default) or `<=` (failed.rate).
   */
  op?: ">=" | "<=";
  /**
   * Smallest difference from the threshold this set resolves at 80% power (2.80 standard errors, taken from the 95% interval); null without an interval.
   */
  mde?: number | null;
}
/**
 * Confidence against correctness of predicted values (README: Confidence). Present when any predicted value has a confidence.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "calibration".
 */
export interface CalibrationReport {
  source: "logprobs" | "ocr" | "review" | "min";
  targetAccuracy: number | null;
  overall: CalibrationStats;
  fields: FieldCalibration[];
  /**
   * With --target-accuracy: the share of documents whose every predicted value is auto-accepted at its field's threshold (Wilson interval); null otherwise.
   */
  straightThrough: Proportion | null;
}
/**
 * Calibration of a set of values. Open here: closed where it is used (unevaluatedProperties).
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "calibrationStats".
 */
export interface CalibrationStats {
  /**
   * Predicted values with a confidence from the source.
   */
  withConfidence: number;
  /**
   * Predicted values without one (never accepted, never guessed).
   */
  withoutConfidence: number;
  bins: CalibrationBin[];
  /**
   * Expected calibration error: sum over bins of (count / N) * |accuracy - mean confidence|.
   */
  ece: number | null;
  /**
   * Mean of (confidence - correct)^2.
   */
  brier: number | null;
  /**
   * Probability that a right value's confidence exceeds a wrong one's, ties counted half; null without both.
   */
  auroc: number | null;
}
/**
 * One reliability-diagram bin: confidences in [lower, upper) ([0.9, 1.0] for the last).
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "calibrationBin".
 */
export interface CalibrationBin {
  lower: number;
  upper: number;
  count: number;
  meanConfidence: number;
  accuracy: number;
  interval: IntervalOrNull;
}
/**
 * Values with confidence >= threshold accepted: how many, how many right, their accuracy with its Wilson lower bound, and the share of the field's predicted values accepted.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "thresholdPoint".
 */
export interface ThresholdPoint {
  threshold: number;
  accepted: number;
  correct: number;
  accuracy: number;
  lower: number;
  coverage: number;
}
/**
 * With --slice-by (README: Slices): per key, the documents grouped by their value, each group's headline metrics with intervals, and a one-sided cluster-robust z-test of the test metric against the rest of the run, Holm-corrected across every tested slice of every key.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "slices".
 */
export interface SliceReport {
  /**
   * The metric slices are tested on: f1 (EXTRACT micro F1, SPLITTER F1) or accuracy (CLASSIFY).
   */
  metric: string;
  /**
   * Family-wise error rate of the flags (Holm).
   */
  alpha: number;
  /**
   * Slices that were tested (at least 2 documents with outcomes on each side): the size of the Holm family.
   */
  tested: number;
  groups: SliceGroup[];
  warnings: string[];
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "sliceGroup".
 */
export interface SliceGroup {
  /**
   * `metadata.PATH`, `fileType` or `pageCount` (with its bucket bounds when given).
   */
  key: string;
  /**
   * Largest first; `(none)` holds the documents without a value, `(other)` the merged smallest values past 50.
   */
  slices: Slice[];
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "slice".
 */
export interface Slice {
  label: string;
  documents: number;
  failed: number;
  /**
   * EXTRACT: f1, precision, recall, documentAccuracy; CLASSIFY: accuracy; SPLITTER: f1, pageAccuracy, documentAccuracy. Each a ratio of per-document sums.
   */
  metrics: {
    [k: string]: SliceEstimate;
  };
  rest: Ratio1;
  /**
   * This slice's test metric less the rest's.
   */
  delta: number | null;
  /**
   * One-sided p-value that the slice is below the rest; null when not tested.
   */
  p: number | null;
  /**
   * Holm-adjusted p across all tested slices.
   */
  pHolm: number | null;
  /**
   * pHolm below alpha and delta below 0: significantly worse than the rest.
   */
  flagged: boolean;
}
/**
 * A ratio of per-document sums Σk/Σm with the Wilson 95% interval widened by the cluster design effect.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "sliceEstimate".
 */
export interface SliceEstimate {
  value: Ratio;
  interval: Interval | null;
  designEffect?: number;
}
/**
 * Several runs of one set side by side (report --from A --from B ..., or --runs DIR): each metric per run, each run's delta to the reference (the first run) with corrected verdicts, and the run-to-run spread of repeats of one version (docs/multi-run.md).
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "multiRun".
 */
export interface MultiRun {
  /**
   * Documents present in every run (the reference's documents that paired with each other run); every number of this section is over them.
   */
  paired: number;
  pairing: {
    by: "auto" | "id" | "file" | "name";
    minPaired: number;
    sufficient: boolean;
  };
  runs: MultiRunRun[];
  metrics: MultiRunMetric[];
  comparisons: MultiRunComparison[];
  /**
   * Runs of the same processor version (same processor id, version id or version, and config), two or more each.
   */
  repeatGroups: {
    label: string;
    /**
     * Run indices, two or more.
     */
    runs: number[];
  }[];
  warnings: string[];
}
/**
 * One run of a multi-run report, in the order given (index 0 is the reference).
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "multiRunRun".
 */
export interface MultiRunRun {
  index: number;
  /**
   * File name of the export (without folders).
   */
  file: string;
  processor: {
    id: string;
    name: string;
    version: string;
    versionId?: string;
  };
  /**
   * Documents of this run's export.
   */
  documents: number;
  /**
   * Of them, documents that paired with the reference's (the reference: all of its own).
   */
  paired: number;
  /**
   * Index in repeatGroups when this run is a repeat of one processor version (same processor, version id and config as another run); null otherwise.
   */
  group: number | null;
  reconciliation?: Reconciliation;
}
/**
 * A later run (index 1 and on) whose export records the service's evaluation set run: its own reconciliation, over its own items (the reference's is the report's `reconciliation`). Absent for a run without the service's run.
 */
export interface Reconciliation {
  evaluationSetRunId: string;
  /**
   * The run's status as the service answered it.
   */
  status: string;
  /**
   * The run did not end PROCESSED and was scored with --allow-partial.
   */
  partial: boolean;
  rows: ReconciliationRow[];
  /**
   * Figures where the service's answer and evalkit's recomputation of the service's definitions differ by more than 1e-9.
   */
  findings: ReconciliationFinding[];
  /**
   * Metrics (`fieldMetrics.total.accuracy`) that the service's definitions define for this run but its answer does not give.
   */
  notGiven: string[];
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "reconciliationRow".
 */
export interface ReconciliationRow {
  kind: "aggregate" | "field" | "class" | "split";
  /**
   * The field path (dot-joined, as the service names it) or class type; "" for aggregates and splits.
   */
  key: string;
  metric: "accuracy" | "precision" | "recall" | "f1";
  /**
   * The service's figure as answered; null when not given (or not defined).
   */
  service: number | null;
  serviceCounts?: CountPair;
  /**
   * evalkit's recomputation of the service's definition from the export's items; null when undefined.
   */
  recomputed: number | null;
  /**
   * evalkit's counterpart, computed evalkit's way; null when undefined or when there is none.
   */
  evalkit: number | null;
  evalkitCounts?: CountPair1;
  /**
   * Which evalkit number is the counterpart (`field:total.recall`, `micro.recall`, `class:invoice.precision`); "" when there is none.
   */
  evalkitMetric: string;
  /**
   * The service gave a figure and evalkit's counterpart is undefined or differs from it by more than 1e-9.
   */
  differs: boolean;
  reasons: ReconciliationReason[];
}
/**
 * The service's numerator and denominator as answered (field accuracy: countAccurate, countExpected), when given.
 */
export interface CountPair {
  k: number;
  n: number;
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "countPair".
 */
export interface CountPair1 {
  k: number;
  n: number;
}
/**
 * A difference of definitions seen in the export's items; `count` items show it.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "reconciliationReason".
 */
export interface ReconciliationReason {
  code:
    | "invented-value"
    | "empty-value"
    | "normalised-match"
    | "evalkit-stricter"
    | "array-rows"
    | "failed-runs"
    | "excluded"
    | "no-counterpart"
    | "no-expected-class"
    | "class-read"
    | "splits-left-out"
    | "split-type-read";
  count: number;
  text: string;
}
/**
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "reconciliationFinding".
 */
export interface ReconciliationFinding {
  /**
   * The metric's place in the service's answer: `fieldMetrics.total.countAccurate`, `classificationMetrics.invoice.f1`, `precision`, `numFilesTotal`.
   */
  metric: string;
  service: number | null;
  /**
   * null when the recomputation has no such metric (a field the config does not have).
   */
  recomputed: number | null;
}
/**
 * One metric over the documents every run has: its value in each run, and the run-to-run spread of repeats (docs/multi-run.md).
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "multiRunMetric".
 */
export interface MultiRunMetric {
  /**
   * Metric name as accepted by --fail-under, e.g. `micro.f1`, `field:total.f1`.
   */
  key: string;
  /**
   * The metric in each run, by run index.
   */
  values: Ratio[];
  /**
   * Pooled within-version standard deviation of the metric: sqrt(Σ over repeat groups Σ (x − group mean)² / Σ (runs in group − 1)), over the groups where every repeat defines it; null without repeats.
   */
  sd: number | null;
  /**
   * Share of (repeat group, document) pairs in which the document's correctness for this metric is not the same in every repeat of the group; null without repeats.
   */
  flipRate: number | null;
  /**
   * Run-to-run band z₀.₉₇₅·√2·sd: a significant delta no larger than this is inconclusive (within the spread between repeats); null without repeats.
   */
  band: number | null;
}
/**
 * One run against the reference (run 0) on the documents every run has; the McNemar p-values are Holm- (and BH-) corrected across every row of every comparison.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "multiRunComparison".
 */
export interface MultiRunComparison {
  run: number;
  file: string;
  rows: ComparisonRow[];
  /**
   * Metrics whose delta was significant but no larger than the run-to-run band, so inconclusive.
   */
  withinSpread: string[];
  tally: {
    improved: number;
    regressed: number;
    inconclusive: number;
    no_change: number;
    not_comparable: number;
  };
}
/**
 * When the export records the service's evaluation set run (API 2026-02-09): the service's figures next to evalkit's counterparts, the reasons they differ, and evalkit's recomputation of the service's own definitions (docs/metrics.md, Reconciliation).
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "reconciliation".
 */
export interface Reconciliation1 {
  evaluationSetRunId: string;
  /**
   * The run's status as the service answered it.
   */
  status: string;
  /**
   * The run did not end PROCESSED and was scored with --allow-partial.
   */
  partial: boolean;
  rows: ReconciliationRow[];
  /**
   * Figures where the service's answer and evalkit's recomputation of the service's definitions differ by more than 1e-9.
   */
  findings: ReconciliationFinding[];
  /**
   * Metrics (`fieldMetrics.total.accuracy`) that the service's definitions define for this run but its answer does not give.
   */
  notGiven: string[];
}
/**
 * Per-document outcomes; what a later `--baseline report.json` pairs on.
 *
 * This interface was referenced by `Report`'s JSON-Schema
 * via the `definition` "documentRecord".
 */
export interface DocumentRecord {
  id: string;
  fileId: string;
  fileName?: string;
  failed: boolean;
  /**
   * Every outcome is TP or TN and no unexpected key was predicted (EXTRACT), the class is right (CLASSIFY), every split matched and none extra (SPLITTER); never true for a failed run.
   */
  correct: boolean;
  /**
   * Number of wrong outcomes (FA + FN + FD; wrong class; unmatched splits).
   */
  errors: number;
  /**
   * EXTRACT: leaf field path -> [tp, tn, fa, fn, fd]; fields without outcomes are left out.
   */
  fields?: {
    [k: string]: OutcomeTuple;
  };
  classify?: {
    expected: string | null;
    predicted: string | null;
    confidence: number | null;
  };
  splitter?: {
    expected: number;
    predicted: number;
    correct: number;
    pqTp: number;
    pqFp: number;
    pqFn: number;
    iouSum: number;
    pages: number;
    pagesCorrect: number;
    /**
     * split type -> [expected, predicted, correct] splits of that type.
     */
    types: {
      [k: string]: TypeTuple;
    };
  };
  /**
   * Content identity of the document's file (a SHA-256 prefix in hex), when known; used to pair with a baseline.
   */
  contentHash?: string;
  /**
   * EXTRACT: predicted values under keys the config does not define (false alarms of the pseudo-field `unexpected keys`).
   */
  unexpected?: number;
  /**
   * With --target-accuracy: every predicted value of the document has a confidence at or above its field's threshold.
   */
  straightThrough?: boolean;
}

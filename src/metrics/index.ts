/**
 * Metrics of evaluation runs: comparators per field type, EXTRACT outcome counts with
 * line-item pairing, CLASSIFY and SPLITTER metrics, Wilson intervals, McNemar, bootstrap.
 */
export { isFailed, sortedItems, recordModel, type Evaluation } from './evaluate.js';
export { evaluateExport, evaluateSource, ExtractAccumulator, type ItemSource, type ScoreOptions } from './accumulate.js';
export { ExtractTable, CountStore } from './table.js';
export {
  comparatorFor,
  matchBoolean,
  matchCurrency,
  matchDate,
  matchExactString,
  matchFuzzyString,
  matchNumber,
  similarity,
  DEFAULT_COMPARE,
  type Comparator,
  type CompareOptions,
} from './comparators.js';
export { isEmpty, exactForm, fuzzyForm, asDate, asNumber } from './values.js';
export { buildExtractPlan, extractValues, ExtractScorer, type ExtractPlan, type Leaf } from './extract.js';
export { treeFromConfig, type FieldNode } from './fields.js';
export { classOf, configClasses, NONE } from './classify.js';
export { splitsOf, scoreSplitterDoc, pageIou, type Split } from './splitter.js';
export { wilson, clusteredProportion, mcnemarExact, mcnemarMde, holm, benjaminiHochberg, f1Score, ratio, proportion, percentileInterval, Z95 } from './stats.js';
export { bootstrap, pointStats, type StatModel } from './bootstrap.js';
export { maxWeightPairs } from './assignment.js';
export type { EvaluationExport, EvaluationExportHeader, ExportItem, ExportOptions, ExportProcessor, ExportRunStatus } from './generated/export.js';

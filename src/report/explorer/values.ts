/**
 * The values of each document, for the explorer and the errors file: every outcome but TN of an
 * EXTRACT document with its expected and predicted values (line-item rows as they were paired),
 * the class of a CLASSIFY document, the splits of a SPLITTER document. Scored again from the
 * export with the report's comparator settings, so outcomes are the report's.
 */
import type { EvaluationExport, ExportItem } from '../../metrics/generated/export.js';
import type { Report } from '../../metrics/generated/report.js';
import { confidenceMap, type ConfidenceSource } from '../../metrics/calibration.js';
import { classOf, confidenceOf, configClasses } from '../../metrics/classify.js';
import { exportOptions, isFailed } from '../../metrics/evaluate.js';
import { buildExtractPlan, extractValues, ExtractScorer, type Cell } from '../../metrics/extract.js';
import { splitsOf, type Split } from '../../metrics/splitter.js';

export type { Cell } from '../../metrics/extract.js';

/** One document's values; `cells` for EXTRACT with `leaf` as an index into `ValueSource.paths`. */
export type DocumentValues =
  | { type: 'EXTRACT'; cells: Cell[] }
  | { type: 'CLASSIFY'; expected: string | null; predicted: string | null; confidence: number | null }
  | { type: 'SPLITTER'; pageCount: number | null; expected: Split[]; predicted: Split[] };

export interface ValueSource {
  /** EXTRACT: the leaf path of each `Cell.leaf`. */
  paths: readonly string[];
  /** The values of the item with this id (undefined: no such item). */
  of(id: string): DocumentValues | undefined;
}

/** Values of an export scored with a report's settings (the report of this export, or of its baseline). */
export function valueSource(exp: EvaluationExport, options: Pick<Report['options'], 'fuzzyThreshold' | 'numberTolerance'>, source?: ConfidenceSource): ValueSource {
  const byId = new Map<string, ExportItem>(exp.items.map((it) => [it.id, it]));
  switch (exp.processor.type) {
    case 'EXTRACT': {
      const items = [...byId.values()];
      const expected = items.map((it) => extractValues(it.expectedOutput));
      const predicted = items.map((it) => (isFailed(it) ? undefined : extractValues(it.output)));
      const plan = buildExtractPlan(exp.processor.config, expected, predicted, { ...options, ...exportOptions(exp) });
      const scorer = new ExtractScorer(plan);
      return {
        paths: plan.leaves.map((l) => l.path),
        of(id) {
          const item = byId.get(id);
          if (!item) return undefined;
          const failed = isFailed(item);
          scorer.cells = [];
          scorer.confidence = source && !failed ? confidenceMap(item.output, source) : undefined;
          scorer.score(extractValues(item.expectedOutput), failed ? undefined : extractValues(item.output), false);
          const cells = scorer.cells;
          scorer.cells = undefined;
          scorer.confidence = undefined;
          return { type: 'EXTRACT', cells };
        },
      };
    }
    case 'CLASSIFY': {
      const { idToType } = configClasses(exp.processor.config);
      return {
        paths: ['class'],
        of(id) {
          const item = byId.get(id);
          if (!item) return undefined;
          const failed = isFailed(item);
          return { type: 'CLASSIFY', expected: classOf(item.expectedOutput, idToType), predicted: failed ? null : classOf(item.output, idToType), confidence: failed ? null : confidenceOf(item.output) };
        },
      };
    }
    case 'SPLITTER':
      return {
        paths: ['splits'],
        of(id) {
          const item = byId.get(id);
          if (!item) return undefined;
          return {
            type: 'SPLITTER',
            pageCount: item.pageCount ?? null,
            expected: splitsOf(item.expectedOutput, item.pageCount).splits,
            predicted: isFailed(item) ? [] : splitsOf(item.output, item.pageCount).splits,
          };
        },
      };
  }
}

/* Generated from schemas/history-entry.schema.json by scripts/gen-types.mjs (npm run gen:types). Do not edit. */

/**
 * One report's summary in a history folder (`evalkit report --history DIR` writes DIR/<time>-<commit or run id>.json; `evalkit history show DIR` reads them). Metric names are those --fail-under accepts (docs/history.md).
 */
export interface HistoryEntry {
  format: "evalkit-history/1";
  /**
   * When the report was made (ISO 8601, UTC).
   */
  time: string;
  /**
   * The commit reported on: $GITHUB_SHA, else `git rev-parse HEAD` in the working folder; null outside a repository.
   */
  commit: string | null;
  /**
   * $GITHUB_HEAD_REF or $GITHUB_REF_NAME, else the checked-out branch; null when detached or outside a repository.
   */
  branch: string | null;
  /**
   * The export's batch (evaluation) run id, when it has one.
   */
  runId: string | null;
  evaluationSetId: string | null;
  /**
   * File name of the export reported on.
   */
  source: string;
  type: "EXTRACT" | "CLASSIFY" | "SPLITTER";
  processor: {
    id: string;
    name: string;
    version: string;
    versionId?: string;
  };
  documents: number;
  /**
   * Failed runs among the documents.
   */
  failed: number;
  /**
   * Headline metrics by name (EXTRACT micro.f1, micro.precision, micro.recall, micro.accuracy, macro.f1, document.accuracy; CLASSIFY accuracy, macro.f1, weighted.f1, macro.precision, macro.recall; SPLITTER f1, precision, recall, pq, page.accuracy; every type failed.rate, and latency.p95 and credits.mean when the export has them); null when undefined.
   */
  headline: {
    [k: string]: number | null;
  };
  /**
   * F1 of each field (`field:PATH.f1`), class (`class:LABEL.f1`) or split type (`type:TYPE.f1`); null when undefined.
   */
  fields: {
    [k: string]: number | null;
  };
  gates: {
    passed: boolean;
    results: {
      gate: string;
      passed: boolean;
      value: number | null;
    }[];
    /**
     * With --fail-on-regression: metrics that regressed against the baseline.
     */
    regressed?: string[];
  };
}

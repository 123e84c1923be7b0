/* Generated from schemas/evalkit-config.schema.json by scripts/gen-types.mjs (npm run gen:types). Do not edit. */

/**
 * evalkit.config.json: the settings every evalkit command reads (the nearest file upward from the working folder, or --config-file). Flags override it, EVALKIT_BASE_URL and EVALKIT_API_VERSION override its service settings. The API token is never read from it: it comes from EVALKIT_API_TOKEN only. Relative paths are relative to the folder of this file. See docs/configuration.md.
 */
export interface EvalkitConfig {
  /**
   * Where editors find this schema (completion and checks); evalkit ignores it.
   */
  $schema?: string;
  /**
   * Base address of the service (or of `evalkit sandbox`): --base-url and EVALKIT_BASE_URL override it.
   */
  baseUrl?: string;
  /**
   * API version sent with every request (a release date); EVALKIT_API_VERSION overrides it.
   */
  apiVersion?: string;
  /**
   * Workspace id sent as x-extend-workspace-id with every request (API keys scoped to an organization need it); --workspace-id and EVALKIT_WORKSPACE_ID override it. Not a secret.
   */
  workspaceId?: string;
  /**
   * One section per evaluation dataset, by name. `--dataset NAME` picks one; with a single section it is implied.
   */
  datasets?: {
    [k: string]: DatasetSettings;
  };
}
/**
 * What the commands take for one dataset; each member fills the option named in docs/configuration.md when the command line does not set it.
 *
 * This interface was referenced by `EvalkitConfig`'s JSON-Schema
 * via the `definition` "dataset".
 */
export interface DatasetSettings {
  /**
   * The processor id (dp_...): `validate`, `schema`, `dataset harvest`, and `dataset upload --create-set`.
   */
  processor?: string;
  /**
   * The evaluation set id (ev_...): `eval run`, `dataset upload`, `dataset download`, `dataset harvest`.
   */
  evaluationSet?: string;
  /**
   * The dataset's CSV (`dataset upload`), relative to this file.
   */
  csv?: string;
  /**
   * The evaluation export: where `eval run` writes it (--out) and what `report` reads (--from); relative to this file.
   */
  export?: string;
  /**
   * The report.json or export `report` compares with (--baseline); relative to this file.
   */
  baseline?: string;
  /**
   * Where `report` writes its files (--out-dir); relative to this file.
   */
  outDir?: string;
  /**
   * Which report files `report` writes.
   *
   * @minItems 1
   */
  formats?: ["json" | "md" | "html" | "junit", ...("json" | "md" | "html" | "junit")[]];
  /**
   * Field paths compared fuzzily (`eval run --fuzzy-match-fields`).
   */
  fuzzyFields?: string[];
  /**
   * Field paths left out of the metrics (`eval run --exclude-fields`).
   */
  excludeFields?: string[];
  /**
   * Normalised Levenshtein similarity at which fuzzy fields match (`report --fuzzy-threshold`).
   */
  fuzzyThreshold?: number;
  /**
   * Relative tolerance for numbers (`report --number-tolerance`).
   */
  numberTolerance?: number;
  /**
   * Gates `report` checks (`--gate`): METRIC>=N, METRIC<=N or METRIC=N (the same as >=), e.g. micro.f1>=0.9, field:total.recall>=0.95, latency.p95<=30000.
   */
  gates?: string[];
  /**
   * Let `report --fail-on-regression` pass on too few paired documents for any regression to be significant (`report --allow-underpowered`); by default that gate fails.
   */
  allowUnderpowered?: boolean;
  /**
   * Accuracy the auto-accept thresholds aim for (`report --target-accuracy`).
   */
  targetAccuracy?: number;
  /**
   * Metadata keys `report` breaks the metrics down by (`report --slice-by`, repeatable).
   */
  slices?: string[];
}

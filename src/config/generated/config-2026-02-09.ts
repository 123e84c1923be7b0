/* Generated from schemas/config-2026-02-09.schema.json by scripts/gen-types.mjs (npm run gen:types). Do not edit. */

/**
 * An extractor, classifier or splitter config in the 2026-02-09 layout (API version 2026-02-09; spec api-2026-02-09.md section 3, SDK 1.17 ExtractConfigJson, ClassifyConfig, SplitConfig). No `type` inside: the route (/extractors, /classifiers, /splitters) or the object around it carries it. Members not listed here are allowed by this schema; `evalkit migrate` refuses a key that no layout lists for the type unless --allow-unknown (docs/migrate.md, "Unknown keys").
 */
export type ProcessorConfig20260209 = ExtractConfig20260209 | ClassifyConfig20260209 | SplitterConfig20260209;
export type PageRanges = PageRange20260209[];

/**
 * Extractor config (ExtractConfigJson). `schema` may be omitted: runs then infer one per document. The fields form is not accepted.
 */
export interface ExtractConfig20260209 {
  type?: never;
  parser?: never;
  fields?: never;
  baseProcessor?: "extraction_performance" | "extraction_light";
  /**
   * Version of the base processor; absent: the latest stable one.
   */
  baseVersion?: string;
  schema?: ExtractionSchema20260209;
  extractionRules?: string;
  parseConfig?: ParseConfig20260209;
  advancedOptions?: ExtractAdvancedOptions20260209;
  [k: string]: unknown;
}
/**
 * JSON Schema of the fields to extract; primitives as nullable type arrays; custom types by "extend:type" (date, currency, signature).
 */
export interface ExtractionSchema20260209 {
  [k: string]: unknown;
}
/**
 * How documents are parsed before extraction (was `parser`).
 */
export interface ParseConfig20260209 {
  /**
   * Default parse_performance.
   */
  engine?: "parse_performance" | "parse_light";
  engineVersion?: string;
  target?: string;
  chunkingStrategy?: {};
  blockOptions?: {};
  advancedOptions?: {
    agenticOcrEnabled?: never;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}
export interface ExtractAdvancedOptions20260209 {
  fixedPageLimit?: never;
  documentKind?: never;
  keyDefinitions?: never;
  advancedFigureParsingEnabled?: never;
  citationsEnabled?: boolean;
  /**
   * Default line.
   */
  citationMode?: "line" | "word" | "block";
  modelReasoningInsightsEnabled?: boolean;
  advancedMultimodalEnabled?: boolean;
  arrayCitationStrategy?: "item" | "property";
  arrayStrategy?: {
    type?: "large_array_heuristics" | "large_array_max_context" | "large_array_overlap_context";
    [k: string]: unknown;
  };
  chunkingOptions?: ChunkingOptions20260209;
  excelSheetRanges?: {
    start?: number;
    end?: number;
    [k: string]: unknown;
  }[];
  excelSheetSelectionStrategy?: "intelligent" | "all" | "first" | "last";
  reviewAgent?: {
    enabled?: boolean;
    [k: string]: unknown;
  };
  /**
   * Default false.
   */
  currentDateEnabled?: boolean;
  pageRanges?: PageRanges;
  [k: string]: unknown;
}
export interface ChunkingOptions20260209 {
  chunkingStrategy?: "standard" | "semantic" | "intelligent" | "confidence" | "take_first" | "take_last" | "contextual";
  pageChunkSize?: number;
  chunkSelectionStrategy?: string;
  customSemanticChunkingRules?: string;
  [k: string]: unknown;
}
export interface PageRange20260209 {
  start: number;
  end: number;
  [k: string]: unknown;
}
/**
 * Classifier config (ClassifyConfig).
 */
export interface ClassifyConfig20260209 {
  type?: never;
  parser?: never;
  baseProcessor?: "classification_performance" | "classification_light";
  baseVersion?: string;
  classifications: Classification20260209[];
  classificationRules?: string;
  parseConfig?: ParseConfig20260209;
  advancedOptions?: ClassifyAdvancedOptions20260209;
  [k: string]: unknown;
}
export interface Classification20260209 {
  id: string;
  type: string;
  description: string;
  [k: string]: unknown;
}
export interface ClassifyAdvancedOptions20260209 {
  fixedPageLimit?: never;
  context?: "default" | "max";
  advancedMultimodalEnabled?: boolean;
  /**
   * Learn from past successful classifications. Default false.
   */
  memoryEnabled?: boolean;
  pageRanges?: PageRanges;
  [k: string]: unknown;
}
/**
 * Splitter config (SplitConfig).
 */
export interface SplitterConfig20260209 {
  type?: never;
  parser?: never;
  baseProcessor?: "splitting_performance" | "splitting_light";
  baseVersion?: string;
  splitClassifications?: SplitClassification20260209[];
  splitRules?: string;
  parseConfig?: ParseConfig20260209;
  advancedOptions?: SplitterAdvancedOptions20260209;
  [k: string]: unknown;
}
export interface SplitClassification20260209 {
  id: string;
  type: string;
  description: string;
  /**
   * What identifies one sub-document of this type (replaces splitIdentifierRules).
   */
  identifierKey?: string;
  [k: string]: unknown;
}
export interface SplitterAdvancedOptions20260209 {
  fixedPageLimit?: never;
  /**
   * Deprecated: per-type identifierKey replaces it.
   */
  splitIdentifierRules?: string;
  /**
   * Deprecated.
   */
  splitMethod?: "high_precision" | "basic_precision";
  splitExcelDocumentsBySheetEnabled?: boolean;
  /**
   * A page may belong to two adjacent splits. Default false.
   */
  pageOverlapEnabled?: boolean;
  pageRanges?: PageRanges;
  [k: string]: unknown;
}

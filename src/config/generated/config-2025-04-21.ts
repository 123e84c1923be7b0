/* Generated from schemas/config-2025-04-21.schema.json by scripts/gen-types.mjs (npm run gen:types). Do not edit. */

/**
 * A processor config in the 2025-04-21 layout (API version 2025-04-21 and later; service-api.md part 2.7 plus service-facts.md). Its shape depends on the processor type: the config's own `type`, else the type of the resource or request that holds it. Members not listed here are allowed by this schema; `evalkit migrate` refuses a key that no layout lists for the type unless --allow-unknown (docs/migrate.md, "Unknown keys").
 */
export type ProcessorConfig20250421 = ExtractConfig20250421 | ClassifyConfig20250421 | SplitterConfig20250421;
export type FixedPageLimit = number;
export type PageRanges = PageRange[];

/**
 * EXTRACT config. Either `schema` (recommended) or `fields` (deprecated) must be given.
 */
export interface ExtractConfig20250421 {
  type?: "EXTRACT";
  baseProcessor?: "extraction_performance" | "extraction_light";
  /**
   * Version of the base processor; needs baseProcessor.
   */
  baseVersion?: string;
  schema?: ExtractionSchema;
  /**
   * Deprecated extraction form.
   */
  fields?: ExtractionField[];
  /**
   * Free-text rules for extraction (was customExtractionRules).
   */
  extractionRules?: string;
  advancedOptions?: ExtractAdvancedOptions;
  [k: string]: unknown;
}
/**
 * JSON Schema of the fields to extract. A currency node is an object schema with "extend:type": "currency" and exactly the properties amount and iso_4217_currency_code.
 */
export interface ExtractionSchema {
  [k: string]: unknown;
}
/**
 * A field of the deprecated fields form. `schema` is required for array and object, `enum` for enum.
 */
export interface ExtractionField {
  id: string;
  name: string;
  type: "string" | "number" | "currency" | "boolean" | "date" | "array" | "enum" | "object" | "signature";
  description: string;
  schema?: ExtractionField[];
  enum?: ExtractionFieldEnumValue[];
  [k: string]: unknown;
}
export interface ExtractionFieldEnumValue {
  value: string;
  description?: string;
  [k: string]: unknown;
}
export interface ExtractAdvancedOptions {
  /**
   * Was includeBoundingBoxCitations.
   */
  citationsEnabled?: boolean;
  modelReasoningInsightsEnabled?: boolean;
  fixedPageLimit?: FixedPageLimit;
  chunkingOptions?: ChunkingOptions;
  pageRanges?: PageRanges;
  [k: string]: unknown;
}
export interface ChunkingOptions {
  /**
   * standard: default chunking; semantic: by document structure; intelligent: AI-based selection; confidence: by confidence score; take_first, take_last.
   */
  chunkingStrategy?: "standard" | "semantic" | "intelligent" | "confidence" | "take_first" | "take_last";
  pageChunkSize?: number;
  chunkSelectionStrategy?: string;
  customSemanticChunkingRules?: string;
  [k: string]: unknown;
}
export interface PageRange {
  start: number;
  end: number;
  [k: string]: unknown;
}
/**
 * CLASSIFY config.
 */
export interface ClassifyConfig20250421 {
  type?: "CLASSIFY";
  baseProcessor?: "classification_performance" | "classification_light";
  /**
   * Version of the base processor; needs baseProcessor.
   */
  baseVersion?: string;
  /**
   * The classes a document can be assigned to (was fields).
   */
  classifications?: Classification[];
  /**
   * Free-text rules for classification (was customClassificationRules).
   */
  classificationRules?: string;
  advancedOptions?: ClassifyAdvancedOptions;
  [k: string]: unknown;
}
/**
 * One class: its id, its type (the label a run reports) and a description that guides the model.
 */
export interface Classification {
  id: string;
  type: string;
  description: string;
  [k: string]: unknown;
}
export interface ClassifyAdvancedOptions {
  context?: "default" | "max";
  fixedPageLimit?: FixedPageLimit;
  pageRanges?: PageRanges;
  [k: string]: unknown;
}
/**
 * SPLITTER config.
 */
export interface SplitterConfig20250421 {
  type?: "SPLITTER";
  baseProcessor?: "splitting_performance" | "splitting_light";
  /**
   * Version of the base processor; needs baseProcessor.
   */
  baseVersion?: string;
  /**
   * The kinds of sub-document a document is split into (was subDocumentClassifications).
   */
  splitClassifications?: Classification[];
  /**
   * Free-text rules for splitting (was customSplitterRules).
   */
  splitRules?: string;
  advancedOptions?: SplitterAdvancedOptions;
  [k: string]: unknown;
}
export interface SplitterAdvancedOptions {
  /**
   * Was identifierRules.
   */
  splitIdentifierRules?: string;
  splitMethod?: "high_precision" | "low_latency";
  splitExcelDocumentsBySheetEnabled?: boolean;
  fixedPageLimit?: FixedPageLimit;
  pageRanges?: PageRanges;
  [k: string]: unknown;
}

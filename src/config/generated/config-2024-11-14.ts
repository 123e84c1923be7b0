/* Generated from schemas/config-2024-11-14.schema.json by scripts/gen-types.mjs (npm run gen:types). Do not edit. */

/**
 * A processor config in the 2024-11-14 layout (API versions 2024-11-14 and 2024-12-23): the "Before" keys of service-api.md part 9's table at the top level and no advancedOptions. Its shape depends on the processor type: the config's own `type`, else the type of the resource or request that holds it. Members not listed here are allowed by this schema; `evalkit migrate` refuses a key that no layout lists for the type unless --allow-unknown (docs/migrate.md, "Unknown keys").
 */
export type ProcessorConfig20241114 = ExtractConfig20241114 | ClassifyConfig20241114 | SplitterConfig20241114;

/**
 * EXTRACT config. Either `schema` (recommended) or `fields` (deprecated) must be given.
 */
export interface ExtractConfig20241114 {
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
   * Free-text rules for extraction (now extractionRules).
   */
  customExtractionRules?: string;
  /**
   * Return bounding-box citations (now advancedOptions.citationsEnabled).
   */
  includeBoundingBoxCitations?: boolean;
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
/**
 * CLASSIFY config.
 */
export interface ClassifyConfig20241114 {
  type?: "CLASSIFY";
  baseProcessor?: "classification_performance" | "classification_light";
  /**
   * Version of the base processor; needs baseProcessor.
   */
  baseVersion?: string;
  /**
   * The classes a document can be assigned to (now classifications).
   */
  fields?: Classification[];
  /**
   * Free-text rules for classification (now classificationRules).
   */
  customClassificationRules?: string;
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
/**
 * SPLITTER config.
 */
export interface SplitterConfig20241114 {
  type?: "SPLITTER";
  baseProcessor?: "splitting_performance" | "splitting_light";
  /**
   * Version of the base processor; needs baseProcessor.
   */
  baseVersion?: string;
  /**
   * The kinds of sub-document a document is split into (now splitClassifications).
   */
  subDocumentClassifications?: Classification[];
  /**
   * Free-text rules for splitting (now splitRules).
   */
  customSplitterRules?: string;
  /**
   * Rules for identifiers of sub-documents (now advancedOptions.splitIdentifierRules).
   */
  identifierRules?: string;
  /**
   * Reminders for the splitter. No replacement in 2025-04-21 (migrating up refuses it without --allow-lossy). Its value type is not published, so any JSON value is accepted.
   */
  customReminders?: {
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

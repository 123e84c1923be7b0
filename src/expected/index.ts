/**
 * expectedOutput checked against a processor config: schema derivation, validation with rich
 * findings and certain fixes, value parsers, and TypeScript types.
 */
export { createExpectedValidator, deriveExpectedSchema, fixExpected, validateExpected } from './validate.js';
export type { DeriveOptions, FixResult, ValidateOptions } from './validate.js';
export { RULES, SETTLED_BY_FLAG } from './rules.js';
export type { Finding, RuleId, Severity, ValidationResult } from './rules.js';
export type { CheckOptions } from './check.js';
export { overflowFinding } from './check.js';
export type { JsonSchema } from './schema.js';
export { ISO_4217_CODES, isCurrencyCode } from './currencies.js';
export { isIsoDate, parseBoolean, parseCurrency, parseDate, parseEnum, parseNumber } from './coerce.js';
export type { Coerced, Currency, CurrencyOptions, DateOptions, DateOrder, NumberOptions } from './coerce.js';
export { expectedFormOf, normalizeConfig, processorTypeOf } from './config.js';
export { EXPECTED_FORMS, extractionSchemaIssues } from './model.js';
export type { ExpectedForm, SchemaIssue } from './model.js';
export type { ProcessorType } from './config.js';
export { parseExpectedFile, renderExpectedFile } from './documents.js';
export type { ExpectedDocument, ExpectedFile } from './documents.js';
export { configFromEnvelope, fetchProcessorConfig, readConfigFile } from './source.js';
export type { ConfigSource } from './source.js';
export { expectedSchemaToTypeScript } from './types.js';

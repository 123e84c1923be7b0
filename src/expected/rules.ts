import type { Operation } from 'fast-json-patch';

/**
 * Stable rule identifiers. They appear in `evalkit validate` output, in JSON output and in the
 * sandbox's 400 errors; renaming one is a breaking change.
 */
export const RULES = {
  'unknown-field': 'a key that the processor config does not define (field id, or member of a value)',
  'missing-field': 'a configured field is absent: a warning ("expect nothing"), an error with --strict',
  'type-mismatch': 'a value of the wrong JSON type for its field (string, number, boolean, date, array, object)',
  'currency-shape': 'a currency field that is not {amount: number, iso_4217_currency_code: string}',
  'currency-code': 'a currency code that is not an ISO 4217 code',
  'value-wrapper': 'results not under the top-level "value" key (EXTRACT), or wrapped where no wrapper belongs (CLASSIFY, SPLITTER)',
  'nested-value-wrapper': 'a {value: ...} wrapper repeated inside the results',
  'enum-value': 'a value that is not one of the enum field\'s values',
  'date-format': 'a date that is not an ISO YYYY-MM-DD calendar date',
  'metadata-shape': 'metadata that is not an object of objects keyed by field path',
  'legacy-field': 'an entry of the legacy fields-array form whose key or id does not match its field',
  'required-property': 'a member the expected form requires is absent (classification id/type, split members, splits)',
  'unknown-classification': 'a classification id or type that the config does not define',
  'classification-mismatch': 'an id and a type that name two different classifications',
  'confidence-range': 'a confidence that is not a number from 0 to 1',
  'page-number': 'a page that is not a positive integer (legacy form)',
  'split-range': 'a split whose pages are not positive integers with startPage <= endPage',
  'split-overlap': 'two splits that share a page',
  'duplicate-split-id': 'two splits with the same id',
  'api-version-form': 'a member or form of the 2025-04-21 expected output that API 2026-02-09 has no place for (CLASSIFY confidence; split id, identifier, observation; the fields form of EXTRACT)',
  'legacy-splits-key': 'splits under the pre-2025-04-21 key subDocumentClassifications instead of splits',
  'schema-violation': 'anything else the derived JSON Schema rejects (a safety net; report it if you see it)',
} as const;

export type RuleId = keyof typeof RULES;

export type Severity = 'error' | 'warning';

export interface Finding {
  /** RFC 6901 pointer into the checked document. */
  pointer: string;
  rule: RuleId;
  severity: Severity;
  /** Says what was expected and what was found. */
  message: string;
  /** RFC 6902 patch that fixes it, present only when the fix is certain. */
  fix?: Operation[];
  /**
   * The option that would settle it (a currency for bare amounts, a day/month order for
   * ambiguous dates). The message says what is wrong in the data's terms; each caller adds
   * advice in its own: the CLI names its flag, the sandbox says nothing of flags.
   */
  settledBy?: 'currency' | 'dateOrder';
}

/** The CLI's advice for a finding that an option settles. */
export const SETTLED_BY_FLAG: Record<NonNullable<Finding['settledBy']>, string> = {
  currency: 'pass --currency CODE to fix',
  dateOrder: 'pass --date-order dmy or mdy to fix',
};

export interface ValidationResult {
  valid: boolean;
  findings: Finding[];
}

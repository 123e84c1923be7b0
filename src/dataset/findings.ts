/**
 * A problem found in the CSV, located the way a spreadsheet user looks for it: CSV line, column
 * number and header, and the field path inside the expected output.
 */
export interface RowFinding {
  /** 1-based CSV line the row starts on (the header line for column problems). */
  line: number;
  /** 1-based column number in the CSV record. */
  column?: number;
  /** Header of that column. */
  header?: string;
  /** Field path inside the expected output, for example line_items[0].amount. */
  field?: string;
  /** Stable rule id: a validator rule (evalkit validate) or one of DATASET_RULES. */
  rule: string;
  message: string;
  hint?: string;
  severity: 'error' | 'warning';
}

/** Rules the dataset reader adds to those of the expected-output validator. */
export const DATASET_RULES = {
  'missing-column': 'the CSV lacks a column it needs (file or fileId, and an expected-output column)',
  'unknown-column': 'a column that means nothing for the processor type',
  'column-path': 'a header that is not a field path',
  'duplicate-column': 'two columns set the same thing',
  'column-count': 'a row with more cells than the header has columns',
  'file-missing': 'the row names no file (or both a file and a fileId), or a file that does not exist',
  'output-empty': 'an empty expectedOutput cell',
  'file-empty': 'an empty file (the service refuses it on upload)',
  'file-outside': 'a file path that leaves the CSV\'s folder (allowed with --allow-outside)',
  'file-id-unknown': 'a fileId the service does not know',
  'duplicate-row': 'a row with the same file and expected output as an earlier row',
  'json-syntax': 'a JSON cell that does not parse',
  'json-depth': 'a JSON cell nested more than 256 levels deep',
  'array-hole': 'an indexed column set (line_items[2]) while an earlier index is empty',
  'coerce-number': 'a cell that is not a number',
  'coerce-currency': 'a cell that is not an amount of money',
  'coerce-date': 'a cell that is not a date',
  'coerce-boolean': 'a cell that is not a boolean',
  'coerce-enum': 'a cell that is not one of the enum values',
  'class-empty': 'a CLASSIFY row without a class',
  'splits-syntax': 'a splits cell that is neither JSON nor the compact form invoice:1-3;receipt:4-5',
} as const;

export function isError(f: RowFinding): boolean {
  return f.severity === 'error';
}

/** `data.csv:7:3 (total) line_items[0].amount: coerce-currency: "12,5" ...` */
export function formatFinding(file: string, f: RowFinding): string {
  const where = `${file}:${f.line}${f.column !== undefined ? `:${f.column}` : ''}`;
  const col = f.header !== undefined ? ` (${f.header})` : '';
  const field = f.field ? ` ${f.field}:` : '';
  const sev = f.severity === 'warning' ? 'warning ' : '';
  return `${where}${col}${field} ${sev}${f.rule}: ${f.message}${f.hint ? `\n  hint: ${f.hint}` : ''}`;
}

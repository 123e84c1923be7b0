// Shared by the write-back end-to-end tests: a dataset CSV with every formatting habit, its set
// on the sandbox, and errors files of report --export-errors for it.
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';
import { csvLine, quoteCell, unneutralise } from '../../src/dataset/rejects.js';
import { renderErrors, type ErrorRow } from '../../src/report/errors.js';
import { docs, folder, json, SIMPLE, type Service } from './dataset-helpers.js';

/**
 * A CSV as people keep them: a BOM, CRLF line breaks, a notes column, quoting where none is
 * needed, a blank line, cells a spreadsheet would run as formulas (guarded with ').
 */
export const DATA =
  '\ufefffile,invoice_number,total,# notes\r\n' +
  'files/doc-0.txt,"N-0",EUR 10.50,"first, with a comma"\r\n' +
  'files/doc-1.txt,N-1,  EUR 11.50  ,\r\n' +
  '\r\n' +
  'files/doc-2.txt,\'=N-2,"EUR 12.50","multi\r\nline"\r\n';

export interface Setup {
  dir: string;
  setId: string;
  /** item id by file name (doc-0.txt ...). */
  ids: Map<string, string>;
  outputs: Map<string, { value: Record<string, unknown> }>;
}

export async function setup(svc: Service, data = DATA): Promise<Setup> {
  const dir = folder({ 'data.csv': data, ...docs(3) });
  const p = await svc.processor('EXTRACT', SIMPLE);
  const up = await svc.upload(['data.csv', '--create-set', 'wb', '--processor', p, '--format', 'json'], dir);
  expect(up.code, up.stderr).toBe(0);
  const setId = json(up).set.id;
  const ids = new Map<string, string>();
  const outputs = new Map<string, { value: Record<string, unknown> }>();
  for (const it of await svc.items(setId)) {
    ids.set(path.basename(it.file), it.id);
    outputs.set(it.id, it.expectedOutput as { value: Record<string, unknown> });
  }
  return { dir, setId, ids, outputs };
}

/** The errors file of `report --export-errors` for these (item, field) pairs, as the set holds them. */
export function errorsFile(st: Setup, cells: Array<[string, string]>): string {
  const rows: ErrorRow[] = cells.map(([file, field]) => {
    const id = st.ids.get(file)!;
    return { item: id, file, fileId: 'f', field, outcome: 'FD', expected: st.outputs.get(id)!.value[field], predicted: 'x', confidence: 0.4, document_errors: 1 };
  });
  return renderErrors(rows, 'csv');
}

/** Sets the expected cell of the errors row of (file, field). */
export function correct(text: string, st: Setup, file: string, field: string, value: string): string {
  const id = st.ids.get(file)!;
  const rows = parse(text) as string[][];
  const row = rows.find((r) => r[0] === id && r[3] === field)!;
  // As a spreadsheet saves what the user typed (csvLine guards a formula start once more).
  row[5] = value;
  return rows.map((r, i) => (r === row ? r.map((c) => quoteCell(c, ',')).join(',') + '\r\n' : i === 0 ? r.join(',') + '\r\n' : csvLine(r.map(unneutralise), ','))).join('');
}

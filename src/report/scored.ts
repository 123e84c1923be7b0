/**
 * What the comparisons read of a scored evaluation, whatever holds its documents: EXTRACT
 * documents as a table of sufficient statistics, CLASSIFY and SPLITTER documents as records.
 */
import { InternalError } from '../util/errors.js';
import type { EvaluationExport, EvaluationExportHeader } from '../metrics/generated/export.js';
import type { DocumentRecord } from '../metrics/generated/report.js';
import { evaluateExport, evaluateSource, type ItemSource } from '../metrics/accumulate.js';
import type { CompareOptions } from '../metrics/comparators.js';
import { recordModel, type ConfidenceOptions, type Evaluation } from '../metrics/evaluate.js';
import { extractModel, type Model } from '../metrics/models.js';
import type { ExtractTable, Pairable } from '../metrics/table.js';

export type Scored = Pick<Evaluation, 'type' | 'table' | 'documents'>;

/** The statistic model of an evaluation's documents (all, in id order; or those at `index`). */
export function modelOf(ev: Scored, units: string[], exactFields: string[] = [], index?: ArrayLike<number>): Model {
  if (ev.type === 'EXTRACT') {
    if (!ev.table) throw new InternalError('an EXTRACT evaluation without its table');
    const t: ExtractTable = ev.table;
    return extractModel(t, units, exactFields, index ? Array.from(index, (i) => t.order[i]) : undefined);
  }
  const docs = ev.documents ?? [];
  return recordModel(ev.type, index ? Array.from(index, (i) => docs[i]) : docs, units);
}

/** Pairing keys of an evaluation's documents, in id order. */
export function keysOf(ev: Pick<Evaluation, 'table' | 'documents'>): Pairable[] {
  const t = ev.table;
  if (t) {
    const keys = t.keys;
    if (!keys) throw new InternalError('the documents were scored without their pairing keys');
    return Array.from(t.order, (d) => keys[d]);
  }
  return ev.documents ?? [];
}

/**
 * An export's document records, scored in memory (the explorer's and the errors file's view of
 * a baseline export): EXTRACT records as the sink receives them (export order), others in id order.
 */
export function recordsOfExport(exp: EvaluationExport, cmp: CompareOptions, conf: ConfidenceOptions = {}): DocumentRecord[] {
  const lines: string[] = [];
  const ev = evaluateExport(exp, cmp, conf, { sink: (line) => lines.push(line.jsonText()) });
  return ev.documents ?? lines.map((l) => JSON.parse(l) as DocumentRecord);
}

/** recordsOfExport of an export whose items are read one at a time (a JSONL baseline). */
export async function recordsOfSource(header: EvaluationExportHeader, items: ItemSource, cmp: CompareOptions, conf: ConfidenceOptions = {}): Promise<DocumentRecord[]> {
  const lines: string[] = [];
  const ev = await evaluateSource(header, items, cmp, conf, { sink: (line) => lines.push(line.jsonText()) });
  return ev.documents ?? lines.map((l) => JSON.parse(l) as DocumentRecord);
}

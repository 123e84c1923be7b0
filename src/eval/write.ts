/**
 * Writing an evaluation export (schemas/export.schema.json), atomically: JSON, or JSONL when
 * the file name ends in .jsonl or .ndjson (a header line, then one item per line) so large
 * sets can be streamed by `evalkit report`. Keys are sorted, so the same runs give the same bytes
 * (apart from `source.exportedAt`).
 */
import path from 'node:path';
import type { EvaluationExport } from '../metrics/generated/export.js';
import { writeFileAtomic } from '../util/fs.js';
import { sortKeysDeep, stableStringify } from '../util/json.js';

export type ExportFileFormat = 'json' | 'jsonl';

export function exportFormatFor(file: string): ExportFileFormat {
  return /\.(jsonl|ndjson)$/i.test(file) ? 'jsonl' : 'json';
}

export function serializeExport(exp: EvaluationExport, format: ExportFileFormat): string {
  if (format === 'json') return stableStringify(exp);
  const { items, ...header } = exp;
  const lines = [JSON.stringify(sortKeysDeep(header))];
  for (const item of items) lines.push(JSON.stringify(sortKeysDeep(item)));
  return lines.join('\n') + '\n';
}

/** The default export path: reports/<evaluation set id>/export.json. */
export function defaultExportPath(evaluationSetId: string): string {
  // A set id is a service identifier, but it becomes a folder name: keep it to one safe segment.
  const safe = evaluationSetId.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'export';
  return path.join('reports', safe, 'export.json');
}

export async function writeExport(file: string, exp: EvaluationExport): Promise<{ file: string; format: ExportFileFormat; bytes: number }> {
  const format = exportFormatFor(file);
  const text = serializeExport(exp, format);
  await writeFileAtomic(file, text);
  return { file, format, bytes: Buffer.byteLength(text) };
}

/**
 * Writing an evaluation export (schemas/export.schema.json), atomically: JSON, or JSONL (a
 * header line, then one item per line) when asked or when the file name ends in .jsonl or
 * .ndjson, so large sets are written and read (`evalkit report`) line by line instead of as one
 * string. Keys are sorted, so the same runs give the same bytes (apart from `source.exportedAt`).
 */
import path from 'node:path';
import type { EvaluationExport } from '../metrics/generated/export.js';
import { writeFileAtomic } from '../util/fs.js';
import { sortKeysDeep, stableStringify } from '../util/json.js';

export type ExportFileFormat = 'json' | 'jsonl';

export function exportFormatFor(file: string): ExportFileFormat {
  return /\.(jsonl|ndjson)$/i.test(file) ? 'jsonl' : 'json';
}

function* jsonlLines(exp: EvaluationExport): Generator<string> {
  const { items, ...header } = exp;
  yield JSON.stringify(sortKeysDeep(header)) + '\n';
  for (const item of items) yield JSON.stringify(sortKeysDeep(item)) + '\n';
}

export function serializeExport(exp: EvaluationExport, format: ExportFileFormat): string {
  return format === 'json' ? stableStringify(exp) : [...jsonlLines(exp)].join('');
}

/**
 * The default export path: reports/<evaluation set>-<version>.json (`-override` when a --config
 * override ran), so `evalkit report --from` it writes its reports to reports/<same name>/.
 */
export function defaultExportPath(name: string, format: ExportFileFormat = 'json'): string {
  // Service identifiers and version labels become a file name: keep it to one safe segment.
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'export';
  return path.join('reports', `${safe}.${format}`);
}

/** Writes the export; `format` defaults to the one the file name says (JSON unless .jsonl/.ndjson). */
export async function writeExport(file: string, exp: EvaluationExport, format: ExportFileFormat = exportFormatFor(file)): Promise<{ file: string; format: ExportFileFormat; bytes: number }> {
  let bytes = 0;
  const count = function* (chunks: Iterable<string>): Generator<string> {
    for (const c of chunks) {
      bytes += Buffer.byteLength(c);
      yield c;
    }
  };
  await writeFileAtomic(file, count(format === 'json' ? [stableStringify(exp)] : jsonlLines(exp)));
  return { file, format, bytes };
}

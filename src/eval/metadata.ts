/**
 * Item metadata for report slices. The service's evaluation set items carry no metadata (only a
 * file and its expected output), so evalkit keeps it where the team keeps its dataset: in the
 * upload CSV's `metadata.KEY` columns. `eval run|export --metadata data.csv` joins those columns
 * into the export's items, so `report --slice-by metadata.KEY` needs no network.
 *
 * A CSV row finds its item by the file id (a fileId column), else by the content hash of its file
 * (the hash `dataset upload` puts in the uploaded name), else by the file's name; a key counts
 * only where it is unique, or where every row sharing it says the same.
 */
import path from 'node:path';
import type { ExportItem } from '../metrics/generated/export.js';
import { openCsv } from '../dataset/csv.js';
import { FileResolver, identityOfUploadName, nameWithoutUploadTag } from '../dataset/files.js';
import { InputError } from '../util/errors.js';
import { dict } from '../util/json.js';

export type ItemMetadata = Record<string, string>;

const CONFLICT = Symbol('conflicting rows');
type Slot = ItemMetadata | typeof CONFLICT;

export interface MetadataTable {
  file: string;
  /** The metadata keys (column headers without `metadata.`). */
  keys: string[];
  rows: number;
  byFileId: Map<string, Slot>;
  /** First 24 hex digits of the content's SHA-256. */
  byHash: Map<string, Slot>;
  byName: Map<string, Slot>;
}

export interface AttachResult {
  matched: number;
  /** Items no row describes (or only rows that disagree). */
  unmatched: number;
}

const HEX = 24;

function put(map: Map<string, Slot>, key: string, meta: ItemMetadata): void {
  const had = map.get(key);
  if (had === undefined) map.set(key, meta);
  else if (had !== CONFLICT && JSON.stringify(had) !== JSON.stringify(meta)) map.set(key, CONFLICT);
}

export async function readMetadataCsv(file: string, opts: { delimiter?: string; allowOutside?: boolean } = {}): Promise<MetadataTable> {
  const csv = await openCsv(file, opts);
  const lower = csv.header.map((h) => h.trim().toLowerCase());
  const fileCol = lower.findIndex((h) => h === 'file' || h === 'path');
  const idCol = lower.findIndex((h) => h === 'fileid' || h === 'file_id');
  const metaCols = csv.header.map((h, i) => [h.trim(), i] as const).filter(([h]) => h.startsWith('metadata.') && h.length > 'metadata.'.length);
  if (metaCols.length === 0) {
    throw new InputError('the CSV has no metadata columns', { location: { file, line: csv.headerLine }, hint: 'name the columns that describe each item metadata.KEY, for example metadata.vendor' });
  }
  if (fileCol < 0 && idCol < 0) {
    throw new InputError('the CSV has neither a "file" nor a "fileId" column, so its rows cannot be matched to items', { location: { file, line: csv.headerLine }, hint: 'use the CSV the set was uploaded from' });
  }
  const resolver = new FileResolver(path.dirname(path.resolve(file)), { allowOutside: opts.allowOutside });
  const table: MetadataTable = { file, keys: metaCols.map(([h]) => h.slice('metadata.'.length)), rows: 0, byFileId: new Map(), byHash: new Map(), byName: new Map() };
  for await (const rec of csv.records()) {
    table.rows++;
    const meta = dict<string>();
    for (const [h, i] of metaCols) {
      const v = (rec.cells[i] ?? '').trim();
      if (v !== '') meta[h.slice('metadata.'.length)] = v;
    }
    const fileId = idCol >= 0 ? (rec.cells[idCol] ?? '').trim() : '';
    if (fileId !== '') put(table.byFileId, fileId, meta);
    const rel = fileCol >= 0 ? (rec.cells[fileCol] ?? '').trim() : '';
    if (rel !== '') {
      put(table.byName, path.basename(rel), meta);
      const r = await resolver.resolve(rel);
      // A file that is gone still matches by name; the upload check reports missing files.
      if (r.ok) put(table.byHash, r.file.sha256.slice(0, HEX), meta);
    }
  }
  return table;
}

function hashOf(item: ExportItem): string | undefined {
  if (item.contentHash) return item.contentHash.slice(0, HEX);
  const id = item.fileName ? identityOfUploadName(item.fileName) : undefined;
  return id?.slice('sha256:'.length);
}

/** Sets each item's `metadata` from the table (replacing what it had); returns the counts. */
export function attachMetadata(items: ExportItem[], table: MetadataTable): AttachResult {
  let matched = 0;
  for (const item of items) {
    const hash = hashOf(item);
    const name = item.fileName ? nameWithoutUploadTag(path.basename(item.fileName)) : undefined;
    const slots = [table.byFileId.get(item.fileId), hash ? table.byHash.get(hash) : undefined, name ? table.byName.get(name) : undefined];
    const meta = slots.find((s): s is ItemMetadata => s !== undefined && s !== CONFLICT);
    if (!meta) continue;
    item.metadata = { ...meta };
    matched++;
  }
  return { matched, unmatched: items.length - matched };
}

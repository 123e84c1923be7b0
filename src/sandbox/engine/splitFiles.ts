/**
 * A splitter run's splits as files, as the service does (each split carries the `fileId` of a
 * derived file; the official SDK types `fileId`, `identifier` and `observation` as present).
 * The sandbox does not cut PDFs or images: a derived file is a TXT file holding the text of the
 * split's pages (form feeds between pages), with `parentFileId` and `metadata.parentSplit` when
 * the run's input was a file.
 */
import { createHash } from 'node:crypto';
import type { Ctx } from '../context.js';
import type { Json } from '../core.js';
import type { FileRow } from '../store.js';

export function splitFiles(ctx: Ctx, output: Json, pages: string[], parent: Pick<FileRow, 'id' | 'name'> | undefined, now: string): { output: Json; files: FileRow[] } {
  const splits = Array.isArray(output.splits) ? (output.splits as Json[]) : [];
  const files: FileRow[] = [];
  const base = parent ? parent.name.replace(/\.[^.]*$/, '') : 'text';
  const out = splits.map((s) => {
    const split: Json = { ...s, identifier: s.identifier ?? '', observation: s.observation ?? '' };
    if (typeof split.fileId === 'string') return split;
    const start = Math.max(1, Number(split.startPage) || 1);
    const end = Math.min(pages.length, Math.max(start, Number(split.endPage) || start));
    const texts = pages.slice(start - 1, end);
    const text = texts.join('\f');
    const bytes = Buffer.from(text, 'utf8');
    const id = ctx.ids('file');
    files.push({
      seq: 0, id, name: `${base} ${String(split.type ?? 'split')} p${start}-${end}.txt`, type: 'TXT', mime: 'text/plain', size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'), num_pages: Math.max(1, texts.length), raw_text: text, pages: JSON.stringify(texts), html: null,
      parent_file_id: parent?.id ?? null,
      metadata: parent ? JSON.stringify({ parentSplit: { id: split.id, type: split.type, identifier: split.identifier, startPage: start, endPage: end } }) : null,
      created_at: now, updated_at: now,
    });
    split.fileId = id;
    return split;
  });
  return { output: { ...output, splits: out }, files };
}

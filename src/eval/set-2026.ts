/**
 * An evaluation set and its items read on API version 2026-02-09 (spec 4.1, 3.7) through the
 * client's set facade (`client.sets`, `client.items(setId)`): the set names its entity
 * (`entity.object`: extractor, classifier or splitter), list rows carry no expected output (each
 * item is read on its own), and expected outputs come in the 2026-02-09 form. The export keeps
 * the 2025-04-21 form (splits get their `split_<n>` ids back: src/config's step).
 */
import jsonpatch, { type Operation } from 'fast-json-patch';
import type { Client, EvalSet, Output, ProcessorType } from '../api/index.js';
import { expectedDown } from '../config/index.js';
import { InputError } from '../util/errors.js';
import { isPlainObject, toPointer } from '../util/json.js';
import { readEach } from './reads.js';
import { notFoundAs } from './resolve.js';
import type { EvalItem } from './types.js';

type Json = Record<string, unknown>;

const TYPE_OF_OBJECT: Readonly<Record<string, ProcessorType>> = { extractor: 'EXTRACT', classifier: 'CLASSIFY', splitter: 'SPLITTER' };

export interface Set2026 {
  id: string;
  name: string;
  entityId: string;
  entityName: string;
  type: ProcessorType;
}

export async function loadSet2026(client: Client, id: string, flag: string, signal?: AbortSignal): Promise<Set2026> {
  const s = await client.sets.retrieve(id, { signal }).catch(notFoundAs<EvalSet>('evaluation set', id, flag));
  const entity = (isPlainObject(s.raw.entity) ? s.raw.entity : {}) as { object?: unknown; name?: unknown };
  const type = typeof entity.object === 'string' ? TYPE_OF_OBJECT[entity.object] : undefined;
  if (type === undefined) {
    throw new InputError(`evaluation set ${id} belongs to ${String(entity.object ?? 'no entity')}; evalkit evaluates extractors, classifiers and splitters`, { hint: `check ${flag}` });
  }
  return { id: s.id, name: s.name, entityId: s.entityId, entityName: typeof entity.name === 'string' ? entity.name : '', type };
}

/** The ids of the set's items, in the set's order (one list, no expected outputs). */
export async function listItemIds2026(client: Client, setId: string, signal?: AbortSignal): Promise<Array<{ id: string; fileId: string }>> {
  const out: Array<{ id: string; fileId: string }> = [];
  for await (const i of client.items(setId).listAll({}, { signal })) out.push({ id: i.id, fileId: i.fileId });
  return out;
}

/**
 * Every item with its expected output in the export's (2025-04-21) form: one GET per item,
 * `width` at a time (--concurrency, default 8), fewer after a 429 (reads.ts).
 */
export async function loadItems2026(client: Client, setId: string, type: ProcessorType, signal?: AbortSignal, width = 8): Promise<EvalItem[]> {
  const ids = await listItemIds2026(client, setId, signal);
  const items = client.items(setId);
  return readEach(ids, width, async ({ id }) => {
    const i = await items.retrieve(id, { signal });
    return { id: i.id, fileId: i.fileId, expectedOutput: expectedToExport(i.expectedOutput ?? {}, type) as Output };
  }, signal);
}
/** A 2026-02-09 expected output in the export's 2025-04-21 form (src/config's step down: split ids). */
export function expectedToExport(output: Json, type: ProcessorType): Json {
  if (!isPlainObject(output)) return output;
  const ops: Operation[] = expectedDown(output, type).map((e) => {
    const path = toPointer(e.path);
    return e.kind === 'drop' ? { op: 'remove', path } : { op: 'add', path, value: (e as { value?: unknown }).value };
  });
  return ops.length ? (jsonpatch.applyPatch(structuredClone(output), ops, true, false).newDocument as Json) : output;
}

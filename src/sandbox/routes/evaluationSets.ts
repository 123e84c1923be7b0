/**
 * Evaluation sets and their nested items, the 2026-02-09 edge (spec 2 `evaluationSets`,
 * `evaluationSetItems`, 3.7, 4.1, 7). Stored once with the 2025-04-21 routes (evaluation.ts): a set
 * made here is readable there and back. Expected outputs are stored in the 2025-04-21 layout and
 * converted at this edge with src/config's steps (through the core): in, a split gets its
 * `split_<n>` id; out, CLASSIFY loses `confidence` and splits lose `id`, `identifier`, `observation`.
 */
import type { Ctx } from '../context.js';
import type { Json, ProcessorType } from '../core.js';
import { deletedAnswer, fileSummary, listAnswer } from '../current.js';
import { badRequest, checkId, notFound, objectBody, optString, queryId, reqId, reqString, type Req } from '../http.js';
import { KINDS } from '../kinds.js';
import { createdByOf, metaOf } from '../meta.js';
import { pageParams } from '../paging.js';
import { draftConfig, loadProcessor } from '../resolve.js';
import type { Route } from '../router.js';
import { entitySummary } from '../runAnswers.js';
import type { FileRow, ItemRow, ProcessorRow, SetRow } from '../store.js';
import { isPlainObject } from '../../util/json.js';
import { checkExpected, deleteItemRow, fileOf, insertItems, insertSet, ITEM_SORTS, loadSet, pageOfItems, pageOfSets, setItemExpected } from './evaluation.js';

/** Items per POST /evaluation_sets/{id}/items (reference.md). */
export const MAX_ITEMS_PER_CALL = 100;
const SORTS = { createdAt: 'created_at', updatedAt: 'updated_at' };

/**
 * `EvaluationSet`: `description` is a string in 2026-02-09 (empty when the set has none);
 * `createdBy` the token that created it (meta.ts; null for rows stored before it was recorded).
 */
function setJson26(ctx: Ctx, s: SetRow, p: ProcessorRow): Json {
  return {
    object: 'evaluation_set', id: s.id, name: s.name, description: s.description ?? '', entity: entitySummary(KINDS[p.type as ProcessorType], p), createdAt: s.created_at, updatedAt: s.updated_at,
    createdBy: createdByOf(metaOf(ctx, s.id)),
  };
}

/**
 * The item's `FileSummary`. A file deleted after the item was made keeps its id with an empty
 * name and no type (the item still names it; FileSummary cannot be null).
 */
function fileOfItem(ctx: Ctx, i: ItemRow): Json {
  const f = ctx.store.st('SELECT id, name, type, num_pages, parent_file_id, metadata, created_at, updated_at FROM files WHERE id = ?').get(i.file_id) as FileRow | undefined;
  if (f) return fileSummary(f);
  return { object: 'file', id: i.file_id, name: '', type: null, parentFileId: null, metadata: {}, createdAt: i.created_at, updatedAt: i.created_at };
}

function itemSummary(ctx: Ctx, i: ItemRow): Json {
  return { object: 'evaluation_set_item', id: i.id, file: fileOfItem(ctx, i), createdBy: createdByOf(metaOf(ctx, i.id)) };
}

function itemJson26(ctx: Ctx, i: ItemRow, p: ProcessorRow): Json {
  const expectedOutput = ctx.core.expectedToCurrent(JSON.parse(i.expected) as Json, p.type as ProcessorType);
  return { object: 'evaluation_set_item', id: i.id, evaluationSetId: i.evaluation_set_id, file: fileOfItem(ctx, i), expectedOutput, createdBy: createdByOf(metaOf(ctx, i.id)) };
}

/**
 * A 2026-02-09 expected output (ProvidedExtractOutput `{value?}`, ProvidedClassifyOutput `{id,
 * type}`, ProvidedSplitOutput `{splits: [{classificationId, type, startPage, endPage}]}`) -> the
 * stored 2025-04-21 layout, checked against the draft config. The 2025-04-21 forms are a 400
 * naming the member's pointer.
 */
function acceptExpected(ctx: Ctx, p: ProcessorRow, config: Json, value: unknown, at: string): Json {
  const name = at.slice(1).replace(/\//g, '.');
  if (value === undefined || value === null) throw badRequest(`${name} is required`);
  if (!isPlainObject(value)) throw badRequest(`${name} must be an object`);
  const type = p.type as ProcessorType;
  const refuse = (pointer: string, what: string, want: string): never => {
    throw badRequest(`${at}${pointer}: ${what} is the 2025-04-21 form of an expected output; 2026-02-09 takes ${want}: remove it`);
  };
  if (type === 'CLASSIFY' && Object.hasOwn(value, 'confidence')) refuse('/confidence', 'confidence', '{id, type}');
  if (type === 'SPLITTER') {
    if (Object.hasOwn(value, 'subDocumentClassifications')) refuse('/subDocumentClassifications', 'subDocumentClassifications', '{splits}');
    if (Array.isArray(value.splits)) {
      value.splits.forEach((s, i) => {
        if (!isPlainObject(s)) return;
        for (const k of ['id', 'identifier', 'observation']) if (Object.hasOwn(s, k)) refuse(`/splits/${i}/${k}`, `a split's ${k}`, 'splits of {classificationId, type, startPage, endPage}');
      });
    }
  }
  if (type === 'EXTRACT') {
    const other = Object.keys(value).find((k) => k !== 'value');
    if (other !== undefined) throw badRequest(`${at}/${other}: 2026-02-09 EXTRACT expected outputs are {"value": {...}}; put the fields inside value`);
  }
  return checkExpected(ctx, p, config, ctx.core.expectedFromCurrent(value, type), at, `${KINDS[type].noun} ${p.id}`);
}

// ---------------------------------------------------------------------------------------------
// Sets

function createSet(req: Req, ctx: Ctx): Json {
  const body = objectBody(req.body);
  if (body.processorId !== undefined && body.entityId === undefined) throw badRequest('processorId is the 2025-04-21 name; with API version 2026-02-09 send entityId (an extractor, classifier or splitter id)');
  const name = reqString(body, 'name');
  const description = optString(body, 'description');
  const p = loadProcessor(ctx, req, reqId(body, 'entityId'), 'entityId');
  return setJson26(ctx, insertSet(ctx, name, description, p, req.token), p);
}

function listSets(req: Req, ctx: Ctx): Json {
  if (req.query.get('processorId')) throw badRequest('query parameter processorId is the 2025-04-21 name; with API version 2026-02-09 use entityId');
  const page = pageParams(req, ctx.secret, SORTS, 'createdAt', 'desc');
  const { rows, nextPageToken } = pageOfSets(ctx, req, page, queryId(req.query, 'entityId'));
  const processorOf = ctx.store.st('SELECT * FROM processors WHERE id = ?');
  const data = rows.flatMap((s) => {
    // A set whose processor is gone has no entity to show: left out (processors cannot be deleted today).
    const p = processorOf.get(s.processor_id) as ProcessorRow | undefined;
    return p ? [setJson26(ctx, s, p)] : [];
  });
  return { ...listAnswer(data, nextPageToken) };
}

function getSet(req: Req, ctx: Ctx): Json {
  const { set, processor } = loadSet(ctx, req, req.params.id);
  return setJson26(ctx, set, processor);
}

// ---------------------------------------------------------------------------------------------
// Items

function listItems(req: Req, ctx: Ctx): Json {
  const { set } = loadSet(ctx, req, req.params.id);
  const page = pageParams(req, ctx.secret, ITEM_SORTS, 'createdAt', 'asc');
  const { rows, nextPageToken } = pageOfItems(ctx, set, page);
  return { ...listAnswer(rows.map((i) => itemSummary(ctx, i)), nextPageToken) };
}

/** All or nothing: one invalid item rejects the request and nothing is created. */
function createItems(req: Req, ctx: Ctx): Json {
  const { set, processor } = loadSet(ctx, req, req.params.id);
  const body = objectBody(req.body);
  if (body.evaluationSetId !== undefined || body.fileId !== undefined) {
    throw badRequest('this is the 2025-04-21 body of POST /evaluation_set_items; with API version 2026-02-09 send {items: [{fileId, expectedOutput}]} to POST /evaluation_sets/{id}/items');
  }
  const list = body.items;
  if (!Array.isArray(list)) throw badRequest('items is required: an array of {fileId, expectedOutput}');
  if (list.length < 1 || list.length > MAX_ITEMS_PER_CALL) {
    throw badRequest(`items must hold from 1 to ${MAX_ITEMS_PER_CALL} elements (got ${list.length}); send larger sets in several calls`);
  }
  const config = draftConfig(ctx, processor);
  const entries = list.map((raw, i) => {
    const item = objectBody(raw, `items[${i}]`);
    const fileId = reqId(item, 'fileId', `items[${i}].`);
    fileOf(ctx, fileId, `items[${i}].fileId`);
    return { fileId, expected: acceptExpected(ctx, processor, config, item.expectedOutput, `/items/${i}/expectedOutput`) };
  });
  const rows = insertItems(ctx, set, entries, req.token);
  return { evaluationSetItems: rows.map((r) => itemJson26(ctx, r, processor)) };
}

/** An item addressed under its set: an item of another set is a 404. */
function loadNested(ctx: Ctx, req: Req): { item: ItemRow; processor: ProcessorRow } {
  const { set, processor } = loadSet(ctx, req, req.params.id);
  const id = checkId(req.params.itemId, 'evaluation set item id');
  const item = ctx.store.byId<ItemRow>('evaluation_set_items', id);
  if (!item || item.evaluation_set_id !== set.id) throw notFound(`evaluation set item ${id} not found in evaluation set ${set.id}`);
  return { item, processor };
}

function getItem(req: Req, ctx: Ctx): Json {
  const { item, processor } = loadNested(ctx, req);
  return itemJson26(ctx, item, processor);
}

function updateItem(req: Req, ctx: Ctx): Json {
  const { item, processor } = loadNested(ctx, req);
  const body = objectBody(req.body);
  const expected = acceptExpected(ctx, processor, draftConfig(ctx, processor), body.expectedOutput, '/expectedOutput');
  return itemJson26(ctx, setItemExpected(ctx, item, expected), processor);
}

function deleteItem(req: Req, ctx: Ctx): Json {
  const { item } = loadNested(ctx, req);
  deleteItemRow(ctx, item.id);
  return deletedAnswer(item.id);
}

export const evaluationSetRoutes: Route[] = [
  { method: 'POST', pattern: '/evaluation_sets', versions: 'current', body: 'json', handler: createSet },
  { method: 'GET', pattern: '/evaluation_sets', versions: 'current', handler: listSets },
  { method: 'GET', pattern: '/evaluation_sets/:id', versions: 'current', handler: getSet },
  { method: 'GET', pattern: '/evaluation_sets/:id/items', versions: 'current', handler: listItems },
  { method: 'POST', pattern: '/evaluation_sets/:id/items', versions: 'current', body: 'json', handler: createItems },
  { method: 'GET', pattern: '/evaluation_sets/:id/items/:itemId', versions: 'current', handler: getItem },
  { method: 'POST', pattern: '/evaluation_sets/:id/items/:itemId', versions: 'current', body: 'json', handler: updateItem },
  { method: 'DELETE', pattern: '/evaluation_sets/:id/items/:itemId', versions: 'current', handler: deleteItem },
];

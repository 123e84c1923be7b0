/**
 * Evaluation sets and items (spec 4.12, 4.13, service-facts.md). expectedOutput is checked
 * against the processor's draft config (the newest intent of the config: items for a field
 * added to the draft can be created before the next publish), with src/expected's rules.
 */
import type { Ctx } from '../context.js';
import { HUB, type Json } from '../core.js';
import { legacyConfig } from '../current.js';
import { badRequest, checkId, notFound, objectBody, optString, reqId, reqString, type Req } from '../http.js';
import { assertProcessorAccess, type TokenRecord } from '../auth.js';
import { deleteMeta, setMeta } from '../meta.js';
import { nowIso } from '../ids.js';
import { pageOf, pageParams, type PageParams } from '../paging.js';
import { draftConfig, loadProcessor } from '../resolve.js';
import type { Route } from '../router.js';
import { itemJson, setJson } from '../serialize.js';
import type { ItemRow, ProcessorRow, SetRow, Where } from '../store.js';
import { InputError } from '../../util/errors.js';
import { isPlainObject } from '../../util/json.js';

export const MAX_BULK_ITEMS = 1000;

// Core operations: the 2025-04-21 routes below and the 2026-02-09 ones (evaluationSets.ts) call these.

/** `createdBy`: the token of the request, for API 2026-02-09's `createdBy` (meta.ts). */
export function insertSet(ctx: Ctx, name: string, description: string | undefined, p: ProcessorRow, createdBy: TokenRecord): SetRow {
  const now = nowIso();
  const row: SetRow = { seq: 0, id: ctx.ids('evaluationSet'), name, description: description ?? null, processor_id: p.id, created_at: now, updated_at: now };
  ctx.store.tx(() => {
    ctx.store.insertSet(row);
    setMeta(ctx, row.id, { createdBy });
  });
  return row;
}

/** A page of the sets the token may use, of one processor or all. */
export function pageOfSets(ctx: Ctx, req: Req, page: PageParams, processorId: string | undefined): { rows: SetRow[]; nextPageToken: string | null } {
  const where: Where[] = [];
  if (processorId) where.push(['processor_id = ?', processorId]);
  if (req.token.processors !== '*') where.push(['processor_id IN (SELECT value FROM json_each(?))', JSON.stringify([...req.token.processors])]);
  const rows = ctx.store.list<SetRow>('evaluation_sets', { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 });
  return pageOf(rows, page, (r) => r[page.sortCol as keyof SetRow] as string);
}

export function pageOfItems(ctx: Ctx, set: SetRow, page: PageParams): { rows: ItemRow[]; nextPageToken: string | null } {
  const rows = ctx.store.list<ItemRow>('evaluation_set_items', {
    where: [['evaluation_set_id = ?', set.id]], sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1,
  });
  return pageOf(rows, page, (r) => r[page.sortCol as keyof ItemRow] as string);
}

/** New items of a set, in one transaction; `expected` in the 2025-04-21 layout, already checked. */
export function insertItems(ctx: Ctx, set: SetRow, entries: Array<{ fileId: string; expected: Json }>, createdBy: TokenRecord): ItemRow[] {
  const now = nowIso();
  const rows: ItemRow[] = entries.map((e) => ({
    seq: 0, id: ctx.ids('evaluationSetItem'), evaluation_set_id: set.id, file_id: e.fileId, expected: JSON.stringify(e.expected), created_at: now, updated_at: now,
  }));
  ctx.store.tx(() => {
    ctx.store.insertItems(rows);
    for (const r of rows) setMeta(ctx, r.id, { createdBy });
  });
  return rows;
}

/** An item and what 2026-02-09 shows of it beside its row (meta.ts), together. */
export function deleteItemRow(ctx: Ctx, id: string): void {
  ctx.store.tx(() => {
    ctx.store.deleteById('evaluation_set_items', id);
    deleteMeta(ctx, id);
  });
}

export function setItemExpected(ctx: Ctx, item: ItemRow, expected: Json): ItemRow {
  const now = nowIso();
  ctx.store.updateItem(item.id, JSON.stringify(expected), now);
  return { ...item, expected: JSON.stringify(expected), updated_at: now };
}

// ---------------------------------------------------------------------------------------------
// 2025-04-21

function createSet(req: Req, ctx: Ctx): Json {
  const body = objectBody(req.body);
  const name = reqString(body, 'name');
  const description = optString(body, 'description');
  if (body.processorId === undefined && body.entityId !== undefined) throw badRequest('entityId is the 2026-02-09 name; with API version 2025-04-21 send processorId');
  const p = loadProcessor(ctx, req, reqId(body, 'processorId'));
  return { success: true, evaluationSet: setJson(insertSet(ctx, name, description, p, req.token)) };
}

/** 404 for an unknown set, 403 when the token may not use the set's processor. */
export function loadSet(ctx: Ctx, req: Req, id: string, what = 'evaluation set'): { set: SetRow; processor: ProcessorRow } {
  checkId(id, what === 'evaluation set' ? 'evaluation set id' : what);
  const set = ctx.store.byId<SetRow>('evaluation_sets', id);
  if (!set) throw notFound(`${what} ${id} not found`);
  assertProcessorAccess(req.token, set.processor_id);
  const processor = ctx.store.byId<ProcessorRow>('processors', set.processor_id);
  if (!processor) throw notFound(`processor ${set.processor_id} of evaluation set ${id} no longer exists`);
  return { set, processor };
}

function getSet(req: Req, ctx: Ctx): Json {
  return { success: true, evaluationSet: setJson(loadSet(ctx, req, req.params.id).set) };
}

function listSets(req: Req, ctx: Ctx): Json {
  const page = pageParams(req, ctx.secret, { createdAt: 'created_at', updatedAt: 'updated_at', name: 'name' }, 'createdAt', 'desc');
  const processorId = req.query.get('processorId');
  const { rows: items, nextPageToken } = pageOfSets(ctx, req, page, processorId ? checkId(processorId, 'query parameter processorId') : undefined);
  return { success: true, evaluationSets: items.map(setJson), nextPageToken };
}

export const ITEM_SORTS = { createdAt: 'created_at', updatedAt: 'updated_at' };

function listItems(req: Req, ctx: Ctx): Json {
  const { set, processor } = loadSet(ctx, req, req.params.id);
  const page = pageParams(req, ctx.secret, ITEM_SORTS, 'createdAt', 'asc');
  const { rows: items, nextPageToken } = pageOfItems(ctx, set, page);
  return { success: true, evaluationSetItems: items.map((i) => itemJson(ctx, i, req.layout, processor.type)), nextPageToken };
}

/**
 * An expectedOutput from a request, in the 2025-04-21 layout, or a 400 naming each error
 * finding with its JSON pointer into the request body and its rule.
 */
export function checkExpected(ctx: Ctx, processor: ProcessorRow, config: Json, value: unknown, at: string, owner = `processor ${processor.id}`): Json {
  if (value === undefined || value === null) throw badRequest(`${at.slice(1).replace(/\//g, '.')} is required`);
  if (!isPlainObject(value)) throw badRequest(`${at.slice(1).replace(/\//g, '.')} must be an object`);
  const doc = processor.type === 'SPLITTER' ? ctx.core.splitterOutput(value, HUB) : value;
  let findings: ReturnType<Ctx['core']['validateExpected']>;
  try {
    findings = ctx.core.validateExpected(legacyConfig(config), doc);
  } catch (e) {
    // A config the expected-output rules cannot read (an extraction schema that is no object
    // schema): the request is fine, the entity is not ready for items yet. An object schema with
    // no properties (the default extractor config) is readable: it takes {} only.
    if (!(e instanceof InputError)) throw e;
    throw badRequest(`the draft config of ${owner} cannot check expected outputs (${e.message.replace(/^config: /, '')}); update its config first`);
  }
  const errors = findings.filter((f) => f.severity === 'error');
  if (errors.length) {
    const shown = errors.slice(0, 5).map((f) => `${at}${f.pointer}: ${f.message} (rule ${f.rule})`);
    const more = errors.length > 5 ? ` (and ${errors.length - 5} more)` : '';
    throw badRequest(`expectedOutput does not match the config of ${owner}: ${shown.join('; ')}${more}`);
  }
  return doc;
}

/**
 * The error findings of an output against a config; a config the expected-output rules cannot
 * read (no class declared, an extraction schema that is no object schema) is a 400 naming it.
 */
export function expectedProblems(ctx: Ctx, config: Json, doc: Json, owner: string): ReturnType<Ctx['core']['validateExpected']> {
  try {
    return ctx.core.validateExpected(config, doc).filter((f) => f.severity === 'error');
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    throw badRequest(`${owner} cannot check outputs (${e.message.replace(/^config: /, '')})`);
  }
}

export function fileOf(ctx: Ctx, fileId: string, what: string): void {
  if (!ctx.store.st('SELECT 1 FROM files WHERE id = ?').get(fileId)) throw badRequest(`${what} ${fileId} does not exist (upload it with POST /files/upload first)`);
}

function createItem(req: Req, ctx: Ctx): Json {
  const body = objectBody(req.body);
  const setId = reqId(body, 'evaluationSetId');
  const fileId = reqId(body, 'fileId');
  if (body.expectedOutput === undefined) throw badRequest('expectedOutput is required');
  const { set, processor } = loadSet(ctx, req, setId, 'evaluationSetId');
  fileOf(ctx, fileId, 'fileId');
  const expected = checkExpected(ctx, processor, draftConfig(ctx, processor), body.expectedOutput, '/expectedOutput');
  const [row] = insertItems(ctx, set, [{ fileId, expected }], req.token);
  return { success: true, evaluationSetItem: itemJson(ctx, row, req.layout, processor.type) };
}

/** All or nothing: one invalid item rejects the request and nothing is created. */
function bulkCreate(req: Req, ctx: Ctx): Json {
  const body = objectBody(req.body);
  const setId = reqId(body, 'evaluationSetId');
  const list = body.items;
  if (!Array.isArray(list)) throw badRequest('items is required: an array of {fileId, expectedOutput}');
  if (list.length < 1 || list.length > MAX_BULK_ITEMS) throw badRequest(`items must hold from 1 to ${MAX_BULK_ITEMS} elements (got ${list.length})`);
  const { set, processor } = loadSet(ctx, req, setId, 'evaluationSetId');
  const config = draftConfig(ctx, processor);
  const entries = list.map((raw, i) => {
    const item = objectBody(raw, `items[${i}]`);
    const fileId = reqId(item, 'fileId', `items[${i}].`);
    fileOf(ctx, fileId, `items[${i}].fileId`);
    return { fileId, expected: checkExpected(ctx, processor, config, item.expectedOutput, `/items/${i}/expectedOutput`) };
  });
  const rows = insertItems(ctx, set, entries, req.token);
  return { success: true, evaluationSetItems: rows.map((r) => itemJson(ctx, r, req.layout, processor.type)) };
}

function loadItem(ctx: Ctx, req: Req): { item: ItemRow; processor: ProcessorRow } {
  const id = checkId(req.params.id, 'evaluation set item id');
  const item = ctx.store.byId<ItemRow>('evaluation_set_items', id);
  if (!item) throw notFound(`evaluation set item ${id} not found`);
  const { processor } = loadSet(ctx, req, item.evaluation_set_id);
  return { item, processor };
}

function getItem(req: Req, ctx: Ctx): Json {
  const { item, processor } = loadItem(ctx, req);
  return { success: true, evaluationSetItem: itemJson(ctx, item, req.layout, processor.type) };
}

function updateItem(req: Req, ctx: Ctx): Json {
  const { item, processor } = loadItem(ctx, req);
  const body = objectBody(req.body);
  if (body.expectedOutput === undefined) throw badRequest('expectedOutput is required');
  const expected = checkExpected(ctx, processor, draftConfig(ctx, processor), body.expectedOutput, '/expectedOutput');
  return { success: true, evaluationSetItem: itemJson(ctx, setItemExpected(ctx, item, expected), req.layout, processor.type) };
}

function deleteItem(req: Req, ctx: Ctx): Json {
  const { item } = loadItem(ctx, req);
  deleteItemRow(ctx, item.id);
  return { success: true, evaluationSetItemId: item.id, message: `evaluation set item ${item.id} deleted` };
}

export const evaluationRoutes: Route[] = [
  { method: 'POST', pattern: '/evaluation_sets', body: 'json', handler: createSet },
  { method: 'GET', pattern: '/evaluation_sets', handler: listSets },
  { method: 'GET', pattern: '/evaluation_sets/:id', handler: getSet },
  { method: 'GET', pattern: '/evaluation_sets/:id/items', handler: listItems },
  { method: 'POST', pattern: '/evaluation_set_items', body: 'json', handler: createItem },
  { method: 'POST', pattern: '/evaluation_set_items/bulk', body: 'json', handler: bulkCreate },
  { method: 'GET', pattern: '/evaluation_set_items/:id', handler: getItem },
  { method: 'POST', pattern: '/evaluation_set_items/:id', body: 'json', handler: updateItem },
  { method: 'DELETE', pattern: '/evaluation_set_items/:id', handler: deleteItem },
];

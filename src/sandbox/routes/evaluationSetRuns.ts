/**
 * Evaluation set runs, the 2026-02-09 edge (spec 2 `evaluationSetRuns`, 4.1, 4.2, 7):
 *
 *   POST /evaluation_set_runs {evaluationSetId*, entity?: {id*, version?}, evaluationSetItemIds?}
 *   GET  /evaluation_set_runs/{id}
 *
 * One evaluation is one object: the core (evaluationRuns.ts) is the one `POST
 * /batch_processor_runs` uses, so the `bpr_` id is also `GET /batch_processor_runs/{id}` (legacy
 * shape), and its item runs are listed by `GET /extract_runs?batchId=` (classify_runs, split_runs).
 */
import { assertProcessorAccess, mayUseProcessor, mayUseWorkflow } from '../auth.js';
import type { Ctx } from '../context.js';
import type { Json, ProcessorType } from '../core.js';
import { evaluationSetRunJson, startEvaluation } from '../evaluationRuns.js';
import { badRequest, checkId, notFound, objectBody, optString, reqId, type Req } from '../http.js';
import { KINDS, kindOfType, withArticle } from '../kinds.js';
import { loadProcessor, normalizeVersionLabel, resolveVersion } from '../resolve.js';
import type { Route } from '../router.js';
import type { BatchRow, ItemRow, ProcessorRow, RunRow } from '../store.js';
import { isPlainObject } from '../../util/json.js';
import { loadSet } from './evaluation.js';

const MEMBERS = ['evaluationSetId', 'entity', 'evaluationSetItemIds'];
/** The version an evaluation runs when the request names none: the entity's draft (spec 4.1). */
const DEFAULT_VERSION = 'draft';

const nounOf = (p: ProcessorRow): string => kindOfType(p.type)?.noun ?? p.type;

function checkMembers(body: Json): void {
  for (const key of Object.keys(body)) {
    if (MEMBERS.includes(key)) continue;
    if (key === 'options') {
      throw badRequest('options cannot be set when creating an evaluation set run (the 2026-02-09 request has no options; the service sets them in its dashboard); remove it');
    }
    if (key === 'version') throw badRequest('version is a member of the sandbox extension POST /batch_processor_runs; with 2026-02-09 send entity: {id, version}');
    if (key === 'processorId') throw badRequest('processorId is the 2025-04-21 name; with 2026-02-09 send entity: {id, version?}');
    throw badRequest(`${key} is not a member of POST /evaluation_set_runs; accepted: ${MEMBERS.join(', ')}`);
  }
}

/** The entity to run: the set's own unless `entity` names another of the same kind. */
function entityOf(ctx: Ctx, req: Req, body: Json, setEntity: ProcessorRow, setId: string): { processor: ProcessorRow; versionRef: string } {
  const v = body.entity;
  if (v === undefined || v === null) return { processor: setEntity, versionRef: DEFAULT_VERSION };
  if (!isPlainObject(v)) throw badRequest('entity must be an object: {id, version?}');
  for (const k of Object.keys(v)) if (k !== 'id' && k !== 'version') throw badRequest(`entity.${k} is not a member of entity; accepted: id, version`);
  if (typeof v.id !== 'string' || v.id === '') throw badRequest('entity.id is required: the id of the extractor, classifier or splitter to evaluate');
  const version = optString(v, 'version', 'entity.');
  if (version !== undefined && !normalizeVersionLabel(version)) throw badRequest('entity.version must be "latest", "draft" or a published version number such as "1.0"');
  const p = loadProcessor(ctx, req, checkId(v.id, 'entity.id'), 'entity.id');
  if (p.type !== setEntity.type) {
    throw badRequest(
      `entity.id ${p.id} is ${withArticle(nounOf(p))}, but evaluation set ${setId} holds expected outputs for ${withArticle(nounOf(setEntity))} (${setEntity.id}); ` +
        `pass ${withArticle(nounOf(setEntity))} id, or omit entity to run ${setEntity.id}`,
    );
  }
  return { processor: p, versionRef: version ?? DEFAULT_VERSION };
}

/** The items named by `evaluationSetItemIds` (in the order given), or every item of the set. */
function itemsOf(ctx: Ctx, body: Json, setId: string): ItemRow[] {
  const ids = body.evaluationSetItemIds;
  if (ids === undefined || ids === null) {
    const all = ctx.store.allItems(setId);
    if (!all.length) throw badRequest(`evaluation set ${setId} has no items; add items (POST /evaluation_sets/${setId}/items) before running it`);
    return all;
  }
  if (!Array.isArray(ids)) throw badRequest('evaluationSetItemIds must be an array of evaluation set item ids');
  if (!ids.length) throw badRequest('evaluationSetItemIds is empty; list at least one item id, or omit it to run every item of the set');
  const seen = new Set<string>();
  const stmt = ctx.store.st('SELECT * FROM evaluation_set_items WHERE id = ?');
  return ids.map((raw, i) => {
    const at = `evaluationSetItemIds[${i}]`;
    if (typeof raw !== 'string' || raw === '') throw badRequest(`${at} must be an evaluation set item id (a string)`);
    const id = checkId(raw, at);
    if (seen.has(id)) throw badRequest(`${at}: item ${id} is listed twice; list each item once`);
    seen.add(id);
    const item = stmt.get(id) as ItemRow | undefined;
    if (!item) throw notFound(`${at}: evaluation set item ${id} not found`);
    if (item.evaluation_set_id !== setId) {
      throw badRequest(`${at}: item ${id} belongs to evaluation set ${item.evaluation_set_id}, not ${setId}; remove it or run that set`);
    }
    return item;
  });
}

function create(req: Req, ctx: Ctx): Json {
  const body = objectBody(req.body);
  checkMembers(body);
  const setId = reqId(body, 'evaluationSetId');
  const { set, processor: setEntity } = loadSet(ctx, req, setId, 'evaluationSetId');
  const { processor, versionRef } = entityOf(ctx, req, body, setEntity, set.id);
  const version = resolveVersion(ctx, processor, versionRef, 'entity.version', nounOf(processor));
  const items = itemsOf(ctx, body, set.id);
  const kind = KINDS[processor.type as ProcessorType];
  const batch = startEvaluation(ctx, { set, processor, version, items, options: {}, priority: 50, status: 'PENDING', runIdKind: kind.run.id });
  return evaluationSetRunJson(ctx, batch);
}

/**
 * What an id that is not an evaluation set run is, and where to read it; undefined when unknown
 * (or of a processor or workflow the token may not use: a scoped token learns nothing of those).
 */
function otherKind(ctx: Ctx, req: Req, id: string): string | undefined {
  const run = ctx.store.st('SELECT processor_type, processor_id FROM processor_runs WHERE id = ?').get(id) as Pick<RunRow, 'processor_type' | 'processor_id'> | undefined;
  if (run) {
    const k = kindOfType(run.processor_type);
    return k && mayUseProcessor(req.token, run.processor_id) ? `it is ${withArticle(k.run.noun)}; use /${k.run.route}/${id}` : undefined;
  }
  const batch = ctx.store.st("SELECT processor_id FROM processor_runs WHERE batch_id = ? AND source = 'API' LIMIT 1").get(id) as { processor_id: string } | undefined;
  if (batch) return mayUseProcessor(req.token, batch.processor_id) ? `it is a batch run; use /batch_runs/${id}` : undefined;
  const wf = ctx.store.st('SELECT workflow_id FROM workflow_runs WHERE id = ?').get(id) as { workflow_id: string } | undefined;
  if (wf) return mayUseWorkflow(req.token, wf.workflow_id) ? `it is a workflow run; use /workflow_runs/${id}` : undefined;
  return undefined;
}

function get(req: Req, ctx: Ctx): Json {
  const id = checkId(req.params.id, 'evaluation set run id');
  const b = ctx.store.byId<BatchRow>('batch_processor_runs', id);
  if (!b) {
    const other = otherKind(ctx, req, id);
    throw notFound(`evaluation set run ${id} not found${other ? `: ${other}` : ''}`);
  }
  assertProcessorAccess(req.token, b.processor_id);
  return evaluationSetRunJson(ctx, b);
}

export const evaluationSetRunRoutes: Route[] = [
  { method: 'POST', pattern: '/evaluation_set_runs', versions: 'current', body: 'json', handler: create },
  { method: 'GET', pattern: '/evaluation_set_runs/:id', versions: 'current', handler: get },
];

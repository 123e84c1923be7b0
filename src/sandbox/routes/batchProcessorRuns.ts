/**
 * Batch processor runs (4.15). `POST /batch_processor_runs` is a sandbox extension: the service
 * of 2025-04-21 has no public endpoint that starts an evaluation run. It creates one processor
 * run per item of the evaluation set (source EVAL_SET, sourceId = the set), in one transaction
 * with the batch; the batch is PROCESSING until every run has ended, then PROCESSED with
 * metrics (FAILED when no run was processed). The same evaluation is also
 * `GET /evaluation_set_runs/{id}` under 2026-02-09 (evaluationRuns.ts holds the core). Its runs are listed by
 * `GET /processor_runs?batchProcessorRunId=`.
 */
import { assertProcessorAccess } from '../auth.js';
import type { Ctx } from '../context.js';
import type { Json } from '../core.js';
import { badRequest, checkId, notFound, objectBody, optString, queryEnum, queryId, reqId, type Req } from '../http.js';
import { pageOf, pageParams } from '../paging.js';
import { normalizeVersionLabel, resolveVersion } from '../resolve.js';
import type { Route } from '../router.js';
import { startEvaluation } from '../evaluationRuns.js';
import { batchJson } from '../serialize.js';
import type { BatchRow, Where } from '../store.js';
import { isPlainObject } from '../../util/json.js';
import { loadSet } from './evaluation.js';
import { priorityOf } from './processorRuns.js';

const OPTION_KEYS = ['fuzzyMatchFields', 'excludeFields', 'clearPreProcessingCache'];

function options(v: unknown): Json {
  if (v === undefined || v === null) return {};
  if (!isPlainObject(v)) throw badRequest('options must be an object');
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) {
    if (!OPTION_KEYS.includes(k)) throw badRequest(`options.${k} is not a known option (${OPTION_KEYS.join(', ')})`);
    if (k === 'clearPreProcessingCache') {
      if (typeof x !== 'boolean') throw badRequest('options.clearPreProcessingCache must be a boolean');
    } else if (!Array.isArray(x) || x.some((s) => typeof s !== 'string')) throw badRequest(`options.${k} must be an array of strings`);
    out[k] = x;
  }
  return out;
}

function create(req: Req, ctx: Ctx): Json {
  const body = objectBody(req.body);
  const setId = reqId(body, 'evaluationSetId');
  const versionRef = optString(body, 'version');
  if (versionRef !== undefined && !normalizeVersionLabel(versionRef)) throw badRequest('version must be "latest", "draft" or a published version number such as "1.0"');
  const opts = options(body.options);
  const priority = priorityOf(body);
  const { set, processor } = loadSet(ctx, req, setId, 'evaluationSetId');
  const version = resolveVersion(ctx, processor, versionRef);
  const items = ctx.store.allItems(set.id);
  if (!items.length) throw badRequest(`evaluation set ${set.id} has no items; add items before starting an evaluation run`);
  const batch = startEvaluation(ctx, { set, processor, version, items, options: opts, priority, status: 'PROCESSING', runIdKind: 'run' });
  return { success: true, batchProcessorRun: batchJson(batch) };
}

function get(req: Req, ctx: Ctx): Json {
  const id = checkId(req.params.id, 'batch processor run id');
  const b = ctx.store.byId<BatchRow>('batch_processor_runs', id);
  if (!b) throw notFound(`batch processor run ${id} not found`);
  assertProcessorAccess(req.token, b.processor_id);
  return { success: true, batchProcessorRun: batchJson(b) };
}

function list(req: Req, ctx: Ctx): Json {
  const page = pageParams(req, ctx.secret, { createdAt: 'created_at', updatedAt: 'updated_at' }, 'createdAt', 'desc');
  const where: Where[] = [];
  const processorId = queryId(req.query, 'processorId');
  if (processorId) where.push(['processor_id = ?', processorId]);
  const sourceId = queryId(req.query, 'sourceId');
  if (sourceId) where.push(['source_id = ?', sourceId]);
  const status = queryEnum(req.query, 'status', ['PENDING', 'PROCESSING', 'PROCESSED', 'FAILED'] as const);
  if (status) where.push(['status = ?', status]);
  if (req.token.processors !== '*') where.push(['processor_id IN (SELECT value FROM json_each(?))', JSON.stringify([...req.token.processors])]);
  const rows = ctx.store.list<BatchRow>('batch_processor_runs', { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 });
  const { rows: items, nextPageToken } = pageOf(rows, page, (r) => r[page.sortCol as keyof BatchRow] as string);
  return { success: true, batchProcessorRuns: items.map(batchJson), nextPageToken };
}

export const batchRoutes: Route[] = [
  { method: 'POST', pattern: '/batch_processor_runs', versions: 'both', apiErrors: true, body: 'json', handler: create },
  { method: 'GET', pattern: '/batch_processor_runs', versions: 'both', apiErrors: true, handler: list },
  { method: 'GET', pattern: '/batch_processor_runs/:id', versions: 'both', handler: get },
];

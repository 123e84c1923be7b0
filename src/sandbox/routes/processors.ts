/** Processors and their versions (spec 4.8-4.11, listing from service-facts.md). */
import type { Ctx } from '../context.js';
import type { Json } from '../core.js';
import { badRequest, objectBody, optBool, optObject, optString, queryEnum, reqString, checkId, type Req } from '../http.js';
import { nowIso } from '../ids.js';
import { pageOf, pageParams } from '../paging.js';
import { acceptConfig, assertValidConfig, draftConfig, findVersion, loadProcessor, processorType } from '../resolve.js';
import type { Route } from '../router.js';
import { processorJson, versionJson } from '../serialize.js';
import type { ProcessorRow, VersionRow, Where } from '../store.js';

/** The draft sorts before every published version in version lists. */
const DRAFT_ORD = 1e15;
const MAX_NAME = 256;

function name(o: Json, required: boolean): string | undefined {
  const n = required ? reqString(o, 'name') : optString(o, 'name');
  if (n !== undefined && n.trim() === '') throw badRequest('name must be a non-empty string');
  if (n !== undefined && n.length > MAX_NAME) throw badRequest(`name must have at most ${MAX_NAME} characters`);
  return n;
}

function create(req: Req, ctx: Ctx): Json {
  const body = objectBody(req.body);
  const n = name(body, true) as string;
  const type = processorType(body.type);
  optBool(body, 'jsonSchemaEnabled'); // accepted on both route forms; the sandbox keeps one config type
  const supplied = optObject(body, 'config');
  let base: Json = {};
  const cloneId = optString(body, 'cloneProcessorId');
  if (cloneId !== undefined) {
    const clone = loadProcessor(ctx, req, checkId(cloneId, 'cloneProcessorId'), 'cloneProcessorId');
    if (clone.type !== type) throw badRequest(`cloneProcessorId ${clone.id} is a ${clone.type} processor, not ${type}`);
    base = draftConfig(ctx, clone);
  }
  // With both, the supplied members replace the clone's (a shallow merge in the new layout).
  const config = cloneId && supplied ? acceptConfig(ctx, { ...base, ...ctx.core.toHub(supplied, type) }, type) : acceptConfig(ctx, supplied ?? base, type);
  const now = nowIso();
  const p: ProcessorRow = { seq: 0, id: ctx.ids('processor'), name: n, type, draft_version_id: ctx.ids('version'), created_at: now, updated_at: now };
  ctx.store.insertProcessor(p, {
    seq: 0, id: p.draft_version_id, processor_id: p.id, version: 'draft', ord: DRAFT_ORD, description: null, config: JSON.stringify(config), created_at: now, updated_at: now,
  });
  ctx.events.emit({ type: 'processor.created', processorId: p.id });
  return { success: true, processor: processorJson(p) };
}

function update(req: Req, ctx: Ctx): Json {
  const p = loadProcessor(ctx, req, req.params.id);
  const body = objectBody(req.body);
  const n = name(body, false);
  const supplied = optObject(body, 'config');
  if (n === undefined && supplied === undefined) throw badRequest('supply name or config to update a processor');
  // A supplied config replaces the draft's config (members left out take their defaults).
  const config = supplied ? JSON.stringify(acceptConfig(ctx, supplied, p.type as never)) : undefined;
  const now = nowIso();
  ctx.store.updateProcessor(p.id, p.draft_version_id, n, config, now);
  const fresh = ctx.store.byId<ProcessorRow>('processors', p.id) as ProcessorRow;
  const draft = ctx.store.byId<VersionRow>('processor_versions', p.draft_version_id) as VersionRow;
  ctx.events.emit({ type: 'processor.updated', processorId: p.id });
  return { success: true, processor: { ...processorJson(fresh), draftVersion: versionJson(ctx, draft, fresh.type as never, req.layout) } };
}

function publish(req: Req, ctx: Ctx): Json {
  const p = loadProcessor(ctx, req, req.params.id);
  const body = objectBody(req.body);
  const releaseType = body.releaseType;
  if (releaseType === undefined || releaseType === null) throw badRequest('releaseType is required: "major" or "minor"');
  if (releaseType !== 'major' && releaseType !== 'minor') throw badRequest('releaseType must be "major" or "minor"');
  const description = optString(body, 'description');
  const supplied = optObject(body, 'config');
  let config: Json;
  if (supplied) config = acceptConfig(ctx, supplied, p.type as never);
  else {
    config = draftConfig(ctx, p);
    assertValidConfig(ctx, config, '/draftVersion/config');
  }
  // Read-then-insert with no await in between: two publishes cannot take the same number.
  const latest = ctx.store.latestPublished(p.id);
  const [major, minor] = latest ? latest.version.split('.').map(Number) : [0, 0];
  const next = releaseType === 'major' ? [major + 1, 0] : [major, minor + 1];
  const now = nowIso();
  const v: VersionRow = {
    seq: 0, id: ctx.ids('version'), processor_id: p.id, version: `${next[0]}.${next[1]}`, ord: next[0] * 1e6 + next[1],
    description: description ?? null, config: JSON.stringify(config), created_at: now, updated_at: now,
  };
  ctx.store.publish(v);
  ctx.events.emit({ type: 'processor.version.published', processorId: p.id, versionId: v.id });
  return { success: true, processorVersion: versionJson(ctx, v, p.type as never, req.layout) };
}

const PROCESSOR_SORTS = { createdAt: 'created_at', updatedAt: 'updated_at', name: 'name' };

function list(req: Req, ctx: Ctx): Json {
  const page = pageParams(req.query, PROCESSOR_SORTS, 'createdAt', 'desc');
  const where: Where[] = [];
  const type = queryEnum(req.query, 'type', ['EXTRACT', 'CLASSIFY', 'SPLITTER'] as const);
  if (type) where.push(['type = ?', type]);
  if (req.token.processors !== '*') where.push(['id IN (SELECT value FROM json_each(?))', JSON.stringify([...req.token.processors])]);
  const rows = ctx.store.list<ProcessorRow>('processors', { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 });
  const { rows: items, nextPageToken } = pageOf(rows, page, (r) => r[page.sortCol as keyof ProcessorRow]);
  // The official SDK's ListProcessorsProcessor: each processor with its versions {id, version}, the draft included.
  const versionsOf = ctx.store.st('SELECT id, version FROM processor_versions WHERE processor_id = ? ORDER BY ord DESC');
  return { success: true, processors: items.map((p) => ({ ...processorJson(p), versions: versionsOf.all(p.id) })), nextPageToken };
}

function listVersions(req: Req, ctx: Ctx): Json {
  const p = loadProcessor(ctx, req, req.params.id);
  const page = pageParams(req.query, { version: 'ord', createdAt: 'created_at' }, 'version', 'desc');
  const rows = ctx.store.list<VersionRow>('processor_versions', {
    where: [['processor_id = ?', p.id]], sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1,
  });
  const { rows: items, nextPageToken } = pageOf(rows, page, (r) => (page.sortCol === 'ord' ? r.ord : r.created_at));
  return { success: true, versions: items.map((v) => versionJson(ctx, v, p.type as never, req.layout)), nextPageToken };
}

function getVersion(req: Req, ctx: Ctx): Json {
  const p = loadProcessor(ctx, req, req.params.id);
  return { success: true, version: versionJson(ctx, findVersion(ctx, p, req.params.versionId), p.type as never, req.layout) };
}

/** No get-one-processor endpoint exists in the service (service-facts.md); the sandbox adds none. */
export const processorRoutes: Route[] = [
  { method: 'POST', pattern: '/processors', versions: 'both', body: 'json', handler: create },
  { method: 'GET', pattern: '/processors', versions: 'both', handler: list },
  { method: 'POST', pattern: '/processors/:id', versions: 'both', body: 'json', handler: update },
  { method: 'POST', pattern: '/processors/:id/publish', versions: 'both', body: 'json', handler: publish },
  { method: 'GET', pattern: '/processors/:id/versions', versions: 'both', handler: listVersions },
  { method: 'GET', pattern: '/processors/:id/versions/:versionId', versions: 'both', handler: getVersion },
];

/**
 * Processors and their versions, the 2025-04-21 edge (spec 4.8-4.11, listing from
 * service-facts.md): parse, call the core (../processors.ts), render `{success, ...}`.
 */
import { assertWorkspaceToken } from '../auth.js';
import type { Ctx } from '../context.js';
import type { Json } from '../core.js';
import { legacyConfig } from '../current.js';
import { badRequest, objectBody, optBool, optObject, optString, queryEnum, checkId, type Req } from '../http.js';
import { pageParams } from '../paging.js';
import { createProcessor, listProcessors, listVersions, processorName, publishVersion, releaseTypeOf, updateProcessor, VERSION_SORTS } from '../processors.js';
import { acceptConfig, draftConfig, findVersion, loadProcessor, processorType } from '../resolve.js';
import type { Route } from '../router.js';
import { processorJson, versionJson } from '../serialize.js';

function create(req: Req, ctx: Ctx): Json {
  const body = objectBody(req.body);
  // A token scoped to some processors could not use the one it made: creating needs a workspace-wide one.
  assertWorkspaceToken(req.token, 'creating a processor');
  const n = processorName(body, true) as string;
  const type = processorType(body.type);
  optBool(body, 'jsonSchemaEnabled'); // accepted on both route forms; the sandbox keeps one config type
  const supplied = optObject(body, 'config');
  let base: Json = {};
  const cloneId = optString(body, 'cloneProcessorId');
  if (cloneId !== undefined) {
    const clone = loadProcessor(ctx, req, checkId(cloneId, 'cloneProcessorId'), 'cloneProcessorId');
    if (clone.type !== type) throw badRequest(`cloneProcessorId ${clone.id} is a ${clone.type} processor, not ${type}`);
    base = legacyConfig(draftConfig(ctx, clone));
  }
  // With both, the supplied members replace the clone's (a shallow merge in the new layout).
  const config = cloneId && supplied ? acceptConfig(ctx, { ...base, ...ctx.core.toHub(supplied, type) }, type) : acceptConfig(ctx, supplied ?? base, type);
  const { processor } = createProcessor(ctx, { name: n, type, config, family: 'legacy', createdBy: req.token });
  return { success: true, processor: processorJson(processor) };
}

function update(req: Req, ctx: Ctx): Json {
  const p = loadProcessor(ctx, req, req.params.id);
  const body = objectBody(req.body);
  const n = processorName(body, false);
  const supplied = optObject(body, 'config');
  if (n === undefined && supplied === undefined) throw badRequest('supply name or config to update a processor');
  const config = supplied ? acceptConfig(ctx, supplied, p.type as never) : undefined;
  const { processor, draft } = updateProcessor(ctx, p, n, config);
  return { success: true, processor: { ...processorJson(processor), draftVersion: versionJson(ctx, draft, processor.type as never, req.layout) } };
}

function publish(req: Req, ctx: Ctx): Json {
  const p = loadProcessor(ctx, req, req.params.id);
  const body = objectBody(req.body);
  const releaseType = releaseTypeOf(body);
  const description = optString(body, 'description');
  const supplied = optObject(body, 'config');
  const v = publishVersion(ctx, p, releaseType, description, supplied ? acceptConfig(ctx, supplied, p.type as never) : undefined, req.token);
  return { success: true, processorVersion: versionJson(ctx, v, p.type as never, req.layout) };
}

const PROCESSOR_SORTS = { createdAt: 'created_at', updatedAt: 'updated_at', name: 'name' };

function list(req: Req, ctx: Ctx): Json {
  const page = pageParams(req, ctx.secret, PROCESSOR_SORTS, 'createdAt', 'desc');
  const type = queryEnum(req.query, 'type', ['EXTRACT', 'CLASSIFY', 'SPLITTER'] as const);
  const { rows: items, nextPageToken } = listProcessors(ctx, req.token, type, page);
  // The official SDK's ListProcessorsProcessor: each processor with its versions {id, version}, the draft included.
  const versionsOf = ctx.store.st('SELECT id, version FROM processor_versions WHERE processor_id = ? ORDER BY ord DESC');
  return { success: true, processors: items.map((p) => ({ ...processorJson(p), versions: versionsOf.all(p.id) })), nextPageToken };
}

function listVersionsRoute(req: Req, ctx: Ctx): Json {
  const p = loadProcessor(ctx, req, req.params.id);
  const page = pageParams(req, ctx.secret, VERSION_SORTS, 'version', 'desc');
  const { rows: items, nextPageToken } = listVersions(ctx, p, page);
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
  { method: 'GET', pattern: '/processors/:id/versions', versions: 'both', handler: listVersionsRoute },
  { method: 'GET', pattern: '/processors/:id/versions/:versionId', versions: 'both', handler: getVersion },
];

/**
 * Extractors, classifiers and splitters and their versions: the 2026-02-09 edge of the processor
 * core (../processors.ts). A processor is one object under two routes: created here it gets an
 * `ex_`/`cl_`/`spl_` id (versions `exv_`/`clv_`/`splv_`), created on `/processors` a `dp_` id;
 * either id works on `/processors/{id}` and on the route of its type (docs/sandbox-api.md).
 * Answers follow spec 7 member for member; configs are shown in the 2026-02-09 layout.
 */
import { assertWorkspaceToken } from '../auth.js';
import type { Ctx } from '../context.js';
import type { Json, ProcessorType } from '../core.js';
import { currentFromStored, listAnswer } from '../current.js';
import { badRequest, checkId, objectBody, optObject, optString, type Req } from '../http.js';
import { versionCreatedBy } from '../meta.js';
import { pageParams } from '../paging.js';
import { KINDS, withArticle, type Kind } from '../kinds.js';
import { createProcessor, listProcessors, listVersions, loadOfKind, processorName, publishVersion, releaseTypeOf, updateProcessor } from '../processors.js';
import { acceptCurrentConfig, findVersion } from '../resolve.js';
import type { Route } from '../router.js';
import { entitySummary, versionSummary } from '../runAnswers.js';
import type { ProcessorRow, VersionRow } from '../store.js';

/** `ExtractorVersion` and its kin: the summary's members with `config` after `version`, as spec 7 lists them. */
export function entityVersion(ctx: Ctx, v: VersionRow, kind: Kind): Json {
  return {
    object: `${kind.noun}_version`,
    id: v.id,
    description: v.description,
    version: v.version,
    config: currentFromStored(ctx, JSON.parse(v.config) as Json, kind.type),
    [kind.parentKey]: v.processor_id,
    createdAt: v.created_at,
    createdBy: versionCreatedBy(ctx, v),
  };
}

function entityJson(ctx: Ctx, p: ProcessorRow, draft: VersionRow): Json {
  const kind = KINDS[p.type as ProcessorType];
  return { ...entitySummary(kind, p), draftVersion: entityVersion(ctx, draft, kind) };
}

function draftOf(ctx: Ctx, p: ProcessorRow): VersionRow {
  return ctx.store.byId<VersionRow>('processor_versions', p.draft_version_id) as VersionRow;
}

/** Members of a 2025-04-21 `/processors` body: a 400 that names the 2026-02-09 way. */
function refuseLegacyMembers(body: Json, kind: Kind): void {
  if (Object.hasOwn(body, 'type')) throw badRequest(`type is not a member of ${kind.noun} bodies in 2026-02-09: the route ${kind.route} says the type (${kind.type}); remove it`);
  if (Object.hasOwn(body, 'cloneProcessorId')) throw badRequest(`cloneProcessorId is the 2025-04-21 name; send ${kind.cloneKey}`);
}

function create(kind: Kind) {
  return (req: Req, ctx: Ctx): Json => {
    const body = objectBody(req.body);
    // A token scoped to some processors could not use the one it made: creating needs a workspace-wide one.
    assertWorkspaceToken(req.token, `creating ${withArticle(kind.noun)}`);
    refuseLegacyMembers(body, kind);
    const name = processorName(body, true) as string;
    if (body.generate !== undefined && body.generate !== null) {
      throw badRequest('generate is not emulated by the sandbox (generating a schema from files needs the service\'s model); send config with the schema instead');
    }
    const supplied = optObject(body, 'config');
    const cloneId = optString(body, kind.cloneKey);
    let config: Json;
    if (cloneId !== undefined) {
      const clone = loadOfKind(ctx, req, checkId(cloneId, kind.cloneKey), kind, kind.cloneKey);
      const stored = JSON.parse(draftOf(ctx, clone).config) as Json;
      // With both, the supplied members replace the clone's (a shallow merge in the 2026-02-09 layout).
      config = supplied ? acceptCurrentConfig(ctx, supplied, kind.type, '/config', currentFromStored(ctx, stored, kind.type)) : stored;
    } else config = acceptCurrentConfig(ctx, supplied ?? {}, kind.type);
    const { processor, draft } = createProcessor(ctx, { name, type: kind.type, config, family: 'current', createdBy: req.token });
    return entityJson(ctx, processor, draft);
  };
}

function retrieve(kind: Kind) {
  return (req: Req, ctx: Ctx): Json => {
    const p = loadOfKind(ctx, req, req.params.id, kind);
    return entityJson(ctx, p, draftOf(ctx, p));
  };
}

function update(kind: Kind) {
  return (req: Req, ctx: Ctx): Json => {
    const p = loadOfKind(ctx, req, req.params.id, kind);
    const body = objectBody(req.body);
    // A token scoped to some processors could not use the one it made: creating needs a workspace-wide one.
    assertWorkspaceToken(req.token, `creating ${withArticle(kind.noun)}`);
    refuseLegacyMembers(body, kind);
    const name = processorName(body, false);
    const supplied = optObject(body, 'config');
    if (name === undefined && supplied === undefined) throw badRequest(`supply name or config to update ${withArticle(kind.noun)}`);
    const { processor, draft } = updateProcessor(ctx, p, name, supplied ? acceptCurrentConfig(ctx, supplied, kind.type) : undefined);
    return entityJson(ctx, processor, draft);
  };
}

const ENTITY_SORTS = { createdAt: 'created_at', updatedAt: 'updated_at' };

function list(kind: Kind) {
  return (req: Req, ctx: Ctx): Json => {
    const page = pageParams(req, ctx.secret, ENTITY_SORTS, 'createdAt', 'desc');
    const { rows, nextPageToken } = listProcessors(ctx, req.token, kind.type, page);
    return { ...listAnswer(rows.map((p) => entitySummary(kind, p)), nextPageToken) };
  };
}

/** Newest first with the draft first (spec 1.3); `sortDir=asc` reverses it. Only `sortDir` is taken. */
function listVersionsOf(kind: Kind) {
  return (req: Req, ctx: Ctx): Json => {
    const p = loadOfKind(ctx, req, req.params.id, kind);
    if (req.query.get('sortBy')) throw badRequest(`${kind.noun} version lists take sortDir only (newest first, the draft first)`);
    const page = pageParams(req, ctx.secret, { version: 'ord' }, 'version', 'desc');
    const { rows, nextPageToken } = listVersions(ctx, p, page);
    return { ...listAnswer(rows.map((v) => versionSummary(ctx, kind, v)), nextPageToken) };
  };
}

function createVersion(kind: Kind) {
  return (req: Req, ctx: Ctx): Json => {
    const p = loadOfKind(ctx, req, req.params.id, kind);
    const body = objectBody(req.body);
    const releaseType = releaseTypeOf(body);
    const description = optString(body, 'description');
    const supplied = optObject(body, 'config');
    const v = publishVersion(ctx, p, releaseType, description, supplied ? acceptCurrentConfig(ctx, supplied, kind.type) : undefined, req.token);
    return entityVersion(ctx, v, kind);
  };
}

function retrieveVersion(kind: Kind) {
  return (req: Req, ctx: Ctx): Json => {
    const p = loadOfKind(ctx, req, req.params.id, kind);
    return entityVersion(ctx, findVersion(ctx, p, req.params.versionId, kind.noun), kind);
  };
}

function routesOf(kind: Kind): Route[] {
  const r = kind.route;
  return [
    { method: 'GET', pattern: r, versions: 'current', handler: list(kind) },
    { method: 'POST', pattern: r, versions: 'current', body: 'json', handler: create(kind) },
    { method: 'GET', pattern: `${r}/:id`, versions: 'current', handler: retrieve(kind) },
    { method: 'POST', pattern: `${r}/:id`, versions: 'current', body: 'json', handler: update(kind) },
    { method: 'GET', pattern: `${r}/:id/versions`, versions: 'current', handler: listVersionsOf(kind) },
    { method: 'POST', pattern: `${r}/:id/versions`, versions: 'current', body: 'json', handler: createVersion(kind) },
    { method: 'GET', pattern: `${r}/:id/versions/:versionId`, versions: 'current', handler: retrieveVersion(kind) },
  ];
}

/** 21 operations: 7 per type. */
export const entityRoutes: Route[] = [...routesOf(KINDS.EXTRACT), ...routesOf(KINDS.CLASSIFY), ...routesOf(KINDS.SPLITTER)];

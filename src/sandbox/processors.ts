/**
 * Processors and their versions: the core operations behind both route families. The 2025-04-21
 * `/processors` routes (routes/processors.ts) and the 2026-02-09 `/extractors`, `/classifiers`,
 * `/splitters` routes (routes/entities.ts) parse their request into these calls and render the
 * result in their own shapes: one object under two routes (spec 1.4, INFERRED; docs/sandbox-api.md).
 *
 * Configs reach this module already accepted (the hub layout with defaults, validated, plus the
 * 2026-only members under current.ts `EXTRAS`); each edge owns the parsing of its own layout.
 */
import type { TokenRecord } from './auth.js';
import { setMeta } from './meta.js';
import type { Ctx } from './context.js';
import type { Json, ProcessorType } from './core.js';
import { legacyConfig } from './current.js';
import { badRequest, HttpError, notFound, optString, reqString, type Req } from './http.js';
import { nowIso, type IdKind } from './ids.js';
import { KINDS, typeOfPrefix, withArticle, type Kind } from './kinds.js';
import { pageOf, type PageParams } from './paging.js';
import { assertValidConfig, draftConfig, loadProcessor } from './resolve.js';
import type { ProcessorRow, VersionRow, Where } from './store.js';

/** The draft sorts before every published version in version lists (newest first). */
export const DRAFT_ORD = 1e15;
const MAX_NAME = 256;

/** `name` of a create (required) or update body: non-empty, at most 256 characters. */
export function processorName(o: Json, required: boolean): string | undefined {
  const n = required ? reqString(o, 'name') : optString(o, 'name');
  if (n !== undefined && n.trim() === '') throw badRequest('name must be a non-empty string');
  if (n !== undefined && n.length > MAX_NAME) throw badRequest(`name must have at most ${MAX_NAME} characters`);
  return n;
}

export function releaseTypeOf(body: Json): 'major' | 'minor' {
  const releaseType = body.releaseType;
  if (releaseType === undefined || releaseType === null) throw badRequest('releaseType is required: "major" or "minor"');
  if (releaseType !== 'major' && releaseType !== 'minor') throw badRequest('releaseType must be "major" or "minor"');
  return releaseType;
}

/** The id kind of a processor's versions: the family of the processor's own id. */
function versionKindOf(p: Pick<ProcessorRow, 'id' | 'type'>): IdKind {
  return typeOfPrefix(p.id) ? KINDS[p.type as ProcessorType].versionId : 'version';
}

/** `createdBy`: the token of the request, recorded for API 2026-02-09's `createdBy` of its versions (meta.ts). */
export function createProcessor(ctx: Ctx, input: { name: string; type: ProcessorType; config: Json; family: 'legacy' | 'current'; createdBy: TokenRecord }): { processor: ProcessorRow; draft: VersionRow } {
  const now = nowIso();
  const id = ctx.ids(input.family === 'current' ? KINDS[input.type].id : 'processor');
  const processor: ProcessorRow = { seq: 0, id, name: input.name, type: input.type, draft_version_id: ctx.ids(versionKindOf({ id, type: input.type })), created_at: now, updated_at: now };
  const draft: VersionRow = {
    seq: 0, id: processor.draft_version_id, processor_id: id, version: 'draft', ord: DRAFT_ORD, description: null, config: JSON.stringify(input.config), created_at: now, updated_at: now,
  };
  ctx.store.tx(() => {
    ctx.store.insertProcessor(processor, draft);
    setMeta(ctx, id, { createdBy: input.createdBy });
  });
  ctx.events.emit({ type: 'processor.created', processorId: id });
  return { processor, draft };
}

/** A supplied config replaces the draft's config (members left out take their defaults). */
export function updateProcessor(ctx: Ctx, p: ProcessorRow, name: string | undefined, config: Json | undefined): { processor: ProcessorRow; draft: VersionRow } {
  ctx.store.updateProcessor(p.id, p.draft_version_id, name, config ? JSON.stringify(config) : undefined, nowIso());
  const processor = ctx.store.byId<ProcessorRow>('processors', p.id) as ProcessorRow;
  const draft = ctx.store.byId<VersionRow>('processor_versions', p.draft_version_id) as VersionRow;
  ctx.events.emit({ type: 'processor.updated', processorId: p.id });
  return { processor, draft };
}

/** A new published version: the supplied config, or the draft's (validated again). */
export function publishVersion(ctx: Ctx, p: ProcessorRow, releaseType: 'major' | 'minor', description: string | undefined, config: Json | undefined, createdBy: TokenRecord): VersionRow {
  let cfg = config;
  if (!cfg) {
    cfg = draftConfig(ctx, p);
    assertValidConfig(ctx, legacyConfig(cfg), '/draftVersion/config');
  }
  // Read-then-insert with no await in between: two publishes cannot take the same number.
  const latest = ctx.store.latestPublished(p.id);
  const [major, minor] = latest ? latest.version.split('.').map(Number) : [0, 0];
  const next = releaseType === 'major' ? [major + 1, 0] : [major, minor + 1];
  const now = nowIso();
  const v: VersionRow = {
    seq: 0, id: ctx.ids(versionKindOf(p)), processor_id: p.id, version: `${next[0]}.${next[1]}`, ord: next[0] * 1e6 + next[1],
    description: description ?? null, config: JSON.stringify(cfg), created_at: now, updated_at: now,
  };
  ctx.store.tx(() => {
    ctx.store.publish(v);
    setMeta(ctx, v.id, { createdBy });
  });
  ctx.events.emit({ type: 'processor.version.published', processorId: p.id, versionId: v.id });
  return v;
}

/** A page of the processors the token may use, of one type or all. */
export function listProcessors(ctx: Ctx, token: TokenRecord, type: ProcessorType | undefined, page: PageParams): { rows: ProcessorRow[]; nextPageToken: string | null } {
  const where: Where[] = [];
  if (type) where.push(['type = ?', type]);
  if (token.processors !== '*') where.push(['id IN (SELECT value FROM json_each(?))', JSON.stringify([...token.processors])]);
  const rows = ctx.store.list<ProcessorRow>('processors', { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 });
  return pageOf(rows, page, (r) => r[page.sortCol as keyof ProcessorRow]);
}

/** Version list sorts: by number (the draft first when newest first) or by creation. */
export const VERSION_SORTS = { version: 'ord', createdAt: 'created_at' };

export function listVersions(ctx: Ctx, p: ProcessorRow, page: PageParams): { rows: VersionRow[]; nextPageToken: string | null } {
  const rows = ctx.store.list<VersionRow>('processor_versions', {
    where: [['processor_id = ?', p.id]], sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1,
  });
  return pageOf(rows, page, (r) => (page.sortCol === 'ord' ? r.ord : r.created_at));
}

/**
 * A processor addressed on the route of its kind (`/extractors/{id}`): any id of the object
 * (`ex_` or a legacy `dp_`) works; a processor of another type is a 404 naming the right route.
 */
export function loadOfKind(ctx: Ctx, req: Req, id: string, kind: Kind, what: string = kind.noun): ProcessorRow {
  const prefixType = typeOfPrefix(id);
  let p: ProcessorRow;
  try {
    p = loadProcessor(ctx, req, id, what);
  } catch (e) {
    // An unknown id whose prefix names another kind: say where such ids live.
    if (prefixType && prefixType !== kind.type && e instanceof HttpError && e.status === 404) {
      const other = KINDS[prefixType];
      throw notFound(`${what} ${id} not found: ${id.split('_')[0]}_ ids are ${other.noun}s (${other.route}/${id})`);
    }
    throw e;
  }
  if (p.type !== kind.type) {
    const other = KINDS[p.type as ProcessorType];
    throw notFound(`${what} ${id} not found: ${id} is ${withArticle(other.noun)}; use ${other.route}/${id}`);
  }
  return p;
}

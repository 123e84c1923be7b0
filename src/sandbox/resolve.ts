import { assertProcessorAccess } from './auth.js';
import type { Ctx } from './context.js';
import { HUB, PROCESSOR_TYPES, type Json, type ProcessorType } from './core.js';
import { legacyConfig, storedFromCurrent } from './current.js';
import { badRequest, checkId, clip, notFound, type Req } from './http.js';
import type { ProcessorRow, VersionRow } from './store.js';

/** 403 before 404: a scoped token learns nothing about processors it may not use. */
export function loadProcessor(ctx: Ctx, req: Req, id: string, what = 'processor'): ProcessorRow {
  checkId(id, what === 'processor' ? 'processor id' : what);
  assertProcessorAccess(req.token, id);
  const p = ctx.store.byId<ProcessorRow>('processors', id);
  if (!p) throw notFound(`${what} ${id} not found`);
  return p;
}

export function processorType(v: unknown, key = 'type'): ProcessorType {
  if (v === undefined || v === null) throw badRequest(`${key} is required`);
  if (typeof v !== 'string' || !(PROCESSOR_TYPES as readonly string[]).includes(v)) throw badRequest(`${key} must be one of ${PROCESSOR_TYPES.join(', ')}`);
  return v as ProcessorType;
}

/**
 * A version reference: "latest", "draft", or a published number. "1" and "1.0.0" mean "1.0"
 * (spec 2.4 speaks of three parts, the service shows two). Returns undefined when malformed.
 */
export function normalizeVersionLabel(v: string): string | undefined {
  if (v === 'latest' || v === 'draft') return v;
  const m = /^(\d{1,6})(?:\.(\d{1,6}))?(?:\.0+)?$/.exec(v);
  return m ? `${Number(m[1])}.${Number(m[2] ?? 0)}` : undefined;
}

/**
 * latest = the newest published version, or the draft when none is published (4.6). `noun`: what
 * 404s call the processor: `processor` on the 2025-04-21 routes, the kind (`extractor`...) on the
 * 2026-02-09 ones.
 */
export function resolveVersion(ctx: Ctx, p: ProcessorRow, ref: string | undefined, what = 'version', noun = 'processor'): VersionRow {
  const label = normalizeVersionLabel(ref ?? 'latest');
  if (!label) throw badRequest(`${what} must be "latest", "draft" or a published version number such as "1.0" (got "${clip(String(ref))}")`);
  let v: VersionRow | undefined;
  if (label === 'latest') v = ctx.store.latestPublished(p.id) ?? ctx.store.byId<VersionRow>('processor_versions', p.draft_version_id);
  else v = ctx.store.versionByLabel(p.id, label);
  if (!v) throw notFound(`version ${label} of ${noun} ${p.id} not found`);
  return v;
}

/**
 * The version of GET /processors/:id/versions/:versionId (and `/extractors/...`): an id, or
 * (sandbox extension) a label. `noun` as for resolveVersion.
 */
export function findVersion(ctx: Ctx, p: ProcessorRow, ref: string, noun = 'processor'): VersionRow {
  if (normalizeVersionLabel(ref)) return resolveVersion(ctx, p, ref, 'version', noun);
  checkId(ref, 'version id');
  const v = ctx.store.byId<VersionRow>('processor_versions', ref);
  if (!v || v.processor_id !== p.id) throw notFound(`version ${ref} of ${noun} ${p.id} not found`);
  return v;
}

export function draftConfig(ctx: Ctx, p: ProcessorRow): Json {
  const v = ctx.store.byId<VersionRow>('processor_versions', p.draft_version_id);
  return v ? (JSON.parse(v.config) as Json) : { type: p.type };
}

/**
 * Defaults for unsupplied config members (4.8). service-facts.md publishes only that the base
 * processor and its version default to the latest available; the version numbers below are
 * the sandbox's. The required list of each type starts empty.
 */
const BASE_DEFAULTS: Record<ProcessorType, string> = {
  EXTRACT: 'extraction_performance',
  CLASSIFY: 'classification_performance',
  SPLITTER: 'splitting_performance',
};
export const BASE_VERSIONS: Record<string, string> = {
  extraction_performance: '4.4.0',
  extraction_light: '1.2.0',
  classification_performance: '3.1.0',
  classification_light: '1.1.0',
  splitting_performance: '2.2.0',
  splitting_light: '1.0.0',
};

export function withDefaults(cfg: Json, type: ProcessorType): Json {
  const out: Json = { ...cfg, type };
  out.baseProcessor ??= BASE_DEFAULTS[type];
  if (out.baseVersion === undefined && typeof out.baseProcessor === 'string' && BASE_VERSIONS[out.baseProcessor]) out.baseVersion = BASE_VERSIONS[out.baseProcessor];
  if (type === 'EXTRACT' && out.schema === undefined && out.fields === undefined) out.schema = { type: 'object', properties: {} };
  if (type === 'CLASSIFY') out.classifications ??= [];
  if (type === 'SPLITTER') out.splitClassifications ??= [];
  return out;
}

/**
 * A config from a request body, in the caller's layout or the new one: migrated to
 * 2025-04-21, defaults filled in, validated. Pointers in messages point into the request body.
 */
export function acceptConfig(ctx: Ctx, raw: Json, type: ProcessorType, at = '/config'): Json {
  if (raw.type !== undefined && raw.type !== type) throw badRequest(`invalid config at ${at}/type: "${String(raw.type)}" does not match the processor type ${type}`);
  const hub = withDefaults(ctx.core.toHub(raw, type), type);
  assertValidConfig(ctx, hub, at);
  return hub;
}

/**
 * A config from a 2026-02-09 request (`/extractors`... bodies): no `type`, the new names. Stored
 * as the hub layout with defaults plus its 2026-only members (current.ts); validated as the hub.
 * `base`: the stored config (2026-02-09 layout) whose top-level members `raw`'s replace.
 */
export function acceptCurrentConfig(ctx: Ctx, raw: Json, type: ProcessorType, at = '/config', base?: Json): Json {
  const stored = withDefaults(storedFromCurrent(ctx, raw, type, at, base), type);
  assertValidConfig(ctx, legacyConfig(stored), at);
  return stored;
}

export function assertValidConfig(ctx: Ctx, hub: Json, at: string): void {
  const issues = ctx.core.validateConfig(hub);
  if (!issues.length) return;
  const shown = issues.slice(0, 5).map((i) => `${at}${i.pointer}: ${i.message}`);
  const more = issues.length > 5 ? ` (and ${issues.length - 5} more)` : '';
  throw badRequest(`invalid config for ${String(hub.type)} (layout ${HUB}): ${shown.join('; ')}${more}`);
}

/**
 * What API 2026-02-09 shows of a resource that its older rows do not carry: who created it
 * (`createdBy`), a workflow version's `name`, a webhook endpoint's `name`, `status` and
 * `advancedOptions`, an ended evaluation's spec 4.2 `metrics` (`extra`). One row per resource id, beside the resource's own table, so the
 * 2025-04-21 tables and their answers stay as they were.
 */
import type { TokenRecord } from './auth.js';
import type { Ctx } from './context.js';
import type { Json } from './core.js';
import type { MetaRow } from './store.js';

export function metaOf(ctx: Ctx, id: string): MetaRow | undefined {
  return ctx.store.st('SELECT * FROM resource_meta WHERE id = ?').get(id) as MetaRow | undefined;
}

/** Sets the given members (others kept); `createdBy` only when the row is new. */
export function setMeta(ctx: Ctx, id: string, m: { createdBy?: TokenRecord; name?: string | null; extra?: Json }): void {
  const old = metaOf(ctx, id);
  const name = m.name !== undefined ? m.name : (old?.name ?? null);
  const extra = m.extra !== undefined ? JSON.stringify(m.extra) : (old?.extra ?? null);
  ctx.store
    .st('INSERT INTO resource_meta (id, created_by, name, extra) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name, extra = excluded.extra')
    .run(id, m.createdBy?.name ?? old?.created_by ?? null, name, extra);
}

export function deleteMeta(ctx: Ctx, id: string): void {
  ctx.store.st('DELETE FROM resource_meta WHERE id = ?').run(id);
}

/** `CreatedBy | null` of spec 7: the token's name for resources created through the API, null for those of the sandbox's files. */
export function createdByOf(meta: MetaRow | undefined): { type: 'api_key'; name: string } | null {
  return meta?.created_by ? { type: 'api_key', name: meta.created_by } : null;
}

/**
 * `createdBy` of a processor version (an extractor's, classifier's or splitter's): the token that
 * published it, else (a draft, made with its processor) the token that created the processor;
 * null for rows stored before the sandbox recorded it.
 */
export function versionCreatedBy(ctx: Ctx, v: { id: string; processor_id: string }): { type: 'api_key'; name: string } | null {
  return createdByOf(metaOf(ctx, v.id)) ?? createdByOf(metaOf(ctx, v.processor_id));
}

export function extraOf(meta: MetaRow | undefined): Json {
  return meta?.extra ? (JSON.parse(meta.extra) as Json) : {};
}

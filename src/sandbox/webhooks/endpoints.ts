/** Webhook endpoints in the store: from `--webhooks FILE` (source config) or the extension endpoint (source api). */
import { createHash, randomBytes } from 'node:crypto';
import type { Ctx } from '../context.js';
import type { Json, Layout } from '../core.js';
import { nowIso } from '../ids.js';
import type { EndpointDefinition } from '../settings.js';
import { deleteMeta } from '../meta.js';
import type { EndpointRow, SubscriptionRow } from '../store.js';
import { CURRENT_VERSION, familyOf, layoutOf, type ApiVersion, type Family } from '../versioning.js';

export interface Endpoint {
  id: string;
  url: string;
  apiVersion: ApiVersion;
  layout: Layout;
  /** `current`: deliveries carry the 2026-02-09 event names and payloads (webhooks/current.ts). */
  family: Family;
  /** False for a 2026-02-09 endpoint whose status is `disabled`: nothing is delivered to it. */
  enabled: boolean;
  secret: string;
  events: ReadonlySet<string>;
  /** `advancedOptions.headers` of a 2026-02-09 endpoint: sent with every delivery (signature headers win). */
  headers: Record<string, string>;
  /** Resource-scoped subscriptions (2026-02-09): resource id -> its enabled events. */
  subscriptions: ReadonlyMap<string, ReadonlySet<string>>;
}

export function toEndpoint(r: EndpointRow & { extra?: string | null }, subscriptions: ReadonlyMap<string, ReadonlySet<string>> = new Map()): Endpoint {
  const apiVersion = r.api_version as ApiVersion;
  const extra = r.extra ? (JSON.parse(r.extra) as { status?: string; advancedOptions?: { headers?: Record<string, string> } | null }) : {};
  return {
    id: r.id, url: r.url, apiVersion, layout: layoutOf(apiVersion), family: familyOf(apiVersion), enabled: extra.status !== 'disabled',
    secret: r.secret, events: new Set(JSON.parse(r.events) as string[]), headers: extra.advancedOptions?.headers ?? {}, subscriptions,
  };
}

export function allEndpoints(ctx: Ctx): Endpoint[] {
  const subs = new Map<string, Map<string, Set<string>>>();
  for (const s of ctx.store.st('SELECT endpoint_id, resource_id, events FROM webhook_subscriptions').all() as Array<Pick<SubscriptionRow, 'endpoint_id' | 'resource_id' | 'events'>>) {
    let m = subs.get(s.endpoint_id);
    if (!m) subs.set(s.endpoint_id, (m = new Map()));
    m.set(s.resource_id, new Set(JSON.parse(s.events) as string[]));
  }
  const rows = ctx.store.st('SELECT e.*, m.extra AS extra FROM webhook_endpoints e LEFT JOIN resource_meta m ON m.id = e.id ORDER BY e.seq').all() as Array<EndpointRow & { extra: string | null }>;
  return rows.map((r) => toEndpoint(r, subs.get(r.id)));
}

/** Never carries the secret: it is shown once, when the sandbox generates it. */
export function endpointJson(r: EndpointRow): Json {
  return { object: 'webhook_endpoint', id: r.id, url: r.url, apiVersion: r.api_version, events: JSON.parse(r.events) as unknown, source: r.source, createdAt: r.created_at, updatedAt: r.updated_at };
}

export function generateSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

export function insertEndpoint(ctx: Ctx, id: string, def: EndpointDefinition, secret: string, apiVersion: ApiVersion, source: 'config' | 'api'): EndpointRow {
  const now = nowIso();
  ctx.store
    .st('INSERT INTO webhook_endpoints (id, url, api_version, secret, events, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(id, def.url, apiVersion, secret, JSON.stringify(def.events), source, now, now);
  return ctx.store.byId<EndpointRow>('webhook_endpoints', id) as EndpointRow;
}

/** Pending deliveries of a removed endpoint end as CANCELLED. */
function cancelDeliveries(ctx: Ctx, endpointId: string, now: string): void {
  ctx.store.st("UPDATE webhook_deliveries SET status = 'CANCELLED', next_attempt_at = NULL, updated_at = ? WHERE endpoint_id = ? AND status = 'PENDING'").run(now, endpointId);
}

export function deleteEndpoint(ctx: Ctx, id: string): boolean {
  return ctx.store.tx(() => {
    const gone = ctx.store.deleteById('webhook_endpoints', id);
    if (gone) {
      cancelDeliveries(ctx, id, nowIso());
      ctx.store.st('DELETE FROM webhook_subscriptions WHERE endpoint_id = ?').run(id);
      deleteMeta(ctx, id);
    }
    return gone;
  });
}

/** A stable id for a config endpoint without one, so its deliveries survive restarts. */
function configId(def: EndpointDefinition, apiVersion: string): string {
  return `whe_${createHash('sha256').update(`${def.url}\u0000${apiVersion}`).digest('hex').slice(0, 20)}`;
}

/**
 * The config is the truth for config endpoints: at every start they are re-registered (url,
 * secret, version, events may have changed) and those no longer configured are removed.
 */
export function syncConfigEndpoints(ctx: Ctx, defs: EndpointDefinition[]): void {
  ctx.store.tx(() => {
    const now = nowIso();
    const keep = new Set<string>();
    for (const def of defs) {
      const apiVersion = def.apiVersion ?? CURRENT_VERSION;
      const id = def.id ?? configId(def, apiVersion);
      keep.add(id);
      const existing = ctx.store.byId<EndpointRow>('webhook_endpoints', id);
      if (existing) {
        ctx.store
          .st("UPDATE webhook_endpoints SET url = ?, api_version = ?, secret = ?, events = ?, source = 'config', updated_at = ? WHERE id = ?")
          .run(def.url, apiVersion, def.secret as string, JSON.stringify(def.events), now, id);
      } else insertEndpoint(ctx, id, def, def.secret as string, apiVersion, 'config');
    }
    const stale = ctx.store.st("SELECT id FROM webhook_endpoints WHERE source = 'config'").all() as Array<{ id: string }>;
    for (const { id } of stale) if (!keep.has(id)) deleteEndpoint(ctx, id);
  });
}

/**
 * Webhook endpoints and resource-scoped subscriptions for API 2026-02-09 (api-2026-02-09.md
 * sections 2 and 6). Endpoints live in the store the 2025-04-21 extension routes use
 * (webhooks/endpoints.ts); what only 2026-02-09 has (`name`, `status`, `advancedOptions`,
 * `createdBy`) is kept beside them (meta.ts). Deliveries: webhooks/dispatcher.ts and current.ts.
 *
 *   GET/POST /webhook_endpoints, GET/POST/DELETE /webhook_endpoints/{id}
 *   GET/POST /webhook_subscriptions, GET/POST/DELETE /webhook_subscriptions/{id}
 */
import { z } from 'zod';
import { assertWorkspaceToken } from '../auth.js';
import type { Ctx } from '../context.js';
import type { Json } from '../core.js';
import { deletedAnswer, listAnswer } from '../current.js';
import { isLoopbackHost } from '../files.js';
import { badRequest, checkId, notFound, objectBody, queryEnum, queryId, type Req } from '../http.js';
import { nowIso } from '../ids.js';
import { withArticle } from '../kinds.js';
import { createdByOf, extraOf, metaOf, setMeta } from '../meta.js';
import { pageOf, pageParams } from '../paging.js';
import type { Route } from '../router.js';
import type { EndpointRow, SubscriptionRow, Where } from '../store.js';
import { httpUrl } from '../settings.js';
import { LATEST_VERSION } from '../versioning.js';
import { deleteEndpoint, generateSecret, insertEndpoint } from '../webhooks/endpoints.js';
import { ENDPOINT_EVENT_TYPES, EVENTS_OF_RESOURCE, SUBSCRIPTION_EVENT_TYPES, SUBSCRIPTION_RESOURCE_TYPES, type ResourceType } from '../webhooks/current.js';
import { WEBHOOK_EVENT_TYPES } from '../../api/signing.js';
import { toPointer } from '../../util/json.js';

const STATUSES = ['enabled', 'disabled'] as const;
const ENDPOINT_EVENTS: ReadonlySet<string> = new Set(ENDPOINT_EVENT_TYPES);
const SUBSCRIPTION_EVENTS: ReadonlySet<string> = new Set(SUBSCRIPTION_EVENT_TYPES);
const LEGACY_EVENTS: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

const advancedOptionsSchema = z
  .strictObject({
    headers: z.record(z.string(), z.string()).optional(),
    payload: z.strictObject({ format: z.enum(['json', 'url']), urlThresholdBytes: z.number().int().min(0).optional() }).optional(),
  })
  .nullable();

const endpointFields = {
  url: httpUrl,
  name: z.string().trim().min(1, 'must be a non-empty string').max(256, 'must have at most 256 characters'),
  status: z.enum(STATUSES),
  enabledEvents: z.array(z.string()),
  apiVersion: z.string(),
  advancedOptions: advancedOptionsSchema,
};
const createSchema = z.strictObject({ ...endpointFields, status: endpointFields.status.optional(), advancedOptions: advancedOptionsSchema.optional() });
const updateSchema = z.strictObject(endpointFields).partial();

function parse<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const i = r.error.issues[0];
  const message = i.code === 'unrecognized_keys' ? `unknown member${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `"${k}"`).join(', ')}` : i.message;
  throw badRequest(`invalid ${what} at ${toPointer(i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))) || '/'}: ${message}`);
}

/** Event names against the enum of spec 7; the message says where a known name of the wrong kind belongs. */
function checkEvents(events: string[], allowed: ReadonlySet<string>, at: string, what: string): string[] {
  events.forEach((e, i) => {
    if (allowed.has(e)) return;
    const where = `${at}/${i}`;
    if (allowed === ENDPOINT_EVENTS && SUBSCRIPTION_EVENTS.has(e)) throw badRequest(`${where}: ${e} is a subscription event: subscribe the endpoint to a resource with POST /webhook_subscriptions`);
    if (LEGACY_EVENTS.has(e)) throw badRequest(`${where}: ${e} is an event name of API 2025-04-21; 2026-02-09 names it by resource (extract_run.processed, extractor.created...)`);
    throw badRequest(`${where}: unknown ${what} event type "${e}"; one of ${[...allowed].join(', ')}`);
  });
  return [...new Set(events)];
}

// ---------------------------------------------------------------------------------------------
// Endpoints

function endpointCurrent(ctx: Ctx, r: EndpointRow, signingSecret?: string): Json {
  const meta = metaOf(ctx, r.id);
  const extra = extraOf(meta);
  return {
    object: 'webhook_endpoint', id: r.id, url: r.url, name: meta?.name ?? r.url, status: extra.status ?? 'enabled',
    enabledEvents: JSON.parse(r.events) as unknown, apiVersion: r.api_version, advancedOptions: extra.advancedOptions ?? null,
    ...(signingSecret === undefined ? {} : { signingSecret }), createdAt: r.created_at, createdBy: createdByOf(meta),
  };
}

function checkUrl(url: string): void {
  const host = new URL(url).hostname;
  if (!isLoopbackHost(host)) throw badRequest(`url: the sandbox sends webhooks only to loopback addresses (127.0.0.1, ::1, localhost), not "${host}"; other URLs can be configured with --webhooks FILE`);
}

function checkAdvanced(o: z.infer<typeof advancedOptionsSchema> | undefined): void {
  if (o?.payload?.format === 'url') throw badRequest('advancedOptions.payload.format "url" (payloads as signed data URLs) is not emulated by the sandbox; use "json"');
}

function createEndpoint(req: Req, ctx: Ctx): Json {
  assertWorkspaceToken(req.token, 'registering a webhook endpoint');
  const b = parse(createSchema, objectBody(req.body), 'webhook endpoint');
  if (b.apiVersion !== LATEST_VERSION) {
    throw badRequest(`apiVersion must be "${LATEST_VERSION}" here (got "${b.apiVersion}"); endpoints of older versions, with their event names, are created through POST /webhook_endpoints with API version 2025-04-21`);
  }
  checkUrl(b.url);
  checkAdvanced(b.advancedOptions);
  const events = checkEvents(b.enabledEvents, ENDPOINT_EVENTS, '/enabledEvents', 'endpoint');
  const id = ctx.ids('webhookEndpoint');
  const secret = generateSecret();
  const row = ctx.store.tx(() => {
    const r = insertEndpoint(ctx, id, { url: b.url, events }, secret, LATEST_VERSION, 'api');
    setMeta(ctx, id, { createdBy: req.token, name: b.name, extra: { status: b.status ?? 'enabled', advancedOptions: b.advancedOptions ?? null } });
    return r;
  });
  ctx.webhooks.reload();
  return endpointCurrent(ctx, row, secret);
}

function loadEndpoint(req: Req, ctx: Ctx, id = req.params.id, what = 'webhook endpoint id'): EndpointRow {
  assertWorkspaceToken(req.token, 'webhook endpoints');
  checkId(id, what);
  const row = ctx.store.byId<EndpointRow>('webhook_endpoints', id);
  if (!row) throw notFound(`webhook endpoint ${id} not found${id.startsWith('whe_') ? '' : ' (webhook endpoint ids start with whe_)'}`);
  return row;
}

function getEndpoint(req: Req, ctx: Ctx): Json {
  return endpointCurrent(ctx, loadEndpoint(req, ctx));
}

function updateEndpoint(req: Req, ctx: Ctx): Json {
  const row = loadEndpoint(req, ctx);
  const b = parse(updateSchema, objectBody(req.body), 'webhook endpoint update');
  if (b.apiVersion !== undefined && b.apiVersion !== row.api_version) {
    throw badRequest(`apiVersion cannot change after creation (this endpoint is ${row.api_version}); create a new endpoint for API version ${b.apiVersion}`);
  }
  if (b.url !== undefined) checkUrl(b.url);
  checkAdvanced(b.advancedOptions);
  // An endpoint of an older version keeps that version's event names (routes/webhooks.ts).
  const events = b.enabledEvents && (row.api_version === LATEST_VERSION ? checkEvents(b.enabledEvents, ENDPOINT_EVENTS, '/enabledEvents', 'endpoint') : checkEvents(b.enabledEvents, LEGACY_EVENTS, '/enabledEvents', `${row.api_version} endpoint`));
  const old = extraOf(metaOf(ctx, row.id));
  ctx.store.tx(() => {
    ctx.store.st('UPDATE webhook_endpoints SET url = coalesce(?, url), events = coalesce(?, events), updated_at = ? WHERE id = ?').run(b.url ?? null, events ? JSON.stringify(events) : null, nowIso(), row.id);
    const extra = { status: b.status ?? old.status ?? 'enabled', advancedOptions: b.advancedOptions !== undefined ? b.advancedOptions : (old.advancedOptions ?? null) };
    setMeta(ctx, row.id, { ...(b.name === undefined ? {} : { name: b.name }), extra });
  });
  ctx.webhooks.reload();
  return endpointCurrent(ctx, loadEndpoint(req, ctx));
}

function removeEndpoint(req: Req, ctx: Ctx): Json {
  const row = loadEndpoint(req, ctx);
  deleteEndpoint(ctx, row.id);
  ctx.webhooks.reload();
  return deletedAnswer(row.id);
}

function listEndpoints(req: Req, ctx: Ctx): Json {
  assertWorkspaceToken(req.token, 'webhook endpoints');
  if (req.query.has('sortBy')) throw badRequest('sortBy is not accepted on webhook endpoint lists: they are ordered by creation; use sortDir');
  const page = pageParams(req, ctx.secret, { createdAt: 'created_at' }, 'createdAt', 'desc');
  const where: Where[] = [];
  const status = queryEnum(req.query, 'status', STATUSES);
  if (status) where.push(["coalesce((SELECT json_extract(m.extra, '$.status') FROM resource_meta m WHERE m.id = webhook_endpoints.id), 'enabled') = ?", status]);
  const rows = ctx.store.list<EndpointRow>('webhook_endpoints', { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 });
  const { rows: items, nextPageToken } = pageOf(rows, page, (r) => r.created_at);
  return { ...listAnswer(items.map((r) => endpointCurrent(ctx, r)), nextPageToken) };
}

// ---------------------------------------------------------------------------------------------
// Subscriptions

const subscriptionSchema = z.strictObject({
  webhookEndpointId: z.string().min(1, 'is required'),
  resourceType: z.enum(SUBSCRIPTION_RESOURCE_TYPES),
  resourceId: z.string().min(1, 'is required'),
  enabledEvents: z.array(z.string()).min(1, 'list at least one event'),
});
const subscriptionUpdateSchema = z.strictObject({ enabledEvents: subscriptionSchema.shape.enabledEvents });

function subscriptionCurrent(s: SubscriptionRow): Json {
  return { object: 'webhook_subscription', id: s.id, webhookEndpointId: s.endpoint_id, resourceType: s.resource_type, resourceId: s.resource_id, enabledEvents: JSON.parse(s.events) as unknown, createdAt: s.created_at };
}

const PROCESSOR_TYPE: Record<Exclude<ResourceType, 'workflow'>, string> = { extractor: 'EXTRACT', classifier: 'CLASSIFY', splitter: 'SPLITTER' };

function checkResource(ctx: Ctx, type: ResourceType, id: string): void {
  checkId(id, 'resourceId');
  if (type === 'workflow') {
    if (!ctx.store.byId('workflows', id)) throw notFound(`/resourceId: workflow ${id} not found`);
    return;
  }
  const p = ctx.store.st('SELECT type FROM processors WHERE id = ?').get(id) as { type: string } | undefined;
  if (!p) throw notFound(`/resourceId: ${type} ${id} not found`);
  if (p.type !== PROCESSOR_TYPE[type]) {
    const actual = Object.entries(PROCESSOR_TYPE).find(([, t]) => t === p.type)?.[0] ?? p.type;
    throw badRequest(`/resourceId: ${id} is ${withArticle(actual)}, not ${withArticle(type)}; use resourceType "${actual}"`);
  }
}

function checkSubscriptionEvents(type: ResourceType, events: string[]): string[] {
  const out = checkEvents(events, SUBSCRIPTION_EVENTS, '/enabledEvents', 'subscription');
  events.forEach((e, i) => {
    if (!EVENTS_OF_RESOURCE[type].includes(e)) throw badRequest(`/enabledEvents/${i}: ${e} does not concern ${withArticle(type)}; ${withArticle(type)} subscription takes ${EVENTS_OF_RESOURCE[type].join(', ')}`);
  });
  return out;
}

/** An existing endpoint+resource pair is updated (its events replaced), not duplicated (spec 6). */
function createSubscription(req: Req, ctx: Ctx): Json {
  assertWorkspaceToken(req.token, 'webhook subscriptions');
  const b = parse(subscriptionSchema, objectBody(req.body), 'webhook subscription');
  const ep = loadEndpoint(req, ctx, b.webhookEndpointId, 'webhookEndpointId');
  if (ep.api_version !== LATEST_VERSION) throw badRequest(`/webhookEndpointId: endpoint ${ep.id} is of API version ${ep.api_version}; subscriptions need an endpoint of ${LATEST_VERSION}`);
  checkResource(ctx, b.resourceType, b.resourceId);
  const events = JSON.stringify(checkSubscriptionEvents(b.resourceType, b.enabledEvents));
  const now = nowIso();
  const existing = ctx.store.st('SELECT * FROM webhook_subscriptions WHERE endpoint_id = ? AND resource_id = ?').get(ep.id, b.resourceId) as SubscriptionRow | undefined;
  if (existing) ctx.store.st('UPDATE webhook_subscriptions SET resource_type = ?, events = ?, updated_at = ? WHERE id = ?').run(b.resourceType, events, now, existing.id);
  else {
    ctx.store
      .st('INSERT INTO webhook_subscriptions (id, endpoint_id, resource_type, resource_id, events, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(ctx.ids('webhookSubscription'), ep.id, b.resourceType, b.resourceId, events, now, now);
  }
  ctx.webhooks.reload();
  return subscriptionCurrent(ctx.store.st('SELECT * FROM webhook_subscriptions WHERE endpoint_id = ? AND resource_id = ?').get(ep.id, b.resourceId) as SubscriptionRow);
}

function loadSubscription(req: Req, ctx: Ctx): SubscriptionRow {
  assertWorkspaceToken(req.token, 'webhook subscriptions');
  const id = checkId(req.params.id, 'webhook subscription id');
  const row = ctx.store.byId<SubscriptionRow>('webhook_subscriptions', id);
  if (!row) throw notFound(`webhook subscription ${id} not found${id.startsWith('whes_') ? '' : ' (webhook subscription ids start with whes_)'}`);
  return row;
}

function getSubscription(req: Req, ctx: Ctx): Json {
  return subscriptionCurrent(loadSubscription(req, ctx));
}

function updateSubscription(req: Req, ctx: Ctx): Json {
  const row = loadSubscription(req, ctx);
  const b = parse(subscriptionUpdateSchema, objectBody(req.body), 'webhook subscription update');
  const events = checkSubscriptionEvents(row.resource_type as ResourceType, b.enabledEvents);
  ctx.store.st('UPDATE webhook_subscriptions SET events = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(events), nowIso(), row.id);
  ctx.webhooks.reload();
  return subscriptionCurrent(loadSubscription(req, ctx));
}

function removeSubscription(req: Req, ctx: Ctx): Json {
  const row = loadSubscription(req, ctx);
  ctx.store.deleteById('webhook_subscriptions', row.id);
  ctx.webhooks.reload();
  return deletedAnswer(row.id);
}

function listSubscriptions(req: Req, ctx: Ctx): Json {
  assertWorkspaceToken(req.token, 'webhook subscriptions');
  if (req.query.has('sortBy')) throw badRequest('sortBy is not accepted on webhook subscription lists: they are ordered by creation; use sortDir');
  const page = pageParams(req, ctx.secret, { createdAt: 'created_at' }, 'createdAt', 'desc');
  const where: Where[] = [];
  const endpointId = queryId(req.query, 'webhookEndpointId');
  if (endpointId) where.push(['endpoint_id = ?', endpointId]);
  const resourceId = queryId(req.query, 'resourceId');
  if (resourceId) where.push(['resource_id = ?', resourceId]);
  const rows = ctx.store.list<SubscriptionRow>('webhook_subscriptions', { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 });
  const { rows: items, nextPageToken } = pageOf(rows, page, (r) => r.created_at);
  return { ...listAnswer(items.map(subscriptionCurrent), nextPageToken) };
}

const current = { versions: 'current' } as const;

export const webhookCurrentRoutes: Route[] = [
  { ...current, method: 'GET', pattern: '/webhook_endpoints', handler: listEndpoints },
  { ...current, method: 'POST', pattern: '/webhook_endpoints', body: 'json', handler: createEndpoint },
  { ...current, method: 'GET', pattern: '/webhook_endpoints/:id', handler: getEndpoint },
  { ...current, method: 'POST', pattern: '/webhook_endpoints/:id', body: 'json', handler: updateEndpoint },
  { ...current, method: 'DELETE', pattern: '/webhook_endpoints/:id', handler: removeEndpoint },
  { ...current, method: 'GET', pattern: '/webhook_subscriptions', handler: listSubscriptions },
  { ...current, method: 'POST', pattern: '/webhook_subscriptions', body: 'json', handler: createSubscription },
  { ...current, method: 'GET', pattern: '/webhook_subscriptions/:id', handler: getSubscription },
  { ...current, method: 'POST', pattern: '/webhook_subscriptions/:id', body: 'json', handler: updateSubscription },
  { ...current, method: 'DELETE', pattern: '/webhook_subscriptions/:id', handler: removeSubscription },
];

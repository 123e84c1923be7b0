/**
 * Sandbox extension: webhook endpoints and their deliveries. The service manages endpoints in its
 * dashboard; the sandbox takes them from `--webhooks FILE` and from these routes. All of them
 * need a workspace-wide token (an endpoint receives every event of the workspace).
 *
 *   POST   /webhook_endpoints      {url, secret?, apiVersion?, events?} -> the endpoint (+ secret when generated)
 *   GET    /webhook_endpoints, GET /webhook_endpoints/:id, DELETE /webhook_endpoints/:id
 *   GET    /webhook_deliveries     endpointId, eventId, eventType, status, paging -> deliveries with every attempt
 *   GET    /webhook_deliveries/:id -> the delivery, its attempts and the event as sent
 *
 * Endpoints created here must be loopback URLs (the sandbox sends nothing to the network);
 * endpoints of the webhooks file may be any http(s) URL: the operator configured them.
 */
import { assertWorkspaceToken } from '../auth.js';
import type { Ctx } from '../context.js';
import type { Json } from '../core.js';
import { isLoopbackHost } from '../files.js';
import { badRequest, checkId, notFound, objectBody, queryEnum, queryId, type Req } from '../http.js';
import { pageOf, pageParams } from '../paging.js';
import type { Route } from '../router.js';
import type { AttemptRow, DeliveryRow, EndpointRow, Where } from '../store.js';
import { deleteEndpoint, endpointJson, generateSecret, insertEndpoint } from '../webhooks/endpoints.js';
import { WEBHOOK_EVENT_TYPES } from '../../api/signing.js';
import { ENDPOINT_EVENT_TYPES, SUBSCRIPTION_EVENT_TYPES } from '../webhooks/current.js';

export const DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED', 'CANCELLED'] as const;
/** Deliveries carry the event names of their endpoint's version: 2025-04-21's and 2026-02-09's. */
const DELIVERY_EVENT_TYPES: readonly string[] = [...new Set<string>([...WEBHOOK_EVENT_TYPES, ...ENDPOINT_EVENT_TYPES, ...SUBSCRIPTION_EVENT_TYPES])];

async function create(req: Req, ctx: Ctx): Promise<Json> {
  assertWorkspaceToken(req.token, 'registering a webhook endpoint');
  const r = (await import('../settings.js')).parseEndpointDefinition(objectBody(req.body));
  if (!r.ok) throw badRequest(`invalid webhook endpoint at ${r.issue.pointer || '/'}: ${r.issue.message}`);
  const def = r.value;
  const host = new URL(def.url).hostname;
  if (!isLoopbackHost(host)) {
    throw badRequest(`url: the sandbox sends webhooks only to loopback addresses (127.0.0.1, ::1, localhost), not "${host}"; other URLs can be configured with --webhooks FILE`);
  }
  const id = def.id ?? ctx.ids('webhookEndpoint');
  if (ctx.store.byId<EndpointRow>('webhook_endpoints', id)) throw badRequest(`webhook endpoint ${id} already exists`);
  const secret = def.secret ?? generateSecret();
  // The endpoint's version is chosen at creation (spec part 6); by default the caller's own.
  const row = insertEndpoint(ctx, id, def, secret, def.apiVersion ?? req.version, 'api');
  ctx.webhooks.reload();
  return { success: true, webhookEndpoint: { ...endpointJson(row), ...(def.secret ? {} : { secret }) } };
}

function loadEndpoint(req: Req, ctx: Ctx): EndpointRow {
  assertWorkspaceToken(req.token, 'webhook endpoints');
  const id = checkId(req.params.id, 'webhook endpoint id');
  const row = ctx.store.byId<EndpointRow>('webhook_endpoints', id);
  if (!row) throw notFound(`webhook endpoint ${id} not found`);
  return row;
}

function get(req: Req, ctx: Ctx): Json {
  return { success: true, webhookEndpoint: endpointJson(loadEndpoint(req, ctx)) };
}

function remove(req: Req, ctx: Ctx): Json {
  const row = loadEndpoint(req, ctx);
  deleteEndpoint(ctx, row.id);
  ctx.webhooks.reload();
  return { success: true, id: row.id, deleted: true };
}

function list(req: Req, ctx: Ctx): Json {
  assertWorkspaceToken(req.token, 'webhook endpoints');
  const page = pageParams(req, ctx.secret, { createdAt: 'created_at' }, 'createdAt', 'asc');
  const rows = ctx.store.list<EndpointRow>('webhook_endpoints', { where: [], sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 });
  const { rows: items, nextPageToken } = pageOf(rows, page, (r) => r.created_at);
  return { success: true, webhookEndpoints: items.map(endpointJson), nextPageToken };
}

function attemptJson(a: AttemptRow): Json {
  return { attempt: a.attempt, at: a.at, durationMs: a.duration_ms, statusCode: a.status_code, error: a.error, ok: a.ok === 1 };
}

function deliveryJson(d: Omit<DeliveryRow, 'body'>, attempts: AttemptRow[]): Json {
  return {
    object: 'webhook_delivery',
    id: d.id,
    endpointId: d.endpoint_id,
    eventId: d.event_id,
    eventType: d.event_type,
    status: d.status,
    attemptCount: d.attempts,
    nextAttemptAt: d.next_attempt_at,
    attempts: attempts.map(attemptJson),
    createdAt: d.created_at,
    updatedAt: d.updated_at,
  };
}

function attemptsOf(ctx: Ctx, ids: string[]): Map<string, AttemptRow[]> {
  const out = new Map<string, AttemptRow[]>();
  if (!ids.length) return out;
  const rows = ctx.store
    .st('SELECT * FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY delivery_id, attempt')
    .all(JSON.stringify(ids)) as AttemptRow[];
  for (const r of rows) {
    const list = out.get(r.delivery_id);
    if (list) list.push(r);
    else out.set(r.delivery_id, [r]);
  }
  return out;
}

function listDeliveries(req: Req, ctx: Ctx): Json {
  assertWorkspaceToken(req.token, 'webhook deliveries');
  const q = req.query;
  const page = pageParams(req, ctx.secret, { createdAt: 'created_at', updatedAt: 'updated_at' }, 'createdAt', 'asc');
  const where: Where[] = [];
  const endpointId = queryId(q, 'endpointId');
  if (endpointId) where.push(['endpoint_id = ?', endpointId]);
  const eventId = queryId(q, 'eventId');
  if (eventId) where.push(['event_id = ?', eventId]);
  const eventType = queryEnum(q, 'eventType', DELIVERY_EVENT_TYPES);
  if (eventType) where.push(['event_type = ?', eventType]);
  const status = queryEnum(q, 'status', DELIVERY_STATUSES);
  if (status) where.push(['status = ?', status]);
  const cols = 'seq, id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at';
  const rows = ctx.store.list<Omit<DeliveryRow, 'body'>>('webhook_deliveries', { where, sortCol: page.sortCol, dir: page.dir, after: page.after, limit: page.limit + 1 }, cols);
  const { rows: items, nextPageToken } = pageOf(rows, page, (r) => (page.sortCol === 'updated_at' ? r.updated_at : r.created_at));
  const attempts = attemptsOf(ctx, items.map((d) => d.id));
  return { success: true, webhookDeliveries: items.map((d) => deliveryJson(d, attempts.get(d.id) ?? [])), nextPageToken };
}

function getDelivery(req: Req, ctx: Ctx): Json {
  assertWorkspaceToken(req.token, 'webhook deliveries');
  const id = checkId(req.params.id, 'webhook delivery id');
  const d = ctx.store.byId<DeliveryRow>('webhook_deliveries', id);
  if (!d) throw notFound(`webhook delivery ${id} not found`);
  return { success: true, webhookDelivery: { ...deliveryJson(d, attemptsOf(ctx, [id]).get(id) ?? []), event: JSON.parse(d.body) as unknown } };
}

export const webhookRoutes: Route[] = [
  { method: 'POST', pattern: '/webhook_endpoints', body: 'json', handler: create },
  { method: 'GET', pattern: '/webhook_endpoints', handler: list },
  { method: 'GET', pattern: '/webhook_endpoints/:id', handler: get },
  { method: 'DELETE', pattern: '/webhook_endpoints/:id', handler: remove },
  { method: 'GET', pattern: '/webhook_deliveries', versions: 'both', apiErrors: true, handler: listDeliveries },
  { method: 'GET', pattern: '/webhook_deliveries/:id', versions: 'both', apiErrors: true, handler: getDelivery },
];

/**
 * Delivers the sandbox's events to webhook endpoints, off the request and engine paths:
 *
 *   event (EventBus, synchronous) -> queued in memory -> next turn of the event loop: one
 *   transaction stores a delivery per subscribed endpoint (the body fixed, in the endpoint's
 *   version) -> POSTed with fresh signature headers per attempt, at most `concurrency` in
 *   flight per endpoint -> each attempt's outcome stored (batched per turn) -> non-2xx, network
 *   errors and timeouts retried with exponential backoff up to `maxAttempts`, then FAILED.
 *
 * Deliveries still PENDING when the sandbox stops (or is killed) are resumed on the next start
 * with the same data dir. Events raised in the instant before a kill, not yet stored, are lost.
 * Delivery order is not guaranteed (retries overtake); receivers deduplicate by eventId.
 */
import http from 'node:http';
import https from 'node:https';
import { WEBHOOK_EVENT_TYPES, webhookSignatureHeaders } from '../../api/signing.js';
import type { Ctx } from '../context.js';
import type { Layout } from '../core.js';
import type { SandboxEvent } from '../events.js';
import { nowIso } from '../ids.js';
import { allEndpoints, type Endpoint } from './endpoints.js';
import { envelopeText, payloadText } from './payloads.js';
import { currentEventOf, payloadOf, type CurrentEvent } from './current.js';
import { currentGet, type Rendered } from '../internal.js';
import { backoffMs as backoff } from '../../util/backoff.js';

export interface DeliveryPolicy {
  /** Attempts per delivery, the first included. */
  maxAttempts: number;
  /** Pause before the first retry; doubles per retry (+-20% jitter) up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Per attempt; a slower receiver counts as failed. */
  timeoutMs: number;
  /** Deliveries in flight per endpoint. */
  concurrency: number;
}

/** 8 attempts over about two minutes (1, 2, 4, ... 60 s between them). */
export const DEFAULT_DELIVERY: DeliveryPolicy = { maxAttempts: 8, baseDelayMs: 1000, maxDelayMs: 60_000, timeoutMs: 10_000, concurrency: 8 };

interface Job {
  id: string;
  endpointId: string;
  body: string;
  attempts: number;
}

interface Outcome {
  id: string;
  attempt: number;
  at: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  status: 'DELIVERED' | 'FAILED' | 'PENDING';
  nextAttemptAt: string | null;
}

/** Pause before retry number `attempt` (1 = the first retry): doubling, capped, +-20% jitter. */
export function backoffMs(policy: DeliveryPolicy, attempt: number): number {
  return backoff(attempt - 1, { baseMs: policy.baseDelayMs, capMs: policy.maxDelayMs, jitter: [0.8, 1.2] });
}

function describeError(e: unknown): string {
  const code = (e as { code?: string }).code;
  return code && code !== 'ERR_TIMEOUT' ? code : e instanceof Error ? e.message : String(e);
}

/** A FIFO whose shift is O(1) (Array#shift is O(n) on the long queues of a big batch). */
class Queue<T> {
  private items: T[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(x: T): void {
    this.items.push(x);
  }
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const x = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return x;
  }
}

const LEGACY_TYPES: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

export class WebhookDispatcher {
  private endpoints = new Map<string, Endpoint>();
  private events: SandboxEvent[] = [];
  private drainScheduled = false;
  private readonly ready = new Map<string, Queue<Job>>();
  private readonly inFlight = new Map<string, number>();
  private active = 0;
  private wantedTypes: ReadonlySet<string> | 'all' = new Set();
  /** Event batches whose 2026-02-09 payloads are being rendered asynchronously. */
  private rendering = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly requests = new Set<http.ClientRequest>();
  // node:http with keep-alive rather than fetch: a fraction of the CPU per delivery, which is
  // what bounds a batch of 1,000 runs' 2,000 events.
  private readonly agents: { http: http.Agent; https: https.Agent };
  private outcomes: Outcome[] = [];
  private flushScheduled = false;
  private waiters: Array<() => void> = [];
  private closed = false;
  private off: (() => void) | undefined;

  constructor(
    private readonly ctx: Ctx,
    readonly policy: DeliveryPolicy,
    private readonly versionHeaders: readonly string[],
    private readonly log?: (line: string) => void,
  ) {
    this.agents = { http: new http.Agent({ keepAlive: true, maxSockets: policy.concurrency }), https: new https.Agent({ keepAlive: true, maxSockets: policy.concurrency }) };
  }

  /** Loads the endpoints, resumes pending deliveries and subscribes to the sandbox's events. */
  start(): void {
    this.reload();
    const rows = this.ctx.store
      .st("SELECT id, endpoint_id, body, attempts, next_attempt_at FROM webhook_deliveries WHERE status = 'PENDING' ORDER BY seq")
      .all() as Array<{ id: string; endpoint_id: string; body: string; attempts: number; next_attempt_at: string | null }>;
    const now = Date.now();
    for (const r of rows) {
      if (!this.endpoints.has(r.endpoint_id)) continue;
      const job: Job = { id: r.id, endpointId: r.endpoint_id, body: r.body, attempts: r.attempts };
      const wait = r.next_attempt_at ? Date.parse(r.next_attempt_at) - now : 0;
      if (wait > 0) this.later(job, wait);
      else this.enqueue(job);
    }
    this.off = this.ctx.events.on((e) => this.onEvent(e));
    this.pump();
  }

  /** Call after endpoints change; jobs of removed endpoints are dropped (the store cancelled them). */
  reload(): void {
    this.endpoints = new Map(allEndpoints(this.ctx).map((e) => [e.id, e]));
    // Internal event types taken in: with a 2026-02-09 endpoint, any (its subscriptions decide);
    // else the 2025-04-21 ones (the events 2026-02-09 added are not sent to older endpoints).
    const all = [...this.endpoints.values()];
    this.wantedTypes = all.some((ep) => ep.family === 'current' && ep.enabled) ? 'all' : all.length ? LEGACY_TYPES : new Set();
    for (const id of [...this.ready.keys()]) if (!this.endpoints.has(id)) this.ready.delete(id);
    this.settle();
  }

  /** Resolves when no event, delivery, retry or record is pending (retries may take their backoff). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stores what was raised, stops sending; PENDING deliveries resume on the next start. */
  close(): void {
    if (this.closed) return;
    try {
      const events = this.events;
      this.events = [];
      const names = this.currentNames(events);
      const rendered = this.renderCurrent(events, names);
      if (rendered instanceof Promise) this.log?.(`sandbox webhooks: ${events.length} events raised while closing need an asynchronous payload and are not stored`);
      else this.persist(events, names, rendered);
    } catch (e) {
      this.log?.(`sandbox webhooks: could not store events at close: ${(e as Error).message}`);
    }
    this.flush();
    this.closed = true;
    this.off?.();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const r of this.requests) r.destroy();
    this.agents.http.destroy();
    this.agents.https.destroy();
    this.ready.clear();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private onEvent(e: SandboxEvent): void {
    if (this.closed || !this.wanted(e.type)) return;
    this.events.push(e);
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      if (this.closed) return;
      const events = this.events;
      this.events = [];
      const store = (rendered: Array<Map<string, Rendered>>): void => {
        try {
          for (const job of this.persist(events, names, rendered)) this.enqueue(job);
        } catch (err) {
          this.log?.(`sandbox webhooks: could not store events: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        }
        this.pump();
      };
      const names = this.currentNames(events);
      const rendered = this.renderCurrent(events, names);
      if (!(rendered instanceof Promise)) return store(rendered);
      // A 2026-02-09 payload whose route answers asynchronously: stored once rendered.
      this.rendering++;
      void rendered.then(store, (err: unknown) => this.log?.(`sandbox webhooks: could not render events: ${String(err)}`)).finally(() => {
        this.rendering--;
        this.settle();
      });
    });
  }

  private wanted(type: string): boolean {
    return this.wantedTypes === 'all' || this.wantedTypes.has(type);
  }

  /** The 2026-02-09 name of each event (when a 2026-02-09 endpoint may want it). */
  private currentNames(events: SandboxEvent[]): Array<CurrentEvent | undefined> {
    const any = [...this.endpoints.values()].some((ep) => ep.family === 'current' && ep.enabled);
    return events.map((e) => (any ? currentEventOf(this.ctx, e) : undefined));
  }

  private wantsCurrent(ep: Endpoint, e: SandboxEvent, c: CurrentEvent): boolean {
    // A 2026-02-09 endpoint registered with a 2025-04-21 event name gets that event under its 2026-02-09 name.
    return ep.events.has(c.type) || ep.events.has(e.type) || ep.subscriptions.get(c.resourceId)?.has(c.type) === true;
  }

  /** Per event, the answers of the 2026-02-09 GETs its payloads come from (sync when every route is). */
  private renderCurrent(events: SandboxEvent[], names: Array<CurrentEvent | undefined>): Array<Map<string, Rendered>> | Promise<Array<Map<string, Rendered>>> {
    const out = events.map(() => new Map<string, Rendered>());
    const pending: Array<Promise<void>> = [];
    events.forEach((e, i) => {
      const c = names[i];
      if (!c) return;
      if (![...this.endpoints.values()].some((ep) => ep.family === 'current' && ep.enabled && this.wantsCurrent(ep, e, c))) return;
      const r = currentGet(this.ctx, c.path);
      if (r instanceof Promise) pending.push(r.then((x) => void out[i].set(c.path, x)));
      else out[i].set(c.path, r);
    });
    return pending.length ? Promise.all(pending).then(() => out) : out;
  }

  /** One delivery per subscribed endpoint for each event, stored in one transaction. */
  private persist(events: SandboxEvent[], names: Array<CurrentEvent | undefined>, rendered: Array<Map<string, Rendered>>): Job[] {
    if (!events.length) return [];
    const jobs: Job[] = [];
    const now = nowIso();
    const ins = this.ctx.store.st(
      "INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, body, status, attempts, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'PENDING', 0, ?, ?, ?)",
    );
    this.ctx.store.tx(() => {
      events.forEach((e, i) => {
        const eventId = this.ctx.ids('webhookEvent');
        const payloads = new Map<Layout, string | undefined>();
        const c = names[i];
        for (const ep of this.endpoints.values()) {
          let type: string = e.type;
          let payload: string | undefined;
          if (ep.family === 'current') {
            if (!c || !ep.enabled || !this.wantsCurrent(ep, e, c)) continue;
            const r = rendered[i]?.get(c.path);
            if (!r) continue;
            if (!r.ok) {
              // Gone (deleted since) is silent, as for 2025-04-21 endpoints; unrouted is a gap to know about.
              if (r.reason !== 'gone') this.log?.(`sandbox webhooks: ${c.type} (${eventId}) not delivered to ${ep.id}: ${r.message}`);
              continue;
            }
            type = c.type;
            payload = payloadOf(c, r.text);
          } else {
            if (!ep.events.has(e.type)) continue;
            if (!payloads.has(ep.layout)) payloads.set(ep.layout, payloadText(this.ctx, e, ep.layout));
            payload = payloads.get(ep.layout);
          }
          if (payload === undefined) continue;
          const body = envelopeText(eventId, type, payload);
          const id = this.ctx.ids('webhookDelivery');
          ins.run(id, ep.id, eventId, type, body, now, now, now);
          jobs.push({ id, endpointId: ep.id, body, attempts: 0 });
        }
      });
    });
    return jobs;
  }

  private enqueue(job: Job): void {
    let q = this.ready.get(job.endpointId);
    if (!q) this.ready.set(job.endpointId, (q = new Queue()));
    q.push(job);
  }

  private later(job: Job, ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.enqueue(job);
      this.pump();
    }, ms);
    this.timers.add(t);
  }

  private pump(): void {
    if (this.closed) return;
    for (const [endpointId, queue] of this.ready) {
      const ep = this.endpoints.get(endpointId);
      if (!ep) {
        this.ready.delete(endpointId);
        continue;
      }
      let n = this.inFlight.get(endpointId) ?? 0;
      while (queue.length && n < this.policy.concurrency) {
        n++;
        void this.send(ep, queue.shift() as Job);
      }
      this.inFlight.set(endpointId, n);
      if (!queue.length) this.ready.delete(endpointId);
    }
    this.settle();
  }

  /** One POST; resolves with the status code, rejects on network errors and the total timeout. */
  private post(ep: Endpoint, body: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const url = new URL(ep.url);
      const mod = url.protocol === 'https:' ? https : http;
      const req = mod.request(url, {
        method: 'POST',
        agent: url.protocol === 'https:' ? this.agents.https : this.agents.http,
        headers: {
          ...ep.headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'evalkit-sandbox-webhooks',
          ...Object.fromEntries(this.versionHeaders.map((h) => [h, ep.apiVersion])),
          ...webhookSignatureHeaders(ep.secret, body),
        },
      });
      this.requests.add(req);
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${this.policy.timeoutMs} ms`)), this.policy.timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.requests.delete(req);
      };
      req.on('response', (res) => {
        res.on('error', (e) => (done(), reject(e)));
        res.on('end', () => (done(), resolve(res.statusCode ?? 0)));
        res.resume();
      });
      req.on('error', (e) => (done(), reject(e)));
      req.end(body);
    });
  }

  private async send(ep: Endpoint, job: Job): Promise<void> {
    this.active++;
    const attempt = job.attempts + 1;
    const at = nowIso();
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      statusCode = await this.post(ep, job.body);
      if (statusCode < 200 || statusCode > 299) error = statusCode >= 300 && statusCode < 400 ? `HTTP ${statusCode} (redirects are not followed)` : `HTTP ${statusCode}`;
    } catch (e) {
      error = describeError(e);
    } finally {
      this.active--;
      this.inFlight.set(ep.id, Math.max(0, (this.inFlight.get(ep.id) ?? 1) - 1));
    }
    // Aborted by close(): not an attempt; the delivery stays PENDING and resumes on the next start.
    if (this.closed) return;
    job.attempts = attempt;
    const status = error === null ? 'DELIVERED' : attempt >= this.policy.maxAttempts ? 'FAILED' : 'PENDING';
    const delay = status === 'PENDING' ? backoffMs(this.policy, attempt) : 0;
    this.outcomes.push({
      id: job.id, attempt, at, durationMs: Math.round(performance.now() - started), statusCode, error, status,
      nextAttemptAt: status === 'PENDING' ? new Date(Date.now() + delay).toISOString() : null,
    });
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        if (!this.closed) this.flush();
        this.settle();
      });
    }
    if (status === 'PENDING') this.later(job, delay);
    this.pump();
  }

  /** Every attempt is recorded; the delivery row carries the latest state. */
  private flush(): void {
    const outcomes = this.outcomes;
    this.outcomes = [];
    if (!outcomes.length) return;
    const now = nowIso();
    const att = this.ctx.store.st('INSERT INTO webhook_attempts (delivery_id, attempt, at, duration_ms, status_code, error, ok) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const upd = this.ctx.store.st("UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, updated_at = ? WHERE id = ? AND status = 'PENDING'");
    try {
      this.ctx.store.tx(() => {
        for (const o of outcomes) {
          att.run(o.id, o.attempt, o.at, o.durationMs, o.statusCode, o.error, o.error === null ? 1 : 0);
          upd.run(o.status, o.attempt, o.nextAttemptAt, now, o.id);
        }
      });
    } catch (e) {
      this.log?.(`sandbox webhooks: could not record ${outcomes.length} delivery attempts: ${(e as Error).message}`);
    }
  }

  private isIdle(): boolean {
    return this.closed || (!this.events.length && !this.drainScheduled && this.rendering === 0 && this.active === 0 && this.ready.size === 0 && this.timers.size === 0 && !this.outcomes.length && !this.flushScheduled);
  }

  private settle(): void {
    if (!this.waiters.length || !this.isIdle()) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

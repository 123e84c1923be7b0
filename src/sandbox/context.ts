import type { Core } from './core.js';
import type { Engine } from './engine/index.js';
import type { Scheduler } from './engine/scheduler.js';
import type { EventBus } from './events.js';
import type { IdSource } from './ids.js';
import type { Router } from './router.js';
import type { Store } from './store.js';
import type { WebhookDispatcher } from './webhooks/dispatcher.js';

/** What every route shares: built once in startSandbox. */
export interface Ctx {
  store: Store;
  ids: IdSource;
  /** Set once `ready` resolves (loaded after the server listens, so start stays fast). */
  core: Core;
  ready: Promise<void>;
  coreLoaded: boolean;
  engine: Engine;
  scheduler: Scheduler;
  events: EventBus;
  webhooks: WebhookDispatcher;
  /** http://host:port, known once the server listens. */
  baseUrl: string;
  /** Signs presigned file URLs; kept in the store so URLs survive a restart. */
  secret: string;
  maxBodyBytes: number;
  /** Validity of presigned file URLs. */
  presignTtlSeconds: number;
  /** How long the 2026-02-09 sync run routes wait (default 5 minutes, routes/currentRuns.ts). */
  syncTimeoutMs?: number;
  /** The routes, for resources rendered as a GET would answer them (internal.ts); set once they are added. */
  router?: Router;
}

/**
 * `startSandbox()`: the local server that implements the service API, in-process.
 *
 *   const sb = await startSandbox({ port: 0 });
 *   // sb.url, sb.token; ... await sb.close();
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../util/errors.js';
import { devToken, TokenRegistry, toRecords, type TokenRecord, type TokenSpec } from './auth.js';
import type { Ctx } from './context.js';
import { loadCore, type Core } from './core.js';
import { loadEngine, type Engine } from './engine/index.js';
import { makeWorker } from './engine/process.js';
import { Scheduler } from './engine/scheduler.js';
import { EventBus, type SandboxEvent } from './events.js';
import { advanceClockTo, randomIds, seededIds } from './ids.js';
import { Router } from './router.js';
import { batchRoutes } from './routes/batchProcessorRuns.js';
import { reviewRoutes } from './routes/review.js';
import { webhookRoutes } from './routes/webhooks.js';
import { workflowRunRoutes } from './routes/workflowRuns.js';
import { workflowRoutes } from './routes/workflows.js';
import { workflowCurrentRoutes } from './routes/workflowsCurrent.js';
import { webhookCurrentRoutes } from './routes/webhooksCurrent.js';
import { evaluationRoutes } from './routes/evaluation.js';
import { evaluationSetRoutes } from './routes/evaluationSets.js';
import { evaluationSetRunRoutes } from './routes/evaluationSetRuns.js';
import { fileRoutes } from './routes/files.js';
import { processorRunRoutes } from './routes/processorRuns.js';
import { currentRunRoutes } from './routes/currentRuns.js';
import { processorRoutes } from './routes/processors.js';
import { entityRoutes } from './routes/entities.js';
import { lifecycleRoutes } from './routes/lifecycle.js';
import { notEmulatedRoutes } from './routes/notEmulated.js';
import { createSandboxServer } from './server.js';
import { hostError } from './hostError.js';
import { checkFaultRule, Faults, parseFaultRule, rateLimitProblem, type FaultRule } from './faults.js';
import type { BodyLimits } from '../util/bodyLimits.js';
import type { WebhooksConfig, WebhooksSpec, WorkflowDefinition, WorkflowSpec } from './settings.js';
import { Store } from './store.js';
import { DEFAULT_VERSION_HEADERS } from './versioning.js';
import { DEFAULT_DELIVERY, WebhookDispatcher } from './webhooks/dispatcher.js';
import { syncConfigEndpoints } from './webhooks/endpoints.js';
import { saveWorkflow } from './workflows/definitions.js';

export type { SandboxEvent } from './events.js';
export type { TokenSpec } from './auth.js';
export type { WebhooksSpec, WorkflowSpec } from './settings.js';
export type { DeliveryPolicy } from './webhooks/dispatcher.js';
export type { FaultRule } from './faults.js';
export { API_VERSIONS } from './versioning.js';

export interface SandboxOptions {
  /** Default 8787 in the CLI; 0 picks a free port (tests). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Persist state in `<dataDir>/sandbox.db`; in memory without it. */
  dataDir?: string;
  /** A tokens file path, or the tokens themselves. Without it, one dev token is made (and kept in dataDir). */
  tokens?: string | TokenSpec[];
  /** Value of the dev token (when `tokens` is not given). */
  devToken?: string;
  /** Requests per second per token, above 0 (0, negative and non-finite values are refused); leave it out for no limit. */
  rateLimit?: number;
  /** Added before every response. */
  latencyMs?: number;
  /** Probability (0-1) of an injected 500 per request. */
  failRate?: number;
  /** Seed of the injected failures and jitter (random by default). */
  failSeed?: number;
  /**
   * Injected faults, each a rule (faults.ts) or its text `status=429,rate=0.1,retryAfter=2,route=GET /processors*`.
   * `rateLimit`, `failRate` and `latencyMs` are shorthands for `status=429,limit=N`, `status=500,rate=P` and `latency=MS`.
   */
  faults?: ReadonlyArray<string | FaultRule>;
  /** `simulate[:seed,error-rate[,failure-rate]]` (default `simulate`) or `replay:FILE`, or an Engine. */
  engine?: string | Engine;
  /** Runs processed at the same time (default 4). */
  engineConcurrency?: number;
  /** Processing time of one run in ms, +-25% (default 200). */
  engineDelayMs?: number;
  /** Cap of request bodies in bytes (default 32 MiB); larger bodies get 413. */
  maxBodyBytes?: number;
  /** Names the API version header is read from and echoed under (default x-service-api-version and x-extend-api-version, the real service's). */
  versionHeaders?: readonly string[];
  /** Bodies buffered at once (default 4 x maxBodyBytes; 503 beyond), body timeout (30 s; 408), connections (256). */
  bodyLimits?: Partial<Omit<BodyLimits, 'maxBodyBytes'>>;
  /** One name instead of `versionHeaders` (kept for callers of the first release). */
  versionHeader?: string;
  /** Mint ids from this seed instead of at random, for reproducible scripted runs (in memory only, not with dataDir). */
  idSeed?: string;
  /** Workflow definitions (a sandbox extension): a `--workflows` file, or the workflows (each with its id). Re-applied at every start. */
  workflows?: string | WorkflowSpec[];
  /** Webhook endpoints and the delivery policy: a `--webhooks` file, or its content. Re-applied at every start. */
  webhooks?: string | WebhooksSpec;
  /** Receives unexpected server errors (with stacks) and warnings (a store file readable by others that cannot be tightened); never sent to clients. */
  log?: (line: string) => void;
  /** How long `POST /extract`, `/classify`, `/split` (2026-02-09) wait for their run (default 300000: 5 minutes). */
  syncTimeoutMs?: number;
}

export interface SandboxHandle {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  /** The dev token, or the first token of the tokens file. */
  token: string;
  /** True when `token` is the generated dev token (the CLI prints only that one). */
  devToken: boolean;
  /** The engine spec in use, e.g. `simulate:42,0.1`. */
  engine: string;
  /** Stops accepting requests and closes the store; runs in progress resume on the next start. */
  close(): Promise<void>;
  /** Resolves when no run is queued or processing and no webhook delivery is pending (test helper). */
  idle(): Promise<void>;
  /** Stop / restart taking runs from the queue (test helper for priority ordering). */
  pauseEngine(): void;
  resumeEngine(): void;
  /** In-process events (runs processed, versions published...). Returns an unsubscribe function. */
  onEvent(fn: (e: SandboxEvent) => void): () => void;
}

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

function num(name: string, v: number | undefined, min: number, max: number, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw new UsageError(`${name} must be a number from ${min} to ${max} (got ${String(v)})`);
  return v;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const port = num('port', options.port, 0, 65535, DEFAULT_PORT);
  if (!Number.isInteger(port)) throw new UsageError('port must be an integer');
  const faults = faultRules(options);
  const concurrency = Math.floor(num('engine concurrency', options.engineConcurrency, 1, 1000, 4));
  const delayMs = num('engine delay', options.engineDelayMs, 0, 600_000, 200);
  const maxBodyBytes = num('max body bytes', options.maxBodyBytes, 1024, 2 ** 31, DEFAULT_MAX_BODY_BYTES);
  const engine = typeof options.engine === 'object' ? options.engine : await loadEngine(options.engine);
  let tokens: TokenRecord[] | undefined;
  if (typeof options.tokens === 'string') tokens = (await import('./tokensFile.js')).loadTokensFile(options.tokens);
  else if (Array.isArray(options.tokens)) tokens = toRecords(options.tokens);
  const { workflows, webhooks } = await loadSettings(options);

  if (options.idSeed !== undefined && options.dataDir !== undefined) {
    throw new UsageError('seeded ids are for a sandbox in memory', { hint: 'drop the id seed, or --data-dir: a restarted store would mint the same ids again' });
  }
  const ids = options.idSeed === undefined ? randomIds : seededIds(options.idSeed);
  const store = new Store(options.dataDir, options.log);
  try {
    advanceClockTo(store.latestTimestamp());
    let secret = store.getMeta('secret');
    if (!secret) store.setMeta('secret', (secret = randomBytes(32).toString('hex')));
    let isDev = false;
    if (!tokens) {
      const value = options.devToken ?? store.getMeta('dev_token');
      const dev = devToken(value);
      const created = store.getMeta('dev_token_created');
      if (value && created && !options.devToken) dev.createdAt = created;
      store.setMeta('dev_token', dev.token);
      store.setMeta('dev_token_created', dev.createdAt);
      tokens = [dev];
      isDev = true;
    }
    for (const w of workflows) saveWorkflow(store, w as WorkflowDefinition & { id: string }, 'file', true);
    const events = new EventBus();
    const versionHeaders = headerNames(options);
    const ctx: Ctx = {
      store,
      ids,
      core: undefined as unknown as Core,
      coreLoaded: false,
      ready: Promise.resolve(),
      engine,
      events,
      webhooks: undefined as unknown as WebhookDispatcher,
      scheduler: undefined as unknown as Scheduler,
      baseUrl: '',
      secret,
      maxBodyBytes,
      presignTtlSeconds: 3600,
      syncTimeoutMs: num('sync timeout', options.syncTimeoutMs, 0, 3_600_000, 300_000),
    };
    // src/config and src/expected (ajv schemas) load while the server starts listening.
    ctx.ready = loadCore().then((core) => {
      ctx.core = core;
      ctx.coreLoaded = true;
    });
    ctx.scheduler = new Scheduler(concurrency, delayMs, makeWorker(() => ctx));
    syncConfigEndpoints(ctx, webhooks?.endpoints ?? []);
    ctx.webhooks = new WebhookDispatcher(ctx, webhooks?.delivery ?? DEFAULT_DELIVERY, versionHeaders, options.log);
    const router = new Router().add(
      ...processorRoutes, ...entityRoutes, ...processorRunRoutes, ...fileRoutes, ...evaluationRoutes, ...evaluationSetRoutes, ...evaluationSetRunRoutes, ...batchRoutes,
      ...workflowRoutes, ...workflowRunRoutes, ...reviewRoutes, ...webhookRoutes, ...lifecycleRoutes, ...notEmulatedRoutes,
      ...currentRunRoutes,
      ...workflowCurrentRoutes, ...webhookCurrentRoutes,
    );
    ctx.router = router;
    const server = createSandboxServer(ctx, {
      router,
      registry: new TokenRegistry(tokens),
      versionHeaders,
      faults: new Faults(faults, options.failSeed),
      log: options.log,
      bodyLimits: options.bodyLimits,
    });
    const host = options.host ?? DEFAULT_HOST;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) =>
        reject(e.code === 'EADDRINUSE' ? new UsageError(`port ${port} on ${host} is already in use`, { hint: 'pick another --port, or 0 for any free port' }) : hostError(e, host) ?? e),
      );
      server.listen(port, host, () => resolve());
    });
    const addr = server.address() as AddressInfo;
    const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    ctx.baseUrl = `http://${shownHost === '[::]' ? '[::1]' : shownHost === '0.0.0.0' ? '127.0.0.1' : shownHost}:${addr.port}`;

    // Runs that were in progress when the last sandbox stopped (or was killed) start again, and
    // so do webhook deliveries (payloads carry run URLs, known now).
    for (const r of store.processingRuns()) ctx.scheduler.enqueue(r.id, r.priority);
    ctx.webhooks.start();

    let closed: Promise<void> | undefined;
    return {
      url: ctx.baseUrl,
      port: addr.port,
      token: tokens[0].token,
      devToken: isDev,
      engine: engine.spec,
      idle: async () => {
        await ctx.scheduler.idle();
        await ctx.webhooks.idle();
      },
      pauseEngine: () => ctx.scheduler.pause(),
      resumeEngine: () => ctx.scheduler.resume(),
      onEvent: (fn) => events.on(fn),
      close: () =>
        (closed ??= new Promise<void>((resolve) => {
          ctx.scheduler.close();
          server.close(() => {
            ctx.webhooks.close();
            store.close();
            resolve();
          });
          server.closeAllConnections();
        })),
    };
  } catch (e) {
    store.close();
    throw e;
  }
}

function faultRules(options: SandboxOptions): FaultRule[] {
  const rateLimit = options.rateLimit;
  const problem = rateLimit === undefined ? undefined : rateLimitProblem(rateLimit);
  if (problem) throw new UsageError(`rate limit ${problem} (got ${String(rateLimit)})`, { hint: 'leave rateLimit out for no limit' });
  const latencyMs = num('latency', options.latencyMs, 0, 600_000, 0);
  const failRate = num('fail rate', options.failRate, 0, 1, 0);
  const rules: FaultRule[] = [];
  if (latencyMs > 0) rules.push({ latency: latencyMs });
  if (rateLimit !== undefined) rules.push({ status: 429, limit: rateLimit });
  if (failRate > 0) rules.push({ status: 500, rate: failRate });
  for (const f of options.faults ?? []) {
    try {
      rules.push(typeof f === 'string' ? parseFaultRule(f) : checkFaultRule({ ...f }));
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  return rules;
}

function headerNames(options: SandboxOptions): string[] {
  const given = options.versionHeaders ?? (options.versionHeader === undefined ? DEFAULT_VERSION_HEADERS : [options.versionHeader]);
  const names = [...new Set(given.map((n) => n.trim().toLowerCase()))];
  if (names.length === 0) throw new UsageError('at least one version header name is needed');
  for (const n of names) if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(n)) throw new UsageError(`"${n}" is not a valid HTTP header name`);
  return names;
}

/** The workflows and webhooks settings, checked before anything starts (exit 2 naming the file and pointer). */
async function loadSettings(options: SandboxOptions): Promise<{ workflows: WorkflowDefinition[]; webhooks: WebhooksConfig | undefined }> {
  if (options.workflows === undefined && options.webhooks === undefined) return { workflows: [], webhooks: undefined };
  const s = await import('./settings.js');
  const workflows =
    options.workflows === undefined ? [] : typeof options.workflows === 'string' ? s.loadWorkflowsFile(options.workflows) : s.parseWorkflowsFile({ workflows: options.workflows }, '(workflows option)');
  const webhooks =
    options.webhooks === undefined ? undefined : typeof options.webhooks === 'string' ? s.loadWebhooksFile(options.webhooks) : s.parseWebhooksConfig(options.webhooks, '(webhooks option)');
  return { workflows, webhooks };
}


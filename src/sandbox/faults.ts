/**
 * Faults the sandbox injects, so that clients (evalkit's and the official SDK's users') can be
 * tried against what the service does under load: rate limits, payment errors, outages, slow
 * answers. One rule per fault, written `key=value,...`:
 *
 *   status=429,rate=0.1,retryAfter=2            10% of requests get a 429 with Retry-After: 2
 *   status=429,limit=10                          a token bucket of 10 requests/s per token
 *   status=503,rate=0.05,route=POST /processor_runs*
 *   status=402,rate=1,route=/workflow_runs/batch
 *   latency=200,jitter=100                       every answer 100-300 ms late
 *   drop=1,rate=0.5,route=POST /processors       half the creates done, their answers lost
 *
 * `route` is `[METHOD ]PATH` where `*` matches anything (also `/`); the path is matched without
 * the /v1 prefix. Rules are checked in order before any work, so a retried request never runs
 * twice; the first rule that fires answers. A `drop` rule is the exception, on purpose: the work
 * is done and then the connection is closed without an answer (a lost answer: what a client must
 * not answer with a blind retry of a create). Every 429 carries Retry-After (seconds) and
 * X-RateLimit-Reset (unix seconds), the headers the official SDK reads before retrying.
 */
import { HttpError } from './http.js';
import { type Rng } from './engine/rng.js';
import { seededRandom } from '../util/random.js';

export interface FaultRule {
  /** Answer status, 400 to 599; absent for a latency-only rule. */
  status?: number;
  /** Probability 0-1 that a matching request gets the status (default 1 unless `limit` is given). */
  rate?: number;
  /** Requests per second per token (token bucket, bursts of `limit`); beyond it the status (429). */
  limit?: number;
  /** Seconds for Retry-After (default 1 for 429; sent on other statuses when given). */
  retryAfter?: number;
  /** Added delay in ms, and +- jitter in ms. */
  latency?: number;
  jitter?: number;
  /** `[METHOD ]PATH` glob; default every route. */
  route?: string;
  /** 1: do the work, then close the connection without answering (with probability `rate`). */
  drop?: number;
}

const KEYS = ['status', 'rate', 'limit', 'retryAfter', 'latency', 'jitter', 'route', 'drop'] as const;

const REASONS: Record<number, string> = {
  402: 'payment required: the workspace has no credits left',
  429: 'rate limit exceeded',
  500: 'internal server error',
  502: 'bad gateway',
  503: 'service unavailable',
  504: 'gateway timeout',
};

/** The most requests per second a rate limit (`limit=N`, `--rate-limit`, `rateLimit`) may allow. */
export const MAX_RATE_LIMIT = 1_000_000;

/**
 * What is wrong with a rate limit (`--rate-limit N`, `rateLimit` from code, a rule's `limit=N`),
 * or undefined when it is one: a finite number of requests per second above 0. There is no
 * limit of 0 meaning "none": leaving the limit out means that.
 */
export function rateLimitProblem(value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return 'must be a number of requests per second > 0';
  if (value > MAX_RATE_LIMIT) return `must be at most ${MAX_RATE_LIMIT} requests per second`;
  return undefined;
}

/** Parses `key=value,...` (the `route` value may contain spaces); throws Error naming the problem. */
export function parseFaultRule(text: string): FaultRule {
  const rule: FaultRule = {};
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) throw new Error(`fault "${text}": "${part.trim()}" is not key=value (keys: ${KEYS.join(', ')})`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (!(KEYS as readonly string[]).includes(key)) throw new Error(`fault "${text}": unknown key "${key}" (keys: ${KEYS.join(', ')})`);
    if (key === 'route') {
      rule.route = value;
      continue;
    }
    const n = Number(value);
    if (value === '' || !Number.isFinite(n) || n < 0) throw new Error(`fault "${text}": ${key} must be a number >= 0 (got "${value}")`);
    (rule as Record<string, number>)[key] = n;
  }
  return checkFaultRule(rule, JSON.stringify(text));
}

export function checkFaultRule(rule: FaultRule, label = JSON.stringify(rule)): FaultRule {
  const bad = (msg: string): never => {
    throw new Error(`fault ${label}: ${msg}`);
  };
  if (rule.drop !== undefined) {
    if (rule.drop !== 1) bad('drop must be 1 (the answer is lost after the work)');
    if (rule.status !== undefined || rule.limit !== undefined || rule.retryAfter !== undefined) bad('drop takes rate and route only: the work is done and no answer is sent');
    if (rule.rate !== undefined && !(rule.rate >= 0 && rule.rate <= 1)) bad('rate must be a probability from 0 to 1');
    if (rule.route !== undefined) routeMatcher(rule.route);
    return rule;
  }
  if (rule.status !== undefined && (!Number.isInteger(rule.status) || rule.status < 400 || rule.status > 599)) bad('status must be an HTTP error status from 400 to 599');
  if (rule.rate !== undefined && !(rule.rate >= 0 && rule.rate <= 1)) bad('rate must be a probability from 0 to 1');
  if (rule.limit !== undefined) {
    const problem = rateLimitProblem(rule.limit);
    if (problem) bad(`limit ${problem}`);
  }
  if (rule.limit !== undefined && rule.rate !== undefined) bad('give rate (a share of requests) or limit (requests per second), not both');
  if ((rule.rate !== undefined || rule.limit !== undefined || rule.retryAfter !== undefined) && rule.status === undefined) bad('rate, limit and retryAfter need a status');
  if (rule.status === undefined && !rule.latency) bad('give a status, a latency, or drop=1');
  if (rule.jitter !== undefined && rule.jitter > (rule.latency ?? 0)) bad('jitter must not exceed latency');
  if (rule.retryAfter !== undefined && !Number.isInteger(rule.retryAfter)) bad('retryAfter must be whole seconds');
  if (rule.route !== undefined) routeMatcher(rule.route);
  return rule;
}

/** `[METHOD ]PATH` with `*` wildcards -> a predicate on (method, path). */
function routeMatcher(route: string): (method: string, path: string) => boolean {
  const m = /^(?:([A-Za-z]+)\s+)?(\/\S*)$/.exec(route.trim());
  if (!m) throw new Error(`fault route "${route}" must be [METHOD ]/path, for example "POST /processor_runs*"`);
  const method = m[1]?.toUpperCase();
  let p = m[2];
  if (p === '/v1' || p.startsWith('/v1/')) p = p.slice(3) || '/';
  const re = new RegExp(`^${p.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}/?$`);
  return (mm, path) => (method === undefined || method === mm) && re.test(path);
}

interface Compiled {
  rule: FaultRule;
  matches: (method: string, path: string) => boolean;
  buckets?: Map<string, { tokens: number; at: number }>;
}

export class Faults {
  private readonly rules: Compiled[];
  private readonly rng: Rng;

  constructor(rules: readonly FaultRule[], seed: number = Math.floor(Math.random() * 2 ** 32)) {
    this.rules = rules.map((rule) => ({ rule, matches: rule.route ? routeMatcher(rule.route) : () => true, buckets: rule.limit ? new Map() : undefined }));
    this.rng = seededRandom(seed);
  }

  get size(): number {
    return this.rules.length;
  }

  /** The added latency of the matching rules, in ms. */
  delayMs(method: string, path: string): number {
    let ms = 0;
    for (const c of this.rules) {
      const { latency, jitter } = c.rule;
      if (!latency || !c.matches(method, path)) continue;
      ms += latency + (jitter ? (this.rng() * 2 - 1) * jitter : 0);
    }
    return Math.max(0, ms);
  }

  /** After the work: true when a drop rule fires and the answer must be lost. */
  dropsAnswer(method: string, path: string): boolean {
    for (const c of this.rules) {
      if (c.rule.drop === 1 && c.matches(method, path) && this.rng() < (c.rule.rate ?? 1)) return true;
    }
    return false;
  }

  /** Throws the first fault that fires for this request; `key` identifies the caller for rate limits. */
  check(method: string, path: string, key: string): void {
    for (const c of this.rules) {
      const { status } = c.rule;
      if (status === undefined || !c.matches(method, path)) continue;
      if (c.buckets) {
        const wait = take(c.buckets, key, c.rule.limit as number);
        if (wait > 0) throw faultError(status, `${REASONS[status] ?? 'injected fault'}: at most ${formatRate(c.rule.limit as number)} requests per second; retry after ${wait} s`, c.rule.retryAfter ?? wait);
      } else if (this.rng() < (c.rule.rate ?? 1)) {
        throw faultError(status, `${REASONS[status] ?? 'error'} (injected fault status=${status}); retry the request`, c.rule.retryAfter);
      }
    }
  }
}

function faultError(status: number, message: string, retryAfter: number | undefined): HttpError {
  const seconds = retryAfter ?? (status === 429 ? 1 : undefined);
  return new HttpError(status, message, seconds === undefined ? {} : retryHeaders(seconds));
}

/** Retry-After and X-RateLimit-Reset for a wait of `seconds`. */
export function retryHeaders(seconds: number): Record<string, string> {
  return { 'retry-after': String(seconds), 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + seconds) };
}

/** Token bucket: 0 when allowed, else the whole seconds to wait. */
function take(buckets: Map<string, { tokens: number; at: number }>, key: string, rate: number): number {
  const now = performance.now();
  let b = buckets.get(key);
  if (!b) {
    if (buckets.size > 10_000) buckets.clear();
    b = { tokens: rate, at: now };
    buckets.set(key, b);
  }
  b.tokens = Math.min(rate, b.tokens + ((now - b.at) / 1000) * rate);
  b.at = now;
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return 0;
  }
  return Math.max(1, Math.ceil((1 - b.tokens) / rate));
}

function formatRate(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

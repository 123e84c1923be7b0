/**
 * Shapes of the sandbox's own settings, one zod schema each, shared by the file and the
 * extension endpoint that take them:
 *
 *   --workflows FILE   {"workflows": [WorkflowDefinition...]}      = bodies of POST /workflows
 *   --webhooks FILE    {"endpoints": [EndpointDefinition...], "delivery"?: {...}}
 *                                                                  ~ bodies of POST /webhook_endpoints
 *
 * Loaded lazily (only when a file is given or the endpoint is called), so a plain
 * `evalkit sandbox` starts without loading zod.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../api/signing.js';
import { InputError } from '../util/errors.js';
import { parseJson, toPointer } from '../util/json.js';
import { normalizeVersionLabel } from './resolve.js';
import { API_VERSIONS, type ApiVersion } from './versioning.js';
import { DEFAULT_DELIVERY, type DeliveryPolicy } from './webhooks/dispatcher.js';

export type { DeliveryPolicy } from './webhooks/dispatcher.js';

export const MAX_WORKFLOW_STEPS = 20;

const ID_RE = /^[A-Za-z0-9_-]{1,128}$/;

const stepSchema = z.strictObject({
  processorId: z.string().regex(ID_RE, 'must be a processor id (letters, digits, "_" and "-")'),
  version: z
    .string()
    .refine((v) => normalizeVersionLabel(v) !== undefined, 'must be "latest", "draft" or a published version number such as "1.0"')
    .optional(),
});

const stepsSchema = z
  .array(stepSchema)
  .min(1, 'a workflow needs at least 1 step')
  .max(MAX_WORKFLOW_STEPS, `a workflow has at most ${MAX_WORKFLOW_STEPS} steps`);

/** Workflow versions are "draft" or whole numbers (spec 4.1: "a version number such as 1 or 2, or draft"). */
const workflowVersionSchema = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const s = String(v);
  if (s === 'draft') return s;
  if (/^[1-9]\d{0,5}$/.test(s)) return s;
  ctx.addIssue({ code: 'custom', message: 'must be "draft" or a whole number from 1 (such as 1 or "2")' });
  return z.NEVER;
});

export const workflowIdSchema = z.string().regex(/^workflow_[A-Za-z0-9_-]{1,119}$/, 'must start with "workflow_" followed by letters, digits, "_" or "-"');

export const workflowDefinitionSchema = z
  .strictObject({
    id: workflowIdSchema.optional(),
    name: z.string().trim().min(1, 'must be a non-empty string').max(256, 'must have at most 256 characters'),
    /** Shorthand: the draft's steps, no published version. */
    steps: stepsSchema.optional(),
    versions: z.array(z.strictObject({ version: workflowVersionSchema, steps: stepsSchema })).min(1, 'list at least one version').optional(),
  })
  .superRefine((d, ctx) => {
    if ((d.steps === undefined) === (d.versions === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give either steps (the draft) or versions ([{version: "draft" | 1 | 2..., steps}])' });
    }
    const seen = new Set<string>();
    d.versions?.forEach((v, i) => {
      if (seen.has(v.version)) ctx.addIssue({ code: 'custom', path: ['versions', i, 'version'], message: `version ${v.version} is listed twice` });
      seen.add(v.version);
    });
  });

/** A workflow as the `workflows` option of startSandbox, the file and POST /workflows take it. */
export type WorkflowSpec = z.input<typeof workflowDefinitionSchema>;

export interface WorkflowStep {
  processorId: string;
  /** "latest" (default), "draft" or "1.0". */
  version: string;
  /** The step's name, when it was defined through API 2026-02-09 (workflows/current.ts). */
  name?: string;
}

export interface WorkflowDefinition {
  id?: string;
  name: string;
  /** The draft always exists: given, or a copy of the newest published version. */
  versions: Array<{ version: string; steps: WorkflowStep[] }>;
}

export function normalizeSteps(steps: Array<{ processorId: string; version?: string }>): WorkflowStep[] {
  return steps.map((s) => ({ processorId: s.processorId, version: normalizeVersionLabel(s.version ?? 'latest') as string }));
}

function normalizeDefinition(d: z.infer<typeof workflowDefinitionSchema>): WorkflowDefinition {
  const versions = d.versions ? d.versions.map((v) => ({ version: v.version, steps: normalizeSteps(v.steps) })) : [{ version: 'draft', steps: normalizeSteps(d.steps ?? []) }];
  if (!versions.some((v) => v.version === 'draft')) {
    const newest = versions.reduce((a, b) => (Number(b.version) > Number(a.version) ? b : a));
    versions.push({ version: 'draft', steps: newest.steps });
  }
  return { id: d.id, name: d.name, versions };
}

// ---------------------------------------------------------------------------------------------
// Webhook endpoints and the delivery policy

/** An http or https URL (webhook endpoints, here and in the 2026-02-09 routes). */
export const httpUrl = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an http or https URL');

const eventsSchema = z.union([z.literal('*'), z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1, 'list at least one event type, or "*"')]);

export const MIN_SECRET_LENGTH = 16;

export const endpointDefinitionSchema = z.strictObject({
  id: z.string().regex(/^whe_[A-Za-z0-9_-]{1,124}$/, 'must start with "whe_" followed by letters, digits, "_" or "-"').optional(),
  url: httpUrl,
  secret: z.string().min(MIN_SECRET_LENGTH, `a secret must have at least ${MIN_SECRET_LENGTH} characters`).optional(),
  apiVersion: z.enum(API_VERSIONS).optional(),
  events: eventsSchema.optional(),
});

export interface EndpointDefinition {
  id?: string;
  url: string;
  secret?: string;
  apiVersion?: ApiVersion;
  /** Event types; all of them when absent or "*". */
  events: string[];
}

export const deliverySchema = z.strictObject({
  maxAttempts: z.number().int().min(1).max(50).optional(),
  baseDelayMs: z.number().int().min(0).max(3_600_000).optional(),
  maxDelayMs: z.number().int().min(0).max(86_400_000).optional(),
  timeoutMs: z.number().int().min(100).max(600_000).optional(),
  concurrency: z.number().int().min(1).max(256).optional(),
});

export const webhooksFileSchema = z.strictObject({
  endpoints: z.array(endpointDefinitionSchema.extend({ secret: endpointDefinitionSchema.shape.secret.unwrap() })),
  delivery: deliverySchema.optional(),
});

/** The `webhooks` option of startSandbox and the content of `--webhooks FILE`. */
export type WebhooksSpec = z.input<typeof webhooksFileSchema>;

export interface WebhooksConfig {
  endpoints: EndpointDefinition[];
  delivery: DeliveryPolicy;
}

function normalizeEndpoint(e: z.infer<typeof endpointDefinitionSchema>): EndpointDefinition {
  return { id: e.id, url: e.url, secret: e.secret, apiVersion: e.apiVersion, events: e.events === undefined || e.events === '*' ? [...WEBHOOK_EVENT_TYPES] : [...new Set(e.events)] };
}

// ---------------------------------------------------------------------------------------------
// Parsing

export interface Issue {
  pointer: string;
  message: string;
}

function firstIssue(e: z.ZodError): Issue {
  const i = e.issues[0];
  let message = i.message;
  if (i.code === 'unrecognized_keys') message = `unknown member${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `"${k}"`).join(', ')}`;
  return { pointer: toPointer(i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))), message };
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; issue: Issue };

export function parseWorkflowDefinition(doc: unknown): Parsed<WorkflowDefinition> {
  const r = workflowDefinitionSchema.safeParse(doc);
  return r.success ? { ok: true, value: normalizeDefinition(r.data) } : { ok: false, issue: firstIssue(r.error) };
}

export function parseEndpointDefinition(doc: unknown): Parsed<EndpointDefinition> {
  const r = endpointDefinitionSchema.safeParse(doc);
  return r.success ? { ok: true, value: normalizeEndpoint(r.data) } : { ok: false, issue: firstIssue(r.error) };
}

export function parseSteps(doc: unknown): Parsed<WorkflowStep[]> {
  const r = stepsSchema.safeParse(doc);
  return r.success ? { ok: true, value: normalizeSteps(r.data) } : { ok: false, issue: firstIssue(r.error) };
}

function readJson(file: string, what: string, flag: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read ${what}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { location: { file }, hint: `check the ${flag} path` });
  }
  return parseJson(text, file);
}

const workflowsFileSchema = z.strictObject({ workflows: z.array(z.unknown()) });

/** `--workflows FILE`: every workflow needs its id, so that runs can name it. */
export function parseWorkflowsFile(doc: unknown, file: string): WorkflowDefinition[] {
  const hint = 'expected {"workflows": [{"id": "workflow_invoices", "name": "Invoices", "versions": [{"version": 1, "steps": [{"processorId": "dp_...", "version": "1.0"}]}]}]}';
  const top = workflowsFileSchema.safeParse(doc);
  if (!top.success) {
    const i = firstIssue(top.error);
    throw new InputError(`invalid workflows file: ${i.message}`, { location: { file, pointer: i.pointer }, hint });
  }
  const seen = new Set<string>();
  return top.data.workflows.map((w, n) => {
    const r = parseWorkflowDefinition(w);
    if (!r.ok) throw new InputError(`invalid workflows file: ${r.issue.message}`, { location: { file, pointer: `/workflows/${n}${r.issue.pointer}` }, hint });
    if (!r.value.id) throw new InputError('invalid workflows file: id is required in a workflows file', { location: { file, pointer: `/workflows/${n}/id` }, hint });
    if (seen.has(r.value.id)) throw new InputError(`invalid workflows file: workflow ${r.value.id} is defined twice`, { location: { file, pointer: `/workflows/${n}/id` }, hint });
    seen.add(r.value.id);
    return r.value;
  });
}

export function loadWorkflowsFile(file: string): WorkflowDefinition[] {
  return parseWorkflowsFile(readJson(file, 'workflows file', '--workflows'), file);
}

/** `--webhooks FILE` or the `webhooks` option of startSandbox. */
export function parseWebhooksConfig(doc: unknown, file: string): WebhooksConfig {
  const r = webhooksFileSchema.safeParse(doc);
  if (!r.success) {
    const i = firstIssue(r.error);
    throw new InputError(`invalid webhooks config: ${i.message}`, {
      location: { file, pointer: i.pointer },
      hint: 'expected {"endpoints": [{"url": "http://127.0.0.1:9000/hooks", "secret": "at least 16 characters", "apiVersion"?: "2025-04-21", "events"?: ["workflow_run.completed"]}], "delivery"?: {"maxAttempts": 8}}',
    });
  }
  const seen = new Set<string>();
  r.data.endpoints.forEach((e, n) => {
    if (e.id && seen.has(e.id)) throw new InputError(`invalid webhooks config: endpoint ${e.id} is defined twice`, { location: { file, pointer: `/endpoints/${n}/id` } });
    if (e.id) seen.add(e.id);
  });
  return { endpoints: r.data.endpoints.map(normalizeEndpoint), delivery: { ...DEFAULT_DELIVERY, ...r.data.delivery } };
}

export function loadWebhooksFile(file: string): WebhooksConfig {
  return parseWebhooksConfig(readJson(file, 'webhooks file', '--webhooks'), file);
}

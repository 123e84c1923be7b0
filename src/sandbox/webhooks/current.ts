/**
 * Webhook events of API 2026-02-09 (api-2026-02-09.md section 6): the 1.x event names, the
 * mapping from the sandbox's internal events (events.ts) and where each payload comes from.
 *
 * A payload is the resource exactly as a 2026-02-09 GET answers it: the retrieve route is
 * dispatched through the router (internal.ts), so this module holds no serializer. An event
 * whose resource no 2026-02-09 route retrieves is not delivered; the dispatcher logs why.
 */
import type { Ctx } from '../context.js';
import type { SandboxEvent } from '../events.js';
import { kindOfType } from '../kinds.js';
import { stepRunId } from '../workflows/current.js';

/** `WebhookEndpointEventType` (32 values): what an endpoint's `enabledEvents` may list. */
export const ENDPOINT_EVENT_TYPES = [
  'parse_run.processed', 'parse_run.failed', 'edit_run.processed', 'edit_run.failed',
  'extract_run.processed', 'extract_run.failed', 'classify_run.processed', 'classify_run.failed', 'split_run.processed', 'split_run.failed',
  'batch_processor_run.processed', 'batch_processor_run.failed', 'batch_parse_run.processed', 'batch_parse_run.failed',
  'extractor.created', 'extractor.updated', 'extractor.deleted', 'extractor.draft.updated', 'extractor.version.published',
  'classifier.created', 'classifier.updated', 'classifier.deleted', 'classifier.draft.updated', 'classifier.version.published',
  'splitter.created', 'splitter.updated', 'splitter.deleted', 'splitter.draft.updated', 'splitter.version.published',
  'workflow.created', 'workflow.deployed', 'workflow.deleted',
] as const;

/** `WebhookSubscriptionEventType` (14 values): what a subscription's `enabledEvents` may list. */
export const SUBSCRIPTION_EVENT_TYPES = [
  'extract_run.processed', 'extract_run.failed', 'classify_run.processed', 'classify_run.failed', 'split_run.processed', 'split_run.failed',
  'batch_processor_run.processed', 'batch_processor_run.failed',
  'workflow_run.completed', 'workflow_run.failed', 'workflow_run.needs_review', 'workflow_run.rejected', 'workflow_run.cancelled', 'workflow_run.step_run.processed',
] as const;

export const SUBSCRIPTION_RESOURCE_TYPES = ['extractor', 'classifier', 'splitter', 'workflow'] as const;
export type ResourceType = (typeof SUBSCRIPTION_RESOURCE_TYPES)[number];

/** Which subscription events concern a resource of each type. */
export const EVENTS_OF_RESOURCE: Record<ResourceType, readonly string[]> = {
  extractor: ['extract_run.processed', 'extract_run.failed', 'batch_processor_run.processed', 'batch_processor_run.failed'],
  classifier: ['classify_run.processed', 'classify_run.failed', 'batch_processor_run.processed', 'batch_processor_run.failed'],
  splitter: ['split_run.processed', 'split_run.failed', 'batch_processor_run.processed', 'batch_processor_run.failed'],
  workflow: ['workflow_run.completed', 'workflow_run.failed', 'workflow_run.needs_review', 'workflow_run.rejected', 'workflow_run.cancelled', 'workflow_run.step_run.processed'],
};

/** One internal event as 2026-02-09 names it. */
export interface CurrentEvent {
  type: string;
  /** The extractor/classifier/splitter or workflow the event concerns (for subscriptions). */
  resourceId: string;
  /** The 2026-02-09 GET whose answer is the payload. */
  path: string;
  /** The payload is this item of the answer's `stepRuns` (workflow_run.step_run.processed). */
  stepRunId?: string;
}

/**
 * The mapping table (docs/sandbox-api.md "2026-02-09: workflows and webhooks"); undefined when the
 * event's resource is gone or the event has no 2026-02-09 name.
 */
export function currentEventOf(ctx: Ctx, e: SandboxEvent): CurrentEvent | undefined {
  switch (e.type) {
    case 'processor_run.processed':
    case 'processor_run.failed': {
      const r = ctx.store.st('SELECT processor_id, processor_type FROM processor_runs WHERE id = ?').get(e.runId) as { processor_id: string; processor_type: string } | undefined;
      const k = r && kindOfType(r.processor_type);
      if (!r || !k) return undefined;
      return { type: `${k.run.object}.${e.type === 'processor_run.processed' ? 'processed' : 'failed'}`, resourceId: r.processor_id, path: `/${k.run.route}/${e.runId}` };
    }
    case 'processor.created':
    case 'processor.updated':
    case 'processor.version.published': {
      const p = ctx.store.st('SELECT type FROM processors WHERE id = ?').get(e.processorId) as { type: string } | undefined;
      const k = p && kindOfType(p.type);
      if (!k) return undefined;
      if (e.type === 'processor.version.published') return { type: `${k.noun}.version.published`, resourceId: e.processorId, path: `${k.route}/${e.processorId}/versions/${e.versionId}` };
      return { type: `${k.noun}.${e.type === 'processor.created' ? 'created' : 'updated'}`, resourceId: e.processorId, path: `${k.route}/${e.processorId}` };
    }
    case 'workflow_run.completed':
    case 'workflow_run.failed':
    case 'workflow_run.cancelled':
    case 'workflow_run.step_run.processed': {
      const r = ctx.store.st('SELECT workflow_id FROM workflow_runs WHERE id = ?').get(e.workflowRunId) as { workflow_id: string } | undefined;
      if (!r) return undefined;
      const path = `/workflow_runs/${e.workflowRunId}`;
      return e.type === 'workflow_run.step_run.processed' ? { type: e.type, resourceId: r.workflow_id, path, stepRunId: stepRunId(e.runId) } : { type: e.type, resourceId: r.workflow_id, path };
    }
    case 'workflow.created':
    case 'workflow.deployed':
      return ctx.store.byId('workflows', e.workflowId) ? { type: e.type, resourceId: e.workflowId, path: `/workflows/${e.workflowId}` } : undefined;
    case 'batch_processor_run.processed':
    case 'batch_processor_run.failed': {
      const b = ctx.store.st('SELECT processor_id FROM batch_processor_runs WHERE id = ?').get(e.batchProcessorRunId) as { processor_id: string } | undefined;
      return b && { type: e.type, resourceId: b.processor_id, path: `/batch_runs/${e.batchProcessorRunId}` };
    }
    default:
      return undefined;
  }
}

/** The payload from the answer of the event's GET: the answer itself, or the step run it names. */
export function payloadOf(e: CurrentEvent, answer: string): string | undefined {
  if (!e.stepRunId) return answer;
  const steps = (JSON.parse(answer) as { stepRuns?: Array<{ id: string }> }).stepRuns ?? [];
  const step = steps.find((s) => s.id === e.stepRunId);
  return step && JSON.stringify(step);
}

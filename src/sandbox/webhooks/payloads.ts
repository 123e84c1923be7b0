/**
 * The body of one event for one endpoint: `{eventId, eventType, payload}` with the payload in
 * the endpoint's API version, as GET would serve it to a caller of that version (config layout,
 * `splits` vs `subDocumentClassifications`, `url` of runs).
 *
 *   workflow_run.completed / .failed      payload: the workflow run (batchId, metadata, outputs)
 *   processor_run.processed / .failed     payload: the processor run (metadata, output)
 *   processor.created                     payload: the processor
 *   processor.updated                     payload: the processor with its draftVersion
 *   processor.version.published           payload: the processor version
 */
import type { Ctx } from '../context.js';
import { HUB, type Json, type Layout, type ProcessorType } from '../core.js';
import type { SandboxEvent } from '../events.js';
import { processorJson, runObject, runSplice, versionJson } from '../serialize.js';
import type { ProcessorRow, VersionRow } from '../store.js';
import { workflowRunText } from '../workflows/runs.js';

/** The payload as JSON text, or undefined when its resource is gone. */
export function payloadText(ctx: Ctx, e: SandboxEvent, layout: Layout): string | undefined {
  switch (e.type) {
    case 'workflow_run.completed':
    case 'workflow_run.failed': {
      const row = ctx.store.st('SELECT doc FROM workflow_runs WHERE id = ?').get(e.workflowRunId) as { doc: string } | undefined;
      return row && workflowRunText(ctx, row.doc, layout);
    }
    case 'processor_run.processed':
    case 'processor_run.failed': {
      const row = ctx.store.st('SELECT doc FROM processor_runs WHERE id = ?').get(e.runId) as { doc: string } | undefined;
      if (!row) return undefined;
      return layout === HUB ? runSplice(ctx, row.doc, e.runId) : JSON.stringify(runObject(ctx, JSON.parse(row.doc) as Json, layout));
    }
    case 'processor.created':
    case 'processor.updated': {
      const p = ctx.store.byId<ProcessorRow>('processors', e.processorId);
      if (!p) return undefined;
      if (e.type === 'processor.created') return JSON.stringify(processorJson(p));
      const draft = ctx.store.byId<VersionRow>('processor_versions', p.draft_version_id);
      return JSON.stringify({ ...processorJson(p), ...(draft ? { draftVersion: versionJson(ctx, draft, p.type as ProcessorType, layout) } : {}) });
    }
    case 'processor.version.published': {
      const p = ctx.store.byId<ProcessorRow>('processors', e.processorId);
      const v = ctx.store.byId<VersionRow>('processor_versions', e.versionId);
      return p && v ? JSON.stringify(versionJson(ctx, v, p.type as ProcessorType, layout)) : undefined;
    }
    default:
      return undefined;
  }
}

export function envelopeText(eventId: string, eventType: string, payload: string): string {
  return `{"eventId":${JSON.stringify(eventId)},"eventType":${JSON.stringify(eventType)},"payload":${payload}}`;
}

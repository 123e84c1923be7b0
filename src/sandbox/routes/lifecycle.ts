/**
 * Cancel and delete of processor runs and workflow runs, and a reviewer's output of a workflow
 * run step: endpoints of the service that the official SDK (0.0.12) calls and service-api.md does
 * not show. Answers are in the SDK's shapes.
 *
 *   POST   /processor_runs/:id/cancel            a PROCESSING run becomes CANCELLED -> {success, processorRun}
 *   DELETE /processor_runs/:id                    -> {success, documentProcessorRunId, message}
 *   POST   /workflow_runs/:id/cancel              the run and its current step become CANCELLED -> {success, workflowRun}
 *   DELETE /workflow_runs/:id                     the run and its steps' processor runs -> {success, workflowRunId, message}
 *   POST   /workflow_runs/:id/outputs/:outputId   {reviewedOutput} -> {success, workflowRun}
 *
 * Only a PROCESSING run can be cancelled, and a PROCESSING run cannot be deleted (cancel it
 * first): a 400 naming the status. A cancelled run of an evaluation run counts as ended.
 */
import type { Ctx } from '../context.js';
import { HUB, type Json } from '../core.js';
import { badRequest, checkId, notFound, objectBody, RawJson, type Req } from '../http.js';
import { nowIso } from '../ids.js';
import type { Route } from '../router.js';
import { runObject, runSplice } from '../serialize.js';
import type { RunRow, WorkflowRunRow } from '../store.js';
import { isPlainObject } from '../../util/json.js';
import { updateWorkflowOutput, workflowRunText } from '../workflows/runs.js';
import { cancelWorkflowRun, deleteWorkflowRun, loadWorkflowRun } from '../workflows/ops.js';
import { cancelRun, deleteRun, loadRun } from '../runOps.js';
import { expectedProblems } from './evaluation.js';

function served(ctx: Ctx, req: Req, id: string): string {
  const doc = (ctx.store.byId<RunRow>('processor_runs', id) as RunRow).doc;
  return req.layout === HUB ? runSplice(ctx, doc, id) : JSON.stringify(runObject(ctx, JSON.parse(doc) as Json, req.layout));
}

function cancelProcessorRun(req: Req, ctx: Ctx): RawJson {
  const row = loadRun(ctx, req, req.params.id);
  cancelRun(ctx, row, 'processor run');
  return new RawJson(`{"success":true,"processorRun":${served(ctx, req, row.id)}}`);
}

function deleteProcessorRun(req: Req, ctx: Ctx): Json {
  const row = loadRun(ctx, req, req.params.id);
  deleteRun(ctx, row, 'processor run', `/processor_runs/${row.id}/cancel`);
  return { success: true, documentProcessorRunId: row.id, message: `processor run ${row.id} deleted` };
}

function cancelWorkflowRunRoute(req: Req, ctx: Ctx): RawJson {
  const doc = cancelWorkflowRun(ctx, loadWorkflowRun(req, ctx));
  return new RawJson(`{"success":true,"workflowRun":${workflowRunText(ctx, doc, req.layout)}}`);
}

function deleteWorkflowRunRoute(req: Req, ctx: Ctx): Json {
  const wr = loadWorkflowRun(req, ctx);
  deleteWorkflowRun(ctx, wr);
  return { success: true, workflowRunId: wr.id, message: `workflow run ${wr.id} deleted` };
}

/** A reviewer's output for one step: checked like an expected output, then it is the step's reviewedOutput and output. */
function updateOutput(req: Req, ctx: Ctx): RawJson {
  const wr = loadWorkflowRun(req, ctx);
  const outputId = checkId(req.params.outputId, 'output id');
  const outputs = (JSON.parse(wr.doc) as Json).outputs as Json[];
  if (!outputs.some((o) => o.id === outputId)) throw notFound(`workflow run ${wr.id} has no output ${outputId}`);
  const body = objectBody(req.body);
  for (const k of Object.keys(body)) if (k !== 'reviewedOutput') throw badRequest(`${k} is not accepted: an output update is {reviewedOutput}`);
  if (!isPlainObject(body.reviewedOutput)) throw badRequest('reviewedOutput is required: the output object after review');
  const row = loadRun(ctx, req, outputId);
  const doc = JSON.parse(row.doc) as Json;
  if (doc.status !== 'PROCESSED') throw badRequest(`output ${outputId} is ${String(doc.status)}; only a PROCESSED output can be reviewed`);
  const given = row.processor_type === 'SPLITTER' ? ctx.core.splitterOutput(body.reviewedOutput, HUB) : body.reviewedOutput;
  const problems = expectedProblems(ctx, doc.config as Json, given, `the step's config`);
  if (problems.length) throw badRequest(`reviewedOutput does not match the step's config: ${problems.slice(0, 5).map((f) => `/reviewedOutput${f.pointer}: ${f.message} (rule ${f.rule})`).join('; ')}`);
  const reviewed = asOutput(row.processor_type, given);
  const now = nowIso();
  const reviewer = req.token.name;
  Object.assign(doc, { reviewedOutput: reviewed, output: reviewed, reviewed: true, edited: JSON.stringify(reviewed) !== JSON.stringify(doc.initialOutput), reviewedBy: reviewer, reviewedAt: now, updatedAt: now });
  ctx.store.tx(() => {
    ctx.store.st('UPDATE processor_runs SET doc = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(doc), now, row.id);
    updateWorkflowOutput(ctx, wr.id, doc, reviewer, now);
  });
  const text = (ctx.store.byId<WorkflowRunRow>('workflow_runs', wr.id) as WorkflowRunRow).doc;
  return new RawJson(`{"success":true,"workflowRun":${workflowRunText(ctx, text, req.layout)}}`);
}

/**
 * A provided output (metadata, confidence and insights optional) as a processor output, which
 * the SDK types with them: EXTRACT gets `metadata: {}`, CLASSIFY `confidence: 1` (a reviewer's
 * choice) and `insights: []`.
 */
function asOutput(type: string, o: Json): Json {
  if (type === 'EXTRACT' && 'value' in o) return { ...o, metadata: o.metadata ?? {} };
  if (type === 'CLASSIFY') return { ...o, confidence: o.confidence ?? 1, insights: o.insights ?? [] };
  return o;
}

export const lifecycleRoutes: Route[] = [
  { method: 'POST', pattern: '/processor_runs/:id/cancel', versions: 'both', body: 'json', handler: cancelProcessorRun },
  { method: 'DELETE', pattern: '/processor_runs/:id', versions: 'both', handler: deleteProcessorRun },
  { method: 'POST', pattern: '/workflow_runs/:id/cancel', body: 'json', handler: cancelWorkflowRunRoute },
  { method: 'DELETE', pattern: '/workflow_runs/:id', handler: deleteWorkflowRunRoute },
  { method: 'POST', pattern: '/workflow_runs/:id/outputs/:outputId', body: 'json', handler: updateOutput },
];

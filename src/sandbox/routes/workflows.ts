/**
 * Sandbox extension: workflow definitions. The service builds workflows in its dashboard; the
 * sandbox needs a way to define them, with the same semantics as processors: a draft that
 * changes, published versions ("1", "2"...) that do not.
 *
 *   POST /workflows              {id?, name, steps} | {id?, name, versions: [{version, steps}]}
 *   POST /workflows/:id          {name?, steps?}      changes the name and the draft
 *   POST /workflows/:id/publish  {steps?}             the draft (or steps) as the next version
 *   GET  /workflows, GET /workflows/:id
 */
import { assertWorkspaceToken } from '../auth.js';
import type { Ctx } from '../context.js';
import type { Json } from '../core.js';
import { badRequest, objectBody, optString, type Req } from '../http.js';
import { pageParams } from '../paging.js';
import type { Route } from '../router.js';
import type { WorkflowStep } from '../settings.js';
import type { WorkflowRow } from '../store.js';
import { setMeta } from '../meta.js';
import { workflowVersionId } from '../workflows/runs.js';
import { checkSteps, listWorkflows, loadWorkflow, publishWorkflow, saveWorkflow, updateDraft, workflowJson } from '../workflows/definitions.js';

const settings = () => import('../settings.js');

async function create(req: Req, ctx: Ctx): Promise<Json> {
  assertWorkspaceToken(req.token, 'creating a workflow');
  const body = objectBody(req.body);
  // The official SDK's workflow.create sends only {name}: a workflow with an empty draft, given steps later.
  if (Object.keys(body).length === 1 && 'name' in body) {
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    if (name === '' || name.length > 256) throw badRequest('invalid workflow at /name: must be a non-empty string of at most 256 characters');
    const def = { id: ctx.ids('workflow'), name, versions: [{ version: 'draft', steps: [] }] };
    saveWorkflow(ctx.store, def, 'api', false);
    setMeta(ctx, def.id, { createdBy: req.token });
    ctx.events.emit({ type: 'workflow.created', workflowId: def.id });
    return { success: true, workflow: workflowJson(ctx, ctx.store.byId<WorkflowRow>('workflows', def.id) as WorkflowRow) };
  }
  const r = (await settings()).parseWorkflowDefinition(body);
  if (!r.ok) throw badRequest(`invalid workflow at ${r.issue.pointer || '/'}: ${r.issue.message}`);
  const def = { ...r.value, id: r.value.id ?? ctx.ids('workflow') };
  const given = req.body as { versions?: unknown };
  def.versions.forEach((v, i) => checkSteps(ctx, v.steps, given.versions ? `/versions/${i}/steps` : '/steps'));
  saveWorkflow(ctx.store, def, 'api', false);
  // Who created it, for API 2026-02-09's createdBy (meta.ts); no 2025-04-21 answer shows it.
  setMeta(ctx, def.id, { createdBy: req.token });
  ctx.events.emit({ type: 'workflow.created', workflowId: def.id });
  return { success: true, workflow: workflowJson(ctx, ctx.store.byId<WorkflowRow>('workflows', def.id) as WorkflowRow) };
}

async function optionalSteps(ctx: Ctx, body: Json): Promise<WorkflowStep[] | undefined> {
  if (body.steps === undefined || body.steps === null) return undefined;
  const r = (await settings()).parseSteps(body.steps);
  if (!r.ok) throw badRequest(`invalid steps at /steps${r.issue.pointer}: ${r.issue.message}`);
  checkSteps(ctx, r.value, '/steps');
  return r.value;
}

async function update(req: Req, ctx: Ctx): Promise<Json> {
  assertWorkspaceToken(req.token, 'changing a workflow');
  const wf = loadWorkflow(ctx, req, req.params.id);
  const body = objectBody(req.body);
  for (const k of Object.keys(body)) if (k !== 'name' && k !== 'steps') throw badRequest(`unknown member "${k}": a workflow update takes name and steps`);
  const name = optString(body, 'name');
  if (name !== undefined && (name.trim() === '' || name.length > 256)) throw badRequest('name must be a non-empty string of at most 256 characters');
  const steps = await optionalSteps(ctx, body);
  if (name === undefined && steps === undefined) throw badRequest('supply name or steps to update a workflow');
  updateDraft(ctx, wf, name, steps);
  return { success: true, workflow: workflowJson(ctx, ctx.store.byId<WorkflowRow>('workflows', wf.id) as WorkflowRow) };
}

async function publish(req: Req, ctx: Ctx): Promise<Json> {
  assertWorkspaceToken(req.token, 'publishing a workflow');
  const wf = loadWorkflow(ctx, req, req.params.id);
  const body = objectBody(req.body);
  for (const k of Object.keys(body)) if (k !== 'steps') throw badRequest(`unknown member "${k}": publishing takes only steps (default: the draft's)`);
  const steps = await optionalSteps(ctx, body);
  const draft = ctx.store.st("SELECT steps FROM workflow_versions WHERE workflow_id = ? AND version = 'draft'").get(wf.id) as { steps: string } | undefined;
  if (!steps && (!draft || (JSON.parse(draft.steps) as unknown[]).length === 0)) throw badRequest(`workflow ${wf.id} has no steps in its draft; publish with {steps} or give the draft steps first`);
  const v = publishWorkflow(ctx, wf, steps);
  setMeta(ctx, workflowVersionId(wf.id, v.version), { createdBy: req.token });
  ctx.events.emit({ type: 'workflow.deployed', workflowId: wf.id });
  return { success: true, workflow: workflowJson(ctx, ctx.store.byId<WorkflowRow>('workflows', wf.id) as WorkflowRow), version: v.version };
}

function get(req: Req, ctx: Ctx): Json {
  return { success: true, workflow: workflowJson(ctx, loadWorkflow(ctx, req, req.params.id)) };
}

function list(req: Req, ctx: Ctx): Json {
  const page = pageParams(req, ctx.secret, { createdAt: 'created_at', updatedAt: 'updated_at', name: 'name' }, 'createdAt', 'desc');
  const { rows, nextPageToken } = listWorkflows(ctx, req, page);
  return { success: true, workflows: rows.map((w) => workflowJson(ctx, w)), nextPageToken };
}

export const workflowRoutes: Route[] = [
  { method: 'POST', pattern: '/workflows', body: 'json', handler: create },
  { method: 'GET', pattern: '/workflows', handler: list },
  { method: 'GET', pattern: '/workflows/:id', handler: get },
  { method: 'POST', pattern: '/workflows/:id', body: 'json', handler: update },
  { method: 'POST', pattern: '/workflows/:id/publish', body: 'json', handler: publish },
];

/**
 * Sandbox extension: a reviewer edits a processed run's output, as a human review in the
 * service's dashboard would (spec 2.1, 2.2). The service shows no endpoint for it; tests and
 * pipelines use this one to produce reviewed runs.
 *
 *   POST /processor_runs/:id/review  {reviewedBy, edits: {<fieldId>: {editedValue, notes?}}}
 *
 * Field ids: EXTRACT the config's field ids (top-level schema properties, or `fields` ids);
 * CLASSIFY `classification` (editedValue: a classification id); SPLITTER `splits` (editedValue:
 * the list of splits; `subDocumentClassifications` is accepted as its old name).
 *
 * Effects: `initialOutput` stays; `reviewedOutput` and `output` become the edited output;
 * `edited` and `reviewed` true; `edits[fieldId]` = {originalValue (from initialOutput),
 * editedValue, fieldType, notes}; `reviewedBy`, `reviewedAt`. On a workflow step the workflow
 * run's output item and its reviewedBy/reviewedAt change in the same transaction. Edited
 * values are checked with the expected-output rules (src/expected); a 400 names each finding.
 */
import { assertProcessorAccess } from '../auth.js';
import type { Ctx } from '../context.js';
import { HUB, type Json } from '../core.js';
import { kindOf } from '../engine/synthesize.js';
import { badRequest, checkId, notFound, objectBody, RawJson, reqString, type Req } from '../http.js';
import { nowIso } from '../ids.js';
import type { Route } from '../router.js';
import { runObject, runSplice } from '../serialize.js';
import type { RunRow } from '../store.js';
import { escapePointerToken, isPlainObject } from '../../util/json.js';
import { updateWorkflowOutput, WORKFLOW_SOURCE } from '../workflows/runs.js';
import { expectedProblems } from './evaluation.js';

interface Applied {
  originalValue: unknown;
  fieldType: string;
  /** Findings under this pointer belong to this edit. */
  pointer: string;
}

function unknownField(fieldId: string, known: string[]): never {
  throw badRequest(`edits.${fieldId}: no such field in the run's config; fields: ${known.join(', ') || '(none)'}`);
}

/** Applies one edit to `next` (the output being built) and describes it. */
function apply(config: Json, type: string, next: Json, initial: Json | null, fieldId: string, editedValue: unknown): Applied {
  if (type === 'CLASSIFY') {
    if (fieldId !== 'classification') unknownField(fieldId, ['classification']);
    const classes = (Array.isArray(config.classifications) ? config.classifications : []).filter(isPlainObject);
    const cls = classes.find((c) => c.id === editedValue);
    if (!cls) throw badRequest(`edits.classification.editedValue must be a classification id of the config: ${classes.map((c) => String(c.id)).join(', ')}`);
    Object.assign(next, { id: cls.id, type: cls.type ?? cls.id, confidence: 1 });
    return { originalValue: initial?.id ?? null, fieldType: 'classification', pointer: '/id' };
  }
  if (type === 'SPLITTER') {
    if (fieldId !== 'splits') unknownField(fieldId, ['splits']);
    if (!Array.isArray(editedValue)) throw badRequest('edits.splits.editedValue must be the list of splits');
    next.splits = editedValue;
    return { originalValue: initial?.splits ?? null, fieldType: 'splits', pointer: '/splits' };
  }
  if (isPlainObject(config.schema)) {
    const props = isPlainObject(config.schema.properties) ? config.schema.properties : {};
    if (!(fieldId in props)) unknownField(fieldId, Object.keys(props));
    next.value = { ...(isPlainObject(next.value) ? next.value : {}), [fieldId]: editedValue };
    const before = isPlainObject(initial?.value) ? (initial.value as Json)[fieldId] : undefined;
    return { originalValue: before ?? null, fieldType: kindOf(props[fieldId]), pointer: `/value/${escapePointerToken(fieldId)}` };
  }
  // Legacy fields-array form: the output is keyed by field name, each entry {id, type, value, ...}.
  const fields = (Array.isArray(config.fields) ? config.fields : []).filter(isPlainObject);
  const field = fields.find((f) => f.id === fieldId);
  if (!field) unknownField(fieldId, fields.map((f) => String(f.id)));
  const name = typeof field.name === 'string' ? field.name : fieldId;
  const entry = isPlainObject(next[name]) ? next[name] : { id: fieldId, type: field.type };
  next[name] = { ...entry, value: editedValue };
  const before = initial && isPlainObject(initial[name]) ? initial[name].value : undefined;
  return { originalValue: before ?? null, fieldType: String(field.type ?? 'string'), pointer: `/${escapePointerToken(name)}` };
}

function parseEdits(body: Json): Array<{ fieldId: string; editedValue: unknown; notes: string | null }> {
  const edits = body.edits;
  if (!isPlainObject(edits) || Object.keys(edits).length === 0) throw badRequest('edits is required: {<fieldId>: {editedValue, notes?}} with at least one field');
  return Object.entries(edits).map(([fieldId, e]) => {
    if (!isPlainObject(e) || !('editedValue' in e)) throw badRequest(`edits.${fieldId} must be {editedValue, notes?} (editedValue may be null)`);
    for (const k of Object.keys(e)) if (k !== 'editedValue' && k !== 'notes') throw badRequest(`edits.${fieldId}.${k} is not accepted: an edit is {editedValue, notes?}`);
    if (e.notes !== undefined && e.notes !== null && typeof e.notes !== 'string') throw badRequest(`edits.${fieldId}.notes must be a string`);
    return { fieldId: fieldId === 'subDocumentClassifications' ? 'splits' : fieldId, editedValue: e.editedValue, notes: (e.notes as string | undefined) ?? null };
  });
}

function review(req: Req, ctx: Ctx): RawJson {
  const id = checkId(req.params.id, 'processor run id');
  const row = ctx.store.byId<RunRow>('processor_runs', id);
  if (!row) throw notFound(`processor run ${id} not found`);
  assertProcessorAccess(req.token, row.processor_id);
  const body = objectBody(req.body);
  for (const k of Object.keys(body)) if (k !== 'reviewedBy' && k !== 'edits') throw badRequest(`${k} is not accepted: a review is {reviewedBy, edits}`);
  const reviewedBy = reqString(body, 'reviewedBy');
  const edits = parseEdits(body);
  const doc = JSON.parse(row.doc) as Json;
  if (doc.status !== 'PROCESSED') throw badRequest(`processor run ${id} is ${String(doc.status)}; only PROCESSED runs can be reviewed`);
  const config = doc.config as Json;
  const type = String(doc.type);
  const next = structuredClone(doc.output as Json);
  const initial = (doc.initialOutput as Json | null) ?? null;
  const records: Json = { ...(isPlainObject(doc.edits) ? doc.edits : {}) };
  const pointers: Array<[string, string]> = [];
  for (const e of edits) {
    const a = apply(config, type, next, initial, e.fieldId, e.editedValue);
    records[e.fieldId] = { originalValue: a.originalValue, editedValue: e.editedValue, fieldType: a.fieldType, notes: e.notes };
    pointers.push([e.fieldId, a.pointer]);
  }
  if (type !== 'CLASSIFY') {
    const problems = expectedProblems(ctx, config, next, `the run's config`)
      .flatMap((f) => pointers.filter(([, p]) => f.pointer === p || f.pointer.startsWith(p + '/')).map(([fieldId]) => `edits.${fieldId}: ${f.pointer} ${f.rule}: ${f.message}`));
    if (problems.length) throw badRequest(`invalid edited value: ${problems.slice(0, 5).join('; ')}`);
  }
  const now = nowIso();
  Object.assign(doc, { reviewedOutput: next, output: next, edited: true, reviewed: true, edits: records, reviewedBy, reviewedAt: now, updatedAt: now });
  const text = JSON.stringify(doc);
  ctx.store.tx(() => {
    ctx.store.st('UPDATE processor_runs SET doc = ?, updated_at = ? WHERE id = ?').run(text, now, id);
    if (row.source === WORKFLOW_SOURCE && row.source_id) updateWorkflowOutput(ctx, row.source_id, doc, reviewedBy, now);
  });
  const served = req.layout === HUB ? runSplice(ctx, text, id) : JSON.stringify(runObject(ctx, doc, req.layout));
  return new RawJson(`{"success":true,"processorRun":${served}}`);
}

export const reviewRoutes: Route[] = [{ method: 'POST', pattern: '/processor_runs/:id/review', versions: 'both', body: 'json', handler: review }];

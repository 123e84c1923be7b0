import { afterAll, beforeAll, expect, test } from 'vitest';
import { CLASSIFY_CONFIG, INVOICE_CONFIG, SPLITTER_CONFIG, createProcessor, start, type TestSandbox } from './helpers.js';

type Json = Record<string, unknown>;

let t: TestSandbox;
beforeAll(async () => {
  t = await start({ engine: 'simulate:3,0' });
});
afterAll(() => t.close());

/** A processed workflow run with one step of the given processor; returns it and its step's run id. */
async function processed(type: string, config: unknown, text: string): Promise<{ workflowRunId: string; runId: string }> {
  const pid = await createProcessor(t, type, config);
  const wf = (await t.call<{ workflow: { id: string } }>('POST', '/workflows', { body: { name: 'review', steps: [{ processorId: pid }] } })).body.workflow.id;
  const run = (await t.call<{ workflowRuns: Array<{ id: string }> }>('POST', '/workflow_runs', { body: { workflowId: wf, rawTexts: [text] } })).body.workflowRuns[0];
  await t.sb.idle();
  // The step's output item appears once the step has produced its output.
  const done = (await t.call<{ workflowRun: { outputs: Array<{ id: string }> } }>('GET', `/workflow_runs/${run.id}`)).body.workflowRun;
  return { workflowRunId: run.id, runId: done.outputs[0].id };
}

async function review(runId: string, body: unknown, version?: string) {
  return t.call<{ processorRun: Json }>('POST', `/processor_runs/${runId}/review`, { body, ...(version ? { version } : {}) });
}

test('an edited EXTRACT field sets edited, edits, reviewedOutput, output, reviewedBy and reviewedAt on the run and the workflow run', async () => {
  const { workflowRunId, runId } = await processed('EXTRACT', INVOICE_CONFIG, 'Invoice number: INV-1\nTotal: 10');
  const before = (await t.call<{ processorRun: Json & { output: { value: Json } } }>('GET', `/processor_runs/${runId}`)).body.processorRun;
  const r = await review(runId, { reviewedBy: 'user_alice', edits: { total: { editedValue: 12.5, notes: 'read from the stamp' }, amount_due: { editedValue: { amount: 12.5, iso_4217_currency_code: 'EUR' } } } });
  expect(r.status).toBe(200);
  const run = r.body.processorRun as Json & { output: { value: Json }; reviewedOutput: { value: Json }; initialOutput: { value: Json } };
  expect(run).toMatchObject({ edited: true, reviewed: true, reviewedBy: 'user_alice' });
  expect(run.initialOutput).toEqual(before.output);
  expect(run.output.value).toMatchObject({ total: 12.5, amount_due: { amount: 12.5, iso_4217_currency_code: 'EUR' }, invoice_number: before.output.value.invoice_number });
  expect(run.reviewedOutput).toEqual(run.output);
  expect(run.edits).toEqual({
    total: { originalValue: before.output.value.total, editedValue: 12.5, fieldType: 'number', notes: 'read from the stamp' },
    amount_due: { originalValue: before.output.value.amount_due, editedValue: { amount: 12.5, iso_4217_currency_code: 'EUR' }, fieldType: 'currency', notes: null },
  });
  // A second edit of the same field keeps the original value of the initial output.
  const again = await review(runId, { reviewedBy: 'user_bob', edits: { total: { editedValue: 13 } } });
  expect((again.body.processorRun.edits as Record<string, Json>).total).toEqual({ originalValue: before.output.value.total, editedValue: 13, fieldType: 'number', notes: null });

  const wr = (await t.call<{ workflowRun: Json & { outputs: Json[] } }>('GET', `/workflow_runs/${workflowRunId}`)).body.workflowRun;
  expect(wr).toMatchObject({ reviewedBy: 'user_bob', reviewedAt: again.body.processorRun.reviewedAt });
  expect(wr.outputs[0]).toMatchObject({ id: runId, edited: true, initialOutput: before.output, reviewedOutput: again.body.processorRun.output, output: again.body.processorRun.output });
});

test('CLASSIFY: the classification; SPLITTER: the splits (old name accepted, old layout served)', async () => {
  const c = await processed('CLASSIFY', CLASSIFY_CONFIG, 'receipt');
  const rc = await review(c.runId, { reviewedBy: 'u', edits: { classification: { editedValue: 'contract' } } });
  expect(rc.body.processorRun.output).toMatchObject({ id: 'contract', type: 'contract', confidence: 1 });
  expect((rc.body.processorRun.edits as Record<string, Json>).classification).toMatchObject({ editedValue: 'contract', fieldType: 'classification' });

  const s = await processed('SPLITTER', SPLITTER_CONFIG, 'one\ftwo');
  const splits = [
    { id: 's1', classificationId: 'invoice', type: 'invoice', startPage: 1, endPage: 1 },
    { id: 's2', classificationId: 'receipt', type: 'receipt', startPage: 2, endPage: 2 },
  ];
  const rs = await review(s.runId, { reviewedBy: 'u', edits: { subDocumentClassifications: { editedValue: splits } } }, '2024-12-23');
  expect(rs.status).toBe(200);
  expect(rs.body.processorRun.output).toEqual({ subDocumentClassifications: splits });
  const now = (await t.call<{ processorRun: Json }>('GET', `/processor_runs/${s.runId}`)).body.processorRun;
  expect(now.output).toEqual({ splits });
  expect(now.edits).toMatchObject({ splits: { editedValue: splits, fieldType: 'splits' } });
});

test.each([
  ['no reviewedBy', { edits: { total: { editedValue: 1 } } }, 'reviewedBy is required'],
  ['no edits', { reviewedBy: 'u', edits: {} }, 'edits is required'],
  ['an edit without editedValue', { reviewedBy: 'u', edits: { total: { value: 1 } } }, 'edits.total must be {editedValue, notes?}'],
  ['an unknown field', { reviewedBy: 'u', edits: { totl: { editedValue: 1 } } }, 'edits.totl: no such field in the run\'s config; fields: invoice_number, total'],
  ['a value of the wrong type', { reviewedBy: 'u', edits: { total: { editedValue: 'twelve' } } }, 'edits.total: /value/total type-mismatch'],
  ['a malformed currency', { reviewedBy: 'u', edits: { amount_due: { editedValue: 12 } } }, 'edits.amount_due: /value/amount_due currency-shape'],
])('400 for %s', async (_n, body, msg) => {
  const { runId } = await processed('EXTRACT', INVOICE_CONFIG, 'Total: 3');
  const r = await review(runId, body);
  expect(r.status).toBe(400);
  expect(r.body.error).toContain(msg);
  expect((await t.call<{ processorRun: Json }>('GET', `/processor_runs/${runId}`)).body.processorRun.edited).toBe(false);
});

test('a run still processing cannot be reviewed; an unknown run is a 404', async () => {
  const pid = await createProcessor(t, 'EXTRACT', INVOICE_CONFIG);
  t.sb.pauseEngine();
  try {
    const run = (await t.call<{ processorRun: { id: string } }>('POST', '/processor_runs', { body: { processorId: pid, rawText: 'x' } })).body.processorRun;
    const r = await review(run.id, { reviewedBy: 'u', edits: { total: { editedValue: 1 } } });
    expect([r.status, r.body.error]).toEqual([400, `processor run ${run.id} is PROCESSING; only PROCESSED runs can be reviewed`]);
  } finally {
    t.sb.resumeEngine();
  }
  expect((await review('dpr_missing', { reviewedBy: 'u', edits: { total: { editedValue: 1 } } })).status).toBe(404);
});

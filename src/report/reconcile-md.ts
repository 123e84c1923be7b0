/**
 * The reconciliation in words: report.md's section (a table of the service's figures beside
 * evalkit's, with the reasons; the recomputation's findings; what the answer does not give) and
 * the line of `evalkit report`'s text summary.
 */
import type { Reconciliation, ReconciliationRow, Report } from '../metrics/generated/report.js';
import { code, num, type MarkdownBlock } from './markdown.js';

/** The service gives no figure where its definition (recomputed) gives one. */
export const notGivenRow = (r: ReconciliationRow): boolean => r.service === null && r.recomputed !== null;

/** `accuracy`, `field total accuracy`, `class invoice recall`, `split precision`, in Markdown. */
function figure(r: ReconciliationRow): string {
  if (r.kind === 'aggregate') return r.metric;
  if (r.kind === 'split') return `splits ${r.metric}`;
  return `${r.kind} ${code(r.key)} ${r.metric}`;
}

const counts = (c: { k: number; n: number } | undefined): string => (c ? ` (${c.k} / ${c.n})` : '');

export function serviceValue(r: ReconciliationRow): string {
  return notGivenRow(r) ? 'not given' : `${num(r.service)}${counts(r.serviceCounts)}`;
}

/** The reconciliations of a report: the reference run's, then each later run's that has one (headed with its run). */
export function reconciliationsOf(r: Report): Array<{ rec: Reconciliation; run?: { index: number; file: string } }> {
  const out: Array<{ rec: Reconciliation; run?: { index: number; file: string } }> = r.reconciliation ? [{ rec: r.reconciliation }] : [];
  for (const run of r.runs?.runs ?? []) if (run.reconciliation) out.push({ rec: run.reconciliation, run: { index: run.index, file: run.file } });
  return out;
}

export function reconciliationBlocks(rec: Reconciliation, run?: { index: number; file: string }): MarkdownBlock[] {
  const of = run ? ` of run #${run.index} ${code(run.file)}` : '';
  const out: MarkdownBlock[] = [`### The service's figures${of} (evaluation set run ${code(rec.evaluationSetRunId)}, ${rec.status})\n`];
  if (rec.partial) out.push(`**Partial run**: the service's run is ${rec.status}, not PROCESSED; it was scored because --allow-partial was given, and the service's figures cover only what it finished.\n`);
  const differ = rec.rows.filter((r) => r.differs).length;
  out.push(
    `Each figure of the service beside evalkit's counterpart computed evalkit's way; **recomputed** is evalkit's recomputation of the service's own definition from the export's items. ${differ} of ${rec.rows.length} figure(s) differ from evalkit's (by more than 1e-9); each reason counts the items that show it.\n`,
  );
  const rows = [...rec.rows]
    .sort((a, b) => Number(b.differs) - Number(a.differs))
    .map((r) => [
      figure(r),
      serviceValue(r),
      num(r.recomputed),
      `${num(r.evalkit)}${counts(r.evalkitCounts)}`,
      r.evalkitMetric ? code(r.evalkitMetric) : 'none',
      r.differs ? 'yes' : '',
      r.reasons.map((x) => x.text).join('; '),
    ]);
  out.push({ head: ['figure', 'service', 'recomputed', 'evalkit', 'evalkit metric', 'differs', 'why'], align: ['l', 'r', 'r', 'r', 'l', 'l', 'l'], rows, cuttable: true });
  if (rec.findings.length) {
    out.push(
      `**${rec.findings.length} figure(s) of the service's answer disagree with evalkit's recomputation of the service's own definitions**:\n`,
      { head: ['metric', 'service', 'recomputed'], align: ['l', 'r', 'r'], rows: rec.findings.map((f) => [code(f.metric), f.service === null ? 'absent' : String(f.service), f.recomputed === null ? 'none' : String(f.recomputed)]), cuttable: true },
    );
  } else out.push("evalkit's recomputation agrees with every figure the service gave.\n");
  if (rec.notGiven.length) out.push(`Not given by the service (its definitions give them here): ${rec.notGiven.map(code).join(', ')}.\n`);
  return out;
}

/** One line for the text summary: `service run evr_1: accuracy 0.625 · evalkit micro.recall 0.667 · 3 of 6 figures differ · 2 recomputation finding(s)`. */
export function reconciliationLine(rec: Reconciliation, run?: { index: number; file: string }): string {
  const head = rec.rows[0];
  const parts = [`${run ? `run #${run.index} ${run.file}: ` : ''}service run ${rec.evaluationSetRunId} (${rec.status}${rec.partial ? ', partial' : ''})`];
  if (head) parts.push(`${head.kind === 'split' ? `splits ${head.metric}` : head.metric} ${notGivenRow(head) ? 'not given' : num(head.service)} · evalkit ${head.evalkitMetric} ${num(head.evalkit)}`);
  parts.push(`${rec.rows.filter((r) => r.differs).length} of ${rec.rows.length} figures differ`);
  parts.push(`${rec.findings.length} recomputation finding(s)`);
  if (rec.notGiven.length) parts.push(`${rec.notGiven.length} not given`);
  return parts.join(' · ');
}

/**
 * The reconciliation panel of report.html's overview: the service's figures beside evalkit's
 * counterparts, the difference, the reasons, the recomputation's findings and what the service
 * did not give. Static HTML (the overview reads without script); every string is escaped.
 */
import type { Reconciliation, ReconciliationRow } from '../metrics/generated/report.js';
import { esc } from './html.js';
import { num } from './markdown.js';
import { notGivenRow } from './reconcile-md.js';

const counts = (c: { k: number; n: number } | undefined): string => (c ? ` <small>(${c.k} / ${c.n})</small>` : '');
const signed = (v: number): string => `${v > 0 ? '+' : v < 0 ? '−' : '±'}${Math.abs(v).toFixed(3)}`;

function figure(r: ReconciliationRow): string {
  if (r.kind === 'aggregate') return `<b>${esc(r.metric)}</b>`;
  if (r.kind === 'split') return `splits ${esc(r.metric)}`;
  return `${r.kind} <code>${esc(r.key)}</code> ${esc(r.metric)}`;
}

/** The panel of the reference run's reconciliation, or of a later run's (headed with the run; its own anchor). */
export function reconciliationHtml(rec: Reconciliation | undefined, run?: { index: number; file: string }): string {
  if (!rec) return '';
  const differ = rec.rows.filter((r) => r.differs).length;
  const rows = [...rec.rows]
    .sort((a, b) => Number(b.differs) - Number(a.differs))
    .map((r) => {
      const service = notGivenRow(r) ? '<em>not given</em>' : `${num(r.service)}${counts(r.serviceCounts)}`;
      const delta = r.service !== null && r.evalkit !== null ? signed(r.service - r.evalkit) : '';
      const why = r.reasons.length ? `<ul class="why">${r.reasons.map((x) => `<li>${esc(x.text)}</li>`).join('')}</ul>` : '';
      const cells = [figure(r), service, num(r.recomputed), `${num(r.evalkit)}${counts(r.evalkitCounts)}`, r.evalkitMetric ? `<code>${esc(r.evalkitMetric)}</code>` : 'none', r.differs ? `<strong>${delta || 'differs'}</strong>` : delta, why];
      return `<tr${r.differs ? ' class="differs"' : ''}>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
    });
  const head = ['figure', 'service', 'recomputed', 'evalkit', 'evalkit metric', 'service − evalkit', 'why'];
  const parts = [
    run ? `<h2 id="reconciliation-run-${run.index}">The service's figures of run #${run.index} <code>${esc(run.file)}</code></h2>` : `<h2 id="reconciliation">The service's figures</h2>`,
    `<p>Evaluation set run <code>${esc(rec.evaluationSetRunId)}</code> (${esc(rec.status)}). Each figure of the service beside evalkit's counterpart computed evalkit's way; <i>recomputed</i> is evalkit's recomputation of the service's own definition from the export's items. <b>${differ} of ${rec.rows.length}</b> figure(s) differ (by more than 1e-9); each reason counts the items that show it.</p>`,
  ];
  if (rec.partial) parts.push(`<p class="warn"><strong>Partial run</strong>: the service's run is ${esc(rec.status)}, not PROCESSED; scored because --allow-partial was given.</p>`);
  parts.push(`<table class="reconciliation"><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`);
  if (rec.findings.length) {
    const f = rec.findings.map((x) => `<tr><td><code>${esc(x.metric)}</code></td><td>${x.service ?? 'absent'}</td><td>${x.recomputed ?? 'none'}</td></tr>`).join('');
    parts.push(`<p class="warn"><strong>⚠ ${rec.findings.length} figure(s) of the service's answer disagree with evalkit's recomputation of the service's own definitions.</strong></p><table><thead><tr><th>metric</th><th>service</th><th>recomputed</th></tr></thead><tbody>${f}</tbody></table>`);
  } else parts.push("<p>evalkit's recomputation agrees with every figure the service gave.</p>");
  if (rec.notGiven.length) parts.push(`<p>Not given by the service (its definitions give them here): ${rec.notGiven.map((k) => `<code>${esc(k)}</code>`).join(', ')}.</p>`);
  return `<section class="reconcile">${parts.join('')}</section>`;
}

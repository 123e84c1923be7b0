/**
 * The multi-run heat map as a standalone HTML fragment: one `<section>` with its own scoped
 * style, a metric x run table whose cells are shaded by value (the reference) or by delta (the
 * other runs, green up, red down, outlined when the corrected verdict calls it), and the spread
 * of repeats. No script, no event handler, no external resource; every string from a user or a
 * document is escaped. Input: the report's `runs` section (schemas/report.schema.json#/$defs/multiRun).
 */
import type { ComparisonRow, MultiRun } from '../metrics/generated/report.js';

// Its own escaping, so that the fragment stays standalone while report.html is being rewritten.
function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const num = (v: number | null | undefined, digits = 3): string => (v === null || v === undefined || Number.isNaN(v) ? 'n/a' : v.toFixed(digits));
const signed = (v: number | null): string => (v === null ? 'n/a' : `${v > 0 ? '+' : v < 0 ? '−' : '±'}${Math.abs(v).toFixed(3)}`);

const STYLE = `
.evalkit-runs{font:13px/1.4 system-ui,sans-serif}
.evalkit-runs table{border-collapse:collapse}
.evalkit-runs th,.evalkit-runs td{border:1px solid #ddd;padding:3px 6px;text-align:right;white-space:nowrap}
.evalkit-runs th:first-child,.evalkit-runs td:first-child{text-align:left}
.evalkit-runs td.called{outline:2px solid #222;outline-offset:-2px;font-weight:600}
.evalkit-runs .note{font:12px system-ui,sans-serif;color:#555}
`;

/** Background for a value in [0, 1]: from red (0) through amber to green (1). */
export function valueColour(v: number | null): string {
  if (v === null) return '#eee';
  const x = Math.max(0, Math.min(1, v));
  const hue = Math.round(x * 120);
  return `hsl(${hue} 65% 80%)`;
}

/** Background for a delta: green above 0, red below, stronger up to ±scale. */
export function deltaColour(d: number | null, scale: number): string {
  if (d === null || d === 0) return '#f6f6f6';
  const a = Math.round(Math.min(1, Math.abs(d) / scale) * 70) / 100 + 0.1;
  return d > 0 ? `rgba(34,139,34,${a.toFixed(2)})` : `rgba(200,40,40,${a.toFixed(2)})`;
}

const VERDICT_TEXT: Record<ComparisonRow['verdict'], string> = {
  improved: 'improved',
  regressed: 'regressed',
  no_change: 'no change',
  inconclusive: 'inconclusive',
  not_comparable: 'not comparable',
};

/** The heat map of a multi-run report as an HTML `<section>` string. */
export function renderRunsHtml(runs: MultiRun): string {
  const byRun = runs.comparisons.map((c) => new Map(c.rows.map((r) => [r.key, r])));
  const within = runs.comparisons.map((c) => new Set(c.withinSpread));
  const scale = Math.max(0.05, ...runs.comparisons.flatMap((c) => c.rows.map((r) => Math.abs(r.delta ?? 0))));
  const spread = runs.repeatGroups.length > 0;
  const head =
    '<tr><th>metric</th>' +
    runs.runs
      .map((r, i) => {
        const g = r.group === null ? '' : ` · repeat ${esc(runs.repeatGroups[r.group].label)}`;
        return `<th title="${esc(`${r.file}: ${r.paired} of ${r.documents} documents paired`)}">#${i} ${esc(r.file)}<br>${esc(r.processor.version)}${i === 0 ? ' (reference)' : ''}${g}</th>`;
      })
      .join('') +
    (spread ? '<th>SD</th><th>flip rate</th><th>band</th>' : '') +
    '</tr>';
  const body = runs.metrics
    .map((m) => {
      const cells = m.values.map((v, i) => {
        if (i === 0) return `<td style="background:${valueColour(v)}">${num(v)}</td>`;
        const row = byRun[i - 1].get(m.key);
        const d = row?.delta ?? null;
        const verdict = row ? VERDICT_TEXT[row.verdict] : '';
        const called = row?.verdict === 'improved' || row?.verdict === 'regressed';
        const note = within[i - 1].has(m.key) ? '; within the run-to-run spread' : '';
        const title = row ? `${num(v)} · Δ ${signed(d)}${row.interval ? ` [${num(row.interval.lower)}, ${num(row.interval.upper)}]` : ''} · Holm p ${num(row.pHolm)} · ${verdict}${note}` : num(v);
        return `<td${called ? ' class="called"' : ''} style="background:${deltaColour(d, scale)}" title="${esc(title)}">${num(v)}<br>${esc(signed(d))}</td>`;
      });
      const extra = spread ? `<td>${num(m.sd)}</td><td>${num(m.flipRate)}</td><td>${num(m.band)}</td>` : '';
      return `<tr><td>${esc(m.key)}</td>${cells.join('')}${extra}</tr>`;
    })
    .join('');
  const tallies = runs.comparisons
    .map((c) => {
      const t = c.tally;
      return `<li>#${c.run} ${esc(c.file)} vs #0: ${t.regressed} regressed, ${t.improved} improved, ${t.inconclusive} inconclusive, ${t.no_change} no change, ${t.not_comparable} not comparable${c.withinSpread.length ? ` (${c.withinSpread.length} within the run-to-run spread)` : ''}</li>`;
    })
    .join('');
  const warnings = runs.warnings.map((w) => `<li>${esc(w)}</li>`).join('');
  return (
    `<section class="evalkit-runs"><style>${STYLE}</style>` +
    `<h2>Runs side by side</h2>` +
    `<p class="note">${runs.runs.length} runs, ${runs.paired} document(s) in every run. The reference column is shaded by value; the others by their delta to it (outlined: a corrected verdict of improved or regressed).` +
    (spread ? ' A significant delta no larger than the run-to-run band (1.96·√2·SD of repeats of one version) is inconclusive.' : '') +
    '</p>' +
    `<table><thead>${head}</thead><tbody>${body}</tbody></table>` +
    `<ul class="note">${tallies}${warnings}</ul></section>`
  );
}

/**
 * The History tab's content as a standalone HTML fragment: one `<section>` with its own scoped
 * style, per metric a small SVG line over the reports (a dot per report, its time, commit and
 * value in the dot's title), and the gates per report. No script, no event handler, no external
 * resource; every string is escaped. Input: historySeries() (src/history/series.ts).
 */
import type { HistoryView, MetricSeries } from './series.js';

// Its own escaping, so that the fragment stays standalone while report.html is being rewritten.
function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const num = (v: number | null): string => (v === null ? 'n/a' : Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(3));

const STYLE = `
.evalkit-history{font:13px/1.4 system-ui,sans-serif}
.evalkit-history table{border-collapse:collapse}
.evalkit-history th,.evalkit-history td{padding:3px 8px;text-align:right;white-space:nowrap}
.evalkit-history th:first-child,.evalkit-history td:first-child{text-align:left}
.evalkit-history svg .line{fill:none;stroke:#2b6cb0;stroke-width:1.5}
.evalkit-history svg .dot{fill:#2b6cb0}
.evalkit-history svg .pass{fill:#228b22}
.evalkit-history svg .fail{fill:#c82828}
.evalkit-history svg .none{fill:#bbb}
.evalkit-history .note{color:#555;font-size:12px}
`;

const W = 240;
const H = 36;
const PAD = 4;

/** The line of one metric: x by report order, y from the series' lowest (bottom) to highest (top) value. */
function chart(m: MetricSeries): string {
  const n = m.points.length;
  const x = (i: number): number => Math.round((n === 1 ? W / 2 : PAD + (i * (W - 2 * PAD)) / (n - 1)) * 10) / 10;
  const lo = m.min ?? 0;
  const hi = m.max ?? 1;
  const y = (v: number): number => Math.round((hi === lo ? H / 2 : H - PAD - ((v - lo) / (hi - lo)) * (H - 2 * PAD)) * 10) / 10;
  // A report without the metric breaks the line.
  const runs: string[] = [];
  let current: string[] = [];
  m.points.forEach((p, i) => {
    if (p.value === null) {
      if (current.length > 1) runs.push(current.join(' '));
      current = [];
    } else current.push(`${x(i)},${y(p.value)}`);
  });
  if (current.length > 1) runs.push(current.join(' '));
  const lines = runs.map((pts) => `<polyline class="line" points="${pts}"/>`).join('');
  const dots = m.points
    .map((p, i) =>
      p.value === null
        ? ''
        : `<circle class="dot" cx="${x(i)}" cy="${y(p.value)}" r="2"><title>${esc(`${p.time}${p.commit ? ` ${p.commit.slice(0, 7)}` : ''}${p.branch ? ` ${p.branch}` : ''} ${p.version}: ${num(p.value)}`)}</title></circle>`,
    )
    .join('');
  return `<svg width="${W}" height="${H}" role="img" aria-label="${esc(`${m.metric} from ${num(m.first)} to ${num(m.last)}`)}">${lines}${dots}</svg>`;
}

function gatesChart(view: HistoryView): string {
  const n = view.gates.length;
  const x = (i: number): number => Math.round((n === 1 ? W / 2 : PAD + (i * (W - 2 * PAD)) / (n - 1)) * 10) / 10;
  const dots = view.gates
    .map((g, i) => {
      const cls = g.total === 0 ? 'none' : g.passed ? 'pass' : 'fail';
      const what = g.total === 0 ? 'no gates' : g.passed ? `${g.total} gate(s) passed` : `${g.failed} of ${g.total} gate(s) failed`;
      return `<circle class="${cls}" cx="${x(i)}" cy="${H / 2}" r="4"><title>${esc(`${g.time}${g.commit ? ` ${g.commit.slice(0, 7)}` : ''}: ${what}`)}</title></circle>`;
    })
    .join('');
  return `<svg width="${W}" height="${H}" role="img" aria-label="gates per report">${dots}</svg>`;
}

/** The history as an HTML `<section>` string. */
export function renderHistoryHtml(view: HistoryView): string {
  if (view.entries === 0) return `<section class="evalkit-history"><style>${STYLE}</style><h2>History</h2><p class="note">No history entries yet: evalkit report --history DIR adds one per report.</p></section>`;
  const rows = view.metrics
    .map((m) => `<tr><td>${esc(m.metric)}</td><td>${chart(m)}</td><td>${num(m.first)}</td><td>${num(m.last)}</td><td>${num(m.min)}</td><td>${num(m.max)}</td></tr>`)
    .join('');
  const first = view.gates[0];
  const last = view.gates[view.gates.length - 1];
  return (
    `<section class="evalkit-history"><style>${STYLE}</style><h2>History</h2>` +
    `<p class="note">${view.entries} report(s), ${esc(first.time)} to ${esc(last.time)}; each line runs from its lowest value (bottom) to its highest (top).</p>` +
    `<table><thead><tr><th>metric</th><th>over time</th><th>first</th><th>last</th><th>min</th><th>max</th></tr></thead><tbody>${rows}` +
    `<tr><td>gates</td><td>${gatesChart(view)}</td><td></td><td></td><td></td><td></td></tr></tbody></table></section>`
  );
}

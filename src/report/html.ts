/**
 * The explorer's overview as static HTML (it reads without script): headline metrics, gates,
 * per-field F1 bars with interval whiskers, a heatmap (confusion matrix for CLASSIFY, outcome
 * shares per field for EXTRACT), baseline deltas, slices, cost, calibration and failed runs.
 * Every value that comes from a document or a user is escaped.
 */
import type { ComparisonRow, Estimate, Interval, Proportion, Report } from '../metrics/generated/report.js';
import { bootstrapText, costRows, num, thresholdCells, VERDICT_ORDER, VERDICT_RULE } from './markdown.js';
import { ALPHA, isCountGate, unreachableRegressions, unreachableText } from './gates.js';
import { reconciliationHtml } from './reconcile-html.js';
import { reconciliationsOf } from './reconcile-md.js';
import { escapeControls } from '../util/controls.js';

/** Text into HTML: markup escaped, and control and bidi characters shown escaped (`\u202e`), as report.md shows them. */
export function esc(s: string): string {
  return escapeControls(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const iv = (i: Interval | null): string => (i ? `${num(i.lower)} – ${num(i.upper)}` : '');

function table(head: string[], rows: string[][], cls = ''): string {
  return (
    `<table${cls ? ` class="${cls}"` : ''}><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>` +
    rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('') +
    '</tbody></table>'
  );
}

/** A horizontal bar for a value in [0, 1] with a whisker for its interval. */
function bar(value: number | null, interval: Interval | null): string {
  const W = 200;
  const x = (v: number): number => Math.round(Math.max(0, Math.min(1, v)) * W * 10) / 10;
  const fill = value === null ? '' : `<rect x="0" y="4" width="${x(value)}" height="12" class="bar"/>`;
  const whisker = interval
    ? `<line x1="${x(interval.lower)}" x2="${x(interval.upper)}" y1="10" y2="10" class="wh"/>` +
      `<line x1="${x(interval.lower)}" x2="${x(interval.lower)}" y1="5" y2="15" class="wh"/>` +
      `<line x1="${x(interval.upper)}" x2="${x(interval.upper)}" y1="5" y2="15" class="wh"/>`
    : '';
  return `<svg width="${W}" height="20" role="img" aria-label="${esc(num(value))}"><rect x="0" y="4" width="${W}" height="12" class="track"/>${fill}${whisker}</svg>`;
}

/** A bar centred on 0 for a difference, with its interval; `scale` is the difference drawn at either edge. */
function deltaBar(delta: number | null, interval: Interval | null, scale: number): string {
  const W = 200;
  const mid = W / 2;
  const x = (v: number): number => Math.round((mid + Math.max(-1, Math.min(1, v / scale)) * mid) * 10) / 10;
  const fill =
    delta === null ? '' : `<rect x="${Math.min(mid, x(delta))}" y="4" width="${Math.abs(x(delta) - mid)}" height="12" class="${delta < 0 ? 'neg' : 'pos'}"/>`;
  const whisker = interval ? `<line x1="${x(interval.lower)}" x2="${x(interval.upper)}" y1="10" y2="10" class="wh"/>` : '';
  return `<svg width="${W}" height="20" role="img" aria-label="${esc(num(delta))}"><line x1="${mid}" x2="${mid}" y1="0" y2="20" class="axis"/>${fill}${whisker}</svg>`;
}

/** Heatmap cell: background intensity by share of the row. */
function heat(count: number, rowTotal: number, diagonal: boolean): string {
  const share = rowTotal === 0 ? 0 : count / rowTotal;
  const alpha = Math.round(share * 85) / 100;
  const colour = diagonal ? `rgba(34,139,34,${alpha})` : `rgba(200,40,40,${alpha})`;
  return `<span class="cell" style="background:${colour}" title="${esc(`${count} of ${rowTotal}`)}">${count}</span>`;
}

const prop = (label: string, p: Proportion): string[] => [label, num(p.value), iv(p.interval), `${p.k} / ${p.n}`];
const estRow = (label: string, e: Estimate, counts = ''): string[] => [label, num(e.value), iv(e.interval), esc(counts)];

function headline(r: Report): string {
  const rows: string[][] = [];
  if (r.extract) {
    const x = r.extract;
    const c = x.micro.counts;
    rows.push(estRow('micro F1', x.micro.f1, `TP ${c.tp} · FP ${c.fp} (FA ${c.fa}, FD ${c.fd}) · FN ${c.fn}`));
    rows.push(prop('micro precision', x.micro.precision), prop('micro recall', x.micro.recall), prop('micro accuracy', x.micro.accuracy));
    rows.push(estRow(`macro F1 (${x.macro.fields} fields)`, x.macro.f1), prop('document accuracy', x.document.accuracy));
    for (const a of x.arrays) rows.push(prop(`<code>${esc(a.path)}</code> row count right`, a.rate));
  }
  if (r.classify) {
    const c = r.classify;
    rows.push(prop('accuracy', c.accuracy), estRow('macro F1', c.macro.f1), estRow('weighted F1', c.weighted.f1));
    rows.push(estRow('macro precision', c.macro.precision), estRow('macro recall', c.macro.recall), ['mean confidence', num(c.meanConfidence), '', '']);
  }
  if (r.splitter) {
    const s = r.splitter;
    rows.push(estRow('F1', s.f1, `${s.numCorrectDocs} correct of ${s.numExpectedDocs} expected, ${s.numPredictedDocs} predicted`));
    rows.push(prop('precision', s.precision), prop('recall', s.recall));
    rows.push(estRow('panoptic quality', s.panoptic.pq, `SQ ${num(s.panoptic.sq)} · RQ ${num(s.panoptic.rq)}`), prop('page accuracy', s.pageAccuracy));
  }
  return `<h2>Metrics</h2>${table(['metric', 'value', '95% interval', 'counts'], rows)}`;
}

function gates(r: Report): string {
  const g = r.gates;
  if (g.results.length === 0 && !g.failOnRegression) return '';
  const rows = g.results.map((x) => [
    `<code>${esc(x.gate)}</code>`,
    isCountGate(x.metric) ? String(x.value) : num(x.value),
    x.on,
    x.passed ? '<span class="ok">pass</span>' : `<span class="bad">FAIL</span> ${esc(x.reason ?? '')}`,
  ]);
  if (g.failOnRegression) {
    // Said on the line itself, as in report.md: the metrics that fell where these documents could show no regression.
    const u = r.baseline ? unreachableRegressions(r.baseline, ALPHA) : undefined;
    const blind = u ? `${g.regressed.length === 0 ? ', but' : '; and'} it could not detect a regression here: ${esc(unreachableText(u, ALPHA))}` : '';
    rows.push([
      'no significant regression',
      String(g.regressed.length),
      'verdicts',
      (g.regressed.length ? `<span class="bad">FAIL</span> ${g.regressed.map((k) => `<code>${esc(k)}</code>`).join(', ')}` : '<span class="ok">pass</span>') + blind,
    ]);
  }
  return `<h2>Gates: ${g.passed ? '<span class="ok">passed</span>' : '<span class="bad">failed</span>'}</h2>${table(['gate', 'value', 'on', 'result'], rows)}`;
}

function bars(r: Report): string {
  const rows: string[][] = [];
  if (r.extract) {
    for (const f of r.extract.fields) {
      rows.push([`<code>${esc(f.path)}</code>${f.fuzzy ? ' <small>fuzzy</small>' : ''}`, bar(f.f1.value, f.f1.interval), num(f.f1.value), iv(f.f1.interval)]);
    }
    return `<h2>F1 per field</h2>${table(['field', 'F1 (bar: 95% interval)', 'F1', 'interval'], rows, 'bars')}`;
  }
  if (r.classify) {
    for (const c of r.classify.classes) rows.push([`<code>${esc(c.label)}</code>`, bar(c.f1.value, c.f1.interval), num(c.f1.value), iv(c.f1.interval)]);
    return `<h2>F1 per class</h2>${table(['class', 'F1 (bar: 95% interval)', 'F1', 'interval'], rows, 'bars')}`;
  }
  for (const t of r.splitter?.types ?? []) rows.push([`<code>${esc(t.type)}</code>`, bar(t.f1.value, t.f1.interval), num(t.f1.value), iv(t.f1.interval)]);
  return rows.length ? `<h2>F1 per split type</h2>${table(['type', 'F1 (bar: 95% interval)', 'F1', 'interval'], rows, 'bars')}` : '';
}

/** Past this many labels the page lists the most frequent confusions instead of the matrix (2,000 classes made a matrix of 4,000,000 cells, 356 MB of page). */
const MATRIX_LABELS = 60;
const TOP_CONFUSIONS = 50;

/** The off-diagonal cells of a confusion matrix with the most documents, as a table (ties by expected, then predicted class). */
function topConfusions(m: Record<string, Record<string, number>>, labels: number): string {
  const cells: Array<{ e: string; p: string; count: number; total: number }> = [];
  for (const e of Object.keys(m)) {
    let total = 0;
    for (const p of Object.keys(m[e])) total += m[e][p];
    for (const p of Object.keys(m[e])) if (p !== e && m[e][p] > 0) cells.push({ e, p, count: m[e][p], total });
  }
  // (Labels compared as the matrix sorts them: by code unit.)
  const order = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  cells.sort((a, b) => b.count - a.count || order(a.e, b.e) || order(a.p, b.p));
  const shown = cells.slice(0, TOP_CONFUSIONS);
  const rows = shown.map((c) => [`<code>${esc(c.e)}</code>`, `<code>${esc(c.p)}</code>`, heat(c.count, c.total, false), `${num(c.count / c.total)} of ${c.total}`]);
  const what = `The confusion matrix has ${labels} labels, too many to draw (report.json holds it whole): ${cells.length === 0 ? 'no document was confused.' : `the ${shown.length === cells.length ? cells.length : `${shown.length} of ${cells.length}`} most frequent confusions, by number of documents.`}`;
  return `<h2>Confusion matrix</h2><p>${what}</p>${rows.length ? table(['expected', 'predicted', 'documents', 'share of the expected class'], rows, 'heat pairs') : ''}`;
}

function heatmap(r: Report): string {
  if (r.classify) {
    const m = r.classify.confusionMatrix;
    const labels = [...new Set([...Object.keys(m), ...Object.values(m).flatMap((x) => Object.keys(x))])].sort();
    if (labels.length > MATRIX_LABELS) return topConfusions(m, labels.length);
    const rows = labels
      .filter((e) => Object.hasOwn(m, e))
      .map((e) => {
        const total = Object.values(m[e]).reduce((a, b) => a + b, 0);
        return [`<code>${esc(e)}</code>`, ...labels.map((p) => heat(Object.hasOwn(m[e], p) ? m[e][p] : 0, total, e === p))];
      });
    return `<h2>Confusion matrix</h2><p>Rows: expected class; columns: predicted class; shade: share of the row.</p>${table(['', ...labels.map((l) => `<code>${esc(l)}</code>`)], rows, 'heat')}`;
  }
  if (r.extract) {
    const rows = r.extract.fields.map((f) => {
      const c = f.counts;
      return [
        `<code>${esc(f.path)}</code>`,
        heat(c.tp, c.n, true),
        heat(c.tn, c.n, true),
        heat(c.fa, c.n, false),
        heat(c.fn, c.n, false),
        heat(c.fd, c.n, false),
      ];
    });
    return `<h2>Outcomes per field</h2><p>Shade: share of the field's outcomes.</p>${table(['field', 'TP', 'TN', 'FA', 'FN', 'FD'], rows, 'heat')}`;
  }
  return '';
}

function baseline(r: Report): string {
  const b = r.baseline;
  if (!b) return '';
  const order = VERDICT_ORDER;
  // One scale for every row, so that bars compare; at least ±0.05.
  const scale = Math.max(0.05, ...b.rows.flatMap((x) => [x.delta, x.interval?.lower, x.interval?.upper].map((v) => Math.abs(v ?? 0))));
  const rows = [...b.rows]
    .sort((x, y) => order[x.verdict] - order[y.verdict] || (x.key < y.key ? -1 : 1))
    .map((x: ComparisonRow) => [
      `<code>${esc(x.key)}</code>`,
      num(x.baseline),
      num(x.current),
      deltaBar(x.delta, x.interval, scale),
      x.delta === null ? 'n/a' : `${x.delta >= 0 ? '+' : ''}${x.delta.toFixed(3)}`,
      iv(x.interval),
      `${num(x.mcnemar.p)} <small>(b ${x.mcnemar.b}, c ${x.mcnemar.c})</small>`,
      num(x.pHolm),
      num(x.q),
      num(x.mde),
      `<span class="v-${x.verdict}">${x.verdict.replace('_', ' ')}</span>`,
    ]);
  const t = b.tally;
  const pr = b.pairing;
  const unpaired = (label: string, ids: string[]): string =>
    ids.length ? `<p>${label} (${ids.length}): ${ids.slice(0, 200).map((id) => `<code>${esc(id)}</code>`).join(', ')}${ids.length > 200 ? `, … ${ids.length - 200} more in report.json` : ''}</p>` : '';
  return (
    `<h2>Baseline <code>${esc(b.file)}</code></h2>` +
    `<p><b>${pr.paired} paired of ${pr.current} current, ${pr.baseline} baseline</b> (by item id ${pr.byKey.id}, file id ${pr.byKey.file}, file name ${pr.byKey.name}, content hash ${pr.byKey.hash}; ` +
    `at least ${pr.minPaired} needed${pr.sufficient ? '' : ', <span class="bad">not reached</span>'}). ` +
    `${t.regressed} regressed, ${t.improved} improved, ${t.inconclusive} inconclusive, ${t.no_change} no change, ${t.not_comparable} not comparable. ` +
    `${esc(VERDICT_RULE.replace('±margin', `±${b.equivalence}`))}</p>` +
    b.warnings.map((w) => `<p class="warn">${esc(w)}</p>`).join('') +
    (b.straightThrough
      ? `<p>Straight-through rate at ${r.calibration?.targetAccuracy ?? 'the target'} over ${b.straightThrough.paired} paired documents: baseline ${num(b.straightThrough.baseline)}, current ${num(b.straightThrough.current)}, Δ ${b.straightThrough.delta >= 0 ? '+' : ''}${b.straightThrough.delta.toFixed(3)} (95% interval ${iv(b.straightThrough.interval) || 'n/a'}).</p>`
      : '') +
    unpaired('Unpaired in this run', b.onlyInCurrent) +
    unpaired('Unpaired in the baseline', b.onlyInBaseline) +
    table(['metric', 'baseline', 'current', `Δ (bar: 95% interval; edges ±${scale.toFixed(3)})`, 'Δ', 'interval', 'McNemar p', 'Holm p', 'BH q', 'MDE (80%)', 'verdict'], rows, 'bars')
  );
}

function cost(r: Report): string {
  const rows = costRows(r);
  if (rows.length === 0) return '';
  return `<h2>Cost and latency</h2>${table(r.baseline ? ['', 'this run', 'baseline'] : ['', 'this run'], r.baseline ? rows : rows.map((x) => x.slice(0, 2)))}`;
}

function calibration(r: Report): string {
  const c = r.calibration;
  if (!c) return '';
  const o = c.overall;
  const target = c.targetAccuracy;
  // Reliability diagram of all values: per bin, the accuracy bar with its Wilson whiskers.
  const bins = o.bins.map((b) => [`${b.lower.toFixed(1)}–${b.upper.toFixed(1)}`, String(b.count), num(b.meanConfidence), bar(b.accuracy, b.interval), num(b.accuracy)]);
  const rows = c.fields.map((f) => [`<code>${esc(f.path)}</code>`, String(f.withConfidence), String(f.withoutConfidence), num(f.ece), num(f.brier), num(f.auroc), ...thresholdCells(f.threshold, target).map(esc)]);
  const stp = c.straightThrough && target !== null ? ` <b>Straight-through at ${target}: ${num(c.straightThrough.value)}</b> (${c.straightThrough.k} of ${c.straightThrough.n} documents, ${iv(c.straightThrough.interval)}).` : '';
  return (
    `<h2>Confidence (${esc(c.source)})</h2><p>${o.withConfidence} predicted value(s) with a confidence, ${o.withoutConfidence} without. ECE ${num(o.ece)}, Brier ${num(o.brier)}, AUROC ${num(o.auroc)}.${stp}</p>` +
    table(['confidence bin', 'values', 'mean confidence', 'accuracy (bar: 95% interval)', 'accuracy'], bins, 'bars') +
    table(['field', 'with conf.', 'without', 'ECE', 'Brier', 'AUROC', target === null ? 'threshold' : `threshold for ${target}`, 'accuracy (lower bound)', 'coverage'], rows)
  );
}

function failures(r: Report): string {
  if (r.failures.length === 0) return '';
  // reason: the service's short code (OCR_FAILED, TIMEOUT); message: its words.
  const rows = r.failures.map((f) => [`<code>${esc(f.id)}</code>`, esc(f.fileName ?? f.fileId), esc(f.status), f.failureReason ? `<code>${esc(f.failureReason)}</code>` : '', esc(f.failureMessage ?? '')]);
  return `<h2>Failed runs (${r.failures.length})</h2><p>Scored as empty predictions.</p>${table(['item', 'file', 'status', 'reason', 'message'], rows)}`;
}

/** Per slice key a table: the headline metrics with intervals, Δ against the rest and the Holm p; flagged slices marked. */
function slices(r: Report): string {
  const s = r.slices;
  if (!s) return '';
  const flagged = s.groups.reduce((n, g) => n + g.slices.filter((x) => x.flagged).length, 0);
  const signed = (v: number | null): string => (v === null ? 'n/a' : `${v > 0 ? '+' : v < 0 ? '−' : '±'}${Math.abs(v).toFixed(3)}`);
  const parts = [
    `<h2>Slices</h2><p>Headline metrics per slice with 95% intervals; ${esc(s.metric)} is tested against the rest of the run (one-sided cluster-robust z-test, Holm across ${s.tested} slice(s)): ${
      flagged ? `<strong>${flagged} slice(s) significantly worse</strong> (⚠).` : 'none is significantly worse.'
    }</p>`,
  ];
  for (const g of s.groups) {
    const names = Object.keys(g.slices[0]?.metrics ?? {});
    const rows = g.slices.map((x) => [
      `${x.flagged ? '⚠ ' : ''}<code>${esc(x.label)}</code>`,
      String(x.documents),
      ...names.map((n) => {
        const m = Object.hasOwn(x.metrics, n) ? x.metrics[n] : undefined;
        return m ? `${num(m.value)} <small>(${iv(m.interval) || 'n/a'})</small>` : 'n/a';
      }),
      signed(x.delta),
      x.pHolm === null ? 'not tested' : num(x.pHolm),
    ]);
    parts.push(`<h3><code>${esc(g.key)}</code></h3>`, table(['slice', 'documents', ...names.map(esc), `Δ ${esc(s.metric)} vs rest`, 'p (Holm)'], rows));
  }
  return parts.join('');
}

/** The overview: every section of the static report but the documents (the explorer lists them). */
export function overviewHtml(r: Report): string {
  const extras: string[] = [];
  if (r.extract?.unsupportedFields.length) extras.push(`<p>Unsupported (no non-empty expected value): ${r.extract.unsupportedFields.map((f) => `<code>${esc(f)}</code>`).join(', ')}</p>`);
  if (r.extract?.excludedFields.length) extras.push(`<p>Excluded: ${r.extract.excludedFields.map((f) => `<code>${esc(f)}</code>`).join(', ')}</p>`);
  if (r.warnings.length) extras.push(`<h2>Warnings</h2><ul>${r.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>`);
  return [
    `<p>${r.summary.documents} documents, ${r.summary.failed} failed run(s) · export <code>${esc(r.source.file)}</code> · intervals: Wilson for proportions (widened by the design effect where documents give several outcomes), ${esc(bootstrapText(r))} otherwise</p>`,
    headline(r),
    gates(r),
    baseline(r),
    slices(r),
    bars(r),
    heatmap(r),
    reconciliationsOf(r)
      .map((x) => reconciliationHtml(x.rec, x.run))
      .join('\n'),
    cost(r),
    calibration(r),
    failures(r),
    ...extras,
  ].join('\n');
}

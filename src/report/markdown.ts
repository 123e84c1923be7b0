/**
 * Markdown for pull-request comments and CI job summaries: headline table, gates, baseline
 * verdicts, worst fields, failed runs. Kept under MAX_BYTES: long tables are cut, with a note.
 */
import type { ComparisonRow, Estimate, Interval, Proportion, Report, ThresholdPoint } from '../metrics/generated/report.js';
import { BOOTSTRAP_GROUPS } from '../metrics/bootstrap.js';
import { multiRunBlocks } from './runs-md.js';
import { reconciliationBlocks, reconciliationsOf } from './reconcile-md.js';
import { ALPHA, isCountGate, unreachableRegressions, unreachableText } from './gates.js';
import { escapeControls } from '../util/controls.js';

export const MAX_BYTES = 60_000;

/** How the report's bootstrap resampled (docs/metrics.md#intervals): documents, or past BOOTSTRAP_GROUPS of them random groups. */
export function bootstrapText(r: Report): string {
  const what = r.summary.documents > BOOTSTRAP_GROUPS ? `${BOOTSTRAP_GROUPS.toLocaleString('en-US')} random groups of the documents` : 'documents';
  return `bootstrap over ${what} (${r.options.bootstrap} resamples, seed ${r.options.seed})`;
}

/** A number as shown to people: 3 decimals, "n/a" for undefined. */
export function num(v: number | null | undefined, digits = 3): string {
  return v === null || v === undefined || Number.isNaN(v) ? 'n/a' : v.toFixed(digits);
}

export function interval(i: Interval | null | undefined): string {
  return i ? `${num(i.lower)} – ${num(i.upper)}` : '';
}

function signed(v: number | null): string {
  return v === null ? 'n/a' : `${v > 0 ? '+' : v < 0 ? '−' : '±'}${Math.abs(v).toFixed(3)}`;
}

/** Text from a document or a user, as an inline code span that no Markdown or HTML inside can escape. */
export function code(s: string): string {
  const t = s.replace(/[\r\n]+/g, ' ').replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(t.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 || t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return t === '' ? '""' : `${fence}${pad}${t}${pad}${fence}`;
}

/**
 * Prose that carries users' strings (warnings name option entries and fields): the marks that
 * start Markdown syntax inside a line are backslash-escaped, `<` and `&` become entities and
 * bare URLs are broken, so no link, image, emphasis or raw HTML can come out of it.
 */
export function text(s: string): string {
  return s
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/[\\`*_{}[\]#!|~>]/g, '\\$&')
    // Bare URLs would become links (GFM autolinks).
    .replace(/:\/\//g, '\\://')
    .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}\\.`);
}

export interface Table {
  head: string[];
  align: Array<'l' | 'r'>;
  rows: string[][];
  /** Rows that may be cut when the document is too long. */
  cuttable: boolean;
}

function renderTable(t: Table, limit: number): string {
  const shown = t.cuttable ? t.rows.slice(0, limit) : t.rows;
  const lines = [`| ${t.head.join(' | ')} |`, `|${t.align.map((a) => (a === 'r' ? '---:' : '---')).join('|')}|`];
  for (const r of shown) lines.push(`| ${r.join(' | ')} |`);
  let out = lines.join('\n') + '\n';
  const cut = t.rows.length - shown.length;
  if (cut > 0) out += `\n_${cut} more row(s) cut to keep this summary under 60 KB; every row is in report.json._\n`;
  return out;
}

type Block = string | Table;
/** A paragraph or a table of the Markdown report (sections in other files build these). */
export type MarkdownBlock = Block;

const prop = (label: string, p: Proportion): string[] => [label, num(p.value), interval(p.interval), `${p.k} / ${p.n}`];
const est = (label: string, e: Estimate, counts = ''): string[] => [label, num(e.value), interval(e.interval), counts];

function headline(r: Report): Table {
  const rows: string[][] = [];
  if (r.extract) {
    const x = r.extract;
    const c = x.micro.counts;
    rows.push(est('micro F1', x.micro.f1, `TP ${c.tp} · FP ${c.fp} (FA ${c.fa}, FD ${c.fd}) · FN ${c.fn}`));
    rows.push(prop('micro precision', x.micro.precision));
    rows.push(prop('micro recall', x.micro.recall));
    rows.push(prop('micro accuracy', x.micro.accuracy));
    rows.push(est(`macro F1 (${x.macro.fields} fields)`, x.macro.f1));
    rows.push(prop('document accuracy', x.document.accuracy));
    for (const a of x.arrays) rows.push(prop(`${code(a.path)} row count right`, a.rate));
  }
  if (r.classify) {
    const c = r.classify;
    rows.push(prop('accuracy', c.accuracy));
    rows.push(est('macro F1', c.macro.f1));
    rows.push(est('weighted F1', c.weighted.f1));
    rows.push(est('macro precision', c.macro.precision));
    rows.push(est('macro recall', c.macro.recall));
    rows.push(['mean confidence', num(c.meanConfidence), '', '']);
  }
  if (r.splitter) {
    const s = r.splitter;
    rows.push(est('F1', s.f1, `${s.numCorrectDocs} correct of ${s.numExpectedDocs} expected, ${s.numPredictedDocs} predicted`));
    rows.push(prop('precision', s.precision));
    rows.push(prop('recall', s.recall));
    rows.push(est('panoptic quality', s.panoptic.pq, `SQ ${num(s.panoptic.sq)} · RQ ${num(s.panoptic.rq)}`));
    rows.push(prop('page accuracy', s.pageAccuracy));
  }
  return { head: ['metric', 'value', '95% interval', 'counts'], align: ['l', 'r', 'l', 'l'], rows, cuttable: false };
}

function gates(r: Report): Block[] {
  const g = r.gates;
  if (g.results.length === 0 && !g.failOnRegression) return [];
  const failed = g.results.filter((x) => !x.passed).length;
  const out: Block[] = [`### Gates: ${g.passed ? 'passed' : '**FAILED**'}\n`];
  const rows = g.results.map((x) => [
    code(x.gate),
    isCountGate(x.metric) ? String(x.value) : num(x.value),
    x.on === 'lower' ? 'lower bound' : 'point',
    x.passed ? 'pass' : `**FAIL**: ${text(x.reason ?? '')}`,
  ]);
  if (g.failOnRegression) {
    // Said on the line itself: the metrics that fell where these documents could show no regression.
    const u = r.baseline ? unreachableRegressions(r.baseline, ALPHA) : undefined;
    const blind = u ? `${g.regressed.length === 0 ? ', but' : '; and'} it could not detect a regression here: ${text(unreachableText(u, ALPHA))}` : '';
    rows.push([
      'no significant regression',
      String(g.regressed.length),
      'Holm-corrected verdicts',
      (g.regressed.length === 0 ? 'pass' : `**FAIL**: regressed ${g.regressed.map(code).join(', ')}`) + blind,
    ]);
  }
  out.push(`${failed} of ${g.results.length} gate(s) failed${g.failOnRegression ? `; ${g.regressed.length} significant regression(s)` : ''}.\n`);
  out.push({ head: ['gate', 'value', 'on', 'result'], align: ['l', 'r', 'l', 'l'], rows, cuttable: false });
  return out;
}

export const VERDICT_ORDER = { regressed: 0, improved: 1, inconclusive: 2, no_change: 3, not_comparable: 4 } as const;

export const VERDICT_RULE =
  'Verdicts: improved / regressed when the paired bootstrap 95% interval of Δ excludes 0 and McNemar p, Holm-corrected across the metrics compared, is below 0.05; ' +
  'no change when the interval lies inside ±margin; inconclusive otherwise (the data cannot tell a change of the margin from none).';

function baseline(r: Report): Block[] {
  const b = r.baseline;
  if (!b) return [];
  const t = b.tally;
  const pr = b.pairing;
  const out: Block[] = [
    `### Baseline ${code(b.file)}: ${pr.paired} paired of ${pr.current} current, ${pr.baseline} baseline\n`,
    `Paired by item id ${pr.byKey.id}, file id ${pr.byKey.file}, file name ${pr.byKey.name}, content hash ${pr.byKey.hash} (--pair-by ${pr.by}; at least ${pr.minPaired} needed${pr.sufficient ? '' : ', **not reached**'}).\n`,
    `**${t.regressed} regressed · ${t.improved} improved** · ${t.inconclusive} inconclusive · ${t.no_change} no change · ${t.not_comparable} not comparable.` +
      ` ${VERDICT_RULE.replace('±margin', `±${b.equivalence}`)}\n`,
  ];
  for (const w of b.warnings) out.push(`> ${text(w)}\n`);
  if (b.straightThrough) {
    const st = b.straightThrough;
    out.push(`Straight-through rate at ${r.calibration?.targetAccuracy ?? 'the target'}, each run at its own thresholds, over ${st.paired} paired documents: baseline ${num(st.baseline)}, current ${num(st.current)}, Δ ${signed(st.delta)} (95% interval ${interval(st.interval) || 'n/a'}).\n`);
  }
  const unpaired = (label: string, ids: string[]): void => {
    if (ids.length) out.push(`${label} (${ids.length}): ${ids.slice(0, 20).map(code).join(', ')}${ids.length > 20 ? `, … ${ids.length - 20} more in report.json` : ''}\n`);
  };
  unpaired('Unpaired in this run', b.onlyInCurrent);
  unpaired('Unpaired in the baseline', b.onlyInBaseline);
  const rows = [...b.rows]
    .sort((x, y) => VERDICT_ORDER[x.verdict] - VERDICT_ORDER[y.verdict] || (x.key < y.key ? -1 : 1))
    .map((x: ComparisonRow) => [
      code(x.key),
      num(x.baseline),
      num(x.current),
      signed(x.delta),
      interval(x.interval),
      num(x.mcnemar.p),
      num(x.pHolm),
      num(x.q),
      num(x.mde),
      x.verdict === 'regressed' ? '**regressed**' : x.verdict === 'improved' ? '**improved**' : x.verdict.replace('_', ' '),
    ]);
  out.push({
    head: ['metric', 'baseline', 'current', 'Δ', '95% interval of Δ', 'McNemar p', 'Holm p', 'BH q', 'MDE (80%)', 'verdict'],
    align: ['l', 'r', 'r', 'r', 'l', 'r', 'r', 'r', 'r', 'l'],
    rows,
    cuttable: true,
  });
  return out;
}

function extractTables(r: Report): Block[] {
  const x = r.extract;
  if (!x) return [];
  const fieldRow = (f: (typeof x.fields)[number]): string[] => [
    code(f.path) + (f.fuzzy ? ' (fuzzy)' : '') + (f.multiset ? ' (multiset)' : ''),
    num(f.f1.value),
    interval(f.f1.interval),
    num(f.precision.value),
    num(f.recall.value),
    num(f.accuracy.value),
    String(f.counts.tp),
    String(f.counts.tn),
    String(f.counts.fa),
    String(f.counts.fn),
    String(f.counts.fd),
  ];
  const head = ['field', 'F1', '95% interval', 'precision', 'recall', 'accuracy', 'TP', 'TN', 'FA', 'FN', 'FD'];
  const align: Array<'l' | 'r'> = ['l', 'r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'];
  const worst = x.fields
    .filter((f) => f.supported && f.f1.value !== null && f.f1.value < 1)
    .sort((a, b) => (a.f1.value as number) - (b.f1.value as number) || (a.path < b.path ? -1 : 1))
    .slice(0, 10);
  const out: Block[] = [];
  if (worst.length) out.push('### Worst fields\n', { head, align, rows: worst.map(fieldRow), cuttable: false });
  out.push(`### All fields (${x.fields.length})\n`, { head, align, rows: x.fields.map(fieldRow), cuttable: true });
  const fuzzy = x.fields.filter((f) => f.exact);
  if (fuzzy.length) {
    out.push('Fuzzy fields, exact comparison: ' + fuzzy.map((f) => `${code(f.path)} F1 ${num(f.exact?.f1.value)}`).join(' · ') + '\n');
  }
  if (x.unsupportedFields.length) out.push(`Unsupported (no non-empty expected value, left out of macro F1): ${x.unsupportedFields.map(code).join(', ')}\n`);
  if (x.excludedFields.length) out.push(`Excluded (excludeFields): ${x.excludedFields.map(code).join(', ')}\n`);
  if (x.unexpected.predicted) {
    out.push(
      `Unexpected keys (not in the config; each predicted value counts as a false alarm in the micro counts): ${x.unexpected.predicted} value(s) in ${x.unexpected.documents} document(s): ` +
        x.unexpected.keys.filter((k) => k.predicted > 0).slice(0, 20).map((k) => `${code(k.path)} ${k.predicted}`).join(', ') +
        '\n',
    );
  }
  return out;
}

function classifyTables(r: Report): Block[] {
  const c = r.classify;
  if (!c) return [];
  const rows = [...c.classes]
    .sort((a, b) => (a.f1.value ?? 2) - (b.f1.value ?? 2) || (a.label < b.label ? -1 : 1))
    .map((k) => [code(k.label), num(k.f1.value), interval(k.f1.interval), num(k.precision.value), num(k.recall.value), String(k.support), String(k.predicted)]);
  const out: Block[] = [
    '### Classes (worst first)\n',
    { head: ['class', 'F1', '95% interval', 'precision', 'recall', 'support', 'predicted'], align: ['l', 'r', 'l', 'r', 'r', 'r', 'r'], rows, cuttable: true },
  ];
  const labels = [...new Set([...Object.keys(c.confusionMatrix), ...Object.values(c.confusionMatrix).flatMap((m) => Object.keys(m))])].sort();
  if (labels.length <= 12) {
    out.push('### Confusion matrix (rows expected, columns predicted)\n', {
      head: ['', ...labels.map(code)],
      align: ['l', ...labels.map((): 'r' => 'r')],
      rows: labels.filter((e) => Object.hasOwn(c.confusionMatrix, e)).map((e) => [code(e), ...labels.map((p) => String(Object.hasOwn(c.confusionMatrix[e], p) ? c.confusionMatrix[e][p] : 0))]),
      cuttable: false,
    });
  } else out.push(`The confusion matrix has ${labels.length} labels; see report.json or report.html.\n`);
  return out;
}

function splitterTables(r: Report): Block[] {
  const s = r.splitter;
  if (!s || s.types.length === 0) return [];
  const rows = s.types.map((t) => [code(t.type), num(t.f1.value), num(t.precision.value), num(t.recall.value), String(t.expected), String(t.predicted), String(t.correct)]);
  return ['### Split types\n', { head: ['type', 'F1', 'precision', 'recall', 'expected', 'predicted', 'correct'], align: ['l', 'r', 'r', 'r', 'r', 'r', 'r'], rows, cuttable: true }];
}

/** Threshold row cells: the chosen threshold, the accepted values' accuracy (lower bound) and coverage. */
export function thresholdCells(t: ThresholdPoint | null | undefined, target: number | null): string[] {
  if (target === null) return ['', '', ''];
  if (!t) return ['none reaches it', '', ''];
  return [num(t.threshold, 2), `${num(t.accuracy)} (≥ ${num(t.lower)})`, num(t.coverage)];
}

/** Cost and latency, this run beside the baseline run. */
export function costRows(r: Report): string[][] {
  const c = r.cost;
  const b = r.baseline?.cost;
  if (!c && !b) return [];
  const ms = (v: number | undefined): string => (v === undefined ? 'n/a' : `${v.toFixed(0)} ms`);
  const n3 = (v: number | null | undefined): string => (v === undefined ? 'n/a' : num(v));
  const unit = c?.credits?.unit ?? b?.credits?.unit ?? 'unit';
  return [
    ['latency mean', ms(c?.latency?.mean), ms(b?.latency?.mean)],
    ['latency p50', ms(c?.latency?.p50), ms(b?.latency?.p50)],
    ['latency p95', ms(c?.latency?.p95), ms(b?.latency?.p95)],
    ['credits per document', n3(c?.credits?.mean), n3(b?.credits?.mean)],
    [`credits per correct ${unit}`, n3(c?.credits?.perCorrect), n3(b?.credits?.perCorrect)],
    ['credits in all', n3(c?.credits?.total), n3(b?.credits?.total)],
  ];
}

function costTable(r: Report): Block[] {
  const rows = costRows(r);
  if (rows.length === 0) return [];
  const head = r.baseline ? ['cost and latency', 'this run', 'baseline'] : ['cost and latency', 'this run'];
  return ['### Cost and latency\n', { head, align: ['l', 'r', 'r'], rows: r.baseline ? rows : rows.map((x) => x.slice(0, 2)), cuttable: false }];
}

function calibrationTables(r: Report): Block[] {
  const c = r.calibration;
  if (!c) return [];
  const o = c.overall;
  const target = c.targetAccuracy;
  const out: Block[] = [
    `### Confidence (${c.source})\n`,
    `${o.withConfidence} predicted value(s) with a confidence, ${o.withoutConfidence} without · ECE ${num(o.ece)} · Brier ${num(o.brier)} · AUROC ${num(o.auroc)}` +
      (c.straightThrough && target !== null
        ? ` · **straight-through at ${target}: ${num(c.straightThrough.value)}** (${c.straightThrough.k} of ${c.straightThrough.n} documents, ${interval(c.straightThrough.interval)})`
        : '') +
      '\n',
  ];
  const rows = c.fields.map((f) => [code(f.path), String(f.withConfidence), String(f.withoutConfidence), num(f.ece), num(f.brier), num(f.auroc), ...thresholdCells(f.threshold, target)]);
  out.push({
    head: ['field', 'with conf.', 'without', 'ECE', 'Brier', 'AUROC', target === null ? 'threshold' : `threshold for ${target}`, 'accuracy (lower bound)', 'coverage'],
    align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'l', 'r'],
    rows,
    cuttable: true,
  });
  return out;
}

function sliceTables(r: Report): Block[] {
  const s = r.slices;
  if (!s) return [];
  const flagged = s.groups.reduce((n, g) => n + g.slices.filter((x) => x.flagged).length, 0);
  const out: Block[] = [
    `### Slices\n`,
    `Per slice the headline metrics with 95% intervals; ${s.metric} is tested against the rest of the run (one-sided, cluster-robust z-test, Holm across ${s.tested} slice(s)): ` +
      (flagged ? `**${flagged} slice(s) significantly worse** (⚠).` : 'none is significantly worse.') +
      '\n',
  ];
  for (const g of s.groups) {
    const names = Object.keys(g.slices[0]?.metrics ?? {});
    const rows = g.slices.map((x) => [
      (x.flagged ? '⚠ ' : '') + code(x.label),
      String(x.documents),
      ...names.map((n) => {
        const m = x.metrics[n];
        return m ? `${num(m.value)} (${interval(m.interval) || 'n/a'})` : 'n/a';
      }),
      signed(x.delta),
      x.pHolm === null ? 'not tested' : num(x.pHolm),
    ]);
    out.push(`${code(g.key)}\n`, { head: ['slice', 'documents', ...names, `Δ ${s.metric} vs rest`, 'p (Holm)'], align: ['l', 'r', ...names.map(() => 'r' as const), 'r', 'r'], rows, cuttable: true });
  }
  return out;
}

function failures(r: Report): Block[] {
  if (r.failures.length === 0) return [];
  // reason: the service's short code (OCR_FAILED, TIMEOUT); message: its words.
  const rows = r.failures.map((f) => [code(f.id), code(f.fileName ?? f.fileId), f.status, f.failureReason ? code(f.failureReason) : '', f.failureMessage ? code(f.failureMessage) : '']);
  return [`### Failed runs (${r.failures.length}, scored as empty predictions)\n`, { head: ['item', 'file', 'status', 'reason', 'message'], align: ['l', 'l', 'l', 'l', 'l'], rows, cuttable: true }];
}

function blocks(r: Report): Block[] {
  const p = r.source.processor;
  const out: Block[] = [
    `## evalkit report: ${code(p.name || p.id)} ${code(p.version)} (${r.type})\n`,
    `${r.summary.documents} documents, ${r.summary.failed} failed run(s) · export ${code(r.source.file)} · intervals: Wilson for proportions (widened by the design effect where documents give several outcomes), ${bootstrapText(r)} otherwise · per-document records: ${code(r.documentsFile.file)} (${r.documentsFile.count} documents; report.json lists the ${r.worstDocuments.length} worst)\n`,
    headline(r),
    ...gates(r),
    ...baseline(r),
    ...(r.runs ? multiRunBlocks(r.runs) : []),
    ...extractTables(r),
    ...classifyTables(r),
    ...splitterTables(r),
    ...reconciliationsOf(r).flatMap((x) => reconciliationBlocks(x.rec, x.run)),
    ...costTable(r),
    ...calibrationTables(r),
    ...sliceTables(r),
    ...failures(r),
  ];
  if (r.warnings.length) out.push('### Warnings\n', r.warnings.map((w) => `- ${text(w)}`).join('\n') + '\n');
  return out;
}

/** Control characters from documents and users (ESC, BEL, NUL...) are written as `\x1b`: report.md is read in terminals too. */
function render(bs: Block[], limit: number): string {
  return escapeControls(bs.map((b) => (typeof b === 'string' ? b : renderTable(b, limit))).join('\n'));
}

const CUT_NOTE = '\n_The rest of this summary was cut to keep it under 60 KB; everything is in report.json._\n';

/**
 * The Markdown summary, always under `maxBytes`: long tables are shortened first (each with a
 * note); if the parts that are never shortened (warnings, lists of fields) are still too long,
 * the text is cut at a line boundary, with a note.
 */
export function renderMarkdown(report: Report, maxBytes = MAX_BYTES): string {
  const bs = blocks(report);
  let text = '';
  for (const limit of [Infinity, 500, 200, 100, 50, 20, 10, 5, 0]) {
    text = render(bs, limit);
    if (Buffer.byteLength(text, 'utf8') < maxBytes) return text;
  }
  const room = maxBytes - Buffer.byteLength(CUT_NOTE, 'utf8') - 1;
  const cut = Buffer.from(text, 'utf8').subarray(0, room).toString('utf8');
  // A cut inside a multi-byte character decodes to U+FFFD; the last whole line is kept either way.
  return cut.slice(0, Math.max(0, cut.lastIndexOf('\n') + 1)) + CUT_NOTE;
}

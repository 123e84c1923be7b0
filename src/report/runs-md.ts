/**
 * The multi-run section of report.md: a metric x run table whose cells carry a shade for the
 * value and, beside the reference, the delta with its corrected verdict; then one line per run
 * with its tally and the changes called.
 */
import type { ComparisonRow, MultiRun } from '../metrics/generated/report.js';
import { code, num, text, type MarkdownBlock } from './markdown.js';

/** Shades for a value in [0, 1], lightest for the lowest: `█` ≥ 0.95, `▓` ≥ 0.85, `▒` ≥ 0.7, `░` ≥ 0.5, `·` below. */
export function shade(v: number | null): string {
  if (v === null) return ' ';
  return v >= 0.95 ? '█' : v >= 0.85 ? '▓' : v >= 0.7 ? '▒' : v >= 0.5 ? '░' : '·';
}

export const VERDICT_MARK: Record<ComparisonRow['verdict'], string> = { improved: '▲', regressed: '▼', no_change: '=', inconclusive: '?', not_comparable: '' };

const signed = (v: number | null): string => (v === null ? 'n/a' : `${v > 0 ? '+' : v < 0 ? '−' : '±'}${Math.abs(v).toFixed(3)}`);

export function runLabel(runs: MultiRun, i: number): string {
  const r = runs.runs[i];
  return `#${i} ${code(r.file)} ${code(r.processor.version)}`;
}

export function multiRunBlocks(runs: MultiRun): MarkdownBlock[] {
  const K = runs.runs.length;
  const out: MarkdownBlock[] = [`### Runs side by side: ${K} runs, ${runs.paired} document(s) in every run\n`];
  const who = runs.runs.map((r, i) => {
    const g = r.group === null ? '' : ` (repeat ${code(runs.repeatGroups[r.group].label)})`;
    return `${runLabel(runs, i)}${i === 0 ? ' (reference)' : ''}${g}: ${r.paired} of ${r.documents} paired`;
  });
  out.push(who.join(' · ') + ` (--pair-by ${runs.pairing.by}; at least ${runs.pairing.minPaired} needed${runs.pairing.sufficient ? '' : ', **not reached**'}).\n`);
  out.push(
    runs.repeatGroups.length
      ? `Repeats of one version give the run-to-run spread: per metric the pooled SD across repeats, the share of documents that flip between repeats, and the band 1.96·√2·SD; a significant Δ no larger than the band is inconclusive. Shades: █ ≥ 0.95 ▓ ≥ 0.85 ▒ ≥ 0.7 ░ ≥ 0.5 · below; ▲ improved ▼ regressed = no change ? inconclusive (Holm across ${runs.comparisons.reduce((a, c) => a + c.rows.filter((r) => r.delta !== null).length, 0)} metric x run deltas).\n`
      : `No two runs are of the same version, so there is no run-to-run spread to hold deltas to. Shades: █ ≥ 0.95 ▓ ≥ 0.85 ▒ ≥ 0.7 ░ ≥ 0.5 · below; ▲ improved ▼ regressed = no change ? inconclusive (Holm across ${runs.comparisons.reduce((a, c) => a + c.rows.filter((r) => r.delta !== null).length, 0)} metric x run deltas).\n`,
  );
  for (const w of runs.warnings) out.push(`> ${text(w)}\n`);
  for (const c of runs.comparisons) {
    const t = c.tally;
    const called = c.rows.filter((r) => r.verdict === 'improved' || r.verdict === 'regressed').map((r) => `${code(r.key)} ${VERDICT_MARK[r.verdict]} ${signed(r.delta)}`);
    out.push(
      `${runLabel(runs, c.run)} vs #0: **${t.regressed} regressed · ${t.improved} improved** · ${t.inconclusive} inconclusive · ${t.no_change} no change · ${t.not_comparable} not comparable` +
        (c.withinSpread.length ? ` (${c.withinSpread.length} within the run-to-run spread: ${c.withinSpread.map(code).join(', ')})` : '') +
        (called.length ? `; ${called.join(', ')}` : '') +
        '.\n',
    );
  }
  const rowsByRun = runs.comparisons.map((c) => new Map(c.rows.map((r) => [r.key, r])));
  const spread = runs.repeatGroups.length > 0;
  const rows = runs.metrics.map((m) => {
    const cells = m.values.map((v, i) => {
      if (i === 0) return `${num(v)} ${shade(v)}`;
      const row = rowsByRun[i - 1].get(m.key);
      return `${num(v)} ${shade(v)} ${row ? `${signed(row.delta)} ${VERDICT_MARK[row.verdict]}` : ''}`.trim();
    });
    return [code(m.key), ...cells, ...(spread ? [num(m.sd), num(m.flipRate), num(m.band)] : [])];
  });
  out.push({
    head: ['metric', ...runs.runs.map((_, i) => runLabel(runs, i)), ...(spread ? ['SD', 'flip rate', 'band'] : [])],
    align: ['l', ...runs.runs.map((): 'r' => 'r'), ...(spread ? (['r', 'r', 'r'] as const) : [])],
    rows,
    cuttable: true,
  });
  return out;
}

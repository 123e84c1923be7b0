// Runs side by side (src/report/runs.ts) on hand-computed cases: one string field, 40 documents,
// every wrong value a wrong value (FD), so that every metric equals the share of right documents.
import { describe, expect, it } from 'vitest';
import type { EvaluationExport } from '../../src/metrics/index.js';
import { Z95 } from '../../src/metrics/stats.js';
import { computeReport, computeReportStream, MemoryDocuments, renderMarkdown, renderRunsHtml, runSpread, type Report } from '../../src/report/index.js';
import { extractExport } from '../metrics/helpers.js';

const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { name: { type: 'string' } } } };
const N = 40;

function run(right: (i: number) => boolean, version = '1.0', n = N): EvaluationExport {
  const exp = extractExport(cfg, Array.from({ length: n }, (_, i) => ({ e: { name: `N${i}` }, p: { name: right(i) ? `N${i}` : 'x' } })));
  exp.processor.version = version;
  return exp;
}

// A: 1.0, right on documents 0-29 (0.75). B: 1.0 again, right on 0-19 (0.50). C: draft, right on all (1.00).
const A = run((i) => i < 30);
const B = run((i) => i < 20);
const C = run(() => true, 'draft');
const KEYS = ['document.accuracy', 'field:name.f1', 'macro.f1', 'micro.accuracy', 'micro.f1', 'micro.precision', 'micro.recall'];

const multi = (ref: EvaluationExport, others: Array<[string, EvaluationExport]>, extra: Parameters<typeof computeReport>[1] = {}): Report =>
  computeReport(ref, { bootstrap: 200, seed: 3, sourceFile: 'a.json', runs: others.map(([file, e]) => ({ file, export: e })), ...extra });

describe('runs side by side: hand-computed deltas, corrections and spread', () => {
  const r = multi(A, [
    ['b.json', B],
    ['c.json', C],
  ]);
  const runs = r.runs!;

  it('pairs the documents every run has and finds the repeats of 1.0', () => {
    expect(runs.paired).toBe(40);
    expect(runs.runs.map((x) => [x.file, x.processor.version, x.group])).toEqual([
      ['a.json', '1.0', 0],
      ['b.json', '1.0', 0],
      ['c.json', 'draft', null],
    ]);
    expect(runs.repeatGroups).toEqual([{ label: '1.0', runs: [0, 1] }]);
    expect(runs.metrics.map((m) => m.key)).toEqual(KEYS);
  });

  it('every metric per run, and the spread of the two 1.0 runs: SD, flip rate and band', () => {
    // Values 0.75 and 0.50: mean 0.625, Σ(x − mean)² = 2 · 0.125² = 0.03125 on 1 degree of freedom.
    const sd = Math.sqrt(0.03125);
    for (const m of runs.metrics) {
      expect(m.values).toEqual([0.75, 0.5, 1]);
      expect(m.sd).toBeCloseTo(sd, 12);
      expect(m.band).toBeCloseTo(Z95 * Math.SQRT2 * sd, 12); // = 1.959964 · 0.25 = 0.48999
      expect(m.band).toBeCloseTo(0.4899909961, 9);
      // Documents 20-29 are right in one 1.0 run and wrong in the other: 10 of 40.
      expect(m.flipRate).toBe(0.25);
    }
  });

  it('McNemar per run against the first, Holm across all 14 metric x run rows', () => {
    const p = 2 * 0.5 ** 10; // b + c = 10 discordant documents, all one way
    const [vsB, vsC] = runs.comparisons;
    expect(vsB.run).toBe(1);
    expect(vsC.run).toBe(2);
    for (const row of vsB.rows) {
      expect(row.delta).toBeCloseTo(-0.25, 12);
      expect(row.mcnemar).toEqual({ b: 10, c: 0, p });
    }
    for (const row of vsC.rows) {
      expect(row.delta).toBeCloseTo(0.25, 12);
      expect(row.mcnemar).toEqual({ b: 0, c: 10, p });
      expect(row.interval!.lower).toBeGreaterThan(0);
    }
    // 14 equal p-values: Holm gives 14p to the first and keeps the running maximum; BH gives 14p/14.
    for (const row of [...vsB.rows, ...vsC.rows]) {
      expect(row.pHolm).toBeCloseTo(14 * p, 12);
      expect(row.q).toBeCloseTo(p, 12);
    }
  });

  it('a significant delta no larger than the run-to-run band is inconclusive, and says so', () => {
    // |±0.25| ≤ 0.49: without the spread, C would be improved and B regressed.
    for (const c of runs.comparisons) {
      expect(c.rows.map((x) => x.verdict)).toEqual(KEYS.map(() => 'inconclusive'));
      expect(c.withinSpread).toEqual(KEYS);
      expect(c.tally).toEqual({ improved: 0, regressed: 0, inconclusive: 7, no_change: 0, not_comparable: 0 });
    }
  });

  it('without repeats the same delta is improved (Holm over 7 rows: 7p = 0.0137)', () => {
    const only = multi(A, [['c.json', C]]).runs!;
    expect(only.repeatGroups).toEqual([]);
    expect(only.metrics[0].sd).toBeNull();
    expect(only.metrics[0].band).toBeNull();
    expect(only.metrics[0].flipRate).toBeNull();
    const [vsC] = only.comparisons;
    expect(vsC.rows[0].pHolm).toBeCloseTo(7 * 2 * 0.5 ** 10, 12);
    expect(vsC.rows.every((x) => x.verdict === 'improved')).toBe(true);
    expect(vsC.withinSpread).toEqual([]);
  });

  it('repeats that agree in value (SD 0, band 0) leave a real change improved', () => {
    // B2: 1.0 again, right on 0-28 and 30: also 0.75; documents 29 and 30 flip (2 of 40).
    const B2 = run((i) => i < 29 || i === 30);
    const x = multi(A, [
      ['b2.json', B2],
      ['c.json', C],
    ]).runs!;
    expect(x.metrics[0].sd).toBe(0);
    expect(x.metrics[0].band).toBe(0);
    expect(x.metrics[0].flipRate).toBe(0.05);
    const [vsB2, vsC] = x.comparisons;
    expect(vsB2.rows[0].mcnemar).toEqual({ b: 1, c: 1, p: 1 });
    expect(vsB2.rows.every((row) => row.verdict === 'inconclusive')).toBe(true);
    // Holm over 14 rows: the seven p = 2⁻⁹ come first, 14 · 2⁻⁹ = 0.0273.
    expect(vsC.rows[0].pHolm).toBeCloseTo(14 * 2 * 0.5 ** 10, 12);
    expect(vsC.rows.every((row) => row.verdict === 'improved')).toBe(true);
  });

  it('a --baseline comparison beside repeats holds to the same band', () => {
    const gated = { baseline: { kind: 'export' as const, file: 'c.json', export: C }, failOnRegression: true };
    const alone = computeReport(A, { bootstrap: 200, seed: 3, ...gated });
    expect(alone.baseline!.tally.regressed).toBe(7);
    expect(alone.gates.passed).toBe(false);
    const beside = multi(A, [['b.json', B]], gated);
    expect(beside.baseline!.tally).toEqual({ improved: 0, regressed: 0, inconclusive: 7, no_change: 0, not_comparable: 0 });
    expect(beside.baseline!.warnings.join('\n')).toContain('7 significant change(s) are no larger than the run-to-run spread');
    expect(beside.gates.regressed).toEqual([]);
    expect(beside.gates.passed).toBe(true);
  });

  it('pairs by item id: a document missing from one run leaves every run', () => {
    const short = run(() => true, 'draft', 39);
    const x = multi(A, [['c.json', short]]).runs!;
    expect(x.paired).toBe(39);
    expect(x.runs.map((y) => [y.documents, y.paired])).toEqual([
      [40, 40],
      [39, 39],
    ]);
    // On documents 0-38, A is right on 30 of 39.
    expect(x.metrics.find((m) => m.key === 'micro.f1')!.values[0]).toBeCloseTo(30 / 39, 12);
  });

  it('refuses runs of another processor type', () => {
    const other = extractExport(cfg, [{ e: { name: 'a' }, p: { name: 'a' } }]);
    other.processor.type = 'CLASSIFY';
    expect(() => multi(A, [['x.json', other]])).toThrow(/x\.json is a CLASSIFY evaluation but a\.json \(the first run\) is EXTRACT/);
  });

  it('a draft edited between runs is not a repeat of itself', () => {
    const edited = run((i) => i < 20);
    edited.processor.config = { ...cfg, description: 'edited' };
    expect(multi(A, [['e.json', edited]]).runs!.repeatGroups).toEqual([]);
  });
});

describe('runSpread', () => {
  it('pools the SD over groups and the flips over (group, document) pairs', () => {
    // Group 1: 0.8, 0.7, 0.9 (Σ(x − 0.8)² = 0.02, 2 df); group 2: 0.5, 0.6 (0.005, 1 df): sd = √(0.025 / 3).
    const u = (...b: number[]) => Uint8Array.from(b);
    const s = runSpread(
      [
        [0.8, 0.7, 0.9],
        [0.5, 0.6],
      ],
      [
        [u(1, 1, 0, 0), u(1, 0, 0, 0), u(1, 1, 0, 1)], // documents 1 and 3 flip
        [u(0, 0, 1, 1), u(0, 0, 1, 1)], // none
      ],
    );
    expect(s.sd).toBeCloseTo(Math.sqrt(0.025 / 3), 12);
    expect(s.band).toBeCloseTo(Z95 * Math.SQRT2 * Math.sqrt(0.025 / 3), 12);
    expect(s.flipRate).toBe(2 / 8);
  });

  it('leaves out a group where a repeat has the metric undefined (SD), but counts its flips', () => {
    const s = runSpread([[0.5, null]], [[Uint8Array.from([1, 0]), Uint8Array.from([1, 1])]]);
    expect(s).toEqual({ sd: null, band: null, flipRate: 0.5 });
  });
});

describe('rendering runs side by side', () => {
  const r = multi(A, [
    ['b <b>.json', B],
    ['c.json', C],
  ]);

  it('Markdown: a metric x run table with shades, deltas and verdict marks', () => {
    const md = renderMarkdown(r);
    expect(md).toContain('### Runs side by side: 3 runs, 40 document(s) in every run');
    expect(md).toContain('| metric | #0 `a.json` `1.0` | #1 `b <b>.json` `1.0` | #2 `c.json` `draft` | SD | flip rate | band |');
    expect(md).toContain('| `micro.f1` | 0.750 ▒ | 0.500 ░ −0.250 ? | 1.000 █ +0.250 ? | 0.177 | 0.250 | 0.490 |');
    expect(md).toMatch(/#2 `c\.json` `draft` vs #0: \*\*0 regressed · 0 improved\*\* · 7 inconclusive .*\(7 within the run-to-run spread/);
  });

  it('HTML fragment: one section, escaped, no script or event handler', () => {
    const html = renderRunsHtml(r.runs!);
    expect(html.startsWith('<section class="evalkit-runs">')).toBe(true);
    expect(html.endsWith('</section>')).toBe(true);
    expect(html).toContain('b &lt;b&gt;.json');
    expect(html).not.toContain('<b>');
    expect(html).not.toMatch(/<script|\son[a-z]+=/i);
    expect(html.match(/<tr>/g)).toHaveLength(1 + KEYS.length);
  });

  it('runs read item by item (computeReportStream) give the section of the same runs held in memory', async () => {
    const { items, ...header } = A;
    const streamed = (e: EvaluationExport) => {
      const { items: its, ...h } = e;
      // An item source that can be read again, one item at a time.
      return { header: h, items: async function* () { yield* its; } };
    };
    const held = multi(A, [['b.json', B], ['c.json', C]]);
    const read = await computeReportStream(header, () => items, { bootstrap: 200, seed: 3, sourceFile: 'a.json', runs: [{ file: 'b.json', ...streamed(B) }, { file: 'c.json', export: C }] }, new MemoryDocuments());
    expect(read.runs).toEqual(held.runs);
    expect(() => computeReport(A, { runs: [{ file: 'b.json', ...streamed(B) }] })).toThrow(/needs computeReportStream/);
  });

  it('a single run has no runs section: the report is as before', () => {
    expect(computeReport(A, { bootstrap: 0 }).runs).toBeUndefined();
    expect(computeReport(A, { bootstrap: 0, runs: [] }).runs).toBeUndefined();
  });
});

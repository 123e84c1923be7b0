// One gate syntax for the CLI, the config file and the library (issue 35): METRIC>=N, METRIC<=N,
// and METRIC=N as an alias of >=, parsed by parseGates alone.
import { describe, expect, it } from 'vitest';
import { computeReport, parseGates } from '../../src/index.js';
import { renderJson, renderJunit, renderMarkdown } from '../../src/report/index.js';
import { holm, mcnemarExact, pairsForSignificance, smallestHolmMcnemar } from '../../src/metrics/stats.js';
import { underpoweredRegression, unreachableRegressions } from '../../src/report/gates.js';
import { extractExport } from '../metrics/helpers.js';
import { headlineChangeText } from '../../src/report/headline.js';
import { overviewHtml } from '../../src/report/html.js';
import { commentOf } from '../../src/ci/github.js';

const config = { fields: [{ name: 'total', type: 'number' }, { name: 'vendor', type: 'string' }] };
// total: 3 of 4 right; vendor: 4 of 4 right: micro F1 = 2·7 / (2·7 + 1 + 1) = 0.875.
const exp = extractExport(config, [
  { e: { total: 1, vendor: 'a' }, p: { total: 1, vendor: 'a' } },
  { e: { total: 2, vendor: 'b' }, p: { total: 2, vendor: 'b' } },
  { e: { total: 3, vendor: 'c' }, p: { total: 3, vendor: 'c' } },
  { e: { total: 4, vendor: 'd' }, p: { total: 5, vendor: 'd' } },
]);

describe('parseGates', () => {
  it.each([
    ['micro.f1>=0.9', '>='],
    ['micro.f1=0.9', '>='],
    ['micro.f1 <= 0.9', '<='],
    ['latency.p95<=30000', '<='],
  ])('%s', (text, op) => {
    const [g] = parseGates([text]);
    expect(g.op).toBe(op);
    expect(g.metric).toBe(text.replace(/\s*(<=|>=|=).*$/, ''));
    expect(g.threshold).toBe(Number(text.replace(/^.*?(<=|>=|=)\s*/, '')));
  });

  it('errors name the label given, by default "gate" (no CLI flag in the library)', () => {
    expect(() => parseGates(['micro.f1'])).toThrow(/^gate "micro\.f1": expected METRIC>=N, METRIC<=N or METRIC=N/);
    expect(() => parseGates(['micro.f1'], '--fail-under')).toThrow(/^--fail-under "micro\.f1"/);
    expect(() => parseGates(['micro.f1>=90'])).toThrow(/^gate "micro\.f1>=90": the threshold must be between 0 and 1/);
  });
});

describe('computeReport gates: the same three spellings', () => {
  it.each([
    ['micro.f1>=0.9', false],
    ['micro.f1=0.9', false],
    ['micro.f1>=0.85', true],
    ['micro.f1=0.85', true],
    ['micro.f1<=0.9', true],
    ['micro.f1<=0.85', false],
  ])('%s passes: %s', (gate, passed) => {
    const r = computeReport(exp, { bootstrap: 0, gates: [gate] });
    expect(r.gates.results[0].value).toBeCloseTo(0.875, 12);
    expect(r.gates.passed).toBe(passed);
  });

  it('an unknown metric is named without a CLI flag', () => {
    expect(() => computeReport(exp, { bootstrap: 0, gates: ['micro.f2>=0.9'] })).toThrow(/^gate: no metric "micro\.f2" in this EXTRACT report/);
  });
});

describe('gates on runs that failed', () => {
  // Five fields, one expected: a run that fails predicts nothing, and the four fields nobody
  // expected are true negatives: micro accuracy 4 / 5 = 0.8 on empty predictions.
  const five = { fields: ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name, type: 'string' })) };
  const allFailed = extractExport(five, Array.from({ length: 10 }, () => ({ e: { a: 'x' }, p: null })));

  it('every run failed: every quality gate fails, even one an empty prediction would pass', () => {
    const r = computeReport(allFailed, { bootstrap: 0, gates: ['accuracy=0.8', 'field:b.accuracy=0.95', 'micro.f1<=1'] });
    expect(r.extract?.micro.accuracy.value).toBeCloseTo(0.8, 12);
    expect(r.gates.results.map((g) => [g.passed, g.reason])).toEqual(Array.from({ length: 3 }, () => [false, 'every run failed (10 of 10): no output to judge']));
    expect(r.gates.passed).toBe(false);
  });

  it('every run failed: latency and credits gates fail too (failed runs carry durations); failed.rate is judged as it is', () => {
    const timed = structuredClone(allFailed);
    timed.items.forEach((it, i) => Object.assign(it, { durationMs: 400 + i * 10, credits: 1 }));
    const r = computeReport(timed, { bootstrap: 0, gates: ['latency.p95<=100000', 'credits.mean<=4', 'latency.mean>=0', 'failed.rate<=1'] });
    expect(r.cost?.latency?.p95).toBeCloseTo(485.5, 9);
    expect(r.gates.results.map((g) => [g.gate, g.passed, g.reason])).toEqual([
      ['latency.p95<=100000', false, 'every run failed (10 of 10): no output to judge (485.5 is of failed runs)'],
      ['credits.mean<=4', false, 'every run failed (10 of 10): no output to judge (1 is of failed runs)'],
      ['latency.mean>=0', false, 'every run failed (10 of 10): no output to judge (445 is of failed runs)'],
      ['failed.rate<=1', true, undefined],
    ]);
    expect(r.gates.passed).toBe(false);
    // The export carries no durations: the same reason, without a figure.
    expect(computeReport(allFailed, { bootstrap: 0, gates: ['latency.p95<=100000'] }).gates.results[0].reason).toBe('every run failed (10 of 10): no output to judge');
    // Every rendering says why.
    const line = 'every run failed (10 of 10): no output to judge (485.5 is of failed runs)';
    expect(renderMarkdown(r)).toContain(`| \`latency.p95<=100000\` | 485.500 | point | **FAIL**: ${line} |`);
    expect(renderJunit(r)).toContain(`latency.p95&lt;=100000 failed: ${line}`);
    expect(JSON.parse(renderJson(r)).gates.results[0]).toMatchObject({ passed: false, reason: line });
  });

  it('every run failed: --fail-on-regression fails (processed>=1), also where the baseline was as wrong', () => {
    // The baseline processed but got no document whole: no aggregate can regress.
    const wrong = extractExport(five, Array.from({ length: 10 }, () => ({ e: { a: 'x' }, p: { a: 'y' } })));
    const r = computeReport(allFailed, { bootstrap: 0, failOnRegression: true, baseline: { kind: 'export', file: 'b.json', export: wrong } });
    expect(r.gates.regressed).toEqual([]);
    expect(r.gates.results.find((g) => g.metric === 'processed')).toEqual({ gate: 'processed>=1', metric: 'processed', threshold: 1, op: '>=', on: 'point', value: 0, passed: false, reason: 'every run failed (10 of 10): no output to compare with the baseline' });
    expect(r.gates.passed).toBe(false);
  });

  it('one run of ten processed: the gates are judged as usual', () => {
    const some = extractExport(five, [{ e: { a: 'x' }, p: { a: 'x' } }, ...Array.from({ length: 9 }, () => ({ e: { a: 'x' }, p: null }))]);
    // 41 of 50 outcomes right: 4 TN in each of the ten documents, and the one TP.
    const r = computeReport(some, { bootstrap: 0, gates: ['accuracy=0.8'] });
    expect(r.gates.results[0]).toMatchObject({ passed: true, value: 41 / 50 });
  });

  it('--max-failed-rate with --gate-on lower holds the Wilson upper bound of the failed share', () => {
    // 2 of 8 failed: Wilson upper bound (z = 1.959964) by hand: (0.25 + z²/16 + z·√(0.25·0.75/8 + z²/256)) / (1 + z²/8) = 0.590725.
    const eight = extractExport(config, Array.from({ length: 8 }, (_, i) => ({ e: { total: 1, vendor: 'a' }, p: i < 2 ? null : { total: 1, vendor: 'a' } })));
    const point = computeReport(eight, { bootstrap: 0, maxFailedRate: 0.3 });
    expect(point.gates.results[0]).toMatchObject({ on: 'point', value: 0.25, passed: true });
    const lower = computeReport(eight, { bootstrap: 0, maxFailedRate: 0.3, gateOn: 'lower' });
    expect(lower.gates.results[0]).toMatchObject({ on: 'lower', passed: false });
    expect(lower.gates.results[0].value).toBeCloseTo(0.590725, 5);
    expect(lower.gates.results[0].reason).toBe('2 of 8 run(s) failed (upper bound 0.591 of 0.25), more than 0.3');
    // The same gate written as one (--gate, the config file's gates): failed.rate<=R.
    const written = computeReport(eight, { bootstrap: 0, gates: ['failed.rate<=0.3'], gateOn: 'lower' });
    expect(written.gates.results[0]).toEqual(lower.gates.results[0]);
    expect(computeReport(eight, { bootstrap: 0, gates: ['failed.rate<=0.3'] }).gates.results[0]).toMatchObject({ value: 0.25, passed: true });
  });
});

describe('a regression gate that cannot fail fails (issue 35)', () => {
  // Hand values: one comparison (m = 1) needs 2·2^−n < 0.05, so n ≥ 6 (2/32 = 0.0625 at 5);
  // ten need 10·2^(1−n) < 0.05, 2^(n−1) > 200, so n ≥ 9 (10/128 = 0.078 at 8, 10/256 = 0.039 at 9).
  it('smallestHolmMcnemar and pairsForSignificance', () => {
    expect(smallestHolmMcnemar(5, 1)).toBe(0.0625);
    expect(smallestHolmMcnemar(6, 1)).toBe(0.03125);
    expect(smallestHolmMcnemar(8, 10)).toBeCloseTo(0.078125, 15);
    expect(smallestHolmMcnemar(1, 3)).toBe(1);
    expect(pairsForSignificance(1, 0.05)).toBe(6);
    expect(pairsForSignificance(10, 0.05)).toBe(9);
    expect(pairsForSignificance(12, 0.05)).toBe(9);
    expect(pairsForSignificance(13, 0.05)).toBe(10);
  });

  const one = { fields: [{ name: 'total', type: 'number' }] };
  const docs = (n: number, wrong: number) =>
    extractExport(
      one,
      Array.from({ length: n }, (_, i) => ({ e: { total: i + 1 }, p: { total: i < wrong ? i + 100 : i + 1 } })),
    );

  it('5 paired documents, all going wrong: fails naming the pairs it needs', () => {
    const r = computeReport(docs(5, 5), { bootstrap: 200, failOnRegression: true, baseline: { kind: 'export', file: 'b.json', export: docs(5, 0) } });
    // Rows: field:total.f1, micro precision, recall, f1, accuracy, macro.f1, document.accuracy = 7 comparable.
    const m = r.baseline?.rows.filter((x) => x.delta !== null).length ?? 0;
    expect(m).toBe(7);
    expect(r.baseline?.tally.regressed).toBe(0);
    const g = r.gates.results.find((x) => x.gate === `baseline.paired>=${pairsForSignificance(7, 0.05)}`);
    expect(pairsForSignificance(7, 0.05)).toBe(9); // 7·2^−7 = 0.0547, 7·2^−8 = 0.0273
    expect(g).toMatchObject({ metric: 'baseline.paired', value: 5, threshold: 9, passed: false });
    expect(g?.reason).toMatch(/no regression can be significant on 5 paired document\(s\): with 7 metric\(s\) compared, the smallest Holm-adjusted McNemar p any outcome could give is min\(1, 7·2\^\(1−5\)\) = 0\.438, not below 0\.05; a regression gate needs at least 9 paired documents/);
    expect(r.gates.passed).toBe(false);
  });

  it('allowUnderpowered passes it with a warning; the power warning stays', () => {
    const r = computeReport(docs(5, 5), { bootstrap: 200, failOnRegression: true, allowUnderpowered: true, baseline: { kind: 'export', file: 'b.json', export: docs(5, 0) } });
    expect(r.gates.passed).toBe(true);
    expect(r.gates.results.map((x) => x.gate)).toEqual(['baseline.paired>=5']);
    expect(r.warnings.some((w) => /^allowed underpowered comparison: no regression can be significant on 5 paired/.test(w))).toBe(true);
    expect(r.baseline?.warnings.some((w) => /^power: these 5 paired documents .* no change of any size/.test(w))).toBe(true);
  });

  it('9 paired documents can show a regression: no such gate, and 9 going wrong is one', () => {
    const r = computeReport(docs(9, 9), { bootstrap: 200, failOnRegression: true, baseline: { kind: 'export', file: 'b.json', export: docs(9, 0) } });
    expect(r.gates.results.map((x) => x.gate)).toEqual(['baseline.paired>=9']);
    expect(r.gates.results[0].passed).toBe(true);
    expect(r.gates.regressed.length).toBeGreaterThan(0);
    expect(r.gates.passed).toBe(false);
  });
});

describe('the headline change leads a baseline summary', () => {
  it('micro F1 before -> after, the delta and the verdict; the PR comment line starts with it', () => {
    // Baseline: 8 of 8 values right, micro F1 1. Current: one total wrong (exp above): 0.875.
    const base = extractExport(config, exp.items.map((it) => ({ e: (it.expectedOutput as { value: object }).value, p: (it.expectedOutput as { value: object }).value })));
    const r = computeReport(exp, { bootstrap: 200, baseline: { kind: 'export', file: 'main.json', export: base } });
    expect(headlineChangeText(r)).toBe('micro F1 1.000 -> 0.875 (-0.125, inconclusive)');
    expect(commentOf(r).split('\n')[1]).toMatch(/^\*\*evalkit ✅ passed\*\*: micro F1 1\.000 -> 0\.875 \(-0\.125, inconclusive\) · Test 1\.0 on 4 documents · /);
    expect(headlineChangeText(computeReport(exp, { bootstrap: 0 }))).toBeUndefined();
  });
});

describe('a fall the paired documents could not show is said on the regression line', () => {
  // 12 documents of four fields. Baseline: two documents with two values wrong (micro F1 44/48);
  // this run: five more documents with all four wrong (24/48 = 0.5). Whole-document correctness:
  // b = 5, c = 0, McNemar p = 2·2^−5 = 0.0625, Holm over the 10 rows: 0.625.
  const four = { fields: ['a', 'b', 'c', 'd'].map((name) => ({ name, type: 'string' })) };
  const twelve = (wrong: (i: number) => string[]) =>
    extractExport(
      four,
      Array.from({ length: 12 }, (_, i) => {
        const e = { a: `a${i}`, b: `b${i}`, c: `c${i}`, d: `d${i}` };
        return { e, p: { ...e, ...Object.fromEntries(wrong(i).map((f) => [f, 'x'])) } };
      }),
    );
  const base = twelve((i) => (i < 2 ? ['a', 'b'] : []));
  const cur = twelve((i) => (i < 2 ? ['a', 'b'] : i < 7 ? ['a', 'b', 'c', 'd'] : []));
  const r = computeReport(cur, { bootstrap: 500, failOnRegression: true, baseline: { kind: 'export', file: 'base.json', export: base } });

  it('as documented, the gate is not underpowered (10·2^(1−12) < 0.05): it passes, inconclusive', () => {
    const micro = r.baseline?.rows.find((x) => x.key === 'micro.f1');
    expect([micro?.baseline, micro?.current]).toEqual([44 / 48, 0.5]);
    expect(micro).toMatchObject({ verdict: 'inconclusive', mcnemar: { b: 5, c: 0, p: 0.0625 } });
    expect(micro?.pHolm).toBeCloseTo(0.625, 12);
    expect(r.baseline && underpoweredRegression(r.baseline, 0.05)).toBeUndefined();
    expect(r.gates.passed).toBe(true);
  });

  it('the rows that fell, what changed and the fewest changed documents that would be significant (checked against holm)', () => {
    const u = r.baseline && unreachableRegressions(r.baseline, 0.05);
    expect(u?.paired).toBe(12);
    // Aggregates first, then fields; every row fell 0.417 on 5 documents and needs 9 (10·2^(1−9) = 0.039; at 8: 0.078).
    const keys = u?.rows.map((x) => x.key) ?? [];
    expect(keys.slice(0, 6).sort()).toEqual(['document.accuracy', 'macro.f1', 'micro.accuracy', 'micro.f1', 'micro.precision', 'micro.recall']);
    expect(keys.slice(6).sort()).toEqual(['field:a.f1', 'field:b.f1', 'field:c.f1', 'field:d.f1']);
    expect(u?.rows.every((x) => x.changed === 5 && x.needed === 9 && Math.abs(x.delta + 5 / 12) < 1e-12)).toBe(true);
    const family = (r.baseline?.rows ?? []).filter((x) => x.delta !== null);
    const i = family.findIndex((x) => x.key === 'micro.f1');
    const adjusted = (d: number) => holm(family.map((x, j) => (j === i ? mcnemarExact(d, 0) : x.mcnemar.p)))[i];
    expect(adjusted(5)).toBeGreaterThanOrEqual(0.05);
    expect(adjusted(8)).toBeGreaterThanOrEqual(0.05);
    expect(adjusted(9)).toBeLessThan(0.05);
  });

  it('report.md and the JUnit gate say it on the regression line', () => {
    const said =
      '10 metric(s) fell but could not reach significance with 12 paired documents: even were every changed document to go wrong, the Holm-adjusted McNemar p would stay at or above 0.05';
    const md = renderMarkdown(r);
    expect(md).toMatch(/\| no significant regression \| 0 \| Holm-corrected verdicts \| pass, but it could not detect a regression here: 10 metric\(s\) fell but could not reach significance with 12 paired documents: /);
    expect(md).toContain('micro.f1 −0.417 (5 changed, 9 needed)');
    const junit = renderJunit(r);
    expect(junit).toContain(`0 regressed of 10 compared metrics; it could not detect a regression here: ${said}`);
    expect(junit).toContain('inconclusive (McNemar p 0.0625, Holm 0.6250); could not reach significance with 12 paired documents: 5 changed; 9 going wrong would be the fewest significant');
    // report.html's gates table, on the same line (escaped like every other value).
    const html = overviewHtml(r);
    expect(html).toContain(`<span class="ok">pass</span>, but it could not detect a regression here: ${said}`);
    expect(html).toContain('micro.f1 −0.417 (5 changed, 9 needed)');
  });

  it('no such line where the documents could show it: 9 going wrong of 12 regress', () => {
    const worse = twelve((i) => (i < 2 ? ['a', 'b'] : i < 11 ? ['a', 'b', 'c', 'd'] : []));
    const w = computeReport(worse, { bootstrap: 500, failOnRegression: true, baseline: { kind: 'export', file: 'base.json', export: base } });
    expect(w.gates.regressed).toContain('micro.f1');
    expect(w.baseline && unreachableRegressions(w.baseline, 0.05)).toBeUndefined();
    expect(renderMarkdown(w)).not.toContain('could not detect');
    expect(overviewHtml(w)).not.toContain('could not detect');
  });
});

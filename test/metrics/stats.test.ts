// Statistics against known values, the seeded bootstrap, and the paired baseline comparison.
import { describe, expect, it } from 'vitest';
import { benjaminiHochberg, clusteredProportion, holm, mcnemarExact, mcnemarMde, percentileInterval, wilson } from '../../src/metrics/index.js';
import { ClusterSums } from '../../src/metrics/stats.js';
import { computeReport, renderJson, type Report } from '../../src/report/index.js';
import { seededRandom } from '../../src/util/random.js';
import { extractExport, report, withDocuments } from './helpers.js';

describe('Wilson score interval (95%)', () => {
  // The first four are the worked examples of Newcombe (1998), "Two-sided confidence intervals
  // for the single proportion", Statistics in Medicine 17, method 3 (to 4 places there); the
  // full-precision values are scipy 1.10.1 binomtest(k, n).proportion_ci(method='wilson').
  const cases: Array<[number, number, number, number]> = [
    [81, 263, 0.2552885198782742, 0.36620957698280004],
    [15, 148, 0.06238639953073629, 0.16048724172330803],
    [0, 20, 0, 0.16112515805281935],
    [1, 29, 0.006113214292762667, 0.17175521879320282],
    [8, 10, 0.4901624715366418, 0.9433178485456248],
    [10, 10, 0.7224672001371109, 1],
    [0, 1, 0, 0.7934506856227626],
    [999, 1000, 0.9943574414020421, 0.9998234536293739],
  ];
  it.each(cases)('%i of %i', (k, n, lower, upper) => {
    const w = wilson(k, n);
    expect(w?.lower).toBeCloseTo(lower, 12);
    expect(w?.upper).toBeCloseTo(upper, 12);
  });
  it('is null for n = 0', () => expect(wilson(0, 0)).toBeNull());
});

describe('exact McNemar test (two-sided binomial on the discordant pairs)', () => {
  // Exact values: 2 * P(X <= min(b, c)) for X ~ Binomial(b + c, 1/2), capped at 1; the
  // non-dyadic ones are scipy 1.10.1 binomtest(min(b, c), b + c, 0.5).pvalue.
  const cases: Array<[number, number, number]> = [
    [1, 9, 22 / 1024],
    [0, 5, 2 / 32],
    [5, 0, 2 / 32],
    [3, 3, 1],
    [0, 1, 1],
    [0, 0, 1],
    [10, 25, 0.016673847800120715],
    [40, 60, 0.05688793364098088],
    [200, 250, 0.0207918002476078],
  ];
  it.each(cases)('b=%i c=%i', (b, c, p) => expect(mcnemarExact(b, c)).toBeCloseTo(p, 12));
  it('stays finite for large counts', () => {
    const p = mcnemarExact(20_000, 21_000);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(1e-5);
  });
});

describe('percentile interval and PRNG', () => {
  it('interpolates the 2.5% and 97.5% quantiles (type 7) and ignores undefined resamples', () => {
    const v = new Float64Array(Array.from({ length: 101 }, (_, i) => i / 100));
    expect(percentileInterval(v)).toEqual({ lower: 0.025, upper: 0.975 });
    const most = new Float64Array([NaN, NaN, NaN, 0.5]);
    expect(percentileInterval(most)).toBeNull(); // fewer than half defined
  });
  it('gives the same sequence for the same seed', () => {
    const [a, b, c] = [seededRandom(42), seededRandom(42), seededRandom(43)];
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(xs);
  });
});

const CONFIG = { type: 'EXTRACT', schema: { type: 'object', properties: { name: { type: 'string' }, total: { type: 'number' } } } };

/** n documents; `right(i)` says whether document i's name is predicted right. */
function run(n: number, right: (i: number) => boolean, ids: (i: number) => string = (i) => `doc_${String(i).padStart(3, '0')}`, totalRight: (i: number) => boolean = () => true) {
  const exp = extractExport(
    CONFIG,
    Array.from({ length: n }, (_, i) => ({ e: { name: `N${i}`, total: i }, p: { name: right(i) ? `N${i}` : 'wrong', total: totalRight(i) ? i : -1 } })),
  );
  exp.items.forEach((it, i) => (it.id = ids(i)));
  return exp;
}

describe('bootstrap', () => {
  const exp = run(80, (i) => i % 4 !== 0, undefined, (i) => i % 7 !== 0);
  it('the same seed gives the same report bytes; another seed gives other intervals', () => {
    const a = renderJson(computeReport(exp, { bootstrap: 300, seed: 7 }));
    const b = renderJson(computeReport(exp, { bootstrap: 300, seed: 7 }));
    const c = renderJson(computeReport(exp, { bootstrap: 300, seed: 8 }));
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    const ra = JSON.parse(a) as Report;
    const rc = JSON.parse(c) as Report;
    expect(rc.extract?.micro.f1.value).toBe(ra.extract?.micro.f1.value); // point estimates do not depend on the seed
    const intervals = (r: Report) => [r.extract?.micro.f1.interval, r.extract?.macro.f1.interval, ...(r.extract?.fields ?? []).map((f) => f.f1.interval)];
    expect(intervals(rc)).not.toEqual(intervals(ra));
  });
  it('gives an interval around the point estimate, and none with --bootstrap 0', () => {
    const r = computeReport(exp, { bootstrap: 500, seed: 1 });
    const f1 = r.extract?.fields.find((f) => f.path === 'name')?.f1;
    expect(f1?.value).toBeCloseTo(0.75, 12); // 60 TP, 20 FD: 120 / (120 + 20 + 20)
    expect(f1?.interval?.lower).toBeLessThan(0.75);
    expect(f1?.interval?.upper).toBeGreaterThan(0.75);
    expect(f1?.interval?.upper).toBeLessThanOrEqual(1);
    expect(report(exp).extract?.micro.f1.interval).toBeNull();
  });
});

describe('baseline comparison', () => {
  const base = run(60, (i) => i < 30);
  const better = run(60, (i) => i < 55);
  const row = (r: Report, key: string) => r.baseline?.rows.find((x) => x.key === key);

  it('pairs documents by id: McNemar counts, delta, interval and verdict improved', () => {
    const r = computeReport(better, { bootstrap: 400, baseline: { kind: 'export', file: 'base.json', export: base } });
    const name = row(r, 'field:name.f1');
    expect(name?.mcnemar).toMatchObject({ b: 0, c: 25 });
    expect((name?.mcnemar.p ?? 0) / (2 * 0.5 ** 25)).toBeCloseTo(1, 12);
    expect(name?.baseline).toBeCloseTo(0.5, 12); // 30 TP, 30 FD: 60 / 120
    expect(name?.current).toBeCloseTo(110 / 120, 12);
    expect(name?.delta).toBeCloseTo(110 / 120 - 0.5, 12);
    expect(name?.interval?.lower).toBeGreaterThan(0);
    expect(name?.verdict).toBe('improved');
    expect(row(r, 'field:total.f1')?.verdict).toBe('no_change'); // unchanged: the interval of Δ is [0, 0]
    expect(r.baseline?.paired).toBe(60);
  });

  it('the other way round is a regression, and --fail-on-regression fails the gates', () => {
    const r = computeReport(base, { bootstrap: 400, baseline: { kind: 'export', file: 'better.json', export: better }, failOnRegression: true });
    expect(row(r, 'field:name.f1')?.verdict).toBe('regressed');
    expect(row(r, 'micro.f1')?.verdict).toBe('regressed');
    expect(r.gates.regressed).toContain('field:name.f1');
    expect(r.gates.passed).toBe(false);
  });

  it('a small change is inconclusive, not a regression', () => {
    const r = computeReport(run(60, (i) => i < 31), { bootstrap: 400, baseline: { kind: 'export', file: 'base.json', export: base }, failOnRegression: true });
    expect(row(r, 'field:name.f1')?.mcnemar).toMatchObject({ b: 0, c: 1 });
    expect(row(r, 'field:name.f1')?.verdict).toBe('inconclusive');
    expect(r.gates.passed).toBe(true);
  });

  it('lists items present on one side only and leaves them out of the paired statistics', () => {
    const cur = run(60, (i) => i < 55, (i) => (i === 0 ? 'only_current' : `doc_${String(i).padStart(3, '0')}`));
    const old = run(60, (i) => i < 30, (i) => (i === 59 ? 'only_baseline' : `doc_${String(i).padStart(3, '0')}`));
    const r = computeReport(cur, { bootstrap: 0, pairBy: 'id', baseline: { kind: 'export', file: 'old.json', export: old } });
    expect(r.baseline?.onlyInCurrent).toEqual(['doc_059', 'only_current']);
    expect(r.baseline?.onlyInBaseline).toEqual(['doc_000', 'only_baseline']);
    expect(r.baseline?.paired).toBe(58);
    // Paired docs 1..58: baseline right on 1..29, current right on 1..54.
    expect(row(r, 'field:name.f1')?.mcnemar).toMatchObject({ b: 0, c: 25 });
  });

  it('a baseline report.json gives the same comparison as its export', () => {
    const { documents, ...made } = withDocuments(base, { bootstrap: 0 });
    const baseReport = JSON.parse(renderJson(made)) as Report;
    const fromExport = computeReport(better, { bootstrap: 200, baseline: { kind: 'export', file: 'b', export: base } });
    const fromReport = computeReport(better, { bootstrap: 200, baseline: { kind: 'report', file: 'b', report: baseReport, documents } });
    expect(fromReport.baseline?.rows).toEqual(fromExport.baseline?.rows);
  });
});

describe('multiple comparisons, clustered proportions and power', () => {
  it('Holm and Benjamini-Hochberg match the hand-computed adjustments', () => {
    // Sorted p: 0.005, 0.01, 0.03, 0.04 (m = 4). Holm: 4·0.005, 3·0.01, 2·0.03, max(0.06, 0.04).
    // BH: 4p/i = 0.02, 0.02, 0.04, 0.04, then the running minimum from the largest.
    const ps = [0.01, 0.04, 0.03, 0.005];
    holm(ps).forEach((v, i) => expect(v).toBeCloseTo([0.03, 0.06, 0.06, 0.02][i], 12));
    benjaminiHochberg(ps).forEach((v, i) => expect(v).toBeCloseTo([0.02, 0.04, 0.04, 0.02][i], 12));
    expect(holm([0.5, 0.6])).toEqual([1, 1]);
  });

  it('widens Wilson by the design effect when documents give several outcomes', () => {
    // k = [2, 0, 3] of n = [2, 2, 3]: p = 5/7; residuals 4/7, −10/7, 6/7; v = 3/2 · (152/49) / 49;
    // p(1−p)/N = 10/343; deff = 78204/24010.
    const c = clusteredProportion([2, 0, 3], [2, 2, 3]);
    expect(c.value).toBeCloseTo(5 / 7, 12);
    expect(c.designEffect).toBeCloseTo(78204 / 24010, 12);
    const nEff = 7 / (78204 / 24010);
    const w = wilson((5 / 7) * nEff, nEff);
    expect(c.interval?.lower).toBeCloseTo(w?.lower ?? NaN, 12);
    expect(c.interval?.upper).toBeCloseTo(w?.upper ?? NaN, 12);
    // One outcome per document at most: plain Wilson, no design effect.
    expect(clusteredProportion([1, 0, 1], [1, 1, 1])).toEqual({ value: 2 / 3, k: 2, n: 3, interval: wilson(2, 3) });
  });

  it('minimum detectable effect of McNemar at 80% power', () => {
    const z = 1.959963984540054 + 0.8416212335729143;
    expect(mcnemarMde(3, 1, 20)).toBeCloseTo((z * z) / 20, 12); // z·sqrt(0.2/20) = 0.280 < z²/20 = 0.392
    expect(mcnemarMde(30, 20, 200)).toBeCloseTo(z * Math.sqrt(0.25 / 200), 12);
    expect(mcnemarMde(1, 1, 3)).toBe(1);
    expect(mcnemarMde(0, 0, 0)).toBeNull();
  });
});

describe('ClusterSums packed', () => {
  it('addPacked then fromPacked gives exactly what add gives, at any offset', () => {
    const r = seededRandom(5);
    const direct = new ClusterSums();
    const v = new Float64Array(3 + ClusterSums.PACKED);
    for (let d = 0; d < 500; d++) {
      const n = Math.floor(r() * 4); // 0 (skipped), 1 (not clustered) or more
      const k = Math.floor(r() * (n + 1));
      direct.add(k, n);
      ClusterSums.addPacked(v, 3, k, n);
    }
    const packed = ClusterSums.fromPacked(v, 3);
    expect(packed).toEqual(direct);
    expect(packed.proportion()).toEqual(direct.proportion());
    expect(direct.clustered).toBe(true);
  });
});

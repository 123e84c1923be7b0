// The group bootstrap's WebAssembly SIMD kernel (src/metrics/wasm/resample.wat) gives exactly
// the results of the JavaScript loop: the same random numbers in the same order and exact
// integer sums. Where it cannot be exact (fractional or too large group sums) the JavaScript
// loop runs instead.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BOOTSTRAP_GROUPS, bootstrap, documentBootstrap, groupBootstrap, hasResampleKernel, pointAndBootstrap, pointStats, type StatModel } from '../../src/metrics/bootstrap.js';
import { SeededGenerator, seededRandom } from '../../src/util/random.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** W columns of counts (0 to `top`) over n documents; each statistic a ratio of two column sums. */
function countsModel(n: number, W: number, top: number, seed: number): StatModel {
  const r = seededRandom(seed);
  const columns = Array.from({ length: W }, () => {
    const c = new Float64Array(n);
    for (let i = 0; i < n; i++) c[i] = Math.floor(r() * (top + 1));
    return c;
  });
  return {
    keys: Array.from({ length: W }, (_, c) => `r${c}`),
    columns,
    compute(s, out) {
      for (let c = 0; c < W; c++) out[c] = s[c] / (s[c] + s[(c + 1) % W] + 1);
    },
  };
}

const same = (a: Float64Array[][], b: Float64Array[][]): void => {
  expect(a.length).toBe(b.length);
  a.forEach((model, mi) => model.forEach((res, k) => expect(Array.from(res), `model ${mi} statistic ${k}`).toEqual(Array.from(b[mi][k]))));
};

describe('group bootstrap: WebAssembly kernel', () => {
  it('the compiled module is up to date with resample.wat (run npm run gen:wasm)', () => {
    const r = spawnSync(process.execPath, ['scripts/gen-wasm.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('runs on Node (WebAssembly SIMD), so the comparisons below compare two different loops', () => {
    expect(hasResampleKernel()).toBe(true);
  });

  it('gives the JavaScript loop results exactly: groups not a multiple of 4, resamples not of 8, two models paired', () => {
    const a = countsModel(3001, 7, 9, 1);
    const b = countsModel(3001, 5, 3, 2);
    // 1,001 groups (padded to 1,004 in the kernel), 21 resamples (two passes of 8 and one of 5).
    const wasm = groupBootstrap([a, b], 3001, 21, 5, 1001);
    const js = groupBootstrap([a, b], 3001, 21, 5, 1001, { wasm: false });
    same(wasm, js);
    // The group sums fit in 16 bits, so the narrow kernel ran; the wide one gives the same.
    same(groupBootstrap([a, b], 3001, 21, 5, 1001, { narrow: false }), js);
    // Not a constant: the resamples differ from one another.
    expect(new Set(wasm[0][0]).size).toBeGreaterThan(10);
  });

  it('draws the groups in the kernel as JavaScript does, up to the largest group count it takes (2^21 - 1), and past it in JavaScript', () => {
    // (u * G) >> 32 equals Math.floor(u / 2^32 * G) while u * G < 2^53: checked at the bound,
    // where a rounding difference would show first. 50 documents in 2^21 groups, most empty.
    const n = 50;
    const model: StatModel = { keys: ['s'], columns: [Float64Array.from({ length: n }, (_, i) => i % 7)], compute: (s, out) => void (out[0] = s[0]) };
    for (const G of [2 ** 21 - 1, 2 ** 21]) same(groupBootstrap([model], n, 9, 13, G), groupBootstrap([model], n, 9, 13, G, { wasm: false }));
  });

  it('sums 16-bit group sums of either sign exactly, up to their limit, and wider ones in 32 bits', () => {
    // Group sums of +-32,767 (the narrow kernel's limit) and of +-32,768 (past it: the wide
    // kernel), over 999 groups (not a multiple of 8), 11 resamples.
    for (const top of [32_767, 32_768]) {
      const n = 999;
      const col = Float64Array.from({ length: n }, (_, i) => (i % 3 === 0 ? top : i % 3 === 1 ? -top : i % 5));
      const model: StatModel = { keys: ['s', 'r'], columns: [col, new Float64Array(n).fill(1)], compute: (s, out) => ((out[0] = s[0]), (out[1] = s[0] / s[1])) };
      const js = groupBootstrap([model], n, 11, 8, n, { wasm: false });
      same(groupBootstrap([model], n, 11, 8, n), js);
      same(groupBootstrap([model], n, 11, 8, n, { narrow: false }), js);
      expect(new Set(js[0][0]).size).toBeGreaterThan(5);
    }
  });

  it('sums exactly up to the 32-bit limit', () => {
    // Group sums up to 200,000 over 10,000 groups: resampled sums near 2^31 - 1 (2.147e9) would
    // wrap; 10,000 x 200,000 = 2e9 stays under it, and the kernel runs.
    const n = 10_000;
    const col = new Float64Array(n).fill(200_000);
    const model: StatModel = { keys: ['s'], columns: [col], compute: (s, out) => void (out[0] = s[0]) };
    const res = groupBootstrap([model], n, 9, 3, n);
    expect(Array.from(res[0][0])).toEqual(new Array(9).fill(2e9));
  });

  it('falls back to the JavaScript loop for fractional or too large group sums', () => {
    const n = 2000;
    const r = seededRandom(4);
    const fractional = new Float64Array(n).map(() => r() * 3);
    const large = new Float64Array(n).map(() => Math.floor(r() * 3) * 2 ** 30);
    for (const col of [fractional, large]) {
      const model: StatModel = { keys: ['s'], columns: [col, new Float64Array(n).fill(1)], compute: (s, out) => void (out[0] = s[0] / s[1]) };
      const res = groupBootstrap([model], n, 10, 6, 500);
      same(res, groupBootstrap([model], n, 10, 6, 500, { wasm: false }));
      // Exact doubles, not wrapped 32-bit integers: every resampled mean lies within the column's range.
      for (const v of res[0][0]) expect(v >= 0 && v <= Math.max(...col)).toBe(true);
    }
  });
});

describe('document bootstrap (up to BOOTSTRAP_GROUPS documents): WebAssembly kernel', () => {
  it('gives the JavaScript loop results exactly: each document its own group, the same draws, two models paired', () => {
    // 3,001 documents (not a multiple of 8), 21 resamples; sparse and dense columns.
    const a = countsModel(3001, 7, 9, 21);
    const b = countsModel(3001, 5, 1, 22);
    const sparse: StatModel = { keys: ['rare'], columns: [Float64Array.from({ length: 3001 }, (_, i) => (i % 97 === 0 ? 3 : 0)), new Float64Array(3001).fill(1)], compute: (s, out) => void (out[0] = s[0] / s[1]) };
    const kernel = bootstrap([a, b, sparse], 3001, 21, 5);
    same(kernel, documentBootstrap([a, b, sparse], 3001, 21, 5));
    expect(new Set(kernel[2][0]).size).toBeGreaterThan(5);
  });

  it('leaves fractional columns, and sums past 32 bits, to the JavaScript loop', () => {
    const n = 500;
    const r = seededRandom(9);
    for (const col of [new Float64Array(n).map(() => r() / 7), new Float64Array(n).fill(2 ** 23)]) {
      const model: StatModel = { keys: ['s'], columns: [col], compute: (s, out) => void (out[0] = s[0]) };
      same(bootstrap([model], n, 9, 4), documentBootstrap([model], n, 9, 4));
    }
  });
});

describe('pointAndBootstrap', () => {
  it('past BOOTSTRAP_GROUPS documents takes the point statistics from the group sums: the same as summing the documents', () => {
    const n = BOOTSTRAP_GROUPS + 2345;
    const model = countsModel(n, 6, 7, 9);
    const { point, replicates } = pointAndBootstrap(model, n, 16, 11);
    expect(Array.from(point)).toEqual(Array.from(pointStats(model)));
    same([replicates as Float64Array[]], groupBootstrap([model], n, 16, 11, BOOTSTRAP_GROUPS));
  });

  it('with fractional columns, or up to BOOTSTRAP_GROUPS documents, sums the documents', () => {
    const n = BOOTSTRAP_GROUPS + 10;
    const r = seededRandom(12);
    const col = new Float64Array(n).map(() => r() / 3);
    const model: StatModel = { keys: ['mean'], columns: [col, new Float64Array(n).fill(1)], compute: (s, out) => void (out[0] = s[0] / s[1]) };
    expect(Array.from(pointAndBootstrap(model, n, 8, 1).point)).toEqual(Array.from(pointStats(model)));
    const small = countsModel(500, 3, 4, 2);
    const res = pointAndBootstrap(small, 500, 8, 1);
    expect(Array.from(res.point)).toEqual(Array.from(pointStats(small)));
    same([res.replicates as Float64Array[]], bootstrap([small], 500, 8, 1));
    expect(pointAndBootstrap(small, 500, 0, 1).replicates).toBeNull();
  });
});

describe('SeededGenerator', () => {
  it('gives the numbers of seededRandom, and continues them from its state', () => {
    const r = seededRandom(123456789);
    const g = new SeededGenerator(123456789);
    for (let i = 0; i < 1000; i++) expect(g.next()).toBe(r());
    const resumed = new SeededGenerator(0);
    resumed.state = g.state;
    for (let i = 0; i < 10; i++) expect(resumed.next()).toBe(r());
    // The state steps by 0x6d2b79f5 per number, modulo 2^32.
    expect(g.state).toBe((123456789 + 1000 * 0x6d2b79f5) % 2 ** 32);
  });
});

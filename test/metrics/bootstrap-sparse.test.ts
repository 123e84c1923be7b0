// CLASSIFY's model as sparse rows (a document touches at most two of its classes) against the same
// statistics from dense columns built here independently, one column per class outcome and
// document: the same point statistics, the same bootstrap replicates to the bit (through the
// sparse loop for many classes and the SIMD kernel for the dense columns, documents and groups,
// two models paired), the same documents defining each statistic and the same McNemar pairs.
import { describe, expect, it } from 'vitest';
import { BOOTSTRAP_GROUPS, bootstrap, documentsDefining, pointAndBootstrap, pointStats, sparseBootstrap, type StatModel } from '../../src/metrics/bootstrap.js';
import { classifyModel, discordant } from '../../src/metrics/models.js';
import type { DocumentRecord } from '../../src/metrics/generated/report.js';
import { seededRandom } from '../../src/util/random.js';

/** n documents over C classes: mostly right, some wrong, some with no class or one outside the list. */
function documents(n: number, C: number, seed: number): DocumentRecord[] {
  const r = seededRandom(seed);
  const label = (): string | null => {
    const u = r();
    if (u < 0.03) return null;
    if (u < 0.05) return 'not-listed';
    return `c${Math.floor(r() * C)}`;
  };
  return Array.from({ length: n }, (_, i) => {
    const expected = label();
    const predicted = r() < 0.7 ? expected : label();
    return { id: `d${i}`, fileId: `f${i}`, errors: 0, correct: expected === predicted, failed: false, classify: { expected, predicted } } as unknown as DocumentRecord;
  });
}

/** The model's statistics over dense columns: per class tp, fp, fn, then correct and 1, built document by document. */
function denseModel(docs: DocumentRecord[], classes: string[]): StatModel {
  const sparse = classifyModel(docs, classes);
  const C = classes.length;
  const columns = Array.from({ length: C * 3 + 2 }, () => new Float64Array(docs.length));
  docs.forEach((d, i) => {
    const e = d.classify?.expected ?? null;
    const p = d.classify?.predicted ?? null;
    for (let c = 0; c < C; c++) {
      const name = classes[c];
      if (e === name && p === name) columns[c * 3][i] = 1;
      else {
        if (p === name) columns[c * 3 + 1][i] = 1;
        if (e === name) columns[c * 3 + 2][i] = 1;
      }
    }
    columns[C * 3][i] = d.correct ? 1 : 0;
    columns[C * 3 + 1][i] = 1;
  });
  return { keys: sparse.keys, columns, compute: sparse.compute };
}

const classesOf = (C: number): string[] => Array.from({ length: C }, (_, c) => `c${c}`);

const same = (a: Float64Array[][], b: Float64Array[][]): void => {
  expect(a.length).toBe(b.length);
  a.forEach((model, mi) => model.forEach((res, k) => expect(Array.from(res), `model ${mi} statistic ${k}`).toEqual(Array.from(b[mi][k]))));
};

describe('CLASSIFY as sparse rows', () => {
  it('holds at most four entries a document and gives the dense columns point statistics', () => {
    const docs = documents(2000, 40, 1);
    const model = classifyModel(docs, classesOf(40));
    expect(model.columns).toBeUndefined();
    expect(model.rows!.col.length).toBeLessThanOrEqual(4 * docs.length);
    expect(Array.from(pointStats(model))).toEqual(Array.from(pointStats(denseModel(docs, classesOf(40)))));
  });

  it('bootstraps to the bit as the dense columns do: each document its own group, two runs paired', () => {
    // 400 classes: the sparse loop; the dense columns go through the SIMD kernel.
    const classes = classesOf(400);
    const a = documents(3000, 400, 2);
    const b = documents(3000, 400, 3);
    const sparse = bootstrap([classifyModel(a, classes), classifyModel(b, classes)], 3000, 64, 9);
    same(sparse, bootstrap([denseModel(a, classes), denseModel(b, classes)], 3000, 64, 9));
    expect(new Set(sparse[0][0]).size).toBeGreaterThan(10);
  });

  it('bootstraps to the bit as the dense columns do past BOOTSTRAP_GROUPS documents (the same shuffled groups)', () => {
    const n = BOOTSTRAP_GROUPS + 2500;
    const classes = classesOf(300);
    const a = documents(n, 300, 4);
    const sparse = pointAndBootstrap(classifyModel(a, classes), n, 24, 5);
    const dense = pointAndBootstrap(denseModel(a, classes), n, 24, 5);
    expect(Array.from(sparse.point)).toEqual(Array.from(dense.point));
    same([sparse.replicates!], [dense.replicates!]);
  });

  it('gives the dense results through the sparse loop for a few classes too (the path is only a matter of speed)', () => {
    const classes = classesOf(3);
    for (const n of [500, BOOTSTRAP_GROUPS + 700]) {
      const a = documents(n, 3, 6);
      const b = documents(n, 3, 7);
      same(sparseBootstrap([classifyModel(a, classes), classifyModel(b, classes)], n, 16, 11), bootstrap([denseModel(a, classes), denseModel(b, classes)], n, 16, 11));
    }
  });

  it('counts the documents defining each statistic as computing it on each document alone does', () => {
    const classes = classesOf(25);
    const docs = documents(1500, 25, 8);
    const sparse = classifyModel(docs, classes);
    const dense = denseModel(docs, classes);
    // The generic count over rows (a model with rows and no `informative`) as well.
    const generic: StatModel = { keys: sparse.keys, width: sparse.width, rows: sparse.rows, compute: sparse.compute };
    const want = sparse.keys.map((_, k) => documentsDefining(dense, docs.length, k));
    expect(sparse.keys.map((_, k) => documentsDefining(sparse, docs.length, k))).toEqual(want);
    expect(sparse.keys.map((_, k) => documentsDefining(generic, docs.length, k))).toEqual(want);
    // Not every statistic is defined by every document.
    expect(new Set(want).size).toBeGreaterThan(5);
  });

  it("finds McNemar's discordant pairs from the lists of wrong documents as the pass over every document does", () => {
    const classes = classesOf(30);
    const now = classifyModel(documents(800, 30, 9), classes);
    const was = classifyModel(documents(800, 30, 10), classes);
    const dense = (key: string, paired: number): { b: number; c: number } => {
      const nowRight = now.correct(key);
      const wasRight = was.correct(key);
      let b = 0;
      let c = 0;
      for (let i = 0; i < paired; i++) {
        if (wasRight(i) && !nowRight(i)) b++;
        else if (!wasRight(i) && nowRight(i)) c++;
      }
      return { b, c };
    };
    let listed = 0;
    for (const key of now.keys) {
      const wrong = now.wrongOf!(key);
      if (wrong) {
        listed++;
        expect(Array.from(wrong)).toEqual(Array.from({ length: 800 }, (_, i) => i).filter((i) => !now.correct(key)(i)));
      }
      for (const paired of [800, 333]) expect(discordant(now, was, key, paired), `${key} over ${paired}`).toEqual(dense(key, paired));
    }
    // Each class listed; the aggregates counted document by document.
    expect(listed).toBe(30);
  });
});

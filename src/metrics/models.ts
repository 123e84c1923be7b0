/**
 * Statistic models per processor type, built from per-document records. The same model gives
 * the point estimates, the bootstrap intervals and the paired baseline deltas, so the three
 * can never disagree about a definition.
 */
import type { DocumentRecord } from './generated/report.js';
import type { StatModel } from './bootstrap.js';
import { META, type CountStore, type ExtractTable } from './table.js';

export interface Model extends StatModel {
  /** Per-document correctness behind a statistic, for McNemar's test: by the model's document index. */
  correct(key: string): (i: number) => boolean;
  /**
   * The documents where `correct(key)` is false, ascending, when the model lists them without a
   * pass over every document (a CLASSIFY class: the few documents expected or predicted as it);
   * undefined otherwise.
   */
  wrongOf?(key: string): Int32Array | undefined;
}

function columns(count: number, n: number): Float64Array[] {
  return Array.from({ length: count }, () => new Float64Array(n));
}

/** NaN stands for "undefined" inside the bootstrap loops. */
function div(a: number, b: number): number {
  return b === 0 ? NaN : a / b;
}

/**
 * McNemar's discordant pairs of statistic `key` over the first `paired` documents: b right in the
 * baseline and wrong now, c the other way round. From both models' lists of wrong documents where
 * they have them (a class of thousands: a merge of two short lists instead of a pass over every
 * document per class), else document by document.
 */
export function discordant(cur: Model, base: Model, key: string, paired: number): { b: number; c: number } {
  const nowWrong = cur.wrongOf?.(key);
  const wasWrong = nowWrong && base.wrongOf?.(key);
  let b = 0;
  let c = 0;
  if (nowWrong && wasWrong) {
    let i = 0;
    let j = 0;
    for (;;) {
      const now = i < nowWrong.length && nowWrong[i] < paired ? nowWrong[i] : paired;
      const was = j < wasWrong.length && wasWrong[j] < paired ? wasWrong[j] : paired;
      if (now === paired && was === paired) break;
      if (now === was) {
        i++;
        j++;
      } else if (now < was) {
        b++;
        i++;
      } else {
        c++;
        j++;
      }
    }
    return { b, c };
  }
  const nowRight = cur.correct(key);
  const wasRight = base.correct(key);
  for (let i = 0; i < paired; i++) {
    const was = wasRight(i);
    const now = nowRight(i);
    if (was && !now) b++;
    else if (!was && now) c++;
  }
  return { b, c };
}

export const EXTRACT_AGGREGATES = ['micro.precision', 'micro.recall', 'micro.f1', 'micro.accuracy', 'macro.f1', 'document.accuracy'];

/**
 * EXTRACT: per field [tp, fp = fa + fd, fnAll = fn + fd]; then, pooled over fields, tn and
 * errors (fa + fn + fd, unexpected keys included) and the unexpected keys alone (false alarms
 * of no field, in micro precision); then correct and 1 per document; then, for each of
 * `exactFields` (fuzzy fields), the exact matcher's [tp, fp, fnAll]. The model's documents are
 * the table's at `index` (default: the table's id order); columns are built group by group
 * when the bootstrap asks for them, and summed by group straight from the table's rows
 * (sumByGroup) where only their sums are needed.
 */
export function extractModel(table: ExtractTable, fields: string[], exactFields: string[] = [], index: ArrayLike<number> = table.order): Model {
  const F = fields.length;
  const X = table.exact ? exactFields.length : 0;
  const n = index.length;
  const A = F * 3 + 5;
  const slots = fields.map((f) => table.slot.get(f) ?? -1);
  const exactSlots = exactFields.map((f) => table.exactSlot.get(f) ?? -1);
  const { counts, meta } = table;
  /** The [tp, fp, fnAll] of slot s of `store` in three columns. */
  const triple = (store: CountStore | undefined, s: number): Float64Array[] => {
    const [tp, fp, fnAll] = columns(3, n);
    if (s < 0 || !store) return [tp, fp, fnAll];
    store.f1Columns(s * 5, index, tp, fp, fnAll);
    return [tp, fp, fnAll];
  };
  const scalar = (k: number): Float64Array => {
    const col = new Float64Array(n);
    meta.sumColumns(index, [k], col);
    return col;
  };
  const present = slots.filter((s) => s >= 0);
  const pooled = (): Float64Array[] => {
    const [tn, err] = columns(2, n);
    counts.sumColumns(
      index,
      present.map((s) => s * 5 + 1),
      tn,
    );
    meta.sumColumns(index, [META.unexpected], err);
    counts.sumColumns(
      index,
      present.flatMap((s) => [s * 5 + 2, s * 5 + 3, s * 5 + 4]),
      err,
      true,
    );
    return [tn, err];
  };
  const keys = [...fields.map((p) => `field:${p}.f1`), ...EXTRACT_AGGREGATES, ...exactFields.slice(0, X).map((p) => `field:${p}.exact.f1`)];
  const three = (at: number): number[] => [at, at + 1, at + 2];
  return {
    keys,
    width: A + X * 3,
    groups: [...fields.map((_, f) => three(f * 3)), [F * 3, F * 3 + 1], [F * 3 + 2], [F * 3 + 3], [F * 3 + 4], ...Array.from({ length: X }, (_, x) => three(A + x * 3))],
    materialize(cols) {
      const c = cols[0];
      if (c < F * 3) return triple(counts, slots[c / 3]);
      if (c === F * 3) return pooled();
      if (c === F * 3 + 2) return [scalar(META.unexpected)];
      if (c === F * 3 + 3) return [scalar(META.correct)];
      if (c === F * 3 + 4) return [new Float64Array(n).fill(1)];
      return triple(table.exact, exactSlots[(c - A) / 3]);
    },
    sumByGroup(group, G, out) {
      const W = A + X * 3;
      // Group-major while adding (each document's columns side by side), then transposed.
      const acc = new Float64Array(G * W);
      const ex = table.exact;
      for (let i = 0; i < n; i++) {
        const d = index[i];
        const o = (group ? group[i] : 0) * W;
        const row = counts.chunkOf(d);
        const at = counts.rowOffset(d);
        let tn = 0;
        let err = 0;
        for (let f = 0; f < F; f++) {
          const s = slots[f];
          if (s < 0) continue;
          const b = at + s * 5;
          const fa = row[b + 2];
          const fn = row[b + 3];
          const fd = row[b + 4];
          acc[o + f * 3] += row[b];
          acc[o + f * 3 + 1] += fa + fd;
          acc[o + f * 3 + 2] += fn + fd;
          tn += row[b + 1];
          err += fa + fn + fd;
        }
        const unexpected = meta.get(d, META.unexpected);
        acc[o + F * 3] += tn;
        acc[o + F * 3 + 1] += err + unexpected;
        acc[o + F * 3 + 2] += unexpected;
        acc[o + F * 3 + 3] += meta.get(d, META.correct);
        acc[o + F * 3 + 4] += 1;
        if (!ex) continue;
        const xrow = ex.chunkOf(d);
        const xat = ex.rowOffset(d);
        for (let x = 0; x < X; x++) {
          const s = exactSlots[x];
          if (s < 0) continue;
          const b = xat + s * 5;
          const fd = xrow[b + 4];
          acc[o + A + x * 3] += xrow[b];
          acc[o + A + x * 3 + 1] += xrow[b + 2] + fd;
          acc[o + A + x * 3 + 2] += xrow[b + 3] + fd;
        }
      }
      for (let g = 0; g < G; g++) for (let c = 0; c < W; c++) out[c * G + g] += acc[g * W + c];
    },
    compute(s, out) {
      let tp = 0;
      let fp = s[F * 3 + 2];
      let fnAll = 0;
      let macroSum = 0;
      let macroN = 0;
      for (let f = 0; f < F; f++) {
        const ftp = s[f * 3];
        const ffp = s[f * 3 + 1];
        const ffn = s[f * 3 + 2];
        tp += ftp;
        fp += ffp;
        fnAll += ffn;
        const f1 = div(2 * ftp, 2 * ftp + ffp + ffn);
        out[f] = f1;
        if (ftp + ffn > 0) {
          macroSum += f1;
          macroN++;
        }
      }
      const tn = s[F * 3];
      const err = s[F * 3 + 1];
      out[F] = div(tp, tp + fp);
      out[F + 1] = div(tp, tp + fnAll);
      out[F + 2] = div(2 * tp, 2 * tp + fp + fnAll);
      out[F + 3] = div(tp + tn, tp + tn + err);
      out[F + 4] = div(macroSum, macroN);
      out[F + 5] = div(s[F * 3 + 3], s[F * 3 + 4]);
      for (let x = 0; x < X; x++) {
        const ftp = s[A + x * 3];
        out[F + 6 + x] = div(2 * ftp, 2 * ftp + s[A + x * 3 + 1] + s[A + x * 3 + 2]);
      }
    },
    informative(k) {
      // A field's F1 (or its exact F1): documents with an outcome other than TN in it. The
      // aggregates: documents with such an outcome in any field, or an unexpected key.
      const inSlot = (store: CountStore, s: number, d: number): boolean => {
        const o = s * 5;
        return store.get(d, o) + store.get(d, o + 2) + store.get(d, o + 3) + store.get(d, o + 4) > 0;
      };
      let c = 0;
      for (let i = 0; i < n; i++) {
        const d = index[i];
        let hit: boolean;
        if (k < F) hit = slots[k] >= 0 && inSlot(counts, slots[k], d);
        else if (k < F + EXTRACT_AGGREGATES.length) hit = meta.get(d, META.unexpected) > 0 || present.some((s) => inSlot(counts, s, d));
        else hit = table.exact !== undefined && exactSlots[k - F - EXTRACT_AGGREGATES.length] >= 0 && inSlot(table.exact, exactSlots[k - F - EXTRACT_AGGREGATES.length], d);
        if (hit) c++;
      }
      return c;
    },
    correct(key) {
      const m = /^field:(.*)\.f1$/.exec(key);
      if (!m) return (i) => meta.get(index[i], META.correct) === 1;
      const s = table.slot.get(m[1]);
      if (s === undefined) return () => true;
      const o = s * 5;
      return (i) => {
        const d = index[i];
        return counts.get(d, o + 2) + counts.get(d, o + 3) + counts.get(d, o + 4) === 0;
      };
    },
  };
}

export const CLASSIFY_AGGREGATES = ['accuracy', 'macro.precision', 'macro.recall', 'macro.f1', 'weighted.f1'];

/**
 * CLASSIFY: per class [tp, fp, fn] (0 or 1 per document); then correct, 1. A document touches at
 * most two classes, so the columns are given as sparse rows (at most four entries a document):
 * 2,000 classes x 20,000 documents would be 960 MB of dense columns, nearly all zeros.
 */
export function classifyModel(docs: DocumentRecord[], classes: string[]): Model {
  const C = classes.length;
  const n = docs.length;
  const index = new Map(classes.map((c, i) => [c, i]));
  const start = new Int32Array(n + 1);
  const col = new Int32Array(n * 4);
  const val = new Float64Array(n * 4);
  // Per document its classes' indexes (-1: none), for `informative`.
  const expectedAt = new Int32Array(n).fill(-1);
  const predictedAt = new Int32Array(n).fill(-1);
  let e = 0;
  const entry = (c: number): void => {
    col[e] = c;
    val[e++] = 1;
  };
  docs.forEach((d, i) => {
    const ex = d.classify?.expected ?? null;
    const p = d.classify?.predicted ?? null;
    const ei = ex === null ? undefined : index.get(ex);
    const pi = p === null ? undefined : index.get(p);
    if (ei !== undefined) expectedAt[i] = ei;
    if (pi !== undefined) predictedAt[i] = pi;
    if (ex !== null && ex === p && ei !== undefined) entry(ei * 3);
    else {
      if (pi !== undefined) entry(pi * 3 + 1);
      if (ei !== undefined) entry(ei * 3 + 2);
    }
    if (d.correct) entry(C * 3);
    entry(C * 3 + 1);
    start[i + 1] = e;
  });
  const keys = [...CLASSIFY_AGGREGATES, ...classes.map((c) => `class:${c}.f1`)];
  const A = CLASSIFY_AGGREGATES.length;
  let defining: Int32Array | undefined;
  let wrong: { start: Int32Array; list: Int32Array } | undefined;
  return {
    keys,
    width: C * 3 + 2,
    rows: { start, col: col.subarray(0, e), val: val.subarray(0, e) },
    informative(k) {
      // The documents that define statistic k alone: accuracy every one; a class's F1 those
      // expected or predicted as the class; macro means those expected or predicted as any
      // listed class; weighted F1 those expected as one (its support).
      if (!defining) {
        defining = new Int32Array(keys.length);
        for (let i = 0; i < n; i++) {
          const ei = expectedAt[i];
          const pi = predictedAt[i];
          defining[0]++;
          if (ei >= 0 || pi >= 0) for (let m = 1; m <= 3; m++) defining[m]++;
          if (ei >= 0) {
            defining[4]++;
            defining[A + ei]++;
          }
          if (pi >= 0 && pi !== ei) defining[A + pi]++;
        }
      }
      return defining[k];
    },
    compute(s, out) {
      let pSum = 0;
      let rSum = 0;
      let fSum = 0;
      let labels = 0;
      let wSum = 0;
      let support = 0;
      for (let c = 0; c < C; c++) {
        const tp = s[c * 3];
        const fp = s[c * 3 + 1];
        const fn = s[c * 3 + 2];
        const f1 = div(2 * tp, 2 * tp + fp + fn);
        out[A + c] = f1;
        if (tp + fp + fn === 0) continue;
        // As scikit-learn with zero_division=0: an undefined per-class value counts as 0 in the means.
        labels++;
        pSum += tp + fp === 0 ? 0 : tp / (tp + fp);
        rSum += tp + fn === 0 ? 0 : tp / (tp + fn);
        fSum += f1;
        wSum += (tp + fn) * f1;
        support += tp + fn;
      }
      out[0] = div(s[C * 3], s[C * 3 + 1]);
      out[1] = div(pSum, labels);
      out[2] = div(rSum, labels);
      out[3] = div(fSum, labels);
      out[4] = div(wSum, support);
    },
    wrongOf(key) {
      const m = /^class:(.*)\.f1$/.exec(key);
      const c = m ? index.get(m[1]) : undefined;
      if (c === undefined) return undefined;
      if (!wrong) {
        // Per class the documents expected or predicted as it with the other side different, in
        // document order (bucketed by a counting pass).
        const count = new Int32Array(C + 1);
        const touches = (i: number, f: (k: number) => void): void => {
          const d = docs[i];
          if ((d.classify?.expected ?? null) === (d.classify?.predicted ?? null)) return;
          if (expectedAt[i] >= 0) f(expectedAt[i]);
          if (predictedAt[i] >= 0) f(predictedAt[i]);
        };
        for (let i = 0; i < n; i++) touches(i, (k) => count[k + 1]++);
        for (let k = 0; k < C; k++) count[k + 1] += count[k];
        const at = count.slice(0, C);
        const list = new Int32Array(count[C]);
        for (let i = 0; i < n; i++) touches(i, (k) => (list[at[k]++] = i));
        wrong = { start: count, list };
      }
      return wrong.list.subarray(wrong.start[c], wrong.start[c + 1]);
    },
    correct(key) {
      const m = /^class:(.*)\.f1$/.exec(key);
      if (!m) return (i) => docs[i].correct;
      const label = m[1];
      return (i) => {
        const d = docs[i];
        const e = d.classify?.expected ?? null;
        const p = d.classify?.predicted ?? null;
        return e === p || (e !== label && p !== label);
      };
    },
  };
}

export const SPLITTER_AGGREGATES = ['precision', 'recall', 'f1', 'pq', 'page.accuracy'];
const SPLIT_COLS = ['expected', 'predicted', 'correct', 'pqTp', 'pqFp', 'pqFn', 'iouSum', 'pages', 'pagesCorrect'] as const;

/** SPLITTER: the per-document counts, correct, 1, then per type [expected, predicted, correct]. */
export function splitterModel(docs: DocumentRecord[], types: string[]): Model {
  const K = SPLIT_COLS.length;
  const T = types.length;
  const cols = columns(K + 2 + T * 3, docs.length);
  docs.forEach((d, i) => {
    const s = d.splitter;
    if (s) SPLIT_COLS.forEach((name, c) => (cols[c][i] = s[name]));
    cols[K][i] = d.correct ? 1 : 0;
    cols[K + 1][i] = 1;
    types.forEach((t, ti) => {
      const x = s?.types && Object.hasOwn(s.types, t) ? s.types[t] : undefined;
      if (!x) return;
      cols[K + 2 + ti * 3][i] = x[0];
      cols[K + 3 + ti * 3][i] = x[1];
      cols[K + 4 + ti * 3][i] = x[2];
    });
  });
  const keys = [...SPLITTER_AGGREGATES, ...types.map((t) => `type:${t}.f1`)];
  const A = SPLITTER_AGGREGATES.length;
  return {
    keys,
    columns: cols,
    compute(s, out) {
      const [e, p, c, tp, fp, fn, iou, pages, pagesCorrect] = s;
      out[0] = div(c, p);
      out[1] = div(c, e);
      out[2] = div(2 * c, e + p);
      out[3] = div(iou, tp + fp / 2 + fn / 2);
      out[4] = div(pagesCorrect, pages);
      for (let t = 0; t < T; t++) out[A + t] = div(2 * s[K + 4 + t * 3], s[K + 2 + t * 3] + s[K + 3 + t * 3]);
    },
    correct(key) {
      const m = /^type:(.*)\.f1$/.exec(key);
      if (!m) return (i) => docs[i].correct;
      const type = m[1];
      return (i) => {
        const d = docs[i];
        const x = d.splitter?.types && Object.hasOwn(d.splitter.types, type) ? d.splitter.types[type] : undefined;
        return !x || (x[0] === x[2] && x[1] === x[2]);
      };
    },
  };
}

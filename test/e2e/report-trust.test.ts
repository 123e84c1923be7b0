// Regression tests of issue 13 ("numbers and gates that cannot mislead"), one per defect, each
// through the built CLI with the minimal export that showed it.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EvaluationExport, Report } from '../../src/index.js';
import type { DocumentRecord } from '../../src/report/index.js';
import { DATE_FORMS, parseDate } from '../../src/util/dates.js';
import { runCli } from '../helpers/cli.js';
import { extractExport, makeExport } from '../metrics/helpers.js';

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'evalkit-trust-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function save(dir: string, name: string, data: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data));
  return file;
}

async function reportOf(
  exp: unknown,
  args: string[] = [],
  baseline?: unknown,
): Promise<{ code: number | null; stdout: string; stderr: string; report?: Report & { documents: DocumentRecord[] }; dir: string }> {
  const dir = tmp();
  const from = save(dir, 'run.json', exp);
  const extra = baseline === undefined ? [] : ['--baseline', save(dir, 'base.json', baseline)];
  const out = path.join(dir, 'out');
  const r = await runCli(['report', '--from', from, '--out-dir', out, '--bootstrap', '300', ...extra, ...args]);
  const file = path.join(out, 'report.json');
  if (!existsSync(file)) return { ...r, dir: out };
  // The document records are in the side file report.json names.
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  const lines = readFileSync(path.join(out, report.documentsFile.file), 'utf8').split('\n').filter((l) => l !== '');
  return { ...r, dir: out, report: { ...report, documents: lines.map((l) => JSON.parse(l) as DocumentRecord) } };
}

const CONFIG = { type: 'EXTRACT', schema: { type: 'object', properties: { total: { type: 'number' }, vendor: { type: 'string' } } } };
const docs = (n: number, right: (i: number) => boolean) =>
  Array.from({ length: n }, (_, i) => ({ e: { total: i + 1, vendor: `V${i}` }, p: { total: i + 1, vendor: right(i) ? `V${i}` : 'wrong' } }));

describe('1. a baseline that pairs nothing never passes', () => {
  // A re-created set: the same files under new item ids and new file ids; the uploaded names
  // carry dataset upload's content tag.
  const named = (exp: EvaluationExport, prefix: string, tags: boolean): EvaluationExport => {
    exp.items.forEach((it, i) => {
      it.id = `${prefix}_evi_${i}`;
      it.fileId = `${prefix}_file_${i}`;
      it.fileName = tags ? `inv ${i}.ek${String(i).padStart(24, 'a')}.pdf` : `inv ${i}.pdf`;
    });
    return exp;
  };

  it('re-created set: 0 paired by id, all by file name; the regression is found and gated', async () => {
    const base = named(extractExport(CONFIG, docs(40, () => true)), 'old', false);
    const cur = named(extractExport(CONFIG, docs(40, (i) => i >= 20)), 'new', true);
    const r = await reportOf(cur, ['--fail-on-regression'], base);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('40 paired of 40 current, 40 baseline (40 by file name)');
    expect(r.report?.baseline?.pairing.byKey).toEqual({ id: 0, file: 0, name: 40, hash: 0 });
    expect(r.report?.gates.regressed).toContain('field:vendor.f1');
  });

  it('by content hash when names differ too', async () => {
    const base = named(extractExport(CONFIG, docs(10, () => true)), 'old', true);
    const cur = named(extractExport(CONFIG, docs(10, () => true)), 'new', true);
    cur.items.forEach((it, i) => (it.fileName = `renamed-${i}.ek${String(i).padStart(24, 'a')}.pdf`));
    const r = await reportOf(cur, [], base);
    expect(r.report?.baseline?.pairing.byKey).toEqual({ id: 0, file: 0, name: 0, hash: 10 });
  });

  it('--pair-by id pairs nothing, says so, lists the unpaired documents and fails --fail-on-regression', async () => {
    const base = named(extractExport(CONFIG, docs(12, () => true)), 'old', false);
    const cur = named(extractExport(CONFIG, docs(12, (i) => i > 3)), 'new', false);
    const r = await reportOf(cur, ['--fail-on-regression', '--pair-by', 'id'], base);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('0 paired of 12 current, 12 baseline');
    expect(r.stdout).toMatch(/FAIL baseline\.paired>=11: only 0 of 12 document\(s\) paired/);
    expect(r.report?.baseline?.onlyInCurrent).toHaveLength(12);
    expect(readFileSync(path.join(r.dir, 'report.md'), 'utf8')).toContain('Unpaired in this run (12)');
  });

  it('--min-paired lowers or raises the bar', async () => {
    const base = extractExport(CONFIG, docs(10, () => true));
    const cur = extractExport(CONFIG, docs(10, () => true));
    cur.items.slice(0, 3).forEach((it, i) => ((it.id = `x${i}`), (it.fileId = `y${i}`)));
    expect((await reportOf(cur, ['--fail-on-regression', '--pair-by', 'id'], base)).code).toBe(1); // 7 of 10 < 90%
    // 7 pairs pass --min-paired 70%, but with 8 metrics compared no regression could be significant
    // on 7 (8·2^(1−7) = 0.125): that gate fails unless allowed (issue 35).
    expect((await reportOf(cur, ['--fail-on-regression', '--pair-by', 'id', '--min-paired', '70%'], base)).code).toBe(1);
    expect((await reportOf(cur, ['--fail-on-regression', '--pair-by', 'id', '--min-paired', '70%', '--allow-underpowered'], base)).code).toBe(0);
    expect((await reportOf(cur, ['--fail-on-regression', '--pair-by', 'id', '--min-paired', '8'], base)).code).toBe(1);
    const bad = await reportOf(cur, ['--min-paired', 'most'], base);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--min-paired "most"');
  });
});

describe('2. field names that are Object.prototype members', () => {
  const KEYS = ['constructor', 'toString', 'valueOf', '__proto__', 'hasOwnProperty'];
  const config = { type: 'EXTRACT', schema: { type: 'object', properties: Object.fromEntries(KEYS.map((k) => [k, { type: 'string' }])) } };

  it('absent on both sides is TN, a missing prediction FN; report.json is valid and every format is written', async () => {
    // JSON text, since `{__proto__: ...}` in code would set the prototype rather than a key.
    const exp = extractExport(config, []);
    const text = JSON.stringify(exp).replace(
      '"items":[]',
      '"items":[' +
        '{"id":"a","fileId":"f1","expectedOutput":{"value":{}},"output":{"value":{}},"status":"PROCESSED"},' +
        '{"id":"b","fileId":"f2","expectedOutput":{"value":{"constructor":"x","__proto__":"y","toString":"z"}},"output":{"value":{"toString":"z"}},"status":"PROCESSED"}]',
    );
    const r = await reportOf(text, ['--formats', 'json,md,html,junit']);
    expect(r.code).toBe(0);
    expect(readdirSync(r.dir).sort()).toEqual(['documents.jsonl', 'report.html', 'report.json', 'report.junit.xml', 'report.md']);
    const counts = (r.report?.extract?.fields ?? []).map((f) => [f.path, [f.counts.tp, f.counts.tn, f.counts.fa, f.counts.fn, f.counts.fd]]);
    // Entries, not an object literal: `{__proto__: ...}` in code would set a prototype.
    expect(counts).toEqual([
      ['__proto__', [0, 1, 0, 1, 0]],
      ['constructor', [0, 1, 0, 1, 0]],
      ['hasOwnProperty', [0, 2, 0, 0, 0]],
      ['toString', [1, 1, 0, 0, 0]],
      ['valueOf', [0, 2, 0, 0, 0]],
    ]);
  });
});

describe('3. SPLITTER: invalid page ranges are left out; PQ does not depend on order', () => {
  const config = { type: 'SPLITTER', splitClassifications: [{ id: 'a', type: 'invoice', description: '' }] };
  const split = (s: number, e: number) => ({ id: `s${s}-${e}`, classificationId: 'a', type: 'invoice', startPage: s, endPage: e });

  it('page 0, end before start and past the last page are warned about and not scored', async () => {
    const exp = makeExport('SPLITTER', config, [{ e: { splits: [split(1, 2)] }, p: { splits: [split(0, 2), split(3, 2), split(2, 9)] } }]);
    exp.items[0].pageCount = 4;
    const r = await reportOf(exp);
    expect(r.report?.splitter?.panoptic).toMatchObject({ tp: 0, fp: 0, fn: 1 });
    expect(r.report?.splitter?.numPredictedDocs).toBe(0);
    expect(r.stderr).toContain('3 predicted split(s) were left out: 1 with startPage below 1, 1 with endPage before startPage, 1 past the document\'s last page');
  });

  it('the same overlapping splits in another order give the same PQ', async () => {
    const E = [split(1, 4), split(1, 3)];
    const P = [split(1, 3), split(2, 4)];
    const a = await reportOf(makeExport('SPLITTER', config, [{ e: { splits: E }, p: { splits: P } }]));
    const b = await reportOf(makeExport('SPLITTER', config, [{ e: { splits: [...E].reverse() }, p: { splits: [...P].reverse() } }]));
    expect(a.report?.splitter?.panoptic.pq.value).not.toBeNull();
    expect(b.report?.splitter?.panoptic).toEqual(a.report?.splitter?.panoptic);
    expect(a.report?.splitter?.panoptic.tp).toBe(2);
  });
});

describe('4. enums compare as exact strings', () => {
  it('" PAID " is not "PAID"', async () => {
    const config = { type: 'EXTRACT', schema: { type: 'object', properties: { status: { type: 'string', enum: ['PAID', 'DUE'] } } } };
    const r = await reportOf(extractExport(config, [{ e: { status: 'PAID' }, p: { status: ' PAID ' } }, { e: { status: 'DUE' }, p: { status: 'due' } }]));
    expect(r.report?.extract?.fields[0].counts).toMatchObject({ tp: 0, fd: 2 });
  });
});

describe('5. the exact-match F1 of fuzzy fields has its bootstrap interval', () => {
  it('exact.f1.interval is set', async () => {
    const r = await reportOf(extractExport(CONFIG, docs(30, (i) => i % 3 !== 0), { fuzzyMatchFields: ['vendor'] }));
    const vendor = r.report?.extract?.fields.find((f) => f.path === 'vendor');
    expect(vendor?.exact?.f1.value).not.toBeNull();
    expect(vendor?.exact?.f1.interval).not.toBeNull();
  });
});

describe('6. one date parser for coercion and comparison', () => {
  it('every form dataset upload reads as 2024-04-17 matches 2024-04-17 in the report', async () => {
    for (const form of DATE_FORMS) expect(parseDate(form, { dateOrder: 'dmy' })).toEqual({ ok: true, value: '2024-04-17' });
    const config = { type: 'EXTRACT', schema: { type: 'object', properties: { date: { type: 'string', format: 'date' } } } };
    const r = await reportOf(extractExport(config, DATE_FORMS.map((f) => ({ e: { date: '2024-04-17' }, p: { date: f } }))));
    expect(r.report?.extract?.fields[0].counts).toMatchObject({ tp: DATE_FORMS.length, fd: 0 });
  });
  it('an ambiguous numeric date compares as text', async () => {
    const config = { type: 'EXTRACT', schema: { type: 'object', properties: { date: { type: 'string', format: 'date' } } } };
    const r = await reportOf(extractExport(config, [{ e: { date: '2024-04-03' }, p: { date: '03/04/2024' } }]));
    expect(r.report?.extract?.fields[0].counts).toMatchObject({ tp: 0, fd: 1 });
  });
});

describe('7. a failed run is never a correct document', () => {
  it('empty expected output and a failed run: document accuracy 0, gated by --max-failed-rate', async () => {
    const exp = extractExport(CONFIG, [
      { e: {}, p: null },
      { e: { total: 1 }, p: { total: 1 } },
    ]);
    const r = await reportOf(exp, ['--max-failed-rate', '0.1']);
    expect(r.report?.extract?.document.accuracy).toMatchObject({ k: 1, n: 2 });
    expect(r.report?.documents.find((d) => d.failed)?.correct).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('FAIL failed.rate<=0.1: 1 of 2 run(s) failed (0.5), more than 0.1');
    expect((await reportOf(exp, ['--max-failed-rate', '0.5'])).code).toBe(0);
  });
});

describe('8. TN does not depend on other documents', () => {
  it('an extra predicted key in one document changes no other document and no field', async () => {
    const plain = docs(5, () => true);
    const a = await reportOf(extractExport(CONFIG, plain));
    const extra = plain.map((d, i) => (i === 0 ? { e: d.e, p: { ...d.p, surprise: 'x' } } : d));
    const b = await reportOf(extractExport(CONFIG, extra));
    expect(b.report?.extract?.fields).toEqual(a.report?.extract?.fields);
    expect(b.report?.extract?.unexpected).toEqual({ predicted: 1, documents: 1, expected: 0, keys: [{ path: 'surprise', predicted: 1, expected: 0 }] });
    // One false alarm more, in micro, and no TN anywhere for it.
    expect(b.report?.extract?.micro.counts).toEqual({ ...a.report?.extract?.micro.counts, fa: 1, fp: 1, n: (a.report?.extract?.micro.counts.n ?? 0) + 1 });
    expect(b.report?.documents.filter((d) => !d.correct).map((d) => d.id)).toEqual(['item_000']);
  });
});

describe('9. the export reader is lenient where the format allows', () => {
  it('no format and no options: read as the current format with no options', async () => {
    const exp = makeExport('CLASSIFY', { type: 'CLASSIFY', classifications: [{ id: 'a', type: 'invoice', description: '' }] }, [{ e: { id: 'a', type: 'invoice' }, p: { id: 'a', type: 'invoice' } }]) as Partial<EvaluationExport>;
    delete exp.format;
    delete exp.options;
    const r = await reportOf(exp);
    expect(r.code).toBe(0);
    expect(r.report?.classify?.accuracy.value).toBe(1);
  });
});

describe('statistics: corrected verdicts and power', () => {
  it('a field regression among many is regressed only when Holm-significant; q-values and MDE are reported', async () => {
    const base = extractExport(CONFIG, docs(60, () => true));
    const cur = extractExport(CONFIG, docs(60, (i) => i >= 30));
    const r = await reportOf(cur, ['--fail-on-regression'], base);
    const row = r.report?.baseline?.rows.find((x) => x.key === 'field:vendor.f1');
    expect(row?.verdict).toBe('regressed');
    expect(row?.pHolm).toBeGreaterThanOrEqual(row?.mcnemar.p ?? 1);
    expect(row?.q).toBeLessThanOrEqual(row?.pHolm ?? 0);
    expect(row?.mde).toBeGreaterThan(0);
    expect(r.code).toBe(1);
    const same = r.report?.baseline?.rows.find((x) => x.key === 'field:total.f1');
    expect(same?.verdict).toBe('no_change');
  });
});

describe('gates with --gate-on lower that have no interval, and an export of failed runs', () => {
  it('a cost gate is judged on the run\'s figure, and its line says so; failed.rate is held to its upper bound', async () => {
    const exp = extractExport(CONFIG, docs(8, () => true));
    exp.items.forEach((it, i) => (it.durationMs = 100 * (i + 1)));
    exp.items[0].status = 'FAILED';
    exp.items[0].output = null;
    const r = await reportOf(exp, ['--gate', 'latency.p95<=30000', '--max-failed-rate', '0.3', '--gate-on', 'lower']);
    expect(r.stdout).toContain("pass latency.p95<=30000 (765, the run's own figure: no interval)");
    // 1 of 8 failed: 0.125, Wilson upper bound 0.471.
    expect(r.stdout).toMatch(/FAIL failed\.rate<=0\.3: 1 of 8 run\(s\) failed \(upper bound 0\.471 of 0\.125\), more than 0\.3/);
    expect(r.code).toBe(1);
  });

  it('every run failed: a gate an empty prediction would pass fails', async () => {
    const exp = extractExport(CONFIG, docs(6, () => true));
    for (const it of exp.items) {
      it.status = 'FAILED';
      it.output = null;
    }
    const r = await reportOf(exp, ['--fail-under', 'document.accuracy<=1']);
    expect(r.stdout).toContain('FAIL document.accuracy<=1: every run failed (6 of 6): no output to judge');
    expect(r.code).toBe(1);
  });

  it('every run failed: a latency gate fails too (`eval run && report --gate latency...` is not green on zero outputs)', async () => {
    const exp = extractExport(CONFIG, docs(6, () => true));
    for (const it of exp.items) {
      it.status = 'FAILED';
      it.output = null;
      it.durationMs = 1200;
    }
    const r = await reportOf(exp, ['--gate', 'latency.p95<=100000']);
    const line = 'latency.p95<=100000: every run failed (6 of 6): no output to judge (1200 is of failed runs)';
    expect(r.stdout).toContain(`FAIL ${line}`);
    expect(r.code).toBe(1);
    expect(readFileSync(path.join(r.dir, 'report.md'), 'utf8')).toContain('**FAIL**: every run failed (6 of 6): no output to judge (1200 is of failed runs)');
    expect(readFileSync(path.join(r.dir, 'report.junit.xml'), 'utf8')).toContain('latency.p95&lt;=100000 failed: every run failed (6 of 6): no output to judge (1200 is of failed runs)');
    expect(r.report?.gates.results[0]).toMatchObject({ passed: false, value: 1200 });
  });
});

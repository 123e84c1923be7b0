// Renderer properties the golden files do not show on their own: the JUnit file is XML that a
// test reporter can read, Markdown stays under 60 KB with a note, JSON matches its schema.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { computeReport, MemoryDocuments, renderJson, renderJunit, renderMarkdown, writeReports, MARKDOWN_MAX_BYTES } from '../../src/report/index.js';
import { extractExport } from '../metrics/helpers.js';
import { GOLDEN, goldenReport } from './golden.js';

interface Case {
  '@_name': string;
  failure?: { '@_message': string; '#text': string };
}
interface Suite {
  '@_name': string;
  '@_tests': string;
  '@_failures': string;
  testcase?: Case[];
}

function parseJunit(xml: string) {
  expect(XMLValidator.validate(xml)).toBe(true);
  const doc = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'testsuite' || name === 'testcase' }).parse(xml) as {
    testsuites: { '@_tests': string; '@_failures': string; testsuite: Suite[] };
  };
  return doc.testsuites;
}

interface JunitCase {
  '@_name': string;
  '@_classname': string;
  '@_time': string;
  '@_file'?: string;
  failure?: { '@_message': string; '#text': string };
}

describe('JUnit XML', () => {
  it('is well-formed XML; counts agree with the testcases; failing gates and fields carry <failure>', async () => {
    const suites = parseJunit(renderJunit(await goldenReport(GOLDEN['extract-baseline'])));
    const cases = suites.testsuite.flatMap((s) => s.testcase ?? []);
    expect(Number(suites['@_tests'])).toBe(cases.length);
    expect(Number(suites['@_failures'])).toBe(cases.filter((c) => c.failure).length);
    for (const s of suites.testsuite) expect(Number(s['@_tests'])).toBe((s.testcase ?? []).length);
    const gates = suites.testsuite.find((s) => s['@_name'] === 'gates');
    expect(gates?.testcase?.map((c) => [c['@_name'], Boolean(c.failure)])).toEqual([
      ['[Invoices (dp_invoices)] gate micro.f1=0.9', true],
      ['[Invoices (dp_invoices)] gate field:vendor.recall=0.8', false],
      // 5 of the 6 documents pair with the baseline's: below the default 90%, so the regression check cannot pass.
      ['[Invoices (dp_invoices)] gate baseline.paired>=6', true],
      // 5 paired documents, 17 metrics compared: no outcome could be a significant regression (17·2^(1−5) ≥ 0.05; 17·2^(1−10) < 0.05).
      ['[Invoices (dp_invoices)] gate baseline.paired>=10', true],
      ['[Invoices (dp_invoices)] gate no significant regression', false],
    ]);
    expect(gates?.testcase?.[0].failure?.['@_message']).toContain('is below 0.9');
    // Gates on counts print as integers (not `baseline.paired value 5.000`).
    const xml = renderJunit(await goldenReport(GOLDEN['extract-baseline']));
    expect(xml).toContain('<system-out>baseline.paired value 5, threshold 6</system-out>');
    expect(xml).not.toMatch(/baseline\.paired value 5\.000/);
    const fields = suites.testsuite.find((s) => s['@_name'] === 'fields');
    expect(fields?.testcase?.map((c) => c['@_name'])).toContain('[Invoices (dp_invoices)] field line_items[].sku');
    // One testcase per compared metric of the baseline comparison.
    const regressions = suites.testsuite.find((s) => s['@_name'] === 'regressions');
    expect(regressions?.testcase?.map((c) => c['@_name'])).toContain('[Invoices (dp_invoices)] regression micro.f1');
  });

  it('names are unique, the classname is the dataset, and the same names differ per processor and per dataset', async () => {
    const r = await goldenReport(GOLDEN['extract-baseline']);
    const casesOf = (rep: typeof r): JunitCase[] =>
      (new XMLParser({ ignoreAttributes: false, isArray: (n) => n === 'testsuite' || n === 'testcase' }).parse(renderJunit(rep)) as { testsuites: { testsuite: Array<{ testcase?: JunitCase[] }> } }).testsuites.testsuite.flatMap(
        (s) => s.testcase ?? [],
      );
    const a = casesOf(r);
    expect(new Set(a.map((c) => `${c['@_classname']}/${c['@_name']}`)).size).toBe(a.length);
    expect(new Set(a.map((c) => c['@_classname']))).toEqual(new Set(['evs_golden']));
    const other = casesOf({ ...r, source: { ...r.source, processor: { ...r.source.processor, id: 'dp_receipts', name: 'Receipts' } } });
    const otherSet = casesOf({ ...r, source: { ...r.source, evaluationSetId: 'evs_other' } });
    const keys = (cs: JunitCase[]) => cs.map((c) => `${c['@_classname']}/${c['@_name']}`);
    for (const k of keys(other)) expect(keys(a)).not.toContain(k);
    for (const k of keys(otherSet)) expect(keys(a)).not.toContain(k);
    // Without an evaluation set id the export's file name is the dataset.
    const noSet = casesOf({ ...r, source: { ...r.source, evaluationSetId: undefined } });
    expect(noSet[0]['@_classname']).toBe('extract-export.json');
  });

  it('the regression gate counts the metrics compared, not those without a verdict (not_comparable)', () => {
    const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } } };
    const cur = extractExport(cfg, Array.from({ length: 12 }, () => ({ e: { a: 'x', b: 'y' }, p: { a: 'x', b: 'y' } })));
    // The baseline never expects nor predicts b: its b metrics are undefined there, not comparable.
    const base = extractExport(cfg, Array.from({ length: 12 }, () => ({ e: { a: 'x' }, p: { a: 'x' } })));
    const r = computeReport(cur, { bootstrap: 0, failOnRegression: true, allowUnderpowered: true, baseline: { kind: 'export', file: 'b.json', export: base } });
    const rows = r.baseline?.rows ?? [];
    const compared = rows.filter((x) => x.verdict !== 'not_comparable').length;
    expect(compared).toBeGreaterThan(0);
    expect(compared).toBeLessThan(rows.length);
    expect(renderJunit(r)).toContain(`<system-out>0 regressed of ${compared} compared metrics</system-out>`);
  });

  it('file attributes name the gates file, the config and the dataset CSV; time is the runs\' processing time shared by the fields', () => {
    const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } } };
    const exp = extractExport(cfg, [
      { e: { a: 'x', b: 'y' }, p: { a: 'x', b: 'y' } },
      { e: { a: 'x', b: 'y' }, p: { a: 'x', b: 'n' } },
    ]);
    exp.items.forEach((it, i) => Object.assign(it, { durationMs: [1500, 2500][i] }));
    const r = computeReport(exp, { bootstrap: 0, gates: ['micro.f1=0.5'], baseline: { kind: 'export', file: 'b.json', export: exp } });
    const xml = renderJunit(r, { files: { gates: 'evalkit.config.json', config: 'configs/invoice.json', dataset: 'eval/data.csv' } });
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, isArray: (n) => n === 'testsuite' || n === 'testcase' }).parse(xml) as {
      testsuites: { '@_time': string; testsuite: Array<{ '@_name': string; '@_time': string; testcase: JunitCase[] }> };
    };
    const suite = (n: string) => doc.testsuites.testsuite.find((s) => s['@_name'] === n);
    expect(suite('gates')?.testcase.map((c) => c['@_file'])).toEqual(['evalkit.config.json']);
    expect(suite('fields')?.testcase.map((c) => [c['@_name'].replace(/^\[[^\]]*\] /, ''), c['@_file'], c['@_time']])).toEqual([
      ['field a', 'configs/invoice.json', '2.000'],
      ['field b', 'configs/invoice.json', '2.000'],
    ]);
    expect(suite('fields')?.['@_time']).toBe('4.000');
    expect(doc.testsuites['@_time']).toBe('4.000');
    expect(new Set(suite('regressions')?.testcase.map((c) => c['@_file']))).toEqual(new Set(['eval/data.csv']));
  });

  it('a field that fails its own gate is a failing testcase, a regressed metric a failing regression testcase; text from documents is escaped', () => {
    const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { 'a<b>&"c"': { type: 'string' }, total: { type: 'number' } } } };
    const docs = (right: number) => Array.from({ length: 40 }, (_, i) => ({ e: { 'a<b>&"c"': `v${i}`, total: i }, p: { 'a<b>&"c"': i < right ? `v${i}` : 'x', total: i } }));
    const r = computeReport(extractExport(cfg, docs(10)), {
      bootstrap: 300,
      baseline: { kind: 'export', file: 'b.json', export: extractExport(cfg, docs(40)) },
      gates: ['field:total.f1=0.99', 'field:a<b>&"c".f1=0.9'],
    });
    const xml = renderJunit(r);
    const suites = parseJunit(xml).testsuite;
    const fields = suites.find((s) => s['@_name'] === 'fields');
    const weird = fields?.testcase?.find((c) => c['@_name'].endsWith(' field a<b>&"c"'));
    expect(weird?.failure?.['@_message']).toMatch(/^gate field:a<b>&"c"\.f1=0\.9 failed: /);
    expect(fields?.testcase?.find((c) => c['@_name'].endsWith(' field total'))?.failure).toBeUndefined();
    const regressed = suites.find((s) => s['@_name'] === 'regressions')?.testcase?.find((c) => c['@_name'].endsWith(' regression field:a<b>&"c".f1'));
    expect(regressed?.failure?.['@_message']).toMatch(/^field:a<b>&"c"\.f1 regressed: 1\.000 -> 0\.250 \(McNemar p 0\.0000, Holm 0\.0000\)$/);
    expect(xml).toContain('a&lt;b&gt;&amp;&quot;c&quot;');
  });
});

describe('Markdown', () => {
  it('cuts long tables to stay under 60 KB and says so', () => {
    const props = Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`field_${String(i).padStart(4, '0')}_with_a_long_name`, { type: 'string' }]));
    const e = Object.fromEntries(Object.keys(props).map((k) => [k, 'v']));
    const r = computeReport(extractExport({ type: 'EXTRACT', schema: { type: 'object', properties: props } }, [{ e, p: e }]), { bootstrap: 0 });
    const md = renderMarkdown(r);
    expect(Buffer.byteLength(md)).toBeLessThan(MARKDOWN_MAX_BYTES);
    expect(md).toMatch(/_\d+ more row\(s\) cut to keep this summary under 60 KB; every row is in report\.json\._/);
    expect(md).toContain('### All fields (1500)');
  });

  it('cuts text that cannot be shortened (thousands of warnings) at a line, with a note', () => {
    const exclude = Array.from({ length: 3000 }, (_, i) => `no_such_field_${i}`);
    const r = computeReport(extractExport({ type: 'EXTRACT', schema: { type: 'object', properties: { a: { type: 'string' } } } }, [{ e: { a: 'x' }, p: { a: 'x' } }], { excludeFields: exclude }), {
      bootstrap: 0,
    });
    const md = renderMarkdown(r);
    expect(Buffer.byteLength(md)).toBeLessThan(MARKDOWN_MAX_BYTES);
    expect(md.endsWith('_The rest of this summary was cut to keep it under 60 KB; everything is in report.json._\n')).toBe(true);
    expect(md).toContain('| micro F1 |'); // the headline is never cut
  });

  it('puts names from documents in code spans that pipes and backticks cannot break', async () => {
    const r = computeReport(extractExport({ type: 'EXTRACT', schema: { type: 'object', properties: { 'a|b`c': { type: 'string' } } } }, [{ e: { 'a|b`c': 'x' }, p: { 'a|b`c': 'y' } }]), { bootstrap: 0 });
    const md = renderMarkdown(r);
    expect(md).toContain("| `` a\\|b`c `` |");
  });

  it("escapes users' strings in warnings: no image, link, HTML or emphasis comes out of an option entry", () => {
    const evil = ['![x](https://evil.example/p.png)', '<img src=x onerror=alert(1)>', '[click](javascript:alert(1))', '**bold** _em_ `tick`', 'www.evil.example'];
    const r = computeReport(extractExport({ type: 'EXTRACT', schema: { type: 'object', properties: { a: { type: 'string' } } } }, [{ e: { a: 'x' }, p: { a: 'x' } }], { fuzzyMatchFields: evil, excludeFields: evil }), {
      bootstrap: 0,
    });
    const md = renderMarkdown(r);
    const warnings = md.slice(md.indexOf('### Warnings'));
    expect(warnings).toContain('\\!\\[x\\](https\\://evil.example/p.png)');
    expect(warnings).not.toMatch(/<img|(?<!\\)!\[|(?<!\\)\[click|https:\/\/|(?<!\\)\*\*|www\.evil/);
    expect(warnings).toContain('&lt;img src=x onerror=alert(1)\\>');
  });
});

describe('JSON', () => {
  it('writes each document record exactly as JSON.stringify of the record would', () => {
    const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { 'q"uote\\ü': { type: 'string' }, n: { type: 'number' } } } };
    const exp = extractExport(cfg, [{ e: { 'q"uote\\ü': 'a', n: 1 }, p: { 'q"uote\\ü': 'b', n: null } }]);
    exp.items[0].id = 'id "1"\n';
    exp.items[0].fileName = 'ä\u2028.pdf';
    const sink = new MemoryDocuments();
    computeReport(exp, { bootstrap: 0 }, sink);
    const line = sink.lines[0];
    expect(line).toBe(JSON.stringify(JSON.parse(line)));
    expect(JSON.parse(line ?? '')).toEqual({ correct: false, errors: 2, failed: false, fields: { n: [0, 0, 0, 1, 0], 'q"uote\\ü': [0, 0, 0, 0, 1] }, fileId: 'file_0', fileName: 'ä\u2028.pdf', id: 'id "1"\n' });
  });

  it('validates against schemas/report.schema.json and has sorted keys', async () => {
    const ajv = new Ajv2020({ strict: true, strictTypes: false });
    const validate = ajv.compile(JSON.parse(readFileSync(new URL('../../schemas/report.schema.json', import.meta.url), 'utf8')) as object);
    for (const c of Object.values(GOLDEN)) {
      const text = renderJson(await goldenReport(c));
      const data = JSON.parse(text) as unknown;
      expect(validate(data), JSON.stringify(validate.errors)).toBe(true);
      const sortedDeep = (v: unknown): boolean =>
        v === null || typeof v !== 'object' ? true : Array.isArray(v) ? v.every(sortedDeep) : Object.keys(v).every((k, i, ks) => i === 0 || ks[i - 1] < k) && Object.values(v).every(sortedDeep);
      expect(sortedDeep(data)).toBe(true);
    }
  });
});

describe('writeReports: all or nothing', () => {
  const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { a: { type: 'string' } } } };
  const make = () => computeReport(extractExport(cfg, [{ e: { a: 'x' }, p: { a: 'y' } }]), { bootstrap: 0 });

  it('writes nothing when report.json would not match the schema', async () => {
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'evalkit-write-')), 'out');
    const r = make();
    (r.summary as { documents: number }).documents = -1;
    await expect(writeReports(r, dir)).rejects.toThrow(/does not match schemas\/report\.schema\.json at \/summary\/documents/);
    expect(existsSync(dir)).toBe(false);
  });

  it('writes nothing when a renderer fails after others succeeded', async () => {
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'evalkit-write-')), 'out');
    const r = make();
    // The HTML renderer reads the worst documents; a broken one throws there, after json and md rendered.
    (r as { worstDocuments: unknown }).worstDocuments = [null];
    await expect(writeReports(r, dir, ['json', 'md', 'html'])).rejects.toThrow();
    expect(existsSync(dir)).toBe(false);
  });
});

describe('how the intervals were made', () => {
  it('names the bootstrap over documents, and past 10,000 documents over random groups of them', async () => {
    const { bootstrapText } = await import('../../src/report/markdown.js');
    const report = await goldenReport(GOLDEN.extract);
    expect(renderMarkdown(report)).toContain(`bootstrap over documents (${report.options.bootstrap} resamples, seed ${report.options.seed})`);
    const big = { ...report, summary: { ...report.summary, documents: 10_001 } };
    expect(bootstrapText(big)).toBe(`bootstrap over 10,000 random groups of the documents (${report.options.bootstrap} resamples, seed ${report.options.seed})`);
    expect(bootstrapText({ ...report, summary: { ...report.summary, documents: 10_000 } })).toContain('over documents');
  });
});

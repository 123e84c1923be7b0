/**
 * JUnit XML for CI test reporters: a suite of gates (one testcase per --fail-under gate, plus
 * one for --fail-on-regression) and a suite of fields (classes for CLASSIFY, split types for
 * SPLITTER), one testcase each, failing when a gate on it failed or its verdict is regressed.
 */
import type { Report } from '../metrics/generated/report.js';
import { num } from './markdown.js';

/** XML text or attribute value: escaped, and characters XML 1.0 cannot hold removed. */
export function xml(s: string): string {
  return s
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

interface Case {
  name: string;
  failure?: string;
  out: string;
}

function unitCases(r: Report): { suite: string; prefix: string; cases: Case[] } {
  const rows = new Map((r.baseline?.rows ?? []).map((x) => [x.key, x]));
  const failedGates = r.gates.results.filter((g) => !g.passed);
  const make = (prefix: string, unit: string, out: string): Case => {
    const problems: string[] = [];
    for (const g of failedGates) if (g.metric.startsWith(`${prefix}:${unit}.`)) problems.push(`gate ${g.gate} failed: ${g.reason ?? ''}`);
    const row = rows.get(`${prefix}:${unit}.f1`);
    if (row?.verdict === 'regressed') problems.push(`F1 regressed: ${num(row.baseline)} -> ${num(row.current)} (McNemar p ${num(row.mcnemar.p, 4)}, Holm ${num(row.pHolm, 4)})`);
    const c: Case = { name: unit, out: row ? `${out}; baseline ${num(row.baseline)}, verdict ${row.verdict}` : out };
    if (problems.length) c.failure = problems.join('; ');
    return c;
  };
  if (r.extract) {
    return {
      suite: 'fields',
      prefix: 'field',
      cases: r.extract.fields.map((f) =>
        make('field', f.path, `F1 ${num(f.f1.value)} precision ${num(f.precision.value)} recall ${num(f.recall.value)} TP ${f.counts.tp} TN ${f.counts.tn} FA ${f.counts.fa} FN ${f.counts.fn} FD ${f.counts.fd}`),
      ),
    };
  }
  if (r.classify) {
    return {
      suite: 'classes',
      prefix: 'class',
      cases: r.classify.classes.map((c) => make('class', c.label, `F1 ${num(c.f1.value)} precision ${num(c.precision.value)} recall ${num(c.recall.value)} support ${c.support}`)),
    };
  }
  const types = r.splitter?.types ?? [];
  return {
    suite: 'split types',
    prefix: 'type',
    cases: types.map((t) => make('type', t.type, `F1 ${num(t.f1.value)} expected ${t.expected} predicted ${t.predicted} correct ${t.correct}`)),
  };
}

function suite(name: string, cases: Case[]): string {
  const failures = cases.filter((c) => c.failure !== undefined).length;
  const body = cases
    .map((c) => {
      const inner =
        (c.failure !== undefined ? `\n      <failure message="${xml(c.failure)}" type="evalkit.${name === 'gates' ? 'gate' : 'metric'}">${xml(c.failure)}</failure>` : '') +
        `\n      <system-out>${xml(c.out)}</system-out>\n    `;
      return `    <testcase classname="evalkit.${xml(name.replace(/ /g, '_'))}" name="${xml(c.name)}" time="0">${inner}</testcase>`;
    })
    .join('\n');
  return `  <testsuite name="${xml(name)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" time="0">${body ? `\n${body}\n  ` : ''}</testsuite>`;
}

export function renderJunit(r: Report): string {
  const gateCases: Case[] = r.gates.results.map((g) => {
    const c: Case = { name: g.gate, out: `${g.metric} ${g.on === 'lower' ? 'lower bound' : 'value'} ${num(g.value)}, threshold ${g.threshold}` };
    if (!g.passed) c.failure = `${g.gate} failed: ${g.reason ?? ''}`;
    return c;
  });
  if (r.gates.failOnRegression) {
    const reg = r.gates.regressed;
    const c: Case = { name: 'no significant regression', out: `${reg.length} regressed of ${r.baseline?.rows.length ?? 0} compared metrics` };
    if (reg.length) c.failure = `regressed: ${reg.join(', ')}`;
    gateCases.push(c);
  }
  const units = unitCases(r);
  const suites = [suite('gates', gateCases), suite(units.suite, units.cases)];
  const tests = gateCases.length + units.cases.length;
  const failures = [...gateCases, ...units.cases].filter((c) => c.failure !== undefined).length;
  const p = r.source.processor;
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="${xml(`evalkit report ${p.name || p.id} ${p.version}`)}" tests="${tests}" failures="${failures}" errors="0" time="0">\n` +
    suites.join('\n') +
    '\n</testsuites>\n'
  );
}

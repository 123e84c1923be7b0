/**
 * JUnit XML for CI test reporters (GitHub check annotations, GitLab's test report): a suite of
 * gates (one testcase per gate, plus one for --fail-on-regression), a suite of the units the
 * metrics are per (fields for EXTRACT, classes for CLASSIFY, split types for SPLITTER) and,
 * with a baseline, a suite of comparisons (one testcase per compared metric, failing when it
 * regressed).
 *
 * Reporters merge the files of several jobs and tell testcases apart by classname and name, so
 * the classname is the dataset (evaluation set id, else the export's file name) and every name
 * starts with the processor: two processors on one set, or one on two sets, never collide. The
 * version is left out of names so that a testcase keeps its history from one version to the next.
 */
import type { Report } from '../metrics/generated/report.js';
import { num } from './markdown.js';
import { ALPHA, isCountGate, unreachableRegressions, unreachableText, type UnreachableRow } from './gates.js';

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

export interface JunitOptions {
  /**
   * Files that testcases come from, as the `file` attribute (GitHub and GitLab link a testcase
   * to it): the file the gates are written in (an evalkit.config.json), the processor config
   * that defines the fields, and the dataset CSV the expected values come from.
   */
  files?: { gates?: string; config?: string; dataset?: string };
}

interface Case {
  name: string;
  failure?: string;
  out: string;
  /** Seconds. */
  time: number;
  file?: string;
}

interface Suite {
  name: string;
  kind: 'gate' | 'metric' | 'regression';
  cases: Case[];
}

/** The evaluation set, or the export the report was computed from. */
export function datasetOf(r: Report): string {
  return r.source.evaluationSetId ?? r.source.file;
}

/** The processor as testcase names start: its name, with its id when the name is not unique by nature. */
export function processorLabel(r: Report): string {
  const p = r.source.processor;
  return p.name && p.name !== p.id ? `${p.name} (${p.id})` : p.id;
}

/**
 * The runs' processing time in seconds (mean latency × runs with a duration, from the export's
 * durationMs), or 0 when the export has no durations.
 */
export function runSeconds(r: Report): number {
  const l = r.cost?.latency;
  return l ? (l.mean * l.runs) / 1000 : 0;
}

function unitSuite(r: Report, files: JunitOptions['files']): Suite {
  const failedGates = r.gates.results.filter((g) => !g.passed);
  const rows = new Map((r.baseline?.rows ?? []).map((x) => [x.key, x]));
  const make = (prefix: string, kind: string, unit: string, out: string): Case => {
    const problems: string[] = [];
    for (const g of failedGates) if (g.metric.startsWith(`${prefix}:${unit}.`)) problems.push(`gate ${g.gate} failed: ${g.reason ?? ''}`);
    const row = rows.get(`${prefix}:${unit}.f1`);
    const c: Case = { name: `${kind} ${unit}`, out: row ? `${out}; baseline ${num(row.baseline)}, verdict ${row.verdict}` : out, time: 0, file: files?.config };
    if (problems.length) c.failure = problems.join('; ');
    return c;
  };
  let suite: Suite;
  if (r.extract) {
    suite = {
      name: 'fields',
      kind: 'metric',
      cases: r.extract.fields.map((f) =>
        make('field', 'field', f.path, `F1 ${num(f.f1.value)} precision ${num(f.precision.value)} recall ${num(f.recall.value)} TP ${f.counts.tp} TN ${f.counts.tn} FA ${f.counts.fa} FN ${f.counts.fn} FD ${f.counts.fd}`),
      ),
    };
  } else if (r.classify) {
    suite = { name: 'classes', kind: 'metric', cases: r.classify.classes.map((c) => make('class', 'class', c.label, `F1 ${num(c.f1.value)} precision ${num(c.precision.value)} recall ${num(c.recall.value)} support ${c.support}`)) };
  } else {
    const types = r.splitter?.types ?? [];
    suite = { name: 'split types', kind: 'metric', cases: types.map((t) => make('type', 'split type', t.type, `F1 ${num(t.f1.value)} expected ${t.expected} predicted ${t.predicted} correct ${t.correct}`)) };
  }
  // One set of runs produced every unit's values: their time is shared evenly, so the suite's
  // time is the runs' and the testcases add up to it.
  const each = suite.cases.length ? runSeconds(r) / suite.cases.length : 0;
  for (const c of suite.cases) c.time = each;
  return suite;
}

function gateSuite(r: Report, files: JunitOptions['files']): Suite {
  const cases: Case[] = r.gates.results.map((g) => {
    const c: Case = { name: `gate ${g.gate}`, out: `${g.metric} ${g.on === 'lower' ? 'lower bound' : 'value'} ${isCountGate(g.metric) ? String(g.value) : num(g.value)}, threshold ${g.threshold}`, time: 0, file: files?.gates };
    if (!g.passed) c.failure = `${g.gate} failed: ${g.reason ?? ''}`;
    return c;
  });
  if (r.gates.failOnRegression) {
    const reg = r.gates.regressed;
    // Compared: the rows with a verdict (not_comparable rows are outside the Holm family too).
    const compared = (r.baseline?.rows ?? []).filter((row) => row.verdict !== 'not_comparable').length;
    const u = r.baseline ? unreachableRegressions(r.baseline, ALPHA) : undefined;
    const blind = u ? `; it could not detect a regression here: ${unreachableText(u, ALPHA)}` : '';
    const c: Case = { name: 'gate no significant regression', out: `${reg.length} regressed of ${compared} compared metrics${blind}`, time: 0, file: files?.gates };
    if (reg.length) c.failure = `regressed: ${reg.join(', ')}`;
    cases.push(c);
  }
  return { name: 'gates', kind: 'gate', cases };
}

/** A row that fell where no regression could show: said on its testcase. */
function blindRow(u: UnreachableRow, paired: number): string {
  return (
    `could not reach significance with ${paired} paired documents: ${u.changed} changed` +
    (u.needed === null ? `, and not even all ${paired} going wrong would be significant` : `; ${u.needed} going wrong would be the fewest significant`)
  );
}

function regressionSuite(r: Report, files: JunitOptions['files']): Suite | undefined {
  const b = r.baseline;
  if (!b) return undefined;
  const blind = new Map((unreachableRegressions(b, ALPHA)?.rows ?? []).map((x) => [x.key, x]));
  return {
    name: 'regressions',
    kind: 'regression',
    cases: b.rows.map((row) => {
      const c: Case = {
        name: `regression ${row.key}`,
        out:
          `${num(row.baseline)} -> ${num(row.current)} against ${b.file}: ${row.verdict} (McNemar p ${num(row.mcnemar.p, 4)}, Holm ${num(row.pHolm, 4)})` +
          (blind.has(row.key) ? `; ${blindRow(blind.get(row.key) as UnreachableRow, b.pairing.paired)}` : ''),
        time: 0,
        file: files?.dataset,
      };
      if (row.verdict === 'regressed') c.failure = `${row.key} regressed: ${num(row.baseline)} -> ${num(row.current)} (McNemar p ${num(row.mcnemar.p, 4)}, Holm ${num(row.pHolm, 4)})`;
      return c;
    }),
  };
}

const secs = (s: number): string => s.toFixed(3);

function renderSuite(s: Suite, classname: string, prefix: string, properties: string): string {
  const failures = s.cases.filter((c) => c.failure !== undefined).length;
  const time = s.cases.reduce((t, c) => t + c.time, 0);
  const body = s.cases
    .map((c) => {
      const inner =
        (c.failure !== undefined ? `\n      <failure message="${xml(c.failure)}" type="evalkit.${s.kind}">${xml(c.failure)}</failure>` : '') +
        `\n      <system-out>${xml(c.out)}</system-out>\n    `;
      const file = c.file !== undefined ? ` file="${xml(c.file)}"` : '';
      return `    <testcase classname="${xml(classname)}" name="${xml(`${prefix} ${c.name}`)}"${file} time="${secs(c.time)}">${inner}</testcase>`;
    })
    .join('\n');
  return (
    `  <testsuite name="${xml(s.name)}" tests="${s.cases.length}" failures="${failures}" errors="0" skipped="0" time="${secs(time)}">\n` +
    properties +
    (body ? `${body}\n` : '') +
    '  </testsuite>'
  );
}

export function renderJunit(r: Report, opts: JunitOptions = {}): string {
  const suites = [gateSuite(r, opts.files), unitSuite(r, opts.files), regressionSuite(r, opts.files)].filter((s): s is Suite => s !== undefined);
  const cases = suites.flatMap((s) => s.cases);
  const failures = cases.filter((c) => c.failure !== undefined).length;
  const p = r.source.processor;
  const dataset = datasetOf(r);
  const prefix = `[${processorLabel(r)}]`;
  const props = [
    ['processor', p.id],
    ['processor.name', p.name],
    ['processor.version', p.version],
    ['type', r.type],
    ['dataset', dataset],
    ['export', r.source.file],
  ];
  const properties = `    <properties>\n${props.map(([k, v]) => `      <property name="${xml(k)}" value="${xml(v)}"/>\n`).join('')}    </properties>\n`;
  const time = cases.reduce((t, c) => t + c.time, 0);
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="${xml(`evalkit ${p.name || p.id} ${p.version} on ${dataset}`)}" tests="${cases.length}" failures="${failures}" errors="0" time="${secs(time)}">\n` +
    suites.map((s) => renderSuite(s, dataset, prefix, properties)).join('\n') +
    '\n</testsuites>\n'
  );
}

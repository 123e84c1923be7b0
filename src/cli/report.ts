import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
import { UsageError } from '../util/errors.js';
import { REPORT_FORMATS as FORMATS, type ReportFormat } from '../report/write.js';
import { defineCommand } from './command.js';
import { err, out } from './io.js';

interface ReportArgs {
  from: string;
  baseline?: string;
  outDir?: string;
  format: string[];
  failUnder: string[];
  gate: string[];
  gateOn: 'point' | 'lower';
  failOnRegression: boolean;
  pairBy: 'auto' | 'id' | 'file' | 'name';
  minPaired?: string;
  equivalence: number;
  maxFailedRate?: number;
  confidence?: 'logprobs' | 'ocr' | 'review' | 'min';
  targetAccuracy?: number;
  fuzzyThreshold: number;
  numberTolerance: number;
  bootstrap: number;
  seed: number;
}

export function parseFormats(list: readonly string[]): ReportFormat[] {
  const set = new Set<ReportFormat>();
  for (const item of list.flatMap((s) => s.split(','))) {
    const f = item.trim().toLowerCase();
    if (f === '') continue;
    const norm = f === 'markdown' ? 'md' : f === 'xml' ? 'junit' : f;
    if (!(FORMATS as readonly string[]).includes(norm)) {
      throw new UsageError(`--format: unknown report format "${item}"`, { hint: `choose from ${FORMATS.join(', ')} (comma-separated; default all)` });
    }
    set.add(norm as ReportFormat);
  }
  return FORMATS.filter((f) => set.has(f));
}

/** reports/<export name>: the export's file name without .json/.jsonl/.ndjson. */
export function defaultOutDir(from: string): string {
  const name = path.basename(from).replace(/\.(jsonl|ndjson|json)$/i, '') || 'report';
  return path.join('reports', name);
}

/** Removes the empty folders from `dir` up to `top` (the first one mkdir created). */
async function removeCreated(dir: string, top: string): Promise<void> {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (!(await fsp.rmdir(d).then(() => true, () => false))) return;
    if (d === path.resolve(top) || path.dirname(d) === d) return;
  }
}

const f3 = (v: number | null | undefined): string => (v === null || v === undefined ? 'n/a' : v.toFixed(3));

export default defineCommand<ReportArgs>({
  command: 'report',
  describe: 'compute metrics with confidence intervals from an evaluation export (no network), compare with a baseline, write json/md/html/junit reports and check gates',
  builder: (y) =>
    y
      .option('from', { type: 'string', demandOption: true, describe: 'evaluation export (JSON, or JSONL with a header line) written by `evalkit eval run/export`' })
      .option('baseline', { type: 'string', describe: 'earlier report.json or export to compare with (documents paired by item id, file id, file name, content hash)' })
      .option('out-dir', { type: 'string', describe: 'folder for the reports (default reports/<export name>)' })
      .option('format', { type: 'string', array: true, default: ['json,md,html,junit'], describe: 'reports to write: json, md, html, junit (comma-separated)' })
      .option('fail-under', { type: 'string', array: true, default: [] as string[], describe: 'gate METRIC=THRESHOLD, e.g. micro.f1=0.9, field:total.recall=0.95, accuracy=0.8 (repeatable)' })
      .option('gate', { type: 'string', array: true, default: [] as string[], describe: "gate METRIC<=N or METRIC>=N: cost and latency (latency.p95<=30000, credits.mean<=4) or any --fail-under metric (repeatable)" })
      .option('gate-on', { choices: ['point', 'lower'] as const, default: 'point' as const, describe: 'gate on the point estimate or on the lower bound of the 95% interval' })
      .option('fail-on-regression', { type: 'boolean', default: false, describe: 'fail when a metric regressed significantly (Holm-corrected) against --baseline, or when too few documents pair' })
      .option('pair-by', { choices: ['auto', 'id', 'file', 'name'] as const, default: 'auto' as const, describe: 'how documents pair with the baseline: auto tries item id, file id, file name, content hash in turn' })
      .option('min-paired', { type: 'string', describe: 'fewest paired documents a baseline comparison accepts: a count or a share of this run (default 90%)' })
      .option('equivalence', { type: 'number', default: 0.01, describe: 'margin: a delta whose 95% interval lies inside ±margin is "no change"' })
      .option('max-failed-rate', { type: 'number', describe: 'gate: fail when more than this share of the runs failed (0 to 1)' })
      .option('confidence', { choices: ['logprobs', 'ocr', 'review', 'min'] as const, describe: 'which confidence of the output metadata to judge (default: logprobs where present, else ocr, else review)' })
      .option('target-accuracy', { type: 'number', describe: 'auto-accept thresholds: per field the lowest confidence whose accepted values reach this accuracy on the Wilson lower bound' })
      .option('fuzzy-threshold', { type: 'number', default: 0.9, describe: 'normalised Levenshtein similarity at which fuzzy fields match' })
      .option('number-tolerance', { type: 'number', default: 1e-6, describe: 'relative tolerance for numbers' })
      .option('bootstrap', { type: 'number', default: 2000, describe: 'bootstrap resamples for F1 intervals and baseline deltas (0 turns it off)' })
      .option('seed', { type: 'number', default: 1, describe: 'seed of the bootstrap; the same seed gives the same report' })
      .example('$0 report --from exports/invoices.json', 'write reports/invoices/report.{json,md,html,junit.xml}')
      .example('$0 report --from run.jsonl --baseline reports/main/report.json --fail-on-regression', 'fail only on significant regressions')
      .example('$0 report --from run.json --fail-under micro.f1=0.9 --fail-under field:total.recall=0.95 --gate-on lower', 'gate on interval lower bounds')
      .example('$0 report --from run.json --format md,junit --out-dir out/', 'only the Markdown and JUnit reports')
      .example('$0 report --from new-set.json --baseline old-set.json --pair-by name --min-paired 100%', 'a re-created set: pair by file name, all documents must pair')
      .example('$0 report --from run.json --max-failed-rate 0.02', 'fail when more than 2% of the runs failed')
      .example("$0 report --from run.json --gate 'latency.p95<=30000' --gate 'credits.mean<=4'", 'gate on latency and cost')
      .example('$0 report --from run.json --target-accuracy 0.99', 'per field the confidence above which values can be accepted without review') as unknown as Argv<ReportArgs>,
  async run(argv) {
    const formats = parseFormats(argv.format);
    if (formats.length === 0) throw new UsageError('--format: name at least one report format', { hint: `choose from ${FORMATS.join(', ')}` });
    const { parseGates } = await import('../report/gates.js');
    const { parseGateExpressions } = await import('../report/gates.js');
    const gates = [...parseGates(argv.failUnder), ...parseGateExpressions(argv.gate)];
    if (argv.failOnRegression && !argv.baseline) throw new UsageError('--fail-on-regression needs --baseline', { hint: 'pass the report.json or export of the run to compare with' });

    const { openExport, loadBaseline } = await import('../report/load.js');
    const { computeReportStream } = await import('../report/build.js');
    const { FileDocuments, DiscardDocuments } = await import('../report/documents.js');
    const { writeReports } = await import('../report/write.js');
    const exp = await openExport(argv.from);
    const baseline = argv.baseline ? await loadBaseline(argv.baseline) : undefined;
    const outDir = argv.outDir ?? defaultOutDir(argv.from);
    // The document records are written while the documents are scored, beside report.json; on
    // any error the temp file goes, and so do the folders this run created.
    let documents: InstanceType<typeof FileDocuments> | undefined;
    let made: string | undefined;
    if (formats.includes('json')) {
      made = await fsp.mkdir(outDir, { recursive: true });
      documents = new FileDocuments(outDir);
    }
    let report;
    let files;
    try {
      report = await computeReportStream(
        exp.header,
        exp.items,
        {
          sourceFile: path.basename(argv.from),
          baseline,
          gates,
          gateOn: argv.gateOn,
          failOnRegression: argv.failOnRegression,
          pairBy: argv.pairBy,
          minPaired: argv.minPaired,
          equivalence: argv.equivalence,
          maxFailedRate: argv.maxFailedRate,
          confidence: argv.confidence,
          targetAccuracy: argv.targetAccuracy,
          fuzzyThreshold: argv.fuzzyThreshold,
          numberTolerance: argv.numberTolerance,
          bootstrap: argv.bootstrap,
          seed: argv.seed,
        },
        documents ?? new DiscardDocuments(),
      );
      files = await writeReports(report, outDir, formats, documents);
    } catch (e) {
      documents?.abort();
      if (made) await removeCreated(outDir, made);
      throw e;
    }
    const { renderMarkdown } = await import('../report/markdown.js');
    const written = [...(documents ? [documents.target] : []), ...files.map((f) => f.file)];
    const summaryFile = process.env.GITHUB_STEP_SUMMARY;
    if (summaryFile) {
      try {
        await fsp.appendFile(summaryFile, (files.find((f) => f.format === 'md')?.text ?? renderMarkdown(report)) + '\n');
      } catch (e) {
        err(`evalkit: warning: could not append to GITHUB_STEP_SUMMARY (${summaryFile}): ${(e as Error).message}`);
      }
    }

    const p = report.source.processor;
    const lines: string[] = [`${report.type} ${JSON.stringify(p.name || p.id)} ${p.version}: ${report.summary.documents} documents, ${report.summary.failed} failed run(s)`];
    if (report.extract) {
      const x = report.extract;
      lines.push(`micro F1 ${f3(x.micro.f1.value)} · precision ${f3(x.micro.precision.value)} · recall ${f3(x.micro.recall.value)} · macro F1 ${f3(x.macro.f1.value)} · document accuracy ${f3(x.document.accuracy.value)}`);
    }
    if (report.classify) {
      const c = report.classify;
      lines.push(`accuracy ${f3(c.accuracy.value)} · macro F1 ${f3(c.macro.f1.value)} · weighted F1 ${f3(c.weighted.f1.value)} · mean confidence ${f3(c.meanConfidence)}`);
    }
    if (report.splitter) {
      const s = report.splitter;
      lines.push(`F1 ${f3(s.f1.value)} · precision ${f3(s.precision.value)} · recall ${f3(s.recall.value)} · PQ ${f3(s.panoptic.pq.value)} · page accuracy ${f3(s.pageAccuracy.value)}`);
    }
    const cost = report.cost;
    if (cost) {
      const parts: string[] = [];
      if (cost.latency) parts.push(`latency mean ${cost.latency.mean.toFixed(0)} ms · p50 ${cost.latency.p50.toFixed(0)} · p95 ${cost.latency.p95.toFixed(0)}`);
      if (cost.credits) parts.push(`credits ${cost.credits.total} · ${f3(cost.credits.mean)} per document · ${f3(cost.credits.perCorrect)} per correct ${cost.credits.unit}`);
      lines.push(parts.join(' · '));
    }
    const cal = report.calibration;
    if (cal) {
      const o = cal.overall;
      let line = `confidence (${cal.source}): ${o.withConfidence} value(s) · ECE ${f3(o.ece)} · Brier ${f3(o.brier)} · AUROC ${f3(o.auroc)}`;
      if (cal.straightThrough) line += ` · straight-through at ${cal.targetAccuracy}: ${f3(cal.straightThrough.value)} of documents`;
      lines.push(line);
    }
    for (const w of report.warnings) err(`evalkit: warning: ${w}`);
    if (report.baseline) {
      const b = report.baseline;
      const k = b.pairing.byKey;
      const keys = (['id', 'file', 'name', 'hash'] as const).filter((x) => k[x] > 0).map((x) => `${k[x]} by ${x === 'id' ? 'item id' : x === 'file' ? 'file id' : x === 'name' ? 'file name' : 'content hash'}`);
      lines.push(`baseline ${b.file}: ${b.paired} paired of ${b.pairing.current} current, ${b.pairing.baseline} baseline${keys.length ? ` (${keys.join(', ')})` : ''}`);
      lines.push(`  ${b.tally.regressed} regressed, ${b.tally.improved} improved, ${b.tally.inconclusive} inconclusive, ${b.tally.no_change} no change, ${b.tally.not_comparable} not comparable`);
      if (b.onlyInCurrent.length) lines.push(`  unpaired in this run: ${b.onlyInCurrent.slice(0, 10).join(', ')}${b.onlyInCurrent.length > 10 ? `, ... (${b.onlyInCurrent.length} in all)` : ''}`);
      for (const w of b.warnings) err(`evalkit: warning: baseline: ${w}`);
      for (const k of report.gates.regressed) lines.push(`regressed: ${k}`);
    }
    for (const g of report.gates.results) lines.push(g.passed ? `pass ${g.gate} (${g.metric === 'baseline.paired' ? g.value : f3(g.value)})` : `FAIL ${g.gate}: ${g.reason ?? ''}`);
    if (report.gates.failOnRegression && report.gates.regressed.length) lines.push(`FAIL --fail-on-regression: ${report.gates.regressed.length} significant regression(s)`);
    lines.push(`wrote ${written.join(', ')}`);
    const failedGates = report.gates.results.filter((g) => !g.passed).length;
    const regressionFailed = report.gates.failOnRegression && report.gates.regressed.length > 0;
    const total = report.gates.results.length;
    lines.push(
      total === 0 && !report.gates.failOnRegression
        ? 'no gates'
        : `${failedGates} of ${total} gate(s) failed${report.gates.failOnRegression ? (regressionFailed ? ', regression check failed' : ', no significant regression') : ''}`,
    );
    out(lines.join('\n'));
    return report.gates.passed ? 0 : 1;
  },
});

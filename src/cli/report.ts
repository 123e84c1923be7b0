import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
import { UsageError } from '../util/errors.js';
import { REPORT_FILE_NAMES, REPORT_FORMATS as FORMATS, type ReportFormat } from '../report/write.js';
import type { DocumentRecord, MultiRun } from '../metrics/generated/report.js';
import type { FileValueSource, ValueSource } from '../report/explorer/values.js';
import { defineCommand } from './command.js';
import { err, out, warn } from './io.js';
import { isQuiet, paint } from './style.js';
import { ALPHA, fmtGate, isCostMetric, isCountGate, unreachableRegressions, unreachableText } from '../report/gates.js';

interface ReportArgs {
  from?: string[];
  runs?: string;
  history?: string;
  baseline?: string;
  outDir?: string;
  formats: string[];
  format: string | string[];
  stepSummary: boolean;
  failUnder: string[];
  gate: string[];
  gateOn: 'point' | 'lower';
  failOnRegression: boolean;
  allowUnderpowered: boolean;
  allowPartial: boolean;
  pairBy: 'auto' | 'id' | 'file' | 'name';
  minPaired?: string;
  equivalence: number;
  maxFailedRate?: number;
  confidence?: 'logprobs' | 'ocr' | 'review' | 'min';
  targetAccuracy?: number;
  sliceBy: string[];
  fuzzyThreshold: number;
  numberTolerance: number;
  bootstrap: number;
  seed: number;
  exportErrors?: string;
  viewUrl?: string;
}

export function parseFormats(list: readonly string[]): ReportFormat[] {
  const set = new Set<ReportFormat>();
  for (const item of list.flatMap((s) => s.split(','))) {
    const f = item.trim().toLowerCase();
    if (f === '') continue;
    const norm = f === 'markdown' ? 'md' : f === 'xml' ? 'junit' : f;
    if (!(FORMATS as readonly string[]).includes(norm)) {
      throw new UsageError(`--formats: unknown report format "${item}"`, { hint: `choose from ${FORMATS.join(', ')} (comma-separated; default all)` });
    }
    set.add(norm as ReportFormat);
  }
  return FORMATS.filter((f) => set.has(f));
}

/**
 * `--format` is what goes to stdout (text or json), as for every command. Before, it named the
 * report files: that spelling (`--format md,junit`) fails and names `--formats`, the new flag.
 */
export function parseOutputFormat(value: string | readonly string[]): 'text' | 'json' {
  const list = (Array.isArray(value) ? value : [value]).flatMap((s) => String(s).split(',')).map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  if (list.length === 1 && (list[0] === 'text' || list[0] === 'json')) return list[0];
  const fileFormats = ['json', 'md', 'markdown', 'html', 'junit', 'xml'];
  if (list.length > 0 && list.every((f) => fileFormats.includes(f))) {
    throw new UsageError(`--format ${list.join(',')}: the report files are now chosen by --formats; --format is the output on stdout (text or json)`, { hint: `write --formats ${list.join(',')}` });
  }
  throw new UsageError(`--format "${list.join(',')}" is not an output format`, { hint: 'choose text or json; the report files are chosen by --formats json,md,html,junit' });
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
      .option('from', { type: 'string', array: true, describe: 'evaluation export (JSON, or JSONL with a header line) written by `evalkit eval run/export`; repeat it for runs side by side (the first is the reference)' })
      .option('runs', { type: 'string', describe: 'a folder of exports of the same set, side by side (sorted by name, after any --from; the first is the reference)' })
      .option('history', { type: 'string', describe: 'also add this report\'s summary to the history folder DIR (one JSON file per report; `evalkit history show DIR`)' })
      .option('baseline', { type: 'string', describe: 'earlier report.json or export to compare with (documents paired by item id, file id, file name, content hash)' })
      .option('out-dir', { type: 'string', describe: 'folder for the reports (default reports/<export name>)' })
      .option('formats', { type: 'string', array: true, default: ['json,md,html,junit'], describe: 'report files to write: json (report.json, with documents.jsonl: one record per document), md, html (lists up to 50,000 documents), junit (comma-separated)' })
      .option('format', { alias: 'f', type: 'string', default: 'text', describe: 'output on stdout: text (a summary), or json (the report itself, as in report.json)' })
      .option('step-summary', { type: 'boolean', default: true, describe: 'append the Markdown report to $GITHUB_STEP_SUMMARY when it is set (--no-step-summary: leave it to `evalkit ci github`)' })
      .option('fail-under', { type: 'string', array: true, default: [] as string[], describe: 'gate METRIC>=N (METRIC=N is the same), e.g. micro.f1>=0.9, field:total.recall=0.95, accuracy=0.8 (repeatable)' })
      .option('gate', { type: 'string', array: true, default: [] as string[], describe: "gate METRIC<=N, METRIC>=N or METRIC=N (as >=): cost and latency (latency.p95<=30000, credits.mean<=4) or any --fail-under metric (repeatable)" })
      .option('gate-on', { choices: ['point', 'lower'] as const, default: 'point' as const, describe: 'gate on the point estimate or on the lower bound of the 95% interval' })
      .option('fail-on-regression', { type: 'boolean', default: false, describe: 'fail when a metric regressed significantly (Holm-corrected) against --baseline, or when too few documents pair' })
      .option('allow-underpowered', { type: 'boolean', default: false, describe: 'let --fail-on-regression pass on too few paired documents for any regression to be significant (by default that fails, naming the documents needed)' })
      .option('allow-partial', { type: 'boolean', default: false, describe: "score an export whose service evaluation set run (`service.status`) is FAILED, CANCELLED or still running, and compare with such a --baseline (an export, or a report.json made with --allow-partial); by default each is refused, exit 2; the report says it is partial" })
      .option('pair-by', { choices: ['auto', 'id', 'file', 'name'] as const, default: 'auto' as const, describe: 'how documents pair with the baseline: auto tries item id, file id, file name, content hash in turn' })
      .option('min-paired', { type: 'string', describe: 'fewest paired documents a baseline comparison accepts: a count or a share of this run (default 90%)' })
      .option('equivalence', { type: 'number', default: 0.01, describe: 'margin: a delta whose 95% interval lies inside ±margin is "no change"' })
      .option('max-failed-rate', { type: 'number', describe: 'gate: fail when more than this share of the runs failed (0 to 1)' })
      .option('confidence', { choices: ['logprobs', 'ocr', 'review', 'min'] as const, describe: 'which confidence of the output metadata to judge (default: logprobs where present, else ocr, else review)' })
      .option('target-accuracy', { type: 'number', describe: 'auto-accept thresholds: per field the lowest confidence whose accepted values reach this accuracy on the Wilson lower bound' })
      .option('slice-by', { type: 'string', array: true, default: [] as string[], describe: 'slice the metrics by metadata.KEY (item metadata), fileType, or pageCount[:1;3;10] buckets; flags slices significantly worse than the rest (repeatable)' })
      .option('fuzzy-threshold', { type: 'number', default: 0.9, describe: 'normalised Levenshtein similarity at which fuzzy fields match' })
      .option('number-tolerance', { type: 'number', default: 1e-6, describe: 'relative tolerance for numbers' })
      .option('bootstrap', { type: 'number', default: 2000, describe: 'bootstrap resamples for F1 intervals and baseline deltas (0 turns it off)' })
      .option('seed', { type: 'number', default: 1, describe: 'seed of the bootstrap; the same seed gives the same report' })
      .option('view-url', { type: 'string', describe: "with --export-errors: the report's address in `evalkit view` (e.g. http://127.0.0.1:8790/r/0/); each row gets a `view` link to its value on the page" })
      .option('export-errors', { type: 'string', describe: 'also write every wrong outcome (FA, FN, FD) with expected and predicted values to this .csv or .jsonl, worst documents first' })
      .example('$0 report --from exports/invoices.json', 'write reports/invoices/report.{json,md,html,junit.xml}')
      .example('$0 report --dataset invoices', 'the export, baseline, gates and settings of that dataset of evalkit.config.json (docs/configuration.md)')
      .example('$0 report --from run.jsonl --baseline reports/main/report.json --fail-on-regression', 'fail only on significant regressions')
      .example('$0 report --from run.json --fail-under micro.f1=0.9 --fail-under field:total.recall=0.95 --gate-on lower', 'gate on interval lower bounds')
      .example('$0 report --from run.json --formats md,junit --out-dir out/', 'only the Markdown and JUnit reports')
      .example('$0 report --from run.json --format json | jq .gates.passed', 'the report JSON on stdout')
      .example('$0 report --from new-set.json --baseline old-set.json --pair-by name --min-paired 100%', 'a re-created set: pair by file name, all documents must pair')
      .example('$0 report --from run.json --max-failed-rate 0.02', 'fail when more than 2% of the runs failed')
      .example("$0 report --from run.json --gate 'latency.p95<=30000' --gate 'credits.mean<=4'", 'gate on latency and cost')
      .example('$0 report --from run.json --slice-by metadata.vendor --slice-by pageCount', 'metrics per vendor and per page-count bucket, worse slices flagged')
      .example('$0 report --from 1.0.json --from 1.0-again.json --from draft.json', 'runs side by side: each against the first, held to the spread between the two 1.0 runs')
      .example('$0 report --from run.json --history .evalkit-history', 'add the summary to the history; `evalkit history show .evalkit-history`')
      .example('$0 report --from run.json --export-errors errors.csv', 'the wrong outcomes for relabeling; upload the corrected file with `evalkit dataset upload`')
      .example('$0 report --from run.json --target-accuracy 0.99', 'per field the confidence above which values can be accepted without review') as unknown as Argv<ReportArgs>,
  async run(argv) {
    const output = parseOutputFormat(argv.format);
    const formats = parseFormats(argv.formats);
    if (formats.length === 0) throw new UsageError('--formats: name at least one report format', { hint: `choose from ${FORMATS.join(', ')}` });
    const errorsFormat = argv.exportErrors ? (await import('../report/errors.js')).errorsFormatOf(argv.exportErrors) : undefined;
    if (argv.viewUrl !== undefined) {
      if (!argv.exportErrors) throw new UsageError('--view-url sets the links of the errors file', { hint: 'add --export-errors errors.csv' });
      if (!/^http:\/\/127\.0\.0\.1:\d+\/[^#?]*$/.test(argv.viewUrl)) throw new UsageError(`--view-url ${argv.viewUrl}: not the address of a report in evalkit view`, { hint: 'copy it from what `evalkit view --port PORT` prints, e.g. http://127.0.0.1:8790/r/0/' });
    }
    const { parseGates } = await import('../report/gates.js');
    const gates = [...parseGates(argv.failUnder, '--fail-under'), ...parseGates(argv.gate, '--gate')];
    if (argv.failOnRegression && !argv.baseline) throw new UsageError('--fail-on-regression needs --baseline', { hint: 'pass the report.json or export of the run to compare with' });

    // A config file's `from` is one path; the flag may be repeated.
    const fromList = argv.from === undefined ? [] : ([] as string[]).concat(argv.from);
    const files = [...fromList];
    if (argv.runs !== undefined) {
      const { listRunExports } = await import('../report/runs-files.js');
      const listed = await listRunExports(argv.runs);
      if (listed.length === 0) throw new UsageError(`--runs ${argv.runs}: no export (.json, .jsonl, .ndjson) in the folder`, { hint: 'write exports there with `evalkit eval run --out`' });
      files.push(...listed.filter((f) => !files.some((g) => path.resolve(g) === path.resolve(f))));
    }
    if (files.length === 0) throw new UsageError('name the evaluation export with --from (or a folder of them with --runs)', { hint: 'evalkit report --from reports/ev_123-1.0.json' });
    const from = files[0];

    const { openExport, loadBaseline } = await import('../report/load.js');
    const { computeReportStream } = await import('../report/build.js');
    const { DiscardDocuments, DOCUMENTS_FILE, FileDocuments } = await import('../report/documents.js');
    const { writeReports, EXPLORER_MAX_DOCUMENTS } = await import('../report/write.js');
    const exp = await openExport(from);
    // The other runs are opened (headers read and checked) and read item by item when compared.
    const others = [];
    for (const f of files.slice(1)) {
      const o = await openExport(f);
      others.push({ file: path.basename(f), header: o.header, items: o.items });
    }
    const baseline = argv.baseline ? await loadBaseline(argv.baseline) : undefined;
    // Revision first: the reports and the history entry are written only once everything is ready.
    const revision = argv.history !== undefined ? await (await import('../history/git.js')).detectRevision() : undefined;
    const outDir = argv.outDir ?? (fromList.length ? defaultOutDir(from) : path.join('reports', path.basename(path.resolve(argv.runs ?? from))));
    // Every output's place checked before the scoring: nothing is written on exit 2.
    const { checkOutputTargets } = await import('../util/fs.js');
    checkOutputTargets([
      { path: outDir, kind: 'folder', flag: '--out-dir' },
      ...formats.map((f) => ({ path: path.join(outDir, REPORT_FILE_NAMES[f]), kind: 'file' as const, flag: '--out-dir' })),
      ...(formats.includes('json') ? [{ path: path.join(outDir, DOCUMENTS_FILE), kind: 'file' as const, flag: '--out-dir' }] : []),
      ...(argv.exportErrors ? [{ path: argv.exportErrors, kind: 'file' as const, flag: '--export-errors' }] : []),
      ...(argv.history !== undefined ? [{ path: argv.history, kind: 'folder' as const, flag: '--history' }] : []),
    ]);
    // JUnit's `file`: the config file the gates came from, the dataset's CSV (evalkit.config.json).
    const { settingsSources } = await import('./settings.js');
    const junitFiles = { gates: settingsSources().gatesFile, dataset: settingsSources().csv };
    // The explorer's History tab: the entries already in the store (this report's is added after).
    const history = argv.history !== undefined && formats.includes('html') ? await (await import('../history/index.js')).readHistory(argv.history).then((h) => h.entries, () => undefined) : undefined;

    // The document records are written while the documents are scored, to a temp file beside
    // report.json; on any error it goes, and so do the folders this run created.
    const made = await fsp.mkdir(outDir, { recursive: true });
    // Kept only for what reads them: report.json's side file, the explorer's list, the errors file.
    const documents = formats.includes('json') || formats.includes('html') || errorsFormat !== undefined ? new FileDocuments(outDir) : undefined;
    const { progressReporter } = await import('./progress.js');
    const progress = progressReporter({ enabled: true });
    let report;
    let writtenReports;
    let errorsText: string | undefined;
    let errorsCount = 0;
    let values: FileValueSource | undefined;
    let baselineValues: FileValueSource | undefined;
    let streamedBaseline: { documents: readonly DocumentRecord[]; values: ValueSource } | undefined;
    // A JSONL export whose values will be shown: the scoring pass notes where each item's line is
    // (up to the documents report.html lists, all of them for the errors file), so that the
    // values are read back without reading the file through again.
    const { ItemSpans } = exp.headerLine !== undefined && (formats.includes('html') || errorsFormat !== undefined) ? await import('../report/explorer/values.js') : { ItemSpans: undefined };
    try {
      const spans = ItemSpans ? new ItemSpans(errorsFormat !== undefined ? Infinity : EXPLORER_MAX_DOCUMENTS, argv.sliceBy) : undefined;
      report = await computeReportStream(
        exp.header,
        spans ? spans.source(from, exp) : exp.items,
        {
          sourceFile: path.basename(from),
          ...(others.length ? { runs: others } : {}),
          baseline,
          gates,
          gateOn: argv.gateOn,
          failOnRegression: argv.failOnRegression,
          allowUnderpowered: argv.allowUnderpowered,
          allowPartial: argv.allowPartial,
          pairBy: argv.pairBy,
          minPaired: argv.minPaired,
          equivalence: argv.equivalence,
          maxFailedRate: argv.maxFailedRate,
          confidence: argv.confidence,
          targetAccuracy: argv.targetAccuracy,
          sliceBy: argv.sliceBy,
          fuzzyThreshold: argv.fuzzyThreshold,
          numberTolerance: argv.numberTolerance,
          bootstrap: argv.bootstrap,
          seed: argv.seed,
          onProgress: (scored) => progress.update({ label: 'scoring', value: scored, total: 0, detail: '', unit: 'documents' }),
        },
        documents ?? new DiscardDocuments(),
      );
      // The export's values, for what shows them: the explorer (up to the documents it lists)
      // and the errors file. A JSONL export is not held: only where each item's line is
      // (values.ts fileValueSource); a JSON export was read whole by openExport.
      const withValues = (formats.includes('html') && report.summary.documents <= EXPLORER_MAX_DOCUMENTS) || errorsFormat !== undefined;
      const onLines = (read: number) => progress.update({ label: 'values', value: read, total: 0, detail: `${path.basename(from)} read again`, unit: 'lines' });
      if (withValues) {
        const { fileValueSource, valueSource } = await import('../report/explorer/values.js');
        if (exp.whole) {
          const { documentSlicesOf } = await import('../report/slices.js');
          const slices = report.options.sliceBy?.length ? { documentSlices: documentSlicesOf(report.options.sliceBy, exp.whole.items) } : {};
          values = { ...valueSource(exp.whole, report.options, report.calibration?.source), ...slices, close: () => undefined };
        } else values = await fileValueSource(from, exp, report.options, report.calibration?.source, { onLines, sliceBy: report.options.sliceBy, spans });
      }
      // A JSONL baseline export (up to the documents report.html lists): its records and values
      // read ahead, the same way (its lines noted while it is scored, then read back one by one).
      if (withValues && baseline?.kind === 'stream' && argv.baseline && report.baseline && report.baseline.pairing.baseline <= EXPLORER_MAX_DOCUMENTS) {
        const { ItemSpans, fileValueSource } = await import('../report/explorer/values.js');
        const { recordsOfSource } = await import('../report/scored.js');
        const { DEFAULT_COMPARE } = await import('../metrics/comparators.js');
        const opened = await openExport(argv.baseline);
        const spans = new ItemSpans();
        const o = report.options;
        const cmp = { fuzzyThreshold: o.fuzzyThreshold ?? DEFAULT_COMPARE.fuzzyThreshold, numberTolerance: o.numberTolerance ?? DEFAULT_COMPARE.numberTolerance };
        const records = await recordsOfSource(opened.header, spans.source(argv.baseline, opened), cmp, { source: report.calibration?.source });
        baselineValues = await fileValueSource(argv.baseline, opened, o, report.calibration?.source, { spans });
        streamedBaseline = { documents: records, values: baselineValues };
      }
      const shownBaseline = baseline?.kind === 'stream' && !streamedBaseline ? undefined : baseline;
      const baselineShown = { ...(shownBaseline ? { baseline: shownBaseline } : {}), ...(streamedBaseline ? { streamedBaseline } : {}) };
      // The errors file is rendered before the first report is written (all or nothing).
      if (argv.exportErrors && errorsFormat && values && documents) {
        const { errorsText: render } = await import('../report/errors.js');
        // A baseline whose predictions are not shown (a report.json, a JSONL export past the
        // documents listed) says so in its column rather than leaving it empty.
        const kind = baseline === undefined ? undefined : baseline.kind === 'report' || (baseline.kind === 'stream' && !streamedBaseline) ? 'report' : 'export';
        const errors = render({ report, documents: documents.records(), values, ...baselineShown }, errorsFormat, kind, argv.viewUrl);
        errorsCount = errors.count;
        errorsText = errors.text;
      }
      writtenReports = await writeReports(report, outDir, formats, {
        junit: { files: junitFiles },
        ...(values ? { values, ...(values.documentSlices ? { documentSlices: values.documentSlices } : {}) } : {}),
        ...baselineShown,
        ...(history?.length ? { history } : {}),
        ...(documents ? { documents } : {}),
        onProgress: (done, total) => progress.update({ label: 'report.html', value: done, total, detail: '', unit: 'documents' }),
      });
      progress.stop();
      values?.close();
      baselineValues?.close();
    } catch (e) {
      progress.stop();
      values?.close();
      baselineValues?.close();
      documents?.abort();
      if (made) await removeCreated(outDir, made);
      throw e;
    }
    const { renderMarkdown } = await import('../report/markdown.js');
    const { renderJson } = await import('../report/json.js');
    const written = [...(formats.includes('json') && documents ? [documents.target] : []), ...writtenReports.map((f) => f.file)];
    if (argv.history !== undefined && revision) {
      const { historyEntry, appendHistory } = await import('../history/index.js');
      written.push(await appendHistory(argv.history, historyEntry(report, { time: new Date(), ...revision, versionId: exp.header.processor.versionId })));
    }
    if (argv.exportErrors && errorsText !== undefined) {
      const { writeFileAtomic } = await import('../util/fs.js');
      await writeFileAtomic(argv.exportErrors, errorsText);
      written.push(`${argv.exportErrors} (${errorsCount} wrong outcome(s))`);
    }
    const summaryFile = process.env.GITHUB_STEP_SUMMARY;
    if (summaryFile && argv.stepSummary) {
      try {
        await fsp.appendFile(summaryFile, (writtenReports.find((f) => f.format === 'md')?.text ?? renderMarkdown(report)) + '\n');
      } catch (e) {
        err(`evalkit: warning: could not append to GITHUB_STEP_SUMMARY (${summaryFile}): ${(e as Error).message}`);
      }
    }

    for (const w of report.warnings) warn(w);
    for (const w of report.baseline?.warnings ?? []) warn(`baseline: ${w}`);
    if (output === 'json') {
      for (const w of report.slices?.warnings ?? []) warn(w);
      out(writtenReports.find((f) => f.format === 'json')?.text ?? renderJson(report));
      return report.gates.passed ? 0 : 1;
    }
    const p = report.source.processor;
    const lines: string[] = [`${report.type} ${JSON.stringify(p.name || p.id)} ${p.version}: ${report.summary.documents} documents, ${report.summary.failed} failed run(s)`];
    // Against a baseline the summary leads with the headline change (micro F1 0.953 -> 0.936).
    const change = (await import('../report/headline.js')).headlineChangeText(report);
    if (change && report.baseline) lines.push(`${change} against ${report.baseline.file} (${report.baseline.paired} paired documents)`);
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
    if (report.reconciliation || report.runs) {
      const { reconciliationLine, reconciliationsOf } = await import('../report/reconcile-md.js');
      for (const x of reconciliationsOf(report)) lines.push(reconciliationLine(x.rec, x.run));
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
    if (report.slices) {
      const s = report.slices;
      for (const g of s.groups) {
        const bad = g.slices.filter((x) => x.flagged);
        lines.push(
          `slices by ${g.key}: ${g.slices.length} slice(s)` +
            (bad.length ? `; significantly worse ${s.metric}: ${bad.map((x) => `${JSON.stringify(x.label)} ${f3(x.metrics[s.metric]?.value)} vs ${f3(x.rest)} (p Holm ${x.pHolm?.toPrecision(2)})`).join(', ')}` : '; none significantly worse'),
        );
      }
      for (const w of s.warnings) warn(w);
    }
    if (report.baseline) {
      const b = report.baseline;
      const k = b.pairing.byKey;
      const keys = (['id', 'file', 'name', 'hash'] as const).filter((x) => k[x] > 0).map((x) => `${k[x]} by ${x === 'id' ? 'item id' : x === 'file' ? 'file id' : x === 'name' ? 'file name' : 'content hash'}`);
      lines.push(`baseline ${b.file}: ${b.paired} paired of ${b.pairing.current} current, ${b.pairing.baseline} baseline${keys.length ? ` (${keys.join(', ')})` : ''}`);
      lines.push(`  ${b.tally.regressed} regressed, ${b.tally.improved} improved, ${b.tally.inconclusive} inconclusive, ${b.tally.no_change} no change, ${b.tally.not_comparable} not comparable`);
      if (b.onlyInCurrent.length) lines.push(`  unpaired in this run: ${b.onlyInCurrent.slice(0, 10).join(', ')}${b.onlyInCurrent.length > 10 ? `, ... (${b.onlyInCurrent.length} in all)` : ''}`);
      for (const k of report.gates.regressed) lines.push(`${paint('yellow', 'regressed:')} ${k}`);
    }
    // --fail-on-regression: the metrics that fell where these documents could show no regression, said beside its verdict.
    const blind = report.gates.failOnRegression && report.baseline ? unreachableRegressions(report.baseline, ALPHA) : undefined;
    if (blind) lines.push(`${paint('yellow', 'could not detect:')} ${unreachableText(blind, ALPHA)}`);
    if (report.runs) lines.push(...runsLines(report.runs));
    const fails: string[] = [];
    const fail = (line: string): void => {
      fails.push(`${paint(['red', 'bold'], 'FAIL')} ${line}`);
      lines.push(fails[fails.length - 1]);
    };
    for (const g of report.gates.results) {
      // A cost gate is judged on the run's own figure, also with --gate-on lower: said on its line.
      const point = g.on !== report.gates.gateOn ? ', the run\'s own figure: no interval' : '';
      if (g.passed) lines.push(`${paint('green', 'pass')} ${g.gate} (${isCountGate(g.metric) ? g.value : isCostMetric(g.metric) && g.value !== null ? fmtGate(g.value, g.threshold) : f3(g.value)}${point})`);
      else fail(`${g.gate}: ${g.reason ?? ''}`);
    }
    if (report.gates.failOnRegression && report.gates.regressed.length) fail(`--fail-on-regression: ${report.gates.regressed.length} significant regression(s)`);
    // --quiet: what failed, nothing on success.
    if (isQuiet()) {
      if (fails.length) out(fails.join('\n'));
      return report.gates.passed ? 0 : 1;
    }
    lines.push(`wrote ${written.join(', ')}`);
    const failedGates = report.gates.results.filter((g) => !g.passed).length;
    const regressionFailed = report.gates.failOnRegression && report.gates.regressed.length > 0;
    const total = report.gates.results.length;
    lines.push(
      total === 0 && !report.gates.failOnRegression
        ? 'no gates'
        : `${failedGates} of ${total} gate(s) failed${report.gates.failOnRegression ? (regressionFailed ? ', regression check failed' : `, no significant regression${blind ? ` (but ${blind.rows.length} metric(s) that fell could not reach significance)` : ''}`) : ''}`,
    );
    out(lines.join('\n'));
    return report.gates.passed ? 0 : 1;
  },
});

function runsLines(runs: MultiRun): string[] {
  const r0 = runs.runs[0];
  const groups = runs.repeatGroups.map((g) => `${g.label} (${g.runs.map((i) => `#${i}`).join(', ')})`);
  const lines = [`runs: ${runs.runs.length} side by side on ${runs.paired} document(s) in every run; reference #0 ${r0.file} ${r0.processor.version}${groups.length ? `; repeats: ${groups.join(', ')}` : ''}`];
  for (const c of runs.comparisons) {
    const t = c.tally;
    const r = runs.runs[c.run];
    lines.push(
      `  #${c.run} ${r.file} ${r.processor.version} vs #0: ${t.regressed} regressed, ${t.improved} improved, ${t.inconclusive} inconclusive, ${t.no_change} no change, ${t.not_comparable} not comparable` +
        (c.withinSpread.length ? ` (${c.withinSpread.length} within the run-to-run spread)` : ''),
    );
  }
  for (const w of runs.warnings) warn(`runs: ${w}`);
  return lines;
}

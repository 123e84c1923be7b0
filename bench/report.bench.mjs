// `npm run bench -- report [DOCS]`: an EXTRACT export of 50,000 documents x 25 fields (24 scalar
// fields, 2 of them fuzzy, and a 10-row line-item array of 5 fields) with realistic errors.
// Each measurement runs in a fresh Node process on the same export file, best of two: the floor
// (JSON.parse of the export text), the report without bootstrap (parse + validate + score +
// json/md/junit/html renders; files not written) and, printed separately, the report with the
// 2,000-resample bootstrap. Fresh processes keep heap conditions equal (a large parse right
// after another is markedly slower in one process). Peak memory is the report process's maxRSS.
// Last line: the ratio of report to floor (target <= 3x).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { makeExport as makeBenchExport } from './extract-export.mjs';

const dist = (m) => import(new URL(`../dist/${m}`, import.meta.url).href);

const DOCS = Number(process.argv[2] ?? 50_000);
/** One measurement in this process (run as a child): prints a JSON line with the timings. */
async function measure(mode, file) {
  const text = readFileSync(file, 'utf8');
  const out = { mode };
  if (mode === 'floor') {
    const t0 = performance.now();
    JSON.parse(text);
    out.total = performance.now() - t0;
  } else {
    const [{ parseExport }, { computeReport }, { renderJson }, { renderMarkdown }, { renderJunit }, { renderHtml }] = await Promise.all(
      ['report/load.js', 'report/build.js', 'report/json.js', 'report/markdown.js', 'report/junit.js', 'report/explorer/render.js'].map(dist),
    );
    const t = [performance.now()];
    const exp = await parseExport(text, file);
    t.push(performance.now());
    const cpu0 = process.cpuUsage();
    const report = computeReport(exp, { bootstrap: mode === 'bootstrap' ? 2000 : 0, seed: 1, sourceFile: 'bench.json' });
    t.push(performance.now());
    const cpu = process.cpuUsage(cpu0);
    // CPU time of the scoring alone: on a busy machine it moves far less than wall time.
    out.scoreCpu = (cpu.user + cpu.system) / 1000;
    const sizes = [renderJson(report), renderMarkdown(report), renderJunit(report), renderHtml(report)].map((x) => x.length);
    t.push(performance.now());
    Object.assign(out, { total: t[3] - t[0], parse: t[1] - t[0], score: t[2] - t[1], render: t[3] - t[2], json: sizes[0], md: sizes[1] });
    Object.assign(out, { microF1: report.extract.micro.f1.value, interval: report.extract.micro.f1.interval, docAccuracy: report.extract.document.accuracy.value });
  }
  out.maxRssMb = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify(out));
}

function child(mode, file) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--measure', mode, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`bench child ${mode} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

const best = (runs) => runs.reduce((a, b) => (b.total < a.total ? b : a));
const ms = (x) => `${x.toFixed(0)} ms`;

if (process.argv[2] === '--measure') {
  await measure(process.argv[3], process.argv[4]);
} else {
  const { seededRandom } = await dist('util/random.js');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-bench-report-'));
  const file = path.join(dir, 'bench.json');
  try {
    writeFileSync(file, JSON.stringify(makeBenchExport(seededRandom, DOCS)));
    console.log(`export: ${DOCS} documents, ${(statSync(file).size / 1e6).toFixed(0)} MB`);
    const floors = [];
    const reports = [];
    for (let round = 1; round <= 2; round++) {
      floors.push(child('floor', file));
      reports.push(child('report', file));
      const f = floors.at(-1);
      const r = reports.at(-1);
      console.log(`round ${round}: JSON.parse ${ms(f.total)}; report without bootstrap ${ms(r.total)} (parse+validate ${ms(r.parse)}, score ${ms(r.score)}, render ${ms(r.render)})`);
    }
    const floor = best(floors);
    const report = best(reports);
    console.log(`JSON.parse: ${ms(floor.total)} (best of 2)`);
    console.log(`report without bootstrap: ${ms(report.total)} (best of 2; report.json ${(report.json / 1e6).toFixed(1)} MB, report.md ${(report.md / 1e3).toFixed(0)} KB)`);
    console.log(`micro F1 ${report.microF1.toFixed(4)}, document accuracy ${report.docAccuracy.toFixed(4)}`);
    const boot = child('bootstrap', file);
    const bootMs = boot.score - report.score;
    const bootCpu = boot.scoreCpu - report.scoreCpu;
    console.log(
      `bootstrap: 2000 resamples: ${ms(bootMs)} on top of scoring, ${(bootMs / report.score).toFixed(2)}x the scoring time; CPU ${ms(bootCpu)}, ${(bootCpu / report.scoreCpu).toFixed(2)}x the scoring CPU (target <= 1x; report with bootstrap ${ms(boot.total)}; micro F1 interval ${JSON.stringify(boot.interval)})`,
    );
    console.log(`peak memory: maxRSS ${report.maxRssMb.toFixed(0)} MB for the report without bootstrap, ${boot.maxRssMb.toFixed(0)} MB with it (JSON.parse alone: ${floor.maxRssMb.toFixed(0)} MB)`);
    console.log(`report: ${(report.total / floor.total).toFixed(2)}x of JSON.parse floor (target <= 3x)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

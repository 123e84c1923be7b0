// Runs side by side and the history through the built CLI, on exports of the bundled invoice
// dataset: `evalkit demo` evaluates 1.0 and the draft against its embedded sandbox; a second demo
// with another engine seed gives a repeat of 1.0 (same processor, version id and config).
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const cwd = mkdtempSync(path.join(os.tmpdir(), 'evalkit-runs-e2e-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const RUNS = path.join(cwd, 'runs');
const file = (name: string) => path.join(RUNS, name);

interface RunsJson {
  runs: {
    paired: number;
    runs: Array<{ file: string; group: number | null; processor: { version: string } }>;
    repeatGroups: Array<{ label: string; runs: number[] }>;
    metrics: Array<{ key: string; values: Array<number | null>; sd: number | null; band: number | null; flipRate: number | null }>;
    comparisons: Array<{ run: number; rows: Array<{ key: string; verdict: string }> }>;
  };
}

beforeAll(async () => {
  for (const seed of [42, 43]) {
    const r = await runCli(['demo', '--only', 'invoice-extract', '--seed', String(seed), '--bootstrap', '0', '--out-dir', `demo-${seed}`], { cwd });
    expect(r.code, r.stderr).toBe(0);
  }
  mkdirSync(RUNS);
  copyFileSync(path.join(cwd, 'demo-42/invoice-extract/export-1.0.json'), file('a-1.0.json'));
  copyFileSync(path.join(cwd, 'demo-43/invoice-extract/export-1.0.json'), file('b-1.0.json'));
  copyFileSync(path.join(cwd, 'demo-42/invoice-extract/export-draft.json'), file('c-draft.json'));
}, 120_000);

const report = (args: string[], env?: NodeJS.ProcessEnv) => runCli(['report', '--bootstrap', '200', ...args], { cwd, env });

describe('evalkit report with several runs', () => {
  it('--from three times: the first is the reference, the two 1.0 runs are repeats, every run is held to their spread', async () => {
    const r = await report(['--from', file('a-1.0.json'), '--from', file('b-1.0.json'), '--from', file('c-draft.json'), '--out-dir', 'three']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('runs: 3 side by side on 12 document(s) in every run; reference #0 a-1.0.json 1.0; repeats: 1.0 (#0, #1)');
    expect(r.stdout).toMatch(/^ {2}#1 b-1\.0\.json 1\.0 vs #0: \d+ regressed, \d+ improved, \d+ inconclusive/m);
    expect(r.stdout).toMatch(/^ {2}#2 c-draft\.json draft vs #0: /m);
    const json = JSON.parse(readFileSync(path.join(cwd, 'three/report.json'), 'utf8')) as RunsJson & { source: { file: string } };
    expect(json.source.file).toBe('a-1.0.json');
    const runs = json.runs;
    expect(runs.paired).toBe(12);
    expect(runs.runs.map((x) => [x.file, x.processor.version, x.group])).toEqual([
      ['a-1.0.json', '1.0', 0],
      ['b-1.0.json', '1.0', 0],
      ['c-draft.json', 'draft', null],
    ]);
    expect(runs.repeatGroups).toEqual([{ label: '1.0', runs: [0, 1] }]);
    // The spread is the two 1.0 runs': SD |x0 − x1| / √2 and band 1.96 · |x0 − x1|.
    for (const m of runs.metrics) {
      const [x0, x1] = m.values as number[];
      expect(m.sd).toBeCloseTo(Math.abs(x0 - x1) / Math.SQRT2, 12);
      expect(m.band).toBeCloseTo(1.959963984540054 * Math.abs(x0 - x1), 12);
    }
    // A repeat against the run it repeats is never called changed: its |Δ| is within 1.96 |Δ|.
    expect(runs.comparisons[0].rows.filter((x) => x.verdict === 'improved' || x.verdict === 'regressed')).toEqual([]);
    const md = readFileSync(path.join(cwd, 'three/report.md'), 'utf8');
    expect(md).toContain('### Runs side by side: 3 runs, 12 document(s) in every run');
    expect(md).toContain('| metric | #0 `a-1.0.json` `1.0` | #1 `b-1.0.json` `1.0` | #2 `c-draft.json` `draft` | SD | flip rate | band |');
  }, 60_000);

  it('--runs DIR reads every export of the folder by name: the same report as --from in that order', async () => {
    const r = await report(['--runs', RUNS, '--out-dir', 'dir', '--formats', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const three = await report(['--from', file('a-1.0.json'), '--from', file('b-1.0.json'), '--from', file('c-draft.json'), '--out-dir', 'three-json', '--formats', 'json']);
    expect(three.code).toBe(0);
    expect(readFileSync(path.join(cwd, 'dir/report.json'), 'utf8')).toBe(readFileSync(path.join(cwd, 'three-json/report.json'), 'utf8'));
  }, 60_000);

  it('one --from: no runs section', async () => {
    const r = await report(['--from', file('c-draft.json'), '--out-dir', 'one', '--formats', 'json']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('side by side');
    expect(JSON.parse(readFileSync(path.join(cwd, 'one/report.json'), 'utf8'))).not.toHaveProperty('runs');
  });

  it('neither --from nor --runs, or a folder without exports: exit 2 and nothing written', async () => {
    const none = await report(['--out-dir', 'none']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('name the evaluation export with --from (or a folder of them with --runs)');
    mkdirSync(path.join(cwd, 'empty'));
    const empty = await report(['--runs', path.join(cwd, 'empty'), '--out-dir', 'none']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--runs .*empty: no export/);
    expect(readdirSync(cwd)).not.toContain('none');
  });
});

describe('evalkit report --history and evalkit history show', () => {
  it('each report adds one file; history show draws each metric over time and warns about a foreign file', async () => {
    const hist = path.join(cwd, 'hist');
    const sha = '0123456789abcdef0123456789abcdef01234567';
    const env = { GITHUB_SHA: sha, GITHUB_REF_NAME: 'main' };
    const first = await report(['--from', file('a-1.0.json'), '--out-dir', 'h1', '--formats', 'json', '--history', hist], env);
    expect(first.code, first.stderr).toBe(0);
    const second = await report(['--from', file('c-draft.json'), '--out-dir', 'h2', '--formats', 'json', '--history', hist, '--fail-under', 'micro.f1=0.99'], env);
    expect(second.code).toBe(1);
    const names = readdirSync(hist).sort();
    expect(names).toHaveLength(2);
    for (const n of names) expect(n).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-0123456(-2)?\.json$/);
    expect(second.stdout).toContain(path.join(hist, names.at(-1)!).replace(cwd + path.sep, ''));
    const entry = JSON.parse(readFileSync(path.join(hist, names[0]), 'utf8')) as { commit: string; branch: string; processor: { version: string; versionId?: string } };
    expect(entry).toMatchObject({ commit: sha, branch: 'main', processor: { version: '1.0' } });
    expect(entry.processor.versionId).toMatch(/^exv_/); // the extractor version the export was run on (2026-02-09, the default)

    // The explorer's History tab draws the entries already in the store; runs side by side in the overview.
    const third = await report(['--from', file('a-1.0.json'), '--from', file('c-draft.json'), '--out-dir', 'h3', '--formats', 'html', '--history', hist], env);
    expect(third.code, third.stderr).toBe(0);
    const html = readFileSync(path.join(cwd, 'h3/report.html'), 'utf8');
    expect(html).toMatch(/<section id="ek-history" role="tabpanel" hidden><section class="evalkit-history">.*2 report\(s\)/s);
    expect(html).toContain('class="evalkit-runs"');
    rmSync(path.join(hist, readdirSync(hist).sort().at(-1)!));

    writeFileSync(path.join(hist, 'README.json'), '{"not": "an entry"}');
    const show = await runCli(['history', 'show', hist], { cwd });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stderr).toMatch(/warning: .*README\.json: skipped, not an evalkit history entry/);
    const lines = show.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/hist: 2 report\(s\), .* \(0123456\) to .* \(0123456\)$/);
    expect(lines[1]).toMatch(/^metric +trend +first +last +min +max$/);
    expect(lines[2]).toMatch(/^micro\.f1 +[▁-█]{2} +0\.\d{3} +0\.\d{3}/);
    expect(lines.at(-1)).toMatch(/^gates +·✗$/);

    const json = await runCli(['history', 'show', hist, '--format', 'json', '--metric', 'field:total.f1', '--last', '1'], { cwd });
    expect(json.code).toBe(0);
    const view = JSON.parse(json.stdout) as { entries: number; metrics: Array<{ metric: string; points: Array<{ version: string; value: number }> }>; warnings: string[] };
    expect(view.entries).toBe(1);
    expect(view.metrics.map((m) => [m.metric, m.points.map((p) => p.version)])).toEqual([['field:total.f1', ['draft']]]);
    expect(view.warnings).toHaveLength(1);

    const missing = await runCli(['history', 'show', path.join(cwd, 'no-such-dir')], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no-such-dir');
  }, 90_000);
});

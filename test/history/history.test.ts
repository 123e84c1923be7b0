// The history folder (src/history/): entries from reports, one file per report written atomically,
// reading past corrupt or foreign files, the series per metric and their sparklines.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { appendHistory, detectRevision, historyEntry, historySeries, readHistory, renderHistoryHtml, renderHistoryText, sparkline, type HistoryEntry } from '../../src/history/index.js';
import { computeReport } from '../../src/report/index.js';
import { extractExport } from '../metrics/helpers.js';
import { runCli } from '../helpers/cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'evalkit-history-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { name: { type: 'string' }, total: { type: 'number' } } } };
function reportWith(right: number) {
  const docs = Array.from({ length: 4 }, (_, i) => ({ e: { name: `N${i}`, total: i }, p: { name: i < right ? `N${i}` : 'x', total: i } }));
  return computeReport(extractExport(cfg, docs), { bootstrap: 0, gates: ['micro.f1=0.9'], sourceFile: 'run.json' });
}
const at = (iso: string) => ({ time: new Date(iso), commit: null, branch: null });

describe('historyEntry', () => {
  it('keeps the headline metrics, the per-field F1 and the gates, by the names --fail-under uses', () => {
    const e = historyEntry(reportWith(2), { time: new Date('2026-01-02T03:04:05.678Z'), commit: 'abcdef0123456789', branch: 'main', versionId: 'dpv_1' });
    expect(e).toMatchObject({ format: 'evalkit-history/1', time: '2026-01-02T03:04:05.678Z', commit: 'abcdef0123456789', branch: 'main', source: 'run.json', type: 'EXTRACT', documents: 4, failed: 0 });
    expect(e.processor).toEqual({ id: 'dp_test', name: 'Test', version: '1.0', versionId: 'dpv_1' });
    // name right in 2 of 4 (FD otherwise): F1 0.5; total right in all: 1; micro: 6 TP, 2 FD -> 12 / 16.
    expect(e.fields).toEqual({ 'field:name.f1': 0.5, 'field:total.f1': 1 });
    expect(e.headline['micro.f1']).toBe(0.75);
    expect(e.headline['document.accuracy']).toBe(0.5);
    expect(e.headline['failed.rate']).toBe(0);
    expect(e.gates).toEqual({ passed: false, results: [{ gate: 'micro.f1=0.9', passed: false, value: 0.75 }] });
  });
});

describe('the history folder', () => {
  it('writes one file per report, named by time and commit, never replacing one', async () => {
    const dir = path.join(tmp(), 'hist');
    const e = historyEntry(reportWith(3), { time: new Date('2026-01-02T03:04:05.678Z'), commit: 'abcdef0123456789', branch: null });
    const a = await appendHistory(dir, e);
    const b = await appendHistory(dir, e);
    expect(path.basename(a)).toBe('2026-01-02T03-04-05.678Z-abcdef0.json');
    expect(path.basename(b)).toBe('2026-01-02T03-04-05.678Z-abcdef0-2.json');
    expect(readdirSync(dir).sort()).toEqual([path.basename(a), path.basename(b)].sort());
    expect((await readHistory(dir)).entries.map((x) => x.file)).toEqual([path.basename(a), path.basename(b)]);
    expect(JSON.parse(readFileSync(a, 'utf8'))).toEqual(e);
    // Without a commit: the export's run id, else `local`.
    const c = await appendHistory(dir, { ...e, commit: null, runId: 'bpr_x/y' });
    expect(path.basename(c)).toBe('2026-01-02T03-04-05.678Z-bpr_x_y.json');
  });

  it('reads the entries oldest first; a corrupt or foreign file is a warning naming it', async () => {
    const dir = tmp();
    await appendHistory(dir, historyEntry(reportWith(4), at('2026-01-03T00:00:00.000Z')));
    await appendHistory(dir, historyEntry(reportWith(2), at('2026-01-01T00:00:00.000Z')));
    writeFileSync(path.join(dir, 'broken.json'), '{"format": ');
    writeFileSync(path.join(dir, 'other.json'), '{"format": "something-else/1"}');
    writeFileSync(path.join(dir, 'notes.txt'), 'hello');
    writeFileSync(path.join(dir, '.evalkit-tmp-x.json.1.abcdef01'), 'half');
    mkdirSync(path.join(dir, 'sub'));
    const h = await readHistory(dir);
    expect(h.entries.map((e) => e.entry.time)).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-03T00:00:00.000Z']);
    expect(h.warnings).toHaveLength(4);
    expect(h.warnings[0]).toMatch(/broken\.json: skipped, not JSON/);
    expect(h.warnings[1]).toMatch(/notes\.txt: skipped, not a history entry \(not \.json\)/);
    expect(h.warnings[2]).toMatch(/other\.json: skipped, not an evalkit history entry/);
    expect(h.warnings[3]).toMatch(/sub: skipped, not a file/);
  });

  it('a missing folder is an input error naming it', async () => {
    await expect(readHistory(path.join(tmp(), 'nope'))).rejects.toThrow(/cannot read the history folder .*nope/);
  });
});

describe('historySeries and the text', () => {
  const entries = [2, 3, 4, 1].map((right, i) => ({ file: `${i}.json`, entry: historyEntry(reportWith(right), at(`2026-01-0${i + 1}T00:00:00.000Z`)) as HistoryEntry }));

  it('the headline metrics by default, in reading order; patterns and --last pick others', () => {
    const v = historySeries(entries);
    expect(v.entries).toBe(4);
    expect(v.metrics.map((m) => m.metric)).toEqual(['micro.f1', 'micro.precision', 'micro.recall', 'micro.accuracy', 'macro.f1', 'document.accuracy', 'failed.rate']);
    const doc = v.metrics.find((m) => m.metric === 'document.accuracy')!;
    expect(doc.points.map((p) => p.value)).toEqual([0.5, 0.75, 1, 0.25]);
    expect([doc.first, doc.last, doc.min, doc.max]).toEqual([0.5, 0.25, 0.25, 1]);
    const f = historySeries(entries, { metrics: ['field:*.f1'], last: 2 });
    expect(f.metrics.map((m) => [m.metric, m.points.map((p) => p.value)])).toEqual([
      ['field:name.f1', [1, 0.25]],
      ['field:total.f1', [1, 1]],
    ]);
    expect(f.gates.map((g) => g.passed)).toEqual([true, false]);
  });

  it('an unknown metric or a bad --last is a usage error', () => {
    expect(() => historySeries(entries, { metrics: ['nope'] })).toThrow(/--metric nope: no report in the history has it/);
    expect(() => historySeries(entries, { last: 0 })).toThrow(/--last 0/);
  });

  it('sparklines run from ▁ at the minimum to █ at the maximum', () => {
    // (v − min) / (max − min) · 7, rounded: 0.5 of the range is 3.5 -> 4 (▅).
    expect(sparkline([0, 0.5, 1, null])).toBe('▁▅█ ');
    expect(sparkline([0.3, 0.3])).toBe('▄▄');
    expect(sparkline([null])).toBe(' ');
  });

  it('the text: one line per metric with its trend, and the gates', () => {
    const text = renderHistoryText(historySeries(entries, { metrics: ['document.accuracy'] }), 'hist');
    expect(text.split('\n')).toEqual([
      'hist: 4 report(s), 2026-01-01T00:00:00.000Z to 2026-01-04T00:00:00.000Z',
      'metric             trend    first     last      min      max',
      'document.accuracy  ▃▆█▁     0.500    0.250    0.250    1.000',
      'gates              ✗✗✓✗',
    ]);
    expect(renderHistoryText(historySeries([]), 'hist')).toMatch(/no history entries yet/);
  });

  it('a field name with control characters: shown escaped, and the columns padded by the escaped text', () => {
    const odd = entries.map((e) => ({ ...e, entry: { ...e.entry, fields: { ...e.entry.fields, 'field:to\x1b[2Jtal.f1': 0.5 } } }));
    const lines = renderHistoryText(historySeries(odd, { metrics: ['field:to*', 'document.accuracy'] }), 'hist').split('\n');
    expect(lines[2]).toBe('field:to\\x1b[2Jtal.f1  ▄▄▄▄     0.500    0.500    0.500    0.500');
    // Every column starts where the header's does.
    for (const l of lines.slice(2, 4)) expect(l.search(/[▁-█]/)).toBe(lines[1].indexOf('trend'));
    expect(lines.join('\n')).not.toContain('\x1b');
  });

  it('history show: --last echoes what was typed; an empty --metric is exit 2, not the headline', async () => {
    const dir = tmp();
    for (const e of entries) await appendHistory(dir, e.entry);
    const abc = await runCli(['history', 'show', dir, '--last', 'abc']);
    expect(abc.code).toBe(2);
    expect(abc.stderr).toContain('--last "abc": expected a whole number of reports, 1 or more');
    expect(abc.stderr).not.toContain('NaN');
    expect((await runCli(['history', 'show', dir, '--last', '2.5'])).stderr).toContain('--last "2.5": expected a whole number');
    for (const m of ['', ' ', ',']) {
      const r = await runCli(['history', 'show', dir, '-m', m]);
      expect(r.code, JSON.stringify(m)).toBe(2);
      expect(r.stderr).toContain(`--metric ${JSON.stringify(m)}: empty metric pattern`);
      expect(r.stdout).toBe('');
    }
    const ok = await runCli(['history', 'show', dir, '--last', '2', '-m', 'micro.f1,']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(': 2 report(s)');
  });

  it('past 60 reports the trend shows the last 60 (scaled to them) and says so; first, last, min and max stay those of every report', () => {
    // 200 reports: document accuracy 0.25 in the first 140, then 1, 0.5 and 0.75 in turn; no gates from report 150 on.
    const many = Array.from({ length: 200 }, (_, i) => {
      const right = i < 140 ? 1 : 2 + (i % 3);
      const entry = historyEntry(reportWith(right), at(new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString())) as HistoryEntry;
      return { file: `${i}.json`, entry: i < 150 ? entry : { ...entry, gates: { ...entry.gates, passed: true, results: [] } } };
    });
    const lines = renderHistoryText(historySeries(many, { metrics: ['document.accuracy'] }), 'hist').split('\n');
    expect(lines[1]).toBe(`metric             ${'trend (last 60)'.padEnd(60)}    first     last      min      max`);
    const [, trend, ...figures] = /^document\.accuracy {2}(\S{60})\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$/u.exec(lines[2])!;
    // Reports 140-199: i % 3 is 2, 0, 1 from 140 on, so 1 (█), 0.5 (▁), 0.75 (▅) in turn.
    expect(trend).toBe('█▁▅'.repeat(20));
    expect(figures).toEqual(['0.250', '0.750', '0.250', '1.000']);
    // Gates: reports 140-149 pass theirs only when all right (i % 3 = 2), 150-199 have none.
    expect(lines[3]).toBe(`gates              ✓✗✗✓✗✗✓✗✗✓${'·'.repeat(50)}`);
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThan(120);
  });

  it('min and max of more values than a spread takes', () => {
    const values = Array.from({ length: 300_000 }, (_, i) => (i === 7 ? -1 : i === 9 ? 2 : 0.5));
    expect(sparkline(values).length).toBe(300_000);
    const many = values.slice(0, 150_000).map((v, i) => ({ file: `${i}.json`, entry: { ...entries[0].entry, headline: { 'micro.f1': v } } as HistoryEntry }));
    const m = historySeries(many, { metrics: ['micro.f1'] }).metrics[0];
    expect([m.min, m.max]).toEqual([-1, 2]);
  });

  it('the HTML fragment: a line per metric, a dot per report, escaped, no script or event handler', () => {
    const odd = entries.map((e, i) => (i === 1 ? { ...e, entry: { ...e.entry, branch: '<img src=x onerror=alert(1)>' } } : e));
    const html = renderHistoryHtml(historySeries(odd, { metrics: ['document.accuracy', 'field:name.f1'] }));
    expect(html.startsWith('<section class="evalkit-history">')).toBe(true);
    expect(html.endsWith('</section>')).toBe(true);
    expect(html.match(/<polyline /g)).toHaveLength(2);
    expect(html.match(/<circle class="dot"/g)).toHaveLength(8);
    expect(html.match(/<circle class="(pass|fail)"/g)).toHaveLength(4);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toMatch(/<script|<img|<[^>]*\son[a-z]+=/i);
    // document.accuracy 0.5, 0.75, 1, 0.25: the highest at the top (y 4), the lowest at the bottom (y 32).
    expect(html).toContain('points="4,22.7 81.3,13.3 158.7,4 236,32"');
  });
});

describe('detectRevision', () => {
  it('reads GitHub Actions variables; a pull request names its head branch', async () => {
    const sha = 'a'.repeat(40);
    expect(await detectRevision({ GITHUB_SHA: sha, GITHUB_REF_NAME: '12/merge', GITHUB_HEAD_REF: 'feature' }, tmp())).toEqual({ commit: sha, branch: 'feature' });
    expect(await detectRevision({ GITHUB_SHA: sha, GITHUB_REF_NAME: 'main' }, tmp())).toEqual({ commit: sha, branch: 'main' });
  });

  it('asks git in a repository, and gives nulls outside one', async () => {
    const repo = tmp();
    const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
    if (git('init', '-q', '-b', 'trunk').status !== 0) return; // no git on this machine
    git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'x');
    const head = git('rev-parse', 'HEAD').stdout.trim();
    expect(await detectRevision({}, repo)).toEqual({ commit: head, branch: 'trunk' });
    expect(await detectRevision({}, tmp())).toEqual({ commit: null, branch: null });
  });
});

describe('schemas/history-entry.schema.json', () => {
  it('is valid against the 2020-12 meta-schema and compiles in strict mode', () => {
    const ajv = new Ajv2020({ strict: true, validateSchema: true });
    const schema = JSON.parse(readFileSync(path.join(ROOT, 'schemas/history-entry.schema.json'), 'utf8')) as object;
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
    expect(ajv.compile(schema)(historyEntry(reportWith(1), at('2026-01-01T00:00:00.000Z')))).toBe(true);
  });

  it('the generated TS types are up to date (run npm run gen:types)', () => {
    const r = spawnSync(process.execPath, ['scripts/gen-types.mjs', '--check', 'src/history/generated/history-entry.ts'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

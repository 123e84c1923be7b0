// `evalkit report` through the built CLI: files written, gates and exit codes, input errors,
// $GITHUB_STEP_SUMMARY, and no network at all.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, ROOT } from '../helpers/cli.js';
import { extractExport } from '../metrics/helpers.js';

const FIX = path.join(ROOT, 'test/fixtures/report');
const EXPORT = path.join(FIX, 'extract-export.json');
const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'evalkit-report-e2e-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const report = (args: string[], env?: NodeJS.ProcessEnv) => runCli(['report', '--bootstrap', '200', ...args], { env });

describe('evalkit report: outputs', () => {
  it('writes json, md, html and junit; report.json is byte-identical to the golden file', async () => {
    const out = tmp();
    const r = await report(['--from', EXPORT, '--out-dir', out]);
    expect(r.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['documents.jsonl', 'report.html', 'report.json', 'report.junit.xml', 'report.md']);
    expect(readFileSync(path.join(out, 'report.json'), 'utf8')).toBe(readFileSync(path.join(FIX, 'golden/extract/report.json'), 'utf8'));
    expect(readFileSync(path.join(out, 'report.md'), 'utf8')).toBe(readFileSync(path.join(FIX, 'golden/extract/report.md'), 'utf8'));
    expect(r.stdout).toContain('micro F1 0.821 · precision 0.899 · recall 0.756 · macro F1 0.825 · document accuracy 0.500');
    expect(r.stdout.trim().split('\n').at(-1)).toBe('no gates');
  });

  it('reads a JSONL export and writes only the formats asked for', async () => {
    const out = tmp();
    // The golden classify case gates accuracy=0.6 on the lower bound (0.306): exit 1.
    const r = await report(['--from', path.join(FIX, 'classify-export.jsonl'), '--out-dir', out, '--formats', 'md,junit', '--fail-under', 'accuracy=0.6', '--gate-on', 'lower']);
    expect(r.code).toBe(1);
    expect(readdirSync(out).sort()).toEqual(['report.junit.xml', 'report.md']);
    expect(readFileSync(path.join(out, 'report.junit.xml'), 'utf8')).toBe(readFileSync(path.join(FIX, 'golden/classify/report.junit.xml'), 'utf8'));
  });

  it('--format json prints the report itself on stdout, the same bytes as report.json, and still writes the files', async () => {
    const out = tmp();
    const r = await report(['--from', EXPORT, '--out-dir', out, '--format', 'json', '--formats', 'json,md']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(readdirSync(out).sort()).toEqual(['documents.jsonl', 'report.json', 'report.md']);
  });

  it('the same seed gives the same bytes, another seed other bytes', async () => {
    const [a, b, c] = [tmp(), tmp(), tmp()];
    await report(['--from', EXPORT, '--out-dir', a, '--formats', 'json', '--seed', '5']);
    await report(['--from', EXPORT, '--out-dir', b, '--formats', 'json', '--seed', '5']);
    await report(['--from', EXPORT, '--out-dir', c, '--formats', 'json', '--seed', '6']);
    const read = (d: string) => readFileSync(path.join(d, 'report.json'), 'utf8');
    expect(read(b)).toBe(read(a));
    expect(read(c).replace('"seed": 6', '"seed": 5')).not.toBe(read(a));
  });

  it('appends the Markdown to $GITHUB_STEP_SUMMARY when it is set', async () => {
    const out = tmp();
    const summary = path.join(out, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const r = await report(['--from', EXPORT, '--out-dir', out, '--formats', 'json'], { GITHUB_STEP_SUMMARY: summary });
    expect(r.code).toBe(0);
    const text = readFileSync(summary, 'utf8');
    expect(text.startsWith('# earlier step\n## evalkit report: `Invoices` `1.1` (EXTRACT)')).toBe(true);
    expect(text).toBe('# earlier step\n' + readFileSync(path.join(FIX, 'golden/extract/report.md'), 'utf8') + '\n');
  });

  it('needs no network: every socket, DNS lookup and fetch refused', async () => {
    const out = tmp();
    const block = path.join(out, 'no-network.cjs');
    writeFileSync(
      block,
      `const net = require('node:net'); const dns = require('node:dns');
       const refuse = () => { throw new Error('network access attempted'); };
       net.Socket.prototype.connect = refuse; net.connect = net.createConnection = refuse;
       dns.lookup = refuse; dns.promises.lookup = refuse; globalThis.fetch = refuse;`,
    );
    const r = await report(['--from', EXPORT, '--baseline', path.join(FIX, 'extract-baseline.json'), '--out-dir', out], {
      NODE_OPTIONS: `--require ${block}`,
      EVALKIT_BASE_URL: 'http://192.0.2.1:9',
      EVALKIT_API_TOKEN: 'unused',
    });
    expect(r.stderr).not.toContain('network access attempted');
    expect(r.code).toBe(0);
    expect(existsSync(path.join(out, 'report.html'))).toBe(true);
  });
});

describe('evalkit report: gates and exit codes', () => {
  // The fixture: micro F1 0.821 (bootstrap lower bound 0.575), total recall 0.667, micro accuracy 0.728.
  const gate = async (...gates: string[]) => report(['--from', EXPORT, '--out-dir', tmp(), '--formats', 'json', ...gates.flatMap((g) => ['--fail-under', g])]);

  it.each([
    ['micro.f1=0.8', 0, 'pass micro.f1=0.8 (0.821)'],
    ['micro.f1=0.9', 1, 'FAIL micro.f1=0.9: 0.821 is below 0.9'],
    ['field:total.recall=0.6', 0, 'pass field:total.recall=0.6 (0.667)'],
    ['field:total.recall=0.95', 1, 'FAIL field:total.recall=0.95: 0.667 is below 0.95'],
    ['accuracy=0.7', 0, 'pass accuracy=0.7 (0.728)'],
    ['accuracy=0.8', 1, 'FAIL accuracy=0.8: 0.728 is below 0.8'],
  ])('--fail-under %s -> exit %i', async (g, code, line) => {
    const r = await gate(g);
    expect(r.code).toBe(code);
    expect(r.stdout.split('\n')).toContain(line);
    expect(r.stdout).toContain(`${code} of 1 gate(s) failed`);
  });

  it('several gates: the output names the failing one', async () => {
    const r = await gate('micro.f1=0.8', 'field:total.recall=0.95,accuracy=0.7');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL field:total\.recall=0\.95: /m);
    expect(r.stdout).toContain('1 of 3 gate(s) failed');
  });

  it('--gate-on lower gates on the lower bound of the interval', async () => {
    const r = await report(['--from', EXPORT, '--out-dir', tmp(), '--formats', 'junit', '--fail-under', 'micro.f1=0.8', '--gate-on', 'lower']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL micro\.f1=0\.8: lower bound 0\.5\d+ is below 0\.8$/m);
  });

  it('--fail-on-regression: exit 1 on a significant regression, 0 within noise', async () => {
    const dir = tmp();
    const cfg = { type: 'EXTRACT', schema: { type: 'object', properties: { name: { type: 'string' } } } };
    const docs = (right: number) => Array.from({ length: 60 }, (_, i) => ({ e: { name: `N${i}` }, p: { name: i < right ? `N${i}` : 'x' } }));
    writeFileSync(path.join(dir, 'good.json'), JSON.stringify(extractExport(cfg, docs(58))));
    writeFileSync(path.join(dir, 'worse.json'), JSON.stringify(extractExport(cfg, docs(30))));
    writeFileSync(path.join(dir, 'same.json'), JSON.stringify(extractExport(cfg, docs(57))));
    const worse = await report(['--from', path.join(dir, 'worse.json'), '--baseline', path.join(dir, 'good.json'), '--fail-on-regression', '--out-dir', path.join(dir, 'a')]);
    expect(worse.code).toBe(1);
    expect(worse.stdout).toContain('regressed: field:name.f1');
    // F1 of the field and every aggregate: micro precision, recall, F1, accuracy, macro F1, document accuracy.
    expect(worse.stdout).toContain('FAIL --fail-on-regression: 7 significant regression(s)');
    const junit = readFileSync(path.join(dir, 'a/report.junit.xml'), 'utf8');
    expect(junit).toMatch(/<testcase classname="[^"]+" name="\[[^\]]+\] regression field:name\.f1" time="0\.000">\n {6}<failure message="field:name\.f1 regressed: 0\.967 -&gt; 0\.500/);
    const same = await report(['--from', path.join(dir, 'same.json'), '--baseline', path.join(dir, 'good.json'), '--fail-on-regression', '--out-dir', path.join(dir, 'b')]);
    expect(same.code).toBe(0);
    // --fail-on-regression adds the pairing gate: all 60 documents paired.
    expect(same.stdout).toContain('pass baseline.paired>=54 (60)');
    expect(same.stdout).toContain('0 of 1 gate(s) failed, no significant regression');
  });

  it('a gate never passes on nothing: runs that share no field fail --fail-on-regression; a report that scores no field fails every quality gate', async () => {
    const dir = tmp();
    const config = (field: string) => ({ type: 'EXTRACT', schema: { type: 'object', properties: { [field]: { type: 'string' } } } });
    const docs = (field: string) => Array.from({ length: 40 }, (_, i) => ({ e: { [field]: `N${i}` }, p: { [field]: `N${i}` } }));
    writeFileSync(path.join(dir, 'a.json'), JSON.stringify(extractExport(config('name'), docs('name'))));
    writeFileSync(path.join(dir, 'b.json'), JSON.stringify(extractExport(config('vendor'), docs('vendor'))));
    const disjoint = await report(['--from', path.join(dir, 'a.json'), '--baseline', path.join(dir, 'b.json'), '--fail-on-regression', '--out-dir', path.join(dir, 'o1'), '--format', 'json']);
    expect(disjoint.code).toBe(1);
    const r1 = JSON.parse(disjoint.stdout) as { baseline: { rows: Array<{ verdict: string }> }; gates: { passed: boolean; results: Array<{ gate: string; passed: boolean; reason?: string }> } };
    // Document accuracy too: each run would be weighed on its own field.
    expect(new Set(r1.baseline.rows.map((r) => r.verdict))).toEqual(new Set(['not_comparable']));
    expect(r1.gates.results).toContainEqual(expect.objectContaining({ gate: 'baseline.compared>=1', passed: false, reason: expect.stringContaining('the runs share no field') }));
    expect(disjoint.stderr).toContain('the runs share no field: nothing is compared and --fail-on-regression fails');
    // Counts print as counts in every render.
    expect(readFileSync(path.join(dir, 'o1/report.md'), 'utf8')).toContain('| `baseline.compared>=1` | 0 | point |');
    expect(readFileSync(path.join(dir, 'o1/report.md'), 'utf8')).toContain('| `baseline.paired>=36` | 40 | point |');
    // The same runs with a field in common pass (nothing regressed).
    writeFileSync(path.join(dir, 'c.json'), JSON.stringify(extractExport(config('name'), docs('name'))));
    const shared = await report(['--from', path.join(dir, 'a.json'), '--baseline', path.join(dir, 'c.json'), '--fail-on-regression', '--out-dir', path.join(dir, 'o2')]);
    expect(shared.code).toBe(0);
    expect(shared.stdout).not.toContain('baseline.compared');

    const fields = ['name', 'total'];
    const both = { type: 'EXTRACT', schema: { type: 'object', properties: { name: { type: 'string' }, total: { type: 'number' } } } };
    const rows = Array.from({ length: 20 }, (_, i) => ({ e: { name: `N${i}`, total: i }, p: { name: `N${i}`, total: i } }));
    writeFileSync(path.join(dir, 'excluded.json'), JSON.stringify(extractExport(both, rows, { excludeFields: fields })));
    const none = await report(['--from', path.join(dir, 'excluded.json'), '--fail-under', 'document.accuracy=0.5', '--out-dir', path.join(dir, 'o3')]);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('FAIL document.accuracy=0.5: no field is scored');
    writeFileSync(path.join(dir, 'kept.json'), JSON.stringify(extractExport(both, rows, { excludeFields: ['total'] })));
    expect((await report(['--from', path.join(dir, 'kept.json'), '--fail-under', 'document.accuracy=0.5', '--out-dir', path.join(dir, 'o4')])).code).toBe(0);
  });
});

describe('evalkit report: usage and input errors exit 2 and write nothing', () => {
  const fails = async (args: string[], message: RegExp) => {
    const out = path.join(tmp(), 'out');
    const r = await runCli(['report', ...args, '--out-dir', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(out)).toBe(false);
    return r;
  };

  it.each([
    ['no "="', ['--fail-under', 'micro.f1'], /--fail-under "micro\.f1": expected METRIC>=N, METRIC<=N or METRIC=N \(the same as >=\)\n {2}hint: for example 'micro\.f1>=0\.9'/],
    ['not a number', ['--fail-under', 'micro.f1=high'], /--fail-under "micro\.f1=high": expected METRIC>=N/],
    ['a percentage', ['--fail-under', 'micro.f1=90'], /--fail-under "micro\.f1=90": the threshold must be between 0 and 1\n {2}hint: .*write micro\.f1=0\.9/],
    ['an unknown metric', ['--fail-under', 'f2=0.5'], /--fail-under: no metric "f2" in this EXTRACT report\n {2}hint: choose one of: micro\.precision, .*field:PATH/],
    ['an unknown metric in --gate', ['--gate', 'f2>=0.5'], /--gate: no metric "f2" in this EXTRACT report/],
    ['an unknown field', ['--fail-under', 'field:totl.recall=0.9'], /no metric "field:totl\.recall".*\n {2}hint: field:NAME\.METRIC with NAME one of amount_due, .*total/],
  ])('bad gate: %s', async (_, args, message) => {
    await fails(['--from', EXPORT, ...args], message);
  });

  it('--fail-on-regression without --baseline', async () => {
    await fails(['--from', EXPORT, '--fail-on-regression'], /--fail-on-regression needs --baseline/);
  });

  it('an unknown format', async () => {
    await fails(['--from', EXPORT, '--formats', 'json,pdf'], /--formats: unknown report format "pdf"/);
  });

  it.each([['md,junit'], ['junit'], ['json,md'], ['html']])('the old spelling --format %s fails and names --formats', async (list) => {
    const r = await fails(['--from', EXPORT, '--format', list], /the report files are now chosen by --formats/);
    expect(r.stderr).toContain(`hint: write --formats ${list}`);
  });

  it('--format yaml is no output format', async () => {
    await fails(['--from', EXPORT, '--format', 'yaml'], /--format "yaml" is not an output format\n {2}hint: choose text or json/);
  });

  it('a missing export', async () => {
    await fails(['--from', 'no/such/export.json'], /no\/such\/export\.json: cannot read no\/such\/export\.json: no such file/);
  });

  it('JSON syntax: file, line and column', async () => {
    const f = path.join(tmp(), 'broken.json');
    writeFileSync(f, '{\n  "format": "evalkit-export/1",\n  "items": [\n}\n');
    await fails(['--from', f], new RegExp(`${f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:4:1: invalid JSON`));
  });

  it('a duplicate item id names the export it is in (with a baseline, or several runs, it could be any of them)', async () => {
    const dir = tmp();
    const { items, ...header } = JSON.parse(readFileSync(EXPORT, 'utf8')) as { items: unknown[] };
    writeFileSync(path.join(dir, 'dup.jsonl'), [header, ...items, items[2]].map((x) => JSON.stringify(x)).join('\n') + '\n');
    await fails(['--from', path.join(dir, 'dup.jsonl')], /dup\.jsonl at \/items\/\d+\/id: duplicate item id/);
    await fails(['--from', EXPORT, '--baseline', path.join(dir, 'dup.jsonl')], /dup\.jsonl at \/items\/\d+\/id: duplicate item id/);
  });

  it('a duration or credits past 1e15 (a broken timestamp; their sums would overflow) is an input error, not an internal one', async () => {
    const exp = JSON.parse(readFileSync(EXPORT, 'utf8')) as { items: Array<{ durationMs?: number; credits?: number }> };
    exp.items[0].durationMs = 1e308;
    exp.items[1].durationMs = 1e308;
    const f = path.join(tmp(), 'huge-duration.json');
    writeFileSync(f, JSON.stringify(exp));
    const r = await fails(['--from', f], /at \/items\/0\/durationMs: not a valid evaluation export: must be <= 1000000000000000/);
    expect(r.stderr).not.toContain('internal error');
  });

  it('schema: file, line and JSON pointer', async () => {
    const exp = JSON.parse(readFileSync(EXPORT, 'utf8')) as { items: Array<{ status: string }> };
    exp.items[2].status = 'DONE';
    const f = path.join(tmp(), 'bad-status.json');
    const text = JSON.stringify(exp, null, 2);
    writeFileSync(f, text);
    const line = text.slice(0, text.indexOf('"DONE"')).split('\n').length;
    await fails(['--from', f], new RegExp(`bad-status\\.json:${line}:\\d+ at /items/2/status: not a valid evaluation export: must be equal to one of the allowed values`));
  });

  it('JSONL: the line of the bad item', async () => {
    const lines = readFileSync(path.join(FIX, 'classify-export.jsonl'), 'utf8').split('\n');
    lines[3] = '{"id":"x","fileId":"f","expectedOutput":{},"output":null}';
    const f = path.join(tmp(), 'bad.jsonl');
    writeFileSync(f, lines.join('\n'));
    await fails(['--from', f], /bad\.jsonl:4 at \/items\/2: not a valid export item: missing member "status"/);
  });

  it('a baseline of another processor type', async () => {
    await fails(['--from', EXPORT, '--baseline', path.join(FIX, 'splitter-export.json')], /splitter-export\.json: the baseline is a SPLITTER evaluation but this export is EXTRACT/);
  });

  it('prints help with examples', async () => {
    const r = await runCli(['report', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain('evalkit report --from exports/invoices.json');
  });
});

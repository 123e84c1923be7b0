import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { escapeControls, warn } from '../../src/cli/io.js';
import { BIN, cleanupAfterEach, ROOT, runCli } from '../helpers/cli.js';

const { tmp, track } = cleanupAfterEach('cliout');

describe('user strings on stderr', () => {
  it('escape terminal control characters (a file name that sets the title and rings the bell)', async () => {
    const dir = tmp();
    const name = 'bad\u001b]0;pwned\u0007\u009b31m.json';
    writeFileSync(path.join(dir, name), '{"a": ');
    const r = await runCli(['migrate', path.join(dir, name)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bad\\x1b]0;pwned\\x07\\x9b31m.json');
    // eslint-disable-next-line no-control-regex
    expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it.each([
    ['\u001b[2J', '\\x1b[2J'],
    ['a\rb', 'a\\x0db'],
    ['tab\tand\nline', 'tab\tand\nline'],
    ['\u202eevil', '\\u202eevil'],
    ['März 請求書 🧾', 'März 請求書 🧾'],
  ])('escapeControls(%j)', (given, want) => {
    expect(escapeControls(given)).toBe(want);
  });
});

describe('warn', () => {
  it('prints a warning on one line: a line break inside a user string is shown, not printed', () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (written.push(String(s)), true));
    try {
      warn('classificationMetrics.inv\noice\r\nx is not given');
      warn('a note', 'evalkit view');
    } finally {
      spy.mockRestore();
    }
    expect(written).toEqual(['evalkit: warning: classificationMetrics.inv\\x0aoice\\x0d\\x0ax is not given\n', 'evalkit view: warning: a note\n']);
  });
});

describe('API token', () => {
  it('with a line break is a usage error at once (exit 2), not a network error retried', async () => {
    const r = await runCli(['eval', 'export', '--batch-run', 'bpr_1'], { env: { EVALKIT_BASE_URL: 'http://127.0.0.1:9', EVALKIT_API_TOKEN: 'tok-secret\nmore' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the API token contains a line break');
    expect(r.stderr).not.toContain('network');
    expect(r.stderr).not.toContain('tok-secret');
  });
});

describe('a closed stdout', () => {
  it('ends `migrate DIR | head -1` quietly with exit 0', async () => {
    const dir = tmp();
    const configs = path.join(dir, 'configs');
    mkdirSync(configs);
    for (let i = 0; i < 400; i++) writeFileSync(path.join(configs, `c${i}.json`), JSON.stringify({ type: 'EXTRACT', customExtractionRules: `rule ${i} `.repeat(40), schema: { type: 'object' } }, null, 2));
    const child = track(spawn(process.execPath, [BIN, 'migrate', configs], { stdio: ['ignore', 'pipe', 'pipe'] }));
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // Like head -1: read the first chunk, then close the pipe.
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    child.stdout!.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).not.toMatch(/EPIPE|Error|at /);
    expect(code).toBe(0);
  });
});

describe('dataset upload --dry-run', () => {
  it('with --config alone validates offline: no set, no processor needed', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'a.txt'), 'hello');
    writeFileSync(path.join(dir, 'data.csv'), 'file,total\na.txt,12\n');
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ type: 'EXTRACT', schema: { type: 'object', properties: { total: { type: 'number' } } } }));
    const r = await runCli(['dataset', 'upload', path.join(dir, 'data.csv'), '--config', path.join(dir, 'config.json'), '--dry-run'], { env: { EVALKIT_BASE_URL: '' } });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('1 create');
    expect(r.code).toBe(0);
    const upload = await runCli(['dataset', 'upload', path.join(dir, 'data.csv'), '--config', path.join(dir, 'config.json')], { env: { EVALKIT_BASE_URL: '' } });
    expect(upload.code).toBe(2);
    expect(upload.stderr).toContain('name the target set');
  });

  it('a lone 1.234 is refused as ambiguous until --decimal-comma or --no-decimal-comma says which mark the data uses; 1e400 is refused', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'a.txt'), 'hello');
    writeFileSync(path.join(dir, 'data.csv'), 'file,total\na.txt,1.234\n');
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ type: 'EXTRACT', schema: { type: 'object', properties: { total: { type: 'number' } } } }));
    const run = (...flags: string[]) => runCli(['dataset', 'upload', path.join(dir, 'data.csv'), '--config', path.join(dir, 'config.json'), '--dry-run', ...flags], { env: { EVALKIT_BASE_URL: '' } });
    const neither = await run();
    expect(neither.code).toBe(2);
    expect(neither.stdout + neither.stderr).toContain('"1.234" could be 1.234 or 1234');
    expect(neither.stdout + neither.stderr).toContain('--no-decimal-comma');
    for (const flag of ['--no-decimal-comma', '--decimal-comma']) {
      const r = await run(flag);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('1 create');
    }
    writeFileSync(path.join(dir, 'data.csv'), 'file,total\na.txt,1e400\n');
    const huge = await run();
    expect(huge.code).toBe(2);
    expect(huge.stdout + huge.stderr).toContain('"1e400" is too large for a JSON number');
  });
});

describe('a path in the way', () => {
  const fixture = path.join(ROOT, 'test/fixtures/report/extract-export.json');

  it('report: an output whose place is taken (a file for --out-dir or --history, a folder for a report file or --export-errors) is refused before anything is written', async () => {
    const dir = tmp();
    const file = path.join(dir, 'taken');
    writeFileSync(file, 'keep me');
    mkdirSync(path.join(dir, 'out', 'report.md'), { recursive: true });
    mkdirSync(path.join(dir, 'errors.csv'));
    const out = path.join(dir, 'fresh');
    for (const [args, message] of [
      [['--out-dir', file], `--out-dir: ${file} is a file, not a folder`],
      [['--out-dir', path.join(file, 'sub')], `--out-dir: ${path.join(file, 'sub')} cannot be made: ${file} is a file, not a folder`],
      [['--out-dir', path.join(dir, 'out')], `--out-dir: ${path.join(dir, 'out', 'report.md')} is a folder, so the file cannot be written there`],
      [['--out-dir', out, '--export-errors', path.join(dir, 'errors.csv')], `--export-errors: ${path.join(dir, 'errors.csv')} is a folder`],
      [['--out-dir', out, '--history', file], `--history: ${file} is a file, not a folder`],
    ]) {
      const r = await runCli(['report', '--from', fixture, '--bootstrap', '0', ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain('hint:');
      expect(r.stderr).not.toContain('unexpected error');
    }
    // Nothing was written: no report beside the folder in the way, no fresh --out-dir.
    expect(readdirSync(path.join(dir, 'out'))).toEqual(['report.md']);
    expect(existsSync(out)).toBe(false);
  });

  it('demo --out-dir naming a file says which path and why (exit 2), not "unexpected error"', async () => {
    const dir = tmp();
    const file = path.join(dir, 'taken');
    writeFileSync(file, 'keep me');
    const r = await runCli(['demo', '--out-dir', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot create the folder .*taken: a file of that name is in the way \(EEXIST\)/);
    expect(r.stderr).not.toContain('unexpected error');
  });

  it('migrate --out-dir naming a file is an input error before any work', async () => {
    const dir = tmp();
    const file = path.join(dir, 'taken');
    writeFileSync(file, 'keep me');
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(path.join(dir, 'src', 'a.json'), JSON.stringify({ type: 'CLASSIFY', fields: [], customClassificationRules: 'x' }));
    const r = await runCli(['migrate', path.join(dir, 'src'), '--out-dir', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--out-dir: ${file} is a file, not a folder`);
    const under = await runCli(['migrate', path.join(dir, 'src'), '--out-dir', path.join(file, 'x')]);
    expect(under.code).toBe(2);
    expect(under.stderr).toContain(`cannot be made: ${file} is a file, not a folder`);
    expect(under.stderr).not.toContain('unexpected error');
  });
});

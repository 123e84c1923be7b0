// The settings middleware on real command builders, in process: what it fills and what it leaves.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Argv } from 'yargs';
import type yargsFactory from 'yargs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import report from '../../src/cli/report.js';
import validate from '../../src/cli/validate.js';
import { applySettings } from '../../src/cli/settings.js';
import type { EvalkitCommand } from '../../src/cli/command.js';

const require = createRequire(import.meta.url);
const yargs = require('yargs') as typeof yargsFactory;

let dir: string;
let file: string;
const savedEnv = { ...process.env };

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-mw-'));
  file = path.join(dir, 'evalkit.config.json');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  for (const k of ['EVALKIT_BASE_URL', 'EVALKIT_API_VERSION']) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});

/** Parses args for one command with the middleware and returns the argv its handler gets. */
async function argvOf(cmd: EvalkitCommand<unknown>, name: string, args: string[], config: unknown): Promise<Record<string, unknown>> {
  writeFileSync(file, JSON.stringify(config));
  let got: Record<string, unknown> = {};
  await yargs([name, ...args, '--config-file', file])
    .strict()
    .option('config-file', { type: 'string', global: true })
    .option('dataset', { type: 'string', global: true })
    .option('base-url', { type: 'string', global: true })
    .middleware(applySettings as never, true)
    .fail((msg, e) => {
      throw e ?? new Error(msg);
    })
    .command(name, '', (y: Argv) => cmd.builder(y) as unknown as Argv, (a) => {
      got = a as Record<string, unknown>;
    })
    .parseAsync();
  return got;
}

const cwdRel = (p: string): string => path.relative(process.cwd(), path.join(dir, p));

describe('the settings middleware', () => {
  it('fills what the command line leaves out, including options yargs defaulted; paths relative to the file', async () => {
    const a = await argvOf(report as EvalkitCommand<unknown>, 'report', [], { datasets: { x: { export: 'run.json', fuzzyThreshold: 0.7, gates: ['micro.f1>=0.9'], outDir: 'out' } } });
    expect(a.from).toEqual([cwdRel('run.json')]);
    expect(a.fuzzyThreshold).toBe(0.7);
    expect(a['fuzzy-threshold']).toBe(0.7);
    expect(a.gate).toEqual(['micro.f1>=0.9']);
    expect(a.outDir).toBe(cwdRel('out'));
    // Not in the file: yargs' default stays.
    expect(a.numberTolerance).toBe(1e-6);
  });

  it('a flag wins over the file, also one equal to the default', async () => {
    const a = await argvOf(report as EvalkitCommand<unknown>, 'report', ['--from', 'mine.json', '--fuzzy-threshold', '0.9', '--gate', 'micro.f1>=0.1'], { datasets: { x: { export: 'run.json', fuzzyThreshold: 0.7, gates: ['micro.f1>=0.9'] } } });
    expect(a.from).toEqual(['mine.json']);
    expect(a.fuzzyThreshold).toBe(0.9);
    expect(a.gate).toEqual(['micro.f1>=0.1']);
  });

  it('fills an option only where its partners allow: validate --config keeps the processor out', async () => {
    const config = { datasets: { x: { processor: 'dp_1' } } };
    expect((await argvOf(validate as EvalkitCommand<unknown>, 'validate', [], config)).processor).toBe('dp_1');
    const withFile = await argvOf(validate as EvalkitCommand<unknown>, 'validate', ['--config', 'c.json'], config);
    expect(withFile.processor).toBeUndefined();
  });

  it('environment over file for the service settings; the file when the environment has none', async () => {
    process.env.EVALKIT_BASE_URL = 'http://env.example:1';
    delete process.env.EVALKIT_API_VERSION;
    await argvOf(report as EvalkitCommand<unknown>, 'report', ['--from', 'x.json'], { baseUrl: 'http://file.example:2', apiVersion: '2024-11-14' });
    expect(process.env.EVALKIT_BASE_URL).toBe('http://env.example:1');
    expect(process.env.EVALKIT_API_VERSION).toBe('2024-11-14');
  });

  it('several datasets: --dataset picks; without it, exit 2 only when a section would fill something', async () => {
    const config = { datasets: { a: { fuzzyThreshold: 0.5 }, b: { fuzzyThreshold: 0.6 } } };
    expect((await argvOf(report as EvalkitCommand<unknown>, 'report', ['--from', 'x.json', '--dataset', 'b'], config)).fuzzyThreshold).toBe(0.6);
    await expect(argvOf(report as EvalkitCommand<unknown>, 'report', ['--from', 'x.json'], config)).rejects.toThrow(/has 2 datasets: name one with --dataset/);
    expect((await argvOf(report as EvalkitCommand<unknown>, 'report', ['--from', 'x.json', '--fuzzy-threshold', '0.8'], config)).fuzzyThreshold).toBe(0.8);
  });
});

// A bounded fuzz of the commands that read users' files: malformed JSON configs and documents,
// CSVs and evaluation exports go to migrate, validate, dataset upload --dry-run and report through
// the CLI's main() in this process (no spawn per case). Every case must end with exit 0, 1 or 2,
// never "unexpected error", and a failed run must leave its input files as they were.
// Seeded (fast-check), so a failure reproduces; cases it found are kept under test/fixtures/fuzz/
// and replayed below.
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { ROOT } from '../helpers/cli.js';

const SEED = Number(process.env.EVALKIT_FUZZ_SEED ?? 20261124);
// EVALKIT_FUZZ_RUNS raises the count for a longer hunt by hand; the suite runs 320 cases (under a minute).
const SCALE = Number(process.env.EVALKIT_FUZZ_RUNS ?? 1);
const FIXTURES = path.join(ROOT, 'test/fixtures/fuzz');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-fuzz-'));
  cpSync(path.join(ROOT, 'datasets/invoice-extract/files'), path.join(dir, 'files'), { recursive: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** main() with stdout and stderr captured; the environment has no service. */
async function cli(args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const env = { url: process.env.EVALKIT_BASE_URL, token: process.env.EVALKIT_API_TOKEN };
  delete process.env.EVALKIT_BASE_URL;
  delete process.env.EVALKIT_API_TOKEN;
  process.stdout.write = ((c: string | Uint8Array) => ((stdout += String(c)), true)) as typeof process.stdout.write;
  process.stderr.write = ((c: string | Uint8Array) => ((stderr += String(c)), true)) as typeof process.stderr.write;
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    if (env.url !== undefined) process.env.EVALKIT_BASE_URL = env.url;
    if (env.token !== undefined) process.env.EVALKIT_API_TOKEN = env.token;
  }
}

const SEEDS = {
  config: readFileSync(path.join(ROOT, 'datasets/configs/invoice-extract.json'), 'utf8'),
  classify: readFileSync(path.join(ROOT, 'datasets/configs/document-classify.json'), 'utf8'),
  splitter: readFileSync(path.join(ROOT, 'datasets/configs/packet-splitter.json'), 'utf8'),
  csv: readFileSync(path.join(ROOT, 'datasets/invoice-extract/data.csv'), 'utf8'),
  export: readFileSync(path.join(ROOT, 'test/fixtures/report/extract-export.json'), 'utf8'),
  exportJsonl: readFileSync(path.join(ROOT, 'test/fixtures/report/classify-export.jsonl'), 'utf8'),
  item: JSON.stringify({ value: { invoice_number: 'INV-1', total: { amount: 12.5, iso_4217_currency_code: 'EUR' } } }, null, 2),
};

/** Text mutations that keep most of a valid input, so the fuzz gets past the first parser. */
const textMutation = (seed: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.nat(seed.length).map((i) => seed.slice(0, i)),
    fc.tuple(fc.nat(seed.length), fc.string({ maxLength: 8, unit: 'binary' })).map(([i, s]) => seed.slice(0, i) + s + seed.slice(i)),
    fc.tuple(fc.nat(seed.length), fc.nat(40)).map(([i, n]) => seed.slice(0, i) + seed.slice(i + n)),
    fc.tuple(fc.nat(seed.length), fc.constantFrom('{', '[', '"', ',', ':', '\\', '\u0000', '\ufeff', '\r', '\n', ';', '\t', '""', "'=")).map(([i, s]) => seed.slice(0, i) + s + seed.slice(i)),
    fc.tuple(fc.nat(seed.length), fc.integer({ min: 200, max: 30_000 }), fc.constantFrom('[', '{"a":')).map(([i, n, open]) => seed.slice(0, i) + open.repeat(n) + seed.slice(i)),
  );

/** Replaces one value of a JSON document with an arbitrary one (or removes it). */
const jsonMutation = (seed: string): fc.Arbitrary<string> => {
  const doc = JSON.parse(seed) as unknown;
  const paths: Array<Array<string | number>> = [];
  const walk = (v: unknown, at: Array<string | number>): void => {
    paths.push(at);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...at, i]));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
  };
  walk(doc, []);
  const keys = fc.constantFrom('__proto__', 'constructor', 'toString', 'type', 'value', 'items', 'splits', 'schema', '', 'a.b', 'x/y~z');
  // A deeply nested value goes in as a marker, spliced in after stringify (which would overflow).
  const deep = fc.tuple(fc.integer({ min: 250, max: 6000 }), fc.constantFrom(['[', ']'], ['{"d":', '}'])).map(([k, [o, c]]) => `@DEEP@${o.repeat(k)}1${c.repeat(k)}@`);
  return fc.tuple(fc.constantFrom(...paths.filter((p) => p.length > 0)), fc.oneof(fc.jsonValue({ maxDepth: 3 }), deep, fc.constant(undefined)), fc.option(keys)).map(([at, value, rename]) => {
    const copy = JSON.parse(seed) as Record<string | number, unknown>;
    let parent = copy;
    for (const k of at.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
    const last = at[at.length - 1];
    if (value === undefined) {
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete parent[last];
    } else parent[rename ?? last] = value;
    return JSON.stringify(copy, null, 2).replace(/"@DEEP@(.*)@"/, '$1');
  });
};

const input = (seed: string, json = true): fc.Arbitrary<string> => (json ? fc.oneof(textMutation(seed), jsonMutation(seed)) : textMutation(seed));

/**
 * The invariants of every run. With EVALKIT_FUZZ_SAVE=1 a failing input is written to
 * test/fixtures/fuzz/<kind>-<hash>.<ext> (fast-check shrinks it first), to be kept as a fixture.
 */
function check(r: Run, inputs: Record<string, string>, what: string, kind?: string): void {
  try {
    invariants(r, inputs, what);
  } catch (e) {
    if (process.env.EVALKIT_FUZZ_SAVE && kind) {
      const [file, text] = Object.entries(inputs)[0];
      const hash = createHash('sha256').update(text).digest('hex').slice(0, 8);
      writeFileSync(path.join(FIXTURES, `${kind}-${hash}${path.extname(file)}`), text);
    }
    throw e;
  }
}

function invariants(r: Run, inputs: Record<string, string>, what: string): void {
  const context = `${what}\nstdout: ${r.stdout.slice(0, 500)}\nstderr: ${r.stderr.slice(0, 500)}`;
  expect([0, 1, 2], context).toContain(r.code);
  expect(r.stderr, context).not.toContain('unexpected error');
  expect(r.stderr, context).not.toContain('internal error');
  if (r.code !== 0) for (const [file, text] of Object.entries(inputs)) expect(readFileSync(file, 'utf8'), `${what}: ${file} changed by a failed run`).toBe(text);
}

let n = 0;
function write(name: string, text: string): string {
  const file = path.join(dir, `${n++}-${name}`);
  writeFileSync(file, text);
  return file;
}

const RUNS = { numRuns: 80 * SCALE, seed: SEED, endOnFailure: true } as const;

describe('fuzz (seeded, bounded)', () => {
  it('migrate --write: configs of every type', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(SEEDS.config, SEEDS.classify, SEEDS.splitter).chain((s) => input(s)), async (text) => {
        const file = write('config.json', text);
        check(await cli(['migrate', file, '--write']), { [file]: text }, `migrate --write ${JSON.stringify(text.slice(0, 200))}`, 'migrate');
      }),
      RUNS,
    );
  });

  it('validate: documents and configs', async () => {
    const config = write('config.json', SEEDS.config);
    await fc.assert(
      fc.asyncProperty(fc.boolean(), input(SEEDS.item), input(SEEDS.config), async (fuzzConfig, doc, cfg) => {
        const docFile = write('item.json', doc);
        const cfgFile = fuzzConfig ? write('config.json', cfg) : config;
        const inputs = fuzzConfig ? { [cfgFile]: cfg, [docFile]: doc } : { [docFile]: doc, [cfgFile]: SEEDS.config };
        check(await cli(['validate', docFile, '--config', cfgFile, '--fix']), inputs, `validate --fix ${JSON.stringify(doc.slice(0, 200))} / ${fuzzConfig ? JSON.stringify(cfg.slice(0, 200)) : 'seed config'}`, fuzzConfig ? 'validate_config' : 'validate');
      }),
      RUNS,
    );
  });

  it('dataset upload --dry-run: CSVs', async () => {
    const config = write('config.json', SEEDS.config);
    await fc.assert(
      fc.asyncProperty(input(SEEDS.csv, false), fc.constantFrom(',', ';', 'tab', undefined), async (csv, delimiter) => {
        const file = write('data.csv', csv);
        const args = ['dataset', 'upload', file, '--config', config, '--dry-run', '--format', 'json', ...(delimiter ? ['--delimiter', delimiter] : [])];
        check(await cli(args), { [file]: csv }, `upload --dry-run ${JSON.stringify(csv.slice(0, 300))}`, 'upload');
      }),
      RUNS,
    );
  });

  it('report: exports (JSON and JSONL)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(input(SEEDS.export).map((t) => ['export.json', t] as const), textMutation(SEEDS.exportJsonl).map((t) => ['export.jsonl', t] as const)), async ([name, text]) => {
        const file = write(name, text);
        const out = path.join(dir, `${n++}-out`);
        check(await cli(['report', '--from', file, '--out-dir', out, '--bootstrap', '0', '--formats', 'json']), { [file]: text }, `report ${JSON.stringify(text.slice(0, 300))}`, 'report');
      }),
      RUNS,
    );
  });
});

describe('fuzz-found cases (test/fixtures/fuzz)', () => {
  const cases = readdirSync(FIXTURES).filter((f) => !f.endsWith('.md')).sort();
  it.each(cases)('%s', async (name) => {
    const text = readFileSync(path.join(FIXTURES, name), 'utf8');
    const sub = path.join(dir, `fixture-${name}`);
    mkdirSync(sub, { recursive: true });
    const file = path.join(sub, `input${path.extname(name)}`);
    writeFileSync(file, text);
    const config = path.join(sub, 'config.json');
    writeFileSync(config, SEEDS.config);
    const command = name.split('-')[0];
    const item = path.join(sub, 'item.json');
    writeFileSync(item, SEEDS.item);
    const args: Record<string, string[]> = {
      migrate: ['migrate', file, '--write'],
      validate: ['validate', file, '--config', config, '--fix'],
      validate_config: ['validate', item, '--config', file, '--fix'],
      upload: ['dataset', 'upload', file, '--config', config, '--dry-run'],
      report: ['report', '--from', file, '--out-dir', path.join(sub, 'out'), '--bootstrap', '0'],
    };
    expect(Object.keys(args)).toContain(command);
    check(await cli(args[command]), { [file]: text }, name);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type yargsFactory from 'yargs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAllCommands, type AnyCommand } from '../../src/cli/commands.js';

const commands: AnyCommand[] = await loadAllCommands();
import { OPTION_MAP, kebab } from '../../src/cli/settings.js';
import { checkSettings, findSettingsFile, pickDataset, readSettings, type LoadedSettings } from '../../src/settings/load.js';
import { EvalkitError, InputError, UsageError } from '../../src/util/errors.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FILE = '/p/evalkit.config.json';

async function errorOf(doc: unknown, text?: string): Promise<EvalkitError> {
  try {
    await checkSettings(doc, FILE, text ?? JSON.stringify(doc, null, 2));
  } catch (e) {
    if (e instanceof EvalkitError) return e;
    throw e;
  }
  throw new Error('expected the config to be refused');
}

describe('evalkit.config.json: checking', () => {
  it('the generated TS type is up to date with schemas/evalkit-config.schema.json (run npm run gen:types)', () => {
    const r = spawnSync(process.execPath, ['scripts/gen-types.mjs', '--check', 'src/settings/generated/evalkit-config.ts'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('a gate that does not parse: its line and column too (an array index in the pointer)', async () => {
    const doc = { datasets: { x: { gates: ['micro.f1>=0.9', 'micro.f1>>0.9'] } } };
    const e = await errorOf(doc);
    expect(e.location).toEqual({ file: FILE, pointer: '/datasets/x/gates/1', line: 6, column: 9 });
    // A key that looks like an index is still a key: an object member named "0".
    const e2 = await errorOf({ datasets: { '0': { gates: 'x' } } });
    expect(e2.location).toMatchObject({ pointer: '/datasets/0/gates', line: 4, column: 7 });
  });

  it('accepts a full document', async () => {
    const doc = {
      $schema: './node_modules/evalkit/schemas/evalkit-config.schema.json',
      baseUrl: 'https://api.example.com',
      apiVersion: '2025-04-21',
      datasets: {
        invoices: {
          processor: 'dp_1',
          evaluationSet: 'ev_1',
          csv: 'data.csv',
          export: 'reports/invoices.json',
          baseline: 'reports/main/report.json',
          outDir: 'reports/invoices',
          formats: ['json', 'md'],
          fuzzyFields: ['vendor.name'],
          excludeFields: ['notes'],
          fuzzyThreshold: 0.85,
          numberTolerance: 0.01,
          gates: ['micro.f1>=0.9', 'latency.p95<=30000', 'field:total.recall=0.95'],
          targetAccuracy: 0.95,
          slices: ['country'],
        },
      },
    };
    await expect(checkSettings(doc, FILE)).resolves.toEqual(doc);
  });

  it.each([
    ['an unknown top-level key', { baseURL: 'http://x' }, '/baseURL', 'unknown key "baseURL"'],
    ['an unknown dataset key', { datasets: { a: { fuzzyTreshold: 0.9 } } }, '/datasets/a/fuzzyTreshold', 'unknown key "fuzzyTreshold"'],
    ['a wrong type', { datasets: { a: { fuzzyThreshold: '0.9' } } }, '/datasets/a/fuzzyThreshold', 'must be a number'],
    ['a threshold above 1', { datasets: { a: { targetAccuracy: 1.5 } } }, '/datasets/a/targetAccuracy', 'must be <= 1'],
    ['a gate without an operator', { datasets: { a: { gates: ['micro.f1 0.9'] } } }, '/datasets/a/gates/0', 'METRIC>=N, METRIC<=N or METRIC=N'],
    ['a quality gate above 1', { datasets: { a: { gates: ['micro.f1>=0.5', 'micro.f1>=2'] } } }, '/datasets/a/gates/1', 'between 0 and 1'],
    ['an unknown report format', { datasets: { a: { formats: ['pdf'] } } }, '/datasets/a/formats/0', 'must be one of "json", "md", "html", "junit"'],
    ['a base URL that is not http', { baseUrl: 'localhost:8787' }, '/baseUrl', 'http(s) address'],
    ['an API version that is not a date', { apiVersion: 'latest' }, '/apiVersion', 'YYYY-MM-DD'],
    ['a workspace id with a space', { workspaceId: 'ws 1' }, '/workspaceId', 'the workspace id alone'],
    ['a dataset name with a slash', { datasets: { 'a/b': {} } }, '/datasets/a~1b', 'dataset name "a/b"'],
    ['no datasets in "datasets"', { datasets: {} }, '/datasets', 'must NOT have fewer than 1 properties'],
    ['a document that is not an object', [], '', 'must hold a JSON object'],
  ])('refuses %s, naming the file and the JSON pointer', async (_name, doc, pointer, message) => {
    const e = await errorOf(doc);
    expect(e).toBeInstanceOf(InputError);
    expect(e.exitCode).toBe(2);
    expect(e.location.file).toBe(FILE);
    expect(e.location.pointer).toBe(pointer);
    expect(e.message).toContain(message);
    expect(e.describe()).toContain(`${FILE}`);
  });

  it.each([['token'], ['apiToken'], ['EVALKIT_API_TOKEN'], ['api_key'], ['secret']])('refuses a credential key "%s" anywhere, without printing its value', async (key) => {
    for (const doc of [{ [key]: 'sk-live-123456' }, { datasets: { a: { [key]: 'sk-live-123456' } } }]) {
      const e = await errorOf(doc);
      expect(e.exitCode).toBe(2);
      expect(e.message).toContain('never read from the config file');
      expect(e.hint).toContain('EVALKIT_API_TOKEN');
      expect(e.describe()).not.toContain('sk-live-123456');
      expect(e.location.pointer).toMatch(new RegExp(`/${key}$`));
    }
  });

  it('names the line of the problem', async () => {
    const text = '{\n  "datasets": {\n    "a": {\n      "gates": ["micro.f1>=0.9"],\n      "slice": ["x"]\n    }\n  }\n}\n';
    const e = await errorOf(JSON.parse(text), text);
    expect(e.location).toMatchObject({ file: FILE, line: 5, pointer: '/datasets/a/slice' });
  });

  it('says every problem, deepest first', async () => {
    const e = await errorOf({ baseUrl: 1, datasets: { a: { fuzzyThreshold: 2, nope: true } } });
    expect(e.location.pointer).toBe('/datasets/a/nope');
    expect(e.message).toContain('/datasets/a/fuzzyThreshold: must be <= 1');
    expect(e.message).toContain('/baseUrl: must be a string');
  });
});

describe('evalkit.config.json: finding and reading', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const tmp = (): string => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'evalkit-settings-'));
    dirs.push(d);
    return d;
  };

  it('finds the nearest file upward, and none when there is none', async () => {
    const root = tmp();
    const deep = path.join(root, 'a/b/c');
    mkdirSync(deep, { recursive: true });
    writeFileSync(path.join(root, 'evalkit.config.json'), '{}');
    expect(await findSettingsFile(deep)).toBe(path.join(root, 'evalkit.config.json'));
    writeFileSync(path.join(root, 'a/evalkit.config.json'), '{}');
    expect(await findSettingsFile(deep)).toBe(path.join(root, 'a/evalkit.config.json'));
    const other = tmp();
    const found = await findSettingsFile(other);
    // Nothing in the temp folder itself; a file above it (outside the test's control) is the only way to find one.
    expect(found === undefined || !found.startsWith(other)).toBe(true);
  });

  it('a folder named evalkit.config.json is an input error, not skipped for a file further up', async () => {
    const root = tmp();
    writeFileSync(path.join(root, 'evalkit.config.json'), '{}');
    mkdirSync(path.join(root, 'a/evalkit.config.json'), { recursive: true });
    await expect(findSettingsFile(path.join(root, 'a'))).rejects.toMatchObject({ message: 'a folder, not a config file', location: { file: path.join(root, 'a/evalkit.config.json') } });
  });

  it('reads a file: invalid JSON names the line and column', async () => {
    const d = tmp();
    const file = path.join(d, 'evalkit.config.json');
    writeFileSync(file, '{\n  "datasets": {\n    "a": { "csv": "x.csv", }\n  }\n}\n');
    const e = (await readSettings(file).catch((x: unknown) => x)) as EvalkitError;
    expect(e).toBeInstanceOf(InputError);
    expect(e.location).toMatchObject({ file, line: 3 });
    writeFileSync(file, '{"datasets": {"a": {"csv": "x.csv"}}}');
    const loaded = await readSettings(file);
    expect(loaded.dir).toBe(d);
    expect(loaded.config.datasets?.a.csv).toBe('x.csv');
  });

  it('a key written twice in one object is refused at its second line (JSON.parse would keep the last silently)', async () => {
    const file = path.join(tmp(), 'evalkit.config.json');
    writeFileSync(file, '{\n  "apiVersion": "2025-04-21",\n  "datasets": {\n    "a": {\n      "gates": ["micro.f1>=0.9"],\n      "csv": "x.csv",\n      "gates": []\n    }\n  }\n}\n');
    const e = (await readSettings(file).catch((x: unknown) => x)) as EvalkitError;
    expect(e).toBeInstanceOf(InputError);
    expect(e.message).toBe('"gates" appears twice in this object: JSON keeps the last value and drops the other without a word');
    expect(e.location).toMatchObject({ file, line: 7, pointer: '/datasets/a/gates' });
    writeFileSync(file, '{"apiVersion": "2025-04-21", "datasets": {"a": {"csv": "x.csv"}, "b": {"csv": "x.csv"}}, "apiVersion": "2026-02-09"}');
    expect(await readSettings(file).catch((x: unknown) => x)).toMatchObject({ location: { line: 1, pointer: '/apiVersion' } });
    // The same key in two objects is no duplicate.
    writeFileSync(file, '{"datasets": {"a": {"csv": "x.csv"}, "b": {"csv": "x.csv"}}}');
    await expect(readSettings(file)).resolves.toMatchObject({ config: { datasets: { b: { csv: 'x.csv' } } } });
  });

  it('picks the named dataset, implies the only one, and refuses an unknown name', () => {
    const one: LoadedSettings = { file: FILE, dir: '/p', config: { datasets: { a: { csv: 'a.csv' } } } };
    const two: LoadedSettings = { file: FILE, dir: '/p', config: { datasets: { a: {}, b: { csv: 'b.csv' } } } };
    expect(pickDataset(one, undefined)).toEqual({ name: 'a', settings: { csv: 'a.csv' } });
    expect(pickDataset(two, undefined)).toBeUndefined();
    expect(pickDataset(two, 'b')).toEqual({ name: 'b', settings: { csv: 'b.csv' } });
    expect(() => pickDataset(two, 'c')).toThrow(UsageError);
    expect(() => pickDataset(two, 'constructor')).toThrow(/no dataset of that name/);
  });
});

describe('the option table', () => {
  const require = createRequire(import.meta.url);
  /** Options each command declares, from its own yargs builder. */
  function declared(command: string): Set<string> {
    const [top, sub] = command.split(' ');
    const name = (c: { command: string | readonly string[] }): string => String(Array.isArray(c.command) ? c.command[0] : c.command).split(' ')[0];
    const cmd = commands.find((c) => name(c) === top)!;
    const y = (require('yargs') as typeof yargsFactory)([]);
    if (sub === undefined) cmd.builder(y);
    else {
      const found = cmd.subcommands?.find((s) => name(s) === sub);
      // `dataset` adds its subcommands in its builder: run it and read the subcommand's builder from yargs' command table.
      if (found) found.builder(y);
      else {
        let builder: ((b: unknown) => unknown) | undefined;
        const spy = { command: (m: { command: string; builder: (b: unknown) => unknown }) => ((m.command.split(' ')[0] === sub ? (builder = m.builder) : undefined), spy), demandCommand: () => spy, example: () => spy };
        cmd.builder(spy as never);
        builder!(y);
      }
    }
    const keys = (y as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key;
    return new Set(Object.keys(keys));
  }

  // Options another branch adds; the entry is inert until the command declares the option.
  const PENDING = new Set<string>();

  it.each(OPTION_MAP.map((m) => [`${m.key} -> ${m.command} --${kebab(m.option)}`, m] as const))('%s: the command declares the option (a renamed flag is a one-line change here)', (_name, m) => {
    if (PENDING.has(`${m.command} --${kebab(m.option)}`)) return;
    const keys = declared(m.command);
    expect(keys.has(kebab(m.option)) || keys.has(m.option)).toBe(true);
  });

  it('every member of a dataset section fills at least one option', () => {
    const schema = JSON.parse(readFileSync(path.join(ROOT, 'schemas/evalkit-config.schema.json'), 'utf8')) as { $defs: { dataset: { properties: object } } };
    expect(Object.keys(schema.$defs.dataset.properties).sort()).toEqual([...new Set(OPTION_MAP.map((m) => m.key))].sort());
  });
});

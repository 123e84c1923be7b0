import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DEPTH, depthExceededAt } from '../../src/util/depth.js';
import { ROOT, cleanupAfterEach, runCli } from '../helpers/cli.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';

const { tmp } = cleanupAfterEach('depth');

const nested = (n: number, open = '{"x":', close = '}'): string => open.repeat(n) + '1' + close.repeat(n);
const EXTRACT = '{"type":"EXTRACT","schema":{"type":"object","properties":{"total":{"type":"number"}}}}';

describe('depthExceededAt', () => {
  it.each([
    ['a scalar', 1, undefined],
    ['exactly the limit', MAX_DEPTH, undefined],
  ])('%s is within the limit', (_n, depth, want) => {
    expect(depthExceededAt(JSON.parse(nested(depth - 1, '[', ']')))).toEqual(want);
    expect(depthExceededAt(JSON.parse(nested(MAX_DEPTH, '[', ']')))).toBeUndefined();
  });
  it('names the path where the limit is passed, at any depth, without recursion', () => {
    expect(depthExceededAt(JSON.parse(nested(MAX_DEPTH + 1, '[', ']')))).toEqual(new Array(MAX_DEPTH).fill(0));
    const deep = JSON.parse(`{"a":[1,{"b":${nested(100_000)}}]}`) as unknown;
    const at = depthExceededAt(deep)!;
    expect(at.slice(0, 3)).toEqual(['a', 1, 'b']);
    expect(at).toHaveLength(MAX_DEPTH);
  });
});

describe('deep inputs through the CLI: exit 2 naming the pointer, never a stack overflow', () => {
  function check(r: { code: number | null; stderr: string }, pointerStart: string): void {
    expect(r.stderr).not.toContain('unexpected error');
    expect(r.stderr).not.toContain('call stack');
    expect(r.stderr).toContain(`nested more than ${MAX_DEPTH} levels deep`);
    expect(r.stderr).toContain(`at ${pointerStart}`);
    expect(r.code).toBe(2);
  }

  it('migrate: a 5,000-deep member of a config', async () => {
    const dir = tmp();
    const file = path.join(dir, 'c.json');
    const text = `${EXTRACT.slice(0, -1)},"customExtractionRules":"r","deep":${nested(5000)}}`;
    writeFileSync(file, text);
    check(await runCli(['migrate', file, '--write']), '/deep/x/x/x');
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('migrate: deeply nested invalid JSON is a syntax error with its position', async () => {
    const dir = tmp();
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, `{"type":"EXTRACT","x":${'['.repeat(20_000)}1${']'.repeat(19_999)}}`);
    const r = await runCli(['migrate', file]);
    expect(r.stderr).toContain('bad.json:1:40023: invalid JSON');
    expect(r.stderr).not.toContain('unexpected error');
    expect(r.code).toBe(2);
  });

  it('validate: a 2,000-deep config and a 3,000-deep document', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'deep-config.json'), `${EXTRACT.slice(0, -1)},"deep":${nested(2000)}}`);
    writeFileSync(path.join(dir, 'config.json'), EXTRACT);
    writeFileSync(path.join(dir, 'item.json'), '{"value":{"total":1}}');
    writeFileSync(path.join(dir, 'deep-item.json'), `{"value":{"total":${nested(3000, '[', ']')}}}`);
    check(await runCli(['validate', path.join(dir, 'item.json'), '--config', path.join(dir, 'deep-config.json')]), '/deep/x');
    check(await runCli(['validate', path.join(dir, 'deep-item.json'), '--config', path.join(dir, 'config.json')]), '/value/total/0/0');
  });

  it('report: a 3,000-deep value in an export item', async () => {
    const dir = tmp();
    const exp = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/report/extract-export.json'), 'utf8')) as { items: Array<{ output: unknown }> };
    exp.items[0].output = { value: { deep: '@DEEP@' } };
    const file = path.join(dir, 'export.json');
    writeFileSync(file, JSON.stringify(exp).replace('"@DEEP@"', nested(3000, '[', ']')));
    check(await runCli(['report', '--from', file, '--out-dir', path.join(dir, 'out')]), '/items/0/output/value/deep/0');
  });

  it('dataset upload --dry-run: a 5,000-deep JSON cell is a finding of its row', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'config.json'), EXTRACT);
    writeFileSync(path.join(dir, 'a.txt'), 'a');
    writeFileSync(path.join(dir, 'data.csv'), `file,expectedOutput\na.txt,"{""value"":{""total"":${nested(5000, '[', ']')}}}"\n`);
    const r = await runCli(['dataset', 'upload', path.join(dir, 'data.csv'), '--config', path.join(dir, 'config.json'), '--dry-run']);
    expect(r.stdout + r.stderr).toContain('json-depth');
    expect(r.stderr).not.toContain('unexpected error');
    expect(r.code).toBe(2);
  });
});

describe('sandbox', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await start();
    await t.call('GET', '/processors'); // the core is loaded (lazily, after listen) before the test ends
  });
  afterAll(() => t.close());

  it('answers a 5,000-deep schema with 400 naming the pointer, not 500', async () => {
    const raw = `{"name":"deep","type":"EXTRACT","config":{"type":"EXTRACT","schema":${nested(5000, '{"type":"object","properties":{"a":', '}}')}}}`;
    const r = await t.call('POST', '/processors', { raw, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/nested more than 256 levels deep; the limit is passed at \/config\/schema\/properties\/a\/properties/);
  });
});

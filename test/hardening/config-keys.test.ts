import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach, runCli } from '../helpers/cli.js';

const { tmp } = cleanupAfterEach('keys');

/**
 * A config with 50,000 top-level keys (unknown keys pass through migration). Each key used to
 * cost a fresh Object.keys() of the whole config, so 8,000 keys took 7-14 s and 50,000 would take
 * minutes; linear handling finishes in about a second. No timing assert: the test timeout is the
 * bound (later quadratic paths, each member of a step looked up by a scan of the others, took
 * 7-21 s a command on 50,000 keys; linear, under a second).
 */
function bigConfig(dir: string): string {
  const config: Record<string, unknown> = { type: 'EXTRACT', schema: { type: 'object', properties: { total: { type: 'number' } } }, customExtractionRules: 'r' };
  for (let i = 0; i < 50_000; i++) config[`k${i}`] = i;
  const file = path.join(dir, 'big.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

describe('a config with 50,000 keys', () => {
  it('migrates, validates and checks a CSV in linear time', async () => {
    const dir = tmp();
    const config = bigConfig(dir);
    writeFileSync(path.join(dir, 'a.txt'), 'hello');
    writeFileSync(path.join(dir, 'data.csv'), 'file,total\na.txt,12\n');
    writeFileSync(path.join(dir, 'item.json'), JSON.stringify({ value: { total: 3 } }));
    // 50,000 keys no config layout has: refused one by one (exit 2) in linear time too, kept with --allow-unknown.
    const refused = await runCli(['migrate', config]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('at /k49999: unknown key "k49999"');
    const migrate = await runCli(['migrate', config, '--allow-unknown']);
    expect(migrate.stdout).toContain('1 migrated');
    expect(migrate.code).toBe(0);
    const validate = await runCli(['validate', path.join(dir, 'item.json'), '--config', config]);
    expect(validate.code).toBe(0);
    const upload = await runCli(['dataset', 'upload', path.join(dir, 'data.csv'), '--config', config, '--create-set', 'x', '--processor', 'dp_1', '--dry-run']);
    expect(upload.code).toBe(0);
  }, 30_000);

  it('goes up two steps and back down in linear time, every key kept: top-level keys, and keys inside advancedOptions beside one dropped', async () => {
    const dir = tmp();
    const config = bigConfig(dir);
    const up = await runCli(['migrate', config, '--allow-unknown', '--to', '2026-02-09', '--out-dir', path.join(dir, 'up')]);
    expect(up.code, up.stderr).toBe(0);
    const upDoc = JSON.parse(readFileSync(path.join(dir, 'up', 'big.json'), 'utf8')) as Record<string, unknown>;
    expect(upDoc.type).toBeUndefined();
    expect(upDoc.extractionRules).toBe('r');
    expect(Object.keys(upDoc).filter((k) => /^k\d+$/.test(k))).toHaveLength(50_000);
    const down = await runCli(['migrate', path.join(dir, 'up', 'big.json'), '--allow-unknown', '--to', '2024-11-14', '--out-dir', path.join(dir, 'down')]);
    expect(down.code, down.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'down', 'big.json'), 'utf8')).toBe(readFileSync(config, 'utf8'));

    // 2025-04-21 with 50,000 keys in advancedOptions and fixedPageLimit among them: the object is re-laid out without it.
    const options: Record<string, unknown> = { fixedPageLimit: 3 };
    for (let i = 0; i < 50_000; i++) options[`k${i}`] = i;
    const nested = path.join(dir, 'nested.json');
    writeFileSync(nested, JSON.stringify({ type: 'EXTRACT', schema: { type: 'object' }, extractionRules: 'r', advancedOptions: options }, null, 2));
    const lossy = await runCli(['migrate', nested, '--allow-unknown', '--allow-lossy', '--to', '2026-02-09', '--out-dir', path.join(dir, 'nested-up')]);
    expect(lossy.code, lossy.stderr).toBe(0);
    expect(lossy.stdout).toContain('dropped at /advancedOptions/fixedPageLimit: 3');
    const nestedUp = JSON.parse(readFileSync(path.join(dir, 'nested-up', 'nested.json'), 'utf8')) as { advancedOptions: Record<string, unknown> };
    const { fixedPageLimit, ...rest } = options;
    expect(fixedPageLimit).toBe(3);
    expect(nestedUp.advancedOptions).toEqual(rest);
    expect(Object.keys(nestedUp.advancedOptions)).toEqual(Object.keys(rest));
  }, 30_000);
});

describe('a schema of 3,000 fields', () => {
  // ajv nested each property's check in the one before: compiling a schema of 2,000 fields
  // overflowed the stack ("unexpected error: Maximum call stack size exceeded", exit 2).
  it('validate and dataset upload --dry-run check its documents: valid ones pass, each wrong field is named', async () => {
    const dir = tmp();
    const properties: Record<string, unknown> = {};
    const value: Record<string, unknown> = {};
    for (let i = 0; i < 3_000; i++) {
      properties[`f${i}`] = { type: ['number', 'null'] };
      value[`f${i}`] = i;
    }
    const config = path.join(dir, 'wide.json');
    writeFileSync(config, JSON.stringify({ type: 'EXTRACT', schema: { type: 'object', properties } }));
    writeFileSync(path.join(dir, 'good.json'), JSON.stringify({ value }));
    writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ value: { ...value, f7: 'seven', f2999: 'last' } }));
    const good = await runCli(['validate', path.join(dir, 'good.json'), '--config', config]);
    expect(good.stderr).toBe('');
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('1 valid, 0 invalid');
    const bad = await runCli(['validate', path.join(dir, 'bad.json'), '--config', config]);
    expect(bad.code, bad.stderr).toBe(1);
    expect(bad.stdout).toContain('/value/f7: error type-mismatch');
    expect(bad.stdout).toContain('/value/f2999: error type-mismatch');
    expect(bad.stdout).toContain('2 errors');
    writeFileSync(path.join(dir, 'a.txt'), 'hello');
    writeFileSync(path.join(dir, 'data.csv'), `file,expectedOutput\na.txt,"${JSON.stringify(value).replace(/"/g, '""')}"\n`);
    const upload = await runCli(['dataset', 'upload', path.join(dir, 'data.csv'), '--config', config, '--dry-run']);
    expect(upload.stderr).not.toContain('unexpected error');
    expect(upload.code, upload.stderr).toBe(0);
  }, 30_000);
});

describe('a CLASSIFY config of 20,000 classes', () => {
  // Its schema pairs each id with its type in an anyOf of one branch per class, which ajv tried in
  // turn: about 5 s for each document naming the last class.
  it('validate checks a JSONL of documents in linear time: each pair looked up, a wrong pair named', async () => {
    const dir = tmp();
    const classifications = Array.from({ length: 20_000 }, (_, i) => ({ id: `c${i}`, type: `t${i}`, description: 'd' }));
    const config = path.join(dir, 'classes.json');
    writeFileSync(config, JSON.stringify({ type: 'CLASSIFY', classifications }));
    const docs = Array.from({ length: 20 }, (_, i) => JSON.stringify({ id: `c${19_999 - i}`, type: `t${19_999 - i}` }));
    docs.push(JSON.stringify({ id: 'c19999', type: 't0' }));
    writeFileSync(path.join(dir, 'docs.jsonl'), `${docs.join('\n')}\n`);
    const r = await runCli(['validate', path.join(dir, 'docs.jsonl'), '--config', config]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('20 valid, 1 invalid');
    expect(r.stdout).toContain('line 21 /: error classification-mismatch: expected type "t19999" for id "c19999", got "t0" (the type of "c0")');
  }, 30_000);

  it('dataset upload --dry-run reads 2,000 class cells in linear time: by id, by type, by a loose spelling', async () => {
    const dir = tmp();
    const classifications = Array.from({ length: 20_000 }, (_, i) => ({ id: `c${i}`, type: `Bank Statement ${i}`, description: 'd' }));
    const config = path.join(dir, 'classes.json');
    writeFileSync(config, JSON.stringify({ type: 'CLASSIFY', classifications }));
    const rows = ['file,class'];
    for (let r = 0; r < 2_000; r++) {
      writeFileSync(path.join(dir, `d${r}.txt`), `doc ${r}`);
      const i = 19_999 - r;
      rows.push(`d${r}.txt,${r % 3 === 0 ? `c${i}` : r % 3 === 1 ? `Bank Statement ${i}` : `bank-statement_${i}`}`);
    }
    rows.push('d0.txt,no such class');
    writeFileSync(path.join(dir, 'data.csv'), `${rows.join('\n')}\n`);
    const r = await runCli(['dataset', 'upload', path.join(dir, 'data.csv'), '--config', config, '--dry-run', '--format', 'json']);
    expect(r.code).toBe(2);
    const out = JSON.parse(r.stdout) as { rows: { valid: number; invalid: number }; findings: Array<{ line: number; rule: string }> };
    expect(out.rows).toMatchObject({ valid: 2_000, invalid: 1 });
    expect(out.findings).toMatchObject([{ line: 2_002, rule: 'unknown-classification' }]);
  }, 30_000);
});

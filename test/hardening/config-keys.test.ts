import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach, runCli } from '../helpers/cli.js';

const { tmp } = cleanupAfterEach('keys');

/**
 * A config with 50,000 top-level keys (unknown keys pass through migration). Each key used to
 * cost a fresh Object.keys() of the whole config, so 8,000 keys took 7-14 s and 50,000 would take
 * minutes; linear handling finishes in about a second. No timing assert: the test timeout is the bound.
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
  }, 60_000);
});

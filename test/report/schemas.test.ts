// schemas/export.schema.json and schemas/report.schema.json: valid JSON Schemas (checked here
// against the 2020-12 meta-schema, so the loader can skip that check at run time) and the
// source of the generated types, which must be up to date.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('export and report schemas', () => {
  it('the generated TS types are up to date (run npm run gen:types)', () => {
    const r = spawnSync(process.execPath, ['scripts/gen-types.mjs', '--check', 'src/metrics/generated/export.ts', 'src/metrics/generated/report.ts'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.each(['export', 'report'])('schemas/%s.schema.json is valid against the meta-schema and compiles in strict mode', (name) => {
    const ajv = new Ajv2020({ strict: true, strictTypes: false, validateSchema: true });
    const schema = JSON.parse(readFileSync(path.join(ROOT, `schemas/${name}.schema.json`), 'utf8')) as object;
    expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
    expect(() => ajv.compile(schema)).not.toThrow();
  });
});

// `evalkit validate` and `evalkit schema` through the built binary (npx tsc -p tsconfig.build.json first).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { DEFAULT_API_VERSION } from '../../src/api/version.js';
import { layoutOfApiVersion, migrateConfig } from '../../src/config/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { ROOT, runCli } from '../helpers/cli.js';

const FIX = path.join(ROOT, 'test/fixtures/expected');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A temp copy of a fixture folder (the tests change files in place). */
function copy(scenario: string): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'evalkit-validate-'));
  dirs.push(d);
  cpSync(path.join(FIX, scenario), d, { recursive: true });
  return d;
}

const read = (f: string) => readFileSync(f, 'utf8');

describe('evalkit validate', () => {
  it('exits 0 on valid items and ends with a tally', async () => {
    const d = copy('classify');
    const r = await runCli(['validate', 'items.json', '--config', 'config.json'], { cwd: d });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('1 file, 2 documents: 2 valid, 0 invalid; 0 errors, 0 warnings');
  });

  it('exits 1 and names file, line, pointer, rule, expected and actual', async () => {
    const d = copy('extract-fix');
    const r = await runCli(['validate', 'items.jsonl', '--config', 'config.json'], { cwd: d });
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('items.jsonl');
    expect(r.stdout).toContain('  line 2 /expectedOutput: error value-wrapper: expected the results under "value"');
    expect(r.stdout).toContain('  line 2 /expectedOutput/total: error currency-shape: expected a currency object {amount, iso_4217_currency_code}, got string "EUR 1.234,50" (fixable with --fix)');
    expect(r.stdout).toContain('  line 4 /expectedOutput/value/invoice_date: error date-format: expected a date "YYYY-MM-DD", got string "03/04/2024" (ambiguous: the order of day and month is not known) (pass --date-order dmy or mdy to fix)');
    expect(r.stdout).toContain('  line 4 /expectedOutput/value/po: error unknown-field: "po" is not a field of the config');
    expect(lines[lines.length - 2]).toBe('1 file, 3 documents: 1 valid, 2 invalid; 9 errors, 0 warnings (6 fixable with --fix)');
  });

  it('--fix rewrites the file with the certain fixes, then reports what remains', async () => {
    const d = copy('extract-fix');
    const r = await runCli(['validate', 'items.jsonl', '--config', 'config.json', '--fix', '--currency', 'eur', '--date-order', 'dmy'], { cwd: d });
    expect(r.code).toBe(1);
    expect(read(path.join(d, 'items.jsonl'))).toBe(read(path.join(d, 'items.fixed.jsonl')));
    expect(r.stdout).toContain('  line 4 /expectedOutput/value/po: error unknown-field');
    expect(r.stdout).toContain('  fixed 8 findings -> items.jsonl');
    expect(r.stdout.trim().split('\n').pop()).toBe('1 file, 3 documents: 2 valid, 1 invalid; 1 error, 0 warnings; 8 fixed');
    // Fixing again changes nothing.
    const again = await runCli(['validate', 'items.jsonl', '--config', 'config.json', '--fix', '--currency', 'EUR', '--date-order', 'dmy'], { cwd: d });
    expect(again.code).toBe(1);
    expect(read(path.join(d, 'items.jsonl'))).toBe(read(path.join(d, 'items.fixed.jsonl')));
  });

  it('--fix writes nothing when its rewrite would change a number a double does not hold (1e999 -> null, a 23-digit integer rounded)', async () => {
    const d = copy('extract-fix');
    const cases: Array<[string, string, string]> = [
      ['huge.json', '{"value": {"total": {"amount": 1e999, "iso_4217_currency_code": "EUR"}, "paid": "yes"}}\n', 'huge.json:1:32: cannot write the fixes: the number 1e999 would be rewritten as null'],
      ['long.jsonl', '{"expectedOutput": {"value": {"paid": "no"}}}\n{"expectedOutput": {"value": {"paid": "yes", "po": 12345678901234567890123}}}\n', 'long.jsonl:2:52: cannot write the fixes: the number 12345678901234567890123 would be rewritten as 1.2345678901234568e+22'],
    ];
    for (const [name, text, message] of cases) {
      writeFileSync(path.join(d, name), text);
      const r = await runCli(['validate', name, '--config', 'config.json', '--fix'], { cwd: d });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(message);
      expect(read(path.join(d, name))).toBe(text);
      // The file counts as its input error alone: no document valid or fixed in memory is tallied.
      expect(r.stdout).toContain('1 file, 0 documents: 0 valid, 0 invalid; 0 errors, 0 warnings; 0 fixed; 1 file with an input error (named above)');
    }
    // Without --fix, the number beyond a double is an error of its own.
    const plain = await runCli(['validate', 'huge.json', '--config', 'config.json'], { cwd: d });
    expect(plain.code).toBe(1);
    expect(plain.stdout).toContain('/value/total/amount: error type-mismatch: expected a number, got a number beyond the range of JSON numbers');
  });

  it('--fix --out-dir writes fixed copies and leaves the inputs alone', async () => {
    const d = copy('splitter');
    const before = read(path.join(d, 'expected.json'));
    // The fixture's fixed copy keeps its split ids: the 2025-04-21 form (2026-02-09 drops them: tested below).
    const r = await runCli(['validate', 'expected.json', '--config', 'version.json', '--fix', '--out-dir', 'out', '--format', 'json'], { cwd: d, env: { EVALKIT_API_VERSION: '2025-04-21' } });
    expect(r.code).toBe(1);
    expect(read(path.join(d, 'expected.json'))).toBe(before);
    expect(read(path.join(d, 'out/expected.json'))).toBe(read(path.join(d, 'expected.fixed.json')));
    const j = JSON.parse(r.stdout);
    expect(j.config).toEqual({ origin: 'version.json', type: 'SPLITTER', expectedForm: '2025-04-21' });
    expect(j.files[0].fixed.map((f: { rule: string }) => f.rule).sort()).toEqual(['legacy-splits-key', 'type-mismatch']);
    expect(j.files[0].findings).toEqual([
      {
        file: 'expected.json',
        message: 'expected splits that share no page, got pages 2-3 overlapping /splits/0 (pages 1-2)',
        pointer: '/splits/1',
        rule: 'split-overlap',
        severity: 'error',
      },
    ]);
    expect(j.summary).toMatchObject({ documents: 1, errors: 1, fixed: 2, invalid: 1, inputErrors: 0 });
  });

  it('--format json rebases pointers and fixes onto the file', async () => {
    const d = copy('legacy-fields');
    // The fields form of an EXTRACT expected output exists on 2025-04-21 only (2026-02-09 refuses it: tested below).
    const pinned = { EVALKIT_API_VERSION: '2025-04-21' };
    const r = await runCli(['validate', 'expected.json', '--config', 'config.json', '--format', 'json'], { cwd: d, env: pinned });
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    const rules = j.files[0].findings.map((f: { rule: string; pointer: string }) => `${f.rule} ${f.pointer}`);
    expect(rules).toEqual(['legacy-field /total', 'legacy-field /total/type', 'currency-shape /total/value']);
    expect(j.files[0].findings[2].fix).toEqual([{ op: 'replace', path: '/total/value', value: { amount: 12, iso_4217_currency_code: 'USD' } }]);
    const fixed = await runCli(['validate', 'expected.json', '--config', 'config.json', '--fix'], { cwd: d, env: pinned });
    expect(fixed.code).toBe(0);
    expect(JSON.parse(read(path.join(d, 'expected.json')))).toEqual({
      'Invoice Number': { id: 'invoice_number', value: 'INV-1', confidence: 1 },
      Total: { id: 'total', value: { amount: 12, iso_4217_currency_code: 'USD' }, type: 'currency' },
    });
  });

  it('--strict turns absent fields into errors', async () => {
    const d = copy('extract-fix');
    writeFileSync(path.join(d, 'one.json'), JSON.stringify({ value: { invoice_number: 'A', invoice_date: null, total: null, paid: null, vendor: { name: 'x' } } }));
    const loose = await runCli(['validate', 'one.json', '--config', 'config.json'], { cwd: d });
    expect(loose.code).toBe(0);
    expect(loose.stdout).toContain('/value/line_items: warning missing-field');
    const strict = await runCli(['validate', 'one.json', '--config', 'config.json', '--strict'], { cwd: d });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('/value/line_items: error missing-field');
  });

  it('reads folders, and reports an unreadable file with exit 2 while checking the others', async () => {
    const d = copy('classify');
    writeFileSync(path.join(d, 'broken.json'), '{\n  "id": "invoice",\n  "type": \n}\n');
    const r = await runCli(['validate', '.', '--config', 'config.json', '--type', 'CLASSIFY'], { cwd: d });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('evalkit: broken.json:4:1: invalid JSON');
    // config.json itself is not an expected output: its findings are listed, then the tally.
    expect(r.stdout.trim().split('\n').pop()).toMatch(/^3 files, \d+ documents: .*; 1 file with an input error \(named above\)$/);
  });

  it.each([
    [['validate', 'x.json'], /--config FILE or --processor ID/],
    [['validate', 'x.json', '--config', 'c.json', '--processor', 'dp_1'], /mutually exclusive/],
    [['validate', 'x.json', '--config', 'c.json', '--currency', 'XYZ'], /--currency "XYZ" is not an ISO 4217 code/],
    [['validate', 'x.json', '--config', 'c.json', '--out-dir', 'o'], /--out-dir needs --fix/],
    [['validate', 'x.json', '--config', 'c.json', '--version', '1.0'], /--version needs --processor/],
    [['validate', 'x.json', '--config', 'missing.json'], /missing\.json: cannot read the config: ENOENT/],
  ])('%j exits 2 with a clear message', async (args, message) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('names the config file and pointer of a config it cannot use', async () => {
    const d = copy('classify');
    writeFileSync(path.join(d, 'bad.json'), JSON.stringify({ type: 'EXTRACT', fields: [{ id: 'a', type: 'money' }] }));
    const r = await runCli(['validate', 'items.json', '--config', 'bad.json'], { cwd: d });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bad.json at /fields/0/type: config: field "a" has unknown type "money"');
  });

  it('reads stdin', async () => {
    const r = await runCli(['validate', '-', '--config', path.join(FIX, 'classify/config.json')], { input: '{"id":"invoice","type":"Invoice"}' });
    expect(r.code).toBe(0);
  });

  it('--fix --out-dir of JSON Lines on stdin writes stdin.jsonl, which validates again', async () => {
    const d = copy('extract-fix');
    const r = await runCli(['validate', '-', '--config', 'config.json', '--fix', '--out-dir', 'out', '--currency', 'EUR', '--date-order', 'dmy'], { cwd: d, input: read(path.join(d, 'items.jsonl')) });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('-> out/stdin.jsonl');
    expect(read(path.join(d, 'out/stdin.jsonl'))).toBe(read(path.join(d, 'items.fixed.jsonl')));
    const again = await runCli(['validate', 'out/stdin.jsonl', '--config', 'config.json'], { cwd: d });
    expect(again.code, again.stderr).toBe(1);
    expect(again.stdout.trim().split('\n').pop()).toBe('1 file, 3 documents: 2 valid, 1 invalid; 1 error, 0 warnings');
  });
});

describe('evalkit validate --processor', () => {
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  let processorId: string;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, engineDelayMs: 1 });
    // The classifier (or processor) of the version the CLI speaks by default, its config in that version's layout.
    const client = createClient({ baseUrl: sandbox.url, token: sandbox.token, apiVersion: DEFAULT_API_VERSION });
    const config = migrateConfig(JSON.parse(read(path.join(FIX, 'classify/config.json'))), { to: layoutOfApiVersion(DEFAULT_API_VERSION) }).doc as Record<string, unknown>;
    processorId = (await client.entities('CLASSIFY').create({ name: 'classifier', config })).id;
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('validates against the processor fetched through the client', async () => {
    const env = { EVALKIT_BASE_URL: sandbox.url, EVALKIT_API_TOKEN: sandbox.token };
    const ok = await runCli(['validate', path.join(FIX, 'classify/items.json'), '--processor', processorId, '--version', 'draft', '--format', 'json'], { env });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).config).toEqual({ origin: `${processorId}@draft`, type: 'CLASSIFY', expectedForm: layoutOfApiVersion(DEFAULT_API_VERSION) });
    const bad = await runCli(['validate', '-', '--processor', processorId], { env, input: '{"id":"memo","type":"Memo"}' });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('unknown-classification');
    expect(bad.stdout + bad.stderr).not.toContain(sandbox.token);
  });

  it('--base-url wins over EVALKIT_BASE_URL', async () => {
    const env = { EVALKIT_BASE_URL: 'http://127.0.0.1:9/unused', EVALKIT_API_TOKEN: sandbox.token };
    const ok = await runCli(['validate', path.join(FIX, 'classify/items.json'), '--processor', processorId, '--base-url', sandbox.url], { env });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const bad = await runCli(['validate', path.join(FIX, 'classify/items.json'), '--processor', processorId, '--base-url', 'localhost:8787'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--base-url is not an http(s) address');
    expect(bad.stderr).not.toContain('localhost:8787');
  });
});

describe('evalkit schema', () => {
  it('prints the same JSON Schema for a config in either layout', async () => {
    const d = copy('classify');
    const old = await runCli(['schema', '--config', 'config.json'], { cwd: d });
    expect(old.code).toBe(0);
    const cfg = JSON.parse(read(path.join(d, 'config.json')));
    writeFileSync(path.join(d, 'new.json'), JSON.stringify({ type: 'CLASSIFY', classifications: cfg.fields, classificationRules: 'x' }));
    const neu = await runCli(['schema', '--config', 'new.json'], { cwd: d });
    expect(neu.stdout).toBe(old.stdout);
    const s = JSON.parse(old.stdout);
    expect(s.properties.id.enum).toEqual(['invoice', 'receipt']);
  });

  it('--types prints a TypeScript type', async () => {
    const r = await runCli(['schema', '--config', path.join(FIX, 'extract-fix/config.json'), '--types', '--name', 'InvoiceOutput']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('export interface InvoiceOutput {');
    expect(r.stdout).toContain('total?: Currency;');
    expect(r.stdout).toMatch(/line_items\?:/);
  });

  it.each([[''], ['123'], ['9lives']])('--types --name %j is a usage error, not an empty file or "unexpected error"', async (name) => {
    const r = await runCli(['schema', '--config', path.join(FIX, 'extract-fix/config.json'), '--types', '--name', name]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is not a TypeScript type name');
    expect(r.stdout).toBe('');
  });
});

describe('the API 2026-02-09 expected form (spec 3.7)', () => {
  const SPLITTER_2026 = { splitClassifications: [{ id: 'invoice', type: 'Invoice' }, { id: 'receipt', type: 'Receipt' }], parseConfig: { target: 'markdown' } };
  const CLASSIFY_2025 = { type: 'CLASSIFY', classifications: [{ id: 'invoice', type: 'Invoice' }, { id: 'other', type: 'Other' }] };
  // The API version comes from the environment unless a test sets it: none here.
  const env = { EVALKIT_API_VERSION: '' };
  function scenario(files: Record<string, unknown>): string {
    const d = mkdtempSync(path.join(os.tmpdir(), 'evalkit-validate-'));
    dirs.push(d);
    for (const [name, v] of Object.entries(files)) writeFileSync(path.join(d, name), typeof v === 'string' ? v : JSON.stringify(v, null, 2) + '\n');
    return d;
  }

  it('a 2026-02-09 config: splits without ids are valid (they were "required-property: expected id"); ids, identifier and observation are findings --fix removes', async () => {
    const d = scenario({
      'config.json': SPLITTER_2026,
      'items.jsonl':
        '{"expectedOutput": {"splits": [{"classificationId": "invoice", "type": "Invoice", "startPage": 1, "endPage": 2}]}}\n' +
        '{"expectedOutput": {"splits": [{"id": "s1", "classificationId": "receipt", "type": "Receipt", "startPage": 1, "endPage": 1, "identifier": "R-1"}]}}\n',
    });
    const r = await runCli(['validate', 'items.jsonl', '--config', 'config.json'], { cwd: d, env });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe(
      [
        'items.jsonl',
        '  line 2 /expectedOutput/splits/0/id: error api-version-form: expected no "id" in a split (API 2026-02-09 has none), got string "s1" (evalkit migrate FILE --to 2026-02-09 converts a whole file) (fixable with --fix)',
        '  line 2 /expectedOutput/splits/0/identifier: error api-version-form: expected no "identifier" in a split (API 2026-02-09 has none), got string "R-1" (evalkit migrate FILE --to 2026-02-09 converts a whole file) (fixable with --fix)',
        '',
        '1 file, 2 documents: 1 valid, 1 invalid; 2 errors, 0 warnings (2 fixable with --fix)',
        '',
      ].join('\n'),
    );
    const json = await runCli(['validate', 'items.jsonl', '--config', 'config.json', '--format', 'json'], { cwd: d, env });
    expect(JSON.parse(json.stdout).config).toEqual({ origin: 'config.json', type: 'SPLITTER', expectedForm: '2026-02-09' });
    const fixed = await runCli(['validate', 'items.jsonl', '--config', 'config.json', '--fix'], { cwd: d, env });
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(read(path.join(d, 'items.jsonl'))).toBe(
      '{"expectedOutput": {"splits": [{"classificationId": "invoice", "type": "Invoice", "startPage": 1, "endPage": 2}]}}\n' +
        '{"expectedOutput":{"splits":[{"classificationId":"receipt","type":"Receipt","startPage":1,"endPage":1}]}}\n',
    );
  });

  it('a 2025-04-21 config: the API version in effect (--api-version, EVALKIT_API_VERSION, else the default 2026-02-09) decides; confidence is reported under 2026-02-09 only', async () => {
    const d = scenario({ 'config.json': CLASSIFY_2025, 'item.json': { id: 'invoice', type: 'Invoice', confidence: 0.9 } });
    const old = await runCli(['validate', 'item.json', '--config', 'config.json'], { cwd: d, env: { EVALKIT_API_VERSION: '2025-04-21' } });
    expect(old.code, old.stdout).toBe(0);
    const flag = await runCli(['--api-version', '2025-04-21', 'validate', 'item.json', '--config', 'config.json'], { cwd: d, env: { EVALKIT_API_VERSION: '2026-02-09' } });
    expect(flag.code, flag.stdout).toBe(0);
    for (const run of [
      () => runCli(['validate', 'item.json', '--config', 'config.json'], { cwd: d, env }),
      () => runCli(['--api-version', '2026-02-09', 'validate', 'item.json', '--config', 'config.json'], { cwd: d, env: { EVALKIT_API_VERSION: '2025-04-21' } }),
      () => runCli(['validate', 'item.json', '--config', 'config.json'], { cwd: d, env: { EVALKIT_API_VERSION: '2026-02-09' } }),
    ]) {
      const r = await run();
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toContain('item.json\n  /confidence: error api-version-form: expected no "confidence" in a CLASSIFY expected output (API 2026-02-09 has none), got number 0.9');
    }
    const fixed = await runCli(['validate', 'item.json', '--config', 'config.json', '--fix', '--api-version', '2026-02-09'], { cwd: d, env });
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(JSON.parse(read(path.join(d, 'item.json')))).toEqual({ id: 'invoice', type: 'Invoice' });
  });

  it('a fields-form EXTRACT expected output under 2026-02-09: refused, rewritten as the value form when that is certain', async () => {
    const config = { type: 'EXTRACT', fields: [{ id: 'invoice_number', name: 'Invoice Number', type: 'string', description: '' }, { id: 'paid', name: 'Paid', type: 'boolean', description: '' }] };
    const d = scenario({ 'config.json': config, 'a.json': { 'Invoice Number': { id: 'invoice_number', value: 'INV-1' }, Paid: { id: 'paid', value: true } }, 'b.json': { Paid: { id: 'paid', value: true, confidence: 0.5 } } });
    const r = await runCli(['--api-version', '2026-02-09', 'validate', 'a.json', 'b.json', '--config', 'config.json', '--fix'], { cwd: d, env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('b.json\n  /: error api-version-form: expected {value: {...}} (API 2026-02-09 has no fields form of an EXTRACT expected output), got the fields form with key "Paid"');
    expect(JSON.parse(read(path.join(d, 'a.json')))).toEqual({ value: { invoice_number: 'INV-1', paid: true } });
    expect(JSON.parse(read(path.join(d, 'b.json')))).toEqual({ Paid: { id: 'paid', value: true, confidence: 0.5 } });
  });

  it('schema: the JSON Schema and the TypeScript type of the 2026-02-09 form', async () => {
    const d = scenario({ 'config.json': SPLITTER_2026 });
    const s = await runCli(['schema', '--config', 'config.json'], { cwd: d, env });
    expect(s.code, s.stderr).toBe(0);
    const split = JSON.parse(s.stdout).definitions.Split;
    expect(split.required).toEqual(['classificationId', 'type', 'startPage', 'endPage']);
    expect(Object.keys(split.properties).sort()).toEqual(['classificationId', 'endPage', 'startPage', 'type']);
    const t = await runCli(['schema', '--config', 'config.json', '--types'], { cwd: d, env });
    expect(t.stdout).toContain('export interface Split {\n  classificationId: "invoice" | "receipt";\n  type: "Invoice" | "Receipt";\n  startPage: number;\n  endPage: number;\n}');
  });
});

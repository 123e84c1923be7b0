// Unknown config keys through the built binary: `migrate` (every mode, JSONL, stdin) and
// `processors create/update --config` against a sandbox on a random loopback port.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAfterEach, runCli } from '../helpers/cli.js';
import { start, type TestSandbox } from '../sandbox/helpers.js';

const { tmp } = cleanupAfterEach('migrate-unknown');

const TYPO = '{\n  "type": "EXTRACT",\n  "includeBoundingBoxCitations": true,\n  "extractonRules": "Totals include tax.",\n  "schema": { "type": "object" }\n}\n';
const GOOD = '{\n  "type": "EXTRACT",\n  "customExtractionRules": "r",\n  "schema": { "type": "object" }\n}\n';
const ITEMS = '{"object":"extractor_version","config":{"schema":{}}}\n{"object":"extractor_version","config":{"schema":{},"advancedOptions":{"citatonMode":"word"}}}\n';
const MESSAGE = 'typo.json at /extractonRules: unknown key "extractonRules" in an EXTRACT config (no config layout has it)\n  hint: did you mean extractionRules? (--allow-unknown keeps it as it is: for a key of a service version newer than evalkit)';

function folder(): { dir: string; before: Record<string, string> } {
  const dir = tmp();
  const before = { 'typo.json': TYPO, 'good.json': GOOD, 'items.jsonl': ITEMS };
  for (const [name, text] of Object.entries(before)) writeFileSync(path.join(dir, name), text);
  return { dir, before };
}

const read = (dir: string, name: string) => readFileSync(path.join(dir, name), 'utf8');

describe('evalkit migrate: unknown keys (built binary)', () => {
  it('--write: exit 2 naming file, line, pointer and the closest key; the files with one are left byte for byte, the others migrated, no temp files', async () => {
    const { dir, before } = folder();
    const r = await runCli(['migrate', '.', '--to', '2025-04-21', '--write'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(MESSAGE);
    expect(r.stderr).toContain('items.jsonl:2 at /config/advancedOptions/citatonMode: unknown key "citatonMode" in an EXTRACT config (no config layout has it)\n  hint: did you mean citationMode?');
    expect(r.stdout).toMatch(/^1 migrated, 0 unchanged, 2 errors/m);
    expect(read(dir, 'typo.json')).toBe(before['typo.json']);
    expect(read(dir, 'items.jsonl')).toBe(before['items.jsonl']);
    expect(read(dir, 'good.json')).toBe('{\n  "type": "EXTRACT",\n  "extractionRules": "r",\n  "schema": { "type": "object" }\n}\n');
    expect(readdirSync(dir).sort()).toEqual(['good.json', 'items.jsonl', 'typo.json']);
  });

  it('--check and --out-dir report it the same way (exit 2) and write nothing for that file', async () => {
    const { dir, before } = folder();
    const check = await runCli(['migrate', 'typo.json', '--check'], { cwd: dir });
    expect(check.code).toBe(2);
    expect(check.stderr).toContain(MESSAGE);
    const out = await runCli(['migrate', 'typo.json', '--out-dir', 'out'], { cwd: dir });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(MESSAGE);
    expect(readdirSync(dir).sort()).toEqual(['good.json', 'items.jsonl', 'typo.json']);
    expect(read(dir, 'typo.json')).toBe(before['typo.json']);
  });

  it('stdin: exit 2, nothing on stdout', async () => {
    const r = await runCli(['migrate', '-', '--to', '2026-02-09'], { input: TYPO });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('- at /extractonRules: unknown key "extractonRules" in an EXTRACT config (no config layout has it)');
  });

  it('--allow-unknown keeps the key where it is, byte for byte, and migrates the rest', async () => {
    const { dir } = folder();
    const r = await runCli(['migrate', '.', '--to', '2025-04-21', '--write', '--allow-unknown'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(read(dir, 'typo.json')).toBe('{\n  "type": "EXTRACT",\n  "advancedOptions": {\n    "citationsEnabled": true\n  },\n  "extractonRules": "Totals include tax.",\n  "schema": { "type": "object" }\n}\n');
    // Extractor versions going down get their type; the unknown option stays as it was.
    expect(read(dir, 'items.jsonl')).toBe('{"object":"extractor_version","config":{"type":"EXTRACT","schema":{}}}\n{"object":"extractor_version","config":{"type":"EXTRACT","schema":{},"advancedOptions":{"citatonMode":"word"}}}\n');
    const check = await runCli(['migrate', '.', '--to', '2025-04-21', '--check', '--allow-unknown'], { cwd: dir });
    expect(check.code).toBe(0);
  });

  it('--help names the flag, with an example', async () => {
    const r = await runCli(['migrate', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--allow-unknown');
    expect(r.stdout).toContain('migrate configs/ --allow-unknown --write');
  });
});

describe('evalkit processors create/update --config: unknown keys (built binary, sandbox)', () => {
  let t: TestSandbox;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await start();
    env = { EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token, EVALKIT_API_VERSION: '2025-04-21' };
  });
  afterAll(async () => {
    await t.close();
  });

  it('refused before any request (exit 2, file, pointer, hint); --allow-unknown sends it as it is', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'typo.json'), TYPO);
    const refused = await runCli(['processors', 'create', '--name', 'inv', '--config', 'typo.json'], { cwd: dir, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(MESSAGE);
    expect(refused.stderr).not.toContain(t.token);
    const listed = await runCli(['processors', 'list', '--format', 'json'], { cwd: dir, env });
    expect((JSON.parse(listed.stdout) as { processors: unknown[] }).processors).toEqual([]);

    const created = await runCli(['processors', 'create', '--name', 'inv', '--config', 'typo.json', '--allow-unknown', '--format', 'json'], { cwd: dir, env });
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const id = (JSON.parse(created.stdout) as { processor: { id: string } }).processor.id;
    const versions = await runCli(['processors', 'versions', id, '--format', 'json'], { cwd: dir, env });
    const draft = (JSON.parse(versions.stdout) as { versions: Array<{ config: Record<string, unknown> }> }).versions[0].config;
    expect(draft).toMatchObject({ extractonRules: 'Totals include tax.', advancedOptions: { citationsEnabled: true } });

    writeFileSync(path.join(dir, 'typo2.json'), '{"type":"EXTRACT","schema":{},"advancedOptions":{"chunkingOptions":{"pageChunkSise":2}}}');
    const update = await runCli(['processors', 'update', id, '--config', 'typo2.json'], { cwd: dir, env });
    expect(update.code).toBe(2);
    expect(update.stderr).toContain('typo2.json at /advancedOptions/chunkingOptions/pageChunkSise: unknown key "pageChunkSise" in an EXTRACT config (no config layout has it)\n  hint: did you mean pageChunkSize?');
  });
});

describe('evalkit init --config: unknown keys (built binary, sandbox)', () => {
  let t: TestSandbox;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await start();
    env = { EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token, EVALKIT_API_VERSION: '2026-02-09' };
  });
  afterAll(async () => {
    await t.close();
  });

  it("the hint names what init's user can do (init has no --allow-unknown), nothing is written, and the way it names works", async () => {
    const dir = tmp();
    const text = '{"type": "EXTRACT", "extractonRules": "Totals include tax.", "schema": {"type": "object", "properties": {"total": {"type": "number"}}}}\n';
    writeFileSync(path.join(dir, 'typo.json'), text);
    const r = await runCli(['init', '--config', 'typo.json'], { cwd: dir, env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const create = 'evalkit processors create --name typo --config typo.json --allow-unknown';
    expect(r.stderr.split('\n').slice(0, 2)).toEqual([
      'evalkit: typo.json at /extractonRules: unknown key "extractonRules" in an EXTRACT config (no config layout has it)',
      `  hint: did you mean extractionRules? (for a key of a service version newer than evalkit: ${create} keeps it, then evalkit init --processor ID)`,
    ]);
    expect(readdirSync(dir)).toEqual(['typo.json']);
    const help = await runCli(['init', '--help']);
    expect(help.stdout).not.toContain('--allow-unknown');

    // As the hint says, for a key of a newer service version: the processor keeps the key, and init
    // from the processor takes its config as it is. The 2026-02-09 sandbox knows every member of its
    // version, so it refuses this one (docs/sandbox-api.md); its 2025-04-21 route keeps it.
    const refused = await runCli(create.split(' ').slice(1), { cwd: dir, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('/config/extractonRules: unknown member "extractonRules"; did you mean "extractionRules"?');
    const legacy = { ...env, EVALKIT_API_VERSION: '2025-04-21' };
    const made = await runCli(create.split(' ').slice(1), { cwd: dir, env: legacy });
    expect(made.code).toBe(0);
    const id = /^processor (dp_\w+) /.exec(made.stdout)?.[1];
    expect(id).toBeDefined();
    const init = await runCli(['init', '--processor', id!], { cwd: dir, env: legacy });
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(JSON.parse(read(dir, 'configs/typo.json'))).toMatchObject({ extractonRules: 'Totals include tax.' });
    expect(read(dir, 'typo.json')).toBe(text);
  });
});

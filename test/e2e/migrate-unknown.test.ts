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

  it('inside the items of class lists and page ranges: exit 2 naming the item, --allow-unknown keeps it', async () => {
    const dir = tmp();
    const text = '{\n  "type": "CLASSIFY",\n  "fields": [{ "id": "inv", "type": "invoice", "descripton": "An invoice." }]\n}\n';
    const splitter = '{"type":"SPLITTER","splitClassifications":[{"id":"a","type":"a","description":"A"}],"advancedOptions":{"pageRanges":[{"start":1,"ned":2}]}}\n';
    writeFileSync(path.join(dir, 'classes.json'), text);
    writeFileSync(path.join(dir, 'ranges.json'), splitter);
    const r = await runCli(['migrate', '.', '--to', '2026-02-09', '--write'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('classes.json at /fields/0/descripton: unknown key "descripton" in a CLASSIFY config (no config layout has it)\n  hint: did you mean description? (--allow-unknown keeps it');
    expect(r.stderr).toContain('ranges.json at /advancedOptions/pageRanges/0/ned: unknown key "ned" in a SPLITTER config (no config layout has it)\n  hint: did you mean end?');
    expect(r.stdout).toMatch(/^0 migrated, 0 unchanged, 2 errors/m);
    expect(read(dir, 'classes.json')).toBe(text);
    expect(read(dir, 'ranges.json')).toBe(splitter);
    const kept = await runCli(['migrate', 'classes.json', '--to', '2026-02-09', '--write', '--allow-unknown'], { cwd: dir });
    expect(kept.stderr).toBe('');
    expect(kept.code).toBe(0);
    expect(read(dir, 'classes.json')).toBe('{\n  "classifications": [{ "id": "inv", "type": "invoice", "descripton": "An invoice." }]\n}\n');
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

    // A config inside a saved processor: the pointer is the file's, not the config's.
    writeFileSync(path.join(dir, 'saved.json'), JSON.stringify({ object: 'document_processor', id: 'dp_1', name: 'inv', type: 'EXTRACT', draftVersion: { version: 'draft', config: JSON.parse(TYPO) as unknown } }));
    const saved = await runCli(['processors', 'update', id, '--config', 'saved.json'], { cwd: dir, env });
    expect(saved.code).toBe(2);
    expect(saved.stderr).toContain('saved.json at /draftVersion/config/extractonRules: unknown key "extractonRules"');
  });

  it('a typo inside a class or a page range: refused before any request; --allow-unknown sends it', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'classes.json'), '{"type":"CLASSIFY","classifications":[{"id":"inv","type":"invoice","descripton":"An invoice."}]}');
    const refused = await runCli(['processors', 'create', '--name', 'cls', '--config', 'classes.json'], { cwd: dir, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('classes.json at /classifications/0/descripton: unknown key "descripton" in a CLASSIFY config (no config layout has it)\n  hint: did you mean description?');
    const listed = await runCli(['processors', 'list', '--format', 'json'], { cwd: dir, env });
    expect((JSON.parse(listed.stdout) as { processors: Array<{ name: string }> }).processors.map((p) => p.name)).not.toContain('cls');

    // A member of a service version newer than evalkit, beside the ones it knows.
    writeFileSync(path.join(dir, 'classes.json'), '{"type":"CLASSIFY","classifications":[{"id":"inv","type":"invoice","description":"An invoice.","examples":["INV-1"]}]}');
    const created = await runCli(['processors', 'create', '--name', 'cls', '--config', 'classes.json', '--allow-unknown', '--format', 'json'], { cwd: dir, env });
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const id = (JSON.parse(created.stdout) as { processor: { id: string } }).processor.id;
    const versions = await runCli(['processors', 'versions', id, '--format', 'json'], { cwd: dir, env });
    const draft = (JSON.parse(versions.stdout) as { versions: Array<{ config: { classifications: unknown[] } }> }).versions[0].config;
    expect(draft.classifications).toEqual([{ id: 'inv', type: 'invoice', description: 'An invoice.', examples: ['INV-1'] }]);

    writeFileSync(path.join(dir, 'ranges.json'), '{"type":"CLASSIFY","classifications":[{"id":"inv","type":"invoice","description":"x"}],"advancedOptions":{"pageRanges":[{"strat":1,"end":2}]}}');
    const update = await runCli(['processors', 'update', id, '--config', 'ranges.json'], { cwd: dir, env });
    expect(update.code).toBe(2);
    expect(update.stderr).toContain('ranges.json at /advancedOptions/pageRanges/0/strat: unknown key "strat" in a CLASSIFY config (no config layout has it)\n  hint: did you mean start?');
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

  it("the hint names what init's user can do (init has no --allow-unknown), and nothing is written", async () => {
    const dir = tmp();
    const text = '{"type": "EXTRACT", "extractonRules": "Totals include tax.", "schema": {"type": "object", "properties": {"total": {"type": "number"}}}}\n';
    writeFileSync(path.join(dir, 'typo.json'), text);
    const r = await runCli(['init', '--config', 'typo.json'], { cwd: dir, env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').slice(0, 2)).toEqual([
      'evalkit: typo.json at /extractonRules: unknown key "extractonRules" in an EXTRACT config (no config layout has it)',
      '  hint: did you mean extractionRules? (init and the workflow it writes take the keys evalkit knows; for a key of a service version newer than evalkit, upgrade evalkit)',
    ]);
    expect(readdirSync(dir)).toEqual(['typo.json']);
    expect(read(dir, 'typo.json')).toBe(text);
    const help = await runCli(['init', '--help']);
    expect(help.stdout).not.toContain('--allow-unknown');
  });
});

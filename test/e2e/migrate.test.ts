import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_API_VERSION } from '../../src/api/version.js';
import { layoutOfApiVersion, migrateText } from '../../src/config/index.js';
import { BIN, ROOT, runCli } from '../helpers/cli.js';
import { start } from '../sandbox/helpers.js';

const CONFIGS = path.join(ROOT, 'datasets/configs');
const FIXTURES = path.join(ROOT, 'test/fixtures/migrate');

function tmp(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'evalkit-migrate-'));
}

/** A copy of datasets/configs under a fresh folder, with its file texts before the run. */
function sampleTree(): { dir: string; before: Record<string, string> } {
  const dir = tmp();
  cpSync(CONFIGS, path.join(dir, 'configs'), { recursive: true });
  const before: Record<string, string> = {};
  for (const f of readdirSync(path.join(dir, 'configs'))) before[f] = readFileSync(path.join(dir, 'configs', f), 'utf8');
  return { dir, before };
}

function texts(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => [e.name, readFileSync(path.join(dir, e.name), 'utf8')]),
  );
}

describe('evalkit migrate (built binary, real files)', () => {
  it('dry run by default: a patch per file, a tally, nothing written', async () => {
    const { dir, before } = sampleTree();
    const r = await runCli(['migrate', 'configs'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('configs/invoice-extract.json: would migrate 2024-11-14 -> 2026-02-09 (EXTRACT)');
    expect(r.stdout).toContain('{"op":"move","from":"/customExtractionRules","path":"/extractionRules"}');
    expect(r.stdout).toMatch(/^3 migrated, 0 unchanged, 0 errors \(dry run: nothing written/m);
    expect(texts(path.join(dir, 'configs'))).toEqual(before);
  });

  it('--write rewrites in place keeping indentation, key order and the trailing newline; twice changes nothing', async () => {
    const dir = tmp();
    const names = readdirSync(FIXTURES).filter((n) => existsSync(path.join(FIXTURES, n, 'old.json')) && !existsSync(path.join(FIXTURES, n, 'case.json')));
    for (const n of names) cpSync(path.join(FIXTURES, n, 'old.json'), path.join(dir, `${n}.json`));
    chmodSync(path.join(dir, `${names[0]}.json`), 0o600);
    // The fixtures' new.json are the 2024-11-14 -> 2025-04-21 step (some carry split ids 2026-02-09 has no place for):
    // a team on API 2025-04-21, whose version also reads a config without `type` as 2025-04-21 (docs/migrate.md, rule 5).
    const pinned = { EVALKIT_API_VERSION: '2025-04-21' };
    const first = await runCli(['migrate', '.', '--write'], { cwd: dir, env: pinned });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    for (const n of names) expect(readFileSync(path.join(dir, `${n}.json`), 'utf8'), n).toBe(readFileSync(path.join(FIXTURES, n, 'new.json'), 'utf8'));
    expect(readdirSync(dir).filter((f) => f.startsWith('.evalkit-tmp-'))).toEqual([]);
    expect(statSync(path.join(dir, `${names[0]}.json`)).mode & 0o777).toBe(0o600);
    const again = await runCli(['migrate', '.', '--write'], { cwd: dir, env: pinned });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^0 migrated, ${names.length} unchanged, 0 errors`, 'm'));
  });

  it('--out-dir mirrors paths relative to the given root and leaves the inputs alone', async () => {
    const { dir, before } = sampleTree();
    mkdirSync(path.join(dir, 'configs/nested'));
    writeFileSync(path.join(dir, 'configs/nested/classify.json'), before['document-classify.json']);
    const r = await runCli(['migrate', 'configs', '--out-dir', 'out'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(texts(path.join(dir, 'configs'))).toMatchObject(before);
    const migrated = JSON.parse(readFileSync(path.join(dir, 'out/nested/classify.json'), 'utf8')) as Record<string, unknown>;
    expect(migrated).toHaveProperty('classifications');
    expect(migrated).not.toHaveProperty('fields');
    expect(readdirSync(path.join(dir, 'out')).sort()).toEqual(['document-classify.json', 'invoice-extract.json', 'nested', 'packet-splitter.json']);
  });

  it('--out-dir naming the folder being migrated is a usage error (the walk leaves --out-dir out: it found nothing and passed)', async () => {
    const { dir, before } = sampleTree();
    for (const outDir of ['configs', 'configs/', path.join(dir, 'configs')]) {
      const r = await runCli(['migrate', 'configs', '--out-dir', outDir], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is the folder being migrated');
      expect(r.stderr).toContain('--write');
    }
    expect(texts(path.join(dir, 'configs'))).toEqual(before);
  });

  it('--out-dir: one line per file names its types, how many configs and splitter outputs, and where the copy went', async () => {
    const dir = tmp();
    mkdirSync(path.join(dir, 'in'));
    const items = [
      { type: 'EXTRACT', customExtractionRules: 'r', includeBoundingBoxCitations: true },
      { type: 'CLASSIFY', customClassificationRules: 'c', fields: [{ id: 'a', type: 'a' }] },
      { type: 'EXTRACT', customExtractionRules: 's' },
      { fileId: 'f1', expectedOutput: { subDocumentClassifications: [{ startPage: 1, endPage: 1 }] } },
      { fileId: 'f2', expectedOutput: { subDocumentClassifications: [{ startPage: 2, endPage: 2 }] } },
    ];
    writeFileSync(path.join(dir, 'in/mixed.json'), JSON.stringify(items, null, 2));
    const r = await runCli(['migrate', 'in', '--out-dir', 'out'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`in/mixed.json: migrated 2024-11-14 -> 2026-02-09 (EXTRACT, CLASSIFY; 3 configs; 2 splitter outputs) -> ${path.join(dir, 'out/mixed.json')}\n`);
    expect(JSON.parse(readFileSync(path.join(dir, 'out/mixed.json'), 'utf8'))).toMatchObject([{ extractionRules: 'r', advancedOptions: { citationsEnabled: true } }, { classificationRules: 'c' }, { extractionRules: 's' }, { expectedOutput: { splits: [{ startPage: 1 }] } }, {}]);
  });

  it('--out-dir: a copy that cannot be written is an error naming it; the other copies are written, no temp file is left', async () => {
    const { dir } = sampleTree();
    // A folder where the copy of invoice-extract.json should go: the rename over it fails.
    mkdirSync(path.join(dir, 'out/invoice-extract.json/x'), { recursive: true });
    const r = await runCli(['migrate', 'configs', '--out-dir', 'out'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`configs/invoice-extract.json: cannot write ${path.join(dir, 'out/invoice-extract.json')}: EISDIR`);
    expect(r.stdout).toMatch(/^2 migrated, 0 unchanged, 1 error$/m);
    expect(readdirSync(path.join(dir, 'out')).sort()).toEqual(['document-classify.json', 'invoice-extract.json', 'packet-splitter.json']);
    expect(JSON.parse(readFileSync(path.join(dir, 'out/packet-splitter.json'), 'utf8'))).toHaveProperty('splitRules');
  });

  it('--out-dir: a file that is not UTF-8 is an error and gets no copy; a BOM and a written U+FFFD are copied byte for byte', async () => {
    const dir = tmp();
    mkdirSync(path.join(dir, 'in'));
    writeFileSync(path.join(dir, 'in/bad.json'), Buffer.concat([Buffer.from('{"type": "CLASSIFY", "fields": [], "x": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]));
    const kept = Buffer.from('\ufeff{"type": "CLASSIFY", "classifications": [], "classificationRules": "\ufffd"}\n');
    writeFileSync(path.join(dir, 'in/kept.json'), kept);
    // kept.json is unchanged in its own layout, 2025-04-21 (on 2026-02-09 its `type` would go).
    const r = await runCli(['migrate', 'in', '--out-dir', 'out', '--to', '2025-04-21'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('in/bad.json: not valid UTF-8');
    expect(r.stdout).toMatch(/^0 migrated, 1 unchanged, 1 error$/m);
    expect(readdirSync(path.join(dir, 'out'))).toEqual(['kept.json']);
    expect(readFileSync(path.join(dir, 'out/kept.json'))).toEqual(kept);
  });

  it('--check exits 1 while files need migration and 0 once they are migrated, writing nothing', async () => {
    const { dir, before } = sampleTree();
    const pending = await runCli(['migrate', 'configs', '--check'], { cwd: dir });
    expect(pending.code).toBe(1);
    expect(texts(path.join(dir, 'configs'))).toEqual(before);
    expect((await runCli(['migrate', 'configs', '--write'], { cwd: dir })).code).toBe(0);
    const done = await runCli(['migrate', 'configs', '--check'], { cwd: dir });
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/0 migrated, 3 unchanged, 0 errors/);
  });

  it('--format json: one result per file with path, from, to, status, patch, warnings and dropped', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'lossy.json'), '{"type":"SPLITTER","customReminders":"check totals","subDocumentClassifications":[]}\n');
    writeFileSync(path.join(dir, 'neither.json'), '{"type":"EXTRACT","schema":{"type":"object","properties":{}}}\n');
    // neither.json is unchanged in its own layout, 2025-04-21 (on 2026-02-09 its `type` would go).
    const r = await runCli(['migrate', '.', '--allow-lossy', '--format', 'json', '--to', '2025-04-21'], { cwd: dir });
    expect(r.code).toBe(0);
    const files = (JSON.parse(r.stdout) as { files: Array<Record<string, unknown>> }).files;
    expect(files.map((f) => [f.path, f.status])).toEqual([
      ['lossy.json', 'migrated'],
      ['neither.json', 'unchanged'],
    ]);
    expect(files[0]).toMatchObject({ from: '2024-11-14', to: '2025-04-21', dropped: [{ pointer: '/customReminders', value: 'check totals' }] });
    expect(files[0].patch).toContainEqual({ op: 'move', from: '/subDocumentClassifications', path: '/splitClassifications' });
  });

  it('one bad file does not stop the others, is never written, and makes the run exit 2', async () => {
    const dir = tmp();
    const bad = '{\n  "type": "EXTRACT",\n  "schema": {}\n  "customExtractionRules": "x"\n}\n';
    const mixed = '{"type":"SPLITTER","splitClassifications":[],"customSplitterRules":"x"}\n';
    const lossy = '{"type":"SPLITTER","customReminders":"r","subDocumentClassifications":[]}\n';
    writeFileSync(path.join(dir, 'bad.json'), bad);
    writeFileSync(path.join(dir, 'mixed.json'), mixed);
    writeFileSync(path.join(dir, 'lossy.json'), lossy);
    writeFileSync(path.join(dir, 'good.json'), '{"type":"EXTRACT","customExtractionRules":"r","schema":{}}\n');
    const r = await runCli(['migrate', '.', '--write'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bad.json:4:3: invalid JSON');
    expect(r.stderr).toMatch(/mixed\.json.*\/customSplitterRules \(2024-11-14\) and \/splitClassifications \(2025-04-21 or newer\)/);
    expect(r.stderr).toMatch(/lossy\.json at \/customReminders: .*no counterpart/);
    expect(r.stderr).toContain('--allow-lossy');
    expect(r.stdout).toMatch(/1 migrated, 0 unchanged, 3 errors/);
    expect(readFileSync(path.join(dir, 'bad.json'), 'utf8')).toBe(bad);
    expect(readFileSync(path.join(dir, 'mixed.json'), 'utf8')).toBe(mixed);
    expect(readFileSync(path.join(dir, 'lossy.json'), 'utf8')).toBe(lossy);
    expect(JSON.parse(readFileSync(path.join(dir, 'good.json'), 'utf8'))).toEqual({ extractionRules: 'r', schema: {} });
  });

  it('asks for --type when the type cannot be told, and uses it when given', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'rules.json'), '{"fields":[{"id":"a","type":"a","description":"A"}]}\n');
    const r = await runCli(['migrate', 'rules.json'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('rules.json');
    expect(r.stderr).toContain('--type');
    const typed = await runCli(['migrate', 'rules.json', '--type', 'classify', '--write'], { cwd: dir });
    expect(typed.code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir, 'rules.json'), 'utf8'))).toEqual({ classifications: [{ id: 'a', type: 'a', description: 'A' }] });
  });

  it('down with --to 2024-11-14 refuses new-only options unless --allow-lossy', async () => {
    const dir = tmp();
    const text = '{"type":"EXTRACT","schema":{},"extractionRules":"r","advancedOptions":{"citationsEnabled":true,"modelReasoningInsightsEnabled":true}}\n';
    writeFileSync(path.join(dir, 'c.json'), text);
    const refused = await runCli(['migrate', 'c.json', '--to', '2024-11-14', '--write'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('/advancedOptions/modelReasoningInsightsEnabled');
    expect(readFileSync(path.join(dir, 'c.json'), 'utf8')).toBe(text);
    const lossy = await runCli(['migrate', 'c.json', '--to', '2024-11-14', '--write', '--allow-lossy'], { cwd: dir });
    expect(lossy.code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir, 'c.json'), 'utf8'))).toEqual({ type: 'EXTRACT', schema: {}, customExtractionRules: 'r', includeBoundingBoxCitations: true });
  });

  it('- reads stdin and writes the migrated document to stdout', async () => {
    const r = await runCli(['migrate', '-', '--type', 'CLASSIFY'], { input: '{"fields":[],"customClassificationRules":"r"}' });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ classifications: [], classificationRules: 'r' });
    // --format json: the report on stderr (stdout holds the document), keys sorted as everywhere.
    const j = await runCli(['migrate', '-', '--type', 'CLASSIFY', '--format', 'json'], { input: '{"fields":[],"customClassificationRules":"r"}' });
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual({ classifications: [], classificationRules: 'r' });
    expect(Object.keys(JSON.parse(j.stderr))).toEqual(['files', 'mode', 'tally', 'to']);
    expect(Object.keys((JSON.parse(j.stderr) as { files: object[] }).files[0])).toEqual([...Object.keys((JSON.parse(j.stderr) as { files: object[] }).files[0])].sort());
  });

  it('JSONL files: splitter expected outputs of evaluation set items are renamed line by line', async () => {
    const dir = tmp();
    cpSync(path.join(FIXTURES, 'envelope-evaluation-items-jsonl/old.jsonl'), path.join(dir, 'items.jsonl'));
    // The fixture's new.jsonl is the 2025-04-21 form (its split ids have no place in 2026-02-09).
    const r = await runCli(['migrate', 'items.jsonl', '--write', '--type', 'SPLITTER', '--to', '2025-04-21'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(dir, 'items.jsonl'), 'utf8')).toBe(readFileSync(path.join(FIXTURES, 'envelope-evaluation-items-jsonl/new.jsonl'), 'utf8'));
  });

  it.each([
    [['migrate', 'x', '--write', '--out-dir', 'o'], '--write and --out-dir cannot be combined'],
    [['migrate', 'x', '--check', '--write'], '--check writes nothing'],
    [['migrate', 'x', '--to', '2023-01-01'], 'Invalid values'],
    [['migrate', 'x', '--bogus'], 'Unknown argument: bogus'],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

describe('a killed --write', () => {
  // Generated configs of about 2 KB, in both forms, so that a kill lands while files are being written.
  function generate(dir: string, n: number): Map<string, { old: string; next: string }> {
    const files = new Map<string, { old: string; next: string }>();
    for (let i = 0; i < n; i++) {
      const config = {
        type: 'EXTRACT',
        baseProcessor: 'extraction_performance',
        customExtractionRules: `Rule ${i}: `.padEnd(1200, 'x'),
        includeBoundingBoxCitations: i % 2 === 0,
        schema: { type: 'object', properties: Object.fromEntries(Array.from({ length: 12 }, (_, k) => [`field_${k}`, { type: ['string', 'null'], description: `Field ${k} of config ${i}` }])) },
      };
      const old = JSON.stringify(config, null, 2) + '\n';
      // The layout the killed run migrates to: that of the default API version.
      const r = migrateText(old, `c${i}.json`, { to: layoutOfApiVersion(DEFAULT_API_VERSION) });
      if (!r.text) throw new Error('fixture does not migrate');
      files.set(`c${i}.json`, { old, next: r.text });
      writeFileSync(path.join(dir, `c${i}.json`), old);
    }
    return files;
  }

  /** Starts `migrate --write`, SIGKILLs it once `changed` files have their new text, and resolves when it is dead. */
  function killAfter(dir: string, files: Map<string, { next: string }>, changed: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'migrate', '.', '--write'], { cwd: dir, stdio: 'ignore' });
      const names = [...files.keys()];
      const poll = setInterval(() => {
        let n = 0;
        for (const name of names) {
          try {
            if (readFileSync(path.join(dir, name), 'utf8') === files.get(name)?.next) n++;
          } catch {
            // a file is never missing: a failed read is the assertion's business, below
          }
          if (n >= changed) break;
        }
        if (n >= changed) child.kill('SIGKILL');
      }, 2);
      child.on('error', reject);
      child.on('exit', () => {
        clearInterval(poll);
        resolve();
      });
    });
  }

  it('leaves every file either old or new, never torn; a rerun finishes the rest', async () => {
    const dir = tmp();
    const files = generate(dir, 400);
    for (const changed of [1, 150]) {
      await killAfter(dir, files, changed);
      for (const [name, f] of files) {
        const text = readFileSync(path.join(dir, name), 'utf8');
        expect(text === f.old || text === f.next, `${name} is torn`).toBe(true);
      }
    }
    // Temp files of the killed run are not taken for inputs.
    const r = await runCli(['migrate', '.', '--write'], { cwd: dir });
    expect(r.code).toBe(0);
    for (const [name, f] of files) expect(readFileSync(path.join(dir, name), 'utf8'), name).toBe(f.next);
  });
});

describe('a new --out-dir is made whole', () => {
  // Enough small configs in 20 folders that a signal lands while the copies are being written.
  function generate(dir: string, n: number): void {
    for (let i = 0; i < n; i++) {
      mkdirSync(path.join(dir, 'in', `d${i % 20}`), { recursive: true });
      writeFileSync(path.join(dir, 'in', `d${i % 20}`, `c${i}.json`), JSON.stringify({ type: 'EXTRACT', customExtractionRules: `rule ${i}`, includeBoundingBoxCitations: true, schema: {} }, null, 2));
    }
  }

  /** The entries of `dir` but the input folder. */
  const made = (dir: string) => readdirSync(dir).filter((n) => n !== 'in');

  /** Starts `migrate in --out-dir out`, sends `signal` once a staging folder holds copies, and resolves with how it ended. */
  function signalMidRun(dir: string, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; staged: number }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'migrate', 'in', '--out-dir', 'out'], { cwd: dir, stdio: 'ignore' });
      let staged = 0;
      const poll = setInterval(() => {
        const stage = made(dir).find((n) => n.startsWith('.evalkit-tmp-out.'));
        if (!stage) return;
        try {
          staged = readdirSync(path.join(dir, stage), { recursive: true }).length;
        } catch {
          return;
        }
        if (staged > 20) {
          clearInterval(poll);
          child.kill(signal);
        }
      }, 2);
      child.on('error', reject);
      child.on('exit', (code, sig) => {
        clearInterval(poll);
        resolve({ code, signal: sig, staged });
      });
    });
  }

  it('SIGKILL mid-run leaves no out/, only the hidden staging folder, which the next run removes', async () => {
    const dir = tmp();
    generate(dir, 3000);
    const killed = await signalMidRun(dir, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.staged).toBeGreaterThan(20);
    expect(made(dir)).toEqual([expect.stringMatching(/^\.evalkit-tmp-out\.\d+\.[0-9a-f]{8}$/)]);
    const r = await runCli(['migrate', 'in', '--out-dir', 'out'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(made(dir)).toEqual(['out']);
    expect(readdirSync(path.join(dir, 'out'), { recursive: true }).filter((f) => String(f).endsWith('.json'))).toHaveLength(3000);
    expect(JSON.parse(readFileSync(path.join(dir, 'out/d7/c7.json'), 'utf8'))).toMatchObject({ extractionRules: 'rule 7', advancedOptions: { citationsEnabled: true } });
  });

  it.each([
    ['SIGTERM', { code: null, signal: 'SIGTERM' }],
    ['SIGINT', { code: 130, signal: null }],
  ] as const)('%s mid-run leaves neither out/ nor a staging folder', async (signal, ended) => {
    const dir = tmp();
    generate(dir, 3000);
    const r = await signalMidRun(dir, signal);
    expect({ code: r.code, signal: r.signal }).toEqual(ended);
    expect(made(dir)).toEqual([]);
  });

  it('an --out-dir that exists keeps what it holds and gets the copies file by file, with no temp file left', async () => {
    const { dir } = sampleTree();
    mkdirSync(path.join(dir, 'out'));
    writeFileSync(path.join(dir, 'out/notes.txt'), 'mine');
    const r = await runCli(['migrate', 'configs', '--out-dir', 'out'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(readdirSync(path.join(dir, 'out')).sort()).toEqual(['document-classify.json', 'invoice-extract.json', 'notes.txt', 'packet-splitter.json']);
    expect(readFileSync(path.join(dir, 'out/notes.txt'), 'utf8')).toBe('mine');
    expect(readdirSync(dir).filter((n) => n.startsWith('.evalkit-tmp-'))).toEqual([]);
  });
});

describe('evalkit migrate to and from 2026-02-09 (built binary)', () => {
  const NO_VERSION = { EVALKIT_API_VERSION: '' };

  it('--to 2026-02-09 from 2024-11-14 in one run, checked clean after, and back to the same bytes', async () => {
    const { dir, before } = sampleTree();
    const up = await runCli(['migrate', 'configs', '--to', '2026-02-09', '--write'], { cwd: dir, env: NO_VERSION });
    expect(up.code).toBe(0);
    expect(up.stdout).toContain('configs/invoice-extract.json: migrated 2024-11-14 -> 2026-02-09 (EXTRACT)');
    const extract = JSON.parse(readFileSync(path.join(dir, 'configs/invoice-extract.json'), 'utf8')) as Record<string, unknown>;
    expect(extract).not.toHaveProperty('type');
    expect(extract).toMatchObject({ extractionRules: expect.any(String), advancedOptions: { citationsEnabled: true } });
    expect((await runCli(['migrate', 'configs', '--to', '2026-02-09', '--check'], { cwd: dir, env: NO_VERSION })).code).toBe(0);
    const down = await runCli(['migrate', 'configs', '--to', '2024-11-14', '--from', '2026-02-09', '--write'], { cwd: dir, env: NO_VERSION });
    expect(down.code).toBe(0);
    expect(texts(path.join(dir, 'configs'))).toEqual(before);
  });

  it('--to defaults to the layout of the API version in effect: flag, variable, config file, else 2026-02-09', async () => {
    const { dir } = sampleTree();
    const target = async (args: string[], env: NodeJS.ProcessEnv) => (await runCli(['migrate', 'configs/invoice-extract.json', '--check', ...args], { cwd: dir, env })).stdout.match(/-> (\S+) \(EXTRACT\)/)?.[1];
    expect(await target([], NO_VERSION)).toBe('2026-02-09');
    expect(await target([], { EVALKIT_API_VERSION: '2025-04-21' })).toBe('2025-04-21');
    expect(await target(['--api-version', '2025-04-21'], { EVALKIT_API_VERSION: '2026-02-09' })).toBe('2025-04-21');
    expect(await target(['--api-version', '2026-02-09'], { EVALKIT_API_VERSION: '2025-04-21' })).toBe('2026-02-09');
    writeFileSync(path.join(dir, 'evalkit.config.json'), JSON.stringify({ apiVersion: '2025-04-21' }));
    expect(await target([], NO_VERSION)).toBe('2025-04-21');
    expect(await target(['--api-version', '2026-02-09'], NO_VERSION)).toBe('2026-02-09');
    const bad = await runCli(['migrate', 'configs', '--api-version', 'latest'], { cwd: dir, env: NO_VERSION });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--api-version "latest" is not a release date');
  });

  it('a team pinned to 2025-04-21 keeps checking against 2025-04-21', async () => {
    const { dir } = sampleTree();
    // The team's configs, migrated while 2025-04-21 was the default.
    expect((await runCli(['migrate', 'configs', '--write', '--to', '2025-04-21'], { cwd: dir, env: NO_VERSION })).code).toBe(0);
    const migrated = texts(path.join(dir, 'configs'));
    for (const pin of [{ file: { apiVersion: '2025-04-21' }, env: NO_VERSION }, { file: {}, env: { EVALKIT_API_VERSION: '2025-04-21' } }]) {
      writeFileSync(path.join(dir, 'evalkit.config.json'), JSON.stringify(pin.file));
      const r = await runCli(['migrate', 'configs', '--check'], { cwd: dir, env: pin.env });
      expect(r.code, JSON.stringify(pin)).toBe(0);
      expect(r.stdout).toContain('0 migrated, 3 unchanged, 0 errors');
    }
    // Unpinned, the same check targets the default, 2026-02-09: the pin is what keeps it green.
    writeFileSync(path.join(dir, 'evalkit.config.json'), '{}');
    const unpinned = await runCli(['migrate', 'configs', '--check'], { cwd: dir, env: NO_VERSION });
    expect(unpinned.code).toBe(1);
    expect(unpinned.stdout).toContain('-> 2026-02-09');
    expect(texts(path.join(dir, 'configs'))).toEqual(migrated);
  });

  it('an INFERRED mapping is refused unless named, and shown in the patch when applied', async () => {
    const dir = tmp();
    const text = '{\n  "type": "SPLITTER",\n  "splitClassifications": [],\n  "advancedOptions": { "splitMethod": "low_latency", "fixedPageLimit": 5 }\n}\n';
    writeFileSync(path.join(dir, 'split.json'), text);
    const refused = await runCli(['migrate', 'split.json', '--to', '2026-02-09', '--write'], { cwd: dir, env: NO_VERSION });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('split.json at /advancedOptions/fixedPageLimit: 2 keys have no counterpart in 2026-02-09: /advancedOptions/fixedPageLimit, /advancedOptions/splitMethod');
    expect(refused.stderr).toContain('--infer fixedPageLimit and --infer splitMethod would map them instead');
    expect(readFileSync(path.join(dir, 'split.json'), 'utf8')).toBe(text);
    const dry = await runCli(['migrate', 'split.json', '--to', '2026-02-09', '--infer', 'splitMethod', 'fixedPageLimit'], { cwd: dir, env: NO_VERSION });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('{"op":"replace","path":"/advancedOptions/splitMethod","value":"basic_precision"}');
    expect(dry.stdout).toContain('"path":"/advancedOptions/pageRanges","value":[{"start":1,"end":5}]');
    expect(dry.stdout).toContain('INFERRED (--infer splitMethod)');
    const bad = await runCli(['migrate', 'split.json', '--to', '2026-02-09', '--infer', 'guess'], { cwd: dir, env: NO_VERSION });
    expect(bad.code).toBe(2);
  });

  it.each([
    ['a config that mixes layouts', '{"type":"EXTRACT","customExtractionRules":"r","parseConfig":{},"schema":{}}\n', [], 'at /customExtractionRules: mixed layouts in one EXTRACT config: /customExtractionRules (2024-11-14) and /parseConfig (2026-02-09)', 'keep one layout per config'],
    ['a 2026-02-09 config with --from 2024-11-14', '{"schema":{},"parseConfig":{"engine":"parse_light"}}\n', ['--from', '2024-11-14'], 'at /: this EXTRACT config is not in the 2024-11-14 layout (--from): its keys are those of 2026-02-09', '--from 2026-02-09'],
    ['a config that is not an object', '{"object":"extractor_version","id":"exv_1","config":["schema"]}\n', [], 'at /config: a processor config must be a JSON object, not an array', 'give the config as an object'],
    ['a fields-form EXTRACT config going up', '{"type":"EXTRACT","fields":[{"id":"a","name":"a","type":"string","description":"A"}]}\n', [], 'at /fields: a fields-form EXTRACT config has no 2026-02-09 form', 'JSON Schema'],
  ])('bad input: %s exits 2 naming file, pointer and fix; nothing written', async (_name, text, args, message, hint) => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'c.json'), text);
    const r = await runCli(['migrate', 'c.json', '--to', '2026-02-09', '--write', ...args], { cwd: dir, env: NO_VERSION });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`c.json ${message}`);
    expect(r.stderr).toMatch(new RegExp(`hint: .*${hint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(readFileSync(path.join(dir, 'c.json'), 'utf8')).toBe(text);
    expect(readdirSync(dir)).toEqual(['c.json']);
  });
});

describe('evalkit migrate --convert-fields (built binary, a config and a JSONL of items)', () => {
  const NO_VERSION = { EVALKIT_API_VERSION: '' };
  const CONFIG =
    '{\n' +
    '    "type": "EXTRACT",\n' +
    '    "extractionRules": "Amounts as printed.",\n' +
    '    "fields": [\n' +
    '        { "id": "invoice_number", "name": "Invoice Number", "type": "string", "description": "As printed" },\n' +
    '        { "id": "total", "name": "Total", "type": "currency", "description": "" },\n' +
    '        { "id": "paid", "name": "Paid", "type": "enum", "description": "", "enum": [{ "value": "yes", "description": "" }, { "value": "no", "description": "" }] }\n' +
    '    ]\n' +
    '}\n';
  // CRLF line ends and an amount written 12.50: kept as they are.
  const ITEMS =
    '{"fileId":"file_1","expectedOutput":{"Invoice Number":{"id":"invoice_number","value":"INV-1","confidence":1},"Total":{"id":"total","value":{"amount":12.50,"iso_4217_currency_code":"EUR"}},"Paid":{"id":"paid","value":"yes"}}}\r\n' +
    '{"fileId":"file_2","expectedOutput":{"Invoice Number":{"id":"invoice_number","value":null,"type":"string"}}}\r\n';
  const SCHEMA = {
    type: 'object',
    properties: {
      invoice_number: { type: ['string', 'null'], description: 'As printed' },
      total: {
        type: 'object',
        'extend:type': 'currency',
        properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } },
        required: ['amount', 'iso_4217_currency_code'],
      },
      paid: { enum: ['yes', 'no', null] },
    },
    required: ['invoice_number', 'total', 'paid'],
    additionalProperties: false,
  };

  function setup(files: Record<string, string> = { 'processor.json': CONFIG, 'items.jsonl': ITEMS }): string {
    const dir = tmp();
    for (const [n, t] of Object.entries(files)) writeFileSync(path.join(dir, n), t);
    return dir;
  }

  it('converts the config and its items in one run: check, dry run with the patch, write; validate agrees; twice changes nothing', async () => {
    const dir = setup();
    const args = ['migrate', 'processor.json', 'items.jsonl', '--to', '2026-02-09', '--convert-fields', '--allow-lossy'];
    const check = await runCli([...args, '--check'], { cwd: dir, env: NO_VERSION });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('items.jsonl: would migrate 2025-04-21 -> 2026-02-09 (2 expected outputs)');
    const dry = await runCli([...args, '--format', 'json'], { cwd: dir, env: NO_VERSION });
    expect(dry.code, dry.stderr).toBe(0);
    const report = JSON.parse(dry.stdout) as { files: Array<{ path: string; patch: Array<{ op: string; path: string; value?: unknown }>; dropped: Array<{ pointer: string; value: unknown }> }> };
    expect(report.files[0].patch).toContainEqual({ op: 'add', path: '/schema', value: SCHEMA });
    expect(report.files[0].dropped.map((d) => [d.pointer, d.value])).toEqual([
      ['/fields/0/name', 'Invoice Number'],
      ['/fields/1/name', 'Total'],
      ['/fields/2/name', 'Paid'],
    ]);
    expect(report.files[1].patch).toContainEqual({ op: 'add', path: '/1/expectedOutput/value', value: { invoice_number: null } });
    expect(readFileSync(path.join(dir, 'processor.json'), 'utf8')).toBe(CONFIG);

    const w = await runCli([...args, '--write'], { cwd: dir, env: NO_VERSION });
    expect(w.code, w.stderr).toBe(0);
    expect(w.stdout).toContain('dropped at /fields/0/name: "Invoice Number"');
    expect(w.stdout).toMatch(/^2 migrated, 0 unchanged, 0 errors$/m);
    const config = readFileSync(path.join(dir, 'processor.json'), 'utf8');
    expect(JSON.parse(config)).toEqual({ extractionRules: 'Amounts as printed.', schema: SCHEMA });
    // The file's 4-space indentation kept.
    expect(config).toContain('\n    "schema": {\n        "type": "object",');
    expect(readFileSync(path.join(dir, 'items.jsonl'), 'utf8')).toBe(
      '{"fileId":"file_1","expectedOutput":{"value":{"invoice_number":"INV-1","total":{"amount":12.50,"iso_4217_currency_code":"EUR"},"paid":"yes"}}}\r\n' +
        '{"fileId":"file_2","expectedOutput":{"value":{"invoice_number":null}}}\r\n',
    );
    const v = await runCli(['validate', 'items.jsonl', '--config', 'processor.json'], { cwd: dir, env: NO_VERSION });
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const again = await runCli([...args.filter((a) => a !== '--allow-lossy'), '--check'], { cwd: dir, env: NO_VERSION });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('0 migrated, 2 unchanged, 0 errors');
  });

  it.each([
    ['lossy keys without --allow-lossy', { 'processor.json': CONFIG, 'items.jsonl': ITEMS }, ['processor.json', 'items.jsonl'], 'processor.json at /fields/0/name: 3 keys have no counterpart in 2026-02-09', '--allow-lossy'],
    ['items without their config', { 'items.jsonl': ITEMS }, ['items.jsonl', '--allow-lossy'], 'items.jsonl:1 at /expectedOutput: a fields-form EXTRACT expected output, and no fields-form config in this run', "pass the processor's config file in the same command"],
    ['a config without its items', { 'processor.json': CONFIG }, ['processor.json', '--allow-lossy'], 'processor.json at /fields: converting this fields-form config to a schema changes the form', '--no-items'],
    ['an item the config has no field for', { 'processor.json': CONFIG, 'items.jsonl': ITEMS.replace('"id":"paid"', '"id":"paid_at"') }, ['processor.json', 'items.jsonl', '--allow-lossy'], 'items.jsonl:1 at /expectedOutput/Paid/id: "paid_at" is no field id', 'fix the entry'],
  ])('refused, exit 2, nothing written: %s', async (_name, files, args, message, hint) => {
    const dir = setup(files);
    const r = await runCli(['migrate', ...args, '--to', '2026-02-09', '--convert-fields', '--write'], { cwd: dir, env: NO_VERSION });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`evalkit: ${message}`);
    expect(r.stderr).toMatch(new RegExp(`hint: .*${hint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    for (const [n, t] of Object.entries(files)) expect(readFileSync(path.join(dir, n), 'utf8'), n).toBe(t);
    expect(readdirSync(dir).sort()).toEqual(Object.keys(files).sort());
  });

  it('the converted config, taken down to 2025-04-21, stays a schema and the sandbox takes it as a processor', async () => {
    const dir = setup({ 'processor.json': CONFIG });
    const up = await runCli(['migrate', 'processor.json', '--to', '2026-02-09', '--convert-fields', '--no-items', '--allow-lossy', '--write'], { cwd: dir, env: NO_VERSION });
    expect(up.code, up.stderr).toBe(0);
    const t = await start();
    try {
      // On the default API version the converted config is an extractor's as it is.
      const env26 = { ...NO_VERSION, EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token };
      const extractor = await runCli(['processors', 'create', '--name', 'converted', '--type', 'EXTRACT', '--config', 'processor.json', '--format', 'json'], { cwd: dir, env: env26 });
      expect(extractor.code, extractor.stderr).toBe(0);
      const exId = (JSON.parse(extractor.stdout) as { processor: { id: string } }).processor.id;
      expect(exId).toMatch(/^ex_/);
      const exVersions = await runCli(['processors', 'versions', exId, '--format', 'json'], { cwd: dir, env: env26 });
      const exConfig = (JSON.parse(exVersions.stdout) as { versions: Array<{ config: Record<string, unknown> }> }).versions[0].config;
      expect(exConfig).toMatchObject({ extractionRules: 'Amounts as printed.', schema: SCHEMA });
      expect(exConfig).not.toHaveProperty('type');
      // Text: a 2026-02-09 version has no updatedAt: its column says when it was created.
      const exText = await runCli(['processors', 'versions', exId], { cwd: dir, env: env26 });
      expect(exText.stdout.split('\n')[0]).toMatch(/^version\s+id\s+created\s+description$/);

      const down = await runCli(['migrate', 'processor.json', '--to', '2025-04-21', '--from', '2026-02-09', '--write'], { cwd: dir, env: NO_VERSION });
      expect(down.code, down.stderr).toBe(0);
      expect(JSON.parse(readFileSync(path.join(dir, 'processor.json'), 'utf8'))).toEqual({ type: 'EXTRACT', extractionRules: 'Amounts as printed.', schema: SCHEMA });
      // A processor (/processors, dp_ ids) is the 2025-04-21 API's: the team that took the config down is pinned to it.
      const env = { EVALKIT_API_VERSION: '2025-04-21', EVALKIT_BASE_URL: t.url, EVALKIT_API_TOKEN: t.token };
      const created = await runCli(['processors', 'create', '--name', 'converted', '--type', 'EXTRACT', '--config', 'processor.json', '--format', 'json'], { cwd: dir, env });
      expect(created.code, created.stderr).toBe(0);
      const id = (JSON.parse(created.stdout) as { processor: { id: string } }).processor.id;
      const versions = await runCli(['processors', 'versions', id, '--format', 'json'], { cwd: dir, env });
      expect((JSON.parse(versions.stdout) as { versions: Array<{ config: unknown }> }).versions[0].config).toMatchObject({ type: 'EXTRACT', schema: SCHEMA });
    } finally {
      await t.close();
    }
  });

  it('--no-items converts a config whose processor has no items', async () => {
    const dir = setup({ 'processor.json': CONFIG });
    const r = await runCli(['migrate', 'processor.json', '--to', '2026-02-09', '--convert-fields', '--no-items', '--allow-lossy', '--write'], { cwd: dir, env: NO_VERSION });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir, 'processor.json'), 'utf8'))).toHaveProperty('schema', SCHEMA);
  });

  it('usage: --no-items needs --convert-fields; --convert-fields needs --to 2026-02-09; --help has the example', async () => {
    const dir = setup();
    const a = await runCli(['migrate', 'processor.json', '--to', '2026-02-09', '--no-items'], { cwd: dir, env: NO_VERSION });
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('--no-items applies only with --convert-fields');
    // A team pinned to 2025-04-21: its default target is 2025-04-21, where fields stay fields.
    const b = await runCli(['migrate', 'processor.json', '--convert-fields'], { cwd: dir, env: { EVALKIT_API_VERSION: '2025-04-21' } });
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--convert-fields converts fields-form configs going up to 2026-02-09; the target here is 2025-04-21');
    const help = await runCli(['migrate', '--help'], { cwd: dir, env: NO_VERSION });
    // The example (yargs wraps it beside its description).
    expect(help.stdout).toContain('evalkit migrate processor.json items.jsonl --to');
    expect(help.stdout).toContain('2026-02-09 --convert-fields --allow-lossy --write');
    expect(help.stdout).toContain('--convert-fields');
  });
});

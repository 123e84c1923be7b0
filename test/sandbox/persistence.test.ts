import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { SCHEMA_VERSION } from '../../src/sandbox/store.js';
import { INVOICE_CONFIG, createProcessor, start, uploadText } from './helpers.js';

type Json = Record<string, unknown>;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-sandbox-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('state survives a restart with --data-dir; the dev token is kept; unfinished runs resume', async () => {
  const a = await start({ dataDir: dir });
  const pid = await createProcessor(a, 'EXTRACT', INVOICE_CONFIG, 'kept');
  await a.call('POST', `/processors/${pid}/publish`, { body: { releaseType: 'major' } });
  const fileId = await uploadText(a, 'kept.txt', 'Invoice number: K-1');
  const set = (await a.call<{ evaluationSet: { id: string } }>('POST', '/evaluation_sets', { body: { name: 's', processorId: pid } })).body.evaluationSet.id;
  await a.call('POST', '/evaluation_set_items', { body: { evaluationSetId: set, fileId, expectedOutput: { value: { invoice_number: 'K-1' } } } });
  a.sb.pauseEngine();
  const run = (await a.call<{ processorRun: { id: string } }>('POST', '/processor_runs', { body: { processorId: pid, file: { fileId } } })).body.processorRun.id;
  const batch = (await a.call<{ batchProcessorRun: { id: string } }>('POST', '/batch_processor_runs', { body: { evaluationSetId: set } })).body.batchProcessorRun.id;
  const token = a.token;
  await a.close();
  expect(existsSync(path.join(dir, 'sandbox.db'))).toBe(true);

  const b = await start({ dataDir: dir });
  try {
    expect(b.token).toBe(token);
    const versions = await b.call<{ versions: Json[] }>('GET', `/processors/${pid}/versions`);
    expect(versions.body.versions.map((v) => v.version)).toEqual(['draft', '1.0']);
    const f = await b.call<{ file: Json }>('GET', `/files/${fileId}?rawText=true`);
    expect(f.body.file.contents).toEqual({ rawText: 'Invoice number: K-1' });
    expect((await b.call<{ evaluationSetItems: Json[] }>('GET', `/evaluation_sets/${set}/items`)).body.evaluationSetItems).toHaveLength(1);
    await b.sb.idle();
    expect((await b.call<{ processorRun: Json }>('GET', `/processor_runs/${run}`)).body.processorRun.status).toBe('PROCESSED');
    expect((await b.call<{ batchProcessorRun: Json }>('GET', `/batch_processor_runs/${batch}`)).body.batchProcessorRun).toMatchObject({ status: 'PROCESSED', runCount: 1 });
    // Timestamps keep increasing across the restart.
    const p2 = await createProcessor(b, 'EXTRACT', INVOICE_CONFIG, 'later');
    const list = await b.call<{ processors: Json[] }>('GET', '/processors?sortDir=asc');
    expect(list.body.processors.map((p) => p.id)).toEqual([pid, p2]);
  } finally {
    await b.close();
  }
});

test('one sandbox per data dir', async () => {
  const a = await start({ dataDir: dir });
  try {
    await createProcessor(a, 'EXTRACT');
    await expect(start({ dataDir: dir })).rejects.toThrow(/data dir is in use by another sandbox/);
  } finally {
    await a.close();
  }
});

test('without --data-dir nothing is kept', async () => {
  const a = await start();
  await createProcessor(a, 'EXTRACT');
  await a.close();
  const b = await start();
  try {
    expect((await b.call<{ processors: Json[] }>('GET', '/processors')).body.processors).toEqual([]);
  } finally {
    await b.close();
  }
});

test('a data dir of store schema 1 (before workflows and webhooks) opens, upgrades in place and keeps its data', async () => {
  const a = await start({ dataDir: dir });
  const pid = await createProcessor(a, 'EXTRACT', INVOICE_CONFIG, 'old');
  await a.close();
  // What an evalkit of schema 1 left behind: none of the new tables.
  const db = new Database(path.join(dir, 'sandbox.db'));
  for (const table of ['workflows', 'workflow_versions', 'workflow_runs', 'webhook_endpoints', 'webhook_deliveries', 'webhook_attempts']) db.exec(`DROP TABLE ${table}`);
  db.prepare("UPDATE meta SET value = '1' WHERE key = 'schema'").run();
  db.close();

  const b = await start({ dataDir: dir });
  try {
    expect((await b.call<{ processors: Json[] }>('GET', '/processors')).body.processors.map((p) => p.id)).toEqual([pid]);
    const wf = await b.call<{ workflow: { id: string } }>('POST', '/workflows', { body: { name: 'new', steps: [{ processorId: pid }] } });
    const run = await b.call<{ workflowRuns: Json[] }>('POST', '/workflow_runs', { body: { workflowId: wf.body.workflow.id, rawTexts: ['x'] } });
    expect(run.status).toBe(200);
  } finally {
    await b.close();
  }
  const after = new Database(path.join(dir, 'sandbox.db'), { readonly: true });
  try {
    expect(after.prepare("SELECT value FROM meta WHERE key = 'schema'").get()).toEqual({ value: String(SCHEMA_VERSION) });
    expect(SCHEMA_VERSION).toBe(2);
  } finally {
    after.close();
  }
});

const modeOf = (f: string): number => statSync(f).mode & 0o777;

test('the store holds the dev token: owner only (a data dir it makes 0700, sandbox.db and its -wal/-shm 0600); a looser store is tightened', async () => {
  const made = path.join(dir, 'new', 'data');
  const a = await start({ dataDir: made });
  try {
    await createProcessor(a, 'EXTRACT');
    expect(modeOf(path.join(dir, 'new'))).toBe(0o700);
    expect(modeOf(made)).toBe(0o700);
    const files = readdirSync(made).filter((f) => f.startsWith('sandbox.db'));
    expect(files).toContain('sandbox.db-wal');
    for (const f of files) expect([f, modeOf(path.join(made, f))]).toEqual([f, 0o600]);
  } finally {
    await a.close();
  }
  // A store an older evalkit left 0644, in a folder the user made: the file is tightened, the folder left as it is.
  chmodSync(dir, 0o755);
  const kept = path.join(made, 'sandbox.db');
  chmodSync(kept, 0o644);
  const b = await start({ dataDir: made });
  try {
    expect(b.token).toBe(a.token);
    for (const f of readdirSync(made).filter((f) => f.startsWith('sandbox.db'))) expect([f, modeOf(path.join(made, f))]).toEqual([f, 0o600]);
  } finally {
    await b.close();
  }
  // An existing data dir is not changed: it is the user's.
  const own = path.join(dir, 'own');
  mkdirSync(own, { mode: 0o755 });
  chmodSync(own, 0o755);
  const c = await start({ dataDir: own });
  await c.close();
  expect(modeOf(own)).toBe(0o755);
  expect(modeOf(path.join(own, 'sandbox.db'))).toBe(0o600);
});

test('a data dir that cannot hold the store says what is wrong and where (not "damaged"); a file that is not SQLite may be damaged', async () => {
  const folder = path.join(dir, 'folder');
  mkdirSync(path.join(folder, 'sandbox.db'), { recursive: true });
  const isDir = await start({ dataDir: folder }).then((s) => s.close(), (e: unknown) => e as { message: string; hint?: string; exitCode: number });
  expect(isDir).toMatchObject({ message: `the sandbox store ${path.join(folder, 'sandbox.db')} is a folder, not a file`, exitCode: 2 });
  expect(isDir?.hint).toContain('move the folder');

  writeFileSync(path.join(dir, 'plain'), '');
  await expect(start({ dataDir: path.join(dir, 'plain', 'data') })).rejects.toThrow(`cannot create data dir: a folder above ${path.join(dir, 'plain', 'data')} is a file (ENOTDIR)`);
  await expect(start({ dataDir: path.join(dir, 'plain') })).rejects.toThrow(`data dir is not a folder: ${path.join(dir, 'plain')} is a file`);

  const junk = path.join(dir, 'junk');
  mkdirSync(junk);
  writeFileSync(path.join(junk, 'sandbox.db'), 'not a SQLite database '.repeat(20));
  const damaged = await start({ dataDir: junk }).then((s) => s.close(), (e: unknown) => e as { message: string; hint?: string });
  expect(damaged?.message).toBe('cannot open the sandbox store: file is not a database');
  expect(damaged?.hint).toContain('may be damaged');
});

// Root writes through a chmod 0500 folder, so as root the folder is one the kernel refuses (sysfs).
const readOnly = process.getuid?.() === 0 ? (existsSync('/sys/kernel') ? '/sys/kernel' : undefined) : 'chmod';
test.skipIf(readOnly === undefined)('a data dir that is not writable is named as such, with the fix (exit 2)', async () => {
  let target = readOnly!;
  if (target === 'chmod') {
    target = path.join(dir, 'locked');
    mkdirSync(target);
    chmodSync(target, 0o500);
  }
  const e = await start({ dataDir: target }).then((s) => s.close(), (x: unknown) => x as { message: string; hint?: string; exitCode: number });
  expect(e).toMatchObject({ message: `data dir ${target} is not writable (EACCES)`, exitCode: 2 });
  expect(e?.hint).toContain(`chmod u+w ${target}`);
  if (readOnly === 'chmod') chmodSync(target, 0o700);
});

// A three-way sync killed with SIGKILL at any point loses no label: the re-run ends with the
// CSV's changes on the service, the service's own changes kept and the conflict still refused.
// One set holds the three cases at once: items 0-3 corrected on the service only, items 4-10
// edited in the CSV only, item 11 changed on both sides to different values.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { docs, folder, json, service, SIMPLE, type Service } from './dataset-helpers.js';

const N = 12;
const SERVICE_SIDE = [0, 1, 2, 3];
const CONFLICT = 11;

let s: Service | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const money = (amount: number) => ({ amount, iso_4217_currency_code: 'EUR' });
const csvOf = (total: (i: number) => number) => ['file,invoice_number,total', ...Array.from({ length: N }, (_, i) => `files/doc-${i}.txt,N-${i},EUR ${total(i)}`)].join('\n') + '\n';
/** The CSV after its edits: items 4 to 11 get new totals. */
const edited = (i: number) => (i >= 4 ? 1000 + i : 10 + i);
/** What the set must hold after the sync. */
const wanted = (i: number) => ({ value: { invoice_number: `N-${i}`, total: money(SERVICE_SIDE.includes(i) ? 500 + i : i === CONFLICT ? 700 : edited(i)) } });

function journalLines(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').slice(0, -1);
}

/** Runs the sync as a child and kills it with SIGKILL once the journal satisfies `when` (polled). */
async function killWhen(env: Record<string, string>, args: string[], cwd: string, journal: string, when: (lines: string[]) => boolean): Promise<string[]> {
  const child = spawn(process.execPath, [BIN, 'dataset', 'upload', ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  let ended = false;
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  void exited.then(() => (ended = true));
  for (;;) {
    const lines = journalLines(journal);
    if (when(lines)) {
      child.kill('SIGKILL');
      await exited;
      return lines;
    }
    if (ended) throw new Error(`the sync ended before the kill point:\n${output}\n${lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

const count = (lines: string[], k: string, op: string) => lines.filter((l) => l.includes(`"k":"${k}","op":"${op}"`)).length;
const runs = (lines: string[]) => lines.filter((l) => l.includes('"k":"run"')).length;

/** A set synced from the CSV, then corrected on the service, then the CSV edited: ready for the sync under test. */
async function diverged(svc: Service) {
  const dir = folder({ 'data.csv': csvOf((i) => 10 + i), ...docs(N) });
  const p = await svc.processor('EXTRACT', SIMPLE);
  const first = await svc.upload(['data.csv', '--create-set', 'kill', '--processor', p, '--format', 'json'], dir);
  expect(first.code, first.stdout + first.stderr).toBe(0);
  const setId = json(first).set.id;
  for (const it of await svc.items(setId)) {
    const i = Number(/doc-(\d+)/.exec(it.file)![1]);
    if (SERVICE_SIDE.includes(i)) await svc.client.items(setId).update(it.id, { expectedOutput: { value: { invoice_number: `N-${i}`, total: money(500 + i) } } });
    if (i === CONFLICT) await svc.client.items(setId).update(it.id, { expectedOutput: { value: { invoice_number: `N-${i}`, total: money(700) } } });
  }
  writeFileSync(path.join(dir, 'data.csv'), csvOf(edited));
  return { dir, setId, journal: path.join(dir, 'data.journal.ndjson'), args: ['data.csv', '-e', setId, '--concurrency', '1', '--format', 'json'] };
}

async function expectIntended(svc: Service, setId: string): Promise<void> {
  const items = await svc.items(setId);
  expect(items).toHaveLength(N);
  for (const it of items) expect(it.expectedOutput, it.file).toEqual(wanted(Number(/doc-(\d+)/.exec(it.file)![1])));
}

describe('kill -9 during a three-way sync', () => {
  const points: Array<[string, (lines: string[]) => boolean]> = [
    ['as the writes begin, before any update', (l) => runs(l) === 2],
    ['with an update sent and its answer not yet recorded', (l) => runs(l) === 2 && count(l, 'update', 'start') >= 3 && count(l, 'update', 'start') > count(l, 'update', 'done')],
    ['after several updates were confirmed', (l) => runs(l) === 2 && count(l, 'update', 'done') >= 5],
  ];

  // Three CLI runs over a latency of 60 ms each: slow on a busy machine, never a timing assert.
  it.each(points)('killed %s: the re-run ends in the intended state and a third run sends nothing', async (_name, when) => {
    s = await service({ latencyMs: 60 });
    const { dir, setId, journal, args } = await diverged(s);
    const atKill = await killWhen(s.env, args, dir, journal, when);
    // Killed mid-run: the sync's run record has no end.
    expect(atKill.slice(atKill.findLastIndex((l) => l.includes('"k":"run"'))).some((l) => l.includes('"k":"end"'))).toBe(false);

    const r = await s.upload(args, dir);
    // The conflict is still refused (exit 1); everything else is done.
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const out = json(r);
    expect(out.tally).toMatchObject({ kept: SERVICE_SIDE.length, conflicts: 1, failed: 0 });
    expect(out.tally.updated + out.tally.unchanged).toBe(N - SERVICE_SIDE.length - 1);
    await expectIntended(s, setId);

    const again = json(await s.upload(args, dir));
    expect(again.tally).toMatchObject({ updated: 0, unchanged: N - SERVICE_SIDE.length - 1, kept: SERVICE_SIDE.length, conflicts: 1 });
    await expectIntended(s, setId);
  }, 180_000);

  it('killed after the service confirmed an update but before its record: the re-run sees CSV and service agree and records it', { timeout: 180_000 }, async () => {
    s = await service();
    const { dir, setId, journal, args } = await diverged(s);
    const full = await s.upload(args, dir);
    expect(full.code).toBe(1);
    // The journal as a kill right after the third confirmed update would have left it.
    const lines = journalLines(journal);
    const run = lines.findLastIndex((l) => l.includes('"k":"run"'));
    let seen = 0;
    const cut = lines.findIndex((l, i) => i > run && l.includes('"k":"update","op":"done"') && ++seen === 3);
    writeFileSync(journal, lines.slice(0, cut + 1).join('\n') + '\n');
    const before = await s.items(setId);

    const r = json(await s.upload(args, dir));
    expect(r.tally).toMatchObject({ updated: 0, kept: SERVICE_SIDE.length, conflicts: 1, unchanged: N - SERVICE_SIDE.length - 1 });
    expect(await s.items(setId)).toEqual(before);
    await expectIntended(s, setId);
    // Every item in sync has its record again.
    const applied = new Set(journalLines(journal).filter((l) => l.includes('"k":"applied"')).map((l) => (JSON.parse(l) as { item: string }).item));
    for (const it of before) expect(applied.has(it.id)).toBe(true);
  });
});

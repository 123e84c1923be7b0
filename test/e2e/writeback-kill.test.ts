// A corrections upload killed (SIGKILL) at any point of its write-back loses no correction: the
// dataset CSV is either as it was or fully corrected (never torn), and running the same command
// again ends with the set and the CSV agreeing, so that a sync of the CSV plans nothing.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { json, service, type Service } from './dataset-helpers.js';
import { correct, DATA, errorsFile, setup } from './writeback-helpers.js';

let s: Service | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const CORRECTED =
  '\ufefffile,invoice_number,total,# notes\r\n' +
  'files/doc-0.txt,A-0,EUR 10.50,"first, with a comma"\r\n' +
  'files/doc-1.txt,A-1,  EUR 11.50  ,\r\n' +
  '\r\n' +
  'files/doc-2.txt,A-2,"EUR 12.50","multi\r\nline"\r\n';

function journalLines(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').slice(0, -1);
}

/** Runs the upload and kills it (SIGKILL) once the journal holds what `when` picks; fails when it ends first. */
async function killWhen(env: Record<string, string>, args: string[], cwd: string, journal: string, when: (lines: string[]) => boolean): Promise<void> {
  const child = spawn(process.execPath, [BIN, 'dataset', 'upload', ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  let ended = false;
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  void exited.then(() => (ended = true));
  for (;;) {
    if (when(journalLines(journal))) {
      child.kill('SIGKILL');
      await exited;
      return;
    }
    if (ended) throw new Error(`the upload ended before the kill point:\n${output}\n${journalLines(journal).join('\n')}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

const has = (lines: string[], k: string, op: string) => lines.filter((l) => l.includes(`"k":"${k}","op":"${op}"`)).length;

describe('a corrections upload killed during its write-back', () => {
  const points: Array<[string, (l: string[]) => boolean]> = [
    ['as the CSV write starts', (l) => has(l, 'writeback', 'start') === 1],
    ['after the CSV was written, before the set was updated', (l) => has(l, 'writeback', 'done') === 1],
    ['after the first update of the set', (l) => has(l, 'update', 'done') === 1],
  ];

  it.each(points)('killed %s: no correction is lost, the re-run makes the set and the CSV agree', async (_name, when) => {
    // Latency widens every window between a request and its answer.
    s = await service({ latencyMs: 80 });
    const st = await setup(s);
    let errors = errorsFile(st, [['doc-0.txt', 'invoice_number'], ['doc-1.txt', 'invoice_number'], ['doc-2.txt', 'invoice_number']]);
    for (const i of [0, 1, 2]) errors = correct(errors, st, `doc-${i}.txt`, 'invoice_number', `A-${i}`);
    writeFileSync(path.join(st.dir, 'errors.csv'), errors);
    const args = ['errors.csv', '-e', st.setId, '--source', 'data.csv', '--concurrency', '1', '--format', 'json'];
    await killWhen(s.env, args, st.dir, path.join(st.dir, 'errors.journal.ndjson'), when);
    // Never torn: the old file or the corrected one.
    expect([DATA, CORRECTED]).toContain(readFileSync(path.join(st.dir, 'data.csv'), 'utf8'));

    const again = await s.upload(args, st.dir);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(path.join(st.dir, 'data.csv'), 'utf8')).toBe(CORRECTED);
    const held = (await s.items(st.setId)).map((i) => (i.expectedOutput as { value: { invoice_number: string } }).value.invoice_number).sort();
    expect(held).toEqual(['A-0', 'A-1', 'A-2']);
    const sync = await s.upload(['data.csv', '-e', st.setId, '--dry-run', '--format', 'json'], st.dir);
    expect(sync.code, sync.stderr).toBe(0);
    expect(json(sync).plan).toMatchObject({ create: 0, update: 0, unchanged: 3 });
  }, 90_000);
});

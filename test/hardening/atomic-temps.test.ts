import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach, runCli } from '../helpers/cli.js';

const { tmp } = cleanupAfterEach('temps');

function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('temp files a killed `migrate --write` left', () => {
  it('are removed by the next run that writes there, only those provably its own', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'c.json'), JSON.stringify({ type: 'EXTRACT', customExtractionRules: 'r' }, null, 2));
    const dead = deadPid();
    const stale = [`.evalkit-tmp-c.json.${dead}.0badf00d.0`, `.evalkit-tmp-other.json.${dead}.12345678.7`, `.evalkit-tmp-data.rejects.csv.${dead}.abcdef01`];
    // A run still writing (this test process is alive), and files that are not evalkit's temps.
    const kept = [`.evalkit-tmp-c.json.${process.pid}.0badf00d.3`, '.evalkit-tmp-notes.txt', `.evalkit-tmp-c.json.${dead}.NOTHEX12.0`, 'keep.txt'];
    for (const name of [...stale, ...kept]) writeFileSync(path.join(dir, name), 'partial');
    const r = await runCli(['migrate', dir, '--write']);
    expect(r.code).toBe(0);
    for (const name of stale) expect(existsSync(path.join(dir, name)), name).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['c.json', ...kept].sort());
  });
});

/**
 * Every `sh runnable` block of docs/*.md runs as written (docs/README.md defines the marker and
 * the environment): a fresh sandbox per block, a temp folder holding a copy of datasets/, the
 * built CLI as `evalkit` on PATH. Each line exits 0 or the code its `# exit N` comment declares.
 */
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { BIN, ROOT, spawnCollect, type CliResult } from '../helpers/cli.js';

interface Line { text: string; at: number; exit: number }
interface Block { page: string; at: number; lines: Line[] }

/** The runnable blocks of one Markdown text. */
export function runnableBlocks(page: string, text: string): Block[] {
  const blocks: Block[] = [];
  const rows = text.split('\n');
  for (let i = 0; i < rows.length; i++) {
    if (!/^```sh runnable\s*$/.test(rows[i]!)) continue;
    const block: Block = { page, at: i + 1, lines: [] };
    let pending: Line | undefined;
    for (i++; i < rows.length && !/^```\s*$/.test(rows[i]!); i++) {
      const row = rows[i]!;
      if (pending === undefined && (row.trim() === '' || row.trim().startsWith('#'))) continue;
      pending = pending ? { ...pending, text: `${pending.text}\n${row}` } : { text: row, at: i + 1, exit: 0 };
      if (row.endsWith('\\')) continue;
      const declared = /\s#\s*exit\s+(\d+)\b/.exec(pending.text);
      block.lines.push({ ...pending, exit: declared ? Number(declared[1]) : 0 });
      pending = undefined;
    }
    blocks.push(block);
  }
  return blocks;
}

function sh(line: string, cwd: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  return spawnCollect('sh', ['-c', line], { cwd, env });
}

const DOCS = path.join(ROOT, 'docs');
const blocks = readdirSync(DOCS)
  .filter((f) => f.endsWith('.md'))
  .sort()
  .flatMap((f) => runnableBlocks(`docs/${f}`, readFileSync(path.join(DOCS, f), 'utf8')));

describe('runnable blocks', () => {
  it('the marker is parsed: continuations, comments, declared exit codes', () => {
    const text = ['```sh runnable', '# a note', 'evalkit a \\', '  --b   # exit 1', '', 'evalkit c # the c', '```', '```sh', 'evalkit d', '```'].join('\n');
    expect(runnableBlocks('x.md', text)).toEqual([{ page: 'x.md', at: 1, lines: [{ text: 'evalkit a \\\n  --b   # exit 1', at: 3, exit: 1 }, { text: 'evalkit c # the c', at: 6, exit: 0 }] }]);
  });

  it('docs/ has runnable examples of most commands', () => {
    const pages = new Set(blocks.map((b) => b.page));
    expect([...pages].sort()).toEqual(expect.arrayContaining(['docs/demo.md', 'docs/migrate.md', 'docs/processors.md', 'docs/report.md', 'docs/validate.md', 'docs/dataset.md']));
  });
});

describe.each(blocks.map((b) => [`${b.page}:${b.at}`, b] as const))('%s', (_, block) => {
  it('runs as written', { timeout: 600_000 }, async () => {
    const sandbox = await startSandbox({ port: 0, engineDelayMs: 5 });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'evalkit-docs-'));
    try {
      cpSync(path.join(ROOT, 'datasets'), path.join(dir, 'datasets'), { recursive: true });
      const bin = path.join(dir, '.bin');
      mkdirSync(bin);
      writeFileSync(path.join(bin, 'evalkit'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
      chmodSync(path.join(bin, 'evalkit'), 0o755);
      const env = { ...process.env, NO_COLOR: '1', PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, EVALKIT_BASE_URL: sandbox.url, EVALKIT_API_TOKEN: sandbox.token };
      for (const line of block.lines) {
        const r = await sh(line.text, dir, env);
        expect(r.code, `${block.page}:${line.at}: ${line.text}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`).toBe(line.exit);
      }
    } finally {
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { createRequire } from 'node:module';
import type yargsFactory from 'yargs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_API_VERSION } from '../../src/api/version.js';
import { toYargs } from '../../src/cli/command.js';
import { loadAllCommands, type AnyCommand } from '../../src/cli/commands.js';
import { runCli } from '../helpers/cli.js';

// The CommonJS build, as src/cli/main.ts uses.
const yargs = createRequire(import.meta.url)('yargs') as typeof yargsFactory;

const nameOf = (command: string | readonly string[]): string => (typeof command === 'string' ? command : command[0]!).split(' ')[0]!;

/** Every command path of the CLI: `['dataset']`, `['dataset', 'upload']`, ... */
function commandPaths(cmds: readonly AnyCommand[], prefix: string[] = []): string[][] {
  return cmds.flatMap((c) => {
    const here = [...prefix, nameOf(c.command)];
    const subs = c.subcommands ? commandPaths(c.subcommands, here) : (c.listing ?? []).map((l) => [...here, nameOf(l.command)]);
    return [here, ...subs];
  });
}

/** The help text of a command as `evalkit ... --help` prints it, unwrapped (one example per line). */
async function helpOf(cmds: readonly AnyCommand[], path: string[]): Promise<string> {
  let parser = yargs().scriptName('evalkit').wrap(null).strict();
  for (const c of cmds) parser = parser.command(toYargs(c, () => undefined));
  return new Promise((resolve, reject) => {
    // With a callback, yargs hands the help over instead of printing it and exiting.
    void parser.parse([...path, '--help'], {}, (e: Error | undefined, _argv: unknown, output: string) => (e ? reject(e) : resolve(output)));
  });
}

/** The lines of the Examples: section. */
function examplesOf(help: string): string[] {
  const lines = help.split('\n');
  const at = lines.indexOf('Examples:');
  if (at < 0) return [];
  const end = lines.findIndex((l, i) => i > at && l.trim() === '');
  return lines.slice(at + 1, end < 0 ? undefined : end);
}

describe("every command's help", () => {
  it(`shows ${DEFAULT_API_VERSION} ids in its examples: a dp_ id only where the example pins --api-version 2025-04-21`, async () => {
    const cmds = await loadAllCommands();
    const paths = commandPaths(cmds);
    // The walk reaches the subcommands (dataset upload, eval run, ...), not only the top level.
    expect(paths).toContainEqual(['dataset', 'upload']);
    expect(paths).toContainEqual(['processors', 'create']);
    const stale: string[] = [];
    let examples = 0;
    for (const p of paths) {
      for (const line of examplesOf(await helpOf(cmds, p))) {
        examples++;
        if (/\bdpv?_/.test(line) && !line.includes('2025-04-21')) stale.push(`${p.join(' ')}: ${line.trim()}`);
      }
    }
    expect(examples).toBeGreaterThan(50);
    expect(stale).toEqual([]);
  });

  it('--api-version names the default in effect when nothing sets one', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(`(default: $EVALKIT_API_VERSION, else the config file, else ${DEFAULT_API_VERSION})`);
  });
});

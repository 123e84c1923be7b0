import { describe, expect, it } from 'vitest';
import { COMMAND_MODULES, loadCommands } from '../../src/cli/commands.js';

const nameOf = (command: string | readonly string[]): string => (typeof command === 'string' ? command : command[0]!).split(' ')[0]!;

describe('the lazy command list', () => {
  it('names each module by the command it defines', async () => {
    for (const [name, load] of COMMAND_MODULES) expect(nameOf((await load()).default.command)).toBe(name);
  });

  it.each([
    [['migrate', 'configs', '--write'], ['migrate']],
    [['--base-url', 'http://127.0.0.1:1', 'report', '--from', 'x.json'], ['report']],
    [['--version'], []],
    [['--help'], COMMAND_MODULES.map(([n]) => n)],
    [['migrat'], COMMAND_MODULES.map(([n]) => n)],
    // The value of a global flag is not the command, even when it is a command's name.
    [['--dataset', 'demo', 'migrate', '--help'], ['migrate']],
    [['--config-file', 'eval', '--dataset=report', 'validate'], ['validate']],
    [['report', '--from', 'eval'], ['report']],
    // The first word is the command (a typo there loads every command, for yargs' suggestion).
    [['migrat', 'report'], COMMAND_MODULES.map(([n]) => n)],
    [['--', 'migrate'], COMMAND_MODULES.map(([n]) => n)],
  ])('%j loads %j', async (args, want) => {
    expect((await loadCommands(args)).map((c) => nameOf(c.command))).toEqual(want);
  });
});

import type { EvalkitCommand } from './command.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each command has its own argv type
export type AnyCommand = EvalkitCommand<any>;

type Loader = () => Promise<{ default: AnyCommand }>;

/**
 * Every command of the CLI, in the order `--help` lists them: its name and how to load its module.
 * Modules are loaded only when needed (as changesets' cli.ts does), so `evalkit migrate` never
 * loads what `evalkit sandbox` needs, and `evalkit --version` loads no command at all.
 */
export const COMMAND_MODULES: ReadonlyArray<readonly [name: string, load: Loader]> = [
  ['init', () => import('./init.js')],
  ['config', () => import('./config.js')],
  ['migrate', () => import('./migrate.js')],
  ['validate', () => import('./validate.js')],
  ['schema', () => import('./schema.js')],
  ['processors', () => import('./processors.js')],
  ['dataset', () => import('./dataset.js')],
  ['eval', () => import('./eval.js')],
  ['report', () => import('./report.js')],
  ['view', () => import('./view.js')],
  ['history', () => import('./history.js')],
  ['ci', () => import('./ci.js')],
  ['sandbox', () => import('./sandbox.js')],
  ['webhooks', () => import('./webhooks.js')],
  ['demo', () => import('./demo.js')],
];

const NAMES = new Set(COMMAND_MODULES.map(([name]) => name));

/** The commands `args` needs: the one it names; none for a bare `--version`; else every one (help, completion, a typo). */
export async function loadCommands(args: readonly string[]): Promise<AnyCommand[]> {
  const named = commandOf(args);
  const wanted = named !== undefined ? COMMAND_MODULES.filter(([name]) => name === named) : args.length === 1 && (args[0] === '--version' || args[0] === '-v') ? [] : COMMAND_MODULES;
  return Promise.all(wanted.map(async ([, load]) => (await load()).default));
}

/** The global flags that take a value (main.ts): what follows them is their value, not a command. */
const VALUE_FLAGS = new Set(['--base-url', '--config-file', '--dataset']);

/**
 * The command `args` names, as yargs reads it: the first word that is neither a flag nor the
 * value of a global flag before it (`evalkit --dataset demo migrate` runs migrate, not demo).
 */
export function commandOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return undefined;
    if (VALUE_FLAGS.has(a)) i++;
    else if (!a.startsWith('-')) return NAMES.has(a) ? a : undefined;
  }
  return undefined;
}

/** Every command, loaded (for tests and documentation tools). */
export function loadAllCommands(): Promise<AnyCommand[]> {
  return Promise.all(COMMAND_MODULES.map(async ([, load]) => (await load()).default));
}

import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { UsageError, type ExitCode } from '../util/errors.js';
import { out } from './io.js';

/**
 * One CLI command: yargs wiring plus a typed async run() that returns the exit code.
 * run() parses nothing itself, calls core functions and renders; it throws EvalkitError
 * for usage and input errors, and src/cli/main.ts is the only place that sets the exit code.
 * Heavy core modules are imported inside run() so that `evalkit --help` stays fast.
 */
export interface EvalkitCommand<A = Record<string, unknown>> {
  command: string | readonly string[];
  describe: string;
  builder: (y: Argv) => Argv<A>;
  run: (argv: ArgumentsCamelCase<A>) => Promise<ExitCode>;
  /** A command group's subcommands (`evalkit eval run`); their exit codes reach main like any command's. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each subcommand has its own argv type
  subcommands?: ReadonlyArray<EvalkitCommand<any>>;
  /** Subcommands wired by the builder itself (not through `subcommands`), for listings and completion. */
  listing?: ReadonlyArray<{ command: string; describe: string }>;
}

export function defineCommand<A>(cmd: EvalkitCommand<A>): EvalkitCommand<A> {
  return cmd;
}

export function toYargs<A>(cmd: EvalkitCommand<A>, onExit: (code: ExitCode) => void): CommandModule<object, A> {
  return {
    command: cmd.command as string | readonly string[],
    describe: cmd.describe,
    builder: (y: Argv) => {
      let b = cmd.builder(y) as unknown as Argv;
      for (const sub of cmd.subcommands ?? []) b = b.command(toYargs(sub, onExit));
      return b as unknown as Argv<A>;
    },
    handler: async (argv) => {
      onExit(await cmd.run(argv));
    },
  };
}

/**
 * A command group run without its subcommand (`evalkit eval`) lists the subcommands on stdout
 * and exits 0, as `git remote` does; an unknown one is a usage error naming the known ones.
 */
export function listSubcommands(group: string, given: unknown, subs: ReadonlyArray<{ command: string | readonly string[]; describe: string }>): ExitCode {
  const names = subs.map((s) => (Array.isArray(s.command) ? s.command[0] : (s.command as string)).split(' ')[0]);
  if (given !== undefined && given !== '') {
    throw new UsageError(`unknown ${group} command "${String(given)}"`, { hint: `choose one of ${names.join(', ')}; run evalkit ${group} --help` });
  }
  const width = Math.max(...names.map((n) => n.length));
  const lines = [`evalkit ${group} commands:`, ...subs.map((s, i) => `  ${names[i].padEnd(width)}  ${s.describe}`), `Run \`evalkit ${group} <command> --help\` for its options.`];
  out(lines.join('\n'));
  return 0;
}

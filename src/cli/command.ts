import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import type { ExitCode } from '../util/errors.js';

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

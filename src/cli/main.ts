import type { Argv, MiddlewareFunction } from 'yargs';
import type yargsFactory from 'yargs';
import { createRequire } from 'node:module';
import { EvalkitError, fileSystemError, UsageError, type ExitCode } from '../util/errors.js';
import { redact } from '../util/secrets.js';
import { DEFAULT_API_VERSION } from '../api/version.js';
import { toYargs } from './command.js';
import { err, errLabel, out, warn } from './io.js';
import { loadAllCommands, loadCommands, type AnyCommand } from './commands.js';
import { setMachineOutput, setQuiet } from './style.js';
import { configMemberHints, flagSuggestions, tokenVariableHint } from './suggest.js';

const require = createRequire(import.meta.url);
// yargs' ESM build wraps help text at a fixed character count, cutting words in half; its
// CommonJS build wraps at word boundaries. The factory (yargs/yargs), not the package's main
// export: that one builds a singleton parser on import, and each parser built looks for a
// package.json upward from the working folder, reading every folder on the way.
const yargs = require('yargs/yargs') as typeof yargsFactory;
const pkg = require('../../package.json') as { version: string };

/** Flags that were renamed: using the old name fails with a message naming the new one. */
const RENAMED_FLAGS: Record<string, string> = {};

function buildParser(args: string[], commands: readonly AnyCommand[], onExit: (c: ExitCode) => void): Argv {
  // The look-alike token variable warning, once a run (the middleware runs again for each level of a nested command).
  let tokenWarned = false;
  let parser: Argv = yargs(args)
    .scriptName('evalkit')
    .usage('$0 <command> [options]\n\nMigrate processor configs, manage processors and versions, validate expected outputs, upload, download and harvest evaluation sets, and report evaluation runs.')
    .version(pkg.version)
    .alias('v', 'version')
    .help()
    .alias('h', 'help')
    .strict()
    .demandCommand(1, 'name a command; run `evalkit --help` to list them')
    .recommendCommands()
    .completion('completion', 'print a bash/zsh completion script; `completion fish` prints a fish script')
    .epilogue(
      'Exit codes: 0 success, 1 findings (check failed, invalid items, gate failed), 2 usage or input error.\n' +
        'Environment: EVALKIT_BASE_URL, EVALKIT_API_TOKEN, EVALKIT_API_VERSION (see README).\n' +
        'Settings: evalkit.config.json (evalkit init writes one; evalkit config show prints what applies).',
    )
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((msg, e) => {
      if (e) throw e;
      // The options of the command being parsed (yargs resets them per command): `--fromm` -> --from.
      const known = msg ? Object.keys((parser as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key) : [];
      const hints = msg ? [...flagSuggestions(known, args), ...configMemberHints(msg, args)] : [];
      throw new UsageError(msg ?? 'invalid usage', hints.length ? { hint: hints.join('; ') } : undefined);
    })
    .option('base-url', {
      type: 'string',
      global: true,
      group: 'Service:',
      describe: 'base address of the service or of `evalkit sandbox` (default: $EVALKIT_BASE_URL); the token is read from $EVALKIT_API_TOKEN only',
    })
    .option('api-version', {
      type: 'string',
      global: true,
      group: 'Service:',
      describe: `API version in effect: sent to the service and the layout \`migrate\` targets by default (default: $EVALKIT_API_VERSION, else the config file, else ${DEFAULT_API_VERSION})`,
    })
    .option('workspace-id', {
      type: 'string',
      global: true,
      group: 'Service:',
      describe: 'workspace sent as x-extend-workspace-id (API keys scoped to an organization need it; default: $EVALKIT_WORKSPACE_ID, else the config file)',
    })
    .option('config-file', {
      type: 'string',
      global: true,
      group: 'Config:',
      describe: 'settings file (default: the nearest evalkit.config.json in this folder or one above); flags override it (docs/configuration.md)',
    })
    .option('dataset', {
      type: 'string',
      global: true,
      group: 'Config:',
      describe: "which of the config file's datasets the command works on (implied when it has one)",
    })
    .option('quiet', {
      alias: 'q',
      type: 'boolean',
      global: true,
      describe: 'no progress and no tally on success; errors and the results asked for still print',
    })
    .middleware((argv) => {
      setQuiet(argv.quiet === true);
      setMachineOutput(argv.format === 'json');
      const tokenHint = tokenWarned ? undefined : tokenVariableHint(process.env);
      if (tokenHint) warn(tokenHint);
      tokenWarned = true;
      for (const [old, now] of Object.entries(RENAMED_FLAGS)) {
        if (old in argv) throw new UsageError(`--${old} was renamed to --${now}`);
      }
      // Every command builds its client from the environment; the flag wins over the variable.
      if (typeof argv.baseUrl === 'string') {
        // Never quoted back: a value pasted by mistake may be a token, and a URL may hold user:password@.
        if (!/^https?:\/\/[^/]/.test(argv.baseUrl)) {
          throw new UsageError('--base-url is not an http(s) address: it must start with http:// or https:// and a host (the value is not shown: it may be a secret)', {
            hint: "pass the service's address, for example --base-url http://127.0.0.1:8787; the API token goes in EVALKIT_API_TOKEN",
          });
        }
        process.env.EVALKIT_BASE_URL = argv.baseUrl;
      }
      if (typeof argv.apiVersion === 'string') {
        if (!/^\d{4}-\d{2}-\d{2}$/.test(argv.apiVersion)) throw new UsageError(`--api-version "${argv.apiVersion}" is not a release date (YYYY-MM-DD)`, { hint: 'for example --api-version 2025-04-21' });
        process.env.EVALKIT_API_VERSION = argv.apiVersion;
      }
      if (typeof argv.workspaceId === 'string') {
        if (!/^[\x21-\x7e]+$/.test(argv.workspaceId)) throw new UsageError('--workspace-id must be the workspace id alone (printable characters, no spaces)');
        process.env.EVALKIT_WORKSPACE_ID = argv.workspaceId;
      }
    }, true)
    // After the flags above: a flag that set EVALKIT_BASE_URL wins over the file.
    // yargs passes itself as the second argument (for the parsed and declared options); @types/yargs leaves it out.
    .middleware((async (argv: Record<string, unknown>, y: Argv) => (await import('./settings.js')).applySettings(argv, y)) as unknown as MiddlewareFunction, true);
  // -v/--version are evalkit's version at the top level only: validate and dataset upload define
  // their own --version (a processor version), which a global -v would silently alias. yargs
  // documents .global(keys, false); @types/yargs only types the one-argument form.
  parser = (parser as unknown as { global(keys: string, global: boolean): Argv }).global('version', false);
  for (const cmd of commands) parser = parser.command(toYargs(cmd, onExit));
  // Once a command's handler has started, yargs renders the whole help text and keeps it, to show
  // should the handler fail: a third of a run's start-up. evalkit never shows help then (the fail
  // handler above throws, and main prints one line), so it is not rendered; --help renders its own.
  // An internal of yargs 17: where a later version lacks it, help is rendered as before.
  const usage = yargsUsage(parser);
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
  return parser;
}

/** yargs' usage object (not in @types/yargs; yargs 17 reaches it through getInternalMethods), if there is one. */
function yargsUsage(parser: Argv): { cacheHelpMessage(): void } | undefined {
  const internal = parser as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage(): void } } };
  return internal.getInternalMethods?.().getUsageInstance?.();
}

/** Runs the CLI and returns the exit code; never calls process.exit. */
export async function main(args: string[]): Promise<ExitCode> {
  let exitCode: ExitCode = 0;
  // Bare `evalkit` is a request for help, not a mistake.
  if (args.length === 0) args = ['--help'];
  try {
    if (args[0] === 'completion' && args[1] === 'fish') {
      if (args.length > 2) throw new UsageError(`completion fish takes no more arguments (got ${args.slice(2).join(' ')})`);
      const { fishCompletion } = await import('./completion.js');
      out(fishCompletion(await loadAllCommands()));
      return 0;
    }
    await buildParser(args, await loadCommands(args), (c) => (exitCode = c)).parseAsync();
    return exitCode;
  } catch (caught) {
    // A file-system error (a path in the way, no permission, a full disk) is the environment's, not a bug.
    const e = fileSystemError(caught) ?? caught;
    if (e instanceof EvalkitError) {
      errLabel('evalkit:', e.exitCode === 1 ? 'yellow' : 'red', e.describe());
      if (e instanceof UsageError) err('Run with --help for usage and examples.');
      return e.exitCode;
    }
    const msg = e instanceof Error ? (process.env.EVALKIT_DEBUG ? (e.stack ?? e.message) : e.message) : String(e);
    errLabel('evalkit:', 'red', `unexpected error: ${redact(msg)}\n  hint: rerun with EVALKIT_DEBUG=1 for details; if it persists, report it`);
    return 2;
  }
}

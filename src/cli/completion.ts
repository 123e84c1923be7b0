/**
 * `evalkit completion fish`: yargs prints bash and zsh scripts; fish gets one generated from the
 * command tree (commands and subcommands with their descriptions), and asks yargs itself
 * (`--get-yargs-completions`, as the bash script does) for the options of the command line.
 */
import type { AnyCommand } from './commands.js';

const nameOf = (command: string | readonly string[]): string => (typeof command === 'string' ? command : (command[0] ?? '')).split(' ')[0];

/** A fish single-quoted string. */
function q(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The first clause of a description: fish shows it beside the name. */
function short(describe: string): string {
  const first = describe.split(/[:;(]/)[0].trim();
  return first.length > 70 ? `${first.slice(0, 67)}...` : first;
}

export function fishCompletion(commands: readonly AnyCommand[], bin = 'evalkit'): string {
  const lines = [
    `# fish completion for ${bin}. Install: ${bin} completion fish > ~/.config/fish/completions/${bin}.fish`,
    `function __${bin}_yargs`,
    '    set -l tokens (commandline -opc) (commandline -ct)',
    `    command ${bin} --get-yargs-completions $tokens 2>/dev/null`,
    'end',
    `complete -c ${bin} -n 'string match -q -- "-*" (commandline -ct)' -f -a '(__${bin}_yargs)'`,
    `complete -c ${bin} -n __fish_use_subcommand -f -a completion -d ${q('print a shell completion script (bash, zsh, fish)')}`,
    `complete -c ${bin} -n '__fish_seen_subcommand_from completion' -f -a fish -d ${q('the fish script')}`,
  ];
  for (const cmd of commands) {
    const name = nameOf(cmd.command);
    lines.push(`complete -c ${bin} -n __fish_use_subcommand -f -a ${q(name)} -d ${q(short(cmd.describe))}`);
    const subs = [...(cmd.subcommands ?? []).map((s) => ({ command: nameOf(s.command), describe: s.describe })), ...(cmd.listing ?? []).map((s) => ({ command: nameOf(s.command), describe: s.describe }))];
    if (subs.length === 0) continue;
    const names = subs.map((s) => s.command).join(' ');
    for (const s of subs) {
      lines.push(`complete -c ${bin} -n ${q(`__fish_seen_subcommand_from ${name}; and not __fish_seen_subcommand_from ${names}`)} -f -a ${q(s.command)} -d ${q(short(s.describe))}`);
    }
  }
  return lines.join('\n') + '\n';
}

/**
 * Hints for what the user probably meant: a flag one typo away from a declared one (yargs'
 * strict mode names the unknown flag, and its recommendCommands covers only commands), and a
 * token in a variable evalkit does not read, and for a required option missing, the member of
 * evalkit.config.json that can give it instead.
 */
import { distance } from 'fastest-levenshtein';
import { kebab, OPTION_MAP } from './settings.js';

/**
 * When parsing failed (an unknown argument, or a required one missing because it was misspelt):
 * `--fromm: did you mean --from?` for each flag typed in `args` that the command does not declare
 * and that is within a third of its length of one it does.
 */
export function flagSuggestions(known: readonly string[], args: readonly string[]): string[] {
  const flags = new Set(known.filter((k) => k.length > 1 && k !== '$0').map(kebab));
  const typed = new Set(args.filter((a) => /^--?[^-\d]/.test(a)).map((a) => a.replace(/^-+/, '').replace(/=.*$/s, '')));
  const out: string[] = [];
  for (const name of typed) {
    // --no-x is yargs' negation of --x: suggest --no- with the flag it negates.
    const neg = name.startsWith('no-') && !flags.has(name) ? 'no-' : '';
    const bare = name.slice(neg.length);
    if (bare.length < 2 || flags.has(bare) || flags.has(kebab(bare))) continue;
    let best: string | undefined;
    let bestD = Infinity;
    for (const f of flags) {
      // Two letters swapped (--form for --from) is one slip, not two edits.
      const d = swapped(kebab(bare), f) ? 1 : distance(kebab(bare), f);
      if (d < bestD) [best, bestD] = [f, d];
    }
    if (best !== undefined && bestD <= Math.max(1, Math.floor(bare.length / 3))) out.push(`--${name}: did you mean --${neg}${best}?`);
  }
  return out;
}

/** Whether b is a with two neighbouring letters swapped. */
function swapped(a: string, b: string): boolean {
  if (a.length !== b.length || a === b) return false;
  let i = 0;
  while (a[i] === b[i]) i++;
  return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

/** Variables that look like the token's but that evalkit does not read. */
const TOKEN_LOOKALIKES = ['EVALKIT_API_KEY', 'EVALKIT_APIKEY', 'EVALKIT_KEY', 'EVALKIT_TOKEN', 'EVALKIT_API_SECRET', 'EVALKIT_SECRET', 'EVALKIT_ACCESS_TOKEN', 'EVALKIT_AUTH_TOKEN', 'EVALKIT_API_TOKENS'];

/** When EVALKIT_API_TOKEN is unset but a look-alike is set: a warning naming it (never its value). */
export function tokenVariableHint(env: NodeJS.ProcessEnv): string | undefined {
  if ((env.EVALKIT_API_TOKEN ?? '').trim() !== '') return undefined;
  const set = TOKEN_LOOKALIKES.filter((n) => (env[n] ?? '').trim() !== '');
  if (set.length === 0) return undefined;
  return `${set.join(' and ')} ${set.length > 1 ? 'are' : 'is'} set, but evalkit reads the API token from EVALKIT_API_TOKEN only: rename it (export EVALKIT_API_TOKEN="$${set[0]}")`;
}

/**
 * For yargs' "Missing required argument(s): a, b": each missing option that a dataset section of
 * evalkit.config.json can give to this command (settings.ts OPTION_MAP), with its member:
 * `pass --evaluation-set, or set "evaluationSet" in the dataset's section of evalkit.config.json`.
 */
export function configMemberHints(msg: string, args: readonly string[]): string[] {
  const m = /^Missing required arguments?: (.+)$/.exec(msg);
  if (!m) return [];
  const words: string[] = [];
  for (const a of args) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  const out: string[] = [];
  for (const flag of m[1].split(', ')) {
    // The command's words lead the arguments (positionals may follow them).
    const hit = OPTION_MAP.find((o) => kebab(o.option) === flag && o.command.split(' ').every((w, i) => words[i] === w));
    if (hit) out.push(`pass --${flag}, or set "${hit.key}" in the dataset's section of evalkit.config.json (evalkit init writes one; evalkit config show prints what applies)`);
  }
  return out;
}

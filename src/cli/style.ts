/**
 * Terminal habits shared by every command: colour for people (never in --format json, never
 * when piped, honouring NO_COLOR and FORCE_COLOR) and --quiet.
 */
import { styleText } from 'node:util';

type Style = 'red' | 'green' | 'yellow' | 'bold' | 'dim';

/**
 * FORCE_COLOR (other than 0 or false) forces colour, as in Node and most tools; else NO_COLOR
 * (any non-empty value, https://no-color.org) turns it off; else a terminal that is not dumb.
 */
export function colorEnabled(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

let json = false;

/** Machine output asked for: no colour anywhere, whatever the terminal. */
export function setMachineOutput(on: boolean): void {
  json = on;
}

/** `text` in a style when colour is on for the stream it goes to. */
export function paint(style: Style | Style[], text: string, stream: 'stdout' | 'stderr' = 'stdout'): string {
  if (json || !colorEnabled(stream === 'stdout' ? process.stdout : process.stderr)) return text;
  return styleText(style, text);
}

let quiet = false;

/** --quiet: no progress and no tally; errors and results asked for explicitly still print. */
export function setQuiet(on: boolean): void {
  quiet = on;
}

export function isQuiet(): boolean {
  return quiet;
}

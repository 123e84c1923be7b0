import { redact } from '../util/secrets.js';
import { stableStringify } from '../util/json.js';
import { escapeControls } from '../util/controls.js';
import { paint } from './style.js';

/** Results go to stdout. */
export function out(text: string): void {
  flushOut();
  process.stdout.write(text.endsWith('\n') || text === '' ? text : text + '\n');
}

/** Machine output: sorted keys, one document. */
export function outJson(value: unknown): void {
  flushOut();
  process.stdout.write(stableStringify(value));
}

/** Progress, warnings and errors go to stderr, with secrets removed and control characters escaped. */
export function err(text: string): void {
  flushOut();
  process.stderr.write(escapeControls(redact(text.endsWith('\n') ? text : text + '\n')));
}

/**
 * One warning, on one line: a line break inside it (a class name or a field name from a user's
 * document) is shown as `\x0a`, as err() shows the other control characters.
 */
export function warn(text: string, label = 'evalkit'): void {
  err(`${label}: warning: ${text.replace(/\n/g, '\\x0a')}`);
}

/** err() with a label in colour (on a terminal that wants it): `evalkit:` of an error line. */
export function errLabel(label: string, style: 'red' | 'yellow', text: string): void {
  flushOut();
  process.stderr.write(paint([style, 'bold'], label, 'stderr') + ' ' + escapeControls(redact(text.endsWith('\n') ? text : text + '\n')));
}

/** User strings on a terminal: control characters shown as `\x1b` / `\u202e`, never interpreted. */
export { escapeControls };

/** `--allow-unknown` of the commands that send a config file (processors create/update, eval run --config). */
export const allowUnknownOption = { type: 'boolean', default: false, describe: 'send config keys that no config layout has (a newer service version\'s) as they are, instead of refusing the file' } as const;

export const formatOption = {
  alias: 'f',
  choices: ['text', 'json'] as const,
  default: 'text' as const,
  describe: 'output format: human text, or JSON with stable sorted keys',
};

let gathered: string[] = [];
let gatheredSize = 0;
let flushQueued = false;

/**
 * Like out(), for a line per file over thousands of files: lines are gathered and written
 * together, once per 64 KB or per turn of the event loop, instead of a write each. out(),
 * outJson() and err() write what is gathered first, so lines keep their order.
 */
export function outGathered(text: string): void {
  const line = text.endsWith('\n') ? text : text + '\n';
  gathered.push(line);
  gatheredSize += line.length;
  if (gatheredSize >= 1 << 16) flushOut();
  else if (!flushQueued) {
    flushQueued = true;
    setImmediate(flushOut);
  }
}

export function flushOut(): void {
  flushQueued = false;
  if (gathered.length === 0) return;
  const text = gathered.join('');
  gathered = [];
  gatheredSize = 0;
  process.stdout.write(text);
}

let codeOverInterrupt = false;

/**
 * Called by a command whose exit code says more than "interrupted": after Ctrl-C the process
 * exits with the command's code instead of 130 (`webhooks listen`: 1 when anything was
 * rejected, as after SIGTERM).
 */
export function keepExitCodeOnInterrupt(): void {
  codeOverInterrupt = true;
}

/** Whether the command asked for its exit code to stand after Ctrl-C (see keepExitCodeOnInterrupt). */
export function exitCodeKeptOnInterrupt(): boolean {
  return codeOverInterrupt;
}

/** Resolves at the first SIGINT or SIGTERM (Ctrl-C, a CI job cancelled): the servers' (sandbox, view) cue to stop listening. */
export function untilSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

import { redact } from '../util/secrets.js';
import { stableStringify } from '../util/json.js';

/** Results go to stdout. */
export function out(text: string): void {
  process.stdout.write(text.endsWith('\n') || text === '' ? text : text + '\n');
}

/** Machine output: sorted keys, one document. */
export function outJson(value: unknown): void {
  process.stdout.write(stableStringify(value));
}

/** Progress, warnings and errors go to stderr, with secrets removed. */
export function err(text: string): void {
  process.stderr.write(redact(text.endsWith('\n') ? text : text + '\n'));
}

export const formatOption = {
  alias: 'f',
  choices: ['text', 'json'] as const,
  default: 'text' as const,
  describe: 'output format: human text, or JSON with stable sorted keys',
};

/**
 * Errors that carry their own exit code. Commands and core modules throw these;
 * exactly one place (src/cli/index.ts) turns them into an exit code and a message.
 *
 * Exit codes: 0 success, 1 findings (check failed, invalid items, gate failed),
 * 2 usage or input error.
 */
export type ExitCode = 0 | 1 | 2;

export interface Location {
  /** File the problem is in ("-" for stdin). */
  file?: string;
  /** 1-based line (CSV line, JSONL line or JSON text position). */
  line?: number;
  /** 1-based column. */
  column?: number;
  /** RFC 6901 JSON pointer inside the document. */
  pointer?: string;
}

export function formatLocation(loc: Location): string {
  let out = loc.file ?? '';
  if (loc.line !== undefined) out += `:${loc.line}${loc.column !== undefined ? `:${loc.column}` : ''}`;
  if (loc.pointer !== undefined) out += `${out ? ' ' : ''}at ${loc.pointer === '' ? '/' : loc.pointer}`;
  return out;
}

export class EvalkitError extends Error {
  readonly exitCode: ExitCode;
  readonly location: Location;
  /** What the user can do about it, printed after the message. */
  readonly hint?: string;

  constructor(message: string, opts: { exitCode?: ExitCode; location?: Location; hint?: string; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.exitCode = opts.exitCode ?? 2;
    this.location = opts.location ?? {};
    this.hint = opts.hint;
  }

  /** One line (plus hint) for humans: `file:line:col at /ptr: message (hint)`. */
  describe(): string {
    const where = formatLocation(this.location);
    return `${where ? `${where}: ` : ''}${this.message}${this.hint ? `\n  hint: ${this.hint}` : ''}`;
  }
}

/** Bad flags or arguments. Exit 2. */
export class UsageError extends EvalkitError {
  constructor(message: string, opts: { hint?: string } = {}) {
    super(message, { exitCode: 2, ...opts });
  }
}

/** Bad input data (unparseable file, unknown type, mixed layout...). Exit 2. */
export class InputError extends EvalkitError {
  constructor(message: string, opts: { location?: Location; hint?: string; cause?: unknown } = {}) {
    super(message, { exitCode: 2, ...opts });
  }
}

/** A bug in evalkit rather than in the input. Exit 2 with a request to report it. */
export class InternalError extends EvalkitError {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(`internal error: ${message}`, { exitCode: 2, hint: 'this is a bug in evalkit; please report it with the command you ran', ...opts });
  }
}

export function isEvalkitError(e: unknown): e is EvalkitError {
  return e instanceof EvalkitError;
}

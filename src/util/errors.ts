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

/** What a file-system error code means, in words (Node's own message is `EEXIST: file already exists, mkdir 'x'`). */
const FS_REASONS: Record<string, { reason: string; hint: string }> = {
  EEXIST: { reason: 'a file of that name is in the way', hint: 'choose another path, or move the file away' },
  ENOTDIR: { reason: 'a part of the path is a file, not a folder', hint: 'choose a path whose folders are folders' },
  EISDIR: { reason: 'it is a folder, not a file', hint: 'name a file' },
  ENOENT: { reason: 'no such file or folder', hint: 'check the path' },
  EACCES: { reason: 'permission denied', hint: 'check the permissions of the path and of its folders' },
  EPERM: { reason: 'operation not permitted', hint: 'check the permissions of the path and of its folders' },
  EROFS: { reason: 'the file system is read-only', hint: 'choose a path on a writable file system' },
  ENOSPC: { reason: 'no space left on the device', hint: 'free some space, or choose a path on another device' },
  EDQUOT: { reason: 'the disk quota is exhausted', hint: 'free some space, or choose a path on another device' },
  EMFILE: { reason: 'too many open files', hint: 'raise the limit (ulimit -n), or work on fewer files at once' },
  ENAMETOOLONG: { reason: 'the name is too long', hint: 'choose a shorter path' },
};

const FS_VERBS: Record<string, string> = {
  mkdir: 'create the folder',
  open: 'open',
  read: 'read',
  write: 'write',
  rename: 'rename',
  unlink: 'remove',
  rmdir: 'remove the folder',
  scandir: 'list the folder',
  stat: 'reach',
  lstat: 'reach',
  copyfile: 'copy to',
};

/**
 * A Node file-system error (one with `code`, `syscall` and `path`: the environment, not a bug in
 * evalkit) as an InputError naming the path and what went wrong; undefined for anything else.
 */
export function fileSystemError(e: unknown): InputError | undefined {
  const x = e as NodeJS.ErrnoException & { dest?: string };
  if (!(e instanceof Error) || typeof x.code !== 'string' || typeof x.syscall !== 'string' || typeof x.path !== 'string') return undefined;
  const known = FS_REASONS[x.code];
  const verb = FS_VERBS[x.syscall] ?? x.syscall;
  const target = x.dest !== undefined ? `${x.path} -> ${x.dest}` : x.path;
  return new InputError(`cannot ${verb} ${target}: ${known ? `${known.reason} (${x.code})` : x.code}`, { ...(known ? { hint: known.hint } : {}), cause: e });
}

#!/usr/bin/env node
import { createRequire } from 'node:module';
import type * as YargsHelpers from 'yargs/helpers';
import { fileSystemError } from '../util/errors.js';
import { removeLiveTempsSync } from '../util/fs.js';
import { exitCodeKeptOnInterrupt } from './io.js';
import { main } from './main.js';

// The CommonJS helpers, as main.ts loads yargs' CommonJS build: one copy of yargs-parser, not two.
const { hideBin } = createRequire(import.meta.url)('yargs/helpers') as typeof YargsHelpers;

// A reader that goes away (`evalkit migrate DIR | head -1`) ends the command quietly, as Unix
// tools do: exit 0, no stack trace. Output that cannot be written (`> /dev/full`, a closed or
// read-only descriptor) ends it with one line on stderr and exit 2. Either way this run's temp
// files are removed; writes are atomic, so stopping mid-run tears no file.
for (const [name, stream] of [['stdout', process.stdout], ['stderr', process.stderr]] as const) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    removeLiveTempsSync();
    if (e.code === 'EPIPE') process.exit(0);
    if (name === 'stdout') {
      const known = fileSystemError(Object.assign(e, { syscall: e.syscall ?? 'write', path: e.path ?? 'stdout' }));
      const why = known ? known.message.replace(/^cannot write stdout: /, '') : (e.code ?? e.message);
      try {
        process.stderr.write(`evalkit: cannot write the output to stdout: ${why}\n`);
      } catch {
        // stderr is gone too: the exit code says it.
      }
    }
    process.exit(2);
  });
}

// Ctrl-C: exit 130 (128 + SIGINT), as shells report it, with this run's temp files removed and
// the files it was writing left as they were. A command that stops itself on Ctrl-C (sandbox,
// webhooks listen) has its own listener: it closes cleanly, and then main's code becomes 130,
// unless the command's code says more (webhooks listen: 1, something was rejected).
// A second Ctrl-C does not wait.
let interrupted = false;
process.on('SIGINT', () => {
  const again = interrupted;
  interrupted = true;
  if (!again && process.listenerCount('SIGINT') > 1) return;
  removeLiveTempsSync();
  process.stderr.write('evalkit: interrupted\n');
  process.exit(130);
});

// SIGTERM (a CI job cancelled, `kill PID`): the same clean-up (a new --out-dir's staging folder
// among the temps), then the signal's default action, so the parent still sees the process
// ended by SIGTERM. A command that stops itself on SIGTERM (sandbox, webhooks listen, eval) has
// its own listener and handles it.
process.on('SIGTERM', function onTerm() {
  if (process.listenerCount('SIGTERM') > 1) return;
  removeLiveTempsSync();
  process.off('SIGTERM', onTerm);
  process.kill(process.pid, 'SIGTERM');
});

const code = await main(hideBin(process.argv));
process.exitCode = interrupted && !exitCodeKeptOnInterrupt() ? 130 : code;

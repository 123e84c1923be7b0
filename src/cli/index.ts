#!/usr/bin/env node
import { createRequire } from 'node:module';
import type * as YargsHelpers from 'yargs/helpers';
import { main } from './main.js';

// The CommonJS helpers, as main.ts loads yargs' CommonJS build: one copy of yargs-parser, not two.
const { hideBin } = createRequire(import.meta.url)('yargs/helpers') as typeof YargsHelpers;

// A reader that goes away (`evalkit migrate DIR | head -1`) ends the command quietly, as Unix
// tools do: exit 0, no stack trace. Writes are atomic, so stopping mid-run tears no file.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
}

process.exitCode = await main(hideBin(process.argv));

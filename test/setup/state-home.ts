/**
 * Every test file gets its own state folder (XDG_STATE_HOME, where src/util/state.ts puts eval run
 * records and upload locks), removed after the file: tests never write to the real
 * ~/.local/state/evalkit. CLI and sandbox children inherit it through process.env; a test that sets
 * its own XDG_STATE_HOME still wins. evalkit reads no XDG_CONFIG_HOME or XDG_CACHE_HOME.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const state = mkdtempSync(path.join(os.tmpdir(), 'evalkit-test-state-'));
process.env.XDG_STATE_HOME = state;

// Registered first, so it runs after the file's own afterAll hooks (vitest runs them as a stack).
afterAll(() => rmSync(state, { recursive: true, force: true }));

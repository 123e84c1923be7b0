import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stateDir } from '../../src/util/state.js';

describe('the test run state folder (test/setup/state-home.ts)', () => {
  it("is a temp folder of this file's, not ~/.local/state, for the tests and the processes they start", () => {
    const state = process.env.XDG_STATE_HOME;
    expect(state).toBeDefined();
    expect(path.dirname(state!)).toBe(os.tmpdir());
    expect(path.basename(state!)).toMatch(/^evalkit-test-state-/);
    expect(existsSync(state!)).toBe(true);
    expect(stateDir()).toBe(path.join(state!, 'evalkit'));
    expect(stateDir().startsWith(path.join(os.homedir(), '.local'))).toBe(false);
    const child = execFileSync(process.execPath, ['-e', 'process.stdout.write(process.env.XDG_STATE_HOME ?? "")'], { encoding: 'utf8' });
    expect(child).toBe(state);
  });
});

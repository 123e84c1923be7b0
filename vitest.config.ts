import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each test file's own XDG_STATE_HOME: nothing lands in ~/.local/state/evalkit.
    setupFiles: ['test/setup/state-home.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two files at a time on these 2-core machines: the end-to-end files mostly wait on the CLI and
    // sandbox processes they start (vitest's default is one worker fewer than the cores).
    maxWorkers: 2,
  },
});

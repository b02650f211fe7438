import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/helpers/fast-check-setup.ts'],
    // A guard against hangs, not a speed check: end-to-end tests run whole experiments, which a busy 2-core machine slows several-fold.
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});

import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Test files spend part of their time waiting (servers and CLIs started as processes,
    // PostgreSQL, Chromium): with one worker per core, 2 cores sat about a third idle. One worker
    // more than there are cores keeps them busy. VITEST_MAX_WORKERS overrides.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS) || availableParallelism() + 1,
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default'],
  },
});

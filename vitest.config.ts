import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files that change process-wide state a later file in the same worker would inherit (fake
 * timers, process.env at module level): each runs in a process of its own. The others share their
 * worker's module graph (isolate: false): loading the server's graph and building the first app
 * cost a file more than most of its tests, and 130 files paid it twice (PGlite and PostgreSQL).
 */
const ISOLATED = [
  'test/module-contract.test.ts',
  'test/conformance/conformance.test.ts',
  'packages/server/src/lib/oidc.test.ts',
  'packages/server/src/lib/poller.test.ts',
];
const INCLUDE = ['packages/**/*.test.ts', 'test/**/*.test.ts', 'chaos/**/*.test.ts', 'bench/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Test files spend part of their time waiting (servers and CLIs started as processes,
    // PostgreSQL, Chromium): with one worker per core, 2 cores sat about a third idle. One worker
    // more than there are cores keeps them busy. VITEST_MAX_WORKERS overrides.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS) || availableParallelism() + 1,
    globalSetup: ['test/global-setup.ts'],
    // Servers the tests start as processes inherit it: no request-rate limit unless a test sets one
    // (test/harness.ts does the same for apps built in the test's own process).
    env: { MONETA_RATE_LIMIT: 'off' },
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'shared', include: INCLUDE, exclude: ['**/node_modules/**', ...ISOLATED], isolate: false } },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});

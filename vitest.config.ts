import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // e2e tests start real processes; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for background work (uploads, indexers, threads); its default of 1 s is
    // shorter than a busy 2-core machine can promise. It returns as soon as the condition holds.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // Vitest's default is one fork fewer than the cores: one on a 2-core machine, which ran the
    // files one at a time while most of them wait on servers, child processes and polls. Two
    // forks took the suite from 34 min (CI, one fork) to 17 min on a loaded 2-core machine.
    maxWorkers: 2,
  },
})

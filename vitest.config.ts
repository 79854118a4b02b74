import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // e2e tests start real processes; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
})

import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most test time is waiting (child processes, receivers, timers): three files at once keep two cores busy.
    maxWorkers: 3,
    reporters: ['default'],
  },
})

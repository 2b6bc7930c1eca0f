import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A folder for the run's PostgreSQL, started by the first team-sandbox test that needs it (test/team/postgres.ts).
    globalSetup: ['test/team/global-setup.ts'],
    // A test waits for what it checks (expect.poll, a receiver's waitFor, `eventually`) with deadlines of
    // seconds; these limits are a safety net for a loaded machine, not a budget to spend.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // Most test time is waiting (child processes, receivers, timers): three files at once keep two cores busy.
    maxWorkers: 3,
    // A worker runs file after file without reloading the modules they share (the server, oclif's helpers):
    // a quarter less CPU for the suite. A test file must leave nothing behind (every sandbox, server and browser
    // it starts is stopped), and tests do not mock modules or change process-wide state.
    isolate: false,
    reporters: ['default'],
  },
})

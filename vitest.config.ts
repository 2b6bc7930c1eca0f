import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The slowest files (150k-record imports, many CLI processes, real kills and browsers) start first, so the
 * workers finish together; within a group, vitest's own order (last run's durations, else file size).
 */
const SLOW_FIRST = [/reliability\/import-bounds/, /\/cli\//, /\/reliability\//, /\/browser\//, /\/scenario\//]

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const rank = (file: TestSpecification) => {
      const at = SLOW_FIRST.findIndex((pattern) => pattern.test(file.moduleId))
      return at === -1 ? SLOW_FIRST.length : at
    }
    return sorted.map((file, i) => ({ file, i })).sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i).map(({ file }) => file)
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most test time is waiting (child processes, receivers, timers): three files at once keep two cores busy.
    maxWorkers: 3,
    sequence: { sequencer: SlowFirst },
    reporters: ['default'],
  },
})

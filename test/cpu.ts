/**
 * Milliseconds of CPU this process has used since `since` (a `process.cpuUsage()`): for bounds on work done in
 * the test's own process, which a busy machine does not stretch as it stretches wall time.
 */
export function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since)
  return (used.user + used.system) / 1000
}

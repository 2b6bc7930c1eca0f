// The sandbox server as `pay sandbox start --json` runs it by default (request lines batched to stderr, acknowledged
// once fdatasynced), started from the compiled sources rather than the CLI's bundle, so that a CPU profile names
// each function's file: bench/run.mjs profiles it to split the server's CPU per flow into stages.
// Usage: node [--cpu-prof …] bench/stage-server.mjs <port> <data file> [--quiet]
import { batchedLines } from '../dist/src/cli/batched-lines.js'
import { configFrom, startOptionsOf } from '../dist/src/cli/sandbox-config.js'
import { forTerminal } from '../dist/src/domain/display.js'
import { startServer } from '../dist/src/server/start.js'

const [port, dataFile, quiet] = process.argv.slice(2)
const lines = batchedLines(process.stderr)
const running = await startServer({
  ...startOptionsOf(configFrom({})),
  port: Number(port),
  dataFile,
  ...(quiet === '--quiet' ? {} : { log: (text) => lines(forTerminal(text)) }),
})
process.stdout.write(`${JSON.stringify({ url: running.url, pid: process.pid })}\n`)
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => running.stop().then(() => process.exit(0)))

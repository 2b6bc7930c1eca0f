// The server of bench/stage-server.mjs (request log on, acknowledged once fdatasynced), its data file compacted back to
// back: a compaction starts after every write that finds none under way, so that a load run against it at 100k
// stored runs while compactions of 100k payments are under way all the time. At stop it writes, beside the data
// file (`<data file>.compactions.json`), how many snapshots were written and how long each took.
// Usage: node bench/compaction-server.mjs <port> <data file>
import { writeFileSync } from 'node:fs'
import { batchedLines } from '../dist/src/cli/batched-lines.js'
import { configFrom, startOptionsOf } from '../dist/src/cli/sandbox-config.js'
import { forTerminal } from '../dist/src/domain/display.js'
import { startServer } from '../dist/src/server/start.js'
import { FileEngine } from '../dist/src/store/file/engine.js'
import { nodeFs } from '../dist/src/store/file/fs.js'

const [port, dataFile] = process.argv.slice(2)
const snapshots = []
let started
/** The real file system, timing each snapshot from the open of its temporary file to its rename over the data file. */
const fs = {
  ...nodeFs,
  open: (path, flags) => {
    if (path.includes('.tmp-')) started = performance.now()
    return nodeFs.open(path, flags)
  },
  rename: async (from, to) => {
    await nodeFs.rename(from, to)
    if (from.includes('.tmp-') && started !== undefined) snapshots.push(performance.now() - started)
  },
}
const lines = batchedLines(process.stderr)
const running = await startServer({
  ...startOptionsOf(configFrom({})),
  port: Number(port),
  dataFile,
  storeEngine: new FileEngine({ file: dataFile, fs, compactAfterBytes: 1 }),
  log: (text) => lines(forTerminal(text)),
})
process.stdout.write(`${JSON.stringify({ url: running.url, pid: process.pid })}\n`)
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    // The snapshots written under load, before the stop's own.
    writeFileSync(`${dataFile}.compactions.json`, JSON.stringify({ snapshotMs: snapshots.map((ms) => Math.round(ms)) }))
    running.stop().then(() => process.exit(0))
  })
}

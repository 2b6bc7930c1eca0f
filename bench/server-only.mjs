// Starts the sandbox server without the CLI (no oclif), to split cold start into CLI and server shares.
// Usage: node bench/server-only.mjs <port> <data file>
import { startServer } from '../dist/src/server/start.js'

const running = await startServer({ port: Number(process.argv[2]), dataFile: process.argv[3] })
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => running.stop().then(() => process.exit(0)))

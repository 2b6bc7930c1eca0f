// The reference: a bare Fastify server answering the sandbox's routes with fixed JSON, no storage, no validation.
// Usage: node bench/reference-server.mjs <port>   (0 picks a free one; the URL is printed as one JSON line)
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.post('/api/v1/request', async () => ({ result: 100, trackId: 'Xq2w7Zb1Vh0Kc9LmN3pR4s', message: 'success' }))
app.post('/api/v1/verify', async () => ({ result: 202, amount: 10 }))
app.get('/_sandbox/health', async () => ({ ok: true }))

await app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' })
const address = app.server.address()
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}`, pid: process.pid })}\n`)
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => app.close().then(() => process.exit(0)))

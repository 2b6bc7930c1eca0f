import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'

/**
 * Closing the server waits for every connection, and Node closes only those it counts as idle: a connection that
 * has not sent a request yet (a browser's preconnect, a client's spare socket) is not, so it would hold a
 * graceful stop forever. When the server starts closing, every connection without a request in flight is
 * closed; the others finish their requests as before.
 */
export function closeQuietConnections(app: FastifyInstance): void {
  const inFlight = new Map<Socket, number>()
  app.server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0)
    socket.once('close', () => inFlight.delete(socket))
  })
  app.server.on('request', (request, response) => {
    const socket = request.socket
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1)
    response.once('close', () => inFlight.set(socket, Math.max(0, (inFlight.get(socket) ?? 1) - 1)))
  })
  app.addHook('preClose', async () => {
    for (const [socket, requests] of inFlight) if (requests === 0) socket.destroy()
  })
}

import type { ServerResponse } from 'node:http'
import type { FastifyReply } from 'fastify'

/**
 * Bytes a client may leave unread before it is dropped. A reader that keeps up never comes near it; one that
 * stops reading would otherwise make the server keep every event for it. A dropped browser reconnects by itself
 * (EventSource) and redraws. A stream that reads from a log it can go back to (the request log) is paced instead
 * (`unsent`, `whenDrained`): it waits for its reader rather than dropping it.
 */
export const MAX_UNREAD_BYTES = 256 * 1024
/** Interval of comment lines, so proxies and browsers keep an idle stream open. */
const HEARTBEAT_MS = 15_000
/** How long a stream that was told the sandbox is stopping may take to read it before it is cut. */
const FAREWELL_MS = 1000

/** One client's server-sent event stream. */
export class EventStream {
  private readonly res: ServerResponse
  private readonly limit: number

  constructor(res: ServerResponse, limit: number) {
    this.res = res
    this.limit = limit
  }

  get open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded
  }

  /** Bytes written that the client has not taken yet (beyond what the OS holds for it). */
  get unsent(): number {
    return this.res.writableLength
  }

  /** Calls `fn` once the client has taken what was written (after a write that filled the buffer). */
  whenDrained(fn: () => void): void {
    this.res.once('drain', fn)
  }

  /** Sends an event; false when the stream is closed, or was just dropped for not reading. */
  send(event: string, data: unknown, id?: number): boolean {
    return this.write(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  }

  write(text: string): boolean {
    if (!this.open) return false
    if (this.res.writableLength > this.limit) {
      this.res.destroy()
      return false
    }
    this.res.write(text)
    return true
  }

  /** Ends the stream: nothing more will be sent. */
  end(): void {
    if (this.open) this.res.end()
  }

  /** Sends a last event and ends the stream; a client that does not take it in time is cut. */
  finish(event: string, data: unknown): void {
    if (!this.open) return
    this.send(event, data)
    const cut = setTimeout(() => this.res.destroy(), FAREWELL_MS)
    cut.unref()
    this.res.end(() => {
      clearTimeout(cut)
      this.res.destroy()
    })
  }
}

/** The open event streams of a plugin (server-sent events): opened from a route, all ended when the server closes. */
export class EventStreams {
  private readonly streams = new Set<EventStream>()
  private readonly limit: number

  constructor(limit: number = MAX_UNREAD_BYTES) {
    this.limit = limit
  }

  get size(): number {
    return this.streams.size
  }

  /** Takes the reply over as an event stream; `onClose` runs once it is gone, whoever closed it. */
  open(reply: FastifyReply, onClose: () => void = () => {}): EventStream {
    reply.hijack()
    const res = reply.raw
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      'x-content-type-options': 'nosniff',
    })
    const stream = new EventStream(res, this.limit)
    stream.write('retry: 2000\n\n')
    this.streams.add(stream)
    const heartbeat = setInterval(() => stream.write(': ping\n\n'), HEARTBEAT_MS)
    heartbeat.unref()
    res.on('close', () => {
      clearInterval(heartbeat)
      this.streams.delete(stream)
      onClose()
    })
    return stream
  }

  /** The sandbox is stopping: every stream is told so with `event` and ended (an open stream would hold the close). */
  closeAll(event: string, data: unknown): void {
    for (const stream of this.streams) stream.finish(event, data)
  }
}

import { get } from 'node:http'
import { onTestFinished } from 'vitest'

/**
 * Follows a server-sent event stream (`GET url`) until the test ends, calling `seen` with each event's name and its
 * data (JSON) as they come. Resolves once the answer's head has arrived: what happens after is seen.
 */
export function followEvents(url: string, seen: (event: string, data: unknown) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const req = get(url, (res) => {
      resolve()
      let buffer = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        buffer += chunk
        for (const m of buffer.matchAll(/event: (\S+)\ndata: (.*)\n\n/g)) seen(m[1]!, JSON.parse(m[2]!))
        buffer = buffer.slice(buffer.lastIndexOf('\n\n') + 2)
      })
    })
    req.on('error', reject)
    onTestFinished(() => {
      req.destroy()
    })
  })
}

/** A payment or delivery event of `/_sandbox/events`: `created`, a payment's status, or `delivery <state>`. */
export interface ChangeEvent {
  created?: boolean
  payment?: { trackId: string; status: string }
  delivery?: { state: string }
}

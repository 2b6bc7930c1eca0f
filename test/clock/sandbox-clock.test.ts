import { describe, expect, test } from 'vitest'
import { SandboxClock } from '../../src/clock/sandbox-clock.js'
import { CLOCK_LATEST, CLOCK_LATEST_MS } from '../../src/domain/clock-range.js'

/** A clock whose real time and monotonic time the test moves by hand. */
function manual(start = Date.parse('2030-01-01T00:00:00.000Z')) {
  let mono = 0
  let wall = start
  const clock = new SandboxClock({ real: () => new Date(wall), monotonic: () => mono })
  return {
    clock,
    /** Real time passes: wall and monotonic clocks move together. */
    pass(ms: number) {
      mono += ms
      wall += ms
    },
    /** The computer's clock is set: only the wall clock moves. */
    setWall(ms: number) {
      wall = ms
    },
  }
}

const iso = (ms: number) => new Date(ms).toISOString()

describe('the sandbox clock', () => {
  test('advancing fires every timer that becomes due, in due order, with the time standing at each due time', async () => {
    const { clock } = manual()
    const start = clock.nowMs()
    const fired: Array<[string, string]> = []
    clock.after(3_000, () => fired.push(['c', iso(clock.nowMs())]))
    clock.after(1_000, () => fired.push(['a', iso(clock.nowMs())]))
    clock.after(2_000, async () => {
      await new Promise((r) => setTimeout(r, 5))
      fired.push(['b', iso(clock.nowMs())])
    })
    clock.after(10_000, () => fired.push(['late', iso(clock.nowMs())]))
    const move = clock.advanceBy(5_000)
    expect(await clock.apply(move)).toBe(3)
    expect(fired).toEqual([
      ['a', iso(start + 1_000)],
      ['b', iso(start + 2_000)],
      ['c', iso(start + 3_000)],
    ])
    expect(clock.nowMs()).toBe(start + 5_000)
    expect(clock.view()).toMatchObject({ aheadMs: 5_000, real: false })
  })

  test('a timer scheduled while an advance fires is fired by it too when due within it (a retry after an attempt)', async () => {
    const { clock } = manual()
    const start = clock.nowMs()
    const at: string[] = []
    const attempt = (n: number) => () => {
      at.push(`${n}@${clock.nowMs() - start}`)
      if (n < 4) clock.after([1_000, 5_000, 30_000][n - 1]!, attempt(n + 1))
    }
    clock.after(0, attempt(1))
    await clock.apply(clock.advanceBy(60_000))
    expect(at).toEqual(['1@0', '2@1000', '3@6000', '4@36000'])
  })

  test('never goes back: set to an earlier time is refused, naming both times', () => {
    const { clock } = manual()
    const now = clock.nowMs()
    expect(() => clock.setTo(now - 1)).toThrow(new RangeError(`${iso(now - 1)} is before the sandbox clock's time ${iso(now)}; the clock only moves forward (pay clock reset goes back to real time once real time catches up)`))
    expect(clock.setTo(now + 60_000).target).toBe(now + 60_000)
  })

  test('goes no later than 9999-01-01: a move past it is refused naming the range, and the time stands still there', async () => {
    const { clock, pass } = manual()
    expect(() => clock.setTo(Date.parse('9999-12-31T23:59:59.000Z'), '"9999-12-31T23:59:59Z"')).toThrow(
      new RangeError(`the sandbox clock can be set from the sandbox's own time (the clock never goes back) to ${CLOCK_LATEST} (got "9999-12-31T23:59:59Z")`),
    )
    expect(() => clock.setTo(8.64e15)).toThrow(RangeError)
    await clock.apply(clock.setTo(CLOCK_LATEST_MS))
    expect(clock.view()).toMatchObject({ now: CLOCK_LATEST })
    expect(() => clock.advanceBy(1)).toThrow(
      new RangeError(`the sandbox clock goes no later than ${CLOCK_LATEST}: it is at ${CLOCK_LATEST}, and 1ms more would pass that`),
    )
    // Real time goes on; the sandbox time does not pass the top, so every stamp still prints with a four-digit year.
    pass(400 * 24 * 3_600_000)
    expect(clock.nowMs()).toBe(CLOCK_LATEST_MS)
    expect(clock.now().toISOString()).toBe(CLOCK_LATEST)
    // Nor does a saved clock beyond it, loaded back.
    const again = manual()
    again.clock.load({ offsetMs: 1e308 })
    expect(again.clock.view().now).toBe(CLOCK_LATEST)
  })

  test('reset while ahead: the time stands still until real time catches up, and timers keep their waits', async () => {
    const { clock, pass } = manual()
    const start = clock.nowMs()
    await clock.apply(clock.advanceBy(60_000))
    const fired: number[] = []
    clock.after(1_000, () => fired.push(clock.nowMs()))
    await clock.apply(clock.resetMove())
    expect(clock.view()).toMatchObject({ real: false, offsetMs: 0, holdingUntil: iso(start + 60_000) })
    pass(30_000)
    expect(clock.nowMs()).toBe(start + 60_000)
    pass(31_000)
    expect(clock.nowMs()).toBe(start + 61_000)
    expect(clock.view().real).toBe(true)
  })

  test('an expiry set for a sandbox time waits while the time stands still', async () => {
    const { clock, pass } = manual()
    const start = clock.nowMs()
    await clock.apply(clock.advanceBy(10_000))
    await clock.apply(clock.resetMove())
    const fired: number[] = []
    clock.at(start + 12_000, () => fired.push(clock.nowMs()))
    // The timer's own wait (2 s) passes, but the sandbox time is still held at start + 10 s.
    pass(2_000)
    await clock.apply({ ...clock.resetMove(), jumpMs: 0 })
    expect(fired).toEqual([])
    await clock.apply(clock.advanceBy(2_000))
    expect(fired).toEqual([start + 12_000])
  })

  test('the wall clock set back changes neither the time given nor when timers are due', async () => {
    const { clock, setWall } = manual()
    const before = clock.nowMs()
    setWall(before - 3_600_000)
    expect(clock.nowMs()).toBe(before)
    let fired = false
    clock.after(1_000, () => (fired = true))
    await clock.apply(clock.advanceBy(1_000))
    expect(fired).toBe(true)
  })

  test('an advance by an hour puts the clock an hour ahead, however much real time passes between two readings', async () => {
    // Each reading of real time is a millisecond later, as on a machine busy elsewhere.
    let wall = Date.parse('2030-01-01T00:00:00.000Z')
    const clock = new SandboxClock({ real: () => new Date(wall++) })
    await clock.apply(clock.advanceBy(3_600_000))
    expect(clock.view()).toMatchObject({ aheadMs: 3_600_000, offsetMs: 3_600_000 })
    await clock.apply(clock.advanceBy(60_000))
    expect(clock.view().aheadMs).toBe(3_660_000)
    clock.stop()
  })

  test('real time fires due timers by itself, without waiting for one another', async () => {
    const clock = new SandboxClock()
    const order: string[] = []
    clock.after(20, () => new Promise(() => order.push('slow, never settles')))
    clock.after(25, () => order.push('next'))
    await expect.poll(() => order).toEqual(['slow, never settles', 'next'])
    clock.stop()
  })

  test('an advance waits for the tasks it fires only so long, then fires the rest without waiting', async () => {
    const clock = new SandboxClock({ advanceWaitMs: 50 })
    const fired: string[] = []
    clock.after(1_000, () => {
      fired.push('hangs')
      return new Promise(() => {})
    })
    clock.after(2_000, () => fired.push('next'))
    const started = performance.now()
    expect(await clock.apply(clock.advanceBy(3_000))).toBe(2)
    expect(performance.now() - started).toBeLessThan(1_000)
    expect(fired).toEqual(['hangs', 'next'])
    clock.stop()
  })

  test('a cancelled timer does not fire; a saved clock comes back with its offset', async () => {
    const { clock } = manual()
    let fired = false
    clock.after(1_000, () => (fired = true)).cancel()
    const move = clock.advanceBy(7_200_000)
    await clock.apply(move)
    expect(fired).toBe(false)
    const again = manual()
    again.clock.load(clock.record())
    expect(again.clock.nowMs()).toBe(clock.nowMs())
  })
})

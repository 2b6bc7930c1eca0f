import { expect, test } from 'vitest'
import { newMerchantKey, newRefNumber, newTrackId } from '../../src/domain/ids.js'

test('trackIds are 22 URL-safe characters and never start with "-" (a CLI would read a flag)', () => {
  const ids = Array.from({ length: 5000 }, () => newTrackId())
  for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/)
  expect(new Set(ids).size).toBe(ids.length)
})

test('refNumbers are 12 digits; generated merchant keys are safe as arguments too', () => {
  for (let i = 0; i < 1000; i++) {
    expect(newRefNumber()).toMatch(/^[1-9]\d{11}$/)
    expect(newMerchantKey()).toMatch(/^sandbox_[A-Za-z0-9_-]{16}$/)
  }
})

import { isMerchantKey } from '../../src/domain/merchant.js'
import { expect, test } from 'vitest'
import {
  isDeliveryId,
  isRefNumber,
  isTrackId,
  newDeliveryId,
  newMerchantKey,
  newRefNumber,
  newTrackId,
} from '../../src/domain/ids.js'

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

test('the id rules an import applies take every id the sandbox makes, and nothing that could be a path or a flag', () => {
  for (let i = 0; i < 2000; i++) {
    expect(isTrackId(newTrackId())).toBe(true)
    expect(isRefNumber(newRefNumber())).toBe(true)
    expect(isDeliveryId(newDeliveryId())).toBe(true)
    expect(isMerchantKey(newMerchantKey())).toBe(true)
  }
  // trackIds made before they stopped starting with '-' still import.
  expect(isTrackId('-AAAAAAAAAAAAAAAAAAAAA')).toBe(true)
  for (const bad of ['../../etc/passwd', 'AAAAAAAAAAAAAAAAAAAA/A', 'AAAAAAAAAAAAAAAAAAAA.A', 'AAAAAAAAAAAAAAAAAAAA\u001bA', 'A'.repeat(23), '']) {
    expect(isTrackId(bad)).toBe(false)
  }
  for (const bad of ['012345678901', '12345678901', '1234567890123', '12345678901a']) expect(isRefNumber(bad)).toBe(false)
  for (const bad of ['dlv_AAAAAAAAAAA', 'dlv_AAAAAAAAAAAAA', 'dlv_../../etc/x', 'xyz_AAAAAAAAAAAA']) expect(isDeliveryId(bad)).toBe(false)
  for (const bad of ['', 'a b', 'a/b', 'k'.repeat(129), 'key\u001b']) expect(isMerchantKey(bad)).toBe(false)
})

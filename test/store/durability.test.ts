import { join } from 'node:path'
import { expect, onTestFinished, test } from 'vitest'
import { OS_SYNC_MS } from '../../src/store/file/journal.js'
import { openFileStore } from '../../src/store/open.js'
import { tempDir } from '../helpers.js'
import { errno, faultyFs } from './faulty-fs.js'

const merchant = (key: string) => ({ key, name: key, enabled: true, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' })

async function open(durability: 'disk' | 'os', sync: (path: string) => void) {
  const file = join(await tempDir(), 'data.json')
  const { store } = await openFileStore({ file, durability, fs: faultyFs({ sync: (path) => (path.endsWith('.journal') ? sync(path) : undefined) }) })
  onTestFinished(() => store.close().catch(() => {}))
  return store
}

test('disk: every acknowledged write was fdatasynced first', async () => {
  let syncs = 0
  const store = await open('disk', () => void syncs++)
  const before = syncs
  for (let i = 0; i < 5; i++) await store.putMerchant(merchant(`m${i}`))
  expect(syncs - before).toBe(5)
})

test('os: writes are acknowledged without waiting for a sync, and synced within OS_SYNC_MS', async () => {
  let syncs = 0
  const store = await open('os', () => void syncs++)
  const before = syncs
  for (let i = 0; i < 5; i++) await store.putMerchant(merchant(`m${i}`))
  expect(syncs - before).toBe(0)
  // Synced once, within OS_SYNC_MS (with room for a busy machine's late timer).
  await expect.poll(() => syncs - before, { timeout: 3 * OS_SYNC_MS, interval: 20 }).toBe(1)
  expect(store.getMerchant('m4')).toBeDefined()
})

test('os: after a background sync fails, the next write syncs before it is acknowledged, and fails if that fails', async () => {
  let failing = false
  let failed = 0
  const store = await open('os', () => {
    if (failing) {
      failed++
      throw errno('EIO', 'i/o error')
    }
  })
  failing = true
  await store.putMerchant(merchant('first'))
  await expect.poll(() => failed, { timeout: 3 * OS_SYNC_MS, interval: 20 }).toBe(1)
  await expect(store.putMerchant(merchant('second'))).rejects.toThrow(/EIO/)
  expect(store.getMerchant('second')).toBeUndefined()
  failing = false
  await store.putMerchant(merchant('third'))
  expect(store.getMerchant('third')).toBeDefined()
})

import { expect, test } from 'vitest'
import { sandbox } from '../helpers.js'

test('a started sandbox answers health over HTTP', async () => {
  const sb = await sandbox()
  const health = await sb.client.health()
  expect(health.ok).toBe(true)
  expect(health.url).toBe(sb.url)
  expect(health.counts.merchants).toBe(1)
})

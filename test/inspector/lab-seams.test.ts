import { expect, test } from 'vitest'
import type { Payment } from '../../src/domain/types.js'
import { auditPage } from '../../src/inspector/pages/audit.js'
import { paymentPage } from '../../src/inspector/pages/payment.js'

const HOSTILE = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>'
const links = { docs: true, audit: true }
const payment: Payment = {
  trackId: 'Xq2w7Zb1Vh0Kc9LmN3pR4s',
  merchant: 'sandbox',
  amount: 25,
  callbackUrl: 'http://127.0.0.1:9/cb',
  status: 'paid',
  paidAmount: 25,
  refNumber: '123456789012',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:01.000Z',
  history: [{ status: 'pending', at: '2026-01-01T00:00:00.000Z', source: 'api' }],
}
const page = (verifies?: Parameters<typeof paymentPage>[0]['verifies']) =>
  paymentPage({
    payment,
    merchant: undefined,
    deliveries: [],
    requests: [],
    checkoutUrl: 'http://127.0.0.1:8787/pay/qNZW3m0xUqAc0bA0f1Xw2g',
    verifyNow: { result: 100, amount: 25, refNumber: '123456789012' },
    ...(verifies ? { verifies } : {}),
    links,
  })

test('the payment page shows its verify calls when the sandbox keeps them, newest first, escaped; no section otherwise', () => {
  expect(page()).not.toContain('Verify calls')
  const text = page({
    count: 3,
    entries: [
      { trackId: payment.trackId, at: '2026-01-01T00:00:02.000Z', result: 203, status: 'unfinalized', key: 'sandbox', owner: true, amount: 25 },
      { trackId: payment.trackId, at: '2026-01-01T00:00:03.000Z', result: 104, keyHint: HOSTILE.slice(0, 12), owner: false, status: 'unfinalized' },
    ],
  })
  expect(text).toContain('Verify calls')
  expect(text).toContain('3 in all, the latest 2 shown, newest first.')
  expect(text.indexOf('result</th>')).toBeGreaterThan(-1)
  expect(text.indexOf('<strong>104</strong>')).toBeLessThan(text.indexOf('<strong>203</strong>'))
  expect(text).toContain('<code>&lt;script&gt;aler</code> <span class="flag">unknown key</span>')
  expect(text).not.toContain('<script>alert')
  expect(page({ count: 0, entries: [] })).toContain('No verify call for this payment yet')
})

test('the audit page shows the verdict, each payment\'s findings and each merchant\'s creates\' findings, escaped', () => {
  const text = auditPage({
    audit: {
      verdict: 'fail',
      at: '2026-01-01T00:00:05.000Z',
      totals: { payments: 2, passed: 1, fail: 1, warn: 0, info: 0, waiting: 1 },
      payments: [{ trackId: payment.trackId, merchant: payment.merchant, status: payment.status, verdict: 'fail', findings: [{ check: 'unverified-notification', level: 'fail', reason: HOSTILE }] }],
      creates: [{ merchant: HOSTILE, verdict: 'fail', findings: [{ check: 'retry-storm', level: 'fail', reason: 'the create was retried 40 times within 10s' }] }],
    },
    links,
  })
  expect(text).toContain('Verdict <span class="status st-failed">fail</span>')
  expect(text).toContain('2 payments, 1 passed, 1 failed, 0 with warnings, 1 still within the grace period')
  expect(text).toContain(`href="/inspect/payments/${payment.trackId}"`)
  expect(text).toContain('<code>unverified-notification</code>: &lt;script&gt;alert(1)&lt;/script&gt;')
  expect(text).toContain('creates of <code>&lt;script&gt;alert(1)&lt;/script&gt;')
  expect(text).toContain('<code>retry-storm</code>: the create was retried 40 times within 10s')
  expect(text).not.toContain('<img src=x')
  expect(text).toContain('<a href="/inspect/audit" aria-current="page">Audit</a>')
})

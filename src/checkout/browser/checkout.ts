/**
 * The checkout page's script, in the customer's browser. Built for the browser by `npm run build`
 * (scripts/pages.mjs) and inlined in the page under the CSP's hash of it.
 * Without it the page still shows the order, the addresses and the status; the sandbox controls need it.
 */
import type { CheckoutStatus as Status } from '../status.js'

checkout()

function checkout(): void {
  let root = document.getElementById('checkout')
  if (!root) return
  const base = `/pay/${encodeURIComponent(root.dataset.trackId ?? '')}`
  // The page is drawn again when the status changes, or the confirmations of an unfinalized payment.
  const stateOf = (status: string, confirmations: unknown): string => `${status}:${String(confirmations ?? 0)}`
  let current = stateOf(root.dataset.status ?? '', root.dataset.confirmations)
  let busy = false

  const reveal = (scope: ParentNode): void => {
    scope.querySelectorAll<HTMLElement>('[data-js]').forEach((el) => (el.hidden = false))
  }
  const announce = (text: string): void => {
    const live = document.getElementById('live')
    if (live) live.textContent = text
  }
  const showError = (text: string): void => {
    const box = document.getElementById('error')
    if (!box) return
    box.textContent = text
    box.hidden = text === ''
  }
  const setBusy = (on: boolean): void => {
    busy = on
    document.querySelectorAll<HTMLButtonElement>('[data-outcome], [data-mine], .other button').forEach((b) => (b.disabled = on))
  }

  /** Re-renders the page for a new status, from the server, keeping keyboard focus on the status. */
  const show = async (next: Status): Promise<void> => {
    const state = stateOf(next.status, next.confirmations)
    if (state === current) return
    current = state
    const hadFocus = root !== null && root.contains(document.activeElement)
    try {
      const res = await fetch(location.pathname, { headers: { accept: 'text/html' } })
      const fresh = new DOMParser().parseFromString(await res.text(), 'text/html').getElementById('checkout')
      if (fresh && root) {
        root.replaceWith(fresh)
        root = fresh
        reveal(fresh)
      }
    } catch {
      location.reload()
      return
    }
    const heading = document.getElementById('status-heading')
    if (heading) announce(`Status: ${heading.textContent ?? next.status}`)
    if (heading && hadFocus) heading.focus()
    if (next.final && next.returnUrl) {
      const note = document.getElementById('return-note')
      if (note) note.textContent = 'Taking you back to the merchant…'
      const target = next.returnUrl
      setTimeout(() => location.assign(target), 1200)
    }
  }

  const act = async (outcome: string, amount?: number): Promise<void> => {
    if (busy) return
    showError('')
    const checked = document.querySelector<HTMLInputElement>('input[name=asset]:checked')
    const asset = checked?.value ?? root?.dataset.asset
    const body: Record<string, unknown> = { outcome }
    if (asset) body.asset = asset
    if (amount !== undefined) body.amount = amount
    const mode = document.querySelector<HTMLSelectElement>('#callback-mode')?.value
    if (mode) body.callback = mode
    setBusy(true)
    try {
      const res = await fetch(`${base}/simulate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      })
      const data = (await res.json()) as Status & { message?: string }
      if (!res.ok) {
        showError(data.message ?? `The sandbox answered HTTP ${res.status}.`)
        setBusy(false)
        return
      }
      await show(data)
      setBusy(false)
    } catch {
      showError('The sandbox did not answer. Is it still running?')
      setBusy(false)
    }
  }

  /** Mines one block for the whole sandbox chain; the page follows the confirmations over its event stream. */
  const mine = async (): Promise<void> => {
    if (busy) return
    showError('')
    setBusy(true)
    try {
      const res = await fetch('/_sandbox/chain/mine', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ blocks: 1 }),
      })
      if (!res.ok) {
        const data = (await res.json().catch(() => ({}))) as { message?: string }
        showError(data.message ?? `The sandbox answered HTTP ${res.status}.`)
      } else {
        const status = await fetch(`${base}/status`, { headers: { accept: 'application/json' } })
        if (status.ok) await show((await status.json()) as Status)
      }
    } catch {
      showError('The sandbox did not answer. Is it still running?')
    }
    setBusy(false)
  }

  const copy = async (id: string, button: HTMLButtonElement): Promise<void> => {
    const text = document.getElementById(id)?.textContent ?? ''
    try {
      await navigator.clipboard.writeText(text)
    } catch {
      // Clipboard API needs a secure context (localhost is one); elsewhere fall back to selecting the text.
      const range = document.createRange()
      const el = document.getElementById(id)
      if (!el) return
      range.selectNodeContents(el)
      getSelection()?.removeAllRanges()
      getSelection()?.addRange(range)
      document.execCommand('copy')
    }
    const label = button.textContent
    button.textContent = 'Copied'
    announce(`${button.dataset.what ?? 'Text'} copied`)
    setTimeout(() => (button.textContent = label), 1500)
  }

  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button') : null
    if (!button) return
    if (button.dataset.copy) void copy(button.dataset.copy, button)
    else if (button.dataset.outcome) void act(button.dataset.outcome)
    else if (button.hasAttribute('data-mine')) void mine()
  })
  document.addEventListener('submit', (event) => {
    const form = event.target
    if (!(form instanceof HTMLFormElement) || !form.classList.contains('other')) return
    event.preventDefault()
    const input = form.querySelector('input')
    const amount = Number((input?.value ?? '').trim().replace(',', '.'))
    if (!input || input.value.trim() === '' || !Number.isFinite(amount) || amount <= 0) {
      showError('Enter the amount paid as a number greater than 0, e.g. 9.99.')
      input?.focus()
      return
    }
    void act('paid', amount)
  })

  reveal(document)
  if (root.dataset.final !== 'true' && 'EventSource' in window) {
    const events = new EventSource(`${base}/events`)
    events.addEventListener('status', (event) => {
      const next = JSON.parse((event as MessageEvent<string>).data) as Status
      if (next.final) events.close()
      void show(next)
    })
  }
}

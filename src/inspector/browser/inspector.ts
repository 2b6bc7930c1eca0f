/**
 * The inspector's script, in the browser on every inspector page (built by `npm run build`, scripts/pages.mjs,
 * and inlined under the CSP's hash of it). It follows the page's event stream and, on each change, fetches the
 * page again and swaps in its `data-live` parts: the server renders everything, escaped, and the script never
 * turns data into markup.
 * Buttons and forms with `data-post` send JSON to the control API, as the checkout page's controls do (with
 * `data-method="DELETE"`, as a DELETE: removing an API fault rule).
 * Without it every page still shows the state as of its load, and filters work (plain GET forms).
 */
export {}

inspector()

function inspector(): void {
  const root = document.getElementById('inspector')
  if (!root) return
  const reveal = (scope: ParentNode): void => scope.querySelectorAll<HTMLElement>('[data-js]').forEach((el) => (el.hidden = false))
  const liveState = document.getElementById('live-state')
  const setLive = (on: boolean, text: string): void => {
    if (!liveState) return
    liveState.textContent = text
    liveState.classList.toggle('off', !on)
  }
  const say = (text: string, isError: boolean): void => {
    const status = document.getElementById('action-status')
    const error = document.getElementById('action-error')
    if (status) status.textContent = isError ? '' : text
    if (error) {
      error.textContent = isError ? text : ''
      error.hidden = !isError
    }
  }

  /** Puts the fresh page's `data-live` parts in place, keeping open details and keyboard focus. */
  const swap = (fresh: Document): void => {
    document.querySelectorAll<HTMLElement>('[data-live]').forEach((current) => {
      const next = current.id ? fresh.getElementById(current.id) : null
      if (!next) return
      const open = new Set(Array.from(current.querySelectorAll<HTMLDetailsElement>('details[open][id]'), (d) => d.id))
      next.querySelectorAll<HTMLDetailsElement>('details[id]').forEach((d) => (d.open = open.has(d.id)))
      const active = document.activeElement
      const focused = active instanceof HTMLElement && current.contains(active) ? active.id : ''
      reveal(next)
      current.replaceWith(next)
      if (focused) document.getElementById(focused)?.focus()
    })
  }

  let refreshing = false
  let again = false
  /**
   * Fetches the page again; changes while a fetch is out make one more fetch, not one each, and fetches are at
   * least a quarter of a second apart: a sandbox under load is not kept busy redrawing an open page.
   */
  const refresh = async (): Promise<void> => {
    if (refreshing) {
      again = true
      return
    }
    refreshing = true
    try {
      do {
        again = false
        const started = Date.now()
        const res = await fetch(location.pathname + location.search, { headers: { accept: 'text/html' }, cache: 'no-store' })
        // The payment is gone (a reset): show the page the server has now.
        if (res.status === 404) {
          location.reload()
          return
        }
        if (!res.ok) break
        swap(new DOMParser().parseFromString(await res.text(), 'text/html'))
        if (again) await new Promise((resolve) => setTimeout(resolve, Math.max(0, 250 - (Date.now() - started))))
      } while (again)
    } catch {
      setLive(false, 'Sandbox not answering')
    } finally {
      refreshing = false
    }
  }

  const describe = (data: Record<string, unknown>): string => {
    const delivery = data.delivery as { state?: string; attempts?: Array<{ status?: number; error?: string }> } | undefined
    if (delivery) {
      const last = delivery.attempts?.at(-1)
      return `Replay ${delivery.state ?? 'sent'}${last?.status !== undefined ? ` (HTTP ${last.status})` : last?.error ? ` (${last.error})` : ''}`
    }
    const payment = data.payment as { status?: string } | undefined
    if (payment) return `The payment is now ${payment.status ?? 'changed'}`
    const merchant = data.merchant as { key?: string; enabled?: boolean } | undefined
    if (merchant) return `Merchant ${merchant.key ?? ''} is ${merchant.enabled ? 'enabled' : 'disabled'}`
    const fault = data.fault as { id?: string } | undefined
    if (fault) return `Fault rule ${fault.id ?? ''} removed`
    if (Array.isArray(data.cleared)) return `${data.cleared.length} fault rule${data.cleared.length === 1 ? '' : 's'} removed`
    return 'Done'
  }

  /** Sends JSON to the control API: POST, or the method the control names (`data-method="DELETE"`). */
  const post = async (path: string, body: Record<string, unknown>, controls: HTMLElement): Promise<void> => {
    say('', false)
    const buttons = Array.from(controls.querySelectorAll<HTMLButtonElement>('button'))
    if (controls instanceof HTMLButtonElement) buttons.push(controls)
    buttons.forEach((b) => (b.disabled = true))
    try {
      const res = await fetch(path, {
        method: controls.dataset.method === 'DELETE' ? 'DELETE' : 'POST',
        // The inspector acts as the sandbox's operator, never as the merchant (see src/domain/operator.ts).
        headers: { 'content-type': 'application/json', accept: 'application/json', 'pay-sandbox-operator': '1' },
        body: JSON.stringify(body),
      })
      const data = (await res.json().catch(() => ({}))) as Record<string, unknown>
      if (!res.ok) say(typeof data.message === 'string' ? data.message : `The sandbox answered HTTP ${res.status}.`, true)
      else say(describe(data), false)
      void refresh()
    } catch {
      say('The sandbox did not answer. Is it still running?', true)
    } finally {
      buttons.forEach((b) => (b.disabled = false))
    }
  }

  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest<HTMLButtonElement>('button[data-post]') : null
    if (!button?.dataset.post) return
    void post(button.dataset.post, JSON.parse(button.dataset.body ?? '{}') as Record<string, unknown>, button)
  })
  document.addEventListener('submit', (event) => {
    const form = event.target
    if (!(form instanceof HTMLFormElement) || !form.dataset.post) return
    event.preventDefault()
    const body = JSON.parse(form.dataset.body ?? '{}') as Record<string, unknown>
    for (const input of Array.from(form.querySelectorAll<HTMLInputElement>('input[name]'))) {
      const text = input.value.trim()
      if (text === '') continue
      if (input.dataset.number === undefined) {
        body[input.name] = text
        continue
      }
      const value = Number(text.replace(',', '.'))
      if (!Number.isFinite(value) || value <= 0) {
        say(`Enter ${input.dataset.number} as a number greater than 0, e.g. 9.99.`, true)
        input.focus()
        return
      }
      body[input.name] = value
    }
    void post(form.dataset.post, body, form)
  })

  reveal(document)
  const url = root.dataset.stream
  if (url && 'EventSource' in window) {
    const events = new EventSource(url)
    for (const kind of (root.dataset.events ?? '').split(' ')) if (kind) events.addEventListener(kind, () => void refresh())
    // Changes made between the page's load (or a lost connection) and the stream's start are fetched too.
    events.addEventListener('open', () => {
      setLive(true, 'Live')
      void refresh()
    })
    events.addEventListener('error', () => setLive(false, 'Reconnecting…'))
    events.addEventListener('shutdown', () => setLive(false, 'Sandbox stopped'))
  }
}

/**
 * The chat page's script, in the browser (built by `npm run build`, scripts/pages.mjs, and inlined under the
 * CSP's hash of it). It sends the customer's messages and button presses as JSON to the control API, and redraws
 * the conversation from the server whenever the event stream says something durable changed. It never turns bot
 * text into markup: the server renders it, escaped, and toasts are set as textContent.
 */
export {}

chat()

function chat(): void {
  const app = document.getElementById('chat-app')
  if (!app) return
  const bot = app.dataset.bot ?? ''
  const chat = app.dataset.chat ?? ''
  const post = async (path: string, body: Record<string, unknown>): Promise<Record<string, unknown> | undefined> => {
    const error = document.getElementById('error')
    if (error) error.hidden = true
    try {
      const res = await fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ bot, chat: Number(chat), ...body }),
      })
      const data = (await res.json()) as Record<string, unknown>
      if (!res.ok) throw new Error(typeof data.message === 'string' ? data.message : `HTTP ${res.status}`)
      return data
    } catch (e) {
      if (error) {
        error.textContent = e instanceof Error ? e.message : 'The sandbox did not answer. Is it still running?'
        error.hidden = false
      }
      return undefined
    }
  }
  let toastTimer: ReturnType<typeof setTimeout> | undefined
  const toast = (text: string): void => {
    const box = document.getElementById('toast')
    if (!box) return
    box.textContent = text
    box.hidden = false
    if (toastTimer) clearTimeout(toastTimer)
    toastTimer = setTimeout(() => (box.hidden = true), 4000)
  }
  let typingTimer: ReturnType<typeof setTimeout> | undefined
  const typing = (action: string): void => {
    const line = document.getElementById('typing')
    if (!line) return
    line.textContent = action === 'typing' ? 'bot is typing…' : `bot: ${action.replace(/_/g, ' ')}…`
    line.hidden = false
    if (typingTimer) clearTimeout(typingTimer)
    typingTimer = setTimeout(() => (line.hidden = true), 5000)
  }
  const scrollDown = (): void => {
    const box = document.getElementById('conversation')
    if (box) box.scrollTop = box.scrollHeight
  }
  let refreshing: Promise<void> | undefined
  let again = false
  /** Redraws the conversation and the reply keyboard from the server's page. */
  const refresh = async (): Promise<void> => {
    if (refreshing) {
      again = true
      return refreshing
    }
    refreshing = (async () => {
      do {
        again = false
        const res = await fetch(location.pathname + location.search, { headers: { accept: 'text/html' } })
        const fresh = new DOMParser().parseFromString(await res.text(), 'text/html')
        for (const id of ['conversation', 'keyboard']) {
          const next = fresh.getElementById(id)
          const current = document.getElementById(id)
          if (next && current) {
            const typingLine = current.querySelector('#typing')
            current.replaceWith(next)
            const freshTyping = next.querySelector('#typing')
            if (typingLine && freshTyping) freshTyping.replaceWith(typingLine)
          }
        }
        const input = document.getElementById('text')
        const keyboard = fresh.getElementById('text')
        if (input instanceof HTMLInputElement && keyboard instanceof HTMLInputElement) input.placeholder = keyboard.placeholder
        scrollDown()
      } while (again)
    })().finally(() => (refreshing = undefined))
    return refreshing
  }

  document.addEventListener('submit', (event) => {
    const form = event.target
    if (!(form instanceof HTMLFormElement) || form.id !== 'composer') return
    event.preventDefault()
    const input = form.querySelector('input')
    const text = input?.value ?? ''
    if (text.trim() === '') return
    void post('/_sandbox/chat/send', { text }).then((ok) => {
      if (ok && input) input.value = ''
    })
  })
  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button') : null
    if (!button) return
    if (button.dataset.send !== undefined) void post('/_sandbox/chat/send', { text: button.dataset.send })
    else if (button.dataset.press !== undefined) {
      button.disabled = true
      void post('/_sandbox/chat/press', { button: button.dataset.press, messageId: Number(button.dataset.message), wait: 3000 }).then((result) => {
        button.disabled = false
        const answer = result?.answer as { text?: string } | undefined
        if (answer?.text) toast(answer.text)
      })
    }
  })

  document.querySelectorAll<HTMLElement>('[data-js]').forEach((el) => (el.hidden = false))
  scrollDown()
  if ('EventSource' in window) {
    const events = new EventSource(`/_sandbox/chat/events?bot=${encodeURIComponent(bot)}&chat=${encodeURIComponent(chat)}`)
    events.addEventListener('change', () => void refresh())
    events.addEventListener('action', (event) => typing((JSON.parse((event as MessageEvent<string>).data) as { action: string }).action))
    events.addEventListener('answer', (event) => {
      const answer = JSON.parse((event as MessageEvent<string>).data) as { text?: string }
      if (answer.text) toast(answer.text)
    })
    // A reconnect may have missed changes.
    events.addEventListener('open', () => void refresh())
  }
}

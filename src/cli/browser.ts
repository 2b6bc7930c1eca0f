/** Opens a URL in the default browser; where none can be opened, says so and prints the URL instead. */
export async function openInBrowser(url: string, say: (line: string) => void): Promise<boolean> {
  try {
    const { default: open } = await import('open')
    const child = await open(url, { wait: false })
    // `open` unrefs its child; the timer keeps the process alive until the opener has had time to fail.
    let timer: NodeJS.Timeout | undefined
    const failed = await new Promise<boolean>((resolve) => {
      child.once('error', () => resolve(true))
      child.once('exit', (code) => resolve(code !== 0 && code !== null))
      timer = setTimeout(() => resolve(false), 1500)
    })
    clearTimeout(timer)
    if (!failed) return true
  } catch {
    // fall through to printing the URL
  }
  say(`Could not open a browser; open this URL yourself: ${url}`)
  return false
}

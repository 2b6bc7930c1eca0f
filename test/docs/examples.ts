import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { ROOT } from '../helpers.js'

/** The README and every Markdown file under docs/, as paths from the repository's root. */
export function documents(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []))
  return ['README.md', ...walk(join(ROOT, 'docs')).map((f) => relative(ROOT, f)).sort()]
}

export interface ShellBlock {
  /** The block's text, without its fences. */
  text: string
  /** Line of its opening fence, 1-based. */
  line: number
  /** `<!-- tested by: test/a.test.ts, test/b.test.ts -->` just above the fence: the tests that run it instead. */
  testedBy: string[]
}

/** The ```sh blocks of a Markdown text, outside other fences. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n')
  const blocks: ShellBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)/.exec(lines[i]!)
    if (!open) continue
    const end = lines.findIndex((l, j) => j > i && l.trim() === '```')
    if (open[2] === 'sh' || open[2] === 'bash' || open[2] === 'shell') {
      let k = i - 1
      while (k >= 0 && lines[k]!.trim() === '') k--
      const note = /<!-- tested by: (.+?) -->/.exec(lines[k] ?? '')
      blocks.push({
        text: lines.slice(i + 1, end).map((l) => l.slice(open[1]!.length)).join('\n'),
        line: i + 1,
        testedBy: note ? note[1]!.split(',').map((s) => s.trim()) : [],
      })
    }
    i = end
  }
  return blocks
}

export interface Step {
  /** The command as written (continuation lines joined), without its trailing comment. */
  command: string
  /** Output the document shows under it (`#  …` lines), to be found in what it prints. */
  shown: string[]
  /** `# exit 6` after the command: the exit code it is shown with; else 0. */
  exit: number
  /** Ends with `&`: runs in the background for the rest of the document. */
  background: boolean
}

/** The commands of a shell block, in order. Lines starting with `#` are comments or shown output. */
export function steps(block: string): Step[] {
  const lines = block.split('\n')
  const out: Step[] = []
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]!.trim()}`
    const comment = /\s+#\s.*$/.exec(line)
    const command = (comment ? line.slice(0, comment.index) : line).trim()
    const exit = Number(/^\s+#\s*exit (\d+)\b/.exec(comment?.[0] ?? '')?.[1] ?? 0)
    const shown: string[] = []
    while (i + 1 < lines.length && lines[i + 1]!.startsWith('#  ')) shown.push(lines[++i]!.slice(1))
    const background = /\s&$/.test(command)
    out.push({ command: background ? command.replace(/\s*&$/, '') : command, shown, exit, background })
  }
  return out
}

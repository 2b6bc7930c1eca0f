/**
 * The house's import rules (.dependency-cruiser.cjs; docs/architecture.md says them in words), over src/ and
 * commands/: no circle between files or between rooms, no room imports a floor above its own, src/domain is pure,
 * src/store knows no feature, only what starts the server imports src/server, and no source file is over 600 lines.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cruise, type ICruiseResult, type IForbiddenRuleType, type IModule } from 'dependency-cruiser'
import extractDepcruiseConfig from 'dependency-cruiser/config-utl/extract-depcruise-config'
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config'
import { beforeAll, describe, expect, test } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const RULES_FILE = join(root, '.dependency-cruiser.cjs')
const { FLOORS } = createRequire(import.meta.url)(RULES_FILE) as { FLOORS: ReadonlyArray<{ floor: string; rooms: readonly string[] }> }

/** Lines a source file may have; declarative schema files (schema.ts, schemas.ts) aside. */
const MAX_LINES = 600

/** A module's room: its folder under src/, its own name for a file at the top of src/, or commands. */
function roomOf(source: string): string | undefined {
  if (source.startsWith('commands/')) return 'commands'
  return /^src\/([^/]+)/.exec(source)?.[1]
}

let result: ICruiseResult
let forbidden: readonly IForbiddenRuleType[]
let sources: string[]

beforeAll(async () => {
  const ruleSet = await extractDepcruiseConfig(RULES_FILE)
  forbidden = ruleSet.forbidden ?? []
  const tsConfig = join(root, 'tsconfig.json')
  ruleSet.options = { ...ruleSet.options, tsConfig: { fileName: tsConfig } }
  const cruised = await cruise(['src', 'commands'], { ruleSet, validate: true, baseDir: root, outputType: 'json' }, {}, { tsConfig: extractTSConfig(tsConfig) })
  result = (typeof cruised.output === 'string' ? JSON.parse(cruised.output) : cruised.output) as ICruiseResult
  sources = result.modules.map((m: IModule) => m.source).filter((s) => roomOf(s) !== undefined)
})

describe('the house', () => {
  test('every module was found and every import resolved', () => {
    expect(sources.length).toBeGreaterThan(150)
    const unresolved = result.modules.flatMap((m) =>
      m.dependencies.filter((d) => d.couldNotResolve).map((d) => `${m.source} imports ${d.module}, which does not resolve`),
    )
    expect(unresolved.length, `imports the rules cannot follow, so cannot judge:\n${unresolved.join('\n')}\n`).toBe(0)
  })

  test('no import breaks a rule of .dependency-cruiser.cjs', () => {
    const comments = new Map(forbidden.map((r) => [r.name, r.comment ?? '']))
    const broken = result.summary.violations.map((v) => {
      const what = v.cycle?.length ? [v.from, ...v.cycle.map((c) => c.name)].join(' → ') : `${v.from} → ${v.to}`
      return `${v.rule.name}: ${what}\n    ${comments.get(v.rule.name)}`
    })
    expect(broken.length, `imports that break the house's rules (docs/architecture.md):\n${broken.join('\n')}\n`).toBe(0)
  })

  test('every room stands on a floor of .dependency-cruiser.cjs', () => {
    const placed = new Set(FLOORS.flatMap((f) => f.rooms))
    const rooms = new Set(sources.map((s) => roomOf(s)!))
    const unplaced = [...rooms].filter((room) => !placed.has(room)).sort()
    expect(unplaced.length, `rooms on no floor: ${unplaced.join(', ')}; put each on a floor in .dependency-cruiser.cjs (FLOORS) and docs/architecture.md\n`).toBe(0)
  })

  test('docs/architecture.md names every room', () => {
    const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8')
    const named = (room: string) => doc.includes(room === 'commands' ? '`commands/`' : room.endsWith('.ts') ? `\`src/${room}\`` : `\`src/${room}/\``)
    const missing = FLOORS.flatMap((f) => f.rooms).filter((room) => !named(room))
    expect(missing.length, `rooms docs/architecture.md does not name: ${missing.join(', ')}\n`).toBe(0)
  })

  test('the rooms form no circle, sideways arrows included', () => {
    // The first import seen for each arrow between two rooms, to show where a circle runs.
    const arrows = new Map<string, Map<string, string>>()
    for (const m of result.modules) {
      const from = roomOf(m.source)
      if (from === undefined) continue
      for (const d of m.dependencies) {
        const to = roomOf(d.resolved)
        if (to === undefined || to === from) continue
        const out = arrows.get(from) ?? new Map<string, string>()
        if (!out.has(to)) out.set(to, `${m.source} → ${d.resolved}`)
        arrows.set(from, out)
      }
    }
    const circles = stronglyConnected([...new Set(sources.map((s) => roomOf(s)!))], (room) => [...(arrows.get(room)?.keys() ?? [])])
    const described = circles.map((rooms) => {
      const inside = new Set(rooms)
      const lines = rooms.flatMap((from) => [...(arrows.get(from) ?? [])].filter(([to]) => inside.has(to)).map(([to, example]) => `    ${from} → ${to}  (${example})`))
      return `  ${rooms.join(', ')}:\n${lines.join('\n')}`
    })
    expect(described.length, `rooms that import each other in a circle:\n${described.join('\n')}\n`).toBe(0)
  })

  test(`no source file is over ${MAX_LINES} lines (declarative schema files aside)`, () => {
    const long = sources
      .filter((s) => /\.ts$/.test(s) && !/(^|\/)schemas?\.ts$/.test(s))
      .map((s) => ({ file: s, lines: lineCount(readFileSync(join(root, s), 'utf8')) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`)
    expect(long.length, `files over ${MAX_LINES} lines; split each along its ideas:\n${long.join('\n')}\n`).toBe(0)
  })
})

/** Lines as `wc -l` counts them, and a last line without its newline. */
const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0)

/** The groups of more than one node that reach each other (Tarjan), each sorted. */
function stronglyConnected(nodes: readonly string[], next: (node: string) => readonly string[]): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const groups: string[][] = []
  const visit = (node: string) => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    onStack.add(node)
    for (const to of next(node)) {
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node)!, low.get(to)!))
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!))
      }
    }
    if (low.get(node) !== index.get(node)) return
    const group: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      group.push(member)
    } while (member !== node)
    if (group.length > 1) groups.push(group.sort())
  }
  for (const node of nodes) if (!index.has(node)) visit(node)
  return groups
}

import { Flags, type Interfaces } from '@oclif/core'
import chalk from 'chalk'
import type { FaultRule } from '../client/index.js'
import {
  ACTION_KEYS,
  actionKey,
  API_FAULT_ROWS,
  API_FAULTS,
  compactFault,
  FAULT_ROUTE_NAMES,
  FAULT_ROUTES,
  FAULT_SCOPE,
  type FaultRuleInput,
  faultRuleProblem,
  isSpent,
  type ScopeKey,
} from '../domain/api-fault.js'
import { paint, type Styled, table } from './format.js'
import { usage } from './usage.js'

/**
 * `pay fault add`'s flags, read from the API fault table and the scope table: one per fault (`--status 503`,
 * `--timeout`) and one per scope field (`--times 2`, `--track-id`), named as the rule's fields are.
 */

/** A rule field's flag: `trackId` is `--track-id`, `retryAfter` is `--retry-after`. */
const flagOf = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

const SCOPE_KEYS = Object.keys(FAULT_SCOPE) as ScopeKey[]

export function faultFlags() {
  const flags: Record<string, unknown> = {
    route: Flags.string({
      description: `which requests: ${FAULT_ROUTE_NAMES.map((r) => `${r} (${FAULT_ROUTES[r].request})`).join(', ')}`,
      options: [...FAULT_ROUTE_NAMES],
    }),
  }
  for (const row of API_FAULT_ROWS) {
    const description = `fault: ${row.description}${row.arg ? ` — ${row.arg.placeholder}, ${row.arg.bounds(row.example)}` : ''}`
    flags[row.name] = row.arg ? Flags.string({ description, helpGroup: 'FAULT' }) : Flags.boolean({ description, helpGroup: 'FAULT' })
  }
  for (const key of SCOPE_KEYS) {
    const field = FAULT_SCOPE[key]
    const description = field.kind === 'boolean' ? field.description : `${field.description} (${field.rule})`
    flags[flagOf(key)] = field.kind === 'boolean' ? Flags.boolean({ description, helpGroup: 'SCOPE' }) : Flags.string({ description, helpGroup: 'SCOPE' })
  }
  return flags as Interfaces.FlagInput
}

/** A number as typed, or the text itself, so that the check quotes what was typed. */
const asNumber = (text: string): number | string => (/^\s*-?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?\s*$/i.test(text) ? Number(text) : text)

/**
 * The rule the flags give, checked as the sandbox checks it; a usage error (exit 2) naming the flag otherwise.
 * Undefined when no rule flag was given at all.
 */
export function ruleFromFlags(flags: Readonly<Record<string, unknown>>, missingRoute: () => Error): FaultRuleInput | undefined {
  const input: Record<string, unknown> = {}
  if (flags.route !== undefined) input.route = flags.route
  for (const row of API_FAULT_ROWS) {
    const value = flags[row.name]
    if (value === undefined || value === false) continue
    input[actionKey(row.name)] = row.arg ? (row.arg.input.type === 'integer' ? asNumber(String(value)) : value) : true
  }
  for (const key of SCOPE_KEYS) {
    const value = flags[flagOf(key)]
    if (value === undefined || value === false) continue
    input[key] = FAULT_SCOPE[key].kind === 'string' || FAULT_SCOPE[key].kind === 'boolean' ? value : asNumber(String(value))
  }
  if (Object.keys(input).length === 0) return undefined
  if (input.route === undefined) throw missingRoute()
  const problem = faultRuleProblem(input)
  if (problem !== undefined) throw usage(asFlags(problem))
  return input as unknown as FaultRuleInput
}

/** A problem naming a field (`times must be …`) names its flag (`--times must be …`). */
function asFlags(problem: string): string {
  const names = [...API_FAULTS.names, ...SCOPE_KEYS.map(flagOf), 'route']
  const first = names.find((n) => problem.startsWith(`${n} `))
  return first ? `--${problem}` : problem
}

/** What the rule has done: `1 of 2`, `2 of 2 (spent)`, `3`, and how many matched with a rate. */
export function playedText(rule: FaultRule): string {
  const played = rule.times !== undefined ? `${rule.played} of ${rule.times}${isSpent(rule) ? ' (spent)' : ''}` : String(rule.played)
  return rule.rate !== undefined ? `${played} (${rule.matched} matched)` : played
}

/** The rules as a table: id, route, fault, scope, played, source. */
export function faultTable(rules: readonly FaultRule[]): Styled {
  const rows = rules.map((rule) => {
    const [route, fault, ...scope] = compactFault(rule, 'show').split(':')
    return [rule.id, route ?? '', fault ?? '', scope.join(' ') || '—', isSpent(rule) ? paint(chalk.dim, playedText(rule)) : playedText(rule), rule.source]
  })
  return table(['ID', 'ROUTE', 'FAULT', 'SCOPE', 'PLAYED', 'SOURCE'], rows, { shrink: ['SCOPE'] })
}

/** The rule fields the API fault table names, for help texts: `status, html, delay, timeout, reset or retry-after`. */
export const FAULT_NAMES_TEXT = `${API_FAULTS.names.slice(0, -1).join(', ')} or ${API_FAULTS.names.at(-1)}`
export { ACTION_KEYS }

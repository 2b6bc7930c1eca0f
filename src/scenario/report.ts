import { forTerminal } from '../domain/display.js'
import type { RunReport, ScenarioReport, StepReport } from './run.js'

export const REPORTERS = ['human', 'json', 'junit'] as const
export type Reporter = (typeof REPORTERS)[number]

export interface Paint {
  green: (s: string) => string
  red: (s: string) => string
  dim: (s: string) => string
  bold: (s: string) => string
}

const plain: Paint = { green: (s) => s, red: (s) => s, dim: (s) => s, bold: (s) => s }

/*
 * Human lines: names, titles, file names and messages come from scenario files and the sandbox's answers, so
 * each goes through forTerminal before it is painted.
 */

/** The heading printed before a scenario's steps. */
export function scenarioHeading(scenario: { name: string; file: string }, paint: Paint = plain): string {
  return `${paint.bold(forTerminal(scenario.name))} ${paint.dim(`(${forTerminal(scenario.file)})`)}`
}

/** One line per step, plus the failure's message (or what a passed step found) indented under it. */
export function stepLine(step: StepReport, paint: Paint = plain): string {
  const mark = step.outcome === 'passed' ? paint.green('✔') : step.outcome === 'failed' ? paint.red('✖') : paint.dim('-')
  const label = `${step.number}. ${forTerminal(step.title)}`
  const line = step.outcome === 'skipped' ? `  ${mark} ${paint.dim(`${label} (skipped)`)}` : `  ${mark} ${label} ${paint.dim(`${step.ms} ms`)}`
  if (step.message) return `${line}\n      ${paint.red(forTerminal(step.message))}`
  return step.detail ? `${line}\n      ${paint.dim(forTerminal(step.detail))}` : line
}

export function summaryLine(report: RunReport, paint: Paint = plain): string {
  const { totals } = report
  const seconds = `${(report.ms / 1000).toFixed(2)} s`
  const steps = `${totals.passed} of ${totals.steps} steps passed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`
  return report.ok
    ? paint.green(`✔ ${totals.scenarios} scenario${totals.scenarios === 1 ? '' : 's'} passed (${steps}) in ${seconds}`)
    : paint.red(`✖ ${totals.failedScenarios} of ${totals.scenarios} scenario${totals.scenarios === 1 ? '' : 's'} failed (${steps}) in ${seconds}`)
}

/**
 * JUnit XML as CI servers read it: one testsuite per scenario file, one testcase per step; an unmet
 * expectation is a <failure>, an error (refused request, sandbox gone) an <error>, a step after a failure <skipped>.
 */
export function toJUnit(report: RunReport): string {
  const { totals } = report
  const errors = report.scenarios.flatMap((s) => s.steps).filter((s) => s.outcome === 'failed' && s.error).length
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="pay scenarios" tests="${totals.steps}" failures="${totals.failed - errors}" errors="${errors}" skipped="${totals.skipped}" time="${seconds(report.ms)}">`,
    ...report.scenarios.flatMap(suite),
    '</testsuites>',
  ]
  return `${lines.join('\n')}\n`
}

function suite(s: ScenarioReport): string[] {
  const failed = s.steps.filter((t) => t.outcome === 'failed')
  const errors = failed.filter((t) => t.error).length
  const skipped = s.steps.filter((t) => t.outcome === 'skipped').length
  return [
    `  <testsuite name="${attr(s.name)}" file="${attr(s.file)}" tests="${s.steps.length}" failures="${failed.length - errors}" errors="${errors}" skipped="${skipped}" time="${seconds(s.ms)}" timestamp="${attr(s.startedAt.replace(/\.\d+Z$/, ''))}">`,
    ...(s.description ? [`    <properties><property name="description" value="${attr(s.description)}"/></properties>`] : []),
    ...s.steps.map((t) => testcase(s, t)),
    '  </testsuite>',
  ]
}

function testcase(s: ScenarioReport, t: StepReport): string {
  const open = `    <testcase name="${attr(`${t.number}. ${t.title}`)}" classname="${attr(s.name)}" file="${attr(s.file)}" time="${seconds(t.ms)}"`
  if (t.outcome === 'passed') return `${open}/>`
  if (t.outcome === 'skipped') return `${open}><skipped message="an earlier step failed"/></testcase>`
  const tag = t.error ? 'error' : 'failure'
  const message = t.message ?? 'failed'
  return `${open}><${tag} message="${attr(message)}" type="${t.error ? 'error' : 'expectation'}">${text(message)}</${tag}></testcase>`
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3)
}

/** Characters XML 1.0 cannot carry at all, even escaped. */
const INVALID_XML = /[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu

/**
 * Control characters written out as for a terminal (the report is often printed, or shown by a CI page),
 * which also leaves none that XML 1.0 forbids; what else XML cannot carry (lone surrogates, U+FFFE) becomes U+FFFD.
 */
function text(s: string): string {
  return forTerminal(s, { multiline: true }).replace(INVALID_XML, '\ufffd').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

function attr(s: string): string {
  return text(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;')
}

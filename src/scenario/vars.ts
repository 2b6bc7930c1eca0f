import { parseTemplate } from './template.js'
import type { Problem } from './validate.js'

/*
 * A file's `vars` and the environment it reads: `${vars.name}`, `${env.NAME}`, and `pay scenario run --var`. Pure:
 * the environment is given.
 */

export type VarValue = string | number | boolean

/**
 * The file's vars as a run uses them: each `--var` override read as the type the file declares it with, each
 * declared string with its `${env.…}` references replaced (an override is taken as written). Problems are put
 * at the var's place in the file.
 */
export function readVars(declared: Record<string, VarValue>, overrides: Readonly<Record<string, string>>, env: Readonly<Record<string, string | undefined>>, problems: Problem[]): Record<string, VarValue> {
  const vars: Record<string, VarValue> = {}
  for (const [name, value] of Object.entries(declared)) {
    const path = ['vars', name]
    const given = Object.hasOwn(overrides, name) ? overrides[name] : undefined
    if (given !== undefined) {
      const typed = overrideAs(value, given)
      if ('problem' in typed) problems.push({ path, message: `--var ${name}=${given}: ${typed.problem}` })
      else vars[name] = typed.value
      continue
    }
    if (typeof value !== 'string') {
      vars[name] = value
      continue
    }
    const parsed = parseTemplate(value)
    if ('error' in parsed) {
      problems.push({ path, message: parsed.error })
      continue
    }
    let text = ''
    for (const piece of parsed.pieces) {
      if (piece.kind === 'text') text += piece.text
      else if (piece.kind === 'repeat') text += piece.text.repeat(piece.count)
      else if (piece.name !== 'env') problems.push({ path, message: `${piece.source}: a var may use only \${env.NAME} references (and \${repeat:…}), since it is read before any step runs` })
      else if (env[piece.field] === undefined) problems.push({ path, message: envMissing(piece.source, piece.field, name) })
      else text += env[piece.field]
    }
    vars[name] = text
  }
  return vars
}

/** An override as the type of the value it replaces: a number stays a number, a boolean a boolean. */
function overrideAs(declared: VarValue, given: string): { value: VarValue } | { problem: string } {
  if (typeof declared === 'number') {
    const n = Number(given)
    return given.trim() !== '' && Number.isFinite(n) ? { value: n } : { problem: `must be a number, as the file declares it (${declared})` }
  }
  if (typeof declared === 'boolean') {
    return given === 'true' || given === 'false' ? { value: given === 'true' } : { problem: `must be true or false, as the file declares it (${declared})` }
  }
  return { value: given }
}

export function envMissing(source: string, name: string, varName?: string): string {
  const instead = varName !== undefined ? `, or give the value with --var ${varName}=…` : ''
  return `${source}: the environment variable ${name} is not set; set it${instead}`
}


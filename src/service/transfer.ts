import { SandboxError } from '../domain/outcomes.js'
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportCheck, type ExportFile, type ExportImage } from '../domain/transfer.js'
import type { ImportResult, ResetResult } from '../http/schemas.js'
import type { SandboxService } from './sandbox.js'

/** Clears payments and deliveries, and the API fault rules; merchants are kept so API keys in use stay valid. */
export async function resetSandbox(service: SandboxService): Promise<ResetResult> {
  const before = service.store.counts()
  const faults = service.store.faultRules().length
  const writing = service.store.reset()
  service.activityCleared()
  await writing
  return { cleared: { payments: before.payments, deliveries: before.deliveries, faults }, kept: { merchants: before.merchants } }
}

export function exportSandbox(service: SandboxService, sandboxVersion: string, now: Date): ExportFile {
  const image = service.store.exportImage()
  return { format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: now.toISOString(), sandboxVersion, ...image }
}

/** The answer to a refused import file: what is wrong, record and field, and nothing changed. */
export function importRefusal(check: ExportCheck & { ok: false }): SandboxError {
  return new SandboxError(check.tooLarge ? 'payloadTooLarge' : 'invalidBody', `not a valid export file: ${check.problems.join('; ')}`)
}

/**
 * Replaces the whole state with the records of a checked export file (ExportReader's verdict): every check is
 * over before this runs, so the state is replaced whole or, if the store refuses, not at all.
 */
export async function importSandbox(service: SandboxService, image: ExportImage): Promise<ImportResult> {
  const { merchants, payments } = image
  // An imported delivery is history: it is never sent again by itself (its URL may be someone else's
  // server). Deliveries still pending in the file are recorded as failed; `pay callback replay` resends one.
  const deliveries = image.deliveries.map((d) => {
    if (d.state !== 'pending') return d
    const { nextAttemptAt: _dropped, ...rest } = d
    return { ...rest, state: 'failed' as const }
  })
  const replaced = service.store.counts()
  const writing = service.store.replace({ merchants, payments, deliveries })
  service.activityCleared()
  await writing
  return { loaded: { merchants: merchants.length, payments: payments.length, deliveries: deliveries.length }, replaced }
}

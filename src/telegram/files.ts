import { randomBytes } from 'node:crypto'
import type { BotRecord, FileRecord } from '../domain/telegram-records.js'
import type { Change } from '../store/store.js'
import type { EmulatorCore } from './core.js'
import { BotApiError, badRequest } from './errors.js'
import { sniffImage } from './images.js'
import type { Params } from './params.js'

/** Photos a bot sends: from an upload, a file_id or a URL, kept within a bound on stored bytes. */

/** Photos up to Telegram's 10 MB; all kept files together up to this, the oldest let go first. */
export const MAX_PHOTO_BYTES = 10 * 1024 * 1024
export const MAX_STORED_FILE_BYTES = 64 * 1024 * 1024

export class Files {
  constructor(private readonly core: EmulatorCore) {}

  /** A file by its file_id. */
  file(fileId: string): FileRecord | undefined {
    return this.core.store.telegram.getFile(fileId)
  }

  /** A file by the path getFile gave, for `/telegram/file/bot<token>/<path>`. */
  fileByPath(botId: number, path: string): FileRecord | undefined {
    const unique = /^photos\/([A-Za-z0-9_-]+)\.[a-z]+$/.exec(path)?.[1]
    return unique === undefined ? undefined : this.core.store.telegram.listFiles().find((f) => f.botId === botId && f.fileUniqueId === unique)
  }

  /** The photo of a sendPhoto: an upload, a file_id sent before, or an HTTP URL the emulator fetches. */
  async photoFile(bot: BotRecord, p: Params): Promise<FileRecord> {
    const upload = p.file('photo')
    if (upload) return this.storeFile(bot, upload.data)
    const ref = p.string('photo').trim()
    if (ref === '') throw badRequest('there is no photo in the request')
    const known = this.core.store.telegram.getFile(ref)
    if (known) return known
    if (!/^https?:\/\//i.test(ref)) throw badRequest('wrong file identifier/HTTP URL specified')
    let data: Buffer
    try {
      const res = await fetch(ref, { signal: AbortSignal.timeout(10_000), redirect: 'follow' })
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`)
      const chunks: Buffer[] = []
      let size = 0
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.length
        if (size > MAX_PHOTO_BYTES) throw new Error('too big')
        chunks.push(Buffer.from(chunk))
      }
      data = Buffer.concat(chunks)
    } catch {
      throw badRequest('failed to get HTTP URL content')
    }
    return this.storeFile(bot, data)
  }

  private storeFile(bot: BotRecord, data: Buffer): Promise<FileRecord> {
    if (data.length > MAX_PHOTO_BYTES) throw new BotApiError(413, 'Request Entity Too Large')
    const image = sniffImage(data)
    if (!image) throw badRequest('IMAGE_PROCESS_FAILED')
    const file: FileRecord = {
      fileId: `AgAC${randomBytes(24).toString('base64url')}`,
      fileUniqueId: `AQAD${randomBytes(9).toString('base64url')}`,
      botId: bot.id,
      mimeType: image.mimeType,
      size: data.length,
      width: image.width,
      height: image.height,
      data: data.toString('base64'),
      createdAt: this.core.stamp(),
    }
    // Within the bound on kept bytes: the oldest files go first (their messages then show no picture).
    return this.core.store.retrying(async () => {
      const unit: Change[] = []
      let total = this.core.store.telegram.fileBytes() + data.length
      for (const old of this.core.store.telegram.listFiles()) {
        if (total <= MAX_STORED_FILE_BYTES) break
        unit.push({ k: 'tg', v: { t: 'unfile', fileId: old.fileId } })
        total -= old.size
      }
      unit.push({ k: 'tg', v: { t: 'file', v: file } })
      await this.core.store.commit(unit)
      return file
    })
  }

  /** The bot's getFile: where the file can be downloaded. */
  getFile(bot: BotRecord, p: Params): Record<string, unknown> {
    const id = p.string('file_id')
    if (id === '') throw badRequest('file_id not specified')
    const file = this.core.store.telegram.getFile(id)
    if (!file || file.botId !== bot.id) throw badRequest('wrong file_id or the file is temporarily unavailable')
    const extension = file.mimeType.split('/')[1] === 'jpeg' ? 'jpg' : file.mimeType.split('/')[1]
    return { file_id: file.fileId, file_unique_id: file.fileUniqueId, file_size: file.size, file_path: `photos/${file.fileUniqueId}.${extension}` }
  }
}

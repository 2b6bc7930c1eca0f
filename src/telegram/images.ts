/** Kind and size of an uploaded picture, read from its first bytes (PNG, JPEG, GIF, WebP); undefined otherwise. */
export function sniffImage(data: Buffer): { mimeType: string; extension: string; width: number; height: number } | undefined {
  if (data.length >= 24 && data.readUInt32BE(0) === 0x89504e47 && data.toString('latin1', 12, 16) === 'IHDR') {
    return { mimeType: 'image/png', extension: 'png', width: data.readUInt32BE(16), height: data.readUInt32BE(20) }
  }
  if (data.length >= 10 && data.toString('latin1', 0, 3) === 'GIF') {
    return { mimeType: 'image/gif', extension: 'gif', width: data.readUInt16LE(6), height: data.readUInt16LE(8) }
  }
  if (data.length >= 30 && data.toString('latin1', 0, 4) === 'RIFF' && data.toString('latin1', 8, 12) === 'WEBP') {
    const chunk = data.toString('latin1', 12, 16)
    if (chunk === 'VP8X') return { mimeType: 'image/webp', extension: 'webp', width: data.readUIntLE(24, 3) + 1, height: data.readUIntLE(27, 3) + 1 }
    if (chunk === 'VP8 ') return { mimeType: 'image/webp', extension: 'webp', width: data.readUInt16LE(26) & 0x3fff, height: data.readUInt16LE(28) & 0x3fff }
    if (chunk === 'VP8L') {
      const bits = data.readUInt32LE(21)
      return { mimeType: 'image/webp', extension: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 }
    }
    return undefined
  }
  if (data.length >= 4 && data[0] === 0xff && data[1] === 0xd8) {
    // Walk the segments to the first start-of-frame marker, which holds the size.
    let at = 2
    while (at + 9 < data.length) {
      if (data[at] !== 0xff) return undefined
      const marker = data[at + 1]!
      const length = data.readUInt16BE(at + 2)
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { mimeType: 'image/jpeg', extension: 'jpg', width: data.readUInt16BE(at + 7), height: data.readUInt16BE(at + 5) }
      }
      at += 2 + length
    }
  }
  return undefined
}

/**
 * The JSON text and ETag of a large document (a datasource's run: tens of MB) written in slices
 * that give the event loop back between them, so the service keeps answering while it is written.
 * The text is exactly stringifyJsonDocument's (lossless numbers kept); containers with many
 * entries are written a batch at a time, everything smaller in one call.
 */
import { createHash } from 'node:crypto'
import { stringify } from 'lossless-json'
import { isJsonObject } from './json-document.js'

/** Work between two yields, in milliseconds. */
const SLICE_MS = 10
/** Containers with more entries than this are written a batch at a time. */
const LARGE_CONTAINER = 256
/** Characters hashed at a time (a millisecond or two each). */
const HASH_SLICE_CHARS = 1024 * 1024

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

class Slicer {
  #since = performance.now()

  /** Yields when the current slice has run its time. */
  async maybeYield(): Promise<void> {
    if (performance.now() - this.#since < SLICE_MS) return
    await nextTurn()
    this.#since = performance.now()
  }
}

/** The JSON text of `value`, as stringifyJsonDocument writes it. */
export async function stringifyYielding(value: unknown): Promise<string> {
  return (await write(value, new Slicer())) ?? 'null'
}

async function write(value: unknown, slicer: Slicer): Promise<string | undefined> {
  if (Array.isArray(value) && value.length > LARGE_CONTAINER) {
    const parts: string[] = []
    for (const item of value) {
      parts.push((isLarge(item) ? await write(item, slicer) : stringify(item)) ?? 'null')
      await slicer.maybeYield()
    }
    return `[${parts.join(',')}]`
  }
  if (isJsonObject(value) && typeof value.toJSON !== 'function') {
    const keys = Object.keys(value)
    if (keys.length > LARGE_CONTAINER || keys.some((k) => isLarge(value[k]))) {
      const parts: string[] = []
      for (const key of keys) {
        const child = value[key]
        const text = isLarge(child) ? await write(child, slicer) : stringify(child)
        if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`)
        await slicer.maybeYield()
      }
      return `{${parts.join(',')}}`
    }
  }
  return stringify(value)
}

function isLarge(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > LARGE_CONTAINER
  return isJsonObject(value) && Object.keys(value).length > LARGE_CONTAINER
}

/**
 * documentEtag's value for `text` (or the text made of these parts, none ending inside a
 * surrogate pair), hashed in slices.
 */
export async function etagYielding(text: string | readonly string[]): Promise<string> {
  const hash = createHash('sha256')
  for (const part of typeof text === 'string' ? [text] : text) {
    let at = 0
    while (at < part.length) {
      let end = Math.min(part.length, at + HASH_SLICE_CHARS)
      // Never split a surrogate pair: each half alone would be hashed as U+FFFD.
      const last = part.charCodeAt(end - 1)
      if (end < part.length && last >= 0xd800 && last <= 0xdbff) end++
      hash.update(part.slice(at, end))
      at = end
      if (at < part.length) await nextTurn()
    }
  }
  return `"${hash.digest('hex').slice(0, 32)}"`
}

/**
 * The UTF-8 bytes of the text made of `parts` (no part ending between the halves of a surrogate
 * pair), each part encoded into one buffer in turn with the event loop given back between slices,
 * so tens of MB are never encoded, or joined into one string, at once.
 */
export async function utf8Yielding(parts: readonly string[]): Promise<Uint8Array> {
  const slicer = new Slicer()
  let total = 0
  for (const part of parts) {
    total += Buffer.byteLength(part, 'utf8')
    await slicer.maybeYield()
  }
  const out = Buffer.allocUnsafe(total)
  let at = 0
  for (const part of parts) {
    at += out.write(part, at, 'utf8')
    await slicer.maybeYield()
  }
  return out
}

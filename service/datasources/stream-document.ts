/**
 * The document of a `stream` datasource: the latest value of every key of the topic, as a
 * compacted topic holds it. Messages are taken in offset order per partition (a key lives in one
 * partition); a later value replaces an earlier one, a tombstone (null value) deletes the key, a
 * message without a key is skipped (it has nothing to replace). Keys are read as UTF-8 text.
 * Values are decoded only once the read is over (an overwritten value is never decoded): JSON as
 * the service reads JSON (numbers kept exactly), anything else kept as its UTF-8 text, so one
 * message a producer got wrong shows up as a string instead of failing every poll.
 */
import { parseJsonDocument, setOwn } from '../json-document.js'
import type { StreamRecord } from './stream-source.js'
import { RunError } from './types.js'

/** Time one slice of decoding may hold the event loop before it yields. */
const SLICE_MS = 5

export class LatestByKey {
  readonly #latest = new Map<string, Buffer>()
  #bytes = 0
  #skipped = 0

  /** @param maxBytes bytes of keys and values one read may take; more is a RunError. */
  constructor(private readonly maxBytes: number) {}

  /** Bytes of keys and values read so far. */
  get bytes(): number {
    return this.#bytes
  }

  /** Messages skipped because they had no key. */
  get skipped(): number {
    return this.#skipped
  }

  /** Takes messages in offset order. @throws RunError past the byte limit. */
  add(records: readonly StreamRecord[]): void {
    for (const record of records) {
      this.#bytes += (record.key?.byteLength ?? 0) + (record.value?.byteLength ?? 0)
      if (this.#bytes > this.maxBytes)
        throw new RunError(`size limit: the topic holds more than ${this.maxBytes} bytes`)
      if (record.key === null) {
        this.#skipped++
        continue
      }
      const key = record.key.toString('utf8')
      // Deleted then set again: the key moves to the end, as a fresh message would place it.
      this.#latest.delete(key)
      if (record.value !== null) this.#latest.set(key, record.value)
    }
  }

  /** Key → decoded value, yielding to the event loop every few milliseconds. */
  async document(signal?: AbortSignal): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {}
    let sliceStart = performance.now()
    for (const [key, value] of this.#latest) {
      setOwn(out, key, decodeValue(value))
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve))
        signal?.throwIfAborted()
        sliceStart = performance.now()
      }
    }
    return out
  }
}

/** A message value: JSON when it is JSON, else its text. */
export function decodeValue(value: Buffer): unknown {
  const text = value.toString('utf8')
  try {
    return parseJsonDocument(text)
  } catch {
    return text
  }
}

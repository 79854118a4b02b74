/**
 * The canonical JSON OPA hashes for structured bundle files (`data.json`, `data.yaml`,
 * `.manifest`): no whitespace, object keys sorted by their UTF-8 bytes, numbers exactly as written
 * (`2.50` stays `2.50`), strings escaped as Go's `encoding/json` does with HTML escaping off.
 * The writer works on the raw bytes, as Go's decoder does, so invalid UTF-8 and lone surrogate
 * escapes become U+FFFD exactly where Go puts them. Duplicate keys: the last one wins (Go's map).
 * @example canonicalJson(bytes('{ "b": [1, 2.50], "a": "x" }')) // '{"a":"x","b":[1,2.50]}'
 */

import { CanonicalWriter, MAX_DEPTH } from './canonical-writer.js'
import { bundleError } from './errors.js'
import { goQuote } from './go-string.js'

const encoder = new TextEncoder()
const COLON = 0x3a
const COMMA = 0x2c

/** Receives the canonical bytes in order, in chunks. */
export type ByteSink = (chunk: Uint8Array) => void

/**
 * Writes the canonical form of the JSON in `raw` into `sink` (a hash's `update`, for example).
 * @throws BundleError `bundle_data_invalid` naming `what` and the byte offset of bad JSON.
 */
export function writeCanonicalJson(raw: Uint8Array, sink: ByteSink, what = 'JSON file'): void {
  sink(new CanonicalWriter(raw, what).writeDocument())
}

/** The canonical form of `raw` as one byte array (tests and small files). */
export function canonicalJson(raw: Uint8Array, what?: string): Uint8Array {
  return new CanonicalWriter(raw, what ?? 'JSON file').writeDocument().slice()
}

/**
 * Writes the canonical form of an already-parsed value (YAML converted as Go's YAML-to-JSON does:
 * integers exact via bigint, floats in Go's shortest form, `-0` kept).
 */
export function writeCanonicalValue(value: unknown, sink: ByteSink, what = 'value'): void {
  const out = new ChunkWriter(sink)
  printValue(value, out, what, 0)
  out.flush()
}

function printValue(value: unknown, out: ChunkWriter, what: string, depth: number): void {
  if (depth > MAX_DEPTH) throw bundleError('bundle_data_invalid', `${what} is nested too deeply`)
  if (value === null || value === undefined) out.write(encoder.encode('null'))
  else if (typeof value === 'boolean') out.write(encoder.encode(String(value)))
  else if (typeof value === 'bigint') out.write(encoder.encode(goInteger(value)))
  else if (typeof value === 'number') out.write(encoder.encode(goFloat(value, what)))
  else if (typeof value === 'string') out.write(encoder.encode(goQuote(value)))
  else if (Array.isArray(value)) {
    out.byte(0x5b)
    value.forEach((item, i) => {
      if (i > 0) out.byte(COMMA)
      printValue(item, out, what, depth + 1)
    })
    out.byte(0x5d)
  } else if (typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>).map(([key, v]) => ({
      sortKey: Buffer.from(key, 'utf8'),
      key,
      v,
    }))
    members.sort((a, b) => Buffer.compare(a.sortKey, b.sortKey))
    out.byte(0x7b)
    members.forEach((member, i) => {
      if (i > 0) out.byte(COMMA)
      out.write(encoder.encode(goQuote(member.key)))
      out.byte(COLON)
      printValue(member.v, out, what, depth + 1)
    })
    out.byte(0x7d)
  } else throw bundleError('bundle_data_invalid', `${what} holds a value JSON cannot express`)
}

const INT64_MIN = -(2n ** 63n)
const UINT64_MAX = 2n ** 64n - 1n

// Go's YAML decoder keeps integers in int64/uint64 and turns larger ones into float64.
function goInteger(value: bigint): string {
  return value >= INT64_MIN && value <= UINT64_MAX ? value.toString() : goFloat(Number(value), 'integer')
}

/**
 * A float64 as Go's `encoding/json` prints it. JavaScript's shortest round-trip form and its
 * switch to exponents (below 1e-6, from 1e21 up) agree with Go's; only `-0` differs.
 */
export function goFloat(value: number, what: string): string {
  if (!Number.isFinite(value))
    throw bundleError('bundle_data_invalid', `${what} holds ${value}, which JSON cannot express`)
  return Object.is(value, -0) ? '-0' : String(value)
}

/** Batches small writes so a hash is updated with large chunks. */
class ChunkWriter {
  private buffer = Buffer.allocUnsafe(64 * 1024)
  private length = 0

  constructor(private readonly sink: ByteSink) {}

  byte(b: number): void {
    if (this.length === this.buffer.length) this.flush()
    this.buffer[this.length++] = b
  }

  write(bytes: Uint8Array): void {
    if (bytes.length > this.buffer.length - this.length) {
      this.flush()
      if (bytes.length > this.buffer.length) {
        this.sink(bytes)
        return
      }
    }
    this.buffer.set(bytes, this.length)
    this.length += bytes.length
  }

  flush(): void {
    if (this.length > 0) this.sink(this.buffer.subarray(0, this.length))
    this.length = 0
  }
}

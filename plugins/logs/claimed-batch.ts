/**
 * A claimed batch as it crosses from the buffer thread: the upload body itself (the JSON array
 * of the events, UTF-8, in one transferred buffer) and where each event ends in it, instead of
 * one string per event. A structured clone of ~1,000 strings per batch, their join and their
 * UTF-8 encoding were the main thread's largest costs in forwarding (docs/performance.md);
 * the buffer thread now does the join and encoding, and the buffer moves without a copy.
 *
 * The texts are decoded only when something asks for them (tests, a split of a refused batch).
 */
import type { Batch } from '../../store/decision-buffer/index.js'

/** What the buffer thread sends for a claim (see toWireClaim). */
export interface WireClaim {
  id: number
  firstSeq: number
  lastSeq: number
  seqs: number[]
  sizes: number[]
  bytes: number
  /** `[e0,e1,…]` as UTF-8. */
  body: Uint8Array
  /** Byte offset in `body` just past each event. */
  ends: Int32Array
}

const OPEN = 0x5b // [
const COMMA = 0x2c
const CLOSE_BYTE = 0x5d // ]
const CLOSE = Buffer.from(']')

/** On the buffer thread: the wire form of a claim (its body goes in the transfer list). */
export function toWireClaim(batch: Batch): WireClaim {
  const { texts } = batch
  // Measured here rather than trusting the stored sizes: the offsets must be exact.
  let total = 1
  const lengths = new Int32Array(texts.length)
  for (let i = 0; i < texts.length; i++) {
    lengths[i] = Buffer.byteLength(texts[i]!, 'utf8')
    total += lengths[i]! + 1
  }
  // Not from Node's pool: transferring it must detach nothing else.
  const body = Buffer.allocUnsafeSlow(Math.max(2, total))
  const ends = new Int32Array(texts.length)
  body[0] = OPEN
  let at = 1
  for (let i = 0; i < texts.length; i++) {
    if (i > 0) body[at++] = COMMA
    at += body.write(texts[i]!, at, lengths[i]!, 'utf8')
    ends[i] = at
  }
  body[at++] = CLOSE_BYTE
  return {
    id: batch.id,
    firstSeq: batch.firstSeq,
    lastSeq: batch.lastSeq,
    seqs: batch.seqs,
    sizes: batch.sizes,
    bytes: batch.bytes,
    body: new Uint8Array(body.buffer, body.byteOffset, at),
    ends,
  }
}

/** On the main thread: a Batch over the body; see the module comment. */
export class ClaimedBatch implements Batch {
  readonly id: number
  readonly firstSeq: number
  readonly lastSeq: number
  readonly seqs: number[]
  readonly sizes: number[]
  readonly bytes: number
  private readonly body: Buffer
  private readonly ends: Int32Array
  private decoded: string[] | undefined

  constructor(wire: WireClaim) {
    this.id = wire.id
    this.firstSeq = wire.firstSeq
    this.lastSeq = wire.lastSeq
    this.seqs = wire.seqs
    this.sizes = wire.sizes
    this.bytes = wire.bytes
    this.body = Buffer.from(wire.body.buffer, wire.body.byteOffset, wire.body.byteLength)
    this.ends = wire.ends
  }

  /** Event texts in ingest order, decoded on first use. */
  get texts(): string[] {
    this.decoded ??= Array.from({ length: this.seqs.length }, (_, i) => this.textAt(i))
    return this.decoded
  }

  /** The JSON array of events `from..to-1`, as uploaded; the whole batch without a copy. */
  arrayBody(from = 0, to = this.seqs.length): Buffer {
    if (from === 0 && to === this.seqs.length) return this.body
    const start = from === 0 ? 1 : this.ends[from - 1]! + 1
    const end = this.ends[to - 1]!
    return Buffer.concat([Buffer.from([OPEN]), this.body.subarray(start, end), CLOSE])
  }

  /** The first `keep` events, as a batch of their own (after the buffer gave the rest back). */
  head(keep: number): ClaimedBatch {
    const seqs = this.seqs.slice(0, keep)
    const sizes = this.sizes.slice(0, keep)
    const body = this.arrayBody(0, keep)
    return new ClaimedBatch({
      id: this.id,
      firstSeq: this.firstSeq,
      lastSeq: seqs[keep - 1]!,
      seqs,
      sizes,
      bytes: sizes.reduce((sum, n) => sum + n, 0),
      body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
      ends: this.ends.slice(0, keep),
    })
  }

  private textAt(i: number): string {
    const start = i === 0 ? 1 : this.ends[i - 1]! + 1
    return this.body.toString('utf8', start, this.ends[i]!)
  }
}

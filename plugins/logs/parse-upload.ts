/**
 * One upload body from bytes to events: inflate (bounded), check UTF-8, split into raw event
 * texts. Pure and synchronous, so it runs the same on the main thread and in a parse worker;
 * failures are values (status and reason), never exceptions, so they cross a worker boundary.
 */
import { isUtf8 } from 'node:buffer'
import { gunzipSync, inflateSync } from 'node:zlib'
import {
  type EventSpans,
  EventsFormatError,
  SPAN_STRIDE,
  splitEventSpans,
} from '../../core/decision-events/index.js'

/**
 * What one body holds (as offsets into its text, each event's UTF-8 length known: see
 * EventSpans), or why it is refused.
 */
export type ParsedUpload = { ok: true; split: EventSpans } | { ok: false; status: 400 | 415; message: string }

/** Inflates `raw` per `encoding` (at most `maxDecompressedBytes`) and splits it into events. */
export function parseUpload(raw: Uint8Array, encoding: string, maxDecompressedBytes: number): ParsedUpload {
  let bytes: Uint8Array
  if (encoding === 'identity' || encoding === '') {
    bytes = raw
  } else if (encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'deflate') {
    try {
      const inflate = encoding === 'deflate' ? inflateSync : gunzipSync
      bytes = inflate(raw, { maxOutputLength: maxDecompressedBytes })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        // NOTE(decision-logs): a gzip bomb, not an oversized upload (those are refused on the
        // wire size): the issue asks for 400 with the reason.
        return refuse(
          `request body inflates to more than ${maxDecompressedBytes} bytes (limit relay.decision_logs.intake.max_decompressed_bytes)`,
        )
      }
      return refuse(`request body is not valid ${encoding}: ${(err as Error).message}`)
    }
  } else {
    return {
      ok: false,
      status: 415,
      message: `Content-Encoding ${encoding} is not supported (use gzip or identity)`,
    }
  }
  if (!isUtf8(bytes)) return refuse('the body is not valid UTF-8 JSON')
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  try {
    const split = splitEventSpans(text)
    // An all-ASCII body (the usual case): each event's byte length is its string length.
    const ascii = bytes.byteLength === text.length
    const { spans } = split
    for (let at = 0; at < spans.length; at += SPAN_STRIDE) {
      spans[at + 2] = ascii
        ? spans[at + 1]! - spans[at]!
        : Buffer.byteLength(text.slice(spans[at]!, spans[at + 1]))
    }
    return { ok: true, split }
  } catch (err) {
    // Nothing of a refused body is stored: the agent gets the reason and keeps its copy.
    if (err instanceof EventsFormatError)
      return refuse(`the body is not a JSON array of decision events: ${err.message}`)
    throw err
  }
}

const refuse = (message: string): ParsedUpload => ({ ok: false, status: 400, message })

/**
 * Request bodies, read defensively: a limit on the bytes received (413), `Content-Encoding: gzip`
 * inflated with a limit on the inflated size (a gzip bomb gets 413 without being inflated
 * whole), text that must be UTF-8 (400: never silently rewritten to U+FFFD), and JSON or YAML
 * parsed with an error that says where the body is wrong (400).
 */
import { isUtf8 } from 'node:buffer'
import type { IncomingMessage } from 'node:http'
import { promisify } from 'node:util'
import { gunzip, gunzipSync, inflate } from 'node:zlib'
import type { Context } from 'hono'
import { parse as parseLossless } from 'lossless-json'
import { jsonDepthExceeded } from '../json-depth.js'
import { DEFAULT_MAX_YAML_NODES, readYaml, YamlError } from '../yaml.js'
import { badRequest, payloadTooLarge, unsupportedMediaType } from './errors.js'

const gunzipAsync = promisify(gunzip)
const inflateAsync = promisify(inflate)

/** Limits applied to every request body. */
export interface BodyLimits {
  /** Bytes accepted on the wire. */
  maxBytes: number
  /** Bytes a compressed body may inflate to. */
  maxDecompressedBytes: number
  /** Nodes a YAML body may hold (keys, values, items); default DEFAULT_MAX_YAML_NODES. */
  maxYamlNodes?: number
}

export const DEFAULT_BODY_LIMITS: BodyLimits = {
  maxBytes: 8 * 1024 * 1024,
  maxDecompressedBytes: 64 * 1024 * 1024,
}

const YAML_TYPES = new Set(['application/x-yaml', 'application/yaml', 'text/yaml', 'text/x-yaml'])
// Types a JSON body may arrive with: clients such as curl send form or text types by default.
const JSON_COMPATIBLE_TYPES = new Set([
  '',
  'application/json',
  'application/x-www-form-urlencoded',
  'text/plain',
])

/** The media type of the request without parameters, lower-cased ('' when absent). */
export function mediaType(c: Context): string {
  return (c.req.header('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase()
}

/**
 * The request body as bytes, inflated when `Content-Encoding` says so.
 * @throws HttpError 413 past either limit, 400 for corrupt gzip, 415 for unknown encodings.
 */
export async function readBody(c: Context, limits: BodyLimits = DEFAULT_BODY_LIMITS): Promise<Buffer> {
  // The stream can be read only once: a middleware that had to read the body before the route
  // (the service's authorization, for routes whose resource the body names) leaves it here.
  const earlier = c.get('requestBody') as Buffer | undefined
  if (earlier !== undefined) return earlier
  const raw = await readRawBody(c, limits.maxBytes)
  const encoding = (c.req.header('Content-Encoding') ?? 'identity').trim().toLowerCase()
  const body = await inflateBody(raw, encoding, limits.maxDecompressedBytes)
  // Kept for middleware that runs after the route (the service's activity record).
  c.set('requestBody', body)
  return body
}

/**
 * The request body as received (not inflated), refused with 413 past `maxBytes`; `hint` names
 * the setting that raises the limit.
 */
export async function readRawBody(c: Context, maxBytes: number, hint?: string): Promise<Buffer> {
  const tooLarge = () =>
    payloadTooLarge(`request body is larger than ${maxBytes} bytes${hint ? ` (${hint})` : ''}`)
  if (Number(c.req.header('Content-Length') ?? 0) > maxBytes) throw tooLarge()
  const chunks: Uint8Array[] = []
  let total = 0
  for await (const chunk of bodyChunks(c)) {
    total += chunk.byteLength
    if (total > maxBytes) throw tooLarge()
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, total)
}

// On @hono/node-server the Node request stream is read directly: wrapping it in a web stream
// first costs more than the rest of a small request. Elsewhere (app.request in tests) the
// web stream is all there is. Nothing may touch `c.req.raw.bodyUsed` first: on the Node server
// that getter builds the full web Request, which costs as much as reading the body.
function bodyChunks(c: Context): AsyncIterable<Uint8Array> | Iterable<Uint8Array> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  if (incoming && !incoming.readableDidRead && !incoming.readableEnded) return incoming
  const stream = c.req.raw.body
  if (!stream) return []
  return (async function* () {
    const reader = stream.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        yield value
      }
    } finally {
      await reader.cancel().catch(() => {})
    }
  })()
}

/** Inflates `raw` according to a `Content-Encoding` value, bounded by `maxBytes`. */
export async function inflateBody(raw: Buffer, encoding: string, maxBytes: number): Promise<Buffer> {
  if (encoding === 'identity' || encoding === '') return raw
  const inflater =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? gunzipAsync
      : encoding === 'deflate'
        ? inflateAsync
        : undefined
  if (!inflater)
    throw unsupportedMediaType(`Content-Encoding ${encoding} is not supported (use gzip or identity)`)
  try {
    return await inflater(raw, { maxOutputLength: maxBytes })
  } catch (err) {
    throw inflateError(err, encoding, maxBytes)
  }
}

/** The HTTP error for a body that did not inflate: 413 past `maxBytes`, else 400. */
function inflateError(err: unknown, encoding: string, maxBytes: number): Error {
  if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
    return payloadTooLarge(`request body inflates to more than ${maxBytes} bytes`)
  }
  return badRequest(`request body is not valid ${encoding}: ${(err as Error).message}`)
}

const isGzip = (bytes: Buffer) => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b

/**
 * A `Content-Encoding: gzip` body as text, inflated synchronously, with the answers readBodyText
 * gives (413, 400, an unlabelled gzip inside inflated too): for a worker thread, where blocking
 * is what it is there for (service/decision-parse-worker.ts).
 */
export function gzipBodyTextSync(raw: Buffer, maxBytes: number, options: BodyTextOptions = {}): string {
  const inflate = (bytes: Buffer) => {
    try {
      return gunzipSync(bytes, { maxOutputLength: maxBytes })
    } catch (err) {
      throw inflateError(err, 'gzip', maxBytes)
    }
  }
  let bytes = inflate(raw)
  if (options.unlabelledGzip && isGzip(bytes)) bytes = inflate(bytes)
  return utf8Text(bytes)
}

/** How a text body is read. */
export interface BodyTextOptions {
  /**
   * Inflate a body that starts with the gzip magic number although no `Content-Encoding` says
   * so (some decision-log senders do this; the magic number is unambiguous for JSON text).
   */
  unlabelledGzip?: boolean
}

/**
 * The request body as text (inflated as `readBody` does). Every text body is read here, so every
 * route refuses invalid UTF-8 alike instead of storing U+FFFD where the sender's bytes were.
 * @throws HttpError 400 when the bytes are not UTF-8 (naming the first bad byte), else as readBody.
 */
export async function readBodyText(
  c: Context,
  limits: BodyLimits = DEFAULT_BODY_LIMITS,
  options: BodyTextOptions = {},
): Promise<string> {
  let bytes = await readBody(c, limits)
  if (options.unlabelledGzip && isGzip(bytes)) {
    bytes = await inflateBody(bytes, 'gzip', limits.maxDecompressedBytes)
  }
  return utf8Text(bytes)
}

/**
 * Bytes as UTF-8 text, refused with 400 when they are not UTF-8.
 * @example utf8Text(Buffer.from([0x22, 0xff, 0x22])) // throws 400 "… not valid UTF-8 (byte 1 …)"
 */
export function utf8Text(bytes: Buffer): string {
  if (!isUtf8(bytes)) {
    const at = firstInvalidUtf8(bytes)
    throw badRequest(
      `request body is not valid UTF-8 (byte ${at}: 0x${bytes[at]!.toString(16).padStart(2, '0')})`,
    )
  }
  return bytes.toString('utf8')
}

// Only on the error path: where the first byte that starts no valid UTF-8 sequence is.
function firstInvalidUtf8(bytes: Buffer): number {
  let i = 0
  while (i < bytes.length) {
    const b = bytes[i]!
    const length =
      b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0
    if (length === 0 || i + length > bytes.length) return i
    if (length > 1 && !isUtf8(bytes.subarray(i, i + length))) return i
    i += length
  }
  return 0
}

/**
 * Parses JSON text, turning a syntax error into a 400 that names the line and column.
 * @example parseJsonText('{"a": }') // throws 400 "malformed JSON body at line 1, column 7: …"
 */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw badRequest(`malformed JSON body${describeJsonError(text)}`)
  }
}

/**
 * Refuses (400) a JSON text that nests deeper than `maxDepth`, before it is parsed: V8 parses it,
 * but everything recursive that touches the value afterwards overflows the stack.
 * @example refuseDeepJson(text, 1000, 'status report')
 */
export function refuseDeepJson(text: string, maxDepth: number, what: string): string {
  const at = jsonDepthExceeded(text, maxDepth)
  if (at >= 0) throw badRequest(`${what} nests deeper than ${maxDepth} levels (at character ${at})`)
  return text
}

// V8's messages carry no position on Node 20; lossless-json's parser does, so on the (rare)
// error path it re-reads the text to say where the problem is.
function describeJsonError(text: string): string {
  try {
    parseLossless(text)
  } catch (err) {
    const message = (err as Error).message
    const position = /at position (\d+)/.exec(message)
    const reason = message.replace(/ at position \d+$/, '')
    return position ? ` at ${lineAndColumn(text, Number(position[1]))}: ${reason}` : `: ${reason}`
  }
  return ''
}

/**
 * Parses YAML text in linear time (core/yaml.ts): 400 with line and column on error, 413 past
 * `maxNodes`. `intAsBigInt` gives integers as bigint, for callers that keep every digit.
 */
export function parseYamlText(
  text: string,
  options: { intAsBigInt?: boolean; maxNodes?: number } = {},
): unknown {
  try {
    return readYaml(text, {
      intAsBigInt: options.intAsBigInt ?? false,
      maxNodes: options.maxNodes ?? DEFAULT_MAX_YAML_NODES,
    })
  } catch (err) {
    if (!(err instanceof YamlError)) throw err
    if (err.kind === 'too_many_nodes') {
      throw payloadTooLarge(`YAML body${err.where}: ${err.reason}; send large documents as JSON`)
    }
    throw badRequest(`malformed YAML body${err.where}: ${err.reason}`)
  }
}

/**
 * The body parsed by its `Content-Type`: YAML types as YAML, JSON (or no type) as JSON.
 * An empty body is `undefined` so each route decides whether it needs one.
 */
export async function readStructuredBody(
  c: Context,
  limits: BodyLimits = DEFAULT_BODY_LIMITS,
): Promise<unknown> {
  const type = mediaType(c)
  const isYaml = YAML_TYPES.has(type)
  if (!isYaml && !JSON_COMPATIBLE_TYPES.has(type) && !type.endsWith('+json')) {
    throw unsupportedMediaType(
      `Content-Type ${type} is not supported (use application/json or application/x-yaml)`,
    )
  }
  const text = await readBodyText(c, limits)
  if (text.trim() === '') return undefined
  return isYaml ? parseYamlText(text, { maxNodes: limits.maxYamlNodes }) : parseJsonText(text)
}

function lineAndColumn(text: string, offset: number): string {
  let line = 1
  let lineStart = 0
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++
      lineStart = i + 1
    }
  }
  return `line ${line}, column ${offset - lineStart + 1}`
}

/**
 * A small DER reader, enough to pull names and alternative names out of X.509 certificates and
 * PKCS #10 requests (node:crypto parses certificates but not certificate requests, and prints
 * names as text rather than attribute lists).
 */
import { BuiltinError } from './errors.js'

/** One DER element. */
export interface Asn1 {
  tag: number
  constructed: boolean
  cls: number
  /** Contents (without tag and length). */
  body: Uint8Array
  /** Tag, length and contents. */
  raw: Uint8Array
  children: Asn1[]
}

function structure(message: string): BuiltinError {
  return new BuiltinError(`asn1: structure error: ${message}`)
}

/** Parses one element at `offset`; returns it and the offset after it. */
export function readDer(bytes: Uint8Array, offset = 0): [Asn1, number] {
  if (offset + 2 > bytes.length) throw structure('truncated tag or length')
  const first = bytes[offset] as number
  let pos = offset + 1
  let tag = first & 0x1f
  if (tag === 0x1f) {
    tag = 0
    for (;;) {
      const b = bytes[pos++]
      if (b === undefined) throw structure('truncated tag')
      tag = (tag << 7) | (b & 0x7f)
      if ((b & 0x80) === 0) break
    }
  }
  let len = bytes[pos++] as number
  if (len === undefined) throw structure('truncated length')
  if (len & 0x80) {
    const n = len & 0x7f
    if (n === 0 || n > 4) throw structure('unsupported length')
    len = 0
    for (let i = 0; i < n; i++) {
      const b = bytes[pos++]
      if (b === undefined) throw structure('truncated length')
      len = len * 256 + b
    }
  }
  const end = pos + len
  if (end > bytes.length) throw structure('data truncated')
  const body = bytes.subarray(pos, end)
  const constructed = (first & 0x20) !== 0
  const children: Asn1[] = []
  if (constructed) {
    let p = 0
    while (p < body.length) {
      const [child, next] = readDer(body, p)
      children.push(child)
      p = next
    }
  }
  return [{ tag, constructed, cls: first >> 6, body, raw: bytes.subarray(offset, end), children }, end]
}

/** Parses a whole DER document (no trailing bytes allowed). */
export function parseDer(bytes: Uint8Array): Asn1 {
  const [node, end] = readDer(bytes)
  if (end !== bytes.length) throw structure('trailing data')
  return node
}

/** Dotted text of an OBJECT IDENTIFIER. */
export function oidText(body: Uint8Array): string {
  const parts: number[] = []
  let value = 0
  for (let i = 0; i < body.length; i++) {
    const b = body[i] as number
    value = value * 128 + (b & 0x7f)
    if ((b & 0x80) === 0) {
      if (parts.length === 0)
        parts.push(Math.min(2, Math.floor(value / 40)), value - Math.min(2, Math.floor(value / 40)) * 40)
      else parts.push(value)
      value = 0
    }
  }
  return parts.join('.')
}

/** Text of a string-like element (UTF8String, PrintableString, IA5String, BMPString, ...). */
export function stringValue(node: Asn1): string {
  if (node.tag === 0x1e) {
    let out = ''
    for (let i = 0; i + 1 < node.body.length; i += 2)
      out += String.fromCharCode(((node.body[i] as number) << 8) | (node.body[i + 1] as number))
    return out
  }
  return Buffer.from(node.body).toString(node.tag === 0x0c ? 'utf8' : 'latin1')
}

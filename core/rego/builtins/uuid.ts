/** uuid.rfc4122 (random v4, stable per key within a query) and uuid.parse. */
import { randomUUID } from 'node:crypto'
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import { formatValue, numberFromBigInt, ObjectValue } from '../values/index.js'
import type { BuiltinContext } from './context.js'
import { defineBuiltin } from './define.js'
import { stringOperand } from './operands.js'

function randomV4(ctx: BuiltinContext): string {
  // A cryptographic UUID unless the context brings its own (seeded) random source.
  if (ctx.random === Math.random) return randomUUID()
  const bytes = Array.from({ length: 16 }, () => Math.floor(ctx.random() * 256))
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80
  const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

export const uuidRfc4122 = defineBuiltin({
  name: 'uuid.rfc4122',
  category: 'uuid',
  description:
    'Returns a new UUIDv4. For any given `k`, the output will be consistent throughout a query evaluation.',
  args: [t.named('k', t.string, 'seed string')],
  result: t.named(
    'output',
    t.string,
    'a version 4 UUID; for any given `k`, the output will be consistent throughout a query evaluation',
  ),
  nondeterministic: true,
  impl: (ctx, [k]) => {
    // OPA keys its cache by the argument's hash and never checks its type.
    const key = `uuid.rfc4122:${formatValue(k)}`
    const cached = ctx.cache.get(key)
    if (typeof cached === 'string') return cached
    const id = randomV4(ctx)
    ctx.cache.set(key, id)
    return id
  },
})

/** The 16 bytes of a UUID in any of Go's accepted spellings, or undefined. */
export function uuidBytes(s: string): Uint8Array | undefined {
  let hex: string
  if (s.length === 36) hex = s
  else if (s.length === 38 && s.startsWith('{') && s.endsWith('}')) hex = s.slice(1, -1)
  else if (s.length === 45 && s.toLowerCase().startsWith('urn:uuid:')) hex = s.slice(9)
  else if (s.length === 32)
    return /^[0-9a-fA-F]{32}$/.test(s) ? Uint8Array.from(Buffer.from(s, 'hex')) : undefined
  else return undefined
  if (!/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(hex))
    return undefined
  return Uint8Array.from(Buffer.from(hex.replaceAll('-', ''), 'hex'))
}

const VARIANTS = ['Reserved', 'RFC4122', 'Microsoft', 'Future'] as const
const DOMAINS = ['Person', 'Group', 'Org']
// 100 ns intervals between 1582-10-15 (the UUID epoch) and 1970-01-01.
const UUID_EPOCH_OFFSET = 122192928000000000n

function variant(b: number): string {
  if ((b & 0xc0) === 0x80) return VARIANTS[1]
  if ((b & 0xe0) === 0xc0) return VARIANTS[2]
  if ((b & 0xe0) === 0xe0) return VARIANTS[3]
  return VARIANTS[0]
}

export const uuidParse = defineBuiltin({
  name: 'uuid.parse',
  category: 'uuid',
  description:
    'Parses the string value as an UUID and returns an object with the well-defined fields of the UUID if valid.',
  args: [t.named('uuid', t.string, 'UUID string to parse')],
  result: t.named(
    'result',
    t.object(t.string, t.any),
    'Properties of UUID if valid (version, variant, etc). Undefined otherwise.',
  ),
  impl: (_ctx, [u]) => {
    const b = uuidBytes(stringOperand(u, 1))
    if (!b) return undefined
    const byte = (i: number) => b[i] as number
    const version = byte(6) >> 4
    const out = new ObjectValue().set('version', version).set('variant', variant(byte(8)))
    if (version === 1 || version === 2) {
      const low = BigInt(Buffer.from(b).readUInt32BE(0))
      const mid = BigInt(Buffer.from(b).readUInt16BE(4))
      const hi = BigInt(Buffer.from(b).readUInt16BE(6) & 0xfff)
      const ticks = low | (mid << 32n) | (hi << 48n)
      out.set('time', numberFromBigInt((ticks - UUID_EPOCH_OFFSET) * 100n))
      const node = Array.from(b.slice(10), (x) => x.toString(16).padStart(2, '0'))
      out.set('nodeid', node.join('-'))
      out.set(
        'macvariables',
        `${byte(10) & 0x02 ? 'local' : 'global'}:${byte(10) & 0x01 ? 'multicast' : 'unicast'}`,
      )
      out.set('clocksequence', Buffer.from(b).readUInt16BE(8) & 0x3fff)
      if (version === 2) {
        out.set('domain', DOMAINS[byte(9)] ?? `Domain${byte(9)}`)
        out.set('id', Buffer.from(b).readUInt32BE(0))
      }
    }
    return out satisfies Value
  },
})

/** The UUID built-ins. */
export const UUID = [uuidRfc4122, uuidParse] as const

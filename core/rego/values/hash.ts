/**
 * Hashes consistent with {@link equalValues}: equal values hash alike. Objects and sets cache
 * their hash; arrays are hashed on demand.
 */
import type { Decimal } from './decimal.js'
import { hashNumber } from './number.js'
import type { ObjectValue } from './object.js'
import type { SetValue } from './set.js'
import type { Value } from './value.js'

/** FNV-1a over UTF-16 code units. */
export function hashString(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h
}

/** A 32-bit hash of any value. */
export function hashValue(v: Value): number {
  switch (typeof v) {
    case 'string':
      return hashString(v)
    case 'number':
    case 'bigint':
      return hashNumber(v)
    case 'boolean':
      return v ? 0x1b873593 : 0x2545f491
    default: {
      if (v === null) return 0x3c6ef372
      if (Array.isArray(v)) {
        let h = 0x6a09e667 ^ v.length
        for (const x of v) h = Math.imul(h ^ hashValue(x), 0x9e3779b1) + 0x7f4a7c15
        return h | 0
      }
      const tagged = v as Decimal | ObjectValue | SetValue
      if (tagged.tag === 'decimal') return hashNumber(tagged)
      return tagged.hash()
    }
  }
}

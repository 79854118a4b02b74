import { describe, expect, it } from 'vitest'
import { callWith, json, testContext } from './helpers.js'

describe('uuid.rfc4122', () => {
  it('is a v4 UUID, stable per key within a query', () => {
    const ctx = testContext()
    const a = callWith(ctx, 'uuid.rfc4122', 'key') as string
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(callWith(ctx, 'uuid.rfc4122', 'key')).toBe(a)
    expect(callWith(ctx, 'uuid.rfc4122', 'other')).not.toBe(a)
    const real = testContext({ random: Math.random })
    expect(callWith(real, 'uuid.rfc4122', 'key')).not.toBe(a)
  })
})

describe('uuid.parse', () => {
  it('reads version and variant in every spelling', () => {
    for (const s of [
      '00000000-0000-4000-8000-000000000000',
      '{00000000-0000-4000-8000-000000000000}',
      'urn:uuid:00000000-0000-4000-8000-000000000000',
      '00000000000040008000000000000000',
    ]) {
      expect(json('uuid.parse', s), s).toBe('{"variant":"RFC4122","version":4}')
    }
    expect(json('uuid.parse', '6bea8ef2d3d33cd184e09bab06a52ece')).toBe('{"variant":"RFC4122","version":3}')
    expect(json('uuid.parse', 'not-a-uuid')).toBe('undefined')
  })

  it('decodes time-based (v1/v2) fields', () => {
    expect(json('uuid.parse', '000003e8-48b9-21ee-b200-325096b39f47')).toBe(
      '{"clocksequence":12800,"domain":"Person","id":1000,"macvariables":"local:unicast","nodeid":"32-50-96-b3-9f-47","time":1693566990121469600,"variant":"RFC4122","version":2}',
    )
  })
})

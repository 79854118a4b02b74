import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

// OPA's tokens.go: verify_* read header and signature only; decode and decode_verify require the
// claims to be a JSON object; decode_verify verifies every layer of a nested token.
const b64 = (text: string) => Buffer.from(text).toString('base64url')
const hs256 = (header: Record<string, unknown>, payloadText: string, secret = 's') => {
  const input = `${b64(JSON.stringify(header))}.${b64(payloadText)}`
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`
}

describe('io.jwt payload handling as in OPA', () => {
  it('verify_hs256 does not read the payload', () => {
    expect(json('io.jwt.verify_hs256', hs256({ alg: 'HS256' }, 'not json'), 's')).toBe('true')
  })

  it('decode and decode_verify require an object claim set', () => {
    const listClaims = hs256({ alg: 'HS256' }, '[1]')
    expectError(
      'eval_builtin_error',
      'io.jwt.decode: decoded JSON type was not an Object',
      'io.jwt.decode',
      listClaims,
    )
    expectError(
      'eval_builtin_error',
      'io.jwt.decode_verify: decoded JSON type was not an Object',
      'io.jwt.decode_verify',
      listClaims,
      { secret: 's' },
    )
  })

  it('names a header that is not an object', () => {
    expectError(
      'eval_builtin_error',
      'io.jwt.decode: bad JWT header: decoded JSON type was not an Object',
      'io.jwt.decode',
      `${b64('"x"')}.e30.AA`,
    )
  })

  it('decode_verify verifies each layer of a nested token with the same key', () => {
    const inner = hs256({ alg: 'HS256' }, '{"sub":"x"}')
    const outer = hs256({ alg: 'HS256', cty: 'JWT' }, inner)
    expect(json('io.jwt.decode_verify', outer, { secret: 's' })).toBe('[true,{"alg":"HS256"},{"sub":"x"}]')
    const outerOtherKey = hs256({ alg: 'HS256', cty: 'JWT' }, inner, 'other')
    expect(json('io.jwt.decode_verify', outerOtherKey, { secret: 's' })).toBe('[false,{},{}]')
  })

  it('checks iss and aud before exp, as OPA does', () => {
    const token = hs256({ alg: 'HS256' }, '{"iss":"a","exp":"soon"}')
    expect(json('io.jwt.decode_verify', token, { secret: 's', iss: 'b' })).toBe('[false,{},{}]')
  })
})

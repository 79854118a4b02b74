import { describe, expect, it } from 'vitest'
import { expectError, json } from './helpers.js'

// Messages from OPA's tokens.go (parseTokenConstraints, validate, parseTokenHeader).
const token = (header: Record<string, unknown>) =>
  `${Buffer.from(JSON.stringify(header)).toString('base64url')}.e30.AA`
const HS = token({ alg: 'HS256' })
const decodeVerifyError = (message: string, jwt: string, constraints: Record<string, unknown>) =>
  expectError(
    'eval_builtin_error',
    `io.jwt.decode_verify: ${message}`,
    'io.jwt.decode_verify',
    jwt,
    constraints,
  )

describe('io.jwt.decode_verify constraint errors', () => {
  it('rejects unknown and wrongly typed constraints, first in key order', () => {
    decodeVerifyError('unknown token validation constraint: foo', HS, { secret: 's', foo: 1 })
    decodeVerifyError('unknown token validation constraint: a', HS, { z: 1, a: 1 })
    for (const name of ['alg', 'aud', 'iss', 'secret', 'cert'])
      decodeVerifyError(`${name} constraint: must be a string`, HS, { [name]: 1 })
    decodeVerifyError('token time constraint: must be a number', HS, { secret: 's', time: 'now' })
    decodeVerifyError('token time constraint: must not be negative', HS, { secret: 's', time: -1 })
  })

  it('needs exactly one key constraint (an empty secret is none)', () => {
    decodeVerifyError('no key constraint', HS, {})
    decodeVerifyError('no key constraint', HS, { secret: '' })
    decodeVerifyError('duplicate key constraints', HS, { secret: 's', cert: '{"keys":[]}' })
  })

  it('checks the constraints before the token', () => {
    decodeVerifyError('no key constraint', 'not a token', {})
    decodeVerifyError('failed to parse a JWK key (set)', 'not a token', { cert: '{' })
  })
})

describe('io.jwt.decode_verify header errors', () => {
  it('rejects wrongly typed JOSE header parameters', () => {
    decodeVerifyError('alg: must be a string', token({ alg: 1 }), { secret: 's' })
    decodeVerifyError('kid: must be a string', token({ alg: 'HS256', kid: 7 }), { secret: 's' })
    decodeVerifyError('crit: must be a list', token({ alg: 'HS256', crit: 'x' }), { secret: 's' })
    decodeVerifyError('crit: must be a nonempty list', token({ alg: 'HS256', crit: [1] }), { secret: 's' })
  })

  it('accepts crit naming only parameters OPA understands', () => {
    const key = { kty: 'oct', k: Buffer.from('s').toString('base64url') }
    const signed = (header: Record<string, unknown>) =>
      JSON.parse(json('io.jwt.encode_sign', header, { sub: 'x' }, key)) as string
    const verified = (header: Record<string, unknown>) =>
      json('io.jwt.decode_verify', signed(header), { secret: 's' }).startsWith('[true')
    expect(verified({ alg: 'HS256', kid: 'k', crit: ['kid'] })).toBe(true)
    expect(verified({ alg: 'HS256', crit: ['exp'] })).toBe(true)
    expect(verified({ alg: 'HS256', exp: 1, crit: ['exp'] })).toBe(false)
  })
})

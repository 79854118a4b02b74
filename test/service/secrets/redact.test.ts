import { describe, expect, it } from 'vitest'
import { REDACTED_SECRET, redactSecretBody } from '../../../service/secrets/redact.js'

describe('redactSecretBody', () => {
  it('keeps name and description of a secret body and redacts the value and anything unexpected', () => {
    expect(
      redactSecretBody('/v1/secrets/git/ssh/key', {
        name: 'k',
        description: 'd',
        secret: 'hunter2',
        value: 'hunter2',
      }),
    ).toEqual({ name: 'k', description: 'd', secret: REDACTED_SECRET, value: REDACTED_SECRET })
    expect(redactSecretBody('/v1/secrets/a', { name: { nested: 'hunter2' } })).toEqual({
      name: REDACTED_SECRET,
    })
  })

  it('redacts a whole body it cannot read as an object', () => {
    expect(redactSecretBody('/v1/secrets/a', 'hunter2')).toBe(REDACTED_SECRET)
    expect(redactSecretBody('/v1/secrets/a', ['hunter2'])).toBe(REDACTED_SECRET)
  })

  it('leaves other routes and empty bodies alone', () => {
    const body = { secret: 'not a secret route' }
    expect(redactSecretBody('/v1/systems/x', body)).toBe(body)
    expect(redactSecretBody('/v1/secretsx', body)).toBe(body)
    expect(redactSecretBody('/v1/secrets/a', undefined)).toBeUndefined()
  })
})

import { describe, expect, it } from 'vitest'
import { isSensitiveField, REDACTED, recordedBody, redactValue } from '../../../service/activity/redact.js'

const json = { maxBytes: 10_000, mediaType: 'application/json' }

describe('activity body redaction', () => {
  it('replaces the secret of a secret route and keeps the rest', () => {
    const body = Buffer.from('{"name":"git key","description":"d","secret":"-----BEGIN KEY-----abc"}')
    expect(JSON.parse(recordedBody('/v1/secrets/git/ssh/key', body, json)!)).toEqual({
      name: 'git key',
      description: 'd',
      secret: REDACTED,
    })
  })

  it('never records a value sent to a secret route under another member name', () => {
    const body = Buffer.from('{"name":"k","value":"hunter2","nested":{"v":"hunter2"}}')
    const text = recordedBody('/v1/secrets/k', body, json)!
    expect(text).not.toContain('hunter2')
    expect(JSON.parse(text)).toMatchObject({ name: 'k' })
  })

  it('records nothing of a secret route body it cannot parse', () => {
    const text = recordedBody('/v1/secrets/x', Buffer.from('raw-secret-value'), json)!
    expect(text).not.toContain('raw-secret-value')
    expect(text).toMatch(/secret route/)
  })

  it('redacts sensitive names at any depth, in any case or dash style, and keeps numbers exact', () => {
    const text = recordedBody(
      '/v1/systems/s',
      Buffer.from(
        '{"n":12345678901234567890,"a":[{"Client-Secret":"c","x":{"API_KEY":"k","token":"t"}}],"empty_token":{"token":""}}',
      ),
      json,
    )!
    expect(text).toBe(
      `{"n":12345678901234567890,"a":[{"Client-Secret":"${REDACTED}","x":{"API_KEY":"${REDACTED}","token":"${REDACTED}"}}],"empty_token":{"token":""}}`,
    )
  })

  it('redacts YAML bodies and records them as JSON', () => {
    const yaml = Buffer.from('name: n\ncredentials:\n  password: p4ss\n')
    const text = recordedBody('/v1/systems/s', yaml, { maxBytes: 10_000, mediaType: 'application/x-yaml' })!
    expect(JSON.parse(text)).toEqual({ name: 'n', credentials: { password: REDACTED } })
  })

  it('records bodies that are not JSON or YAML objects, and bodies over the cap, by size only', () => {
    expect(recordedBody('/v1/data/x', Buffer.from('password=p4ss'), json)).toMatch(
      /^\[not recorded: 13 bytes/,
    )
    expect(recordedBody('/v1/data/x', Buffer.from('{"a":"b"}'), { ...json, maxBytes: 4 })).toMatch(
      /^\[not recorded: 9 bytes, more than/,
    )
    expect(recordedBody('/v1/data/x', undefined, json)).toBeUndefined()
    expect(recordedBody('/v1/data/x', Buffer.alloc(0), json)).toBeUndefined()
  })

  it('names sensitive fields', () => {
    expect(isSensitiveField('Private-Key')).toBe(true)
    expect(isSensitiveField('passphrase')).toBe(true)
    expect(isSensitiveField('description')).toBe(false)
    expect(redactValue('secret')).toBe('secret')
  })
})

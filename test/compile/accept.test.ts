import { describe, expect, it } from 'vitest'
import { ACCEPT_CHOICES, knownAcceptValues, negotiateAccept } from '../../compile/accept.js'
import { CompileFailure } from '../../compile/errors.js'

function failure(header: string | undefined): { status: number; body: object } {
  try {
    negotiateAccept(header)
  } catch (err) {
    if (err instanceof CompileFailure) return { status: err.status, body: err.toJSON() }
    throw err
  }
  throw new Error('expected a failure')
}

describe('negotiateAccept', () => {
  it('selects each SQL dialect and UCAST variant in both vendor spellings', () => {
    for (const vendor of ['opa', 'styra']) {
      for (const dialect of ['postgresql', 'mysql', 'sqlserver', 'sqlite'] as const) {
        const f = negotiateAccept(`application/vnd.${vendor}.sql.${dialect}+json`)
        expect(f).toEqual({
          kind: 'single',
          mediaType: `application/vnd.${vendor}.sql.${dialect}+json`,
          target: { kind: 'sql', dialect, variant: dialect },
        })
      }
      for (const variant of ['all', 'minimal', 'prisma', 'linq']) {
        const f = negotiateAccept(`application/vnd.${vendor}.ucast.${variant}+json`)
        expect(f.kind === 'single' && f.target).toEqual({ kind: 'ucast', variant })
      }
      expect(negotiateAccept(`application/vnd.${vendor}.multitarget+json`).kind).toBe('multi')
    }
    expect(negotiateAccept('application/json')).toEqual({ kind: 'ast', mediaType: 'application/json' })
    expect(knownAcceptValues()).toHaveLength(1 + 2 * 9)
  })

  it('answers the reference 400s for missing, multiple and unknown values, listing what to use', () => {
    expect(failure(undefined)).toEqual({
      status: 400,
      body: {
        code: 'invalid_parameter',
        message: `Accept header: missing required header; ${ACCEPT_CHOICES}`,
      },
    })
    expect(failure('  ').body).toEqual({
      code: 'invalid_parameter',
      message: `Accept header: missing required header; ${ACCEPT_CHOICES}`,
    })
    expect(failure('application/json, text/plain').body).toEqual({
      code: 'invalid_parameter',
      message: `Accept header: multiple headers not supported; ${ACCEPT_CHOICES}`,
    })
    for (const bad of [
      'text/html',
      'application/json; charset=utf-8',
      'application/vnd.styra.sql.postgres+json',
    ]) {
      expect(failure(bad).body).toEqual({
        code: 'invalid_parameter',
        message: `Accept header: unsupported header: ${bad}; ${ACCEPT_CHOICES}`,
      })
    }
  })

  it('lists every current media type in the refusal', () => {
    const { message } = failure('text/html').body as { message: string }
    for (const value of knownAcceptValues().filter((v) => !v.includes('styra')))
      expect(message).toContain(value)
    expect(message).toContain('application/vnd.opa.sql.postgresql+json')
    expect(message).toContain('application/json')
  })

  it("answers */* (curl's default) with the open compile API's default, the AST form", () => {
    expect(negotiateAccept('*/*')).toEqual({ kind: 'ast', mediaType: 'application/json' })
    expect(negotiateAccept('application/*')).toEqual({ kind: 'ast', mediaType: 'application/json' })
  })
})

import { describe, expect, it } from 'vitest'
import { knownAcceptValues, negotiateAccept } from '../../compile/accept.js'
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

  it('answers the reference 400s for missing, multiple and unknown values', () => {
    expect(failure(undefined)).toEqual({
      status: 400,
      body: { code: 'invalid_parameter', message: 'Accept header: missing required header' },
    })
    expect(failure('  ').body).toEqual({
      code: 'invalid_parameter',
      message: 'Accept header: missing required header',
    })
    expect(failure('application/json, text/plain').body).toEqual({
      code: 'invalid_parameter',
      message: 'Accept header: multiple headers not supported',
    })
    for (const bad of ['*/*', 'application/json; charset=utf-8', 'application/vnd.styra.sql.postgres+json']) {
      expect(failure(bad).body).toEqual({
        code: 'invalid_parameter',
        message: `Accept header: unsupported header: ${bad}`,
      })
    }
  })
})

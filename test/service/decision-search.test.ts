import { describe, expect, it } from 'vitest'
import {
  decodeCursor,
  encodeCursor,
  parseDecisionSearch,
  parseSearch,
  requestFromQuery,
} from '../../service/decision-search.js'

describe('decision search requests', () => {
  it('applies the defaults of the spec', () => {
    const { query, compact } = parseDecisionSearch({}, 1000)
    expect(query).toMatchObject({ order: 'DESC', limit: 100 })
    expect(query.resultKinds).toBeUndefined()
    expect(compact).toBe(false)
  })

  it('reads query strings and refuses bad values with the parameter named', () => {
    expect(requestFromQuery({ limit: '5', compact: 'true' })).toMatchObject({ limit: 5, compact: true })
    expect(() => requestFromQuery({ limit: 'ten' })).toThrow(/limit/)
    expect(() => requestFromQuery({ nope: '1' })).toThrow(/unknown parameter nope/)
    expect(() => parseDecisionSearch({ limit: 0 }, 1000)).toThrow(/limit/)
    expect(() => parseDecisionSearch({ limit: 1001 }, 1000)).toThrow(/limit/)
    expect(() => parseDecisionSearch({ order: 'up' }, 1000)).toThrow(/order/)
    expect(() => parseDecisionSearch({ result_kind: 'MAYBE' }, 1000)).toThrow(/result_kind/)
    expect(() => parseDecisionSearch({ start_time: 'noon' }, 1000)).toThrow(/start_time/)
    expect(() => parseDecisionSearch({ cursor: 'garbage' }, 1000)).toThrow(/cursor/)
    expect(() => parseDecisionSearch({ default_timezone: 'PST' }, 1000)).toThrow(/default_timezone/)
  })

  it('reads result kinds as a comma list where ALL means every kind', () => {
    expect(parseDecisionSearch({ result_kind: 'allowed,ERROR' }, 10).query.resultKinds).toEqual([
      'ALLOWED',
      'ERROR',
    ])
    expect(parseDecisionSearch({ result_kind: 'ALL,DENIED' }, 10).query.resultKinds).toBeUndefined()
  })

  it('places local times with default_timezone', () => {
    const utc = parseDecisionSearch({ start_time: '2024-05-01T12:00:00' }, 10).query.startUs
    const shifted = parseDecisionSearch({ start_time: '2024-05-01T12:00:00', default_timezone: '+3:00' }, 10)
      .query.startUs
    expect(utc).toBe(Date.parse('2024-05-01T12:00:00Z') * 1000)
    expect(shifted).toBe(Date.parse('2024-05-01T09:00:00Z') * 1000)
    const explicit = parseDecisionSearch(
      { end_time: '2024-05-01T12:00:00.250Z', default_timezone: '+3:00' },
      10,
    )
    expect(explicit.query.endUs).toBe(Date.parse('2024-05-01T12:00:00.250Z') * 1000)
  })

  it('round-trips cursors', () => {
    const position = { tsUs: 1_714_564_800_000_000, seq: 12345 }
    expect(decodeCursor(encodeCursor(position))).toEqual(position)
    expect(decodeCursor('not-a-cursor')).toBeUndefined()
  })

  it('parses the search language', () => {
    const parsed = parseSearch(
      'alice "two words" -bob path:app/* decision_id:abc input.user.name:"Ann Lee" labels.env:prod system:s1 kind:denied',
    )
    expect(parsed.terms).toEqual([
      { kind: 'text', value: 'alice', negate: false },
      { kind: 'text', value: 'two words', negate: false },
      { kind: 'text', value: 'bob', negate: true },
      { kind: 'path', value: 'app/', prefix: true, negate: false },
      { kind: 'decision_id', value: 'abc', negate: false },
      { kind: 'field', pointer: ['input', 'user', 'name'], value: 'Ann Lee', negate: false },
      { kind: 'field', pointer: ['labels', 'env'], value: 'prod', negate: false },
    ])
    expect(parsed.systems).toEqual(['s1'])
    expect(parsed.kinds).toEqual(['DENIED'])
    expect(() => parseSearch(Array(21).fill('x').join(' '))).toThrow(/at most 20/)
    expect(() => parseSearch('-system:x')).toThrow(/cannot be negated/)
  })

  it('intersects search system terms with the system parameter', () => {
    expect(parseDecisionSearch({ system: 'a,b', search: 'system:b' }, 10).query.systemIds).toEqual(['b'])
    expect(parseDecisionSearch({ system: 'a', search: 'system:b' }, 10).query.systemIds).toEqual([])
  })

  it('refuses a stack filter with 400 (the service has no stacks), and ignores an empty one', () => {
    expect(() => parseDecisionSearch({ stack: 's' }, 10)).toThrow(/^stack: this service has no stacks/)
    expect(() => parseDecisionSearch(requestFromQuery({ stack: 'prod' }), 10)).toThrow(
      expect.objectContaining({ status: 400 }),
    )
    expect(parseDecisionSearch({ stack: '' }, 10).query.limit).toBe(10)
  })
})

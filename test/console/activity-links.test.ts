/** What an activity record changed, from its path (console/src/views/activity/activity-links.ts). */
import { describe, expect, it } from 'vitest'
import { targetOf, targetsOf } from '../../console/src/views/activity/activity-links.js'

describe('activity links', () => {
  it('names the resource a request path acts on', () => {
    expect(targetOf('/v1/systems/abc')).toEqual({ view: 'systems', segments: ['abc'], label: 'system abc' })
    expect(targetOf('/v1/systems/abc/assets/opa-config')?.segments).toEqual(['abc'])
    expect(targetOf('/v1/policies/systems/abc/rules')?.segments).toEqual(['abc'])
    expect(targetOf('/v1/data/systems/abc/users/x')?.segments).toEqual(['abc'])
    expect(targetOf('/v1/tokens/ci%2Fbot')).toMatchObject({ view: 'tokens', segments: ['ci/bot'] })
    expect(targetOf('/v1/decisions/d-1')).toMatchObject({ view: 'decisions', segments: ['d-1'] })
    expect(targetOf('/v2/authz/rolebindings/rb-1')).toMatchObject({ view: 'access' })
    expect(targetOf('/v1/systems')).toMatchObject({ view: 'systems', segments: [] })
  })

  it('names nothing for paths outside the API or without a console page', () => {
    expect(targetOf('/v1/policies/shared/lib')).toBeUndefined()
    expect(targetOf('/v1/authz/evaluation')).toBeUndefined()
    expect(targetOf('/health')).toBeUndefined()
    expect(targetOf('/v1/%E0%A4%A')).toBeUndefined()
  })

  it('offers the system page after the datasource view for a datasource of a system', () => {
    expect(targetsOf('/v1/datasources/systems/abc/hr').map((t) => [t.view, t.segments])).toEqual([
      ['datasources', ['systems/abc/hr']],
      ['systems', ['abc']],
    ])
  })
})

/**
 * The build-time probe's inputs come from the policy: the paths it reads below `input`, set to the
 * constants it compares with and to the keys of its data; never through a prototype key.
 */
import { describe, expect, it } from 'vitest'
import { probeInputs } from '../../../../core/bundle/optimize/probe-inputs.js'
import { parseModule } from '../../../../core/rego/index.js'

describe('probeInputs', () => {
  it('sets each input path to the constants and data keys the policy uses', () => {
    const module = parseModule(
      'package p\n\nallow if {\n\tinput.method == "GET"\n\tdata.roles[input.user.name][_] == "admin"\n}\n',
      { file: 'p.rego' },
    )
    const inputs = probeInputs([module], { roles: { alice: ['admin'], bob: ['dev'] } })
    expect(inputs).toContainEqual({ method: 'GET' })
    expect(inputs).toContainEqual({ user: { name: 'alice' } })
    expect(inputs).toContainEqual({ user: { name: 'admin' } })
    expect(inputs.length).toBeLessThanOrEqual(64)
  })

  it('skips paths through prototype keys', () => {
    const module = parseModule('package p\n\nallow if input.__proto__.polluted == 1\n', { file: 'p.rego' })
    const inputs = probeInputs([module], {})
    expect(inputs).toEqual([])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

import { describe, expect, it } from 'vitest'
import { runCase } from './runner.js'

describe('runner: sort_bindings sorts the JSON form, as OPA harness does', () => {
  it('a set inside a binding sorts among arrays, before objects', async () => {
    const outcome = await runCase('runner', {
      note: 'runner/set among arrays',
      query: 'data.t.p = x',
      modules: ['package t\n\np := {{}, set(), [1]}\n'],
      sort_bindings: true,
      want_result: [{ x: [[], [1], {}] }],
    })
    expect(outcome.reason).toBeUndefined()
    expect(outcome.passed).toBe(true)
  })
})

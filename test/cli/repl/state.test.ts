/** The shell's modules: compile-checked changes, completions, and show. */
import { describe, expect, it } from 'vitest'
import { ShellState } from '../../../cli/repl/state.js'
import { parseModule, RegoErrors } from '../../../core/rego/index.js'
import { ObjectValue } from '../../../core/rego/values/index.js'

const loaded = {
  policies: [
    {
      id: 'authz.rego',
      raw: '',
      module: parseModule('package authz\n\nallow := true\nusers := []\n', { file: 'authz.rego' }),
    },
  ],
  data: new ObjectValue(),
  bundles: [],
}

const rules = (text: string) => parseModule(`package repl\n${text}`, { file: '' }).rules

describe('ShellState', () => {
  it('completes rule paths of every module, names of the current package, and imports', () => {
    const state = new ShellState(loaded, { regoVersion: 'v1', maxErrors: 10 })
    state.addRules(rules('answer := 42'))
    state.addImports(parseModule('package x\nimport data.authz', { file: '' }).imports)
    expect(state.completions('data.')).toEqual(['data.authz.allow', 'data.authz.users', 'data.repl.answer'])
    expect(state.completions('a')).toEqual(['answer', 'authz'])
  })

  it('keeps the module as it was when a change does not compile', () => {
    const state = new ShellState(loaded, { regoVersion: 'v1', maxErrors: 10 })
    state.addRules(rules('p := 1'))
    expect(() => state.addRules(rules('q := r'))).toThrow(RegoErrors)
    expect(state.show()).toBe('package repl\n\np := 1\n')
  })
})

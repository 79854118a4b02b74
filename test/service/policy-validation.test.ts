import { describe, expect, it } from 'vitest'
import { defaultModuleValidator } from '../../service/policy-validation.js'

describe('defaultModuleValidator', () => {
  it('accepts modules that parse as Rego v1', () => {
    expect(defaultModuleValidator('a.rego', 'package a\n\nallow if input.user == "alice"\n')).toBeUndefined()
  })

  it('refuses modules that do not parse, with file, line and column', () => {
    expect(defaultModuleValidator('p/a.rego', 'package a\nallow { true }\n')).toMatch(
      /^p\/a\.rego:2:1: rego_parse_error: /,
    )
    expect(defaultModuleValidator('b.rego', 'allow := true\n')).toMatch(/^b\.rego:\d+:\d+: rego_parse_error/)
  })
})

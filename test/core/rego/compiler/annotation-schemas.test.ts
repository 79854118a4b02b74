/**
 * `# METADATA schemas:` annotations in the type checker (compiler/annotation-schemas.ts), against
 * OPA's expectations (v1/ast/check_test.go, TestCheckAnnotationRules and
 * TestCheckAnnotationInference): which annotations reach a rule (rule, document, package,
 * subpackages scopes; later ones override), how `input` and `data` paths are overridden, and the
 * error for a schema the set lacks. The schemas here are closed objects (no additionalProperties).
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_BUILTINS } from '../../../../core/rego/builtins/registry.js'
import { lookupFromDeclarations } from '../../../../core/rego/compiler/builtin-info.js'
import { Compiler } from '../../../../core/rego/compiler/compiler.js'
import { RegoErrors } from '../../../../core/rego/errors.js'
import { parseModule } from '../../../../core/rego/index.js'
import { SchemaSet } from '../../../../core/rego/types/index.js'

const builtins = lookupFromDeclarations(DEFAULT_BUILTINS)

const userOp = {
  type: 'object',
  properties: { user: { type: 'string' }, operation: { type: 'string' } },
}
const acl = {
  type: 'object',
  properties: {
    alice: { type: 'array', items: { type: 'string' } },
    bob: { type: 'array', items: { type: 'string' } },
  },
}
const schemas = new SchemaSet()
  .put(['number'], { type: 'number' })
  .put(['string'], { type: 'string' })
  .put(['input'], userOp)
  .put(['whocan-input-schema'], { type: 'object', properties: { operation: { type: 'string' } } })
  .put(['acl-schema'], acl)

/** The errors of compiling `sources` (test1.rego, test2.rego, ...), as `RegoError.toString()` prints them. */
function errorsOf(sources: string[], set: SchemaSet | null = schemas): string[] {
  const modules = Object.fromEntries(
    sources.map((src, i) => [`test${i + 1}.rego`, parseModule(src, { file: `test${i + 1}.rego` })]),
  )
  try {
    new Compiler({ builtins, ...(set ? { schemas: set } : {}) }).compile(modules)
    return []
  } catch (e) {
    if (e instanceof RegoErrors) return e.errors.map((x) => x.toString())
    throw e
  }
}

const ruleScope = (schemasYaml: string[], body: string, head = 'allow if') =>
  `package policy\n\n# METADATA\n# scope: rule\n# schemas:\n${schemasYaml.map((s) => `#   - ${s}\n`).join('')}${head} {\n${body}\n}\n`

const accepted: { note: string; sources: string[] }[] = [
  {
    note: 'input and data annotations',
    sources: [
      ruleScope(
        ['input: schema["input"]', 'data.acl: schema["acl-schema"]'],
        'access := data.acl[input.user]\naccess[_] == input.operation',
      ),
    ],
  },
  {
    note: 'a nested path added under an existing prefix',
    sources: [
      ruleScope(
        [
          'input: schema["input"]',
          'input.apple.orange: schema["input"]',
          'input.apple.orange.banana: schema["acl-schema"]',
        ],
        'input.apple.orange.banana.alice',
      ),
    ],
  },
  {
    note: 'a data annotation without an input schema leaves input open',
    sources: [ruleScope(['data.acl: schema["acl-schema"]'], 'input.apple.orange.banana\ndata.blah')],
  },
  {
    note: 'an annotation on another rule has no effect on this one',
    sources: [
      'package policy\n\n# METADATA\n# scope: rule\n# schemas:\n#   - input: schema["acl-schema"]\nallow if input.alice\n\ndeny contains 1 if input.foo\n',
    ],
  },
  {
    note: 'rule scope overrides document scope',
    sources: [
      'package test\n\n# METADATA\n# scope: document\n# schemas:\n# - input.foo: schema.number\np if { input.foo = 7 }\n\n# METADATA\n# scope: rule\n# schemas:\n# - input.foo: schema.string\np if { input.foo = "str" }\n',
    ],
  },
  {
    note: 'package scope in another module',
    sources: [
      '# METADATA\n# scope: package\n# schemas:\n# - input.foo: schema.number\npackage test\n',
      'package test\n\np if { input.foo = 7 }\n',
    ],
  },
  {
    note: 'document scope overrides subpackages scope',
    sources: [
      '# METADATA\n# scope: subpackages\n# schemas:\n# - input: schema.number\npackage test\n\n# METADATA\n# scope: document\n# schemas:\n# - input: schema.string\np if { input = "str" }\n',
    ],
  },
  {
    note: 'rule scope overrides package scope',
    sources: [
      '# METADATA\n# scope: package\n# schemas:\n# - input: schema.string\npackage test\n\n# METADATA\n# scope: rule\n# schemas:\n# - input: schema.number\np if { input = 7 }\n',
    ],
  },
]

const rejected: { note: string; sources: string[]; want: string }[] = [
  {
    note: 'a schema the set lacks',
    sources: [ruleScope(['input: schema.missing'], 'input.x')],
    want: 'test1.rego:7: rego_type_error: undefined schema: schema.missing',
  },
  {
    note: 'the later of two input schemas wins',
    sources: [
      ruleScope(
        ['input: schema["input"]', 'input: schema["whocan-input-schema"]'],
        'input.user == input.operation',
      ),
    ],
    want: 'test1.rego:9: rego_type_error: undefined ref: input.user',
  },
  {
    note: 'a path added under input is closed like its schema',
    sources: [
      ruleScope(['input: schema["input"]', 'input.apple.orange: schema["input"]'], 'input.apple.banana'),
    ],
    want: 'test1.rego:9: rego_type_error: undefined ref: input.apple.banana',
  },
  {
    note: 'a path written with brackets',
    sources: [
      ruleScope(
        ['input: schema["input"]', 'input.apple["orange"]: schema["input"]'],
        'input.apple.orange.fruit',
      ),
    ],
    want: 'test1.rego:9: rego_type_error: undefined ref: input.apple.orange.fruit',
  },
  {
    note: 'the same path annotated twice: the later wins',
    sources: [
      ruleScope(
        [
          'input: schema["input"]',
          'input.apple.orange: schema["input"]',
          'input.apple.orange: schema["acl-schema"]',
        ],
        'input.apple.orange.bob\ninput.apple.orange.user',
      ),
    ],
    want: 'test1.rego:11: rego_type_error: undefined ref: input.apple.orange.user',
  },
  {
    note: 'a data path typed by its schema',
    sources: [ruleScope(['input: schema["input"]', 'data.acl: schema["acl-schema"]'], 'data.acl.foo')],
    want: 'test1.rego:9: rego_type_error: undefined ref: data.acl.foo',
  },
  {
    note: 'a longer data path overrides a shorter one',
    sources: [
      ruleScope(['data.acl: schema["acl-schema"]', 'data.acl.foo: schema["input"]'], 'data.acl.foo.blah'),
    ],
    want: 'test1.rego:9: rego_type_error: undefined ref: data.acl.foo.blah',
  },
  {
    note: 'document scope reaches every definition of the rule',
    sources: [
      'package test\n# METADATA\n# scope: document\n# schemas:\n# - input.foo: schema.number\np if { input.foo = 7 }\n\np if { input.foo = [] }\n',
    ],
    want: 'test1.rego:8: rego_type_error: match error',
  },
  {
    note: 'document scope is unordered: a definition above the block is typed too',
    sources: [
      'package test\n\np if { input = 7 }\n\n# METADATA\n# scope: document\n# schemas:\n# - input: schema.string\np if { input = "foo" }\n',
    ],
    want: 'test1.rego:3: rego_type_error: match error',
  },
  {
    note: 'rule scope merges with document scope',
    sources: [
      'package test\n\n# METADATA\n# scope: document\n# schemas:\n# - input.bar: schema.number\np if { input.bar = 7 }\n\n# METADATA\n# scope: rule\n# schemas:\n# - input.foo: schema.string\np if {\n\tinput.foo = "str"\n\tinput.bar = "str"\n}\n',
    ],
    want: 'test1.rego:15: rego_type_error: match error',
  },
  {
    note: 'package scope in another module, contradicted',
    sources: [
      '# METADATA\n# scope: package\n# schemas:\n# - input.foo: schema.string\npackage test\n',
      'package test\n\np if { input.foo = 7 }\n',
    ],
    want: 'test2.rego:3: rego_type_error: match error',
  },
  {
    note: 'subpackages scope',
    sources: [
      '# METADATA\n# scope: subpackages\n# schemas:\n# - input: schema.number\npackage test\n\np if { input = "str" }\n',
    ],
    want: 'test1.rego:7: rego_type_error: match error',
  },
  {
    note: 'subpackages scope reaches a package below',
    sources: [
      '# METADATA\n# scope: subpackages\n# schemas:\n# - input: schema.number\npackage test\n',
      'package test.sub\n\np if { input = "str" }\n',
    ],
    want: 'test2.rego:3: rego_type_error: match error',
  },
  {
    note: 'rule scope overrides subpackages scope, and is contradicted',
    sources: [
      '# METADATA\n# scope: subpackages\n# schemas:\n# - input: schema.string\npackage test\n\n# METADATA\n# scope: rule\n# schemas:\n# - input: schema.number\np if { input = "str" }\n',
    ],
    want: 'test1.rego:11: rego_type_error: match error',
  },
  {
    note: 'an inline definition',
    sources: [
      'package test\n\n# METADATA\n# scope: rule\n# schemas:\n# - input: {"type": "string"}\np if { input = 7 }\n',
    ],
    want: 'test1.rego:7: rego_type_error: match error',
  },
]

describe('schema annotations in the type checker', () => {
  for (const { note, sources } of accepted)
    it(`accepts: ${note}`, () => {
      expect(errorsOf(sources)).toEqual([])
    })
  for (const { note, sources, want } of rejected)
    it(`rejects: ${note}`, () => {
      const errors = errorsOf(sources)
      expect(errors).toHaveLength(1)
      expect(errors[0]?.split('\n')[0]).toBe(want)
    })

  it('types a rule from its annotated input, and the rules that read it (OPA: TestCheckAnnotationInference)', () => {
    const src =
      'package test\n\n# METADATA\n# scope: rule\n# schemas:\n# - input: schema.number\np := x if { input = x }\n\nq := p\n\nr if upper(q) == "A"\n'
    expect(errorsOf([src])[0]?.split('\n')[0]).toBe(
      'test1.rego:11: rego_type_error: upper: invalid argument(s)',
    )
  })

  it('ignores the annotations without a schema set (not applied unless asked)', () => {
    const src = 'package test\n\n# METADATA\n# schemas:\n# - input: schema.missing\np if { input = 7 }\n'
    expect(errorsOf([src], null)).toEqual([])
    expect(errorsOf([src], new SchemaSet())[0]).toBe(
      'test1.rego:6: rego_type_error: undefined schema: schema.missing',
    )
  })

  it('keeps a rule with an undefined schema typed (its body is still checked)', () => {
    const src =
      'package test\n\n# METADATA\n# schemas:\n# - input: schema.missing\np if { x := 1; upper(x) }\n'
    const errors = errorsOf([src]).map((e) => e.split('\n')[0])
    expect(errors).toEqual([
      'test1.rego:6: rego_type_error: undefined schema: schema.missing',
      'test1.rego:6: rego_type_error: upper: invalid argument(s)',
    ])
  })
})

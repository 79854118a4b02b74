import { describe, expect, it } from 'vitest'
import { parseModule, parseModuleWithErrors } from '../../../../core/rego/syntax/module-parser.js'
import { json, ref, s, v } from './helpers.js'

const SRC = `# METADATA
# title: Package
# description: The package
# organizations: [acme]
# related_resources:
# - https://example.com
# - ref: https://example.org
#   description: docs
package a

# METADATA
# title: Allow
# authors:
# - Jane Doe <jane@example.com>
# - name: Bob
# schemas:
# - input: schema.input
# - data.x: {type: string}
# compile:
#   unknowns: [input.fruits, "input.colors"]
#   mask_rule: data.masks.mask
# custom:
#   unknowns: [input.old]
#   severity: 3
allow if input.x

allow if input.y

# METADATA
# scope: document
# entrypoint: true
deny contains 1 if input.z

deny contains 2 if input.w
`

describe('METADATA annotations', () => {
  const m = parseModule(SRC, { file: 'a.rego' })

  it('parses every documented field, including compile unknowns and mask_rule', () => {
    expect(m.annotations).toHaveLength(3)
    const [pkg, allow] = m.annotations
    expect(pkg).toMatchObject({
      scope: 'package',
      title: 'Package',
      organizations: ['acme'],
      relatedResources: [{ ref: 'https://example.com' }, { ref: 'https://example.org', description: 'docs' }],
    })
    expect(allow).toMatchObject({
      scope: 'rule',
      title: 'Allow',
      authors: [{ name: 'Jane Doe', email: 'jane@example.com' }, { name: 'Bob' }],
      custom: { unknowns: ['input.old'], severity: 3 },
    })
    expect(json(allow as never)).toMatchObject({
      compile: {
        unknowns: [ref(v('input'), s('fruits')).value, ref(v('input'), s('colors')).value],
        mask_rule: [v('data'), s('masks'), s('mask')],
      },
      schemas: [
        { path: [v('input')], schema: [v('schema'), s('input')] },
        { path: [v('data'), s('x')], definition: { type: 'string' } },
      ],
    })
  })

  it('attaches rule scope to the next rule only and document scope to every rule of the path', () => {
    expect(m.rules[0]?.annotations?.map((a) => a.title)).toEqual(['Allow'])
    expect(m.rules[1]?.annotations).toBeUndefined()
    expect(m.rules[2]?.annotations?.map((a) => a.scope)).toEqual(['document'])
    expect(m.rules[3]?.annotations?.map((a) => a.scope)).toEqual(['document'])
  })

  it('starts a new block at each METADATA line, even right below another block', () => {
    const two = parseModule('package a\n\n# METADATA\n# title: One\n# METADATA\n# title: Two\np if input.x\n')
    expect(two.rules[0]?.annotations?.map((a) => a.title)).toEqual(['One', 'Two'])
  })

  it('places a YAML error on the line it names and hints at a separator without a space, as OPA', () => {
    const errs = (text: string) => parseModuleWithErrors(text, { file: 'x.rego' }).errors
    const [hinted] = errs('package a\n\n# METADATA\n# title: P\n# descr:iption:\u3000p is true\np := true\n')
    expect(hinted?.message).toContain(
      "\n  Hint: on line 5, symbol(s) ['i' '\\u3000'] immediately following a key/value separator ':' is not a legal yaml space character",
    )
    expect(hinted?.message).not.toContain('line 4,')
    const [first] = errs('# METADATA\n# description: `foo` bars\n# title: foo\npackage foo')
    expect(first?.location?.row).toBe(2)
  })

  it('enforces where a block may stand', () => {
    const errs = (text: string) =>
      parseModuleWithErrors(text, { file: 'x.rego' }).errors.map((e) => e.message)
    expect(errs('# METADATA\n# scope: rule\npackage a\n')).toEqual([
      "annotation scope 'rule' must be applied to rule (have package)",
    ])
    expect(errs('package a\n# METADATA\n# scope: package\np := 1\n')).toEqual([
      "annotation scope 'package' must be applied to package (have rule)",
    ])
    expect(errs('package a\n\n# METADATA\n# scope: package')).toEqual([
      "annotation scope 'package' must be applied to package",
    ])
    expect(errs('package a\n# METADATA\n# scope: nope\np := 1\n')[0]).toMatch(
      /invalid annotation scope 'nope'/,
    )
    expect(errs('package a\n# METADATA\n# entrypoint: true\n# scope: rule\np := 1\n')).toEqual([
      "annotation entrypoint applied to non-document or package scope 'rule'",
    ])
    expect(errs('package a\n# METADATA\n# title: [unclosed\np := 1\n')[0]).toMatch(/invalid METADATA block/)
    expect(errs('package a\n# METADATA\n# compile:\n#   unknowns: ["input["]\np := 1\n')[0]).toMatch(
      /invalid unknowns element/,
    )
  })
})

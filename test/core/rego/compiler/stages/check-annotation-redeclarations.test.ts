/**
 * SetAnnotationSet (OPA v1/ast/annotations.go, AnnotationSet.add): a second METADATA block for
 * the same target is a `rego_type_error` "<scope> annotation redeclared: <file:row of the first>",
 * reported at the second block. Package blocks count per package path across files (OPA #5627;
 * OPA #6932 states "if multiple files contribute to the same package then we generate an
 * error"); document blocks per rule path; subpackages blocks per package path, in the same path
 * tree as document blocks. Rule-scoped blocks never collide.
 */
import { describe, expect, it } from 'vitest'
import { RegoErrors } from '../../../../../core/rego/errors.js'
import { compile, parseModule } from '../../../../../core/rego/index.js'

function errors(files: Record<string, string>): string[] {
  const modules = Object.fromEntries(
    Object.entries(files).map(([f, src]) => [f, parseModule(src, { file: f })]),
  )
  try {
    compile(modules)
    return []
  } catch (err) {
    if (!(err instanceof RegoErrors)) throw err
    return err.errors.map((e) => `${e.code} ${e.location?.file}:${e.location?.row} ${e.message}`)
  }
}

describe('annotation redeclarations', () => {
  it('two files of one package with package blocks', () => {
    expect(
      errors({
        'a.rego': '# METADATA\n# title: a\npackage p\n',
        'b.rego': '# METADATA\n# title: b\npackage p\n\nx := 1\n',
      }),
    ).toEqual(['rego_type_error b.rego:1 package annotation redeclared: a.rego:1'])
  })

  it('two document blocks for one rule path', () => {
    const src = [
      'package p',
      '# METADATA',
      '# scope: document',
      'x := 1 if input.a',
      '# METADATA',
      '# scope: document',
      'x := 2 if input.b',
    ].join('\n')
    expect(errors({ 'p.rego': src })).toEqual([
      'rego_type_error p.rego:5 document annotation redeclared: p.rego:2',
    ])
  })

  it('a document block and a subpackages block on the same path', () => {
    expect(
      errors({
        'a.rego': 'package a\n\n# METADATA\n# scope: document\nb := 1\n',
        'b.rego': '# METADATA\n# scope: subpackages\npackage a.b\n',
      }),
    ).toEqual(['rego_type_error b.rego:1 subpackages annotation redeclared: a.rego:3'])
  })

  it('rule blocks, one package block per package, and different paths are fine', () => {
    expect(
      errors({
        'a.rego':
          '# METADATA\n# title: a\npackage p\n\n# METADATA\n# title: r\nx := 1\n\n# METADATA\n# title: r2\nx := 1\n',
        'b.rego': 'package p\n\ny := 1\n',
        'c.rego': '# METADATA\n# title: c\npackage q\n',
      }),
    ).toEqual([])
  })
})

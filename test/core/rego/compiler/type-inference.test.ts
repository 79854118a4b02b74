import { describe, expect, it } from 'vitest'
import { DEFAULT_BUILTINS } from '../../../../core/rego/builtins/registry.js'
import { lookupFromDeclarations } from '../../../../core/rego/compiler/builtin-info.js'
import { Compiler } from '../../../../core/rego/compiler/compiler.js'
import { RuleTypes } from '../../../../core/rego/compiler/rule-types.js'
import { BodyTypes } from '../../../../core/rego/compiler/type-inference.js'
import { parseModule, parseQuery } from '../../../../core/rego/index.js'
import type { Term } from '../../../../core/rego/syntax/ast.js'
import { parseTermText } from '../../../../core/rego/syntax/query.js'
import { typeToString } from '../../../../core/rego/types/index.js'

const builtins = lookupFromDeclarations(DEFAULT_BUILTINS)

function compile(src: string): Compiler {
  return new Compiler({ builtins }).compile({ 'test.rego': parseModule(src, { file: 'test.rego' }) })
}

function ref(text: string): Term[] {
  const term = parseTermText(text)
  if (term.type !== 'ref') throw new Error(`${text} is not a ref`)
  return term.value
}

/** The type of `term` after learning from each expression of `query` in order. */
function typeAfter(c: Compiler, query: string, term: string): string {
  const types = new BodyTypes(c, new RuleTypes(c))
  for (const expr of parseQuery(query)) types.learn(expr)
  return typeToString(types.termType(parseTermText(term)))
}

describe('RuleTypes', () => {
  const c = compile(`package t
default flag := false
flag := true if input.on
n := 1
mixed := 1 if input.a
mixed := "s" if input.b
names contains "a"
names contains "b"
computed := input.x
size := count(input.xs)
letters contains x if some x in ["a", "b"]
f(x) := 1
nested.deeper := 1
obj[k] := 1 if some k in ["a"]
obj[k] := "s" if some k in ["b"]
deep[k].v := true if some k in ["a"]
`)
  const rules = new RuleTypes(c)
  const typeAt = (path: string) => {
    const found = rules.at(ref(path).slice(1))
    return found && { type: typeToString(found.type), length: found.length }
  }

  it('unites the values of every definition', () => {
    expect(typeAt('data.t.flag')).toEqual({ type: 'boolean', length: 2 })
    expect(typeAt('data.t.n.x.y')).toEqual({ type: 'number', length: 2 })
    expect(typeAt('data.t.mixed')?.type).toBe('any<number, string>')
    expect(typeAt('data.t.names')?.type).toBe('set[string]')
  })

  it('types partial objects and ref heads with vars as objects keyed by the var parts', () => {
    expect(typeAt('data.t.obj')).toEqual({ type: 'object[string: any<number, string>]', length: 2 })
    expect(typeAt('data.t.deep')?.type).toBe('object[string: object[string: boolean]]')
  })

  it('reads a value computed in the body after the body', () => {
    expect(typeAt('data.t.size')?.type).toBe('number')
    expect(typeAt('data.t.letters')?.type).toBe('set[string]')
    expect(typeAt('data.t.computed')?.type).toBe('any')
  })

  it('types function results, not functions as values', () => {
    const fn = rules.functionAt(ref('data.t.f').slice(1))
    expect(fn && { result: typeToString(fn.result), arity: fn.arity }).toEqual({ result: 'number', arity: 1 })
    expect(rules.functionAt(ref('data.t.n').slice(1))).toBeUndefined()
  })

  it('knows nothing of functions as values and of packages', () => {
    expect(typeAt('data.t.f')).toBeUndefined()
    expect(typeAt('data.t.nested')).toBeUndefined()
    expect(typeAt('data.t')).toBeUndefined()
  })
})

describe('BodyTypes', () => {
  const c = compile('package t\nn := 1\n')

  it('binds vars to literals, built-in results and collection members', () => {
    expect(typeAfter(c, 'x := 1', 'x')).toBe('number')
    expect(typeAfter(c, 'x := count(input.xs)', 'x')).toBe('number')
    expect(typeAfter(c, 'count(input.xs, x)', 'x')).toBe('number')
    expect(typeAfter(c, 'internal.member_2(x, ["a", "b"])', 'x')).toBe('string')
    expect(typeAfter(c, 'internal.member_3(k, v, {"a": true})', 'k')).toBe('string')
    expect(typeAfter(c, 'internal.member_3(k, v, {"a": true})', 'v')).toBe('boolean')
    expect(typeAfter(c, '[a, b] := [1, "s"]', 'b')).toBe('string')
  })

  it('types object literals with vars and comprehensions from their parts', () => {
    expect(typeAfter(c, 'x := 1; o := {"b": x, "a": "s"}', 'o')).toBe('object<a: string, b: number>')
    expect(typeAfter(c, 'k := "a"; o := {k: 1}', 'o')).toBe('object[string: number]')
    expect(typeAfter(c, 'xs := [x | some x in [1, 2]]', 'xs')).toBe('array[number]')
    expect(typeAfter(c, 's := {x | some x in ["a"]}', 's')).toBe('set[string]')
    expect(typeAfter(c, 'o := {k: v | some k, v in ["a"]}', 'o')).toBe('object[number: string]')
    expect(typeAfter(c, 'xs := []', 'xs')).toBe('array[any]')
    expect(typeAfter(c, 'o := {}', 'o')).toBe('object[any: any]')
  })

  it('binds patterns part by part, and widens a var passed inside a literal where a union is taken', () => {
    expect(typeAfter(c, '{"a": x} := {"a": 1}', 'x')).toBe('number')
    expect(typeAfter(c, 'y := [1, "s"]; [a, b] := y', 'b')).toBe('string')
    expect(typeAfter(c, 'walk(input, [p, v])', 'p')).toBe('array[any]')
    expect(typeAfter(c, 'x := 1; count([x], n)', 'x')).toBe('any')
    expect(typeAfter(c, 'x := 1; sprintf("%v", [x], s)', 'x')).toBe('number')
  })

  it('keeps the first type of a var and leaves unknowns as any', () => {
    expect(typeAfter(c, 'x := 1; x = "s"', 'x')).toBe('number')
    expect(typeAfter(c, 'x := input.y', 'x')).toBe('any')
    // A negated expression teaches as any other, as OPA's checker reads it.
    expect(typeAfter(c, 'not x = 1', 'x')).toBe('number')
  })

  it('follows refs and finds where they cannot lead', () => {
    const types = new BodyTypes(c, new RuleTypes(c))
    for (const expr of parseQuery('y := {"a": [1, "s"]}')) types.learn(expr)
    expect(typeToString(types.refType(ref('y.a')).type)).toBe('array<number, string>')
    expect(typeToString(types.refType(ref('y.a[i]')).type)).toBe('any<number, string>')
    expect(typeToString(types.termType(parseTermText('i')))).toBe('number')
    expect(types.refType(ref('y.b')).miss).toMatchObject({ at: 1 })
    expect(types.refType(ref('data.t.n.k')).miss).toMatchObject({ at: 3 })
    expect(types.refType(ref('y.a[1]')).miss).toBeUndefined()
    expect(types.refType(ref('y.a[7]')).miss).toMatchObject({ at: 2 })
    expect(types.refType(ref('input.anything.at.all')).miss).toBeUndefined()
  })
})

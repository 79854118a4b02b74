/** Test helpers: parse and look at OPA's JSON form without locations. */

import type { Body, Module, Node } from '../../../../core/rego/syntax/ast.js'
import { stringifyOpaJson } from '../../../../core/rego/syntax/json.js'
import { parseModule } from '../../../../core/rego/syntax/module-parser.js'
import type { ParseOptions } from '../../../../core/rego/syntax/parser.js'
import { parseQuery } from '../../../../core/rego/syntax/query.js'

/** OPA JSON of a node as a plain object (numbers that fit a double become numbers). */
export function json(node: Node | Body): unknown {
  return JSON.parse(stringifyOpaJson(node, { comments: false }))
}

/** Parses `package test` followed by `rules`. */
export function mod(rules: string, options: ParseOptions = {}): Module {
  return parseModule(`package test\n\n${rules}\n`, { file: 'test.rego', ...options })
}

/** The JSON of the first rule of `package test` + `rules`. */
export function rule(rules: string, options: ParseOptions = {}): Record<string, unknown> {
  return json(mod(rules, options).rules[0] as Node) as Record<string, unknown>
}

/** The JSON `terms` of the only expression of a query. */
export function terms(query: string): unknown {
  const body = parseQuery(query)
  return (json(body) as Array<{ terms: unknown }>)[0]?.terms
}

export const v = (name: string) => ({ type: 'var', value: name })
export const s = (value: string) => ({ type: 'string', value })
export const n = (value: number) => ({ type: 'number', value })
export const ref = (...parts: unknown[]) => ({ type: 'ref', value: parts })
export const op = (name: string) => ref(v(name))
export const call = (...parts: unknown[]) => ({ type: 'call', value: parts })
export const member2 = ref(v('internal'), s('member_2'))
export const member3 = ref(v('internal'), s('member_3'))

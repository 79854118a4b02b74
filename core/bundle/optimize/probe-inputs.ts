/**
 * Inputs for the optimizer's build-time probe, made from the policy itself: every constant path it
 * reads below `input` (`input.user`, `input.resource.owner`) set, one at a time and all together,
 * to the scalar constants the rules compare with and to the keys of the data they index. Cheap, and
 * it reaches the branches a rewrite must keep (a user that is an admin, one that is not, a field
 * that is missing), so a wrong residual is more likely caught before the bundle is written.
 */
import type { Module, Term } from '../../rego/syntax/ast.js'
import { walk } from '../../rego/syntax/walk.js'

const MAX_PATHS = 16
const MAX_VALUES = 12
const MAX_INPUTS = 64
// Keys that would reach an object's prototype when assigned.
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/** Probe inputs for `modules` (parsed) over `data`, at most {@link MAX_INPUTS}. */
export function probeInputs(modules: Iterable<Module>, data: Record<string, unknown>): unknown[] {
  const paths = new Map<string, string[]>()
  const values = new Map<string, unknown>()
  const add = (v: unknown) => {
    if (values.size < MAX_VALUES * 4) values.set(JSON.stringify(v), v)
  }
  for (const module of modules) {
    walk(module, (n) => {
      if (n.type === 'ref') {
        const path = inputPath(n.value)
        if (path && path.length > 0 && paths.size < MAX_PATHS && !path.some((k) => UNSAFE_KEYS.has(k)))
          paths.set(path.join('\u0000'), path)
      } else if (n.type === 'string' || n.type === 'number' || n.type === 'boolean') add(n.value)
      return true
    })
  }
  for (const key of dataKeys(data)) add(key)
  const scalars = [...values.values()].slice(0, MAX_VALUES)
  const out: unknown[] = []
  const all: Record<string, unknown> = {}
  for (const path of paths.values()) {
    for (const v of scalars) {
      if (out.length >= MAX_INPUTS) return out
      out.push(setAt({}, path, v))
    }
    setAt(all, path, scalars[0] ?? true)
  }
  if (paths.size > 0) out.push(all)
  return out.slice(0, MAX_INPUTS)
}

/** The constant path below `input` of a ref (`['user']` for `input.user[x]`), or undefined. */
function inputPath(ref: readonly Term[]): string[] | undefined {
  const [head, ...rest] = ref
  if (head?.type !== 'var' || head.value !== 'input') return undefined
  const out: string[] = []
  for (const t of rest) {
    if (t.type !== 'string') break
    out.push(t.value)
  }
  return out
}

/** Keys of the data's objects, two levels deep (user names, role names). */
function dataKeys(data: Record<string, unknown>): string[] {
  const out: string[] = []
  for (const v of Object.values(data)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, w] of Object.entries(v)) {
        out.push(k)
        if (Array.isArray(w)) for (const x of w) if (typeof x === 'string') out.push(x)
      }
    }
  }
  return out.slice(0, MAX_VALUES)
}

function setAt(
  target: Record<string, unknown>,
  path: readonly string[],
  value: unknown,
): Record<string, unknown> {
  let node = target
  for (const [i, key] of path.entries()) {
    if (i === path.length - 1) node[key] = value
    else {
      const next = node[key]
      node[key] = next && typeof next === 'object' && !Array.isArray(next) ? next : {}
      node = node[key] as Record<string, unknown>
    }
  }
  return target
}

/**
 * The input a rule body reads, for generated test stubs: every `input.a.b` reference becomes a
 * key path, and where the body compares such a reference with a constant (`input.method ==
 * "GET"`), that constant is the value the success case uses. Everything else gets a placeholder
 * the author replaces.
 */
import type { Rule, Term } from '../../core/rego/syntax/ast.js'
import { operatorName } from '../../core/rego/syntax/ast.js'

/** A scalar a stub can write: the constant a body compared input with, or the placeholder. */
export type StubScalar =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' }
  | { kind: 'literal'; text: string }

/** Where no constant was found: the author fills it in. */
export const PLACEHOLDER: StubScalar = { kind: 'string', value: 'TODO' }

/** A nested input object: keys to sub-objects or leaves. */
export type InputShape = Map<string, InputShape | StubScalar>

const COMPARISONS = new Set(['eq', 'equal'])

/** The input key paths `rule` reads (body, head and else branches), with compared constants. */
export function inputShape(rule: Rule): InputShape {
  const leaves = new Map<string, { path: string[]; value: StubScalar | undefined }>()
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n)
      return
    }
    if (node === null || typeof node !== 'object') return
    const rec = node as { type?: string; terms?: unknown; value?: unknown }
    if (rec.type === 'expr' && Array.isArray(rec.terms)) noteComparison(rec.terms as Term[], leaves)
    if (rec.type === 'ref') {
      const path = inputPath(node as Term)
      if (path && path.length > 0) {
        const key = JSON.stringify(path)
        if (!leaves.has(key)) leaves.set(key, { path, value: undefined })
      }
    }
    for (const [k, v] of Object.entries(node)) if (k !== 'location' && k !== 'annotations') visit(v)
  }
  visit(rule)
  return nest([...leaves.values()])
}

/** `input.a.b[x]` → `["a", "b"]`: the leading string operands of a ref rooted at `input`. */
function inputPath(term: Term): string[] | undefined {
  if (term.type !== 'ref') return undefined
  const [head, ...rest] = term.value
  if (head?.type !== 'var' || head.value !== 'input') return undefined
  const path: string[] = []
  for (const t of rest) {
    if (t.type !== 'string') break
    path.push(t.value)
  }
  return path
}

function noteComparison(
  terms: Term[],
  leaves: Map<string, { path: string[]; value: StubScalar | undefined }>,
) {
  if (terms.length !== 3 || !COMPARISONS.has(operatorName(terms[0]) ?? '')) return
  const [, a, b] = terms as [Term, Term, Term]
  for (const [ref, other] of [
    [a, b],
    [b, a],
  ] as const) {
    const path = inputPath(ref)
    // Only a whole path (no variable operand after it) compared with a constant pins a value.
    if (!path || path.length === 0 || ref.type !== 'ref' || ref.value.length !== path.length + 1) continue
    const value = scalar(other)
    if (value) leaves.set(JSON.stringify(path), { path, value })
  }
}

function scalar(term: Term): StubScalar | undefined {
  switch (term.type) {
    case 'string':
      return { kind: 'string', value: term.value }
    case 'number':
      return { kind: 'number', value: term.value }
    case 'boolean':
      return { kind: 'boolean', value: term.value }
    case 'null':
      return { kind: 'null' }
    default: {
      // A ground array or object (`input.path == ["users"]`) is written back as Rego text.
      const text = groundText(term)
      return text === undefined ? undefined : { kind: 'literal', text }
    }
  }
}

function groundText(term: Term): string | undefined {
  switch (term.type) {
    case 'string':
      return JSON.stringify(term.value)
    case 'number':
      return term.value
    case 'boolean':
      return String(term.value)
    case 'null':
      return 'null'
    case 'array': {
      const items = term.value.map(groundText)
      return items.every((i) => i !== undefined) ? `[${items.join(', ')}]` : undefined
    }
    case 'object': {
      const pairs = term.value.map(([k, v]) => {
        const key = groundText(k)
        const value = groundText(v)
        return key === undefined || value === undefined ? undefined : `${key}: ${value}`
      })
      return pairs.every((p) => p !== undefined) ? `{${pairs.join(', ')}}` : undefined
    }
    default:
      return undefined
  }
}

/** Builds the nested object; a deeper path wins over a shorter one (`input.a` and `input.a.b`). */
function nest(leaves: Array<{ path: string[]; value: StubScalar | undefined }>): InputShape {
  const root: InputShape = new Map()
  const sorted = [...leaves].sort((x, y) => y.path.length - x.path.length)
  for (const { path, value } of sorted) {
    let at = root
    for (const [i, key] of path.entries()) {
      const last = i === path.length - 1
      const existing = at.get(key)
      if (last) {
        if (existing === undefined) at.set(key, value ?? PLACEHOLDER)
        break
      }
      if (existing === undefined) {
        const child: InputShape = new Map()
        at.set(key, child)
        at = child
      } else if (existing instanceof Map) {
        at = existing
      } else {
        break // a shorter path already placed a leaf here; it cannot happen after sorting
      }
    }
  }
  return root
}

/** Whether some leaf holds a value the body compared input with (not only placeholders). */
export function hasComparedValues(shape: InputShape): boolean {
  return [...shape.values()].some((v) => (v instanceof Map ? hasComparedValues(v) : v !== PLACEHOLDER))
}

/** The shape with every leaf changed, for the wrong-values failure case. */
export function wrongValues(shape: InputShape): InputShape {
  const out: InputShape = new Map()
  for (const [k, v] of shape) out.set(k, v instanceof Map ? wrongValues(v) : wrongScalar(v))
  return out
}

function wrongScalar(v: StubScalar): StubScalar {
  switch (v.kind) {
    case 'string':
      return { kind: 'string', value: `${v.value}_wrong` }
    case 'boolean':
      return { kind: 'boolean', value: !v.value }
    case 'number':
      // Any other number will do; precision does not matter for a stub.
      return { kind: 'number', value: String(Number(v.value) + 1) }
    case 'null':
    case 'literal':
      return { kind: 'string', value: 'TODO_wrong' }
  }
}

/** The shape as a Rego object literal, keys sorted. */
export function renderShape(shape: InputShape): string {
  if (shape.size === 0) return '{}'
  const parts = [...shape.keys()].sort().map((k) => {
    const v = shape.get(k) as InputShape | StubScalar
    return `${JSON.stringify(k)}: ${v instanceof Map ? renderShape(v) : renderScalar(v)}`
  })
  return `{${parts.join(', ')}}`
}

function renderScalar(v: StubScalar): string {
  switch (v.kind) {
    case 'string':
      return JSON.stringify(v.value)
    case 'number':
      return v.value
    case 'boolean':
      return String(v.value)
    case 'null':
      return 'null'
    case 'literal':
      return v.text
  }
}

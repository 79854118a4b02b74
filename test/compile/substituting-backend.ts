/**
 * A stand-in for partial evaluation in tests, until the evaluator's PE lands: it handles filter rules
 * over base documents only. Each body of the queried rule is kept with known input refs replaced by
 * their values and fully known expressions decided; anything that needs real evaluation (rule or
 * function references, `data`, local variables, `with`, `every`) throws `NeedsPartialEvaluation`, so a
 * test never passes on a wrong residual.
 */
import { isLosslessNumber } from 'lossless-json'
import type {
  CompileBackend,
  JsonValue,
  PartialEvaluationRequest,
  PartialEvaluationResult,
} from '../../compile/types.js'
import { compareJson, termToJson } from '../../compile/values.js'
import type { Body, Expr, Module, RefTerm, Term } from '../../core/rego/syntax/ast.js'
import { MEMBER, MEMBER_WITH_KEY, operatorName } from '../../core/rego/syntax/ast.js'
import { parseModule } from '../../core/rego/syntax/module-parser.js'

/** The case needs the real partial evaluator. */
export class NeedsPartialEvaluation extends Error {
  override name = 'NeedsPartialEvaluation'
}

const DECIDABLE = new Set([
  'eq',
  'equal',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'startswith',
  'endswith',
  'contains',
  MEMBER,
])
// Built-ins kept in the residual when they read unknowns, but not decided here.
const KEPT = new Set([...DECIDABLE, MEMBER_WITH_KEY])

/** A backend over `modules` (file name to Rego text); `masks` answers mask-rule evaluations by ref text. */
export function substitutingBackend(
  sources: Record<string, string>,
  masks: Record<string, JsonValue> = {},
  regoVersion: 'v0' | 'v1' = 'v1',
): CompileBackend & { calls: PartialEvaluationRequest[] } {
  const modules: Module[] = Object.entries(sources).map(([file, text]) =>
    parseModule(text, { file, regoVersion }),
  )
  const calls: PartialEvaluationRequest[] = []
  return {
    calls,
    modules: () => modules,
    partialEvaluate(request) {
      calls.push(request)
      return partial(modules, request)
    },
    evaluate({ query }) {
      if (query in masks) return masks[query]
      throw new NeedsPartialEvaluation(`evaluation of ${query}`)
    },
    toAstJson(result) {
      return { queries: result.queries.length as unknown as JsonValue }
    },
  }
}

function partial(modules: readonly Module[], request: PartialEvaluationRequest): PartialEvaluationResult {
  const path = request.query.split('.')
  const queries: Body[] = []
  for (const module of modules) {
    const pkg = module.package.path.map((t) => (t.type === 'var' ? t.value : String(t.value)))
    for (const rule of module.rules) {
      const head = rule.head.ref.map((t) => String(t.value))
      if ([...pkg, ...head].join('.') !== path.join('.')) continue
      if (rule.default || rule.else || (rule.head.value && rule.head.value.type !== 'boolean')) {
        throw new NeedsPartialEvaluation('default, else or non-boolean rules')
      }
      const body = residualBody(rule.body, request)
      if (body) queries.push(body)
    }
  }
  return { queries, support: [] }
}

// The body with known refs plugged in, or undefined when it cannot be true.
function residualBody(body: Body, request: PartialEvaluationRequest): Body | undefined {
  const out: Expr[] = []
  for (const expr of body) {
    if (!Array.isArray(expr.terms) && expr.terms.type !== 'somedecl' && expr.terms.type !== 'every') {
      const constant = expr.with?.length ? undefined : termToJson(expr.terms as Term)
      if (constant !== undefined) {
        // A constant statement (`include if true`): false and undefined fail, anything else holds.
        if ((constant === false) !== Boolean(expr.negated)) return undefined
        continue
      }
    }
    if (!Array.isArray(expr.terms) || (expr.with?.length ?? 0) > 0) {
      if (!expr.negated && !Array.isArray(expr.terms) && expr.terms.type === 'ref') {
        const v = known(expr.terms, request)
        if (v === 'unknown') {
          out.push(expr)
          continue
        }
        if (v === undefined || v === false) return undefined
        continue
      }
      if (expr.negated && !Array.isArray(expr.terms) && expr.terms.type === 'ref') {
        // `not input.x` over known input: true when undefined or false.
        const v = known(expr.terms, request)
        if (v === 'unknown') throw new NeedsPartialEvaluation('not over an unknown')
        if (v === undefined || v === false) continue
        return undefined
      }
      throw new NeedsPartialEvaluation(`statement ${expr.location?.text ?? ''}`)
    }
    const [operator, ...args] = expr.terms
    const name = operatorName(operator)
    if (!name || !KEPT.has(name)) throw new NeedsPartialEvaluation(`call ${name}`)
    let unknown = false
    let undefinedArg = false
    const plugged: Term[] = []
    for (const arg of args) {
      const t = plug(arg, request)
      if (t === undefined) undefinedArg = true
      if (t === 'unknown') unknown = true
      plugged.push(t === 'unknown' || t === undefined ? arg : t)
    }
    // An expression over an undefined value is undefined: false, or true under `not`.
    if (undefinedArg) {
      if (expr.negated) continue
      return undefined
    }
    if (!unknown) {
      if (!DECIDABLE.has(name)) throw new NeedsPartialEvaluation(`call ${name} over known values`)
      if (decide(name, plugged) === !expr.negated) continue
      return undefined
    }
    const eqName = name === 'equal' ? 'eq' : name
    const op: Term = eqName === name ? operator! : { type: 'ref', value: [{ type: 'var', value: 'eq' }] }
    out.push({ ...expr, terms: [op, ...plugged] })
  }
  return out
}

function isUnknown(ref: RefTerm, request: PartialEvaluationRequest): boolean {
  return request.unknowns.some((u) =>
    u.value.every((p, i) => {
      const r = ref.value[i]
      return (
        r !== undefined &&
        r.type === p.type &&
        (r as { value: unknown }).value === (p as { value: unknown }).value
      )
    }),
  )
}

// A term with known input plugged in; 'unknown' when it reads an unknown; undefined when undefined.
function plug(term: Term, request: PartialEvaluationRequest): Term | 'unknown' | undefined {
  if (term.type === 'ref') {
    const v = known(term, request)
    if (v === 'unknown') return 'unknown'
    return v === undefined ? undefined : jsonToTerm(v)
  }
  if (term.type === 'var') {
    if (term.value.startsWith('$')) return 'unknown'
    throw new NeedsPartialEvaluation(`variable ${term.value}`)
  }
  if (termToJson(term) !== undefined) return term
  if (term.type === 'call') {
    // Kept as is when it reads unknowns (partial evaluation cannot evaluate it either).
    const args = term.value.slice(1).map((a) => plug(a, request))
    if (args.includes('unknown') && !args.includes(undefined)) return 'unknown'
    throw new NeedsPartialEvaluation('nested call over known values')
  }
  if (term.type === 'object' || term.type === 'set' || term.type === 'array') {
    const items: Term[] = []
    const source = term.type === 'object' ? term.value.map(([, v]) => v) : term.value
    for (const item of source) {
      const t = plug(item, request)
      if (t === undefined || t === 'unknown') throw new NeedsPartialEvaluation('composite with unknowns')
      items.push(t)
    }
    if (term.type === 'object') return { type: 'object', value: term.value.map(([k], i) => [k, items[i]!]) }
    return { type: term.type, value: items }
  }
  throw new NeedsPartialEvaluation(`term ${term.type}`)
}

function known(ref: RefTerm, request: PartialEvaluationRequest): JsonValue | undefined | 'unknown' {
  const head = ref.value[0]
  if (head?.type !== 'var' || head.value !== 'input') throw new NeedsPartialEvaluation(`ref ${head?.type}`)
  if (isUnknown(ref, request)) return 'unknown'
  let v: JsonValue | undefined = request.input
  for (const part of ref.value.slice(1)) {
    if (part.type !== 'string') throw new NeedsPartialEvaluation('non-string ref part')
    if (v === null || typeof v !== 'object' || Array.isArray(v) || isLosslessNumber(v)) return undefined
    v = (v as Record<string, JsonValue>)[part.value]
    if (v === undefined) return undefined
  }
  return v
}

function jsonToTerm(v: JsonValue): Term {
  if (v === null) return { type: 'null', value: null }
  if (typeof v === 'boolean') return { type: 'boolean', value: v }
  if (typeof v === 'string') return { type: 'string', value: v }
  if (typeof v === 'number') return { type: 'number', value: String(v) }
  if (isLosslessNumber(v)) return { type: 'number', value: v.value }
  if (Array.isArray(v)) return { type: 'array', value: v.map(jsonToTerm) }
  return {
    type: 'object',
    value: Object.entries(v).map(([k, x]): [Term, Term] => [{ type: 'string', value: k }, jsonToTerm(x)]),
  }
}

function decide(name: string, [a, b]: Term[]): boolean {
  const x = termToJson(a!)
  const y = termToJson(b!)
  if (x === undefined || y === undefined) throw new NeedsPartialEvaluation('non-constant operands')
  const c = () => compareJson(x, y)
  switch (name) {
    case 'eq':
    case 'equal':
      return c() === 0
    case 'neq':
      return c() !== 0
    case 'lt':
      return c() < 0
    case 'lte':
      return c() <= 0
    case 'gt':
      return c() > 0
    case 'gte':
      return c() >= 0
    case MEMBER: {
      const list = Array.isArray(y)
        ? y
        : y !== null && typeof y === 'object' && !isLosslessNumber(y)
          ? Object.values(y)
          : []
      return list.some((item) => compareJson(x, item) === 0)
    }
    default:
      if (typeof x !== 'string' || typeof y !== 'string') return false
      return name === 'startswith' ? x.startsWith(y) : name === 'endswith' ? x.endsWith(y) : x.includes(y)
  }
}

/**
 * What one input of the shell is, as OPA's REPL reads it (`ast.ParseStatements`, then
 * `interpretAsRule`): a `package` switch, `import`s, rule definitions, or a query. `x := 1` and
 * `x = 1` (when `x` is not yet a rule or import of the current package) define complete rules, as
 * in OPA; `allow if ...`, `default p := false`, `f(x) := y if ...` and `p contains x if ...` are
 * rules; everything else is a query. Text that stops short (open brackets, a parse error at the end
 * of the text) is incomplete, so the shell reads another line.
 */
import {
  type Body,
  type Import,
  type Module,
  type Package,
  parseModule,
  parseQuery,
  RegoError,
  RegoErrors,
  type Rule,
  type Term,
} from '../../core/rego/index.js'
import { bracketsOpen } from './line-reader.js'

/** One parsed input. */
export type Statement =
  | { kind: 'definitions'; package?: Package; imports: Import[]; rules: Rule[] }
  | { kind: 'query'; body: Body }
  | { kind: 'incomplete' }
  | { kind: 'error'; errors: RegoErrors }

/** What the parser needs to know about the shell's current module. */
export interface StatementContext {
  regoVersion: 'v0' | 'v1'
  /** The current package, dotted, without `data.` (`repl` before any `package`). */
  packageText: string
  /** The current module's imports (they decide the v0 keywords). */
  imports: readonly Import[]
  /** True when `name` is a rule or import of the current package (then `name = 1` is a query). */
  isGlobal: (name: string) => boolean
}

const NO_FILE = ''

/**
 * Parses one input. `final` is true when no more lines will come (an empty line or the end of
 * input): then a text that stops short is an error rather than incomplete.
 */
export function parseStatement(text: string, context: StatementContext, final: boolean): Statement {
  if (!final && bracketsOpen(text)) return { kind: 'incomplete' }
  if (/^\s*package\b/.test(text)) {
    try {
      const module = parseModule(text, { file: NO_FILE, regoVersion: context.regoVersion })
      return { kind: 'definitions', package: module.package, imports: module.imports, rules: module.rules }
    } catch (err) {
      return failed(err, [], final)
    }
  }
  let queryErrors: RegoError[] = []
  if (!/^\s*(import|default)\b/.test(text)) {
    try {
      const body = parseQuery(text, {
        file: NO_FILE,
        regoVersion: context.regoVersion,
        imports: context.imports,
      })
      const asRule = definesRule(body, context)
      if (asRule === 'no') return { kind: 'query', body }
      const parsed = parseRules(text, context)
      if (!(parsed instanceof RegoErrors)) return parsed
      // `p[x] := 1` that is no rule either: compile it as a query, which reports the error.
      if (asRule === 'maybe') return { kind: 'query', body }
      return { kind: 'error', errors: parsed }
    } catch (err) {
      if (!(err instanceof RegoErrors)) throw err
      queryErrors = err.errors
    }
  }
  const parsed = parseRules(text, context)
  if (!(parsed instanceof RegoErrors)) return parsed
  return failed(parsed, queryErrors, final)
}

/** Whether a parsed query is really a rule definition (`maybe`: only if it parses as one). */
function definesRule(body: Body, context: StatementContext): 'yes' | 'maybe' | 'no' {
  if (body.length !== 1) return 'no'
  const expr = body[0] as Body[number]
  if (expr.negated || (expr.with?.length ?? 0) > 0 || !Array.isArray(expr.terms)) return 'no'
  const [op, lhs] = expr.terms as Term[]
  if (expr.terms.length !== 3 || op?.type !== 'ref' || op.value.length !== 1) return 'no'
  const name = op.value[0]?.type === 'var' ? op.value[0].value : ''
  const target = lhs ? varName(lhs) : undefined
  if (name === 'assign') return target !== undefined ? 'yes' : 'maybe'
  if (name === 'eq' && target !== undefined && !context.isGlobal(target)) return 'yes'
  return 'no'
}

/** The name of a var term, or of a root document written alone (`input` parses as a ref). */
function varName(term: Term): string | undefined {
  if (term.type === 'var') return term.value
  const [only] = term.type === 'ref' && term.value.length === 1 ? term.value : []
  return only?.type === 'var' ? only.value : undefined
}

/**
 * Parses `text` as rules (and imports) of the current package. The parser wants a `package` line
 * first; locations are moved back up by the lines added, so errors point at the text as typed.
 */
function parseRules(text: string, context: StatementContext): Statement | RegoErrors {
  const header = [
    `package ${context.packageText}`,
    // Only v0 parsing depends on imports (future keywords, rego.v1).
    ...(context.regoVersion === 'v0' ? context.imports.map(importText) : []),
  ]
  const shift = header.length
  let module: Module
  try {
    module = parseModule(`${header.join('\n')}\n${text}`, { file: NO_FILE, regoVersion: context.regoVersion })
  } catch (err) {
    if (!(err instanceof RegoErrors)) throw err
    return new RegoErrors(err.errors.map((e) => shiftError(e, shift)))
  }
  const ownImports = module.imports.slice(context.regoVersion === 'v0' ? context.imports.length : 0)
  return {
    kind: 'definitions',
    imports: ownImports.map((i) => shiftLocations(i, shift)),
    rules: module.rules.map((r) => shiftLocations(r, shift)),
  }
}

/** The text of an import as written (`import data.x as y`). */
export function importText(imp: Import): string {
  const path = imp.path.value
    .map((t, i) =>
      i === 0
        ? termName(t)
        : t.type === 'string' && /^[A-Za-z_]\w*$/.test(t.value)
          ? `.${t.value}`
          : `[${JSON.stringify(t.type === 'string' ? t.value : termName(t))}]`,
    )
    .join('')
  return `import ${path}${imp.alias ? ` as ${imp.alias}` : ''}`
}

function termName(t: Term): string {
  return t.type === 'var' || t.type === 'string' ? t.value : t.type
}

/**
 * The error to show for a text that parses neither as a query nor as rules, or `incomplete` when
 * it stops short and more lines may come. The rule parser's errors are usually the useful ones
 * (`if` keyword is required...); when it fails at the very start, the text was no rule, and the
 * query parser's error says more.
 */
function failed(err: unknown, queryErrors: RegoError[], final: boolean): Statement {
  if (!(err instanceof RegoErrors)) throw err
  const all = [...err.errors, ...queryErrors]
  if (!final && all.some((e) => e.message.startsWith('unexpected eof'))) return { kind: 'incomplete' }
  const first = err.errors[0]
  const ruleFailedAtStart =
    first?.location?.row === 1 && first.location.col === 1 && first.message.startsWith('unexpected')
  if (queryErrors.length > 0 && ruleFailedAtStart)
    return { kind: 'error', errors: new RegoErrors(queryErrors) }
  return { kind: 'error', errors: err }
}

function shiftError(e: RegoError, shift: number): RegoError {
  if (!e.location) return e
  return new RegoError(e.code, e.message, { ...e.location, row: e.location.row - shift }, e.details)
}

/**
 * A copy of `node` whose locations are `shift` rows higher. Parser locations read their row from
 * the parsed text; the copies are plain objects that keep the located text.
 */
function shiftLocations<T extends object>(node: T, shift: number): T {
  const moved = new Map<object, object>()
  const move = (loc: Record<string, unknown>): object => {
    let out = moved.get(loc)
    if (!out) {
      const l = loc as unknown as { file: string; row: number; col: number; offset: number; end?: number }
      const source = (loc.source as { text?: string } | undefined)?.text
      const text = source !== undefined && l.end !== undefined ? source.slice(l.offset, l.end) : loc.text
      out = {
        file: l.file,
        row: l.row - shift,
        col: l.col,
        offset: l.offset,
        ...(l.end !== undefined ? { end: l.end } : {}),
        ...(text !== undefined ? { text } : {}),
      }
      moved.set(loc, out)
    }
    return out
  }
  const copy = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(copy)
    if (x === null || typeof x !== 'object') return x
    const proto = Object.getPrototypeOf(x)
    if (proto !== Object.prototype && proto !== null) return x
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(x)) {
      out[key] =
        key === 'location' && value && typeof value === 'object'
          ? move(value as Record<string, unknown>)
          : copy(value)
    }
    return out
  }
  return copy(node) as T
}

/**
 * The Rego abstract syntax tree.
 *
 * Every node is a plain object with a `type` discriminant, so the tree is a discriminated union that
 * `switch (node.type)` narrows. Terms mirror OPA's term JSON exactly (`{type, value}` with the same type
 * names and value shapes), which keeps `toOpaJson` (json.ts) a thin walk and lets an evaluator written
 * against OPA's Go sources read this tree the same way:
 *
 * - infix operators are `call` terms whose operator is a ref to OPA's builtin name (`plus`, `eq`,
 *   `assign`, `internal.member_2` for `x in xs`, ...), exactly as OPA's parser builds them;
 * - an expression's `terms` is one term, an array `[operator, ...operands]` for calls (`x := 1` is
 *   `[assign, x, 1]`), a `somedecl` or an `every`;
 * - numbers keep their source lexeme (`"1e400"`, `"0.1"`), never a JS number, so no precision is lost;
 * - `_` is replaced by unique wildcard vars `$0`, `$1`, ... as OPA does.
 *
 * Fields that OPA keeps private (whether a body was generated, which keywords a head used) are kept
 * here too because the formatter needs them; `toOpaJson` leaves them out.
 */

/**
 * A source position: file, 1-based row and column, and `offset`, the index of its first character
 * in the file. The located source text is read with `locationText` (syntax/source.ts). The parser's
 * locations are `SourceLocation`s, which keep only the shared `source` of their file, `offset` and
 * `end`, and compute `file`, `row` and `col` when read; locations made elsewhere (generated nodes,
 * tests) are plain objects and may give `text` instead of `source` and `end`.
 */
export interface Location {
  file: string
  row: number
  col: number
  offset: number
  /** End index (exclusive) of the located text in `source`. */
  end?: number
  /** The file the parser read (shared by all its locations; JSON leaves it out). */
  source?: LocationSource
  /** The located text, for locations that have no `source`. Read it with `locationText`. */
  text?: string
}

/** What a parsed location keeps of its file: only the text, behind a getter (see `Source`). */
export interface LocationSource {
  readonly text: string
}

interface Located {
  location?: Location
}

// ---------------------------------------------------------------------------------------------------------
// Terms

/** `null`. */
export interface NullTerm extends Located {
  type: 'null'
  value: null
}

/** `true` or `false`. */
export interface BooleanTerm extends Located {
  type: 'boolean'
  value: boolean
}

/** A number, kept as written (JSON number syntax, optionally with a leading `-`). */
export interface NumberTerm extends Located {
  type: 'number'
  value: string
}

/** A string (quoted strings already unescaped; raw strings as written). */
export interface StringTerm extends Located {
  type: 'string'
  value: string
}

/** A variable. Wildcards `_` are renamed `$0`, `$1`, ... by the parser. */
export interface VarTerm extends Located {
  type: 'var'
  value: string
}

/**
 * A reference: a head term (a var such as `data`, `input`, `x`, or a composite/call) followed by
 * operands. `a.b[c]` is `[var a, string "b", var c]`.
 */
export interface RefTerm extends Located {
  type: 'ref'
  value: Term[]
}

/** `[a, b]`. */
export interface ArrayTerm extends Located {
  type: 'array'
  value: Term[]
}

/** `{a, b}` or `set()`. Elements are kept in source order. */
export interface SetTerm extends Located {
  type: 'set'
  value: Term[]
}

/** `{k: v, ...}`: key/value pairs in source order. */
export interface ObjectTerm extends Located {
  type: 'object'
  value: Array<[Term, Term]>
}

/** `[term | body]`. */
export interface ArrayComprehensionTerm extends Located {
  type: 'arraycomprehension'
  value: { term: Term; body: Body }
}

/** `{term | body}`. */
export interface SetComprehensionTerm extends Located {
  type: 'setcomprehension'
  value: { term: Term; body: Body }
}

/** `{key: value | body}`. */
export interface ObjectComprehensionTerm extends Located {
  type: 'objectcomprehension'
  value: { key: Term; value: Term; body: Body }
}

/** A call: `[operator, ...args]`; the operator is a ref (`count`, `io.jwt.decode`, `plus`). */
export interface CallTerm extends Located {
  type: 'call'
  value: Term[]
}

/**
 * A template string `$"Hello {input.name}"` (or the raw form `` $`...` ``, `multi_line`). Literal parts
 * are string terms; `{...}` parts are expressions, except scalars, which OPA stores as plain terms.
 */
export interface TemplateStringTerm extends Located {
  type: 'templatestring'
  value: { parts: Array<Term | Expr>; multi_line: boolean }
}

/** Scalar terms. */
export type ScalarTerm = NullTerm | BooleanTerm | NumberTerm | StringTerm

/** Every term kind. */
export type Term =
  | ScalarTerm
  | VarTerm
  | RefTerm
  | ArrayTerm
  | SetTerm
  | ObjectTerm
  | ArrayComprehensionTerm
  | SetComprehensionTerm
  | ObjectComprehensionTerm
  | CallTerm
  | TemplateStringTerm

/** The `type` names of terms, as OPA's JSON spells them. */
export type TermType = Term['type']

// ---------------------------------------------------------------------------------------------------------
// Expressions and bodies

/** `some x, y` (symbols are vars) or `some x in xs` / `some k, v in xs` (one `internal.member_*` call). */
export interface SomeDecl extends Located {
  type: 'somedecl'
  symbols: Term[]
}

/** `every k, v in domain { body }`; `key` is null without a key variable. */
export interface Every extends Located {
  type: 'every'
  key: Term | null
  value: Term
  domain: Term
  body: Body
}

/**
 * A negation body (OPA 1.17+, behind `import future.keywords.not` or `import rego.v2`): `not { body }`
 * (`explicitBody`) or, for `not expr` under the import, the one negated expression as an implicit
 * body, so the compiler's expansion of `expr` stays inside the negation. Succeeds when no
 * assignment of the body's variables satisfies every expression; nothing bound inside escapes.
 */
export interface NotBody extends Located {
  type: 'not'
  body: Body
  explicitBody: boolean
}

/**
 * A conjunction or disjunction (OPA 1.20+, behind `import future.keywords.and` / `.or` or
 * `import rego.v2`): `lhs and rhs`, `lhs or rhs`. Each side is a body: the one expression written
 * there, or a braced `{ ... }` block (`explicitLhs` / `explicitRhs`). `and` binds tighter than
 * `or`, `not` tighter than both; chains associate to the left. Each side is a closure, like a
 * not-body: what it binds stays inside (see docs/conformance.md).
 */
export type LogicalExpr = AndExpr | OrExpr

interface LogicalSides extends Located {
  lhs: Body
  rhs: Body
  explicitLhs: boolean
  explicitRhs: boolean
}

/** `lhs and rhs` (see `LogicalExpr`). */
export interface AndExpr extends LogicalSides {
  type: 'and'
}

/** `lhs or rhs` (see `LogicalExpr`). */
export interface OrExpr extends LogicalSides {
  type: 'or'
}

/** `with target as value`. */
export interface With extends Located {
  type: 'with'
  target: Term
  value: Term
}

/** What an expression holds: one term, a call `[operator, ...args]`, a `some`, an `every`, a `not` body or an `and`/`or`. */
export type ExprTerms = Term | Term[] | SomeDecl | Every | NotBody | LogicalExpr

/** One literal of a body. `index` is its position in the body. */
export interface Expr extends Located {
  type: 'expr'
  index: number
  terms: ExprTerms
  negated?: boolean
  generated?: boolean
  with?: With[]
}

/** A conjunction of expressions (a rule body, query or comprehension body). */
export type Body = Expr[]

// ---------------------------------------------------------------------------------------------------------
// Module level

/** `package a.b.c`; `path` starts with the var `data`, followed by strings. */
export interface Package extends Located {
  type: 'package'
  path: Term[]
}

/** `import data.x.y as z`; `path` is a ref term. */
export interface Import extends Located {
  type: 'import'
  path: RefTerm
  alias?: string
}

/**
 * A rule head. `ref` is the full rule reference (`p`, `a.b[c].d`); `name` is set when OPA sets it
 * (single-var refs and `p[x]`-style heads). Multi-value rules (`p contains x`) have `key` and no
 * `value`; functions have `args`.
 */
export interface Head extends Located {
  type: 'head'
  name?: string
  ref: Term[]
  args?: Term[]
  key?: Term
  value?: Term
  assign?: boolean
  /** True when `value` was not written (`p if {...}` has value `true`). Not part of OPA's JSON. */
  generatedValue?: boolean
  /** Keywords written in the head (`if`, `contains`), for the formatter. Not part of OPA's JSON. */
  keywords?: { if?: boolean; contains?: boolean }
}

/** A rule: head, body, and an optional `else` chain. `default` rules have a generated body. */
export interface Rule extends Located {
  type: 'rule'
  default?: boolean
  head: Head
  body: Body
  else?: Rule
  annotations?: Annotations[]
  /** True when the body was not written (`p := 1`, `p contains 1`). Not part of OPA's JSON. */
  generatedBody?: boolean
}

/** A `#` comment; `text` excludes the `#`. */
export interface Comment extends Located {
  type: 'comment'
  text: string
}

/** Which Rego syntax a module was parsed as. */
export type RegoVersion = 'v0' | 'v1'

/** A parsed `.rego` file. */
export interface Module extends Located {
  type: 'module'
  package: Package
  imports: Import[]
  rules: Rule[]
  annotations: Annotations[]
  comments: Comment[]
  regoVersion: RegoVersion
}

// ---------------------------------------------------------------------------------------------------------
// Annotations (`# METADATA` blocks)

/** Where an annotation applies. */
export type AnnotationScope = 'package' | 'rule' | 'document' | 'subpackages'

/** A `related_resources` entry. */
export interface RelatedResource {
  ref: string
  description?: string
}

/** An `authors` entry. */
export interface Author {
  name: string
  email?: string
}

/** A `schemas` entry: a document path and either a schema ref or an inline definition. */
export interface SchemaAnnotation {
  path: Term[]
  schema?: Term[]
  definition?: unknown
}

/**
 * The `compile` block the compile API reads: which refs are unknown, and which rule masks columns.
 * `unknowns` are refs such as `input.fruits`; `maskRule` is a ref, possibly relative (`masks`).
 */
export interface CompileAnnotation {
  unknowns?: Term[][]
  maskRule?: Term[]
}

/** A parsed `# METADATA` block. `custom` keeps any YAML mapping as written. */
export interface Annotations extends Located {
  type: 'annotations'
  scope: AnnotationScope
  title?: string
  description?: string
  organizations?: string[]
  relatedResources?: RelatedResource[]
  authors?: Author[]
  schemas?: SchemaAnnotation[]
  entrypoint?: boolean
  compile?: CompileAnnotation
  custom?: Record<string, unknown>
  /** The kind of statement the block stands before (set by the parser when it attaches the block). */
  target?: 'package' | 'rule'
}

/** Any AST node that carries a `type`. */
export type Node =
  | Term
  | Expr
  | SomeDecl
  | Every
  | NotBody
  | LogicalExpr
  | With
  | Package
  | Import
  | Head
  | Rule
  | Comment
  | Module
  | Annotations

// ---------------------------------------------------------------------------------------------------------
// Small helpers an evaluator needs on every expression

/** Set of term `type` names, used to tell a single term apart from `somedecl`/`every`. */
const TERM_TYPES: ReadonlySet<string> = new Set<TermType>([
  'null',
  'boolean',
  'number',
  'string',
  'var',
  'ref',
  'array',
  'set',
  'object',
  'arraycomprehension',
  'setcomprehension',
  'objectcomprehension',
  'call',
  'templatestring',
])

/** True for any term node. */
export function isTerm(x: { type: string } | Term[]): x is Term {
  return !Array.isArray(x) && TERM_TYPES.has(x.type)
}

/** True when the expression is a call such as `x := 1` or `count(xs, n)`. */
export function isCallExpr(expr: Expr): expr is Expr & { terms: Term[] } {
  return Array.isArray(expr.terms)
}

/**
 * The operator name of a call expression or call term (`eq`, `assign`, `internal.member_2`,
 * `io.jwt.decode`), or undefined when the operator is not a plain ref of var and strings.
 */
export function operatorName(operator: Term | undefined): string | undefined {
  if (!operator) return undefined
  if (operator.type === 'var') return operator.value
  if (operator.type !== 'ref') return undefined
  // One word (`eq`, `neq`, `count`): the name itself, without building and joining a list.
  if (operator.value.length === 1) {
    const head = operator.value[0] as Term
    return head.type === 'var' ? head.value : undefined
  }
  const parts: string[] = []
  for (const [i, t] of operator.value.entries()) {
    if (i === 0 && t.type === 'var') parts.push(t.value)
    else if (i > 0 && t.type === 'string') parts.push(t.value)
    else return undefined
  }
  return parts.join('.')
}

/** OPA's name for the operator of each infix token, as it appears in call terms. */
export const INFIX_OPERATORS = {
  '=': 'eq',
  ':=': 'assign',
  '==': 'equal',
  '!=': 'neq',
  '<': 'lt',
  '<=': 'lte',
  '>': 'gt',
  '>=': 'gte',
  '+': 'plus',
  '-': 'minus',
  '*': 'mul',
  '/': 'div',
  '%': 'rem',
  '&': 'and',
  '|': 'or',
} as const

/** The builtin behind `x in xs`. */
export const MEMBER = 'internal.member_2'
/** The builtin behind `k, v in xs`. */
export const MEMBER_WITH_KEY = 'internal.member_3'

/** Prefix of the vars that stand for `_`. */
export const WILDCARD_PREFIX = '$'

/**
 * The canonical Rego printer, in the style of `opa fmt`: tabs, a blank line after the package and
 * between rules (adjacent one-line rules stay grouped), imports grouped and sorted, `if` and
 * `contains` in v1, nested infix calls in parentheses, and composites, bodies and `with` chains
 * laid out one item per line when they were written over several lines. Comments stay above the
 * node that follows them or at the end of their line. Terms print through one table keyed by term
 * type (`TERM_PRINTERS`).
 *
 * Where `opa fmt` would change the AST (`p if { true }` to `p := true`, a number template part to
 * text), this printer keeps the AST; the only intended AST change is v1's `:=` for rule values
 * written with `=`. docs/ast-json.md lists these choices.
 */
import { formatError, RegoErrors } from '../errors.js'
import type { Body, Expr, Head, Import, Location, Module, Rule, SomeDecl, Term } from '../syntax/ast.js'
import { parseModuleWithErrors } from '../syntax/module-parser.js'
import type { ParseOptions } from '../syntax/parser.js'
import { closingRow, commentText, UnexpectedComment, Writer } from './writer.js'

/** Formatting options. */
export interface FormatOptions {
  /** Syntax to print; defaults to the module's own version. */
  regoVersion?: 'v0' | 'v1'
}

/** Infix operators: builtin name to symbol and arity. */
const INFIX: Record<string, [string, number]> = {
  eq: ['=', 2],
  assign: [':=', 2],
  equal: ['==', 2],
  neq: ['!=', 2],
  lt: ['<', 2],
  lte: ['<=', 2],
  gt: ['>', 2],
  gte: ['>=', 2],
  plus: ['+', 2],
  minus: ['-', 2],
  mul: ['*', 2],
  div: ['/', 2],
  rem: ['%', 2],
  and: ['&', 2],
  or: ['|', 2],
  'internal.member_2': ['in', 2],
  'internal.member_3': ['in', 3],
}

/** Binding strength of infix operators (higher binds tighter), as the parser's ladder orders them. */
const PRECEDENCE: Record<string, number> = {
  eq: 0,
  assign: 0,
  'internal.member_2': 1,
  'internal.member_3': 1,
  equal: 2,
  neq: 2,
  lt: 2,
  lte: 2,
  gt: 2,
  gte: 2,
  or: 3,
  and: 4,
  plus: 5,
  minus: 5,
  mul: 6,
  div: 6,
  rem: 6,
}

const V1_KEYWORDS = new Set([
  'as',
  'contains',
  'default',
  'else',
  'every',
  'false',
  'if',
  'import',
  'in',
  'not',
  'null',
  'package',
  'some',
  'true',
  'with',
])

interface Flags {
  v1: boolean
  ifs: boolean
  contains: boolean
  refHeads: boolean
}

type TermPrinter<T extends Term> = (p: Printer, term: T) => void

/** One printer per term type. */
const TERM_PRINTERS: { [K in Term['type']]: TermPrinter<Extract<Term, { type: K }>> } = {
  null: (p) => p.w.write('null'),
  boolean: (p, t) => p.w.write(String(t.value)),
  number: (p, t) => p.w.write(t.value),
  string: (p, t) => p.w.write(stringText(t)),
  var: (p, t) => p.w.write(t.value.startsWith('$') ? '_' : t.value),
  ref: (p, t) => p.ref(t.value),
  array: (p, t) => p.collection('[', ']', t.value, t.location),
  set: (p, t) => {
    if (t.value.length === 0) p.w.write('set()')
    else p.collection('{', '}', t.value, t.location)
  },
  object: (p, t) => p.collection('{', '}', t.value, t.location),
  arraycomprehension: (p, t) => p.comprehension('[', ']', t.value.term, t.value.body, t.location),
  setcomprehension: (p, t) => p.comprehension('{', '}', t.value.term, t.value.body, t.location),
  objectcomprehension: (p, t) =>
    p.comprehension('{', '}', t.value.key, t.value.body, t.location, t.value.value),
  call: (p, t) => p.call(t.value, false),
  templatestring: (p, t) => p.templateString(t),
}

/** Prints one module. */
class Printer {
  readonly w: Writer
  private readonly flags: Flags
  /**
   * Set when a body line starts: a leading negative number there would continue the previous
   * line's arithmetic (`a := 1` then `-1` reads as `a := 1 - 1`), so it is printed as `(-1)`.
   */
  private lineStart = false

  constructor(
    private readonly module: Module,
    version: 'v0' | 'v1',
  ) {
    this.w = new Writer(
      [...module.comments].sort(
        (a, b) =>
          (a.location?.row ?? 0) - (b.location?.row ?? 0) || (a.location?.col ?? 0) - (b.location?.col ?? 0),
      ),
    )
    const imported = (kw: string) =>
      module.imports.some((i) => {
        const names = refNames(i.path.value)
        return (
          (names[0] === 'rego' && names[1] === 'v1') ||
          (names[0] === 'future' && names[1] === 'keywords' && (names.length === 2 || names[2] === kw))
        )
      })
    const v1 = version === 'v1'
    this.flags = {
      v1,
      ifs: v1 || imported('if'),
      contains: v1 || imported('contains'),
      refHeads: module.rules.some(
        (r) =>
          r.head.ref.length > 2 ||
          (r.head.ref.length === 2 && r.head.key !== undefined && r.head.value === undefined),
      ),
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Module, package, imports, rules

  print(): string {
    const w = this.w
    const pkg = this.module.package
    w.insertComments(pkg.location)
    w.startLine()
    const [, first, ...rest] = pkg.path
    w.write('package ')
    this.ref([{ type: 'var', value: first?.type === 'string' ? first.value : '' }, ...rest])
    w.blankLine()

    const others: Array<Import | Rule> = [...this.module.imports, ...this.module.rules].sort(
      (a, b) =>
        (a.location?.row ?? 0) - (b.location?.row ?? 0) || (a.location?.col ?? 0) - (b.location?.col ?? 0),
    )
    let i = 0
    while (i < others.length) {
      const imports: Import[] = []
      while (i < others.length && others[i]?.type === 'import') imports.push(others[i++] as Import)
      if (imports.length) this.imports(imports)
      const rules: Rule[] = []
      while (i < others.length && others[i]?.type === 'rule') rules.push(others[i++] as Rule)
      if (rules.length) this.rules(rules)
    }
    for (const c of w.pending()) w.writeLine(commentText(c))
    w.head = w.comments.length
    return `${w.out.replace(/\n+$/, '')}\n`
  }

  private imports(imports: Import[]): void {
    const w = this.w
    const trailing = new Map<Import, string>()
    const rows = new Map(imports.map((i) => [i.location?.row, i]))
    const lastRow = Math.max(...imports.map((i) => i.location?.row ?? 0))
    const kept: typeof w.comments = []
    // Comments on an import's line stay on that line; others in the import block are kept in order.
    while (w.nextCommentRow() <= lastRow) {
      const c = w.comments[w.head++] as (typeof w.comments)[number]
      const imp = rows.get(c.location?.row)
      if (imp) trailing.set(imp, commentText(c))
      else kept.push(c)
    }
    w.head -= kept.length
    for (const [i, c] of kept.entries()) w.comments[w.head + i] = c
    const groups: Import[][] = []
    for (const imp of imports) {
      const group = groups[groups.length - 1]
      const last = group?.[group.length - 1]
      if (group && last && (imp.location?.row ?? 0) - (last.location?.row ?? 0) <= 1) group.push(imp)
      else groups.push([imp])
    }
    for (const group of groups) {
      w.insertComments(group[0]?.location)
      for (const imp of [...group].sort(compareImports)) {
        w.startLine()
        w.write('import ')
        this.ref(imp.path.value, true)
        if (imp.alias) w.write(` as ${imp.alias}`)
        const c = trailing.get(imp)
        if (c) w.write(` ${c}`)
        w.endLine()
      }
      w.blankLine()
    }
  }

  private rules(rules: Rule[]): void {
    for (const [i, rule] of rules.entries()) {
      this.w.insertComments(rule.location)
      this.rule(rule, false)
      const next = rules[i + 1]
      if (
        next &&
        this.groupable(rule) &&
        this.groupable(next) &&
        next.location?.row === (rule.location?.row ?? 0) + 1
      ) {
        continue
      }
      this.w.blankLine()
    }
  }

  private groupable(rule: Rule): boolean {
    if (rule.body.length > 1 || rule.default || !rule.location) return false
    return this.flags.ifs && (this.flags.contains || rule.head.value !== undefined)
  }

  private rule(rule: Rule, isElse: boolean): void {
    const w = this.w
    if (!isElse) w.startLine()
    if (rule.default) w.write('default ')
    const expandedConst = rule.generatedBody === true && !rule.else
    this.head(rule.head, rule.default === true, expandedConst, isElse)
    if (rule.body.length === 0 || expandedConst) {
      w.endLine()
      return
    }
    const useIf = this.flags.ifs && (this.flags.contains || rule.head.value !== undefined)
    if (useIf) {
      w.write(' if')
      const only = rule.body[0]
      if (rule.body.length === 1 && only && !isSetTerm(only) && !isEmptyObject(only)) {
        const headLoc = rule.head.location
        const headEndRow = (headLoc?.row ?? 0) + newlines(headLoc?.text ?? '')
        if (only.location?.row === headEndRow) {
          w.write(' ')
          this.expr(only)
          w.endLine()
          if (rule.else) this.elseRule(rule)
          return
        }
      }
    }
    w.write(' {')
    w.endLine()
    w.up()
    this.body(rule.body)
    const close = rule.head.args
      ? closingRow(rule.location, '{', '}', ['(', ')'])
      : closingRow(rule.location, '{', '}', rule.head.key && !this.flags.refHeads ? ['[', ']'] : undefined)
    w.insertComments(close)
    w.down()
    w.startLine()
    w.write('}')
    if (rule.else) this.elseRule(rule)
  }

  private elseRule(rule: Rule): void {
    const w = this.w
    const next = rule.else as Rule
    const lines = (rule.location?.text ?? '').split('\n')
    const rel = (next.location?.row ?? 0) - (rule.location?.row ?? 0)
    const wasInline = rel > 0 && rel < lines.length && !(lines[rel] ?? '').trim().startsWith('else')
    const commentAbove = w.nextCommentRow() < (next.location?.row ?? 0) || w.beforeEnd !== undefined
    if (!commentAbove && wasInline) w.write(' ')
    else {
      w.blankLine()
      w.startLine()
    }
    w.insertComments(next.location)
    if (commentAbove && !wasInline && !w.inline) w.startLine()
    this.rule(next, true)
  }

  private head(head: Head, isDefault: boolean, expandedConst: boolean, isElse: boolean): void {
    const w = this.w
    if (isElse) {
      w.write('else')
    } else {
      let ref = head.ref
      if (head.key && head.value === undefined && !hasDynamicRef(ref)) ref = groundPrefix(ref)
      if (this.flags.refHeads || ref.length === 1) this.ref(ref)
      else {
        this.term(ref[0] as Term)
        w.write('[')
        this.term(ref[1] as Term)
        w.write(']')
      }
      if (head.args && head.args.length > 0) {
        w.write('(')
        this.iterable(head.args, head.location, closingRow(head.location, '(', ')'))
        w.write(')')
      }
      if (head.key) {
        if (this.flags.contains && head.value === undefined) {
          w.write(' contains ')
          this.term(head.key)
        } else if (head.value === undefined) {
          w.write('[')
          this.term(head.key)
          w.write(']')
        }
      }
    }
    const value = head.value
    if (!value) return
    const isTrue = value.type === 'boolean' && value.value === true
    // NOTE(regent): `obj["k"] := true if ...` keeps its value: without it the head would lose its
    // `name` (OPA's formatter drops it there and changes the AST).
    const keepTrue = !head.generatedValue && head.ref.length === 2 && !isElse
    if (!(head.key || !isTrue || expandedConst || isDefault || keepTrue)) return
    const v1RefConst = this.flags.v1 && expandedConst && !head.key && !head.args
    if (head.generatedValue && isTrue && !v1RefConst) return
    w.write(head.assign || this.flags.v1 ? ' := ' : ' = ')
    this.term(value)
  }

  // -------------------------------------------------------------------------------------------------
  // Bodies and expressions

  body(body: Body): void {
    const w = this.w
    w.insertComments(body[0]?.location)
    for (const [i, expr] of body.entries()) {
      const prev = body[i - 1]
      if (prev?.location && expr.location) {
        // Keep one blank line where the source had one; comments just above count as the start.
        const lastRow = prev.location.row + newlines(prev.location.text)
        const nextComment = w.nextCommentRow()
        const start = nextComment > lastRow ? Math.min(expr.location.row, nextComment) : expr.location.row
        if (start > lastRow + 1) w.blankLine()
      }
      w.startLine()
      this.lineStart = i > 0
      // A body starting with `a | b` would read back as a set comprehension `{a | b; ...}`.
      if (i === 0 && isUnionExpr(expr)) {
        w.write('(')
        this.expr(expr)
        w.write(')')
      } else this.expr(expr)
      this.lineStart = false
      w.endLine()
    }
  }

  expr(expr: Expr): void {
    const w = this.w
    w.insertComments(expr.location)
    if (!w.inline) w.startLine()
    if (expr.negated) w.write('not ')
    const t = expr.terms
    if (Array.isArray(t)) this.call(t, false, true)
    else if (t.type === 'somedecl') this.someDecl(t)
    else if (t.type === 'every') {
      w.write('every ')
      if (t.key) {
        this.term(t.key)
        w.write(', ')
      }
      this.term(t.value)
      w.write(' in ')
      this.term(t.domain)
      w.write(' {')
      const loc = expr.location ?? t.location
      this.comprehensionBody(t.body, loc, loc, '{', '}')
      if (t.body.length === 1 && t.body[0]?.location?.row === t.location?.row) w.write(' ')
      w.write('}')
    } else this.term(t)
    if (!expr.with?.length) return
    let withs = expr.with
    let lastRow = termsEndRow(expr)
    const first = withs[0]
    if (first && first.location?.row === lastRow) {
      this.with(first.target, first.value, false)
      lastRow = first.location.row
      withs = withs.slice(1)
    }
    let indented = false
    for (const wth of withs) {
      const indent = (wth.location?.row ?? 0) > lastRow
      if (indent) {
        if (!indented) {
          w.up()
          indented = true
        }
        w.endLine()
        w.startLine()
        lastRow = wth.location?.row ?? lastRow
      }
      this.with(wth.target, wth.value, indent)
    }
    if (indented) w.down()
  }

  private with(target: Term, value: Term, indented: boolean): void {
    if (!indented) this.w.write(' ')
    this.w.write('with ')
    this.term(target)
    this.w.write(' as ')
    this.term(value)
  }

  private someDecl(decl: SomeDecl): void {
    this.w.write('some ')
    const first = decl.symbols[0]
    if (decl.symbols.length === 1 && first?.type === 'call') {
      this.inOperator(first.value.slice(1), false)
      return
    }
    for (const [i, s] of decl.symbols.entries()) {
      if (i > 0) this.w.write(', ')
      this.term(s)
    }
  }

  /**
   * A call: infix operators print infix (`x := y`, `z = x + y` for the output form); as operands
   * (`nested`) they get parentheses; other functions print as `f(a, b)`.
   */
  call(terms: Term[], nested: boolean, topLevel = false): void {
    const w = this.w
    const [op, ...args] = terms
    const name = op ? opName(op) : undefined
    const infix = name ? INFIX[name] : undefined
    if (
      !infix ||
      (args.length !== infix[1] && !(topLevel && args.length === infix[1] + 1 && infix[0] !== 'in'))
    ) {
      if (op?.type === 'ref') this.ref(op.value)
      else if (op) this.term(op)
      w.write('(')
      this.iterable(args, op?.location, closingRow(op?.location, '(', ')'))
      w.write(')')
      return
    }
    if (infix[0] === 'in') {
      // `k, v in xs` inside a list or call would read as two items, so it keeps parentheses there.
      this.inOperator(args, nested || (args.length === 3 && !topLevel))
      return
    }
    if (args.length === infix[1] + 1) {
      this.operand(args[2] as Term)
      w.write(' = ')
    }
    if (nested) w.write('(')
    this.operand(args[0] as Term, topLevel ? name : undefined, false)
    w.write(` ${infix[0]} `)
    this.operand(args[1] as Term, topLevel ? name : undefined, true)
    if (nested) w.write(')')
  }

  /**
   * An operand of an infix call. Nested infix calls get parentheses, as `opa fmt` writes them,
   * except directly under an expression's top-level operator when precedence makes them
   * unnecessary (`x := a + b`, `a + (b * c) == d`).
   */
  private operand(t: Term, parent?: string, right = false): void {
    if (t.type !== 'call') {
      this.term(t)
      return
    }
    this.w.insertComments(t.location)
    const child = t.value[0] ? opName(t.value[0]) : undefined
    let parens = true
    if (parent !== undefined && child !== undefined && INFIX[child]) {
      const p = PRECEDENCE[parent] ?? 0
      const c = PRECEDENCE[child] ?? 0
      parens = c < p || (c === p && (right || p === 0))
    }
    this.call(t.value, parens)
  }

  private inOperator(operands: Term[], parens: boolean): void {
    const w = this.w
    if (parens) w.write('(')
    this.operand(operands[0] as Term)
    if (operands.length === 3) {
      w.write(', ')
      this.operand(operands[1] as Term)
    }
    w.write(' in ')
    this.operand(operands[operands.length - 1] as Term)
    if (parens) w.write(')')
  }

  // -------------------------------------------------------------------------------------------------
  // Terms

  /** Prints a term; when its comments cannot be placed, prints its source text instead. */
  term(term: Term): void {
    const w = this.w
    const saved = {
      out: w.out,
      level: w.level,
      inline: w.inline,
      head: w.head,
      beforeEnd: w.beforeEnd,
    }
    const lineStart = this.lineStart
    this.lineStart = false
    try {
      w.insertComments(term.location)
      if (!w.inline) w.startLine()
      const print = TERM_PRINTERS[term.type] as TermPrinter<Term>
      if (lineStart && term.type === 'number' && term.value.startsWith('-')) w.write(`(${term.value})`)
      else print(this, term)
    } catch (err) {
      if (!(err instanceof UnexpectedComment) || !term.location?.text) throw err
      w.out = saved.out
      w.level = saved.level
      w.inline = saved.inline
      w.head = saved.head
      w.beforeEnd = saved.beforeEnd
      const loc = term.location
      w.write(loc.text)
      w.skipCommentsThrough(loc.row + newlines(loc.text))
    }
  }

  ref(ref: Term[], allowKeywords = false): void {
    const w = this.w
    const [head, ...path] = ref
    if (!head) return
    if (head.type === 'call') {
      const parens = head.location?.text.startsWith('(') ?? false
      if (parens) w.write('(')
      this.call(head.value, false)
      if (parens) w.write(')')
    } else this.term(head)
    for (const t of path) {
      if (t.type === 'string') {
        const quoted = t.location?.text.startsWith('"') || t.location?.text.startsWith('`')
        const keyword = V1_KEYWORDS.has(t.value)
        if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value) && (!keyword || allowKeywords || !quoted))
          w.write(`.${t.value}`)
        else w.write(`[${stringText(t)}]`)
      } else if (t.type === 'var') {
        w.write(`[${t.value.startsWith('$') ? '_' : t.value}]`)
      } else {
        w.write('[')
        this.term(t)
        w.write(']')
      }
    }
  }

  /** Arrays, sets and objects: one line, or one source line per output line with trailing commas. */
  collection(
    open: string,
    close: string,
    items: Term[] | Array<[Term, Term]>,
    loc: Location | undefined,
  ): void {
    this.w.write(open)
    this.iterable(items, loc, closingRow(loc, open, close))
    this.w.write(close)
  }

  private iterable(
    items: Array<Term | [Term, Term]>,
    loc: Location | undefined,
    close: { row: number },
  ): void {
    const w = this.w
    const lines = groupByRow(items, loc)
    let multiline = lines.length > 1
    if (lines.length === 1 && loc) {
      const row = w.nextCommentRow()
      if (row > loc.row && row < close.row)
        throw new UnexpectedComment('comment inside a one-line collection')
      const first = items[0]
      const firstLoc = first ? itemLoc(first) : undefined
      if (firstLoc) {
        const cut = firstLoc.offset - loc.offset
        if (cut > 0 && loc.text.slice(0, cut).includes('\n')) multiline = true
      }
    }
    if (multiline) {
      w.delay = true
      w.startMultilineSeq()
    }
    for (const [i, line] of lines.entries()) {
      for (const [j, item] of line.entries()) {
        if (j > 0) w.write(', ')
        this.item(item)
      }
      if (i < lines.length - 1) {
        w.write(',')
        w.endLine()
        w.startLine()
      }
    }
    if (multiline) {
      w.write(',')
      w.endLine()
      w.insertComments(close)
      w.down()
      w.startLine()
    }
  }

  private item(item: Term | [Term, Term]): void {
    if (Array.isArray(item)) {
      this.unionSafe(item[0])
      this.w.write(': ')
      this.unionSafe(item[1])
    } else this.unionSafe(item)
  }

  /** `a | b` inside a collection would read as a comprehension, so it gets parentheses. */
  private unionSafe(t: Term): void {
    if (t.type === 'call' && t.value[0] && opName(t.value[0]) === 'or' && t.value.length === 3) {
      this.w.write('(')
      this.term(t)
      this.w.write(')')
    } else this.term(t)
  }

  comprehension(
    open: string,
    close: string,
    head: Term,
    body: Body,
    loc: Location | undefined,
    value?: Term,
  ): void {
    const w = this.w
    w.write(open)
    if (loc && head.location && head.location.row - loc.row >= 1) {
      w.endLine()
      w.startLine()
    }
    this.unionSafe(head)
    if (value) {
      w.write(': ')
      this.unionSafe(value)
    }
    w.write(' |')
    this.comprehensionBody(body, head.location, loc, open, close)
    w.write(close)
  }

  private comprehensionBody(
    body: Body,
    start: Location | undefined,
    loc: Location | undefined,
    open: string,
    close: string,
  ): void {
    const w = this.w
    const rows = new Set(body.map((e) => e.location?.row))
    const firstRow = body[0]?.location?.row ?? 0
    if (firstRow - (start?.row ?? firstRow) > 0 || rows.size > 1) {
      w.endLine()
      w.up()
      this.body(body)
      w.insertComments(closingRow(loc, open, close))
      w.down()
      w.startLine()
      return
    }
    w.write(' ')
    for (const [i, e] of body.entries()) {
      if (i > 0) w.write('; ')
      this.expr(e)
    }
    w.insertComments(closingRow(loc, open, close))
  }

  templateString(t: Extract<Term, { type: 'templatestring' }>): void {
    const w = this.w
    const multi = t.value.multi_line
    w.write(multi ? '$`' : '$"')
    for (const part of t.value.parts) {
      if (part.type === 'expr') {
        w.write('{')
        this.expr(part)
        w.write('}')
      } else if (part.type === 'string' && !/^["`]/.test(part.location?.text ?? '')) {
        const escaped = multi ? part.value : JSON.stringify(part.value).slice(1, -1)
        w.write(escaped.replaceAll('{', '\\{'))
      } else {
        w.write('{')
        this.term(part)
        w.write('}')
      }
    }
    w.write(multi ? '`' : '"')
  }
}

function stringText(t: Extract<Term, { type: 'string' }>): string {
  const text = t.location?.text
  if (text && (text.startsWith('"') || text.startsWith('`')) && text.length >= 2) return text
  return JSON.stringify(t.value)
}

function opName(op: Term): string | undefined {
  if (op.type !== 'ref') return op.type === 'var' ? op.value : undefined
  const names = refNames(op.value)
  return names.length === op.value.length ? names.join('.') : undefined
}

function refNames(ref: Term[]): string[] {
  const out: string[] = []
  for (const [i, t] of ref.entries()) {
    if (i === 0 && t.type === 'var') out.push(t.value)
    else if (i > 0 && t.type === 'string') out.push(t.value)
    else break
  }
  return out
}

function compareImports(a: Import, b: Import): number {
  const pa = a.path.value.map((t) => ('value' in t ? String(t.value) : ''))
  const pb = b.path.value.map((t) => ('value' in t ? String(t.value) : ''))
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const c = (pa[i] as string) < (pb[i] as string) ? -1 : (pa[i] as string) > (pb[i] as string) ? 1 : 0
    if (c !== 0) return c
  }
  return pa.length - pb.length || (a.alias ?? '').localeCompare(b.alias ?? '')
}

function isGroundTerm(t: Term): boolean {
  return t.type !== 'var' && t.type !== 'ref' && t.type !== 'call' && !t.type.endsWith('comprehension')
}

function groundPrefix(ref: Term[]): Term[] {
  const out: Term[] = []
  for (const [i, t] of ref.entries()) {
    if (i > 0 && !isGroundTerm(t)) break
    out.push(t)
  }
  return out
}

function hasDynamicRef(ref: Term[]): boolean {
  const pos = ref.findIndex((t, i) => i > 0 && !isGroundTerm(t))
  return pos > 0 && pos < ref.length - 1
}

function isUnionExpr(expr: Expr): boolean {
  const t = expr.terms
  return (
    !expr.negated &&
    !expr.with?.length &&
    Array.isArray(t) &&
    t.length === 3 &&
    !!t[0] &&
    opName(t[0]) === 'or'
  )
}

function isEmptyObject(expr: Expr): boolean {
  return !Array.isArray(expr.terms) && expr.terms.type === 'object' && expr.terms.value.length === 0
}

function isSetTerm(expr: Expr): boolean {
  return !expr.negated && !Array.isArray(expr.terms) && expr.terms.type === 'set'
}

function newlines(s: string): number {
  let n = 0
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++
  return n
}

function itemLoc(item: Term | [Term, Term]): Location | undefined {
  return Array.isArray(item) ? item[0].location : item.location
}

/** Groups items by source row: items on the same row share an output line. */
function groupByRow(
  items: Array<Term | [Term, Term]>,
  loc: Location | undefined,
): Array<Array<Term | [Term, Term]>> {
  const lines: Array<Array<Term | [Term, Term]>> = []
  let lastRow = loc?.row ?? 0
  for (const [i, item] of items.entries()) {
    const row = itemLoc(item)?.row
    if (i === 0 || row === undefined || row <= lastRow) {
      if (lines.length === 0) lines.push([])
      ;(lines[lines.length - 1] as Array<Term | [Term, Term]>).push(item)
    } else lines.push([item])
    if (row !== undefined) lastRow = Math.max(lastRow, row + newlines(itemLoc(item)?.text ?? ''))
  }
  return lines.length ? lines : [[]]
}

/** The last row of an expression's own terms (its `with` modifiers excluded). */
function termsEndRow(expr: Expr): number {
  const loc = expr.location
  if (!loc) return 0
  let text = loc.text
  const first = expr.with?.[0]?.location
  if (first) {
    const off = first.offset - loc.offset
    if (off > 0 && off <= text.length) text = text.slice(0, off)
  }
  return loc.row + newlines(text.trimEnd())
}

/**
 * Formats a parsed module.
 *
 * @example
 * formatModule(parseModule('package a\np {input.x}')) // 'package a\n\np if input.x\n'
 */
export function formatModule(module: Module, options: FormatOptions = {}): string {
  const printer = new Printer(module, options.regoVersion ?? module.regoVersion)
  try {
    return printer.print()
  } catch (err) {
    if (err instanceof RegoErrors) throw err
    const message = err instanceof Error ? err.message : String(err)
    throw new RegoErrors([formatError(module.location, message)])
  }
}

/** Parses and formats source text. Throws `RegoErrors` when the text does not parse. */
export function formatSource(text: string, options: ParseOptions & FormatOptions = {}): string {
  const { module, errors } = parseModuleWithErrors(text, options)
  if (!module) throw new RegoErrors(errors)
  return formatModule(module, options)
}

/**
 * The canonical Rego printer, in the style of `opa fmt`: tabs, a blank line after the package and
 * between rules (adjacent one-line rules stay grouped), imports grouped and sorted, `if` and
 * `contains` in v1, nested infix calls in parentheses, and composites, bodies and `with` chains
 * laid out one item per line when they were written over several lines. Comments stay above the
 * node that follows them or at the end of their line. Terms print through one table keyed by term
 * type (`TERM_PRINTERS` in terms.ts).
 *
 * Where `opa fmt` would change the AST (`p if { true }` to `p := true`, a number template part to
 * text), this printer keeps the AST; the intended AST changes are v1's `:=` for rule values
 * written with `=` and, as in `opa fmt`, dropping `future.keywords` imports next to `import rego.v1`.
 * docs/ast-json.md lists these choices.
 */
import { formatError, RegoErrors } from '../errors.js'
import type { Body, Expr, Head, Import, Location, Module, Rule, SomeDecl, Term } from '../syntax/ast.js'
import { parseModuleWithErrors } from '../syntax/module-parser.js'
import type { ParseOptions } from '../syntax/parser.js'
import { locationText } from '../syntax/source.js'
import { needsGroupUnderNot, operandNeedsGroup } from './groups.js'
import {
  compareImports,
  isUnionExpr,
  newlines,
  operatorGap,
  refNames,
  startsWithBrace,
  termsEndRow,
} from './layout.js'
import { TermPrinter } from './terms.js'
import { closingRow, commentText, UnexpectedComment, Writer } from './writer.js'

/** Formatting options. */
export interface FormatOptions {
  /** Syntax to print; defaults to the module's own version. */
  regoVersion?: 'v0' | 'v1'
  /**
   * Leave out `import rego.v1` and `future.keywords` imports (`opa fmt --drop-v0-imports`): in
   * Rego v1 they change nothing. Ignored when printing v0, where the keywords need them.
   */
  dropV0Imports?: boolean
}

interface Flags {
  v1: boolean
  ifs: boolean
  contains: boolean
  refHeads: boolean
}

function byPosition(a: { location?: Location }, b: { location?: Location }): number {
  return (a.location?.row ?? 0) - (b.location?.row ?? 0) || (a.location?.col ?? 0) - (b.location?.col ?? 0)
}

/** Prints one module: package, imports, rules, bodies and expressions. */
class ModulePrinter extends TermPrinter {
  private readonly flags: Flags
  /** Set while the lines of an `and` / `or` chain broken over lines are indented (see `expr`). */
  private chainIndented = false
  /** How deep the `and` / `or` being printed sits in its chain (0 outside any). */
  private chainDepth = 0

  constructor(
    private readonly module: Module,
    version: 'v0' | 'v1',
  ) {
    super(new Writer([...module.comments].sort(byPosition)))
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

    const others: Array<Import | Rule> = [...keptImports(this.module.imports), ...this.module.rules].sort(
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
        // Only `future.keywords` imports print keywords unbracketed (`future.keywords.in`); any
        // other import keeps a quoted keyword in brackets (`data.x["default"].y`), as `opa fmt` does.
        const names = refNames(imp.path.value)
        this.ref(imp.path.value, names[0] === 'future' && names[1] === 'keywords')
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
      this.topRule(rule)
      const next = rules[i + 1]
      if (
        next &&
        this.printsOnOneLine(rule) &&
        this.groupable(next) &&
        next.location?.row === (rule.location?.row ?? 0) + 1
      ) {
        continue
      }
      this.w.blankLine()
    }
  }

  /** Prints a rule with its else chain, or its source text when a comment in it has no place. */
  private topRule(rule: Rule): void {
    if (this.orAsWritten(rule.location, () => this.rule(rule, false), true)) this.w.endLine()
  }

  /**
   * Runs `print`; when a comment inside the node at `loc` has no place in the formatted layout
   * (between a function's arguments and its body, say), prints the node's source text instead.
   * True when it did. `outermost` is the rule level, where no enclosing node can take over.
   */
  private orAsWritten(loc: Location | undefined, print: () => void, outermost = false): boolean {
    const w = this.w
    const saved = w.save()
    try {
      print()
      return false
    } catch (err) {
      const text = locationText(loc)
      if (!(err instanceof UnexpectedComment) || !text) throw err
      w.restore(saved)
      w.writeSource(loc as Location, text, outermost)
      return true
    }
  }

  /**
   * True when the rule can stay grouped with the rule on the source line just above it, as in
   * `opa fmt` (`groupableOneLiner`): not a default rule, no else chain (its `else` goes on a line
   * of its own), at most one condition, and not a lone condition that starts with a brace (that
   * keeps a braced body). The rule itself may be written over several lines: `p if x` followed
   * by `p if {` ... `}` stays together.
   */
  private groupable(rule: Rule): boolean {
    if (rule.body.length > 1 || rule.default || rule.else || !rule.location || !this.usesIf(rule))
      return false
    const only = rule.body[0]
    return !(only && rule.body.length === 1 && rule.generatedBody !== true && startsWithBrace(only))
  }

  /**
   * True when the rule is groupable and printed on one line (a constant, or a single condition
   * after `if` on the head's line), so that the rule on the next source line can join it.
   */
  private printsOnOneLine(rule: Rule): boolean {
    if (!this.groupable(rule)) return false
    return rule.body.length === 0 || rule.generatedBody === true || this.inlineCondition(rule) !== undefined
  }

  private usesIf(rule: Rule): boolean {
    return this.flags.ifs && (this.flags.contains || rule.head.value !== undefined)
  }

  /** The body's only expression when it is written after `if` on the line where the head ends. */
  private inlineCondition(rule: Rule): Expr | undefined {
    const only = rule.body[0]
    if (rule.body.length !== 1 || !only || startsWithBrace(only)) return undefined
    const headLoc = rule.head.location
    const headEndRow = (headLoc?.row ?? 0) + newlines(locationText(headLoc) ?? '')
    return only.location?.row === headEndRow ? only : undefined
  }

  private rule(rule: Rule, isElse: boolean): void {
    const w = this.w
    if (!isElse) w.startLine()
    if (rule.default) w.write('default ')
    const expandedConst = (rule.generatedBody === true || this.redundantTrueBody(rule)) && !rule.else
    this.head(rule.head, rule.default === true, expandedConst, isElse)
    if (rule.body.length === 0 || expandedConst) {
      w.endLine()
      return
    }
    if (this.usesIf(rule)) {
      w.write(' if')
      const only = this.inlineCondition(rule)
      if (only) {
        w.write(' ')
        this.expr(only)
        w.endLine()
        if (rule.else) this.elseRule(rule, false)
        return
      }
    }
    w.write(' {')
    w.endLine()
    w.up()
    // Only a rule's own `if {` can be read back as a set comprehension; else bodies cannot.
    this.body(rule.body, !isElse)
    const close = rule.head.args
      ? closingRow(rule.location, '{', '}', ['(', ')'])
      : closingRow(rule.location, '{', '}', rule.head.key && !this.flags.refHeads ? ['[', ']'] : undefined)
    w.insertComments(close)
    w.down()
    w.startLine()
    w.write('}')
    if (rule.else) this.elseRule(rule, true)
  }

  /**
   * True for a body that is just `true` under a head that stands on its own without it
   * (`a.b.c := 1 if true`, `p contains "x" if { true }`, `else := 2 if true`): the parser gives a
   * rule without a body that same `true` body, so dropping it keeps the AST. Boolean rules keep it
   * (`p if true`), as their value would have to be written out instead. v0 output drops it too
   * (`p["z"] = 3 { true }` to `p["z"] = 3`), as `opa fmt` does.
   */
  private redundantTrueBody(rule: Rule): boolean {
    const only = rule.body[0]
    if (rule.body.length !== 1 || !only || only.negated || only.with?.length) return false
    const t = only.terms
    if (Array.isArray(t) || t.type !== 'boolean' || t.value !== true) return false
    const head = rule.head
    // Without a body, `q[1] := y` reads back with `1` as the head's key as well: keep the body.
    if (head.ref.length === 2 && head.value !== undefined && head.key === undefined) return false
    return (
      (head.value !== undefined && !head.generatedValue) ||
      (head.key !== undefined && head.value === undefined)
    )
  }

  /**
   * The `else` after a rule: on the line of the closing `}` when the source had it there
   * (`afterBrace`), otherwise after a blank line, as `opa fmt` prints it after a one-line body.
   */
  private elseRule(rule: Rule, afterBrace: boolean): void {
    const w = this.w
    const next = rule.else as Rule
    const lines = (locationText(rule.location) ?? '').split('\n')
    const rel = (next.location?.row ?? 0) - (rule.location?.row ?? 0)
    const wasInline =
      afterBrace && rel > 0 && rel < lines.length && !(lines[rel] ?? '').trim().startsWith('else')
    // A comment waiting for the end of the else's own row (`} else := 1 if { # c`) stays there.
    const waitsOnElseRow = w.beforeEnd?.location?.row === next.location?.row
    const commentAbove =
      w.nextCommentRow() < (next.location?.row ?? 0) || (w.beforeEnd !== undefined && !waitsOnElseRow)
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
      const ref = head.ref
      if (this.flags.refHeads || ref.length === 1) this.ref(ref)
      else {
        this.term(ref[0] as Term)
        w.write('[')
        this.term(ref[1] as Term)
        w.write(']')
      }
      if (head.args && head.args.length > 0) {
        w.write('(')
        this.iterable(head.args, head.location, closingRow(head.location, '(', ')'), false)
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
    if (!isElse) {
      this.term(value)
      return
    }
    // Comments between `else` and its value (`else =` / `# c` / `2 {`) go into the body, above its
    // first expression, as `opa fmt` places them.
    const cap = w.rowCap
    w.rowCap = head.location?.row
    try {
      this.term(value)
    } finally {
      w.rowCap = cap
    }
  }

  // -------------------------------------------------------------------------------------------------
  // Bodies and expressions

  body(body: Body, guardLeadingUnion = false): void {
    const w = this.w
    w.insertComments(body[0]?.location)
    for (const [i, expr] of body.entries()) {
      const prev = body[i - 1]
      if (prev?.location && expr.location) {
        // A blank line goes before an expression that does not start on the row after the previous
        // one ends, and so before the comments above it too: `a` / `# c` / `` / `b` prints as
        // `a` / `` / `# c` / `` / `b` (opa fmt's writeBody compares the expressions' rows only).
        // NOTE(fmt): a comment written inside the previous expression where it cannot be printed
        // (`data.c[ # c` / `i]`) comes out below it; a blank line above it keeps the result
        // stable when it is formatted again (opa fmt would add one on the second pass).
        const lastRow = prev.location.row + newlines(locationText(prev.location) ?? '')
        if (expr.location.row > lastRow + 1 || w.nextCommentRow() <= lastRow) w.blankLine()
      }
      w.startLine()
      this.lineStart = i > 0
      this.leadingUnion = i === 0 && guardLeadingUnion
      this.expr(expr)
      this.lineStart = false
      w.endLine()
    }
  }

  /** Prints an expression; when its comments cannot be placed, prints its source text instead. */
  expr(expr: Expr): void {
    this.orAsWritten(expr.location, () => this.formattedExpr(expr))
  }

  private formattedExpr(expr: Expr): void {
    const w = this.w
    // A rule body whose text starts with `a | b` would read back as a set comprehension
    // (`p if {a | b == c}`), so that leading union is written in parentheses.
    const guard = this.leadingUnion && !expr.negated
    this.leadingUnion = false
    w.insertComments(expr.location)
    if (!w.inline) w.startLine()
    if (expr.negated) w.write('not ')
    let t = expr.terms
    if (!Array.isArray(t) && t.type === 'not') {
      // `opa fmt`'s writeNot: an implicit body prints as the `not expr` it was written as.
      w.write('not ')
      const only = t.body[0]
      if (!t.explicitBody && only && t.body.length === 1 && needsGroupUnderNot(only)) {
        this.group(only)
        this.withs(expr)
        return
      }
      if (t.explicitBody || t.body.length !== 1 || !only) {
        const loc = expr.location ?? t.location
        w.write('{')
        this.comprehensionBody(t.body, loc, loc, '{', '}')
        const last = t.body[t.body.length - 1]
        if (last?.location && loc && last.location.row === loc.row) w.write(' ')
        w.write('}')
        this.withs(expr)
        return
      }
      t = only.terms
    }
    if (Array.isArray(t) && guard && isUnionExpr(expr)) {
      w.write('(')
      this.call(t, false, true)
      w.write(')')
    } else if (Array.isArray(t)) this.call(t, false, true, guard)
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
    } else if (t.type === 'and' || t.type === 'or') {
      const loc = expr.location ?? t.location
      const chain = [this.chainDepth, this.chainIndented] as const
      try {
        this.chainDepth++
        this.logicalSide(t.lhs, t.explicitLhs, loc, t.location?.row, t.type, false)
        w.write(` ${t.type}`)
        // A line break written after the operator is kept; the lines it starts are indented one
        // level deeper than the expression, once for the whole chain (as `opa fmt` does).
        const gap = operatorGap(t)
        if (gap.afterOperator) {
          if (!this.chainIndented) w.up()
          this.chainIndented = true
          w.endLine()
        } else w.write(' ')
        this.logicalSide(t.rhs, t.explicitRhs, loc, gap.rhsBraceRow, t.type, true)
        if (--this.chainDepth === 0 && this.chainIndented) {
          w.down()
          this.chainIndented = false
        }
      } catch (err) {
        // The expression is printed as written instead (`orAsWritten`): the chain starts over.
        ;[this.chainDepth, this.chainIndented] = chain
        throw err
      }
    } else if (t.type !== 'not') this.term(t)
    this.withs(expr)
  }

  /** `(expr)`: an operand group, printed on the current line. */
  private group(expr: Expr): void {
    this.w.write('(')
    this.formattedExpr(expr)
    this.w.write(')')
  }

  /**
   * One side of `and` / `or` (`word`, `right` for its right operand): a braced block as a
   * not-body's, or the one expression on this line, in parentheses when `operandNeedsGroup` says so.
   */
  private logicalSide(
    body: Body,
    explicit: boolean,
    loc: Location | undefined,
    braceRow: number | undefined,
    word: 'and' | 'or',
    right: boolean,
  ): void {
    const w = this.w
    const only = body[0]
    if (!explicit && body.length === 1 && only) {
      if (operandNeedsGroup(only, word, right)) this.group(only)
      else this.formattedExpr(only)
      return
    }
    if (!w.inline) w.startLine()
    w.write('{')
    // The body stays on the brace's line when it was written there.
    const start = loc && braceRow !== undefined ? { ...loc, row: braceRow } : loc
    // A chain inside the braces is a chain of its own.
    const chain = [this.chainDepth, this.chainIndented] as const
    this.chainDepth = 0
    this.chainIndented = false
    // `{a | b}` would read back as a set comprehension: a leading union keeps its parentheses.
    this.comprehensionBody(body, start, loc, '{', '}', false, true)
    ;[this.chainDepth, this.chainIndented] = chain
    const last = body[body.length - 1]
    if (last?.location && start && last.location.row === start.row) w.write(' ')
    w.write('}')
  }

  /** The `with` modifiers of `expr`, on its line or indented below as they were written. */
  private withs(expr: Expr): void {
    const w = this.w
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
    // Symbols written over several lines keep their line breaks (indented one step further), so
    // that a comment after a symbol stays on that symbol's line instead of being squeezed out.
    let row = decl.location?.row ?? 0
    for (const [i, s] of decl.symbols.entries()) {
      const symbolRow = s.location?.row ?? row
      if (i > 0 && symbolRow > row) {
        this.w.endLine()
        this.w.startLine()
        this.w.write('\t')
        row = symbolRow
      } else if (i > 0) this.w.write(' ')
      this.term(s)
      if (i < decl.symbols.length - 1) this.w.write(',')
    }
  }
}

/**
 * The imports to print: with `import rego.v1` present, `future.keywords` imports add nothing and
 * are dropped (as `opa fmt` does); a comment on a dropped import's line stays, on a line of its own.
 */
function keptImports(imports: Import[]): Import[] {
  const names = (i: Import) => refNames(i.path.value)
  if (!imports.some((i) => names(i).join('.') === 'rego.v1')) return imports
  return imports.filter((i) => !(names(i)[0] === 'future' && names(i)[1] === 'keywords'))
}

/** `import rego.v1` or an `import future.keywords[...]`: imports only Rego v0 needs. */
function isV0Import(imp: Import): boolean {
  const names = refNames(imp.path.value)
  return names.join('.') === 'rego.v1' || (names[0] === 'future' && names[1] === 'keywords')
}

/**
 * Formats a parsed module.
 *
 * @example
 * formatModule(parseModule('package a\np {input.x}')) // 'package a\n\np if input.x\n'
 */
export function formatModule(module: Module, options: FormatOptions = {}): string {
  const version = options.regoVersion ?? module.regoVersion
  const printed =
    options.dropV0Imports && version === 'v1'
      ? { ...module, imports: module.imports.filter((i) => !isV0Import(i)) }
      : module
  const printer = new ModulePrinter(printed, version)
  try {
    const out = printer.print()
    if (printer.arityErrors.size > 0) throw new RegoErrors([...printer.arityErrors.values()])
    return out
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

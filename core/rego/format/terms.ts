/**
 * Printing of terms: the printer table keyed by term type (`TERM_PRINTERS`), refs, composites
 * (one line, or one source line per output line), comprehensions, calls with infix operators and
 * template strings. Statements and bodies are printed by the module printer in formatter.ts.
 */
import { DEFAULT_BUILTINS } from '../builtins/registry.js'
import { type RegoError, typeError } from '../errors.js'
import type { Body, Expr, Location, Term } from '../syntax/ast.js'
import { locationText } from '../syntax/source.js'
import { typeToString, unwrap } from '../types/index.js'
import {
  groupByRow,
  INFIX,
  isUnionTerm,
  itemLoc,
  opName,
  PRECEDENCE,
  stringText,
  V1_KEYWORDS,
} from './layout.js'
import { printTemplateString } from './template.js'
import { closingRow, UnexpectedComment, type Writer } from './writer.js'

type PrintTerm<T extends Term> = (p: TermPrinter, term: T) => void

/** One printer per term type. */
const TERM_PRINTERS: { [K in Term['type']]: PrintTerm<Extract<Term, { type: K }>> } = {
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
  templatestring: (p, t) => printTemplateString(p, t),
}

/** Prints terms; subclasses print the statements and bodies that contain them. */
export abstract class TermPrinter {
  readonly w: Writer
  /**
   * Set when a body line starts: a leading negative number there would continue the previous
   * line's arithmetic (`a := 1` then `-1` reads as `a := 1 - 1`), so it is printed as `(-1)`.
   */
  protected lineStart = false
  /**
   * Calls of infix built-ins with a number of arguments no form of the operator can print (OPA's
   * formatter refuses them: `plus: arity mismatch`), by where they are (a line printed twice, to
   * place a comment, reports once).
   */
  readonly arityErrors = new Map<string, RegoError>()
  /** Set while printing the first expression of a body that a leading union would misread. */
  protected leadingUnion = false

  constructor(w: Writer) {
    this.w = w
  }

  /** Prints a body, one expression per line. */
  abstract body(body: Body, guardLeadingUnion?: boolean): void

  /** Prints one expression. */
  abstract expr(expr: Expr): void

  /**
   * A call: infix operators print infix (`x := y`, `z = x + y` for the output form); as operands
   * (`nested`) they get parentheses; other functions print as `f(a, b)`.
   */
  call(terms: Term[], nested: boolean, topLevel = false, leftUnionParens = false): void {
    const w = this.w
    const [op, ...args] = terms
    const name = op ? opName(op) : undefined
    const infix = name ? INFIX[name] : undefined
    if (
      !infix ||
      (args.length !== infix[1] && !(topLevel && args.length === infix[1] + 1 && infix[0] !== 'in'))
    ) {
      if (infix && infix[0] !== 'in' && name) this.arityMismatch(name, args, op?.location)
      if (op?.type === 'ref') this.ref(op.value)
      else if (op) this.term(op)
      w.write('(')
      this.iterable(args, op?.location, closingRow(op?.location, '(', ')'), false)
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
    if (leftUnionParens && isUnionTerm(args[0] as Term)) this.termInParens(args[0] as Term)
    else this.operand(args[0] as Term, topLevel ? name : undefined, false)
    w.write(` ${infix[0]} `)
    this.operand(args[1] as Term, topLevel ? name : undefined, true)
    if (nested) w.write(')')
  }

  // OPA's ArityFormatMismatchError: the operands' kinds against the built-in's declared arguments.
  private arityMismatch(name: string, args: Term[], location: Location | undefined): void {
    const key = `${location?.file}:${location?.offset}:${name}`
    if (this.arityErrors.has(key)) return
    const decl = DEFAULT_BUILTINS.find((b) => b.name === name)
    const want = decl ? decl.args.map((a) => typeToString(unwrap(a))) : []
    this.arityErrors.set(
      key,
      typeError(location, `${name}: arity mismatch`, {
        // ArityFormatErrDetail.Lines joins them with a bare comma.
        have: `(${args.map((a) => a.type).join(',')})`,
        want: `(${want.join(',')})`,
      }),
    )
  }

  /**
   * An operand of an infix call. Nested infix calls get parentheses, as `opa fmt` writes them,
   * except directly under an expression's top-level operator when precedence makes them
   * unnecessary (`x := a + b`, `a + (b * c) == d`).
   */
  protected operand(t: Term, parent?: string, right = false): void {
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

  protected inOperator(operands: Term[], parens: boolean): void {
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

  /** Prints a term (a comment that cannot be placed in it fails its expression or rule). */
  term(term: Term): void {
    const w = this.w
    const lineStart = this.lineStart
    this.lineStart = false
    w.insertComments(term.location)
    if (!w.inline) w.startLine()
    const print = TERM_PRINTERS[term.type] as PrintTerm<Term>
    if (lineStart && term.type === 'number' && term.value.startsWith('-')) w.write(`(${term.value})`)
    else print(this, term)
  }

  ref(ref: Term[], allowKeywords = false): void {
    const w = this.w
    const [head, ...path] = ref
    if (!head) return
    if (head.type === 'call') {
      const parens = locationText(head.location)?.startsWith('(') ?? false
      if (parens) w.write('(')
      this.call(head.value, false)
      if (parens) w.write(')')
    } else this.term(head)
    for (const t of path) {
      if (t.type === 'string') {
        const quoted = /^["`]/.test(locationText(t.location) ?? '')
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

  protected iterable(
    items: Array<Term | [Term, Term]>,
    loc: Location | undefined,
    close: { row: number },
    inCollection = true,
  ): void {
    const w = this.w
    const lines = groupByRow(items, loc)
    let multiline = lines.length > 1
    if (lines.length === 1 && loc) {
      // Items that all sit on one line have no place for a comment on a line of its own between
      // the brackets: as in `opa fmt`, such a collection (`{` / `"a": 1 # c` / `}`) is printed as
      // written, which also means no trailing comma is added to it.
      const row = w.nextCommentRow()
      if (row > loc.row && row < close.row)
        throw new UnexpectedComment('comment inside a one-line collection')
      // Items written below the opening bracket go on lines of their own (newer `opa fmt`'s
      // newlinePrecedesItem; older versions printed `{` / `"a": 1,` / `}` as `{"a": 1}`).
      const first = items[0]
      const firstLoc = first ? itemLoc(first) : undefined
      if (firstLoc) {
        const cut = firstLoc.offset - loc.offset
        if (cut > 0 && (locationText(loc) ?? '').slice(0, cut).includes('\n')) multiline = true
      }
      // A comment inside a collection printed on one line would pull a later item onto its line.
      if (!multiline && w.commentSplitsItems(loc, items))
        throw new UnexpectedComment('comment inside a one-line collection')
    }
    if (multiline) {
      // A comment waiting for the line end stays after the opening bracket when it was written
      // there (before the first item); one written after the first items goes after them.
      const firstOffset = items[0] ? (itemLoc(items[0])?.offset ?? 0) : 0
      w.delay = (w.beforeEnd?.location?.offset ?? 0) > firstOffset
      w.startMultilineSeq()
    }
    for (const [i, line] of lines.entries()) {
      for (const [j, item] of line.entries()) {
        if (j > 0) w.write(', ')
        if (inCollection || Array.isArray(item)) this.item(item)
        else this.argument(item)
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

  protected item(item: Term | [Term, Term]): void {
    if (Array.isArray(item)) {
      this.unionSafe(item[0])
      this.w.write(': ')
      this.unionSafe(item[1])
    } else this.unionSafe(item)
  }

  /** A call argument: `a | b` is unambiguous there, so it keeps parentheses only if written with them. */
  private argument(t: Term): void {
    this.termInParens(t, isUnionTerm(t) && (locationText(t.location)?.startsWith('(') ?? false))
  }

  /** `a | b` inside a collection would read as a comprehension, so it gets parentheses. */
  protected unionSafe(t: Term): void {
    this.termInParens(t, isUnionTerm(t))
  }

  /** Prints a term, in parentheses when `parens` is set. */
  protected termInParens(t: Term, parens = true): void {
    if (parens) this.w.write('(')
    this.term(t)
    if (parens) this.w.write(')')
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
    if (value) {
      this.unionSafe(head)
      w.write(': ')
      this.beforeBar(value)
    } else this.beforeBar(head)
    w.write(' |')
    // A head written below the opening bracket stays next to it (`{k: v |`), and the body then
    // goes on lines of its own, as `opa fmt` lays out such comprehensions.
    const headBelow = !!loc && !!head.location && head.location.row > loc.row
    this.comprehensionBody(body, head.location, loc, open, close, headBelow)
    w.write(close)
  }

  /**
   * The term just before a comprehension's `|`. An infix call there would absorb the bar
   * (`[a + b | c]` reads as the array `[(a + b) | c]`), so it keeps its parentheses.
   */
  private beforeBar(t: Term): void {
    const name = t.type === 'call' && t.value[0] ? opName(t.value[0]) : undefined
    // `k, v in xs` already prints its own parentheses inside a term.
    if (!name || !INFIX[name] || name === 'internal.member_3') this.unionSafe(t)
    else this.termInParens(t)
  }

  protected comprehensionBody(
    body: Body,
    start: Location | undefined,
    loc: Location | undefined,
    open: string,
    close: string,
    multiline = false,
    guardLeadingUnion = false,
  ): void {
    const w = this.w
    const rows = new Set(body.map((e) => e.location?.row))
    const firstRow = body[0]?.location?.row ?? 0
    if (multiline || firstRow - (start?.row ?? firstRow) > 0 || rows.size > 1) {
      w.endLine()
      w.up()
      this.body(body, guardLeadingUnion)
      w.insertComments(closingRow(loc, open, close))
      w.down()
      w.startLine()
      return
    }
    w.write(' ')
    for (const [i, e] of body.entries()) {
      if (i > 0) w.write('; ')
      this.leadingUnion = i === 0 && guardLeadingUnion
      this.expr(e)
    }
    w.insertComments(closingRow(loc, open, close))
  }
}

/**
 * Template strings (`$"Hello {input.name}"`, `` $`…` ``): text parts as written, each `{…}` part
 * formatted as an expression one level deeper than the line it starts on, so that a composite
 * broken over lines inside it is indented as `opa fmt` indents it. Comments inside the braces are
 * laid out as `opa fmt` lays them out: the first one before an expression right after `{`, the
 * expression on the next line, and comments after it before a `}` on a line of its own.
 */
import type { Comment, Expr, Location, Term } from '../syntax/ast.js'
import { locationText } from '../syntax/source.js'
import { newlines } from './layout.js'
import type { TermPrinter } from './terms.js'
import { commentText, UnexpectedComment } from './writer.js'

type TemplateString = Extract<Term, { type: 'templatestring' }>

export function printTemplateString(p: TermPrinter, t: TemplateString): void {
  const w = p.w
  const multi = t.value.multi_line
  const source = t.location?.source?.text
  // Every comment inside the string is placed here, none by the nodes inside it.
  const comments = t.location ? w.takeCommentsWithin(t.location) : []
  // Comments are placed by row: one outside a string of several lines but on one of its rows
  // (waiting for the line end, or after its end) would be printed inside it.
  const lines = newlines(locationText(t.location) ?? '')
  const lastRow = (t.location?.row ?? 0) + lines
  if (lines > 0 && (w.beforeEnd || w.nextCommentRow() <= lastRow)) {
    throw new UnexpectedComment('comment beside a template string of several lines')
  }
  w.write(multi ? '$`' : '$"')
  for (const part of t.value.parts) {
    if (part.type === 'string' && !/^["`]/.test(locationText(part.location) ?? '')) {
      const escaped = multi ? part.value : JSON.stringify(part.value).slice(1, -1)
      w.write(escaped.replaceAll('{', '\\{'))
      continue
    }
    w.write('{')
    w.up()
    printPart(p, part, comments, source)
    w.down()
    w.write('}')
  }
  w.write(multi ? '`' : '"')
}

/** One `{…}` part, with the comments written between its braces. */
function printPart(p: TermPrinter, part: Term | Expr, comments: Comment[], source: string | undefined): void {
  const w = p.w
  const at = part.location as Location
  const newLine = () => w.write(`\n${'\t'.repeat(w.level)}`)
  const leading = takeBefore(comments, at.offset)
  for (const [i, c] of leading.entries()) {
    if (i > 0) newLine()
    else w.write(' ')
    w.write(commentText(c))
  }
  if (leading.length > 0) newLine()
  if (part.type === 'expr') p.expr(part)
  else p.term(part)
  const end = at.end ?? at.offset
  const trailing = takeBefore(comments, source ? closingBrace(source, end) : end)
  const endRow = at.row + (source ? newlines(source.slice(at.offset, end)) : 0)
  for (const [i, c] of trailing.entries()) {
    if (i === 0 && c.location?.row === endRow) w.write(' ')
    else newLine()
    w.write(commentText(c))
  }
  if (trailing.length > 0) newLine()
}

/** Removes and returns the leading comments of `comments` that start before `offset`. */
function takeBefore(comments: Comment[], offset: number): Comment[] {
  let n = 0
  while (n < comments.length && (comments[n]?.location?.offset ?? 0) < offset) n++
  return comments.splice(0, n)
}

/** The offset of the `}` closing a part whose expression ends at `from` (past spaces and comments). */
function closingBrace(source: string, from: number): number {
  let i = from
  while (i < source.length && source[i] !== '}') {
    if (source[i] === '#') {
      const eol = source.indexOf('\n', i)
      i = eol === -1 ? source.length : eol
    } else i++
  }
  return i
}

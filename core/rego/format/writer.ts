/**
 * The output side of the formatter: a text buffer with tab indentation, line starts and ends, and
 * comment placement by source row (comments above a node go before it; a comment on the node's row
 * goes at the end of the output line), as `opa fmt` places them.
 */
import type { Comment, Location, Term } from '../syntax/ast.js'
import { locationText } from '../syntax/source.js'
import { lastItemRow, newlines } from './layout.js'

/** Thrown when two comments would end the same output line; the caller falls back to source text. */
export class UnexpectedComment extends Error {}

type WriterState = Pick<Writer, 'out' | 'level' | 'inline' | 'head' | 'beforeEnd'>

/** A location whose row is all that matters (closing brackets found by scanning source text). */
export type RowLocation = Pick<Location, 'row'>

/**
 * Text buffer plus the pending comments of one module. Comments are sorted by row and consumed
 * from the front (`head`), so placing them costs constant time per node.
 */
export class Writer {
  out = ''
  level = 0
  inline = false
  /** A comment to print at the end of the current line. */
  beforeEnd: Comment | undefined
  /** When set, the next line end does not print `beforeEnd` (multi-line sequences). */
  delay = false
  readonly comments: Comment[]
  /** Index of the first comment not yet written. */
  head = 0
  /**
   * When set, nodes below this row place their comments as if they sat on it: comments written
   * between an `else` and its value then wait for the body (see `ModulePrinter.head`).
   */
  rowCap: number | undefined

  constructor(comments: Comment[]) {
    this.comments = comments
  }

  /** The state to go back to when printing a node fails and its source text is printed instead. */
  save(): WriterState {
    return {
      out: this.out,
      level: this.level,
      inline: this.inline,
      head: this.head,
      beforeEnd: this.beforeEnd,
    }
  }

  restore(state: WriterState): void {
    Object.assign(this, state)
  }

  /** Row of the next pending comment (Infinity when none is left). */
  nextCommentRow(): number {
    return this.comments[this.head]?.location?.row ?? Number.POSITIVE_INFINITY
  }

  /** The comments not yet written. */
  pending(): Comment[] {
    return this.comments.slice(this.head)
  }

  write(s: string): void {
    this.out += s
  }

  startLine(): void {
    this.inline = true
    this.out += '\t'.repeat(this.level)
  }

  endLine(): void {
    this.inline = false
    if (this.beforeEnd && !this.delay) {
      this.out += ` ${commentText(this.beforeEnd)}`
      this.beforeEnd = undefined
    }
    this.delay = false
    this.out += '\n'
  }

  blankLine(): void {
    if (this.inline) this.endLine()
    this.out += '\n'
  }

  writeLine(s: string): void {
    if (!this.inline) this.startLine()
    this.out += s
    this.endLine()
  }

  up(): void {
    this.level++
  }

  down(): void {
    if (this.level > 0) this.level--
  }

  startMultilineSeq(): void {
    this.endLine()
    this.up()
    this.startLine()
  }

  /** Writes the comments above `loc` and registers one on its row for the end of the line. */
  insertComments(node: RowLocation | undefined): void {
    const loc = node && this.rowCap !== undefined && node.row > this.rowCap ? { row: this.rowCap } : node
    if (!loc || this.nextCommentRow() > loc.row) return
    const before: Comment[] = []
    let at: Comment | undefined
    while (this.head < this.comments.length) {
      const c = this.comments[this.head] as Comment
      const row = (c.location as Location).row
      if (row < loc.row) before.push(c)
      else if (row === loc.row) at = c
      else break
      this.head++
    }
    // Mid-line, or with a comment waiting for the end of this line, there is no line above the
    // node to put them on: its expression or rule is printed as written instead (otherwise the
    // comments would run into each other on one line).
    if (before.length > 0 && (this.midLine() || (this.inline && this.beforeEnd)))
      throw new UnexpectedComment('comment inside a line')
    const wasInline = this.inline
    this.writeComments(before)
    const last = before[before.length - 1]
    if (last && loc.row - (last.location as Location).row > 1) this.blankLine()
    // The comments ended a line that had only its indentation: the node goes on a new one.
    if (last && wasInline && !this.inline) this.startLine()
    if (at) this.beforeLineEnd(at)
  }

  /** True when the current output line has more than its indentation. */
  private midLine(): boolean {
    return this.inline && this.out.slice(this.out.lastIndexOf('\n') + 1).trim() !== ''
  }

  /** Writes whole-line comments, keeping single blank lines between separated groups. */
  writeComments(comments: Comment[]): void {
    let inMetadata = false
    for (const [i, c] of comments.entries()) {
      const prev = comments[i - 1]
      if (prev) {
        const gap = (c.location as Location).row - (prev.location as Location).row
        if (gap > 1) {
          this.blankLine()
          inMetadata = false
        } else if (gap === 1 && inMetadata && isMetadataComment(c)) {
          this.blankLine()
        }
      }
      if (isMetadataComment(c)) inMetadata = true
      this.writeLine(commentText(c))
    }
  }

  beforeLineEnd(c: Comment): void {
    if (this.beforeEnd) {
      this.beforeEnd = undefined
      throw new UnexpectedComment(`two comments on one output line (row ${c.location?.row})`)
    }
    this.beforeEnd = c
  }

  /**
   * Writes `text`, the source of the node at `loc`, in place of its formatted form. Comments
   * inside the text are printed with it; comments above it are written first (the failed attempt
   * had consumed them), and one right after it on its last row still ends the output line.
   */
  writeSource(loc: Location, text: string, outermost = false): void {
    const inside = (c: Comment | undefined) =>
      !!c && isWithin(c.location, loc.offset, loc.offset + text.length)
    if (inside(this.beforeEnd)) this.beforeEnd = undefined
    // A comment waiting for the end of a line above would land after text of several lines, on
    // another line than its own: let the enclosing rule be printed as written instead.
    if (this.beforeEnd && !outermost && text.includes('\n')) {
      throw new UnexpectedComment('comment before a node printed as written')
    }
    // A comment inside the text that an earlier line already printed would be printed twice.
    for (let i = this.head - 1; !outermost && i >= 0; i--) {
      const c = this.comments[i] as Comment
      if ((c.location?.offset ?? 0) < loc.offset) break
      if (inside(c)) throw new UnexpectedComment('comment printed before its node')
    }
    const above: Comment[] = []
    while (this.nextCommentRow() < loc.row) above.push(this.comments[this.head++] as Comment)
    this.writeComments(above)
    if (!this.inline) this.startLine()
    this.write(text)
    while (inside(this.comments[this.head])) this.head++
    const next = this.comments[this.head]
    if (next && !this.beforeEnd && next.location?.row === loc.row + newlines(text)) {
      this.beforeEnd = next
      this.head++
    }
  }

  /** Removes and returns the pending comments inside `loc`'s text, one waiting for the line end too. */
  takeCommentsWithin(loc: Location): Comment[] {
    const end = loc.end ?? loc.offset
    const taken: Comment[] = []
    if (this.beforeEnd && isWithin(this.beforeEnd.location, loc.offset, end)) {
      taken.push(this.beforeEnd)
      this.beforeEnd = undefined
    }
    while (isWithin(this.comments[this.head]?.location, loc.offset, end))
      taken.push(this.comments[this.head++] as Comment)
    return taken
  }

  /**
   * True when a pending comment inside `loc`'s text sits on a row before `lastItemRow`: printing
   * the collection on one line would pull that later item onto the comment's line.
   */
  commentSplitsItems(loc: Location, items: Array<Term | [Term, Term]>): boolean {
    const from = loc.offset + 1
    const end = loc.end ?? loc.offset + (locationText(loc)?.length ?? 0)
    // Offsets first (cheap): rows only for comments inside the collection, which are rare.
    const inside: Location[] = []
    // The comment may already be waiting for the end of the line (registered by an enclosing node).
    const waiting = this.beforeEnd?.location
    if (waiting && isWithin(waiting, from, end)) inside.push(waiting)
    for (let i = this.head; i < this.comments.length; i++) {
      const c = (this.comments[i] as Comment).location
      if (!c || c.offset >= end) break
      if (isWithin(c, from, end)) inside.push(c)
    }
    if (inside.length === 0) return false
    const last = lastItemRow(items)
    return inside.some((c) => c.row < last)
  }
}

function isWithin(loc: Location | undefined, start: number, end: number): boolean {
  return loc !== undefined && loc.offset >= start && loc.offset < end
}

/** `#` plus the comment text without trailing whitespace. */
export function commentText(c: Comment): string {
  return `#${c.text.trimEnd()}`
}

function isMetadataComment(c: Comment): boolean {
  return c.text.trim() === 'METADATA'
}

/**
 * The row of the bracket that closes the first `open` in `loc`'s text (optionally after skipping a
 * first `skipOpen ... skipClose` group, as for rule heads with arguments). Row -1 when not found.
 */
export function closingRow(
  loc: Location | undefined,
  open: string,
  close: string,
  skip?: [string, string],
): RowLocation {
  if (!loc) return { row: -1 }
  const text = locationText(loc) ?? ''
  let i = 0
  let offset = 0
  if (skip) {
    i = text.indexOf(skip[0])
    if (i === -1) return { row: -1 }
    let depth = 1
    while (depth > 0) {
      i++
      if (i >= text.length) return { row: -1 }
      const ch = text[i]
      if (ch === skip[0]) depth++
      else if (ch === skip[1]) depth--
      else if (ch === '\n') offset++
    }
  }
  for (; i < text.length; i++) {
    if (text[i] === open) break
    if (text[i] === '\n') offset++
  }
  if (i >= text.length) return { row: -1 }
  let depth = 1
  while (depth > 0) {
    i++
    if (i >= text.length) return { row: -1 }
    const ch = text[i]
    if (ch === open) depth++
    else if (ch === close) depth--
    else if (ch === '\n') offset++
  }
  return { row: loc.row + offset }
}

/**
 * The output side of the formatter: a text buffer with tab indentation, line starts and ends, and
 * comment placement by source row (comments above a node go before it; a comment on the node's row
 * goes at the end of the output line), as `opa fmt` places them.
 */
import type { Comment, Location } from '../syntax/ast.js'
import { locationText } from '../syntax/source.js'

/** Thrown when two comments would end the same output line; the caller falls back to source text. */
export class UnexpectedComment extends Error {}

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

  constructor(comments: Comment[]) {
    this.comments = comments
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
  insertComments(loc: RowLocation | undefined): void {
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
    this.writeComments(before)
    const last = before[before.length - 1]
    if (last && loc.row - (last.location as Location).row > 1) this.blankLine()
    if (at) this.beforeLineEnd(at)
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

  /** Skips pending comments on rows up to `toRow` (already printed as source text). */
  skipCommentsThrough(toRow: number): void {
    while (this.nextCommentRow() <= toRow) this.head++
  }
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

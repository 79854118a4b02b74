/**
 * A Rego source text with its file name, and the position helpers every stage needs: offsets to
 * rows and columns, the line under a location, and the caret excerpt shown under error messages.
 */
import type { Location, LocationSource } from './ast.js'

/** The offending line and the caret position within it, as OPA's parser error `details`. */
export interface Excerpt {
  /** The source line, without its line break. */
  line: string
  /** Index of the caret within `line` (0-based). */
  idx: number
}

/**
 * A location as OPA's Location.String() prints it in an evaluation error: `file:row`, else the
 * located text (a query's expression, `1/0`), else `row:col`.
 */
export function locationString(location: Location): string {
  if (location.file) return `${location.file}:${location.row}`
  const text = locationText(location)
  return text ? text : `${location.row}:${location.col}`
}

/**
 * The source text of a location: sliced from its file when the parser made it (`source` and `end`),
 * else the `text` it was given; undefined when neither is there.
 */
export function locationText(location: Location | undefined): string | undefined {
  if (location === undefined) return undefined
  const source = location.source
  if (source !== undefined && location.end !== undefined) {
    const text = source.text as string | undefined
    if (text !== undefined) return text.slice(location.offset, location.end)
  }
  return location.text
}

/**
 * A location the parser made: the file's `Source` and the offsets of the located text, nothing else.
 * `file`, `row` and `col` are read from the `Source` (its line table) when asked for, and the text
 * with `locationText`. A large policy makes about 270k locations per MB that all live as long as
 * the AST, and the garbage collector copies each of them twice: three fields (48 bytes) instead of
 * six (72) make the AST's heap 12% smaller (docs/parser-performance.md).
 *
 * Copy ASTs with copy.ts, which shares locations: a spread or `structuredClone` of a location keeps
 * only `source`, `offset` and `end`. `JSON.stringify` gives `{file, row, col, offset, end}`.
 */
export class SourceLocation implements Location {
  readonly source: Source
  readonly offset: number
  /** End offset (exclusive) of the located text. */
  readonly end: number

  constructor(source: Source, offset: number, end: number) {
    this.source = source
    this.offset = offset
    this.end = end
  }

  get file(): string {
    return this.source.file
  }

  get row(): number {
    return this.source.lineIndex(this.offset) + 1
  }

  get col(): number {
    return this.source.column(this.offset)
  }

  toJSON(): { file: string; row: number; col: number; offset: number; end: number } {
    return { file: this.file, row: this.row, col: this.col, offset: this.offset, end: this.end }
  }
}

/**
 * The location of the end of the text. As OPA's scanner, which leaves its position on the last
 * character it read, the column is one less than that of the offset (0 after a final line break).
 */
export class EofLocation extends SourceLocation {
  override get col(): number {
    return this.source.column(this.offset) - 1
  }
}

/** One source file. Row and column numbers are 1-based, as OPA reports them. */
export class Source implements LocationSource {
  readonly file: string
  /** The text, in a private field: copies of locations (spread, `structuredClone`) never hold it. */
  readonly #text: string
  #lineStarts: number[] | undefined
  #lastLine = 0

  constructor(file: string, text: string) {
    this.file = file
    this.#text = text
  }

  get text(): string {
    return this.#text
  }

  /** Left out of JSON: `JSON.stringify` of a location gives its fields, not the whole file. */
  toJSON(): undefined {
    return undefined
  }

  /** Offsets at which each line starts (computed once, on first use). */
  get lineStarts(): number[] {
    if (this.#lineStarts) return this.#lineStarts
    const starts = [0]
    const text = this.text
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1)
    this.#lineStarts = starts
    return starts
  }

  /** The 0-based index of the line that holds `offset`. */
  lineIndex(offset: number): number {
    const starts = this.lineStarts
    // Locations are mostly read in order (formatter, annotations): try the last line found first.
    const last = this.#lastLine
    if (
      (starts[last] as number) <= offset &&
      (last + 1 === starts.length || (starts[last + 1] as number) > offset)
    )
      return last
    let lo = 0
    let hi = starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if ((starts[mid] as number) <= offset) lo = mid
      else hi = mid - 1
    }
    this.#lastLine = lo
    return lo
  }

  /** The 1-based column of `offset`. */
  column(offset: number): number {
    return offset - (this.lineStarts[this.lineIndex(offset)] as number) + 1
  }

  /** The 1-based row and column of `offset`. */
  position(offset: number): { row: number; col: number } {
    const line = this.lineIndex(offset)
    return { row: line + 1, col: offset - (this.lineStarts[line] as number) + 1 }
  }

  /** A location covering `[start, end)`. */
  location(start: number, end: number): Location {
    return new SourceLocation(this, start, end)
  }

  /** The text of 1-based line `row`, without its line break. */
  line(row: number): string {
    const starts = this.lineStarts
    const start = starts[row - 1]
    if (start === undefined) return ''
    const next = starts[row]
    let end = next === undefined ? this.text.length : next - 1
    if (end > start && this.text.charCodeAt(end - 1) === 13) end--
    return this.text.slice(start, end)
  }

  /**
   * The line under `location` and the caret index within it. At the end of the text, as OPA's
   * parser error details, the caret goes back to the last character that is not white space.
   */
  excerpt(location: Pick<Location, 'row' | 'col'> & { offset?: number }): Excerpt {
    const text = this.text
    if (location.offset !== undefined && location.offset >= text.length && text.length > 0) {
      let last = text.length - 1
      while (last > 0 && /\s/.test(text[last] as string)) last--
      const { row, col } = this.position(last)
      return { line: this.line(row), idx: col - 1 }
    }
    const line = this.line(location.row)
    return { line, idx: Math.max(0, Math.min(location.col - 1, line.length)) }
  }
}

/**
 * Renders an excerpt as two lines, as OPA's error details print: the source line without its
 * leading tabs, and a caret under the column, indented with spaces.
 *
 * @example
 * excerptLines({ line: '\tx := ]', idx: 6 }) // ['x := ]', '     ^']
 */
export function excerptLines(excerpt: Excerpt): [string, string] {
  const line = excerpt.line.replace(/^\t+/, '')
  const indent = Math.max(0, excerpt.idx - (excerpt.line.length - line.length))
  return [line, `${' '.repeat(indent)}^`]
}

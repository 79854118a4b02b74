/**
 * A Rego source text with its file name, and the position helpers every stage needs: offsets to
 * rows and columns, the line under a location, and the caret excerpt shown under error messages.
 */
import type { Location } from './ast.js'

/** The offending line and the caret position within it, as OPA's parser error `details`. */
export interface Excerpt {
  /** The source line, without its line break. */
  line: string
  /** Index of the caret within `line` (0-based). */
  idx: number
}

/**
 * A location whose `text` is sliced from the source only when read. Parsing a large policy creates
 * millions of locations; not materialising their text up front roughly halves the garbage the parser
 * produces. The source is held in a private field, so copies (spread, `structuredClone`, JSON) never
 * drag the whole file along; they keep `file`, `row`, `col` and `offset`.
 */
export class SourceLocation implements Location {
  file: string
  row: number
  col: number
  offset: number
  /** End offset (exclusive) of the located text. */
  end: number
  #source: string

  constructor(source: string, file: string, row: number, col: number, offset: number, end: number) {
    this.file = file
    this.row = row
    this.col = col
    this.offset = offset
    this.end = end
    this.#source = source
  }

  get text(): string {
    return this.#source.slice(this.offset, this.end)
  }

  /** Replaces the text (rare: generated nodes); the location then describes `text` alone. */
  set text(text: string) {
    this.#source = text
    this.offset = 0
    this.end = text.length
  }
}

/** One source file. Row and column numbers are 1-based, as OPA reports them. */
export class Source {
  readonly file: string
  readonly text: string
  #lineStarts: number[] | undefined

  constructor(file: string, text: string) {
    this.file = file
    this.text = text
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

  /** The 1-based row and column of `offset`. */
  position(offset: number): { row: number; col: number } {
    const starts = this.lineStarts
    let lo = 0
    let hi = starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if ((starts[mid] ?? 0) <= offset) lo = mid
      else hi = mid - 1
    }
    return { row: lo + 1, col: offset - (starts[lo] ?? 0) + 1 }
  }

  /** A location covering `[start, end)`. */
  location(start: number, end: number): Location {
    const { row, col } = this.position(start)
    return new SourceLocation(this.text, this.file, row, col, start, end)
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

  /** The line under `location` and the caret index within it. */
  excerpt(location: Pick<Location, 'row' | 'col'>): Excerpt {
    const line = this.line(location.row)
    return { line, idx: Math.max(0, Math.min(location.col - 1, line.length)) }
  }
}

/**
 * Renders an excerpt as two lines: the source line and a caret under the column. Tabs before the
 * caret are kept so the caret lines up in a terminal.
 *
 * @example
 * excerptLines({ line: '\tx := ]', idx: 6 }) // ['\tx := ]', '\t     ^']
 */
export function excerptLines(excerpt: Excerpt): [string, string] {
  let pad = ''
  for (let i = 0; i < excerpt.idx; i++) pad += excerpt.line[i] === '\t' ? '\t' : ' '
  return [excerpt.line, `${pad}^`]
}

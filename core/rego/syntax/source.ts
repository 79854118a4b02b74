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
 * The source text of a location: sliced from its file when the parser made it (`source` and `end`),
 * else the `text` it was given; undefined when neither is there (a location rebuilt by
 * `structuredClone`, whose `source` has lost the text).
 *
 * The parser makes millions of locations for a large policy, so they are plain object literals
 * (which V8 can allocate directly in the old generation) holding offsets and the shared `Source`,
 * and their text is only sliced when asked for.
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

/** One source file. Row and column numbers are 1-based, as OPA reports them. */
export class Source implements LocationSource {
  readonly file: string
  /** The text, in a private field: copies of locations (spread, `structuredClone`) never hold it. */
  readonly #text: string
  #lineStarts: number[] | undefined

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
    return { file: this.file, row, col, offset: start, end, source: this }
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

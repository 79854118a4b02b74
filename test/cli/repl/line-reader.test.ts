/** The shell's bracket scan (when a statement continues) and the reader over a piped stream. */
import { Readable, Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { bracketsOpen, LineReader, openState } from '../../../cli/repl/line-reader.js'

describe('openState', () => {
  it.each([
    ['allow if {', 1],
    ['[1, {"a": (2', 3],
    ['f(x) := y if { y := x }', 0],
    ['}', -1],
  ])('counts open brackets in %j', (text, depth) => {
    expect(openState(text)).toEqual({ depth, inRawString: false })
  })

  it('skips brackets inside strings, escapes and comments', () => {
    expect(openState('x := "{[(\\"" # ({[')).toEqual({ depth: 0, inRawString: false })
    expect(bracketsOpen('msg := "unterminated {')).toBe(false)
  })

  it('continues inside a raw string, which may span lines', () => {
    expect(openState('x := `a {')).toEqual({ depth: 0, inRawString: true })
    expect(bracketsOpen('x := `a {\nb`')).toBe(false)
  })
})

describe('LineReader', () => {
  it('yields the lines of a piped stream and writes no prompt', async () => {
    let written = ''
    const output = new Writable({
      write(chunk, _encoding, done) {
        written += String(chunk)
        done()
      },
    })
    const reader = new LineReader(
      { input: Readable.from(['a\r\nb\n', 'c']), output, terminal: false },
      () => {},
    )
    const lines: string[] = []
    reader.prompt(false)
    for await (const line of reader.lines()) {
      lines.push(line)
      reader.prompt(true)
    }
    expect(lines).toEqual(['a', 'b', 'c'])
    expect(written).toBe('')
  })
})

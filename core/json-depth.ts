/**
 * How deep a JSON text nests, found without parsing it: a body nested 100,000 levels deep
 * parses (V8's JSON.parse is iterative) but overflows the stack of everything recursive that
 * touches the value afterwards (serialising, forwarding, storing). Checked at intake, it is
 * refused before any of that.
 */

/**
 * The character offset where `text` first opens an array or object deeper than `maxDepth`, or
 * -1 when it never does. Brackets inside strings do not count; the text is not otherwise
 * validated (the parser that follows does that).
 * @example jsonDepthExceeded('{"a":[[1]]}', 2) // 6
 */
export function jsonDepthExceeded(text: string, maxDepth: number): number {
  let depth = 0
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22 /* " */) {
      i = endOfString(text, i)
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return i
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--
    }
  }
  return -1
}

// The offset of the quote that closes the string opened at `open` (the end of the text if none).
function endOfString(text: string, open: number): number {
  let at = open
  for (;;) {
    at = text.indexOf('"', at + 1)
    if (at === -1) return text.length
    let backslashes = 0
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++
    if (backslashes % 2 === 0) return at
  }
}

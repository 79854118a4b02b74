/**
 * Indents JSON text without parsing it into values, so numbers stay exactly as sent: the
 * service keeps numbers beyond 2^53 (request ids, nanosecond times) as written, and
 * `JSON.parse` would round them. Text that is not JSON comes back unchanged.
 */
export function indentJsonText(text: string, indent = '  '): string {
  let out = ''
  let depth = 0
  let inString = false
  let unbalanced = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (inString) {
      out += ch
      if (ch === '\\') {
        out += text[i + 1] ?? ''
        i++
      } else if (ch === '"') inString = false
      continue
    }
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') continue
    if (ch === '"') {
      inString = true
      out += ch
    } else if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']'
      // An empty object or array stays on its line.
      let j = i + 1
      while (j < text.length && /\s/.test(text[j]!)) j++
      if (text[j] === close) {
        out += ch + close
        i = j
        continue
      }
      depth++
      out += `${ch}\n${indent.repeat(depth)}`
    } else if (ch === '}' || ch === ']') {
      if (depth === 0) unbalanced = true
      depth = Math.max(0, depth - 1)
      out += `\n${indent.repeat(depth)}${ch}`
    } else if (ch === ',') {
      out += `,\n${indent.repeat(depth)}`
    } else if (ch === ':') {
      out += ': '
    } else {
      out += ch
    }
  }
  return inString || unbalanced || depth !== 0 ? text : out
}

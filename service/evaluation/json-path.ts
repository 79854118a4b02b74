/**
 * `jsonpath` of the data API: extracts parts of the result with jsonpath-plus (its safe evaluator
 * for filter expressions, never JavaScript's). The library reads malformed paths leniently (`$[`
 * matches the root), so the path is checked first: it starts with `$`, and brackets, parentheses
 * and quotes close.
 */
import { JSONPath } from 'jsonpath-plus'

/** A malformed path, with what is wrong. */
export class JsonPathError extends Error {}

/** Throws JsonPathError when `path` is not well formed (see the file comment). */
export function checkJsonPath(path: string): void {
  if (!path.startsWith('$')) throw new JsonPathError('must start with $ (the root of the result)')
  const open: string[] = []
  let quote: string | undefined
  for (let i = 0; i < path.length; i++) {
    const ch = path[i]!
    if (quote) {
      if (ch === '\\') i++
      else if (ch === quote) quote = undefined
      continue
    }
    if (ch === "'" || ch === '"') quote = ch
    else if (ch === '[' || ch === '(') open.push(ch === '[' ? ']' : ')')
    else if (ch === ']' || ch === ')') {
      if (open.pop() !== ch) throw new JsonPathError(`unexpected ${ch} at offset ${i}`)
    }
  }
  if (quote) throw new JsonPathError(`unclosed ${quote} quote`)
  if (open.length > 0) throw new JsonPathError(`missing ${open.at(-1)} at the end`)
}

/** Every match of `path` in `json`, as an array (empty when nothing matches). */
export function extractJsonPath(path: string, json: unknown): unknown[] {
  checkJsonPath(path)
  try {
    return JSONPath({ path, json: json as object, wrap: true, eval: 'safe' }) as unknown[]
  } catch (err) {
    throw new JsonPathError(err instanceof Error ? err.message.replace(/^jsonPath: /, '') : String(err))
  }
}

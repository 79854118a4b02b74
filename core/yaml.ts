/**
 * The one reader of untrusted YAML (request bodies, bundle data files, `yaml.unmarshal`), linear in
 * the size of the text.
 *
 * Built on js-yaml, which constructs values straight from the text (about 1 µs a key; the `yaml`
 * package's document tree cost about 11 µs a key, and its own duplicate-key check was quadratic).
 * The scalar rules are the `yaml` package's, copied in ./yaml-schema.ts, so values did not change.
 *
 * Bounds: `maxNodes` refuses a document with too many nodes while it is being read (js-yaml's
 * listener sees every node as it opens); nesting is bounded (MAX_DEPTH); an alias inside the node it
 * names (`a: &x [*x]`) is refused instead of returning a circular value; and since js-yaml shares one
 * value between an anchor and its aliases, the size of the value as copied out (a billion-laughs
 * document: 9^9 nodes from 100) is counted and bounded too.
 */
import type { State } from 'js-yaml'
import { yamlLibrary } from './yaml-library.js'
import { findLoop } from './yaml-loops.js'
import { schemaFor } from './yaml-schema.js'

/** Default of `maxNodes`: about 100,000 keys (a key and its value are two nodes). */
export const DEFAULT_MAX_YAML_NODES = 200_000

/** Collections nested deeper than this are refused (the `yaml` package overflowed its stack near 850). */
const MAX_DEPTH = 2_000

/** How to read a YAML text. */
export interface YamlReadOptions {
  /** '1.1' reads `yes`/`no`/`on`/`off` as booleans, as Go's YAML library (and OPA) does. */
  version?: '1.1' | '1.2'
  /** Integers as bigint, for callers that keep every digit. */
  intAsBigInt?: boolean
  /** Maps as `Map` instead of plain objects (keys are strings, as js-yaml reads them). */
  mapAsMap?: boolean
  /** Timestamps stay strings (`2001-12-14`), as Go reads them into interface{}. */
  timestampsAsStrings?: boolean
  /** Nodes (keys, values, sequence items, aliases, nested collections) allowed; Infinity for no bound. */
  maxNodes?: number
  /** A repeated mapping key keeps its last value instead of failing (go-yaml v2 outside strict mode). */
  lastKeyWins?: boolean
}

/** What is wrong with a YAML text. `too_many_nodes` is a size refusal (413), the others bad input. */
export type YamlErrorKind = 'syntax' | 'duplicate_key' | 'too_many_nodes' | 'alias' | 'self_reference'

/** A YAML text that cannot be read; `line`/`column` (1-based) when the place is known. */
export class YamlError extends Error {
  constructor(
    readonly kind: YamlErrorKind,
    /** The reason without the place. */
    readonly reason: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(line === undefined ? reason : `${reason} at line ${line}, column ${column}`)
    this.name = 'YamlError'
  }

  /** ` at line L, column C` or ''. */
  get where(): string {
    return this.line === undefined ? '' : ` at line ${this.line}, column ${this.column}`
  }
}

/** js-yaml's reader state as its listener sees it; `depth` is 1 at a document's root node. */
interface ReaderState extends State {
  depth: number
}

/**
 * The value of a one-document YAML text (`null` for an empty text).
 * @throws YamlError naming the line and column where it can.
 * @example readYaml('a: 1\na: 2\n') // throws YamlError duplicate_key "map keys must be unique: a" at line 2, column 1
 */
export function readYaml(text: string, options: YamlReadOptions = {}): unknown {
  const maxNodes = options.maxNodes ?? DEFAULT_MAX_YAML_NODES
  const tooMany = (offset: number) =>
    placed(
      'too_many_nodes',
      `the document has more than ${maxNodes} nodes (keys, values and items)`,
      text,
      offset,
    )
  // js-yaml reads an empty sequence item (`-` alone on its line) without a node event: count them first.
  const empty = emptyItems(text, maxNodes)
  if (empty.count > maxNodes) throw tooMany(empty.pastBound)
  let nodes = empty.count
  let documents = 0
  let lastOpen = -1
  const listener = (event: string, state: State): void => {
    if (event !== 'open') {
      lastOpen = -1
      return
    }
    const at = state as ReaderState
    if (at.depth === 1 && ++documents > 1) {
      throw placed('syntax', 'the text holds more than one document', text, at.position)
    }
    // A node in block context opens twice at one place (once more to see whether it is a map's
    // key): count it once, so a key and its value are two nodes and a top-level map none.
    if (at.position !== lastOpen && ++nodes > maxNodes) throw tooMany(at.position)
    lastOpen = at.position
  }
  let value: unknown
  try {
    const schema = schemaFor({
      version: declaredVersion(text) ?? options.version ?? '1.2',
      intAsBigInt: options.intAsBigInt ?? false,
      timestampsAsStrings: options.timestampsAsStrings ?? false,
    })
    // js-yaml's `json` mode lets a later duplicate key override an earlier one (its only effect).
    const json = options.lastKeyWins === true
    const { load } = yamlLibrary()
    value = load(text, { schema, listener, maxDepth: MAX_DEPTH, json } as Parameters<typeof load>[1])
  } catch (err) {
    throw asYamlError(err, text)
  }
  if (value === undefined) return null // no document at all: an empty text or only comments
  // Without an alias (`*`) nothing is shared, so no loop and nothing to expand.
  if (text.includes('*')) {
    const loop = findLoop(value)
    if (loop !== undefined) {
      throw new YamlError('self_reference', `the alias at ${loop} refers to a node that contains it`)
    }
    const bound = nodes + (Number.isFinite(maxNodes) ? maxNodes : DEFAULT_MAX_YAML_NODES)
    if (expandedSize(value, bound) > bound) {
      throw new YamlError('alias', `the document's aliases expand it past ${bound} nodes`)
    }
  }
  return options.mapAsMap ? toMaps(value, new Map()) : value
}

/**
 * Sequence items with no content (`-` alone on its line, maybe with a comment), and the offset of
 * the one past `bound`. An item whose content starts on the next line counts here and again as node.
 */
function emptyItems(text: string, bound: number): { count: number; pastBound: number } {
  let count = 0
  let pastBound = -1
  for (let dash = text.indexOf('-'); dash !== -1; dash = text.indexOf('-', dash + 1)) {
    let before = dash - 1
    while (before >= 0 && (text[before] === ' ' || text[before] === '\t')) before--
    if (before >= 0 && text[before] !== '\n' && text[before] !== '\r') continue
    let after = dash + 1
    while (after < text.length && (text[after] === ' ' || text[after] === '\t')) after++
    const next = text[after]
    if (after === text.length || next === '\n' || next === '\r' || (next === '#' && after > dash + 1)) {
      if (++count === bound + 1) pastBound = dash
    }
  }
  return { count, pastBound }
}

/** The version a `%YAML 1.1` or `%YAML 1.2` directive declares: it outweighs the caller's choice. */
function declaredVersion(text: string): '1.1' | '1.2' | undefined {
  if (!text.includes('%YAML')) return undefined
  return (/^%YAML[ \t]+(1\.[12])(?:[ \t#]|$)/m.exec(text)?.[1] as '1.1' | '1.2' | undefined) ?? undefined
}

/** A YamlError placed at a character offset of `text`. */
function placed(kind: YamlErrorKind, reason: string, text: string, offset: number): YamlError {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return new YamlError(kind, reason, line, offset - lineStart + 1)
}

function asYamlError(err: unknown, text: string): unknown {
  if (err instanceof YamlError) return err
  if (err instanceof RangeError) return new YamlError('syntax', 'the document is nested too deeply')
  if (!(err instanceof yamlLibrary().YAMLException)) return err
  const mark = err.mark as { line: number; column: number; position: number } | undefined
  // js-yaml reads the text with a final newline added: an error at its end is at the text's end.
  const end = mark && mark.position >= text.length ? placed('syntax', '', text, text.length) : undefined
  const [line, column] = end
    ? [end.line, end.column]
    : mark
      ? [mark.line + 1, mark.column + 1]
      : [undefined, undefined]
  if (err.reason === 'duplicated mapping key' && mark) {
    const reason = `map keys must be unique: ${keyAt(text, mark.position)}`
    return new YamlError('duplicate_key', reason, line, column)
  }
  if (err.reason.startsWith('unidentified alias')) {
    return new YamlError('alias', `${err.reason} (an alias must follow its anchor)`, line, column)
  }
  if (err.reason.startsWith('nesting exceeded maxDepth')) {
    return new YamlError('syntax', 'the document is nested too deeply', line, column)
  }
  return new YamlError('syntax', err.reason, line, column)
}

/** The text of the key that starts at `offset` (js-yaml places a duplicate key's error there). */
function keyAt(text: string, offset: number): string {
  const quote = text[offset]
  if (quote === '"' || quote === "'") {
    let end = offset + 1
    while (end < text.length && text[end] !== quote) end += text[end] === '\\' && quote === '"' ? 2 : 1
    const body = text.slice(offset + 1, end)
    return quote === "'" ? body : body.replace(/\\(.)/g, '$1')
  }
  const rest = text.slice(offset, offset + 1024)
  const end = rest.search(/:(?:[ \t\r\n]|$)|[,}\]\r\n]| #/)
  return (end === -1 ? rest : rest.slice(0, end)).trim()
}

/**
 * Nodes of `value` counted as if every alias were copied out (an anchor's value counts once per
 * use), stopping past `bound`: a billion-laughs document stops after `bound` steps, not 9^9.
 */
function expandedSize(value: unknown, bound: number): number {
  let count = 0
  const pending: unknown[] = [value]
  while (pending.length > 0 && count <= bound) {
    const node = pending.pop()
    count++
    if (node === null || typeof node !== 'object' || ArrayBuffer.isView(node) || node instanceof Date)
      continue
    if (Array.isArray(node)) for (const item of node) pending.push(item)
    else if (node instanceof Map) for (const [k, v] of node) pending.push(k, v)
    else if (node instanceof Set) for (const item of node) pending.push(item)
    else
      for (const child of Object.values(node)) {
        count++ // its key
        pending.push(child)
      }
  }
  return count
}

/** The value with its plain objects as Maps; a value shared by aliases stays shared. */
function toMaps(value: unknown, done: Map<object, unknown>): unknown {
  if (value === null || typeof value !== 'object') return value
  const seen = done.get(value)
  if (seen !== undefined) return seen
  if (Array.isArray(value)) {
    const list: unknown[] = []
    done.set(value, list)
    for (const item of value) list.push(toMaps(item, done))
    return list
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) {
    if (value instanceof Map) {
      const map = new Map<unknown, unknown>()
      done.set(value, map)
      for (const [k, v] of value) map.set(k, toMaps(v, done))
      return map
    }
    return value // Set, Date, Uint8Array
  }
  const map = new Map<string, unknown>()
  done.set(value, map)
  for (const [k, v] of Object.entries(value)) map.set(k, toMaps(v, done))
  return map
}

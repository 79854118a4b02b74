/**
 * TEST FIXTURE ONLY: readYaml as it was on the `yaml` package, before core/yaml.ts moved to js-yaml.
 * test/core/yaml-differential.test.ts reads a corpus with both and lists every difference.
 * Not imported by production code.
 */
import {
  Composer,
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  type ParsedNode,
  Parser,
  type Tags,
  YAMLParseError,
} from 'yaml'
import { findLoop } from '../../core/yaml-loops.js'

/** Default of `maxNodes`: about 100,000 keys (a key and its value are two nodes). */
export const DEFAULT_MAX_YAML_NODES = 200_000

/** Aliases a document may expand, as the yaml package counts them (a billion-laughs guard). */
const MAX_ALIAS_COUNT = 100

const TIMESTAMP_TAG = 'tag:yaml.org,2002:timestamp'

/** How to read a YAML text. */
export interface YamlReadOptions {
  /** '1.1' reads `yes`/`no`/`on`/`off` as booleans, as Go's YAML library (and OPA) does. */
  version?: '1.1' | '1.2'
  /** Integers as bigint, for callers that keep every digit. */
  intAsBigInt?: boolean
  /** Maps as `Map` (keys keep their type) instead of plain objects. */
  mapAsMap?: boolean
  /** Timestamps stay strings (`2001-12-14`), as Go reads them into interface{}. */
  timestampsAsStrings?: boolean
  /** Nodes (scalars, aliases, collections, sequence items) allowed; Infinity for no bound. */
  maxNodes?: number
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

/**
 * The value of a one-document YAML text (`null` for an empty text).
 * @throws YamlError naming the line and column where it can.
 * @example readYaml('a: 1\na: 2\n') // throws YamlError duplicate_key "map keys must be unique: a" at line 2, column 1
 */
export function readYaml(text: string, options: YamlReadOptions = {}): unknown {
  const lines = new LineCounter()
  const doc = composeDocument(text, options, lines)
  const first = doc.errors[0]
  if (first) {
    const pos = lines.linePos(first.pos[0])
    // The package's messages end with their own place and a source excerpt; keep the reason only.
    const reason = first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')
    throw new YamlError('syntax', reason, pos.line, pos.col)
  }
  checkUniqueKeys(doc, lines)
  let value: unknown
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT, mapAsMap: options.mapAsMap ?? false })
  } catch (err) {
    if (err instanceof RangeError) throw new YamlError('syntax', 'the document is nested too deeply')
    throw new YamlError('alias', (err as Error).message)
  }
  const loop = findLoop(value)
  if (loop !== undefined) {
    throw new YamlError('self_reference', `the alias at ${loop} refers to a node that contains it`)
  }
  return value
}

/** Lexes, parses and composes the first document, counting nodes as the lexer finds them. */
function composeDocument(text: string, options: YamlReadOptions, lines: LineCounter): Document.Parsed {
  const maxNodes = options.maxNodes ?? DEFAULT_MAX_YAML_NODES
  const composer = new Composer({
    version: options.version ?? '1.2',
    intAsBigInt: options.intAsBigInt ?? false,
    uniqueKeys: false,
    customTags: options.timestampsAsStrings ? withoutTimestamps : undefined,
  })
  const parser = new Parser(lines.addNewLine)
  function* tokens() {
    let nodes = 0
    lines.addNewLine(0) // as Parser.parse() does: the first line starts at 0
    for (const lexeme of new Lexer().lex(text)) {
      if (countsAsNode(lexeme) && ++nodes > maxNodes) {
        const pos = lines.linePos(parser.offset)
        throw new YamlError(
          'too_many_nodes',
          `the document has more than ${maxNodes} nodes (keys, values and items)`,
          pos.line,
          pos.col,
        )
      }
      yield* parser.next(lexeme)
    }
    yield* parser.end()
  }
  let doc: Document.Parsed | undefined
  try {
    for (const next of composer.compose(tokens(), true, text.length)) {
      if (doc) {
        const at: [number, number] = [next.range[0], next.range[1]]
        doc.errors.push(new YAMLParseError(at, 'MULTIPLE_DOCS', 'the text holds more than one document'))
        break
      }
      doc = next
    }
  } catch (err) {
    if (err instanceof RangeError) throw new YamlError('syntax', 'the document is nested too deeply')
    throw err
  }
  // compose(…, forceDoc = true) always yields a document, even for an empty text.
  return doc as Document.Parsed
}

function withoutTimestamps(tags: Tags): Tags {
  return tags.filter((tag) => typeof tag === 'string' || tag.tag !== TIMESTAMP_TAG)
}

// The lexer marks plain and block scalars with '\x1f' before their text; quoted scalars start with
// their quote, aliases with '*'; flow collections and sequence items are their indicators. Block
// maps have no token of their own: their keys count.
function countsAsNode(lexeme: string): boolean {
  switch (lexeme) {
    case '\x1f':
    case '-':
    case '{':
    case '[':
      return true
    default: {
      const first = lexeme.charCodeAt(0)
      return first === 34 /* " */ || first === 39 /* ' */ || (first === 42 /* * */ && lexeme.length > 1)
    }
  }
}

/** Refuses a map with two equal scalar keys, one Set per map: linear in the number of keys. */
function checkUniqueKeys(doc: Document.Parsed, lines: LineCounter): void {
  const pending: unknown[] = [doc.contents]
  while (pending.length > 0) {
    const node = pending.pop()
    if (isMap(node)) {
      const seen = new Set<unknown>()
      for (const pair of node.items) {
        const key = pair.key as ParsedNode | null
        // Non-scalar keys are equal only to themselves, as the package's own check has it.
        if (isScalar(key)) {
          if (seen.has(key.value)) {
            const pos = lines.linePos(key.range[0])
            throw new YamlError(
              'duplicate_key',
              `map keys must be unique: ${String(key.source ?? key.value)}`,
              pos.line,
              pos.col,
            )
          }
          seen.add(key.value)
        } else if (key) pending.push(key)
        pending.push(pair.value)
      }
    } else if (isSeq(node)) {
      for (const item of node.items) pending.push(isPair(item) ? item.value : item)
    }
  }
}

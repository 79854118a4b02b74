/**
 * `# METADATA` blocks: finding them among a module's comments, reading their YAML, and attaching
 * them to the package or rule that follows, with OPA's rules for scopes and placement.
 *
 * A block starts with a comment whose text begins with `METADATA` and continues over comments on
 * the following lines that start at column 1, up to the next `METADATA` line. It applies to the
 * first statement after its first line. Scope defaults to `package` before a package and to `rule` (`document` for entrypoints)
 * before a rule. Rules also get, in `rule.annotations`, the `document`-scoped blocks of every rule
 * with the same path and the `rule`-scoped block written just before them.
 */
import { readYaml, YamlError } from '../../yaml.js'
import { parseError, type RegoError } from '../errors.js'
import type {
  AnnotationScope,
  Annotations,
  Author,
  Comment,
  CompileAnnotation,
  Location,
  Module,
  RelatedResource,
  Rule,
  SchemaAnnotation,
  Term,
} from './ast.js'
import { parseTermText } from './query.js'
import type { Source } from './source.js'

const SCOPES = new Set(['package', 'rule', 'document', 'subpackages'])

interface Block {
  start: Comment
  lines: Comment[]
}

/** A comment that opens a block (as `text.trim().startsWith('METADATA')`, without a trimmed copy). */
const METADATA_START = /^\s*METADATA/

/** Finds the METADATA blocks among comments (in source order). */
export function metadataBlocks(comments: Comment[]): Block[] {
  const blocks: Block[] = []
  let current: Block | undefined
  let prev: Comment | undefined
  for (const c of comments) {
    const loc = c.location as Location
    const opens = METADATA_START.test(c.text)
    // A `# METADATA` line opens a block of its own even right below another block.
    if (!opens && current && prev && loc.row === (prev.location as Location).row + 1 && loc.col === 1) {
      current.lines.push(c)
      prev = c
      continue
    }
    current = undefined
    if (opens) {
      current = { start: c, lines: [] }
      blocks.push(current)
    }
    prev = c
  }
  return blocks
}

/** Parses every METADATA block of `module`, attaches them, and returns the errors found. */
export function attachAnnotations(module: Module, source: Source): RegoError[] {
  const errors: RegoError[] = []
  const fail = (loc: Location, message: string) => errors.push(parseError(loc, message, source.excerpt(loc)))
  const blocks = metadataBlocks(module.comments)
  // Most modules have no METADATA block: then no statement list is built.
  if (blocks.length === 0) return errors
  type Statement = { kind: 'package' | 'import' | 'rule'; row: number; rule?: Rule }
  const statements: Statement[] = [
    { kind: 'package' as const, row: module.package.location?.row ?? 0 },
    ...module.imports.map((i) => ({ kind: 'import' as const, row: i.location?.row ?? 0 })),
    ...module.rules.map((r) => ({ kind: 'rule' as const, row: r.location?.row ?? 0, rule: r })),
  ].sort((a, b) => a.row - b.row)

  const attached: Array<{ annotation: Annotations; rule?: Rule }> = []
  for (const block of blocks) {
    const loc = block.start.location as Location
    const parsed = parseBlock(block, loc)
    if (typeof parsed === 'string') {
      fail(loc, parsed)
      continue
    }
    if ('yamlError' in parsed) {
      // As OPA, a YAML error is placed on the comment of the line it names.
      const at = block.lines[Math.min(parsed.line, block.lines.length) - 1]?.location ?? loc
      fail(at as Location, parsed.yamlError)
      continue
    }
    const stmt = statements.find((s) => s.row > loc.row)
    let scope = parsed.scope as string
    if (!scope) {
      if (stmt?.kind === 'rule') scope = parsed.entrypoint ? 'document' : 'rule'
      else if (stmt?.kind === 'package') scope = 'package'
      else if (stmt?.kind === 'import') scope = 'import'
    }
    // As OPA: `(have import)`, and nothing when no statement follows the block.
    const found = stmt ? ` (have ${stmt.kind})` : ''
    if (scope === 'rule' || scope === 'document') {
      if (stmt?.kind !== 'rule') fail(loc, `annotation scope '${scope}' must be applied to rule${found}`)
    } else if (scope === 'package' || scope === 'subpackages') {
      if (stmt?.kind !== 'package')
        fail(loc, `annotation scope '${scope}' must be applied to package${found}`)
    } else {
      fail(
        loc,
        `invalid annotation scope '${scope}'. Use one of 'rule', 'document', 'package', or 'subpackages'`,
      )
    }
    if (parsed.entrypoint && scope !== 'document' && scope !== 'package') {
      fail(loc, `annotation entrypoint applied to non-document or package scope '${scope}'`)
    }
    const annotation: Annotations = { ...parsed, scope: scope as AnnotationScope }
    if (stmt?.kind === 'rule' || stmt?.kind === 'package') annotation.target = stmt.kind
    module.annotations.push(annotation)
    attached.push({ annotation, rule: stmt?.rule })
  }
  if (errors.length === 0) attachToRules(module.rules, attached)
  return errors
}

/** OPA's `attachRuleAnnotations`: document-scoped blocks go to every rule with the same path. */
function attachToRules(rules: Rule[], attached: Array<{ annotation: Annotations; rule?: Rule }>): void {
  const pending = attached.filter((a) => a.rule)
  if (pending.length === 0) return
  for (const rule of rules) {
    const path = groundPrefixKey(rule.head.ref)
    let claimed = -1
    for (const [i, entry] of pending.entries()) {
      const target = entry.rule as Rule
      if (groundPrefixKey(target.head.ref) !== path) continue
      const a = entry.annotation
      if (a.scope === 'document') {
        rule.annotations = [...(rule.annotations ?? []), a]
      } else if (a.scope === 'rule' && (rule.location?.row ?? 0) > (a.location?.row ?? 0)) {
        claimed = i
        rule.annotations = [...(rule.annotations ?? []), a]
      }
    }
    if (claimed >= 0) pending.splice(claimed, 1)
  }
}

function groundPrefixKey(ref: Term[]): string {
  const parts: string[] = []
  for (const [i, t] of ref.entries()) {
    if (i === 0 && t.type === 'var') parts.push(t.value)
    else if (t.type === 'string') parts.push(JSON.stringify(t.value))
    else if (t.type === 'number' || t.type === 'boolean' || t.type === 'null')
      parts.push(`#${String(t.value)}`)
    else break
  }
  return parts.join('.')
}

type ParsedBlock = Omit<Annotations, 'scope'> & { scope: string }

/** A YAML error of a block: the message and the block line (1-based, after `METADATA`) it names. */
interface BlockYamlError {
  yamlError: string
  line: number
}

/**
 * OPA's hints for a key/value `:` followed by something other than a space or a tab (`a:b`, or a
 * no-break space that looks like one), one line per comment, appended to a YAML error.
 */
function separatorHints(block: Block): string {
  let hints = ''
  for (const comment of block.lines) {
    const parts = comment.text.split(':').slice(1)
    const symbols: string[] = []
    for (const [i, part] of parts.entries()) {
      const first = part.codePointAt(0)
      if (first === undefined && i === parts.length - 1) {
        symbols.length = 0
        break
      }
      if (first === 0x20 || first === 0x09) {
        symbols.length = 0
        break
      }
      symbols.push(quoteRune(first))
    }
    if (symbols.length > 0) {
      const row = (comment.location as Location).row
      hints += `\n  Hint: on line ${row}, symbol(s) [${symbols.join(' ')}] immediately following a key/value separator ':' is not a legal yaml space character`
    }
  }
  return hints
}

/** A rune as Go's `%+q` prints it: `'p'`, `'\u00a0'`, `'\U0001f600'`. */
function quoteRune(code: number | undefined): string {
  if (code === undefined) return "'\\ufffd'"
  if (code >= 0x20 && code < 0x7f)
    return code === 0x27 || code === 0x5c
      ? `'\\${String.fromCodePoint(code)}'`
      : `'${String.fromCodePoint(code)}'`
  const hex = code.toString(16)
  return code > 0xffff ? `'\\U${hex.padStart(8, '0')}'` : `'\\u${hex.padStart(4, '0')}'`
}

/** Reads one block's YAML into annotation fields, or returns an error message. */
function parseBlock(block: Block, loc: Location): ParsedBlock | BlockYamlError | string {
  const yamlText = block.lines.map((c) => (c.text.startsWith(' ') ? c.text.slice(1) : c.text)).join('\n')
  const text = ['# METADATA', ...block.lines.map((c) => `#${c.text}`)].join('\n')
  const location = { ...loc, text }
  if (yamlText.trim() === '') return 'expected METADATA block, found whitespace'
  let raw: unknown
  try {
    // The linear reader: a METADATA block is as untrusted as the module that holds it.
    raw = readYaml(yamlText)
  } catch (err) {
    const message = `invalid METADATA block: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`
    const line = err instanceof YamlError && err.line !== undefined ? err.line : 0
    return { yamlError: message + separatorHints(block), line }
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return { yamlError: `invalid METADATA block: expected a YAML mapping${separatorHints(block)}`, line: 1 }
  const r = raw as Record<string, unknown>
  const out: ParsedBlock = { type: 'annotations', scope: '', location }
  const str = (key: string): string | undefined => {
    const v = r[key]
    if (v === undefined || v === null) return undefined
    return typeof v === 'string' ? v : String(v)
  }
  if (r.scope !== undefined) {
    const scope = str('scope') ?? ''
    out.scope = scope
    if (!SCOPES.has(scope)) {
      return `invalid annotation scope '${scope}'. Use one of 'rule', 'document', 'package', or 'subpackages'`
    }
  }
  const title = str('title')
  if (title) out.title = title
  const description = str('description')
  if (description) out.description = description
  if (r.entrypoint === true) out.entrypoint = true
  if (Array.isArray(r.organizations)) out.organizations = r.organizations.map((o) => String(o))
  try {
    if (Array.isArray(r.related_resources))
      out.relatedResources = r.related_resources.map(parseRelatedResource)
    if (Array.isArray(r.authors)) out.authors = r.authors.map(parseAuthor)
    if (Array.isArray(r.schemas)) out.schemas = r.schemas.map(parseSchema)
    if (r.compile && typeof r.compile === 'object')
      out.compile = parseCompile(r.compile as Record<string, unknown>)
  } catch (err) {
    return err instanceof Error ? err.message : String(err)
  }
  if (r.custom && typeof r.custom === 'object' && !Array.isArray(r.custom)) {
    out.custom = r.custom as Record<string, unknown>
  }
  return out
}

function parseRelatedResource(v: unknown): RelatedResource {
  if (typeof v === 'string') {
    if (!v) throw new Error('invalid related-resource definition: ref URL may not be empty string')
    return { ref: v }
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>
    const ref = typeof o.ref === 'string' ? o.ref.trim() : ''
    if (!ref)
      throw new Error(
        `invalid related-resource definition ${JSON.stringify(v)}: 'ref' value required in object`,
      )
    const description = typeof o.description === 'string' ? o.description.trim() : ''
    return description ? { ref, description } : { ref }
  }
  throw new Error('invalid related-resource definition: invalid value type, must be string or map')
}

function parseAuthor(v: unknown): Author {
  if (typeof v === 'string') {
    const parts = v.trim().split(/\s+/).filter(Boolean)
    if (parts.length === 0) throw new Error('invalid author definition: author is an empty string')
    const last = parts[parts.length - 1] as string
    if (last.length >= 2 && last.startsWith('<') && last.endsWith('>')) {
      const name = parts.slice(0, -1).join(' ')
      return { name, email: last.slice(1, -1) }
    }
    return { name: parts.join(' ') }
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>
    const name = typeof o.name === 'string' ? o.name.trim() : ''
    const email = typeof o.email === 'string' ? o.email.trim() : ''
    if (!name && !email)
      throw new Error("invalid author definition: 'name' and/or 'email' values required in object")
    return email ? { name, email } : { name }
  }
  throw new Error('invalid author definition: invalid value type, must be string or map')
}

function refFromString(s: string, what: string): Term[] {
  let term: Term
  try {
    term = parseTermText(s)
  } catch {
    throw new Error(`invalid ${what} ${JSON.stringify(s)}`)
  }
  stripLocations(term)
  if (term.type === 'ref') return term.value
  if (term.type === 'var' || term.type === 'string') return [term]
  throw new Error(`invalid ${what} ${JSON.stringify(s)}`)
}

function parseSchema(v: unknown): SchemaAnnotation {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('invalid schema declaration')
  const [key, value] = Object.entries(v as Record<string, unknown>)[0] ?? []
  if (key === undefined) throw new Error('invalid schema declaration')
  let path: Term[]
  try {
    path = refFromString(key, 'document reference')
  } catch {
    throw new Error('invalid document reference')
  }
  if (typeof value === 'string') {
    const schema = refFromString(value, 'schema reference')
    const head = schema[0]
    if (head?.type !== 'var' || head.value !== 'schema') throw new Error('invalid schema reference')
    return { path, schema }
  }
  if (value && typeof value === 'object') return { path, definition: value }
  throw new Error(`invalid schema declaration for path ${JSON.stringify(key)}`)
}

function parseCompile(c: Record<string, unknown>): CompileAnnotation {
  const out: CompileAnnotation = {}
  if (Array.isArray(c.unknowns)) {
    out.unknowns = c.unknowns
      .filter((u): u is string => typeof u === 'string')
      .map((u) => refFromString(u, 'unknowns element'))
  }
  if (typeof c.mask_rule === 'string') out.maskRule = refFromString(c.mask_rule, 'mask_rule annotation')
  return out
}

function stripLocations(term: unknown): void {
  if (Array.isArray(term)) {
    for (const t of term) stripLocations(t)
    return
  }
  if (!term || typeof term !== 'object') return
  const o = term as Record<string, unknown>
  delete o.location
  for (const v of Object.values(o)) stripLocations(v)
}

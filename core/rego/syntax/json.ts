/**
 * OPA's AST JSON. `toOpaJson` turns any node into the JSON value `opa parse --format json` prints
 * (and the compile API returns in `result.queries`): terms as `{type, value}`, expressions with
 * `index` and `terms`, rules with `head` and `body`, locations only on request. Numbers keep their
 * source text: they come out as `LosslessNumber`s, which `stringifyOpaJson` (lossless-json) prints
 * verbatim, so `1e400` or a 30-digit integer is never rounded. Keys follow the order OPA prints.
 * docs/ast-json.md shows the shape with examples.
 */
import { isSafeNumber, LosslessNumber, stringify } from 'lossless-json'
import type {
  Annotations,
  Body,
  Comment,
  Expr,
  Head,
  Import,
  Location,
  Module,
  Node,
  Package,
  Rule,
  Term,
} from './ast.js'
import { locationText } from './source.js'

/** What optional parts to include. Comments are on by default (as in `opa parse`), locations off. */
export interface OpaJsonOptions {
  locations?: boolean
  comments?: boolean
  /** Include each location's source text (base64, as OPA's `IncludeLocationText`). */
  locationText?: boolean
}

/** A JSON value whose numbers may be `LosslessNumber`s. */
export type JsonValue = null | boolean | string | LosslessNumber | JsonValue[] | { [key: string]: JsonValue }

type Obj = { [key: string]: JsonValue }

/** Converts a node (module, rule, body, expression, term, ...) to OPA's AST JSON. */
export function toOpaJson(node: Node | Body, options: OpaJsonOptions = {}): JsonValue {
  const w = new JsonWriter(options)
  if (Array.isArray(node)) return w.body(node)
  return w.node(node)
}

/** `toOpaJson` as text; `indent` as in `JSON.stringify`. */
export function stringifyOpaJson(node: Node | Body, options: OpaJsonOptions = {}, indent?: number): string {
  return stringify(toOpaJson(node, options), undefined, indent) ?? 'null'
}

/** A number lexeme as a JSON number (normalising forms JSON lacks, such as `.5` or `-.5`). */
export function jsonNumber(lexeme: string): LosslessNumber {
  let text = lexeme
  if (text.startsWith('.')) text = `0${text}`
  else if (text.startsWith('-.')) text = `-0${text.slice(1)}`
  return new LosslessNumber(text)
}

class JsonWriter {
  constructor(private readonly options: OpaJsonOptions) {}

  node(node: Node): JsonValue {
    switch (node.type) {
      case 'module':
        return this.module(node)
      case 'package':
        return this.package(node)
      case 'import':
        return this.import(node)
      case 'rule':
        return this.rule(node)
      case 'head':
        return this.head(node)
      case 'expr':
        return this.expr(node)
      case 'somedecl': {
        const out: Obj = {}
        this.loc(out, node.location)
        out.symbols = node.symbols.map((t) => this.term(t))
        return out
      }
      case 'every': {
        const out: Obj = { body: this.body(node.body), domain: this.term(node.domain) }
        out.key = node.key ? this.term(node.key) : null
        this.loc(out, node.location)
        out.value = this.term(node.value)
        return out
      }
      case 'not': {
        // OPA's Not.MarshalJSON: a map, so its keys come out sorted.
        const out: Obj = { body: this.body(node.body), explicit_body: node.explicitBody }
        this.loc(out, node.location)
        out.type = 'not'
        return out
      }
      case 'and':
      case 'or': {
        // Marshalled like OPA's Not: a map, so its keys come out sorted.
        const out: Obj = { explicit_lhs: node.explicitLhs, explicit_rhs: node.explicitRhs }
        out.lhs = this.body(node.lhs)
        this.loc(out, node.location)
        out.rhs = this.body(node.rhs)
        out.type = node.type
        return out
      }
      case 'with': {
        const out: Obj = {}
        this.loc(out, node.location)
        out.target = this.term(node.target)
        out.value = this.term(node.value)
        return out
      }
      case 'comment':
        return this.comment(node)
      case 'annotations':
        return this.annotations(node)
      default:
        return this.term(node)
    }
  }

  module(m: Module): JsonValue {
    const out: Obj = { package: this.package(m.package) }
    if (m.imports.length > 0) out.imports = m.imports.map((i) => this.import(i))
    if (m.annotations.length > 0) out.annotations = m.annotations.map((a) => this.annotations(a))
    if (m.rules.length > 0) out.rules = m.rules.map((r) => this.rule(r))
    if (this.options.comments !== false && m.comments.length > 0)
      out.comments = m.comments.map((c) => this.comment(c))
    return out
  }

  package(p: Package): JsonValue {
    const out: Obj = {}
    this.loc(out, p.location)
    out.path = p.path.map((t) => this.term(t))
    return out
  }

  import(i: Import): JsonValue {
    const out: Obj = {}
    if (i.alias) out.alias = i.alias
    this.loc(out, i.location)
    out.path = this.term(i.path)
    return out
  }

  rule(r: Rule): JsonValue {
    const out: Obj = {}
    if (r.annotations && r.annotations.length > 0)
      out.annotations = r.annotations.map((a) => this.annotations(a))
    out.body = this.body(r.body)
    if (r.default) out.default = true
    if (r.else) out.else = this.rule(r.else)
    out.head = this.head(r.head)
    this.loc(out, r.location)
    return out
  }

  head(h: Head): JsonValue {
    const out: Obj = {}
    // OPA's Head.MarshalJSON order: the head's own fields, then `ref`, then `location`.
    if (h.name) out.name = h.name
    if (h.args && h.args.length > 0) out.args = h.args.map((t) => this.term(t))
    if (h.key) out.key = this.term(h.key)
    if (h.value) out.value = this.term(h.value)
    if (h.assign) out.assign = true
    out.ref = h.ref.map((t) => this.term(t))
    this.loc(out, h.location)
    return out
  }

  body(b: Body): JsonValue {
    return b.map((e) => this.expr(e))
  }

  expr(e: Expr): JsonValue {
    const out: Obj = {}
    if (e.generated) out.generated = true
    out.index = new LosslessNumber(String(e.index))
    this.loc(out, e.location)
    if (e.negated) out.negated = true
    const t = e.terms
    out.terms = Array.isArray(t) ? t.map((x) => this.term(x)) : this.node(t)
    if (e.with && e.with.length > 0) out.with = e.with.map((w) => this.node(w))
    return out
  }

  term(t: Term): JsonValue {
    const out: Obj = {}
    this.loc(out, t.location)
    out.type = t.type
    out.value = this.value(t)
    return out
  }

  value(t: Term): JsonValue {
    switch (t.type) {
      case 'null':
        return null
      case 'boolean':
      case 'string':
      case 'var':
        return t.value
      case 'number':
        return jsonNumber(t.value)
      case 'ref':
      case 'array':
      case 'set':
      case 'call':
        return t.value.map((x) => this.term(x))
      case 'object':
        return t.value.map(([k, v]) => [this.term(k), this.term(v)])
      case 'arraycomprehension':
      case 'setcomprehension':
        return { term: this.term(t.value.term), body: this.body(t.value.body) }
      case 'objectcomprehension':
        return { key: this.term(t.value.key), value: this.term(t.value.value), body: this.body(t.value.body) }
      case 'templatestring':
        return {
          parts: t.value.parts.map((p) => (p.type === 'expr' ? this.expr(p) : this.term(p))),
          multi_line: t.value.multi_line,
        }
    }
  }

  comment(c: Comment): JsonValue {
    return { Text: Buffer.from(c.text, 'utf8').toString('base64'), Location: this.location(c.location) }
  }

  annotations(a: Annotations): JsonValue {
    const out: Obj = {}
    if (a.authors?.length)
      out.authors = a.authors.map((x): Obj => (x.email ? { name: x.name, email: x.email } : { name: x.name }))
    if (a.compile && (a.compile.unknowns || a.compile.maskRule)) {
      const c: Obj = {}
      if (a.compile.unknowns?.length) c.unknowns = a.compile.unknowns.map((r) => r.map((t) => this.term(t)))
      if (a.compile.maskRule?.length) c.mask_rule = a.compile.maskRule.map((t) => this.term(t))
      out.compile = c
    }
    if (a.custom && Object.keys(a.custom).length > 0) out.custom = plainJson(a.custom)
    if (a.description) out.description = a.description
    if (a.entrypoint) out.entrypoint = true
    this.loc(out, a.location)
    if (a.organizations?.length) out.organizations = a.organizations
    if (a.relatedResources?.length) {
      out.related_resources = a.relatedResources.map(
        (r): Obj => (r.description ? { ref: r.ref, description: r.description } : { ref: r.ref }),
      )
    }
    if (a.schemas?.length) {
      out.schemas = a.schemas.map((s) => {
        const o: Obj = { path: s.path.map((t) => ({ type: t.type, value: this.value(t) })) }
        if (s.schema) o.schema = s.schema.map((t) => this.term(t))
        if (s.definition !== undefined) o.definition = plainJson(s.definition)
        return o
      })
    }
    out.scope = a.scope
    if (a.title) out.title = a.title
    return out
  }

  private loc(out: Obj, location: Location | undefined): void {
    if (this.options.locations && location) out.location = this.location(location)
  }

  private location(l: Location | undefined): JsonValue {
    if (!l) return null
    const out: Obj = {
      file: l.file,
      row: new LosslessNumber(String(l.row)),
      col: new LosslessNumber(String(l.col)),
    }
    if (this.options.locationText) {
      const text = locationText(l)
      if (text) out.text = Buffer.from(text, 'utf8').toString('base64')
    }
    return out
  }
}

/** Plain YAML/JSON data (from annotations) as a `JsonValue`. */
function plainJson(x: unknown): JsonValue {
  if (x === null || x === undefined) return null
  if (typeof x === 'number')
    return new LosslessNumber(isSafeNumber(String(x)) ? String(x) : JSON.stringify(x))
  if (typeof x === 'boolean' || typeof x === 'string') return x
  if (typeof x === 'bigint') return new LosslessNumber(x.toString())
  if (Array.isArray(x)) return x.map(plainJson)
  if (x instanceof Date) return x.toISOString()
  if (typeof x === 'object') {
    const out: Obj = {}
    for (const [k, v] of Object.entries(x as Record<string, unknown>)) out[k] = plainJson(v)
    return out
  }
  return String(x)
}

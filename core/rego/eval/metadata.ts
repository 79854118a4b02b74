/**
 * What `rego.metadata.chain()` and `rego.metadata.rule()` return for the rule containing a call,
 * built from the `# METADATA` blocks the parser attached, in OPA's order: the rule's own
 * (rule-scoped) annotations, the document-scoped ones for its path, the package's, then
 * `subpackages` annotations of enclosing packages.
 */
import type { RegoMetadata } from '../builtins/context.js'
import type { Compiler } from '../compiler/compiler.js'
import { groundPrefix } from '../compiler/terms.js'
import type { Annotations, Location, Module, Rule, Term } from '../syntax/ast.js'
import { locationText } from '../syntax/source.js'
import { fromJS, ObjectValue, type Value } from '../values/index.js'
import { constantValue } from './prepare.js'

interface Located {
  rule: Rule
  module: Module
  start: number
  end: number
  /** An `else` branch: OPA's annotation set only knows the rule the block is written above. */
  isElse: boolean
}

/** The annotations of a block as OPA's `toObject` writes them. */
export function annotationValue(a: Annotations): Value {
  const out: Record<string, unknown> = {}
  if (a.scope) out.scope = a.scope
  if (a.title) out.title = a.title
  if (a.entrypoint) out.entrypoint = true
  if (a.description) out.description = a.description
  if (a.organizations?.length) out.organizations = a.organizations
  if (a.relatedResources?.length) {
    out.related_resources = a.relatedResources.map((r) =>
      r.description ? { ref: r.ref, description: r.description } : { ref: r.ref },
    )
  }
  if (a.authors?.length)
    out.authors = a.authors.map((x) => (x.email ? { name: x.name, email: x.email } : { name: x.name }))
  if (a.schemas?.length) {
    out.schemas = a.schemas.map((s) => {
      const o: Record<string, unknown> = { path: s.path.map(termText) }
      if (s.schema) o.schema = s.schema.map(termText)
      if (s.definition !== undefined) o.definition = s.definition
      return o
    })
  }
  if (a.custom && Object.keys(a.custom).length > 0) out.custom = a.custom
  return fromJS(out)
}

function termText(t: Term): unknown {
  if (t.type === 'var' || t.type === 'string') return t.value
  return constantValue(t) ?? null
}

function pathOf(terms: Term[]): Value[] {
  return terms.slice(1).map((t) => (t.type === 'var' ? t.value : (constantValue(t) ?? null)))
}

function key(path: Value[]): string {
  return JSON.stringify(path)
}

/** Builds the lookup the built-in context exposes as `regoMetadata(location)`. */
export function metadataLookup(c: Compiler): (location?: Location) => RegoMetadata | undefined {
  const located: Located[] = []
  const packages = new Map<string, Annotations>()
  // NOTE(regent): one tree for `document` and `subpackages` blocks, as OPA's AnnotationSet.byPath:
  // a rule's document entry is whichever block targets its path, and a package's subpackages
  // entries are the blocks on its ancestors' paths, of either scope. The SetAnnotationSet stage
  // rejects two blocks on one path, so each path holds one.
  const byPath = new Map<string, { path: Value[]; annotations: Annotations }>()
  const addPath = (path: Value[], a: Annotations) => {
    if (!byPath.has(key(path))) byPath.set(key(path), { path, annotations: a })
  }
  for (const module of c.sortedModules()) {
    const pkgPath = pathOf(module.package.path)
    for (const a of module.annotations) {
      if (a.target !== 'package') continue
      if (a.scope === 'subpackages') addPath(pkgPath, a)
      else if (!packages.has(key(pkgPath))) packages.set(key(pkgPath), a)
    }
    for (const rule of module.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) {
        const loc = r.location
        // The parser's locations carry `end`; plain ones may only have `text`.
        const end = loc?.end ?? (loc ? loc.offset + (locationText(loc)?.length ?? 0) : 0)
        if (loc) located.push({ rule: r, module, start: loc.offset, end, isElse: r !== rule })
      }
      for (const a of rule.annotations ?? []) if (a.scope === 'document') addPath(rulePath(module, rule), a)
    }
  }
  return (location) => {
    if (!location) return undefined
    // The innermost span: an `else` branch lies inside the span of the rule it continues.
    let hit: Located | undefined
    for (const l of located) {
      if (l.rule.location?.file !== location.file || location.offset < l.start || location.offset >= l.end)
        continue
      if (!hit || l.start > hit.start) hit = l
    }
    if (!hit) return undefined
    const rp = rulePath(hit.module, hit.rule)
    // NOTE(regent): a call in an `else` branch gets no rule-scoped annotations: OPA's
    // rewriteRegoMetadataCalls asks AnnotationSet.Chain for the else rule itself, which has none.
    const ruleScoped = (hit.isElse ? [] : (hit.rule.annotations ?? []))
      .filter((a) => a.scope === 'rule')
      .sort((a, b) => (b.location?.row ?? 0) - (a.location?.row ?? 0))
    const chain: Value[] = []
    const entry = (path: Value[], a?: Annotations): Value => {
      const o = new ObjectValue().set('path', path)
      if (a) o.set('annotations', annotationValue(a))
      return o
    }
    if (ruleScoped.length > 0) for (const a of ruleScoped) chain.push(entry(rp, a))
    else chain.push(entry(rp))
    const doc = byPath.get(key(rp))
    if (doc) chain.push(entry(doc.path, doc.annotations))
    const pkgPath = pathOf(hit.module.package.path)
    const pkg = packages.get(key(pkgPath))
    if (pkg) chain.push(entry(pkgPath, pkg))
    for (let i = pkgPath.length; i > 0; i--) {
      const sub = byPath.get(key(pkgPath.slice(0, i)))
      if (sub) chain.push(entry(sub.path, sub.annotations))
    }
    const first = ruleScoped[0]
    return { chain, rule: first ? annotationValue(first) : new ObjectValue() }
  }
}

function rulePath(module: Module, rule: Rule): Value[] {
  return [
    ...pathOf(module.package.path),
    ...groundPrefix(rule.head.ref).map((t) => (t.type === 'var' ? t.value : (constantValue(t) ?? null))),
  ]
}

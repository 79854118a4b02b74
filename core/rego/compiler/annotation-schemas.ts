/**
 * The types `# METADATA schemas:` annotations give `input` and `data` inside one rule's body, as
 * OPA's checker applies them (v1/ast/check.go, checkRule and processAnnotation): the annotations in
 * scope are read outermost first (`subpackages` of the enclosing packages from the root, then the
 * `package`, the `document`, the rule's own), each a schema from the schema set (`- input:
 * schema.k8s.pod`) or an inline `definition`; a later one wins where paths meet. A schema ref the
 * set lacks is `undefined schema: schema.x`, reported at the rule, and that annotation is skipped.
 * Applied only when the compiler has a schema set (`regent check`, `regent eval -s`).
 */
import { type RegoError, typeError } from '../errors.js'
import type { Annotations, Module, Rule, SchemaAnnotation, Term } from '../syntax/ast.js'
import {
  type ObjectType,
  type StaticProperty,
  type Type,
  t,
  typeFromJsonSchema,
  unwrap,
} from '../types/index.js'
import type { SchemaSet } from '../types/schema-set.js'
import { compareValues, equalValues, type Value } from '../values/index.js'
import type { Compiler } from './compiler.js'
import { constantValue } from './constant-value.js'
import { groundPrefix } from './terms.js'
import { refString } from './text.js'

/** What the annotations in scope make of the root documents while one rule's body is checked. */
export interface SchemaScope {
  /** The type of `input` (the `-s` file's, changed by the annotations), when annotations touch it. */
  input?: Type
  /** Types for paths under `data` (the keys after `data`), in the order they were declared. */
  data: { path: Value[]; type: Type }[]
}

/** The scope of a rule and the errors its annotations raise. */
export interface RuleSchemas {
  scope: SchemaScope | undefined
  errors: RegoError[]
}

/** The schema annotations of a compiled module set, indexed once by what they apply to. */
export class AnnotationSchemas {
  readonly #compiler: Compiler
  readonly #schemas: SchemaSet
  readonly #moduleOf = new Map<Rule, Module>()
  /** Rule-scoped blocks of each rule written below them (not its `else` branches). */
  readonly #ruleBlocks = new Map<Rule, Annotations[]>()
  readonly #packages = new Map<string, Annotations>()
  /** `document` and `subpackages` blocks by path (data. left out): one tree, as OPA's byPath. */
  readonly #byPath = new Map<string, Annotations>()
  readonly #types = new Map<SchemaAnnotation, Type | undefined>()

  constructor(compiler: Compiler, schemas: SchemaSet) {
    this.#compiler = compiler
    this.#schemas = schemas
    for (const module of compiler.sortedModules()) this.#index(module)
  }

  #index(module: Module): void {
    const pkg = pathKey(module.package.path.slice(1))
    for (const a of module.annotations) {
      if (a.target !== 'package') continue
      if (a.scope === 'subpackages') this.#addPath(pkg, a)
      else if (a.scope === 'package' && !this.#packages.has(pkg)) this.#packages.set(pkg, a)
    }
    for (const rule of module.rules) {
      for (let r: Rule | undefined = rule; r; r = r.else) this.#moduleOf.set(r, module)
      const own = (rule.annotations ?? []).filter((a) => a.scope === 'rule')
      if (own.length > 0) this.#ruleBlocks.set(rule, own)
      for (const a of rule.annotations ?? [])
        if (a.scope === 'document') this.#addPath(pathKey(rulePath(module, rule)), a)
    }
  }

  #addPath(key: string, a: Annotations): void {
    if (!this.#byPath.has(key)) this.#byPath.set(key, a)
  }

  /** The schema annotations that apply to `rule`, outermost first. */
  #annotationsOf(rule: Rule, module: Module): SchemaAnnotation[] {
    const pkg = module.package.path.slice(1)
    const blocks: (Annotations | undefined)[] = []
    for (let i = 1; i <= pkg.length; i++) blocks.push(this.#byPath.get(pathKey(pkg.slice(0, i))))
    blocks.push(this.#packages.get(pathKey(pkg)))
    blocks.push(this.#byPath.get(pathKey(rulePath(module, rule))))
    blocks.push(...(this.#ruleBlocks.get(rule) ?? []))
    return blocks.flatMap((a) => a?.schemas ?? [])
  }

  /** The types the annotations in scope give inside `rule`'s body (an `else` branch included). */
  forRule(rule: Rule): RuleSchemas {
    const module = this.#moduleOf.get(rule)
    const annotations = module ? this.#annotationsOf(rule, module) : []
    if (annotations.length === 0) return { scope: undefined, errors: [] }
    const errors: RegoError[] = []
    const scope: SchemaScope = { data: [] }
    let input = this.#compiler.inputType
    let touchesInput = false
    for (const annotation of annotations) {
      const type = this.#typeOf(annotation)
      if (!type) {
        errors.push(typeError(rule.location, `undefined schema: ${refString(annotation.schema ?? [])}`))
        continue
      }
      const [head, ...rest] = annotation.path
      const keys = rest.map(constantValue)
      if (keys.some((k) => k === undefined)) continue
      const path = keys as Value[]
      if (head?.type === 'var' && head.value === 'input') {
        input = path.length === 0 ? type : override(input ?? t.any, path, type)
        touchesInput = true
      } else if (head?.type === 'var' && head.value === 'data') {
        scope.data.push({ path, type })
      }
    }
    if (touchesInput && input) scope.input = input
    return { scope, errors }
  }

  /**
   * The type of an annotation's schema: its inline definition or the set's, undefined if missing.
   * Converted once per annotation: a package-scope annotation applies to every rule of the package.
   */
  #typeOf(annotation: SchemaAnnotation): Type | undefined {
    if (this.#types.has(annotation)) return this.#types.get(annotation)
    let type: Type | undefined
    if (!annotation.schema) type = typeFromJsonSchema(annotation.definition)
    else {
      const schema = this.#schemas.get(annotation.schema.slice(1).map(schemaKey))
      type = schema === undefined ? undefined : typeFromJsonSchema(schema)
    }
    this.#types.set(annotation, type)
    return type
  }
}

/** The longest `data` path of `scope` that `ref` (after `data`) starts with, the last declared first. */
export function dataSchemaAt(scope: SchemaScope, ref: Term[]): { type: Type; length: number } | undefined {
  let best: { type: Type; length: number } | undefined
  for (const { path, type } of scope.data) {
    if (path.length > ref.length || (best && path.length < best.length)) continue
    const matches = path.every((key, i) => {
      const part = ref[i]
      const value = part ? constantValue(part) : undefined
      return value !== undefined && equalValues(value, key)
    })
    if (matches) best = { type, length: path.length }
  }
  return best
}

/**
 * `base` with the type at `path` replaced by `type` (OPA's `override`): the objects on the way
 * keep their other keys; a key they lack is added, as a chain of objects sharing the parent's
 * dynamic part; a part that is no object becomes one, open to any other key.
 */
function override(base: Type, path: Value[], type: Type): Type {
  const object = unwrap(base)
  if (object.kind !== 'object') return chain(path, type, { key: t.any, value: t.any })
  const [first, ...rest] = path as [Value, ...Value[]]
  let found = false
  const statics: StaticProperty[] = object.static.map((p) => {
    if (!equalValues(p.key, first)) return p
    found = true
    return { key: p.key, value: rest.length === 0 ? type : override(p.value, rest, type) }
  })
  if (!found) statics.push(...chain(path, type, object.dynamic).static)
  return objectOf(statics, object.dynamic)
}

/** `{k1: {k2: ... type}}`, each level with the dynamic part `dynamic`. */
function chain(path: Value[], type: Type, dynamic: ObjectType['dynamic']): ObjectType {
  const [first, ...rest] = path as [Value, ...Value[]]
  const value = rest.length === 0 ? type : chain(rest, type, dynamic)
  return objectOf([{ key: first, value }], dynamic)
}

function objectOf(statics: StaticProperty[], dynamic: ObjectType['dynamic']): ObjectType {
  const sorted = [...statics].sort((a, b) => compareValues(a.key, b.key))
  return dynamic ? { kind: 'object', static: sorted, dynamic } : { kind: 'object', static: sorted }
}

/** A part of a schema ref as a key of the schema set (`schema["k8s"].pod`: `k8s`, `pod`). */
function schemaKey(term: Term): string {
  if (term.type === 'string' || term.type === 'var') return term.value
  const value = constantValue(term)
  return value === undefined ? '' : JSON.stringify(value)
}

function rulePath(module: Module, rule: Rule): Term[] {
  return [...module.package.path.slice(1), ...groundPrefix(rule.head.ref)]
}

function pathKey(terms: Term[]): string {
  return JSON.stringify(terms.map((x) => (x.type === 'var' || x.type === 'string' ? x.value : x.type)))
}

/**
 * JSON Schema to Rego type, as OPA's checker reads the schema given with `-s` for `input`:
 * `properties` become static keys and an object is closed unless `additionalProperties` says
 * otherwise (`true` or a schema), so a misspelt `input.request.kinds` is an undefined ref;
 * `items` types arrays (one schema: any length; a list: positions); `type` lists, `enum`,
 * `const`, `anyOf` and `oneOf` are unions; `allOf` merges objects; `$ref` follows local pointers
 * (`#/definitions/x`, `#/$defs/x`). Anything else (formats, patterns, conditionals) is `any`.
 */
import { fromJS } from '../values/index.js'
import { type Type, t, typeOf, unionOf, unwrap } from './types.js'

type Schema = { [key: string]: unknown }

/** Nesting past this depth (a recursive `$ref`) is typed `any`. */
const MAX_DEPTH = 32

/** The type of the documents `schema` admits. */
export function typeFromJsonSchema(schema: unknown): Type {
  return convert(schema, schema, 0)
}

function convert(node: unknown, root: unknown, depth: number): Type {
  if (depth > MAX_DEPTH || !isSchema(node)) return t.any
  if (typeof node.$ref === 'string') return convert(resolvePointer(root, node.$ref), root, depth + 1)
  if ('const' in node) return typeOf(fromJS(node.const))
  if (Array.isArray(node.enum) && node.enum.length > 0)
    return unionOf(...node.enum.map((v) => typeOf(fromJS(v))))
  // The schema's own keywords, then what `allOf` adds to them and `anyOf`/`oneOf` choose between.
  const own = ownType(node, root, depth)
  const all = Array.isArray(node.allOf) ? node.allOf.map((s) => convert(s, root, depth + 1)) : []
  const base = all.length > 0 ? mergeAll(own ? [own, ...all] : all) : own
  const alternatives = [node.anyOf, node.oneOf].flatMap((list) => (Array.isArray(list) ? list : []))
  if (alternatives.length > 0)
    return unionOf(
      ...alternatives.map((s) => {
        const alternative = convert(s, root, depth + 1)
        return base ? mergeAll([base, alternative]) : alternative
      }),
    )
  return base ?? t.any
}

/** The type `type`, `properties`, `additionalProperties` and `items` give, if any of them is there. */
function ownType(node: Schema, root: unknown, depth: number): Type | undefined {
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type]
  if (types.length > 0) return unionOf(...types.map((name) => typeNamed(String(name), node, root, depth)))
  if (isSchema(node.properties) || 'additionalProperties' in node) return objectType(node, root, depth)
  if ('items' in node) return arrayType(node, root, depth)
  return undefined
}

function typeNamed(name: string, node: Schema, root: unknown, depth: number): Type {
  switch (name) {
    case 'null':
      return t.null
    case 'boolean':
      return t.boolean
    case 'number':
    case 'integer':
      return t.number
    case 'string':
      return t.string
    case 'array':
      return arrayType(node, root, depth)
    case 'object':
      return objectType(node, root, depth)
    default:
      return t.any
  }
}

function objectType(node: Schema, root: unknown, depth: number): Type {
  const props: Record<string, Type> = {}
  if (isSchema(node.properties))
    for (const [key, value] of Object.entries(node.properties)) props[key] = convert(value, root, depth + 1)
  const extra = node.additionalProperties
  if (extra === undefined || extra === false) return t.record(props)
  const value = extra === true ? t.any : convert(extra, root, depth + 1)
  return t.record(props, { key: t.string, value })
}

function arrayType(node: Schema, root: unknown, depth: number): Type {
  if (Array.isArray(node.items)) return t.tuple(...node.items.map((s) => convert(s, root, depth + 1)))
  return t.array(node.items === undefined ? t.any : convert(node.items, root, depth + 1))
}

/**
 * `allOf` (every schema holds): objects merge their keys; a schema that constrains nothing (such
 * as `{"required": [...]}`) adds nothing; parts of different kinds give `any`.
 */
function mergeAll(types: Type[]): Type {
  const parts = types.map(unwrap).filter((p) => p.kind !== 'any' || p.of.length > 0)
  if (parts.length === 0) return t.any
  if (parts.every((p) => p.kind === 'object')) {
    const props: Record<string, Type> = {}
    let open = false
    for (const p of parts) {
      if (p.kind !== 'object') continue
      for (const s of p.static) if (typeof s.key === 'string') props[s.key] = s.value
      open ||= p.dynamic !== undefined
    }
    return open ? t.record(props, { key: t.string, value: t.any }) : t.record(props)
  }
  const first = parts[0]
  return first && parts.every((p) => p.kind === first.kind) ? first : t.any
}

/** The node at a local JSON pointer (`#/definitions/a`), or undefined. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined
  let node: unknown = root
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
    if (!isSchema(node)) return undefined
    node = node[key]
  }
  return node
}

function isSchema(node: unknown): node is Schema {
  return typeof node === 'object' && node !== null && !Array.isArray(node)
}

/**
 * Types as OPA writes them: the capabilities/`decl` JSON (`{"type": "array", "dynamic": ...}`,
 * keys in Go's sorted map order) and the text form of type-checker messages (`array[any]`,
 * `any<number, string>`, `object<a: string>[string: any]`).
 */
import type { Value } from '../values/index.js'
import { formatValue, fromJS, toJS } from '../values/index.js'
import type { StaticProperty, Type } from './types.js'
import { t, unwrap } from './types.js'

/** A JSON object as written in capabilities files. */
export type TypeJSON = { [key: string]: unknown }

/**
 * OPA's JSON for a type. `minimal` drops argument names and descriptions, as capabilities files do.
 */
export function typeToJSON(type: Type, options: { minimal?: boolean } = {}): TypeJSON {
  const minimal = options.minimal ?? true
  const walk = (x: Type): TypeJSON => {
    switch (x.kind) {
      case 'named': {
        if (minimal) return walk(x.type)
        const inner = walk(x.type)
        const out: TypeJSON = {}
        if (x.description !== undefined) out.description = x.description
        out.name = x.name
        return sortKeys({ ...inner, ...out })
      }
      case 'any':
        return x.of.length ? { of: x.of.map(walk), type: 'any' } : { type: 'any' }
      case 'array': {
        const out: TypeJSON = {}
        if (x.dynamic) out.dynamic = walk(x.dynamic)
        if (x.static.length) out.static = x.static.map(walk)
        out.type = 'array'
        return out
      }
      case 'object': {
        const out: TypeJSON = {}
        if (x.dynamic) out.dynamic = { key: walk(x.dynamic.key), value: walk(x.dynamic.value) }
        if (x.static.length) out.static = x.static.map((p) => ({ key: toJS(p.key), value: walk(p.value) }))
        out.type = 'object'
        return out
      }
      case 'set':
        return { of: walk(x.of), type: 'set' }
      case 'function': {
        const out: TypeJSON = {}
        if (x.args.length) out.args = x.args.map(walk)
        if (x.result) out.result = walk(x.result)
        out.type = 'function'
        if (x.variadic) out.variadic = walk(x.variadic)
        return out
      }
      default:
        return { type: x.kind }
    }
  }
  return walk(type)
}

function sortKeys(obj: TypeJSON): TypeJSON {
  const out: TypeJSON = {}
  for (const k of Object.keys(obj).sort()) out[k] = obj[k]
  return out
}

/** Reads OPA's type JSON (as in a capabilities file); throws a TypeError on a malformed shape. */
export function typeFromJSON(json: unknown): Type {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new TypeError('type must be an object')
  const j = json as TypeJSON
  const inner = baseFromJSON(j)
  return typeof j.name === 'string'
    ? t.named(j.name, inner, typeof j.description === 'string' ? j.description : undefined)
    : inner
}

function list(x: unknown): unknown[] {
  return Array.isArray(x) ? x : []
}

function baseFromJSON(j: TypeJSON): Type {
  switch (j.type) {
    case 'any':
      return j.of === undefined ? t.any : t.anyOf(...list(j.of).map(typeFromJSON))
    case 'null':
    case 'boolean':
    case 'number':
    case 'string':
      return { kind: j.type }
    case 'array':
      return j.dynamic === undefined
        ? { kind: 'array', static: list(j.static).map(typeFromJSON) }
        : { kind: 'array', static: list(j.static).map(typeFromJSON), dynamic: typeFromJSON(j.dynamic) }
    case 'object': {
      const statics: StaticProperty[] = list(j.static).map((p) => {
        const prop = p as { key?: unknown; value?: unknown }
        return { key: fromJS(prop.key) as Value, value: typeFromJSON(prop.value) }
      })
      if (j.dynamic === undefined) return { kind: 'object', static: statics }
      const d = j.dynamic as { key?: unknown; value?: unknown }
      return {
        kind: 'object',
        static: statics,
        dynamic: { key: typeFromJSON(d.key), value: typeFromJSON(d.value) },
      }
    }
    case 'set':
      return t.set(typeFromJSON(j.of))
    case 'function':
      return t.fn(
        list(j.args).map(typeFromJSON),
        j.result === undefined ? undefined : typeFromJSON(j.result),
        j.variadic === undefined ? undefined : typeFromJSON(j.variadic),
      )
    default:
      throw new TypeError(`unknown type ${JSON.stringify(j.type)}`)
  }
}

/**
 * OPA's text form of a type (`types.Sprint`), used in type-checker messages.
 *
 * @example
 * typeToString(t.object(t.string, t.any)) // 'object[string: any]'
 */
export function typeToString(type: Type): string {
  const x = type.kind === 'named' ? type : unwrap(type)
  switch (x.kind) {
    case 'named':
      return `${x.name}: ${typeToString(x.type)}`
    case 'any':
      return x.of.length ? `any<${x.of.map(typeToString).join(', ')}>` : 'any'
    case 'array': {
      let s = 'array'
      if (x.static.length) s += `<${x.static.map(typeToString).join(', ')}>`
      if (x.dynamic) s += `[${typeToString(x.dynamic)}]`
      return s
    }
    case 'object': {
      let s = 'object'
      if (x.static.length)
        // Keys as Go's `%v` prints them: strings bare (`object<age: number, name: string>`).
        s += `<${x.static.map((p) => `${typeof p.key === 'string' ? p.key : formatValue(p.key)}: ${typeToString(p.value)}`).join(', ')}>`
      if (x.dynamic) s += `[${typeToString(x.dynamic.key)}: ${typeToString(x.dynamic.value)}]`
      return s
    }
    case 'set':
      return `set[${typeToString(x.of)}]`
    case 'function': {
      const args = x.args.map(typeToString)
      if (x.variadic) args.push(`${typeToString(x.variadic)}...`)
      return `(${args.join(', ')})${x.result ? ` => ${typeToString(x.result)}` : ''}`
    }
    default:
      return x.kind
  }
}

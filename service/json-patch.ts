/**
 * JSON Patch (RFC 6902) applied to a JSON document (see json-document.ts: numbers may be held as
 * text), for `PATCH /v1/data/{path}`. The input is never mutated; any failing operation fails the
 * whole patch.
 */
import { z } from 'zod'
import { copyJson, isJsonContainer, isJsonObject, jsonEqual, setOwn } from './json-document.js'

/** The JSON body of a PATCH: a list of operations. */
export const jsonPatchSchema = z.array(
  z.discriminatedUnion('op', [
    z.strictObject({ op: z.literal('add'), path: z.string(), value: z.unknown() }),
    z.strictObject({ op: z.literal('replace'), path: z.string(), value: z.unknown() }),
    z.strictObject({ op: z.literal('test'), path: z.string(), value: z.unknown() }),
    z.strictObject({ op: z.literal('remove'), path: z.string() }),
    z.strictObject({ op: z.literal('move'), path: z.string(), from: z.string() }),
    z.strictObject({ op: z.literal('copy'), path: z.string(), from: z.string() }),
  ]),
)

export type JsonPatch = z.output<typeof jsonPatchSchema>

/** A patch that cannot be applied; the message names the operation and pointer. */
export class JsonPatchError extends Error {}

type Container = Record<string, unknown> | unknown[]

/** The document with every operation applied in order. @throws JsonPatchError */
export function applyJsonPatch(document: unknown, patch: JsonPatch): unknown {
  let doc = copyJson(document)
  patch.forEach((op, i) => {
    const where = `operation ${i} (${op.op} ${op.path})`
    switch (op.op) {
      case 'add':
        doc = put(doc, parsePointer(op.path, where), copyJson(op.value), 'add', where)
        break
      case 'replace':
        doc = put(doc, parsePointer(op.path, where), copyJson(op.value), 'replace', where)
        break
      case 'remove':
        doc = remove(doc, parsePointer(op.path, where), where).doc
        break
      case 'test':
        if (!jsonEqual(get(doc, parsePointer(op.path, where), where), op.value)) {
          throw new JsonPatchError(`${where}: test failed`)
        }
        break
      case 'move': {
        const from = parsePointer(op.from, where)
        const taken = remove(doc, from, where)
        doc = put(taken.doc, parsePointer(op.path, where), taken.value, 'add', where)
        break
      }
      case 'copy':
        doc = put(
          doc,
          parsePointer(op.path, where),
          copyJson(get(doc, parsePointer(op.from, where), where)),
          'add',
          where,
        )
        break
    }
  })
  return doc
}

function parsePointer(pointer: string, where: string): string[] {
  if (pointer === '') return []
  if (!pointer.startsWith('/')) throw new JsonPatchError(`${where}: a JSON pointer starts with "/"`)
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
}

function get(doc: unknown, tokens: string[], where: string): unknown {
  let node = doc
  for (const token of tokens) {
    const next = child(node, token)
    if (next === undefined) throw new JsonPatchError(`${where}: no value at the path`)
    node = next
  }
  return node
}

function child(node: unknown, token: string): unknown {
  if (Array.isArray(node)) return /^(0|[1-9]\d*)$/.test(token) ? node[Number(token)] : undefined
  if (isJsonObject(node)) return Object.hasOwn(node, token) ? node[token] : undefined
  return undefined
}

function parentOf(doc: unknown, tokens: string[], where: string): Container {
  const parent = get(doc, tokens.slice(0, -1), where)
  if (!isJsonContainer(parent)) throw new JsonPatchError(`${where}: the parent is not an object or array`)
  return parent
}

function put(
  doc: unknown,
  tokens: string[],
  value: unknown,
  mode: 'add' | 'replace',
  where: string,
): unknown {
  if (tokens.length === 0) return value
  const parent = parentOf(doc, tokens, where)
  const last = tokens.at(-1)!
  if (Array.isArray(parent)) {
    const index = last === '-' && mode === 'add' ? parent.length : Number(last)
    const max = mode === 'add' ? parent.length : parent.length - 1
    if (!/^(0|[1-9]\d*|-)$/.test(last) || index > max)
      throw new JsonPatchError(`${where}: index out of range`)
    if (mode === 'add') parent.splice(index, 0, value)
    else parent[index] = value
  } else {
    if (mode === 'replace' && !Object.hasOwn(parent, last))
      throw new JsonPatchError(`${where}: no value to replace`)
    setOwn(parent, last, value)
  }
  return doc
}

function remove(doc: unknown, tokens: string[], where: string): { doc: unknown; value: unknown } {
  if (tokens.length === 0) throw new JsonPatchError(`${where}: cannot remove the whole document`)
  const value = get(doc, tokens, where)
  const parent = parentOf(doc, tokens, where)
  const last = tokens.at(-1)!
  if (Array.isArray(parent)) parent.splice(Number(last), 1)
  else delete parent[last]
  return { doc, value }
}

/**
 * Data documents as JSON without losing numbers: OPA keeps a document's numbers as written
 * (`12345678901234567890` stays that integer), so the service parses them with lossless-json. A
 * number a JS double holds exactly is a plain `number`; any other is a `LosslessNumber` holding its
 * text. Everything that walks documents (data tree, JSON Patch) treats those as numbers, never as
 * objects.
 */
import { createHash } from 'node:crypto'
import { isLosslessNumber, isSafeNumber, LosslessNumber, parse, stringify } from 'lossless-json'
import { badRequest, parseJsonText, parseYamlText } from '../core/http/index.js'

const numberOf = (text: string): number | LosslessNumber =>
  isSafeNumber(text) ? Number(text) : new LosslessNumber(text)

/**
 * Parses a JSON document, keeping numbers a double cannot hold exactly.
 * @throws HttpError 400 naming the line and column of malformed JSON.
 */
export function parseJsonDocument(text: string): unknown {
  try {
    return parse(text, null, numberOf)
  } catch {
    parseJsonText(text) // throws the 400 that says where the text is wrong
    throw badRequest('malformed JSON body')
  }
}

/**
 * Parses a YAML document the same way: integers a double cannot hold keep their digits.
 * @throws HttpError 400 naming the line and column of malformed YAML, 413 past `maxNodes`.
 */
export function parseYamlDocument(text: string, maxNodes?: number): unknown {
  return withExactIntegers(parseYamlText(text, { intAsBigInt: true, maxNodes }))
}

/** A value read from YAML with `intAsBigInt`, each integer as a number when a double holds it exactly, else as its digits. */
export const withExactIntegers = (value: unknown): unknown =>
  mapJson(value, (leaf) => (typeof leaf === 'bigint' ? numberOf(leaf.toString()) : leaf))

/** The JSON text of a document, its numbers exactly as they were parsed. */
export function stringifyJsonDocument(value: unknown): string {
  return stringify(value) ?? 'null'
}

/** The strong ETag of a document's JSON text. */
export function documentEtag(text: string): string {
  return `"${createHash('sha256').update(text).digest('hex').slice(0, 32)}"`
}

/** A JSON object (not an array, not a number held as text). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value)
}

/** A JSON object or array: something a pointer can step into. */
export function isJsonContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return Array.isArray(value) || isJsonObject(value)
}

/** A deep copy (numbers held as text are immutable and shared). */
export function copyJson<T>(value: T): T {
  return mapJson(value, (leaf) => leaf) as T
}

/** A deep copy of arrays and objects with `leaf` applied to every other value. */
function mapJson(value: unknown, leaf: (value: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => mapJson(v, leaf))
  if (!isJsonObject(value)) return leaf(value)
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) setOwn(out, k, mapJson(v, leaf))
  return out
}

/** Sets an own data property, so a key such as `__proto__` is stored as data, never as a prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
}

/** JSON equality: numbers by value (`1`, `1.0` and a held `1` are equal), objects key by key. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  const na = numberText(a)
  const nb = numberText(b)
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && sameNumber(na, nb)
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]))
    )
  }
  if (!isJsonObject(a) || !isJsonObject(b)) return false
  const keys = Object.keys(a)
  return (
    keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]))
  )
}

function numberText(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value)
  return isLosslessNumber(value) ? value.value : undefined
}

const INTEGER = /^-?\d+$/

function sameNumber(a: string, b: string): boolean {
  if (INTEGER.test(a) && INTEGER.test(b)) return BigInt(a) === BigInt(b)
  return Number(a) === Number(b)
}

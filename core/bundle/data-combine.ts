/**
 * Combining several data sources that land at the same data path into one `data.json`, without
 * losing number lexemes: JSON is parsed with lossless-json, merged key by key and printed again,
 * so `2.50` and 30-digit integers survive a merge of bundles or a `regent build` of loose files.
 * Sources alone at their path are kept byte for byte.
 */
import { isLosslessNumber, parse, stringify } from 'lossless-json'
import { parseYamlData } from './data.js'
import { bundleError, reason } from './errors.js'
import type { BundleDataFile } from './types.js'

/** A data document and where it goes. */
export interface DataSource {
  /** Slash path under `data` ('' for the root). */
  dataPath: string
  raw: Uint8Array
  /** How errors name it: a file path, or `bundle x: a/data.json`. */
  name: string
  format: 'json' | 'yaml'
}

const decoder = new TextDecoder()
const encoder = new TextEncoder()

/**
 * One data file per data path: `P/data.json` (or the source's own name when it is alone there).
 * @throws BundleError `bundle_data_conflict` naming both sources, `bundle_data_invalid` for bad input.
 */
export function combineData(sources: readonly DataSource[]): BundleDataFile[] {
  const byPath = new Map<string, DataSource[]>()
  for (const source of sources) {
    const group = byPath.get(source.dataPath)
    if (group) group.push(source)
    else byPath.set(source.dataPath, [source])
  }
  const out: BundleDataFile[] = []
  for (const [dataPath, group] of byPath) {
    const prefix = dataPath === '' ? '' : `${dataPath}/`
    const only = group.length === 1 ? group[0]! : undefined
    if (only) {
      out.push({ path: `${prefix}data.${only.format}`, raw: only.raw })
      continue
    }
    let merged: unknown
    let first = ''
    for (const source of group) {
      const value = parseLossless(source)
      if (merged === undefined) {
        merged = value
        first = source.name
        continue
      }
      const conflict = mergeLossless(merged, value, [])
      if (conflict) {
        const where = ['data', ...dataPath.split('/').filter(Boolean), ...conflict].join('.')
        throw bundleError('bundle_data_conflict', `${source.name} conflicts with ${first} at ${where}`)
      }
    }
    out.push({ path: `${prefix}data.json`, raw: encoder.encode(stringify(merged) ?? 'null') })
  }
  return out
}

function parseLossless(source: DataSource): unknown {
  const text = decoder.decode(source.raw)
  if (source.format === 'yaml') return parseYamlData(text, source.name)
  try {
    return parse(text)
  } catch (err) {
    throw bundleError('bundle_data_invalid', `${source.name} is not valid JSON: ${reason(err)}`, err)
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value)
}

// Merges `value` into `target` (both objects); returns the key path of the first clash.
function mergeLossless(target: unknown, value: unknown, at: string[]): string[] | undefined {
  if (!isPlainObject(target) || !isPlainObject(value)) return at
  for (const [key, child] of Object.entries(value)) {
    if (!Object.hasOwn(target, key)) {
      Object.defineProperty(target, key, {
        value: child,
        enumerable: true,
        writable: true,
        configurable: true,
      })
      continue
    }
    const conflict = mergeLossless(target[key], child, [...at, key])
    if (conflict) return conflict
  }
  return undefined
}

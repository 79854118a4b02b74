/**
 * Data files and the merged data tree. `a/b/data.json` is placed at `data.a.b`; objects from
 * several files merge key by key, and two files that both set the same non-object value conflict
 * (OPA: "failed to insert data file"). YAML is read as YAML 1.1, the dialect of the Go YAML
 * library OPA uses, so `yes` is `true` there as here.
 */
import { readYaml, YamlError } from '../yaml.js'
import { binaryJsonToText, binaryJsonToValue, isBinaryJson } from './binary-json-read.js'
import { bundleError, reason } from './errors.js'
import { dataPathOf } from './paths.js'
import type { BundleDataFile } from './types.js'

const decoder = new TextDecoder()

/** The value of one data file, parsed as JSON or YAML by its name. */
export function parseDataFile(file: BundleDataFile): unknown {
  if (file.path.endsWith('.json') && isBinaryJson(file.raw)) {
    try {
      return binaryJsonToValue(file.raw) // built directly, as JSON.parse would give it
    } catch (err) {
      throw bundleError(
        'bundle_data_invalid',
        `data file ${file.path} is not valid binary JSON: ${reason(err)}`,
        err,
      )
    }
  }
  const text = decoder.decode(file.raw)
  if (file.path.endsWith('.json')) {
    try {
      return JSON.parse(text)
    } catch (err) {
      throw bundleError(
        'bundle_data_invalid',
        `data file ${file.path} is not valid JSON: ${reason(err)}`,
        err,
      )
    }
  }
  return parseYamlData(text, `data file ${file.path}`)
}

/**
 * The text of a data file; a `data.json` in the reference tool's binary JSON (a binary bundle
 * made by `bundle convert`) is turned into JSON text first, so binary bundles load everywhere
 * tarballs do.
 * @throws BundleError `bundle_data_invalid` when the binary JSON is malformed.
 */
export function dataFileText(file: BundleDataFile): string {
  if (!file.path.endsWith('.json') || !isBinaryJson(file.raw)) return decoder.decode(file.raw)
  try {
    return binaryJsonToText(file.raw)
  } catch (err) {
    throw bundleError(
      'bundle_data_invalid',
      `data file ${file.path} is not valid binary JSON: ${reason(err)}`,
      err,
    )
  }
}

/**
 * A YAML text as a JSON-like value, read as Go's YAML library reads it: YAML 1.1 scalars,
 * timestamps kept as strings, aliases bounded. `exactIntegers` gives integers as bigint (for
 * hashing, where `12345678901234567890` must stay exact). `what` names the text in errors.
 */
export function parseYamlData(
  text: string,
  what: string,
  options: { exactIntegers?: boolean } = {},
): unknown {
  try {
    // No node bound here: a bundle's size is bounded as a whole (readBundle's maxInflatedBytes).
    const value = readYaml(text, {
      version: '1.1',
      intAsBigInt: options.exactIntegers ?? false,
      timestampsAsStrings: true,
      maxNodes: Number.POSITIVE_INFINITY,
    })
    return value ?? null
  } catch (err) {
    if (!(err instanceof YamlError)) throw err
    throw bundleError('bundle_data_invalid', `${what} is not valid YAML: ${err.message}`, err)
  }
}

/** Whether `value` is a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The data tree of all data files, each placed at its directory path.
 * @throws BundleError `bundle_data_invalid` for a bad file, `bundle_data_conflict` naming both files.
 */
export function mergeDataFiles(files: readonly BundleDataFile[]): Record<string, unknown> {
  const tree: Record<string, unknown> = {}
  const placed: Array<{ file: string; segments: string[] }> = []
  for (const file of files) {
    const value = parseDataFile(file)
    const dataPath = dataPathOf(file.path)
    const segments = dataPath === '' ? [] : dataPath.split('/')
    if (segments.length === 0 && !isObject(value)) {
      throw bundleError(
        'bundle_data_invalid',
        `data file ${file.path} at the bundle root must hold a JSON object`,
      )
    }
    const conflictAt = insertValue(tree, segments, value)
    if (conflictAt) {
      const other = placed.find((p) => isPrefix(p.segments, conflictAt) || isPrefix(conflictAt, p.segments))
      throw bundleError(
        'bundle_data_conflict',
        `data file ${file.path} conflicts with ${other?.file ?? 'another data file'} at data.${conflictAt.join('.')}`,
      )
    }
    placed.push({ file: file.path, segments })
  }
  return tree
}

/**
 * Merges `value` into `tree` at `segments`; on conflict returns the path where two non-objects
 * met, leaving `tree` partly merged (the caller fails anyway).
 */
export function insertValue(
  tree: Record<string, unknown>,
  segments: readonly string[],
  value: unknown,
): string[] | undefined {
  let node = tree
  for (let i = 0; i < segments.length; i++) {
    const key = segments[i]!
    const existing = Object.hasOwn(node, key) ? node[key] : undefined
    if (i === segments.length - 1) {
      if (existing === undefined) {
        setOwn(node, key, value)
        return undefined
      }
      return mergeInto(existing, value, segments.slice(0, i + 1), (merged) => setOwn(node, key, merged))
    }
    if (existing === undefined) {
      const child: Record<string, unknown> = {}
      setOwn(node, key, child)
      node = child
    } else if (isObject(existing)) node = existing
    else return segments.slice(0, i + 1)
  }
  return mergeInto(tree, value, [], () => {})
}

function mergeInto(
  target: unknown,
  value: unknown,
  at: string[],
  replace: (v: unknown) => void,
): string[] | undefined {
  if (!isObject(target) || !isObject(value)) return at
  for (const [key, child] of Object.entries(value)) {
    if (!Object.hasOwn(target, key)) {
      setOwn(target, key, child)
      continue
    }
    const conflict = mergeInto(target[key], child, [...at, key], (v) => setOwn(target, key, v))
    if (conflict) return conflict
  }
  replace(target)
  return undefined
}

// `__proto__` is a legal data key; assigning it would change the prototype instead.
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

function isPrefix(prefix: readonly string[], path: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((segment, i) => path[i] === segment)
}

/**
 * What `regent run -s` loads before it listens: positional paths as OPA's loader reads them (`.rego`
 * files are modules with their path as id; every `.json`/`.yaml` file is data rooted at its
 * directory; `prefix:path` roots a path under `data.prefix`) and bundles (directories or .tar.gz,
 * optionally verified). Numbers in data keep their exact text. Bundle modules get the id
 * `<bundle path>/<module path>`, and each bundle's manifest roots are kept so later writes under
 * them are refused, as OPA does.
 */
import { readFile, stat } from 'node:fs/promises'
import { posix } from 'node:path'
import { dataFileText, parseYamlData } from '../core/bundle/data.js'
import { type Bundle, BundleError, readBundle, type VerificationConfig } from '../core/bundle/index.js'
import { dataPathOf } from '../core/bundle/paths.js'
import { loadPolicy } from '../core/bundle/policy-files.js'
import { rootsOverlap } from '../core/bundle/roots.js'
import { parseModule, RegoErrors } from '../core/rego/index.js'
import { fromJS, isObject, ObjectValue, parseJSON, type Value } from '../core/rego/values/index.js'
import type { ActiveBundle, StoredPolicy } from './state.js'

/** What to load. */
export interface LoadRequest {
  /** Positional paths: files and directories, `prefix:path` allowed. */
  paths: string[]
  /** Bundle directories or tarballs. */
  bundles: string[]
  /** Basename globs to skip. */
  ignore: string[]
  regoVersion: 'v0' | 'v1'
  /** When given, each bundle's `.signatures.json` is verified before it is used. */
  verification?: VerificationConfig
}

/** The initial policies, data and bundles. */
export interface LoadedState {
  policies: StoredPolicy[]
  data: ObjectValue
  bundles: ActiveBundle[]
}

/**
 * Loads everything; throws `RegoErrors` for modules that do not parse and an `Error` naming the
 * file for unreadable files, bad bundles, failed verification and data conflicts.
 */
export async function loadInitialState(request: LoadRequest): Promise<LoadedState> {
  const files = await loadPolicy({
    paths: request.paths,
    ignore: request.ignore,
    allDataFiles: true,
    ...(request.regoVersion === 'v0' ? { v0: true } : {}),
  })
  const policies: StoredPolicy[] = [...files.modules].map(([id, module]) => ({
    id,
    module,
    raw: files.sources.get(id) ?? '',
  }))
  const data = isObject(files.data) ? files.data : new ObjectValue()
  let loaded: LoadedState = { policies, data, bundles: [] }
  for (const name of request.bundles) {
    loaded = withBundle(loaded, name, await readNamedBundle(name, request), request.regoVersion)
  }
  return loaded
}

/**
 * `state` with one more bundle: its modules (ids `<name>/<path>`) and data added, its roots
 * recorded. Used for bundles given with `-b` and for bundles downloaded by `-c` configurations.
 * @throws Error on overlapping roots or data conflicts; RegoErrors for modules that do not parse.
 */
export function withBundle(
  state: LoadedState,
  name: string,
  bundle: Bundle,
  regoVersion: 'v0' | 'v1',
  activatedAt = new Date().toISOString(),
): LoadedState {
  const policies = [...state.policies]
  let data = state.data
  const bundles = state.bundles
  const parseErrors: RegoErrors[] = []
  const roots = bundle.manifest.roots ?? ['']
  for (const other of bundles) {
    for (const a of roots) {
      for (const b of other.roots) {
        if (rootsOverlap(a, b)) {
          throw new Error(
            `detected overlapping roots in bundle manifests: ${name} (${a}) and ${other.name} (${b})`,
          )
        }
      }
    }
  }
  for (const m of bundle.modules) {
    const id = posix.join(name, m.path)
    try {
      const module = parseModule(m.source, {
        file: id,
        regoVersion: moduleVersion(bundle.manifest, m.path, regoVersion),
      })
      policies.push({ id, raw: m.source, module })
    } catch (err) {
      if (err instanceof RegoErrors) parseErrors.push(err)
      else throw err
    }
  }
  for (const file of bundle.dataFiles) {
    const at = dataPathOf(file.path)
    data = mergeAt(data, at === '' ? [] : at.split('/'), parseDataFile(name, file.path, file.raw), name)
  }
  const active: ActiveBundle = {
    name,
    revision: bundle.manifest.revision ?? '',
    roots: [...roots],
    activatedAt,
  }
  if (parseErrors.length > 0) throw new RegoErrors(parseErrors.flatMap((e) => e.errors))
  return { policies, data, bundles: [...bundles, active] }
}

async function readNamedBundle(name: string, request: LoadRequest) {
  let info: Awaited<ReturnType<typeof stat>>
  try {
    info = await stat(name)
  } catch (err) {
    throw new Error(`bundle ${name}: ${(err as Error).message}`)
  }
  try {
    const bundle = await readBundle(info.isDirectory() ? { dir: name } : await readFile(name), {
      ignore: request.ignore,
      ...(request.verification ? { verification: request.verification } : {}),
    })
    if (bundle.patch) throw new Error('delta bundles cannot be loaded with -b (they patch a running bundle)')
    return bundle
  } catch (err) {
    if (err instanceof BundleError || err instanceof Error) throw new Error(`bundle ${name}: ${err.message}`)
    throw err
  }
}

/** The Rego version of a bundle module: `file_rego_versions`, then `rego_version`, then the flag. */
function moduleVersion(
  manifest: { rego_version?: number; file_rego_versions?: Record<string, number> },
  path: string,
  fallback: 'v0' | 'v1',
): 'v0' | 'v1' {
  const perFile = manifest.file_rego_versions?.[path] ?? manifest.file_rego_versions?.[`/${path}`]
  const version = perFile ?? manifest.rego_version
  if (version === 0) return 'v0'
  if (version === 1) return 'v1'
  return fallback
}

function parseDataFile(bundle: string, path: string, raw: Uint8Array): Value {
  const text = dataFileText({ path, raw }) // binary bundles (`regent bundle convert`) included
  if (path.endsWith('.json')) {
    try {
      return parseJSON(text)
    } catch (err) {
      throw new Error(`bundle ${bundle}: data file ${path} is not valid JSON: ${(err as Error).message}`)
    }
  }
  return fromJS(parseYamlData(text, `bundle ${bundle}: data file ${path}`, { exactIntegers: true }))
}

/** `value` merged into `doc` at `path`: objects merge key by key, anything else conflicts. */
function mergeAt(doc: ObjectValue, path: readonly string[], value: Value, source: string): ObjectValue {
  const merge = (a: Value | undefined, b: Value, at: string[]): Value => {
    if (a === undefined) return b
    if (isObject(a) && isObject(b)) {
      const out = a.copy()
      for (const [k, v] of b.entries()) out.set(k, merge(a.get(k), v, [...at, String(k)]))
      return out
    }
    throw new Error(`${source}: data conflicts with other data at data.${at.join('.')}`)
  }
  const insert = (node: Value | undefined, depth: number): Value => {
    if (depth === path.length) return merge(node, value, [...path])
    const obj = node === undefined ? new ObjectValue() : node
    if (!isObject(obj))
      throw new Error(`${source}: data conflicts with other data at data.${path.slice(0, depth).join('.')}`)
    const key = path[depth] as string
    return obj.copy().set(key, insert(obj.get(key), depth + 1))
  }
  return insert(doc, 0) as ObjectValue
}

/**
 * Loading policies and data for `regent eval` and `regent test`, as OPA's loader does:
 * `-d` paths are files or directories (`.rego` files are modules; inside directories only
 * `data.json`/`data.yaml`/`data.yml` are data, rooted at their directory path; a data file named
 * directly is rooted at `data`), `prefix:path` roots a path under `data.prefix`, and `-b` paths
 * are bundles (directories or .tar.gz files).
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { basename, join, relative, sep } from 'node:path'
import { RegoErrors } from '../rego/errors.js'
import type { Module } from '../rego/syntax/ast.js'
import { parseModule } from '../rego/syntax/module-parser.js'
import { fromJS, isObject, ObjectValue, parseJSON, type Value } from '../rego/values/index.js'
import { readYaml } from '../yaml.js'
import { bundleModuleVersion } from './bundle-compile.js'
import { globMatch } from './glob.js'

/** What was loaded. */
export interface LoadedPolicy {
  modules: Map<string, Module>
  /** Module sources by file name (for coverage and error excerpts). */
  sources: Map<string, string>
  data: Value
  /** The `-b` bundles as loaded, in order: the path as given and the manifest's revision. */
  bundles: LoadedBundle[]
}

/** One `-b` bundle (what the status report and decision logs name it by). */
export interface LoadedBundle {
  /** The path as given, which is the bundle's name, as OPA names bundles loaded from disk. */
  name: string
  revision: string
  /** Bytes of the tarball; absent for a directory. */
  size?: number
}

/** Options for {@link loadPolicy}. */
export interface LoadOptions {
  /** Paths given with `-d` (or positional paths for `regent test`). */
  paths: string[]
  /** Paths given with `-b`. */
  bundles?: string[]
  /** Basename globs to skip (only `*` is supported). */
  ignore?: string[]
  /** Parse modules as Rego v0. */
  v0?: boolean
  /** Load every .json/.yaml file found in directories as data (`regent test`), not only data.json. */
  allDataFiles?: boolean
}

const DATA_FILES = new Set(['data.json', 'data.yaml', 'data.yml'])

/**
 * Parses a JSON or YAML document without losing big numbers (JSON). JSON as Go decodes it for
 * OPA: the last of duplicate keys wins.
 */
export function parseDocument(text: string, file: string): Value {
  try {
    if (/\.ya?ml$/i.test(file)) {
      // Files named on the command line: linear reading, no node bound.
      return fromJS(readYaml(text, { maxNodes: Number.POSITIVE_INFINITY }) ?? null)
    }
    return parseJSON(text)
  } catch (err) {
    throw new Error(`${file}: ${err instanceof Error ? err.message : String(err)}`)
  }
}

/** Loads modules and data; throws `RegoErrors` for parse errors and Error for I/O and data conflicts. */
export async function loadPolicy(options: LoadOptions): Promise<LoadedPolicy> {
  const out: LoadedPolicy = { modules: new Map(), sources: new Map(), data: new ObjectValue(), bundles: [] }
  const parseErrors: RegoErrors[] = []
  const addModule = (file: string, text: string, regoVersion: 'v0' | 'v1' = options.v0 ? 'v0' : 'v1') => {
    try {
      out.modules.set(file, parseModule(text, { file, regoVersion }))
      out.sources.set(file, text)
    } catch (err) {
      if (err instanceof RegoErrors) parseErrors.push(err)
      else throw err
    }
  }
  /** Adds the bundle at `path`: each module under `moduleId(its path)`, its data at `dataPath`. */
  const addBundle = async (path: string, dataPath: string[], moduleId: (modulePath: string) => string) => {
    const isDir = (await stat(path)).isDirectory()
    // The bundle reader (tar, signatures) loads only for a bundle: `regent test x.rego` need not pay for it.
    const { readBundle } = await import('./index.js')
    const bytes = isDir ? undefined : await readFile(path)
    const bundle = await readBundle(bytes ?? { dir: path }, {
      ...(options.ignore ? { ignore: options.ignore } : {}),
    })
    const { manifest } = bundle
    // The manifest's rego_version wins; without one, the flag decides.
    const stated = manifest.rego_version !== undefined || manifest.file_rego_versions !== undefined
    for (const m of bundle.modules) {
      addModule(moduleId(m.path), m.source, stated ? bundleModuleVersion(manifest, m.path) : undefined)
    }
    out.data = insertAt(out.data, dataPath, fromJS(bundle.data), path)
    return { name: path, revision: manifest.revision ?? '', ...(bytes ? { size: bytes.byteLength } : {}) }
  }
  for (const spec of options.paths) {
    const { prefix, path } = splitPrefix(spec)
    const info = await stat(path)
    if (info.isDirectory()) {
      for (const file of await walk(path, options.ignore ?? [])) {
        const name = basename(file)
        if (file.endsWith('.rego')) addModule(file, await readFile(file, 'utf8'))
        else if (DATA_FILES.has(name) || (options.allDataFiles && /\.(json|ya?ml)$/i.test(name))) {
          const rel = relative(path, join(file, '..'))
          const segments = [...prefix, ...(rel === '' ? [] : rel.split(sep))]
          out.data = insertAt(out.data, segments, parseDocument(await readFile(file, 'utf8'), file), file)
        }
      }
    } else if (path.endsWith('.rego')) {
      addModule(path, await readFile(path, 'utf8'))
    } else if (isTarball(path)) {
      await addBundle(path, prefix, (m) => `${path}/${m}`)
    } else {
      out.data = insertAt(out.data, prefix, parseDocument(await readFile(path, 'utf8'), path), path)
    }
  }
  for (const b of options.bundles ?? []) {
    const isDir = (await stat(b)).isDirectory()
    out.bundles.push(await addBundle(b, [], (m) => (isDir ? join(b, m) : `/${m}`)))
  }
  if (parseErrors.length > 0) throw new RegoErrors(parseErrors.flatMap((e) => e.errors))
  return out
}

/** A bundle tarball, by OPA's loader's rule: the name ends in `.tar.gz`. */
export const isTarball = (path: string): boolean => path.endsWith('.tar.gz')

function splitPrefix(spec: string): { prefix: string[]; path: string } {
  const m = /^([A-Za-z_][\w.]*):(.+)$/.exec(spec)
  if (!m || /^[A-Za-z]:[\\/]/.test(spec) || spec.startsWith('file://')) {
    return { prefix: [], path: spec.replace(/^file:\/\//, '') }
  }
  return { prefix: (m[1] as string).split('.'), path: m[2] as string }
}

async function walk(dir: string, ignore: string[]): Promise<string[]> {
  const out: string[] = []
  const skip = (name: string) => ignore.some((pattern) => globMatch(pattern, name))
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    if (skip(entry.name)) continue
    const p = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...(await walk(p, ignore)))
    else if (entry.isFile()) out.push(p)
  }
  return out
}

/**
 * The files under `paths` that `accept` takes: a file named in `paths` is taken as given,
 * directories are walked with their entries in name order. Files and directories whose base name
 * matches an `ignore` glob (Go's `filepath.Match`, core/bundle/glob.ts) are left out.
 * @example await filesUnder(['policies'], (p) => p.endsWith('.rego'))
 */
export async function filesUnder(
  paths: readonly string[],
  accept: (path: string) => boolean,
  ignore: readonly string[] = [],
): Promise<string[]> {
  const out: string[] = []
  const ignored = (name: string) => ignore.some((pattern) => globMatch(pattern, name))
  const visit = async (path: string, explicit: boolean): Promise<void> => {
    // As OPA's loader: a named path whose base name matches is skipped too.
    if (ignored(basename(path))) return
    const info = await stat(path)
    if (info.isDirectory()) {
      for (const entry of (await readdir(path)).sort()) await visit(join(path, entry), false)
    } else if (explicit || accept(path)) {
      out.push(path)
    }
  }
  for (const path of paths) await visit(path, true)
  return out
}

/** Merges `value` into `doc` at `path`; two non-objects at one path conflict. */
function insertAt(doc: Value, path: readonly string[], value: Value, file: string): Value {
  if (path.length === 0) return mergeDocs(doc, value, file, [])
  const obj = isObject(doc) ? doc.copy() : new ObjectValue()
  const [head, ...rest] = path as [string, ...string[]]
  const child = obj.get(head)
  obj.set(head, insertAt(child ?? new ObjectValue(), rest, value, file))
  return obj
}

function mergeDocs(a: Value, b: Value, file: string, at: string[]): Value {
  if (isObject(a) && isObject(b)) {
    const out = a.copy()
    for (const [k, v] of b.entries()) {
      const prev = out.get(k)
      out.set(k, prev === undefined ? v : mergeDocs(prev, v, file, [...at, String(k)]))
    }
    return out
  }
  if (isObject(a) && a.size === 0) return b
  throw new Error(`${file}: data conflicts at data.${at.join('.')}`)
}

/**
 * A commit's files under the origin's path, as OPA loads a bundle directory: every `.rego` file
 * is a module (at its path below the folder), every `data.json`, `data.yaml` or `data.yml` is the
 * document at its directory (`a/b/data.json` is `data.a.b`). Other files are ignored.
 */
import { posix } from 'node:path'
import { parseModuleWithErrors } from '../../core/rego/index.js'
import { ContentError, type ContentModule } from '../bundle-builder.js'
import { DataConflictError, placeAt } from '../data-tree.js'
import type { TreeFiles } from '../git/index.js'
import { parseJsonDocument, parseYamlDocument } from '../json-document.js'

const DATA_FILES = new Set(['data.json', 'data.yaml', 'data.yml'])

/** Whether a file below the origin's path is part of the bundle. */
export function isBundleFile(path: string): boolean {
  return path.endsWith('.rego') || DATA_FILES.has(posix.basename(path))
}

export interface CommitContent {
  modules: ContentModule[]
  data: Record<string, unknown>
  /** The data paths the content defines (package paths and data folders), slash-separated, none inside another. */
  roots: string[]
}

/** The folder's path as the repository names it ('' for the root), for naming files in errors. */
function prefixed(folder: string, file: string): string {
  const base = folder.replace(/^\/+|\/+$/g, '')
  return base === '' || base === '.' ? file : `${base}/${file}`
}

function packageRoot(source: string): string | undefined {
  const { module } = parseModuleWithErrors(source)
  const terms = module?.package.path.slice(1) ?? []
  const parts: string[] = []
  for (const term of terms) {
    if (term.type !== 'string') break
    parts.push(String(term.value))
  }
  return parts.length === terms.length ? parts.join('/') : undefined
}

/** Keeps the roots no other root contains ('' contains everything). */
function minimalRoots(roots: Iterable<string>): string[] {
  const sorted = [...new Set(roots)].sort()
  return sorted.filter(
    (root) => !sorted.some((other) => other !== root && (other === '' || root.startsWith(`${other}/`))),
  )
}

/**
 * The modules, data and roots of `tree` (the files under `folder`).
 * @throws ContentError naming each data file that does not parse or does not fit.
 */
export function commitContent(tree: TreeFiles, folder: string, maxYamlNodes?: number): CommitContent {
  const modules: ContentModule[] = []
  const data: Record<string, unknown> = {}
  const roots: string[] = []
  const problems: string[] = []
  for (const path of Object.keys(tree.files).sort()) {
    const text = tree.files[path]!
    const name = prefixed(folder, path)
    if (path.endsWith('.rego')) {
      modules.push({ bundlePath: path, name, source: text })
      const root = packageRoot(text)
      if (root !== undefined) roots.push(root)
      continue
    }
    const dir = posix.dirname(path)
    const segments = dir === '.' ? [] : dir.split('/')
    try {
      const value = path.endsWith('.json') ? parseJsonDocument(text) : parseYamlDocument(text, maxYamlNodes)
      placeAt(data, segments, value, name)
      roots.push(segments.join('/'))
    } catch (err) {
      const message = (err as Error).message
      problems.push(err instanceof DataConflictError ? message : `${name}: ${message}`)
    }
  }
  if (problems.length > 0) throw new ContentError(problems)
  return { modules, data, roots: minimalRoots(roots) }
}

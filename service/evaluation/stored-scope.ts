/**
 * What a data evaluation sees of the store, chosen by the path: under `systems/{id}` the system's
 * bundle content (its modules, and its data documents placed relative to `systems/{id}`, as the
 * bundle builder places them), and the rest of the path is the document inside it; elsewhere the
 * workspace's content that belongs to no system, placed at its full path. A sandbox request loads
 * nothing stored but reads the path the same way.
 */
import { conflict, notFound } from '../../core/http/index.js'
import type { ServiceStore } from '../../store/service/index.js'
import { DataConflictError, placeAt } from '../data-tree.js'
import { parseJsonDocument } from '../json-document.js'
import { systemOfPath } from '../validation.js'

/** Stored modules and data, and the document path inside them. */
export interface StoredScope {
  /** The system the path is in, or null for the workspace. */
  systemId: string | null
  /** File name (policy path / file) → Rego source. */
  modules: Record<string, string>
  data: Record<string, unknown>
  /** The path's segments inside the scope (after `systems/{id}`). */
  path: string[]
}

/** Loads the scope of `path` (slash path, '' for the root); 404 for a system that does not exist. */
export async function loadStoredScope(
  store: ServiceStore,
  path: string,
  sandbox: boolean,
): Promise<StoredScope> {
  const segments = path === '' ? [] : path.split('/')
  const systemId = systemOfPath(path)
  const inner = systemId === null ? segments : segments.slice(2)
  const scope: StoredScope = { systemId, modules: {}, data: {}, path: inner }
  if (sandbox) return scope
  if (systemId !== null && !(await store.systems.exists(systemId)))
    throw notFound(`system ${systemId} not found`)
  const prefix = systemId === null ? '' : `systems/${systemId}`
  const [policies, documents] =
    systemId === null
      ? await Promise.all([store.policies.list(), store.dataDocuments.listBelow('')])
      : await Promise.all([
          store.policies.listForSystem(systemId),
          store.dataDocuments.listForSystem(systemId),
        ])
  for (const policy of policies) {
    if (policy.system_id !== (systemId ?? null)) continue
    for (const [file, source] of Object.entries(JSON.parse(policy.modules) as Record<string, string>))
      scope.modules[`${policy.path}/${file}`] = source
  }
  try {
    for (const doc of documents) {
      if (doc.system_id !== (systemId ?? null)) continue
      const rel = prefix === '' ? doc.path : doc.path === prefix ? '' : doc.path.slice(prefix.length + 1)
      placeAt(scope.data, rel === '' ? [] : rel.split('/'), parseJsonDocument(doc.value), `data ${doc.path}`)
    }
  } catch (err) {
    if (err instanceof DataConflictError) throw conflict(err.message)
    throw err
  }
  return scope
}

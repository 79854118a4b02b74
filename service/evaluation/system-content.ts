/**
 * A system's content as its bundle holds it, for evaluating against: for a system built from the
 * store, its stored modules and data; for a system built from git, the modules and data files of
 * a commit (the one the system follows, or one a decision replay names) with the data stored for
 * the system (datasources, PUT /v1/data) placed over them, as the bundle builder places them.
 * Decision replay starts its candidate from it; data evaluation under `systems/{id}` of a system
 * built from git reads its modules and data from it.
 */
import { badRequest, conflict, notFound } from '../../core/http/index.js'
import type { SystemRow } from '../../store/service/index.js'
import { ContentError, SourceUnavailableError } from '../bundle-builder.js'
import { DataConflictError, placeAt } from '../data-tree.js'
import { readTree } from '../git/index.js'
import { resolveReference } from '../git/refs.js'
import { type GitOrigin, gitOrigin, originFieldsOf } from '../git-origin/origin.js'
import { commitContent, isBundleFile } from '../git-source/content.js'
import { copyJson, parseJsonDocument } from '../json-document.js'
import { answeringGitErrors } from '../source-control/git-http-error.js'
import { openRepository } from '../source-control/repository.js'
import type { ServiceDeps } from '../types.js'
import { loadStoredScope } from './stored-scope.js'

export interface SystemContent {
  /** Module name → Rego source: `<policy path>/<file>` when stored, the repository path from git. */
  modules: Record<string, string>
  data: Record<string, unknown>
  /** The commit the modules come from, for a system built from git. */
  commit?: string
}

/**
 * The content of `systemId`; `commit` (a SHA, branch or tag of the system's origin) replaces
 * the commit the system follows.
 * @throws HttpError 404 for an unknown system or commit, 400 for a `commit` on a system not built
 *   from git or a commit whose files do not make a bundle, 409 when the system was never synced.
 */
export async function loadSystemContent(
  deps: ServiceDeps,
  systemId: string,
  commit?: string,
): Promise<SystemContent> {
  const system = await deps.store.systems.get(systemId)
  if (!system) throw notFound(`system ${systemId} not found`)
  const fields = originFieldsOf(system)
  if (!fields) {
    if (commit !== undefined)
      throw badRequest(`commit: system ${systemId} is not built from git (it has no source_control.origin)`)
    const scope = await loadStoredScope(deps.store, `systems/${systemId}`, false)
    return { modules: scope.modules, data: scope.data }
  }
  const content =
    commit === undefined
      ? await followedCommit(deps, system)
      : await commitFiles(deps, gitOrigin(fields), commit)
  return {
    modules: content.modules,
    data: await withStoredData(deps, systemId, content.data),
    commit: content.commit,
  }
}

interface CommitFiles {
  modules: Record<string, string>
  data: Record<string, unknown>
  commit: string
}

/** The content of the commit the system's last sync recorded, as its bundle was built from. */
async function followedCommit(deps: ServiceDeps, system: SystemRow): Promise<CommitFiles> {
  try {
    const content = await deps.gitSource.content(system)
    const commit = (await deps.store.gitSync.get(system.id))?.commit_sha
    if (!content || !commit) throw new SourceUnavailableError([`system ${system.id} has no synced commit`])
    return {
      modules: Object.fromEntries(content.modules.map((m) => [m.name, m.source])),
      data: content.data,
      commit,
    }
  } catch (err) {
    if (err instanceof SourceUnavailableError)
      throw conflict(
        `system ${system.id} has no synced commit to evaluate against yet: ${err.problems.join('; ')}`,
      )
    if (err instanceof ContentError) throw badRequest(`commit: ${err.problems.join('; ')}`)
    throw err
  }
}

/** The modules and data files of `reference` under the origin's path, fetched first. */
async function commitFiles(deps: ServiceDeps, origin: GitOrigin, reference: string): Promise<CommitFiles> {
  const { commit, tree } = await answeringGitErrors(
    async () => {
      const repo = await openRepository(deps, origin, 'source_control.origin.')
      const resolved = await resolveReference(repo, reference, 'commit')
      const files = await readTree(repo, resolved.commit, origin.path, { include: isBundleFile })
      return { commit: resolved.commit, tree: files }
    },
    // The layer names a reference it cannot find `reference`; the request calls it `commit`.
    { rename: (field) => (field === 'reference' ? 'commit' : field) },
  )
  try {
    const content = commitContent(tree, origin.path, deps.config.limits.max_yaml_nodes)
    return {
      modules: Object.fromEntries(content.modules.map((m) => [m.name, m.source])),
      data: content.data,
      commit,
    }
  } catch (err) {
    if (err instanceof ContentError) throw badRequest(`commit: ${commit}: ${err.problems.join('; ')}`)
    throw err
  }
}

/** `base` with the documents stored under `systems/{id}` placed over it (the bundle builder's rule). */
async function withStoredData(
  deps: ServiceDeps,
  systemId: string,
  base: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const prefix = `systems/${systemId}`
  const data = copyJson(base)
  try {
    for (const doc of await deps.store.dataDocuments.listForSystem(systemId)) {
      const rel = doc.path === prefix ? '' : doc.path.slice(prefix.length + 1)
      placeAt(data, rel === '' ? [] : rel.split('/'), parseJsonDocument(doc.value), `data ${doc.path}`)
    }
  } catch (err) {
    if (err instanceof DataConflictError) throw conflict(err.message)
    throw err
  }
  return data
}

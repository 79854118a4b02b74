/**
 * A system's git repository (docs/git.md, "Endpoints"): verify a GitRepoConfig before it is used,
 * commit files to a branch, read the files the system follows (or a branch's), and read or delete
 * a branch. Who may call them is the route table's business (service/authz/route-table.ts);
 * every call is recorded by the activity middleware, whose bodies carry secret ids, never values.
 */
import { Hono } from 'hono'
import { badRequest, conflict, readStructuredBody } from '../../core/http/index.js'
import { deleteBranch } from '../git/index.js'
import { branchName } from '../git/refs.js'
import { checkCommitBody } from '../source-control/commit-input.js'
import { answeringGitErrors, gitHttpError } from '../source-control/git-http-error.js'
import { systemOrigin } from '../source-control/origin.js'
import { branchChanges, branchHead, masterFiles, originBranch } from '../source-control/repo-files.js'
import { openRepository, originCommit } from '../source-control/repository.js'
import {
  commitToSystemBranch,
  folderRelativeField,
  movesFollowedBranch,
} from '../source-control/system-commit.js'
import { verifyConfig } from '../source-control/verify-config.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId, envelope } from '../validation.js'

/** Runs a synchronous check of the git layer, answering its GitError as an HTTP error. */
function gitHttpErrorsNow<T>(check: () => T): T {
  try {
    return check()
  } catch (error) {
    throw gitHttpError(error)
  }
}

export function sourceControlRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>()
  const limits = {
    maxBytes: deps.config.limits.max_body_bytes,
    maxDecompressedBytes: deps.config.limits.max_decompressed_bytes,
    maxYamlNodes: deps.config.limits.max_yaml_nodes,
  }
  const maxFileBytes = deps.config.git.max_file_bytes

  /** The system's origin, its fetched repository and the commit it follows. */
  async function opened(systemId: string) {
    const { origin } = await systemOrigin(deps.store, checkId(systemId, 'system id'))
    return answeringGitErrors(async () => {
      const repo = await openRepository(deps, origin, 'source_control.origin.')
      return { origin, repo, baseCommit: await originCommit(repo, origin) }
    })
  }

  /** The `branch` query parameter when given, checked before any git command runs. */
  function optionalBranch(value: string | undefined): string | undefined {
    return value === undefined || value === '' ? undefined : gitHttpErrorsNow(() => branchName(value))
  }

  function requiredBranch(value: string | undefined): string {
    const branch = optionalBranch(value)
    if (branch === undefined)
      throw badRequest('branch: required query parameter (the branch to read or delete)')
    return branch
  }

  app.post('/v1/systems/source-control/verify-config', async (c) =>
    envelope(c, await verifyConfig(deps, await readStructuredBody(c, limits))),
  )

  app.post('/v1/systems/:system/commits', async (c) => {
    const { system, origin } = await systemOrigin(deps.store, checkId(c.req.param('system'), 'system id'))
    const checked = checkCommitBody(await readStructuredBody(c, limits), origin.path, maxFileBytes)
    const answer = await answeringGitErrors(
      async () =>
        commitToSystemBranch(await openRepository(deps, origin, 'source_control.origin.'), origin, checked),
      { rename: folderRelativeField(origin.path) },
    )
    // The system is built from the branch just committed to: rebuild it from the new commit before
    // answering. A failed sync is the system's status (and logged), not this commit's failure.
    if (movesFollowedBranch(origin, answer.branch))
      await deps.gitSource.sync(system.id).catch((error: unknown) => {
        deps.logger.warn({ system_id: system.id, err: error }, 'sync after a commit failed')
      })
    return envelope(c, answer)
  })

  app.get('/v1/systems/:system/master', async (c) => {
    const branch = optionalBranch(c.req.query('branch'))
    const { origin, repo, baseCommit } = await opened(c.req.param('system'))
    return envelope(
      c,
      await answeringGitErrors(() => masterFiles(repo, origin, baseCommit, branch, maxFileBytes)),
    )
  })

  app.get('/v1/systems/:system/branch', async (c) => {
    const branch = requiredBranch(c.req.query('branch'))
    const { origin, repo, baseCommit } = await opened(c.req.param('system'))
    return envelope(
      c,
      await answeringGitErrors(() => branchChanges(repo, origin, baseCommit, branch, maxFileBytes)),
    )
  })

  app.delete('/v1/systems/:system/branch', async (c) => {
    const branch = requiredBranch(c.req.query('branch'))
    const { origin, repo } = await opened(c.req.param('system'))
    await answeringGitErrors(async () => {
      const head = await branchHead(repo, branch)
      // The branch the system follows is its source, not a proposal: deleting it would break the system.
      if (head.name === originBranch(origin))
        throw conflict(
          `branch: ${head.name} is the branch the system follows (source_control.origin.reference)`,
        )
      await deleteBranch(repo, head.name)
    })
    return envelope(c)
  })

  return app
}

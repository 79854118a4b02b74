/**
 * The body of `POST /v1/systems/{id}/commits`: the spec's CommitInput plus the `branch` of its
 * Commit. File paths are relative to the system's folder (the origin's `path`) and may not leave
 * it; contents are text (no NUL byte) of at most `service.git.max_file_bytes` each. Everything is
 * checked before git runs, so a refused request writes nothing anywhere.
 */
import { z } from 'zod'
import { badRequest, payloadTooLarge } from '../../core/http/index.js'
import { GitError } from '../git/index.js'
import { checkFilePath } from '../git/tree-path.js'
import { validateBody } from '../validation.js'

const commitSchema = z.strictObject({
  branch: z
    .string({ error: 'expected the branch to commit on' })
    .min(1, { error: 'expected the branch to commit on' }),
  author: z.string({ error: 'expected the author name' }),
  email: z.string({ error: 'expected the author email' }),
  message: z.string({ error: 'expected the commit message' }),
  files: z.record(z.string(), z.string({ error: 'expected the file content as a string' })),
  files_to_delete: z.array(z.string({ error: 'expected a file path' })),
})

export type CommitBody = z.output<typeof commitSchema>

/** A validated commit: the body, and its paths inside the repository. */
export interface CheckedCommit {
  body: CommitBody
  /** Repository path → content. */
  writes: Record<string, string>
  /** Repository paths. */
  deletes: string[]
}

/** `folder`/`path`, refused (400 naming `field`) when `path` could leave the folder. */
function repositoryPath(folder: string, path: string, field: string): string {
  try {
    const inside = checkFilePath(path, field)
    return folder === '' ? inside : `${folder}/${inside}`
  } catch (error) {
    if (error instanceof GitError) throw badRequest(`${field}: ${error.message}`)
    throw error
  }
}

export function checkCommitBody(body: unknown, folder: string, maxFileBytes: number): CheckedCommit {
  const parsed = validateBody(commitSchema, body, 'commit')
  const writes: Record<string, string> = {}
  for (const [path, content] of Object.entries(parsed.files)) {
    const field = `files.${path}`
    const target = repositoryPath(folder, path, field)
    if (content.includes('\u0000'))
      throw badRequest(
        `${field}: the content is binary (it holds a NUL character); only text files can be committed`,
      )
    const bytes = Buffer.byteLength(content, 'utf8')
    if (bytes > maxFileBytes)
      throw payloadTooLarge(
        `${field}: ${bytes} bytes, over the limit of ${maxFileBytes} (service.git.max_file_bytes)`,
      )
    if (target in writes) throw badRequest(`${field}: the same file is written twice`)
    writes[target] = content
  }
  const deletes = parsed.files_to_delete.map((path, i) =>
    repositoryPath(folder, path, `files_to_delete.${i}`),
  )
  const both = deletes.find((p) => p in writes)
  if (both !== undefined)
    throw badRequest(`files_to_delete: ${JSON.stringify(both)} is also written in files`)
  if (Object.keys(writes).length === 0 && deletes.length === 0)
    throw badRequest('files: nothing to commit (files and files_to_delete are both empty)')
  return { body: parsed, writes, deletes }
}

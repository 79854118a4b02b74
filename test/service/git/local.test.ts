/**
 * The git layer over file:// and local paths, against bare repositories made by the test:
 * mirrors (first fetch, incremental fetch, size limit), references, trees, commits, branches.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  branchState,
  commitFiles,
  deleteBranch,
  GitError,
  type GitErrorCode,
  mirror,
  readTree,
  resolveReference,
} from '../../../service/git/index.js'
import { git, makeOrigin, type Origin, tempDir } from './fixtures.js'

async function failure(promise: Promise<unknown>): Promise<GitError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(GitError)
  return error as GitError
}

async function expectCode(promise: Promise<unknown>, code: GitErrorCode): Promise<GitError> {
  const error = await failure(promise)
  expect(error.code, error.message).toBe(code)
  return error
}

let root: string
let origin: Origin
let dataDir: string

beforeAll(() => {
  root = tempDir()
  dataDir = join(root, 'data')
  origin = makeOrigin(root, {
    'policies/authz.rego': 'package authz\nallow := true\n',
    'policies/data.json': '{"a": 1}\n',
    'policies/lib/util.rego': 'package lib\n',
    'policies/alias.rego': { link: 'authz.rego' },
    'README.md': '# repo\n',
  })
  git(origin.work, 'tag', 'v1')
  git(origin.work, 'push', '--quiet', 'origin', 'v1')
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('mirror over file://', () => {
  it('clones once into the data folder, then fetches only what changed', async () => {
    const repo = await mirror(`file://${origin.bare}`, undefined, { dataDir })
    expect(readdirSync(join(dataDir, 'git-mirrors'))).toEqual([repo.path.split('/').pop()])
    const first = await resolveReference(repo, 'main')
    expect(first.commit).toBe(git(origin.bare, 'rev-parse', 'main'))

    const second = origin.push({ 'policies/new.rego': 'package new\n' })
    const again = await mirror(`file://${origin.bare}`, undefined, { dataDir })
    expect(again.path).toBe(repo.path)
    expect((await resolveReference(again, 'refs/heads/main')).commit).toBe(second)
    // The first commit is still there: the mirror grew, it was not replaced.
    expect((await resolveReference(again, first.commit)).commit).toBe(first.commit)
  })

  it('takes a local path as well', async () => {
    const repo = await mirror(origin.bare, undefined, { dataDir: join(root, 'data-path') })
    expect((await resolveReference(repo, 'v1')).ref).toBe('refs/tags/v1')
  })

  it('refuses a repository over the size limit and keeps nothing of it', async () => {
    const big = makeOrigin(root, { 'blob.bin': randomBytes(300_000) }, 'big')
    const limited = join(root, 'data-limited')
    const error = await expectCode(
      mirror(`file://${big.bare}`, undefined, { dataDir: limited, maxRepositoryBytes: 100_000 }),
      'too_large',
    )
    expect(error.message).toContain('100000 bytes')
    expect(readdirSync(join(limited, 'git-mirrors'))).toEqual([])
  })

  it('reports a missing repository as unreachable', async () => {
    await expectCode(mirror(`file://${root}/missing.git`, undefined, { dataDir }), 'repository_unreachable')
  })

  it('refuses URLs it does not support before running git', async () => {
    for (const url of [
      'ext::sh -c touch% /tmp/pwned',
      'ftp://example.com/r.git',
      '--upload-pack=touch',
      'relative/path',
      'https://user:hunter2-pw@example.com/r.git',
    ]) {
      const error = await expectCode(mirror(url, undefined, { dataDir }), 'invalid_input')
      expect(error.field).toBe('url')
      expect(error.message).not.toContain('hunter2-pw')
    }
  })
})

describe('references and trees', () => {
  it('resolves full names, short branch and tag names and SHAs; anything else is reference_not_found', async () => {
    const repo = await mirror(`file://${origin.bare}`, undefined, { dataDir })
    const head = git(origin.bare, 'rev-parse', 'main')
    expect(await resolveReference(repo, 'main')).toEqual({ commit: head, ref: 'refs/heads/main' })
    expect((await resolveReference(repo, 'refs/tags/v1')).commit).toBe(
      git(origin.bare, 'rev-parse', 'v1^{commit}'),
    )
    await expectCode(resolveReference(repo, 'nope'), 'reference_not_found')
    await expectCode(resolveReference(repo, 'a'.repeat(40)), 'reference_not_found')
    await expectCode(resolveReference(repo, 'main~1'), 'invalid_input')
    await expectCode(resolveReference(repo, '--all'), 'invalid_input')
  })

  it('lists and reads the text files under a folder, following symlinks inside it', async () => {
    const repo = await mirror(`file://${origin.bare}`, undefined, { dataDir })
    const { commit } = await resolveReference(repo, 'v1')
    const tree = await readTree(repo, commit, 'policies/')
    expect(tree.files).toEqual({
      'authz.rego': 'package authz\nallow := true\n',
      'alias.rego': 'package authz\nallow := true\n',
      'data.json': '{"a": 1}\n',
      'lib/util.rego': 'package lib\n',
    })
    const regoOnly = await readTree(repo, commit, '/', { include: (p) => p.endsWith('.rego') })
    expect(Object.keys(regoOnly.files).sort()).toEqual([
      'policies/alias.rego',
      'policies/authz.rego',
      'policies/lib/util.rego',
    ])
  })

  it('refuses escaping paths, symlinks out of the folder, big and binary files; skips binaries on request', async () => {
    const bad = makeOrigin(
      root,
      {
        'p/ok.rego': 'package ok\n',
        'p/escape.rego': { link: '../secret.txt' },
        'p/abs.rego': { link: '/etc/passwd' },
        'secret.txt': 'outside\n',
        'q/big.json': `"${'x'.repeat(5000)}"`,
        'r/image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]),
        'r/ok.rego': 'package r\n',
      },
      'bad',
    )
    const repo = await mirror(`file://${bad.bare}`, undefined, { dataDir })
    const { commit } = await resolveReference(repo, 'main')
    const outside = await expectCode(readTree(repo, commit, 'p'), 'invalid_input')
    expect(outside.message).toMatch(/symlink .* points outside/)
    await expectCode(readTree(repo, commit, '../p'), 'invalid_input')
    await expectCode(readTree(repo, commit, '/etc'), 'invalid_input')
    await expectCode(readTree(repo, commit, 'missing'), 'path_not_found')
    await expectCode(readTree(repo, '--output=/tmp/x', 'p'), 'invalid_input')
    await expectCode(readTree(repo, commit, 'secret.txt'), 'invalid_input')
    await expectCode(readTree(repo, commit, 'q', { maxFileBytes: 1000 }), 'too_large')
    await expectCode(readTree(repo, commit, 'r'), 'invalid_input')
    const skipped = await readTree(repo, commit, 'r', { binary: 'skip' })
    expect(skipped).toEqual({
      files: { 'ok.rego': 'package r\n' },
      skipped: [{ path: 'image.png', reason: 'binary' }],
    })
  })
})

describe('commits and branches', () => {
  it('writes and deletes files on a new branch created from a base, pushes, and reads back', async () => {
    const repo = await mirror(`file://${origin.bare}`, undefined, { dataDir })
    const base = git(origin.bare, 'rev-parse', 'main')
    const result = await commitFiles(repo, {
      branch: 'feature/x',
      base: 'main',
      files: {
        'policies/authz.rego': 'package authz\nallow := false\n',
        'policies/extra.rego': 'package extra\n',
      },
      filesToDelete: ['policies/data.json'],
      author: 'Ada',
      email: 'ada@example.com',
      message: 'tighten authz',
    })
    expect(result).toMatchObject({ branch: 'feature/x', parent: base, createdBranch: true, attempts: 1 })
    expect(git(origin.bare, 'rev-parse', 'refs/heads/feature/x')).toBe(result.commit)
    expect(git(origin.bare, 'log', '-1', '--format=%an <%ae> %s', result.commit)).toBe(
      'Ada <ada@example.com> tighten authz',
    )
    const tree = await readTree(repo, result.commit, 'policies')
    expect(tree.files['authz.rego']).toBe('package authz\nallow := false\n')
    expect(tree.files['extra.rego']).toBe('package extra\n')
    expect(tree.files['data.json']).toBeUndefined()
    expect(await branchState(repo, 'feature/x')).toEqual({ branch: 'feature/x', commit: result.commit })

    await deleteBranch(repo, 'refs/heads/feature/x')
    expect(() => git(origin.bare, 'rev-parse', '--verify', '--quiet', 'refs/heads/feature/x')).toThrow()
    await expectCode(branchState(repo, 'feature/x'), 'reference_not_found')
    await expectCode(deleteBranch(repo, 'feature/x'), 'reference_not_found')
  })

  it('serialises concurrent commits to one branch so that all of them land', async () => {
    const repo = await mirror(`file://${origin.bare}`, undefined, { dataDir })
    const results = await Promise.all(
      [1, 2, 3].map((i) =>
        commitFiles(repo, {
          branch: 'main',
          files: { [`c/${i}.rego`]: `package c${i}\n` },
          filesToDelete: [],
          author: 'Bob',
          email: 'bob@example.com',
          message: `commit ${i}`,
        }),
      ),
    )
    expect(results.every((r) => r.attempts === 1)).toBe(true)
    const head = git(origin.bare, 'rev-parse', 'main')
    const tree = await readTree(repo, head, 'c')
    expect(Object.keys(tree.files).sort()).toEqual(['1.rego', '2.rego', '3.rego'])
  })

  it('refuses bad commit input before touching anything', async () => {
    const repo = await mirror(`file://${origin.bare}`, undefined, { dataDir })
    const valid = { branch: 'main', files: {}, filesToDelete: [], author: 'A', email: 'a@x', message: 'm' }
    await expectCode(commitFiles(repo, { ...valid, files: { '../x': 'y' } }), 'invalid_input')
    await expectCode(commitFiles(repo, { ...valid, filesToDelete: ['.git/config'] }), 'invalid_input')
    await expectCode(commitFiles(repo, { ...valid, branch: 'a..b' }), 'invalid_input')
    await expectCode(commitFiles(repo, { ...valid, author: '' }), 'invalid_input')
    await expectCode(commitFiles(repo, { ...valid, branch: 'new-without-base' }), 'reference_not_found')
    // A file where a file is (`policies/authz.rego/x`) or where a folder is (`policies`), or two
    // written files clashing, would silently replace what is there: refused.
    const replaces = await expectCode(
      commitFiles(repo, { ...valid, files: { 'policies/authz.rego/x': 'y' } }),
      'invalid_input',
    )
    expect(replaces.message).toContain('would replace "policies/authz.rego"')
    await expectCode(commitFiles(repo, { ...valid, files: { policies: 'y' } }), 'invalid_input')
    const clash = await expectCode(
      commitFiles(repo, { ...valid, files: { 'z/x': 'y', z: 'y' } }),
      'invalid_input',
    )
    expect(clash.message).toContain('clashes')
  })

  // The origin's pre-receive hook moves the branch to a commit nobody has seen while each push is
  // being received: the push loses the race exactly as when someone else pushes in between.
  function raceOn(bare: string, times: number): void {
    const racer = git(
      bare,
      'commit-tree',
      `${git(bare, 'rev-parse', 'main^{tree}')}`,
      '-p',
      git(bare, 'rev-parse', 'main'),
      '-m',
      'racer',
    )
    writeFileSync(join(bare, 'race-count'), String(times))
    writeFileSync(
      join(bare, 'hooks', 'pre-receive'),
      `#!/bin/sh
export GIT_AUTHOR_NAME=racer GIT_AUTHOR_EMAIL=racer@x GIT_COMMITTER_NAME=racer GIT_COMMITTER_EMAIL=racer@x
n=$(cat race-count)
if [ "$n" -gt 0 ]; then
  echo $((n - 1)) > race-count
  racer=$(env -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES git commit-tree $(git rev-parse ${racer}^{tree}) -p $(git rev-parse refs/heads/main) -m "racer $n")
  env -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES git update-ref refs/heads/main $racer
fi
exit 0
`,
      { mode: 0o755 },
    )
  }

  it('retries a push that lost a race once on the new head, then reports a conflict', async () => {
    const racy = makeOrigin(root, { 'a.rego': 'package a\n' }, 'racy')
    const repo = await mirror(`file://${racy.bare}`, undefined, { dataDir })
    const input = { branch: 'main', filesToDelete: [], author: 'C', email: 'c@x', message: 'race' }
    raceOn(racy.bare, 1)
    const won = await commitFiles(repo, { ...input, files: { 'b.rego': 'package b\n' } })
    expect(won.attempts).toBe(2)
    expect(git(racy.bare, 'rev-parse', 'main')).toBe(won.commit)
    expect(git(racy.bare, 'log', '-1', '--format=%s', `${won.commit}^`)).toBe('racer 1')

    raceOn(racy.bare, 2)
    const lost = await expectCode(
      commitFiles(repo, { ...input, files: { 'c.rego': 'package c\n' } }),
      'conflict',
    )
    expect(lost.message).toContain('moved while committing')
    expect(existsSync(join(racy.bare, 'race-count'))).toBe(true)
  })

  it('reports a push the remote declines as push_rejected', async () => {
    const guarded = makeOrigin(root, { 'a.rego': 'package a\n' }, 'guarded')
    writeFileSync(
      join(guarded.bare, 'hooks', 'pre-receive'),
      '#!/bin/sh\necho "protected branch" >&2\nexit 1\n',
      { mode: 0o755 },
    )
    const repo = await mirror(`file://${guarded.bare}`, undefined, { dataDir })
    await expectCode(
      commitFiles(repo, {
        branch: 'main',
        files: { 'b.rego': 'x' },
        filesToDelete: [],
        author: 'D',
        email: 'd@x',
        message: 'm',
      }),
      'push_rejected',
    )
  })
})

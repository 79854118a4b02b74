/**
 * Sync time of the git layer (service/git/) for a repository of 1,000 policy files, over file://
 * and git:// (git daemon on 127.0.0.1): the first mirror, an incremental fetch after a one-file
 * change, and reading every file of the tree. Baseline in the same run: a plain
 * `git clone --mirror` of the same repository, and a plain `git fetch`.
 */
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { mirror, readTree, resolveReference } from '../../service/git/index.js'
import { git, makeOrigin, startGitDaemon, stop, tempDir } from '../service/git/fixtures.js'

const FILES = 1000

async function time<T>(fn: () => Promise<T> | T): Promise<[number, T]> {
  const started = performance.now()
  const value = await fn()
  return [performance.now() - started, value]
}

const ms = (x: number) => `${x.toFixed(0).padStart(6)} ms`

export async function run(): Promise<void> {
  const root = tempDir()
  const files: Record<string, string> = {}
  for (let i = 0; i < FILES; i++)
    files[`policies/p${i}/policy.rego`] = `package p${i}\n\nallow if input.user == "u${i}"\n`
  const origin = makeOrigin(root, files)
  const daemon = await startGitDaemon(root)
  try {
    console.log(
      `   ${FILES} policy files          first mirror   git clone --mirror   one-file fetch   git fetch   readTree`,
    )
    for (const [name, url] of [
      ['file://', `file://${origin.bare}`],
      ['git:// (daemon)', `git://127.0.0.1:${daemon.port}/repo.git`],
    ] as const) {
      const dataDir = join(root, `data-${name.replace(/\W/g, '')}`)
      const baseline = join(root, `plain-${name.replace(/\W/g, '')}.git`)
      const [first, repo] = await time(() => mirror(url, undefined, { dataDir }))
      const [plainClone] = await time(() =>
        execFileSync('git', ['clone', '--quiet', '--mirror', url, baseline]),
      )
      origin.push({ 'policies/p0/policy.rego': 'package p0\n\nallow := false\n' })
      const [fetch] = await time(() => mirror(url, undefined, { dataDir }))
      const [plainFetch] = await time(() => git(baseline, 'fetch', '--quiet'))
      const { commit } = await resolveReference(repo, 'main')
      const [read, tree] = await time(() => readTree(repo, commit, 'policies'))
      if (Object.keys(tree.files).length !== FILES) throw new Error('readTree missed files')
      console.log(
        `   ${name.padEnd(22)} ${ms(first)}   ${ms(plainClone)}         ${ms(fetch)}     ${ms(plainFetch)}  ${ms(read)}`,
      )
    }
  } finally {
    stop(daemon.child)
    rmSync(root, { recursive: true, force: true })
  }
}

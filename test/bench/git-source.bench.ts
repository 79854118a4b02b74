/**
 * Sync time of a system built from git (service/git-source/) for a repository of 1,000 policy
 * files over file://, through the real service: the first sync (mirror clone, tree read, parse,
 * compile, bundle), an incremental sync after a one-file change, and a sync with nothing new
 * (through `POST …/sync`, which always rebuilds; a poll that finds nothing new skips the rebuild).
 * Baseline in the same run: the same 1,000 modules pushed as one policy to a pushed system (the
 * build without git), and the git layer's own first mirror and fetch are in git.bench.ts.
 */
import { rmSync } from 'node:fs'
import { makeOrigin, tempDir } from '../service/git/fixtures.js'
import { startTestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'

const FILES = 1000

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
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
  const t = await startTestService(
    BACKENDS[0]!,
    '{git: {poll_interval: "0"}, limits: {max_body_bytes: 67108864}}',
  )
  try {
    const [first, created] = await time(() =>
      t.json<{ result: { id: string; status: string } }>('POST', '/v1/systems', {
        body: {
          name: 'bench-git',
          type: 'custom',
          source_control: {
            origin: {
              url: `file://${origin.bare}`,
              reference: 'main',
              commit: '',
              path: 'policies',
              credentials: '',
            },
          },
        },
      }),
    )
    if (created.body.result.status !== 'Ready') throw new Error(`first sync: ${JSON.stringify(created.body)}`)
    const id = created.body.result.id
    origin.push({ 'policies/p0/policy.rego': 'package p0\n\nallow := false\n' })
    const sync = () => t.json<{ result: { status: string } }>('POST', `/v1/systems/${id}/source-control/sync`)
    const [incremental, changed] = await time(sync)
    if (changed.body.result.status !== 'Ready') throw new Error('incremental sync failed')
    const [unchanged] = await time(sync)

    const pushed = await t.json<{ result: { id: string } }>('POST', '/v1/systems', {
      body: { name: 'bench-pushed', type: 'custom' },
    })
    const modules = Object.fromEntries(
      Object.entries(files).map(([path, source]) => [path.replaceAll('/', '_'), source]),
    )
    const [push] = await time(() =>
      t.json('PUT', `/v1/policies/systems/${pushed.body.result.id}/all`, { body: { modules } }),
    )
    console.log(
      `   ${FILES} policy files   first sync   one-file sync   no-change sync   | baseline: push of the same modules`,
    )
    console.log(
      `   file://            ${ms(first)}   ${ms(incremental)}      ${ms(unchanged)}       | ${ms(push)}`,
    )
  } finally {
    await t.close()
    rmSync(root, { recursive: true, force: true })
  }
}

/**
 * `-w/--watch` (policy and data files reloaded on change; a broken edit keeps what was loaded),
 * `--pprof` (a CPU profile, and a clear 404 for Go-only profiles), and `--ready-timeout`.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadInitialState } from '../../agent/load.js'
import { ReadyTimeoutError, waitUntilReady } from '../../agent/ready.js'
import { ServerState } from '../../agent/state.js'
import { startTestAgent } from './support/start-agent.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-agent-watch-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Polls `read` until it returns `expected` (bounded: 50 tries, 100 ms apart). */
async function eventually(read: () => Promise<unknown>, expected: unknown): Promise<unknown> {
  let last: unknown
  for (let i = 0; i < 50; i++) {
    last = await read()
    if (JSON.stringify(last) === JSON.stringify(expected)) return last
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return last
}

describe('--watch', () => {
  it('reloads changed policy and data files, and keeps the last good load on a broken edit', async () => {
    const folder = join(dir, 'policies')
    mkdirSync(folder)
    const policy = join(folder, 'p.rego')
    writeFileSync(policy, 'package p\n\nx := data.limits.max\n')
    writeFileSync(join(folder, 'data.json'), '{"limits": {"max": 1}}')
    const loaded = await loadInitialState({ paths: [folder], bundles: [], ignore: [], regoVersion: 'v1' })
    const state = new ServerState(loaded, { regoVersion: 'v1' })
    const agent = await startTestAgent({
      state,
      watch: {
        paths: [folder],
        ignore: [],
        regoVersion: 'v1',
        initialIds: loaded.policies.map((p) => p.id),
      },
    })
    try {
      const url = agent.urls[0] as string
      const read = async () => fetch(`${url}/v1/data/p`).then((r) => r.json())
      expect(await read()).toEqual({ result: { x: 1 } })
      writeFileSync(join(folder, 'data.json'), '{"limits": {"max": 2}}')
      expect(await eventually(read, { result: { x: 2 } })).toEqual({ result: { x: 2 } })
      writeFileSync(policy, 'package p\n\nx := data.limits.max * 10\ny := true\n')
      expect(await eventually(read, { result: { x: 20, y: true } })).toEqual({ result: { x: 20, y: true } })
      writeFileSync(policy, 'package p\n\nx := {\n')
      const failed = await eventually(async () => agent.lines.some((l) => l.includes('reload failed')), true)
      expect(failed).toBe(true)
      expect(await read()).toEqual({ result: { x: 20, y: true } })
    } finally {
      await agent.stop()
    }
  })
})

describe('--watch on a single file', () => {
  it('sees an editor-style save (write a new file, rename it over the old one)', async () => {
    const folder = join(dir, 'single')
    mkdirSync(folder)
    const policy = join(folder, 'q.rego')
    writeFileSync(policy, 'package q\n\nv := 1\n')
    const loaded = await loadInitialState({ paths: [policy], bundles: [], ignore: [], regoVersion: 'v1' })
    const agent = await startTestAgent({
      state: new ServerState(loaded, { regoVersion: 'v1' }),
      watch: { paths: [policy], ignore: [], regoVersion: 'v1', initialIds: loaded.policies.map((p) => p.id) },
    })
    try {
      const read = async () => fetch(`${agent.urls[0]}/v1/data/q/v`).then((r) => r.json())
      expect(await read()).toEqual({ result: 1 })
      writeFileSync(join(folder, '.q.rego.swp'), 'package q\n\nv := 2\n')
      renameSync(join(folder, '.q.rego.swp'), policy)
      expect(await eventually(read, { result: 2 })).toEqual({ result: 2 })
    } finally {
      await agent.stop()
    }
  })
})

describe('--pprof', () => {
  it('serves a CPU profile, refuses bad durations and names what it does not serve', async () => {
    const agent = await startTestAgent({ server: { pprof: true } })
    try {
      const url = agent.urls[0] as string
      const profile = await fetch(`${url}/debug/pprof/profile?seconds=1`)
      expect(profile.status).toBe(200)
      const body = (await profile.json()) as { nodes: unknown[]; startTime: number; endTime: number }
      expect(body.nodes.length).toBeGreaterThan(0)
      expect(body.endTime - body.startTime).toBeGreaterThanOrEqual(900_000)
      expect((await fetch(`${url}/debug/pprof/profile?seconds=0`)).status).toBe(400)
      const heap = await fetch(`${url}/debug/pprof/heap`)
      expect(heap.status).toBe(404)
      expect(((await heap.json()) as { message: string }).message).toContain(
        'regent serves only /debug/pprof/profile',
      )
    } finally {
      await agent.stop()
    }
  })

  it('is not served without the flag', async () => {
    const agent = await startTestAgent({})
    try {
      expect((await fetch(`${agent.urls[0]}/debug/pprof/profile?seconds=1`)).status).toBe(404)
    } finally {
      await agent.stop()
    }
  })
})

describe('--ready-timeout', () => {
  it('waits for what must be ready, and gives up after the timeout', async () => {
    await expect(waitUntilReady([Promise.resolve(1)], 1)).resolves.toBeUndefined()
    const started = Date.now()
    await expect(waitUntilReady([new Promise(() => {})], 1)).rejects.toThrow(ReadyTimeoutError)
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
    let late = false
    const eventuallyReady = new Promise<void>((resolve) =>
      setTimeout(() => {
        late = true
        resolve()
      }, 200),
    )
    await waitUntilReady([eventuallyReady], 0)
    expect(late).toBe(true)
  })
})

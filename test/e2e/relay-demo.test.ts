/**
 * `regent demo` (npm start) as a newcomer runs it: service and relay come up on loopback, the
 * relay serves the seeded system's signed bundle, Ctrl-C (SIGINT) stops both with exit 0, and
 * a second start reuses the same system.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../core/bundle/index.js'
import { tempDir } from '../relay/helpers.js'

const BIN = fileURLToPath(new URL('../../bin/regent.js', import.meta.url))

interface Demo {
  child: ChildProcess
  output: string
  relayUrl: string
  systemId: string
}

function startDemo(dir: string): Promise<Demo> {
  const child = spawn(
    process.execPath,
    [BIN, 'demo', '--dir', dir, '--service-addr', '127.0.0.1:0', '--relay-addr', '127.0.0.1:0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`demo did not start: ${output}`))
    }, 30_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8')
      if (!output.includes('Ctrl-C stops both.')) return
      clearTimeout(timer)
      const relayUrl = /relay {4}(http:\/\/\S+)/.exec(output)?.[1]
      const systemId = /\(system ([0-9a-f]+),/.exec(output)?.[1]
      if (!relayUrl || !systemId) reject(new Error(`unexpected banner: ${output}`))
      else resolve({ child, output, relayUrl, systemId })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`demo exited with ${code}: ${output}`))
    })
  })
}

function interrupt(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    child.once('exit', (code) => {
      clearTimeout(killer)
      resolve(code)
    })
    child.kill('SIGINT')
  })
}

describe('regent demo', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  beforeAll(async () => {
    dir = await tempDir('regent-demo-')
  })
  afterAll(async () => {
    await dir.cleanup()
  })

  it('serves the seeded signed bundle through the relay, stops on Ctrl-C and reuses its folder', async () => {
    const first = await startDemo(dir.dir)
    let firstExit: number | null
    try {
      expect(first.output).toContain('seeded a new demo system')
      const res = await request(`${first.relayUrl}/v1/bundles/systems/${first.systemId}`)
      expect(res.statusCode).toBe(200)
      const bundle = await readBundle(new Uint8Array(await res.body.arrayBuffer()))
      expect(bundle.signatures?.signatures).toHaveLength(1)
      expect(bundle.modules.map((m) => m.path)).toEqual(['filters/filters.rego'])
      expect(bundle.data).toEqual({ roles: { alice: ['admin'], bob: ['reader'], caesar: ['resolver'] } })
      // The compile line the demo prints answers from the relayed bundle.
      const compiled = await request(`${first.relayUrl}/v1/compile/filters/include`, {
        method: 'POST',
        headers: { accept: 'application/vnd.opa.sql.postgresql+json', 'content-type': 'application/json' },
        body: JSON.stringify({ input: { user: 'bob' } }),
      })
      expect(compiled.statusCode).toBe(200)
      const answer = (await compiled.body.json()) as { result?: { query?: string } }
      expect(answer.result?.query).toMatch(/^WHERE /)
    } finally {
      firstExit = await interrupt(first.child)
    }
    expect(firstExit).toBe(0)

    const second = await startDemo(dir.dir)
    try {
      expect(second.output).toContain('reusing the demo system')
      expect(second.systemId).toBe(first.systemId)
      const res = await request(`${second.relayUrl}/v1/bundles/systems/${second.systemId}`)
      expect(res.statusCode).toBe(200)
      await res.body.dump()
    } finally {
      expect(await interrupt(second.child)).toBe(0)
    }
  }, 90_000)
})

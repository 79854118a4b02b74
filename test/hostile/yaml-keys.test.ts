/**
 * Hostile YAML: a body of a million keys. Reading YAML used to cost n²/2 key comparisons per map
 * (200k keys held the service's event loop for minutes); now it is linear and a document past the
 * node bound (service `limits.max_yaml_nodes`) is refused with 413 while it is being read.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRunApp } from '../../agent/app.js'
import { ServerState } from '../../agent/state.js'
import { compileRoutes } from '../../compile/route.js'
import { createLogger } from '../../core/log.js'
import { ObjectValue } from '../../core/rego/values/index.js'
import { engineBackend } from '../compile/engine-backend.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'

const ADMIN = 'hostile-yaml-admin-token'
const auth = { Authorization: `Bearer ${ADMIN}` }
/** /health may wait this long while a refused body is read: generous for a loaded 2-core machine. */
const HEALTH_MARGIN_MS = 15_000

function millionKeys(): Buffer {
  const lines: string[] = []
  for (let i = 0; i < 1_000_000; i++) lines.push(`key_${i}: ${i}\n`)
  return gzipSync(lines.join(''), { level: 1 })
}

describe('hostile: YAML with a million keys', () => {
  let dir: string
  let service: RegentProcess
  let body: Buffer
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-hostile-yaml-'))
    body = millionKeys()
    service = await startRegent(['service', '--addr', '127.0.0.1:0', '--data-dir', join(dir, 'service')], {
      REGENT_ADMIN_TOKEN: ADMIN,
    })
  }, 60_000)
  afterAll(async () => {
    await service?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('the service refuses it with 413 naming the bound, and /health keeps answering', async () => {
    let done = false
    let slowestHealthMs = 0
    const health = (async () => {
      while (!done) {
        const started = performance.now()
        const res = await request(`${service.url}/health`)
        await res.body.dump()
        slowestHealthMs = Math.max(slowestHealthMs, performance.now() - started)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    })()
    const started = performance.now()
    const res = await request(`${service.url}/v1/data/hostile/yaml`, {
      method: 'PUT',
      headers: { ...auth, 'Content-Type': 'application/x-yaml', 'Content-Encoding': 'gzip' },
      body,
    })
    const answer = (await res.body.json()) as { code: string; message: string }
    const tookMs = performance.now() - started
    done = true
    await health
    expect(res.statusCode).toBe(413)
    expect(answer.message).toMatch(
      /^YAML body at line \d+, column \d+: the document has more than 200000 nodes/,
    )
    expect(tookMs).toBeLessThan(HEALTH_MARGIN_MS)
    expect(slowestHealthMs).toBeLessThan(HEALTH_MARGIN_MS)
    // Nothing was stored, and the service still reads YAML: a duplicate key is a 400 naming its line.
    expect((await request(`${service.url}/v1/data/hostile/yaml`, { headers: auth })).statusCode).toBe(404)
    const duplicate = await request(`${service.url}/v1/data/hostile/yaml`, {
      method: 'PUT',
      headers: { ...auth, 'Content-Type': 'application/x-yaml' },
      body: 'a: 1\nb: 2\na: 3\n',
    })
    expect(duplicate.statusCode).toBe(400)
    expect(((await duplicate.body.json()) as { message: string }).message).toBe(
      'malformed YAML body at line 3, column 1: map keys must be unique: a',
    )
  }, 120_000)

  it("the compile endpoint (the relay's, unauthenticated by default) refuses it with 413", async () => {
    const { app } = compileRoutes({ backend: engineBackend({ 'p.rego': 'package p\n\nallow if input.x\n' }) })
    const res = await app.request('/v1/compile/p/allow', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-yaml', 'Content-Encoding': 'gzip' },
      body,
    })
    expect(res.status).toBe(413)
    expect(((await res.json()) as { message: string }).message).toMatch(/more than 200000 nodes/)
  }, 120_000)

  it('`regent run -s` refuses it with 413 as input of a data query', async () => {
    const state = new ServerState(
      { policies: [], data: new ObjectValue(), bundles: [] },
      { regoVersion: 'v1' },
    )
    const app = createRunApp({ state, logger: createLogger({ level: 'silent' }), version: 'test' })
    const res = await app.request('/v1/data/p', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-yaml', 'Content-Encoding': 'gzip' },
      body,
    })
    expect(res.status).toBe(413)
    expect(((await res.json()) as { message: string }).message).toMatch(/more than 200000 nodes/)
  }, 120_000)
})

/** `regent relay` as a process: config errors name the key, flags override, SIGTERM stops cleanly. */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, tempDir } from '../relay/helpers.js'
import { startRegent } from '../relay/support/processes.js'
import { type FaultUpstream, makeBundle, startFaultUpstream } from '../support/fault-upstream.js'

const BIN = fileURLToPath(new URL('../../bin/regent.js', import.meta.url))

describe('regent relay (process)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  let upstream: FaultUpstream
  beforeAll(async () => {
    dir = await tempDir('regent-relay-cli-')
    upstream = await startFaultUpstream()
  })
  afterAll(async () => {
    await upstream.stop()
    await dir.cleanup()
  })

  it('refuses a bad config with one line per problem naming the key, exit code 1', () => {
    const file = join(dir.dir, 'bad.yaml')
    writeFileSync(
      file,
      'services: { up: { url: nope } }\nbundles: { a: { polling: { min_delay_seconds: -1 } } }\nrelay: { port: 1 }\n',
    )
    const run = spawnSync(process.execPath, [BIN, 'relay', '-c', file], { encoding: 'utf8', timeout: 20_000 })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('services.up.url: expected an absolute URL')
    expect(run.stderr).toContain('relay.port: unknown key')
    expect(run.stderr).toMatch(/bundles\.a\.polling\.min_delay_seconds: expected a positive integer/)
  })

  it('names a config that cannot work (unknown service) before listening', () => {
    const file = join(dir.dir, 'unknown.yaml')
    writeFileSync(
      file,
      'services: { up: { url: "http://127.0.0.1:1" } }\nbundles: { a: { service: down } }\n',
    )
    const run = spawnSync(process.execPath, [BIN, 'relay', '-c', file, '--data-dir', join(dir.dir, 'x')], {
      encoding: 'utf8',
      timeout: 20_000,
    })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('bundles.a.service: no service named "down" (services: up)')
  })

  it('listens on --addr, stores under --data-dir, serves agents and stops on SIGTERM with exit 0', async () => {
    upstream.setBundle('/v1/bundles/authz', await makeBundle({ revision: 'cli' }), '"cli"')
    const file = join(dir.dir, 'ok.yaml')
    writeFileSync(
      file,
      `services: { up: { url: "${upstream.url}/v1" } }\nbundles: { authz: {} }\nrelay: { addr: "127.0.0.1:1", storage: { dir: /nonexistent } }\n`,
    )
    const relay = await startRegent([
      'relay',
      '-c',
      file,
      '--addr',
      '127.0.0.1:0',
      '--data-dir',
      join(dir.dir, 'data'),
    ])
    try {
      await eventually(
        async () => (await request(`${relay.url}/v1/bundles/authz`)).statusCode === 200,
        10_000,
        'bundle',
      )
      expect(relay.logs.some((l) => l.msg === 'relay started')).toBe(true)
    } finally {
      expect(await relay.stop()).toBe(0)
    }
  })
})

/**
 * End to end with real processes: `regent service` as the upstream, `regent relay` started
 * from the relay-config the service generates, and a simulated OPA agent long-polling the
 * relay. A policy change reaches the agent through the relay; a relay restarted while the
 * service is down still serves the last good bundle.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, tempDir } from '../relay/helpers.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'
import { AgentSimulator } from '../support/agent-simulator.js'

const ADMIN = 'e2e-admin-token-0123456789'
const auth = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' }

const policy = (greeting: string) => `package filters

import rego.v1

# ${greeting}
include if {
  "admin" in data.roles[input.user]
}
`

describe('relay in front of regent service (real processes)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  let service: RegentProcess | undefined
  let relay: RegentProcess | undefined
  let systemId: string
  let relayConfigFile: string

  beforeAll(async () => {
    dir = await tempDir('regent-e2e-relay-')
    service = await startRegent(
      ['service', '--addr', '127.0.0.1:0', '--data-dir', join(dir.dir, 'service')],
      {
        REGENT_ADMIN_TOKEN: ADMIN,
      },
    )
    const created = await request(`${service.url}/v1/systems`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'tickets', type: 'custom' }),
    })
    expect(created.statusCode).toBe(200)
    systemId = ((await created.body.json()) as { result: { id: string } }).result.id
    await putPolicy('v1')
    const data = await request(`${service.url}/v1/data/systems/${systemId}/roles`, {
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ alice: ['admin'], bob: ['reader'] }),
    })
    expect(data.statusCode).toBe(200)
    await data.body.dump()
    const asset = await request(`${service.url}/v1/systems/${systemId}/assets/relay-config`, {
      headers: auth,
    })
    expect(asset.statusCode).toBe(200)
    relayConfigFile = join(dir.dir, 'relay.yaml')
    writeFileSync(relayConfigFile, await asset.body.text())
  }, 60_000)

  afterAll(async () => {
    await relay?.stop()
    await service?.stop()
    await dir.cleanup()
  })

  async function putPolicy(greeting: string) {
    const res = await request(`${service!.url}/v1/policies/systems/${systemId}/filters`, {
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ modules: { 'filters.rego': policy(greeting) } }),
    })
    expect(res.statusCode).toBe(200)
    await res.body.dump()
  }

  const startRelay = () =>
    startRegent([
      'relay',
      '-c',
      relayConfigFile,
      '--addr',
      '127.0.0.1:0',
      '--data-dir',
      join(dir.dir, 'relay'),
    ])

  it('relays the system bundle, wakes a long-polling agent on a policy change, and survives the service going down', async () => {
    relay = await startRelay()
    const bundleUrl = `${relay.url}/v1/bundles/systems/${systemId}`
    await eventually(
      async () => (await request(`${relay!.url}/health/ready`)).statusCode === 200,
      15_000,
      'relay ready',
    )

    // The relay serves exactly what the service built.
    const direct = await request(`${service!.url}/v1/bundles/systems/${systemId}`, { headers: auth })
    const directBytes = Buffer.from(await direct.body.arrayBuffer())
    const relayed = await request(bundleUrl)
    expect(Buffer.from(await relayed.body.arrayBuffer()).equals(directBytes)).toBe(true)

    const agent = new AgentSimulator({ url: bundleUrl, longPollSeconds: 30 })
    agent.start()
    try {
      await eventually(() => agent.revision !== undefined, 10_000, 'first activation')
      const first = agent.revision
      expect(agent.longPolling).toBe(true)
      await putPolicy('v2')
      await eventually(() => agent.revision !== first, 15_000, 'new revision at the agent')
      expect(agent.activations).toHaveLength(2)
      const status = (await (await request(`${relay.url}/v1/relay/status`)).body.json()) as {
        bundles: Record<string, { revision: string }>
      }
      expect(status.bundles[`systems/${systemId}`]?.revision).toBe(agent.revision)
    } finally {
      await agent.stop()
    }
    const served = Buffer.from(await (await request(bundleUrl)).body.arrayBuffer())

    // The service goes away; a restarted relay serves the last good bundle from disk at once.
    expect(await service!.stop()).toBe(0)
    service = undefined
    expect(await relay.stop()).toBe(0)
    relay = await startRelay()
    const ready = await request(`${relay.url}/health/ready`)
    expect(ready.statusCode).toBe(200)
    await ready.body.dump()
    const again = await request(`${relay.url}/v1/bundles/systems/${systemId}`)
    expect(again.statusCode).toBe(200)
    expect(Buffer.from(await again.body.arrayBuffer()).equals(served)).toBe(true)
  }, 90_000)
})

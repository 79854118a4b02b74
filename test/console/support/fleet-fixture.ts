/**
 * A small fleet for the console's browser tests: two systems; a real `regent relay` process
 * started from the relay config the service generates for the first, with two agents posting
 * status through it (one healthy, one whose bundle download fails); the second system with an
 * agent posting directly and one that stopped reporting ten minutes ago.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { parse as parseYaml, stringify } from 'yaml'
import { eventually, tempDir } from '../../relay/helpers.js'
import { type RegentProcess, startRegent } from '../../relay/support/processes.js'
import type { TestService } from '../../service/harness.js'

export const GIT_COMMIT = '3f1c2b9a7d6e5f40312a1b2c3d4e5f6a7b8c9d0e'

export interface FleetFixture {
  edgeId: string
  directId: string
  relay: RegentProcess
  /** The relay's own agent id (its per-process `labels.id`). */
  relayAgentId: string
  close(): Promise<void>
}

async function createSystem(service: TestService, name: string): Promise<{ id: string; token: string }> {
  const created = await service.json<{ result: { id: string } }>('POST', '/v1/systems', {
    body: { name, type: 'custom' },
  })
  expect(created.status).toBe(200)
  const id = created.body.result.id
  const opa = parseYaml(await (await service.call('GET', `/v1/systems/${id}/assets/opa-config`)).text())
  return { id, token: opa.services[0].credentials.bearer.token as string }
}

async function postStatus(url: string, report: unknown, token?: string): Promise<void> {
  const res = await fetch(`${url}/v1/status`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(report),
  })
  expect(res.status).toBe(200)
  await res.arrayBuffer()
}

const healthy = (id: string, systemId: string, revision: string) => ({
  labels: { id, version: '1.4.2', 'system-id': systemId },
  bundles: { [`systems/${systemId}`]: { name: `systems/${systemId}`, active_revision: revision } },
  plugins: { bundle: { state: 'OK' }, decision_logs: { state: 'OK' }, status: { state: 'OK' } },
})

export async function startFleet(service: TestService): Promise<FleetFixture> {
  const dir = await tempDir('regent-console-fleet-')
  const edge = await createSystem(service, 'edge-payments')
  const direct = await createSystem(service, 'direct-tickets')

  // The relay, as an operator would start it: the generated config, forwarding status every second.
  const config = parseYaml(
    await (await service.call('GET', `/v1/systems/${edge.id}/assets/relay-config`)).text(),
  )
  config.relay = { status: { forward_interval_seconds: 1 } }
  const configFile = join(dir.dir, 'relay.yaml')
  writeFileSync(configFile, stringify(config))
  const relay = await startRegent([
    'relay',
    '-c',
    configFile,
    '--addr',
    '127.0.0.1:0',
    '--data-dir',
    join(dir.dir, 'relay'),
  ])

  // Agents behind the relay: their reports reach the service through it.
  await postStatus(relay.url, healthy('opa-edge-ok', edge.id, `${GIT_COMMIT}-0123456789abcdef`))
  await postStatus(relay.url, {
    labels: { id: 'opa-edge-failing', version: '1.4.2' },
    bundles: {
      [`systems/${edge.id}`]: {
        name: `systems/${edge.id}`,
        code: 'bundle_error',
        message: 'server replied with Service Unavailable',
        http_code: '503',
      },
    },
    plugins: { bundle: { state: 'ERROR', message: 'download failed' }, status: { state: 'OK' } },
  })

  // Agents of the other system, reporting to the service directly with their agent token.
  await postStatus(service.url, healthy('opa-direct-ok', direct.id, 'b'.repeat(64)), direct.token)
  await postStatus(service.url, healthy('opa-direct-gone', direct.id, 'c'.repeat(64)), direct.token)
  // That one stopped reporting: its latest report is ten minutes old (as if time had passed).
  const [gone] = (await service.service.store.agentStatus.list([direct.id])).filter(
    (r) => r.agent_id === 'opa-direct-gone',
  )
  await service.service.store.agentStatus.upsert({
    ...gone!,
    updated_at: new Date(Date.now() - 10 * 60_000).toISOString(),
  })

  // Wait until the relay has forwarded both agents and its own report listing them.
  let relayAgentId = ''
  await eventually(
    async () => {
      const fleet = await service.json<{
        result: { agents: Array<{ agent_id: string; via_relay: string | null; kind: string }> }
      }>('GET', `/v1/fleet?system=${edge.id}`)
      const agents = fleet.body.result.agents
      relayAgentId = agents.find((a) => a.kind === 'relay')?.agent_id ?? ''
      return agents.filter((a) => a.via_relay !== null && a.via_relay === relayAgentId).length === 2
    },
    30_000,
    'the relay forwarding its agents and its own report',
  )

  return {
    edgeId: edge.id,
    directId: direct.id,
    relay,
    relayAgentId,
    async close() {
      await relay.stop()
      await dir.cleanup()
    },
  }
}

/**
 * `regent run -s -c` as an OPA agent, with real processes: `regent service` signs the system's
 * bundle, `regent relay` (from the relay config the service generates) relays it, and the agent,
 * configured as an OPA agent pointed at the relay, downloads and verifies the signed bundle,
 * decides, and reports status up to the service. Then, with the relay down, it decides more,
 * is killed with SIGKILL while those decision logs are only in its buffer, and is restarted:
 * every decision reaches the service exactly once.
 */
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { eventually } from '../relay/helpers.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'

const ADMIN = 'e2e-admin-token-agent-0123456789'
const auth = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' }

const POLICY = `package app

import rego.v1

default allow := false

allow if input.user in data.app.admins
`

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function json<T>(
  url: string,
  init: Parameters<typeof request>[1] = {},
): Promise<{ status: number; body: T }> {
  const res = await request(url, init)
  const text = await res.body.text()
  return { status: res.statusCode, body: (text ? JSON.parse(text) : undefined) as T }
}

describe('regent run -s -c against regent service and relay (real processes)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-e2e-agent-'))
  let service: RegentProcess | undefined
  let relay: RegentProcess | undefined
  let agent: RegentProcess | undefined

  afterAll(async () => {
    await agent?.kill()
    await relay?.stop()
    await service?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  async function storedDecisions(): Promise<number> {
    const text = await (await request(`${service!.url}/metrics`)).body.text()
    const match = /regent_service_decisions_received_total\{outcome="stored"\} (\d+)/.exec(text)
    return match ? Number(match[1]) : 0
  }

  async function decide(user: string): Promise<{ result: boolean; decisionId: string }> {
    const res = await json<{ result: boolean; decision_id: string }>(`${agent!.url}/v1/data/app/allow`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ input: { user } }),
    })
    expect(res.status).toBe(200)
    return { result: res.body.result, decisionId: res.body.decision_id }
  }

  it('downloads the signed bundle through the relay, decides, reports status, and loses no decision log across SIGKILL', async () => {
    // The service signs every bundle it builds.
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const keyFile = join(dir, 'signing.pem')
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 })
    const serviceConfig = join(dir, 'service.yaml')
    writeFileSync(
      serviceConfig,
      stringify({
        service: { bundles: { signing: { key_file: keyFile, algorithm: 'RS256', key_id: 'svc' } } },
      }),
    )
    service = await startRegent(
      ['service', '-c', serviceConfig, '--addr', '127.0.0.1:0', '--data-dir', join(dir, 'service')],
      { REGENT_ADMIN_TOKEN: ADMIN },
    )
    const created = await json<{ result: { id: string } }>(`${service.url}/v1/systems`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'agent-e2e', type: 'custom' }),
    })
    expect(created.status).toBe(200)
    const systemId = created.body.result.id
    for (const [url, body] of [
      [`/v1/policies/systems/${systemId}/app`, { modules: { 'app.rego': POLICY } }],
      [`/v1/data/systems/${systemId}/app`, { admins: ['alice'] }],
    ] as const) {
      const res = await request(`${service.url}${url}`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify(body),
      })
      expect(res.statusCode).toBe(200)
      await res.body.dump()
    }

    // The relay, from the service's relay config, with quick retries and status forwarding.
    const relayConfig = parse(
      await (
        await request(`${service.url}/v1/systems/${systemId}/assets/relay-config`, { headers: auth })
      ).body.text(),
    ) as Record<string, Record<string, unknown>>
    relayConfig.relay = {
      decision_logs: { retry: { min_delay_ms: 50, max_delay_ms: 500 } },
      status: { forward_interval_seconds: 1 },
    }
    const relayFile = join(dir, 'relay.yaml')
    writeFileSync(relayFile, stringify(relayConfig))
    const relayAddr = `127.0.0.1:${await freePort()}`
    const startRelay = () =>
      startRegent(['relay', '-c', relayFile, '--addr', relayAddr, '--data-dir', join(dir, 'relay')])
    relay = await startRelay()

    // The agent: an OPA agent config pointed at the relay, verifying the service's signature.
    const bundleName = `systems/${systemId}`
    const keys = relayConfig.keys as Record<string, unknown>
    expect(Object.keys(keys)).toEqual(['svc'])
    const agentFile = join(dir, 'agent.yaml')
    writeFileSync(
      agentFile,
      stringify({
        services: [{ name: 'relay', url: `http://${relayAddr}/v1` }],
        labels: { 'system-id': systemId, app: 'e2e' },
        keys,
        bundles: {
          [bundleName]: {
            service: 'relay',
            resource: `bundles/${bundleName}`,
            persist: true,
            polling: { min_delay_seconds: 1, max_delay_seconds: 2, long_polling_timeout_seconds: 10 },
            signing: { keyid: 'svc' },
          },
        },
        decision_logs: { service: 'relay', reporting: { min_delay_seconds: 1, max_delay_seconds: 2 } },
        status: { service: 'relay' },
        persistence_directory: join(dir, 'agent'),
      }),
    )
    const startAgent = () => startRegent(['run', '-s', '-c', agentFile, '-a', '127.0.0.1:0'])
    agent = await startAgent()
    await eventually(
      async () => (await request(`${agent!.url}/health?bundles`)).statusCode === 200,
      20_000,
      'bundle activated at the agent',
    )
    const agentId = (await json<{ result: { labels: { id: string } } }>(`${agent.url}/v1/config`)).body.result
      .labels.id

    // Decisions on the downloaded policy and data.
    const decided: string[] = []
    for (const [user, expected] of [
      ['alice', true],
      ['bob', false],
    ] as const) {
      const { result, decisionId } = await decide(user)
      expect(result).toBe(expected)
      decided.push(decisionId)
    }

    // Status reaches the service through the relay, with the active revision of the bundle.
    await eventually(
      async () => {
        const s = await json<{
          result: Record<
            string,
            { labels: Record<string, string>; bundles: Record<string, { active_revision?: string }> }
          >
        }>(`${service!.url}/v1/status?system=${systemId}`, { headers: auth })
        const report = s.body.result[agentId]
        return report?.labels.app === 'e2e' && typeof report.bundles[bundleName]?.active_revision === 'string'
      },
      20_000,
      'agent status at the service',
    )
    await eventually(
      async () => (await storedDecisions()) === decided.length,
      20_000,
      'first decisions stored',
    )

    // The relay goes down: the next decisions stay in the agent's buffer; then the agent is killed.
    expect(await relay.stop()).toBe(0)
    relay = undefined
    for (let i = 0; i < 20; i++) decided.push((await decide(i % 2 === 0 ? 'alice' : 'carol')).decisionId)
    await agent.kill()
    agent = undefined
    expect(await storedDecisions()).toBe(2)

    // Both come back: the agent activates its persisted bundle and uploads what it buffered.
    relay = await startRelay()
    agent = await startAgent()
    await eventually(
      async () => (await storedDecisions()) >= decided.length,
      30_000,
      'buffered decisions stored',
    )
    // Exactly once: nothing more arrives, and each decision is there by its id.
    await new Promise((r) => setTimeout(r, 1500))
    expect(await storedDecisions()).toBe(decided.length)
    expect(new Set(decided).size).toBe(decided.length)
    for (const id of decided) {
      const res = await request(`${service.url}/v1/decisions/${id}`, { headers: auth })
      expect(res.statusCode).toBe(200)
      const text = await res.body.text()
      expect(text).toContain(`"path":"app/allow"`)
    }
  }, 120_000)
})

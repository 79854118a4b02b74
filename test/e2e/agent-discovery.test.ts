/**
 * `regent run -s -c` booted with the OPA config the service generates for a system
 * (`assets/opa-config`: the service, its agent token, labels and `discovery` only): the agent
 * downloads the discovery bundle, learns the system's bundle, decision logs and status from it,
 * activates the bundle, decides, and its decision and status reach the service.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, describe, expect, it } from 'vitest'
import { eventually } from '../relay/helpers.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'

const ADMIN = 'e2e-admin-token-discovery-0123456789'
const auth = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' }

const POLICY = 'package app\n\nimport rego.v1\n\nallow if input.user == "alice"\n'

describe('regent run -s -c with the service-generated OPA config (discovery)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-e2e-discovery-'))
  let service: RegentProcess | undefined
  let agent: RegentProcess | undefined

  afterAll(async () => {
    await agent?.stop()
    await service?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('learns its bundle, decision logs and status from the discovery bundle', async () => {
    service = await startRegent(['service', '--addr', '127.0.0.1:0', '--data-dir', join(dir, 'service')], {
      REGENT_ADMIN_TOKEN: ADMIN,
    })
    const created = await request(`${service.url}/v1/systems`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'discovered', type: 'custom' }),
    })
    expect(created.statusCode).toBe(200)
    const systemId = ((await created.body.json()) as { result: { id: string } }).result.id
    const put = await request(`${service.url}/v1/policies/systems/${systemId}/app`, {
      method: 'PUT',
      headers: auth,
      body: JSON.stringify({ modules: { 'app.rego': POLICY } }),
    })
    expect(put.statusCode).toBe(200)
    await put.body.dump()
    const opaConfig = await (
      await request(`${service.url}/v1/systems/${systemId}/assets/opa-config`, { headers: auth })
    ).body.text()
    const configFile = join(dir, 'opa.yaml')
    writeFileSync(configFile, `${opaConfig}persistence_directory: ${JSON.stringify(join(dir, 'agent'))}\n`)

    agent = await startRegent(['run', '-s', '-c', configFile, '-a', '127.0.0.1:0'])
    await eventually(
      async () => (await request(`${agent!.url}/health?bundles`)).statusCode === 200,
      20_000,
      'discovery and bundle activated',
    )
    const res = await request(`${agent.url}/v1/data/app/allow`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ input: { user: 'alice' } }),
    })
    const answer = (await res.body.json()) as { result: boolean; decision_id: string }
    expect(answer.result).toBe(true)

    // The decision, uploaded with the agent token, is stored under the system.
    await eventually(
      async () =>
        (await request(`${service!.url}/v1/decisions/${answer.decision_id}`, { headers: auth }))
          .statusCode === 200,
      20_000,
      'decision stored at the service',
    )
    const status = (await (await request(`${agent.url}/v1/status`)).body.json()) as {
      result: {
        labels: Record<string, string>
        discovery: { active_revision?: string }
        plugins: Record<string, { state: string }>
      }
    }
    expect(status.result.labels['system-id']).toBe(systemId)
    expect(status.result.plugins).toMatchObject({ discovery: { state: 'OK' }, bundle: { state: 'OK' } })
    await eventually(
      async () => {
        const reports = (await (
          await request(`${service!.url}/v1/status?system=${systemId}`, { headers: auth })
        ).body.json()) as { result: Record<string, { bundles?: Record<string, unknown> }> }
        return Object.values(reports.result).some((r) => r.bundles?.[`systems/${systemId}`] !== undefined)
      },
      20_000,
      'status at the service',
    )
  }, 60_000)
})

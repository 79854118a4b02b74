/**
 * `GET /v1/fleet`: the latest reports summarised with their receive times; a relay's own report
 * links the agents it forwards; the same authorization as `GET /v1/status`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import type { FleetAgent } from '../../../service/fleet.js'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

const COMMIT = 'a'.repeat(40)

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`fleet on ${backend.name}`, () => {
    let t: TestService
    let agentToken: string
    let systemId: string
    let otherId: string

    beforeAll(async () => {
      t = await startTestService(backend)
      systemId = (
        (await t.json('POST', '/v1/systems', { body: { name: 'edge', type: 'custom' } })).body.result as {
          id: string
        }
      ).id
      otherId = (
        (await t.json('POST', '/v1/systems', { body: { name: 'other', type: 'custom' } })).body.result as {
          id: string
        }
      ).id
      const opa = parseYaml(await (await t.call('GET', `/v1/systems/${systemId}/assets/opa-config`)).text())
      agentToken = opa.services[0].credentials.bearer.token as string
    })
    afterAll(async () => t?.close())

    const post = async (body: unknown, token = agentToken) => {
      const res = await t.call('POST', '/v1/status', { body, token })
      expect(res.status).toBe(200)
    }

    it('summarises reports: revisions with their git commit, plugin states, errors, the relay in front', async () => {
      const before = new Date().toISOString()
      await post({
        labels: { id: 'opa-1', version: '1.4.0' },
        bundles: {
          [`systems/${systemId}`]: {
            name: `systems/${systemId}`,
            active_revision: `${COMMIT}-0123456789abcdef`,
          },
        },
        plugins: { bundle: { state: 'OK' }, decision_logs: { state: 'OK' } },
      })
      await post({
        labels: { id: 'opa-2' },
        bundles: {
          main: {
            name: 'main',
            code: 'bundle_error',
            message: 'server replied with not found',
            http_code: '404',
          },
        },
        plugins: { bundle: { state: 'ERROR', message: 'download failed' } },
      })
      await post({
        labels: { id: 'relay-1', type: 'regent-relay', version: '0.9.0' },
        bundles: {},
        plugins: { bundle: { state: 'OK' } },
        relay_agents: ['opa-1'],
      })
      const res = await t.json<{ result: { now: string; agents: FleetAgent[] } }>('GET', '/v1/fleet')
      expect(res.status).toBe(200)
      const { now, agents } = res.body.result
      expect(Date.parse(now)).toBeGreaterThanOrEqual(Date.parse(before))
      const byId = new Map(agents.map((a) => [a.agent_id, a]))
      const one = byId.get('opa-1')!
      expect(one).toMatchObject({
        system_id: systemId,
        kind: 'agent',
        version: '1.4.0',
        via_relay: 'relay-1',
        errors: [],
      })
      expect(one.bundles[0]).toMatchObject({
        revision: `${COMMIT}-0123456789abcdef`,
        commit: COMMIT,
        error: null,
      })
      expect(Date.parse(one.received_at)).toBeGreaterThanOrEqual(Date.parse(before))
      const two = byId.get('opa-2')!
      expect(two.via_relay).toBeNull()
      expect(two.plugins.bundle).toEqual({ state: 'ERROR', message: 'download failed' })
      expect(two.bundles[0]).toMatchObject({
        revision: null,
        commit: null,
        error: 'bundle_error: server replied with not found (HTTP 404)',
      })
      expect(two.errors).toEqual([
        'bundle main: bundle_error: server replied with not found (HTTP 404)',
        'plugin bundle: download failed',
      ])
      expect(byId.get('relay-1')).toMatchObject({ kind: 'relay', relay_agents: ['opa-1'], via_relay: null })
    })

    it('authorizes as GET /v1/status does: an agent token reads its own system only', async () => {
      const own = await t.json<{ result: { agents: FleetAgent[] } }>('GET', `/v1/fleet?system=${systemId}`, {
        token: agentToken,
      })
      expect(own.status).toBe(200)
      expect(own.body.result.agents.every((a) => a.system_id === systemId)).toBe(true)
      expect((await t.call('GET', `/v1/fleet?system=${otherId}`, { token: agentToken })).status).toBe(403)
      expect((await t.call('GET', '/v1/fleet', { token: agentToken })).status).toBe(403)
      expect((await t.call('GET', '/v1/fleet', { token: null })).status).toBe(401)
      expect((await t.call('GET', '/v1/fleet?system=..%2Fx')).status).toBe(400)
    })

    it('cuts what one report can add: entries, errors and texts are bounded', async () => {
      const plugins = Object.fromEntries(
        Array.from({ length: 200 }, (_, i) => [
          `p${String(i).padStart(3, '0')}`,
          { state: 'ERROR', message: 'x'.repeat(5000) },
        ]),
      )
      await post({ labels: { id: 'noisy' }, plugins })
      const res = await t.json<{ result: { agents: FleetAgent[] } }>('GET', `/v1/fleet?system=${systemId}`)
      const noisy = res.body.result.agents.find((a) => a.agent_id === 'noisy')!
      expect(Object.keys(noisy.plugins)).toHaveLength(50)
      expect(noisy.errors).toHaveLength(21)
      expect(noisy.errors[20]).toBe('… 30 more')
      expect(noisy.plugins.p000!.message).toHaveLength(501)
    })

    it('summarises a report whose fields have unexpected types without failing', async () => {
      await post({ labels: { id: 'odd', version: 7 }, bundles: [], plugins: { x: 'y' }, relay_agents: 'no' })
      const res = await t.json<{ result: { agents: FleetAgent[] } }>('GET', `/v1/fleet?system=${systemId}`)
      const odd = res.body.result.agents.find((a) => a.agent_id === 'odd')!
      expect(odd).toMatchObject({ version: null, bundles: [], plugins: { x: { state: 'UNKNOWN' } } })
    })
  })
}

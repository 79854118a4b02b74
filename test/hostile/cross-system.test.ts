/**
 * Hostile: an agent token of one system writing into another system's records, against a real
 * service over HTTP (issue 17, item 6). Agent ids and decision ids are chosen by agents, so the
 * service keys both by (system, id), and an agent token's writes always belong to its own system.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'

interface Search {
  result: { items: Array<Record<string, unknown>> }
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`cross-system writes on ${backend.name}`, () => {
    let t: TestService
    const systems: Array<{ id: string; token: string }> = []
    beforeAll(async () => {
      t = await startTestService(backend)
      for (const name of ['victim', 'attacker']) {
        const created = await t.json<{ result: { id: string } }>('POST', '/v1/systems', {
          body: { name, type: 'custom' },
        })
        const id = created.body.result.id
        const config = parseYaml(await (await t.call('GET', `/v1/systems/${id}/assets/opa-config`)).text())
        systems.push({ id, token: config.services[0].credentials.bearer.token as string })
      }
    })
    afterAll(async () => t?.close())

    const victim = () => systems[0]!
    const attacker = () => systems[1]!

    it("cannot overwrite another system's agent status", async () => {
      const report = (system: string, mark: string) => ({
        labels: { id: 'agent-1', 'system-id': system },
        mark,
      })
      const real = await t.json('POST', '/v1/status', {
        token: victim().token,
        body: report(victim().id, 'real'),
      })
      expect(real.status).toBe(200)
      // Same agent id, even claiming the victim's system in its labels.
      const forged = await t.json('POST', '/v1/status', {
        token: attacker().token,
        body: report(victim().id, 'forged'),
      })
      expect(forged.status).toBe(200)
      const seen = await t.json<{ result: Record<string, { mark: string }> }>(
        'GET',
        `/v1/status?system=${victim().id}`,
        { token: victim().token },
      )
      expect(seen.body.result).toEqual({ 'agent-1': expect.objectContaining({ mark: 'real' }) })
      const own = await t.json<{ result: Record<string, { mark: string }> }>(
        'GET',
        `/v1/status?system=${attacker().id}`,
        { token: attacker().token },
      )
      expect(own.body.result['agent-1']?.mark).toBe('forged')
      expect(
        (await t.json('GET', `/v1/status?system=${victim().id}`, { token: attacker().token })).status,
      ).toBe(403)
      // An administrator listing both sees both reports, told apart by system.
      const all = await t.json<{ result: Record<string, { mark: string }> }>('GET', '/v1/status')
      expect(all.body.result[`${victim().id}/agent-1`]?.mark).toBe('real')
      expect(all.body.result[`${attacker().id}/agent-1`]?.mark).toBe('forged')
    })

    it("cannot squat another system's decision id", async () => {
      const event = (system: string, mark: string) => ({
        decision_id: 'dec-0001',
        path: 'app/allow',
        result: true,
        labels: { id: 'agent-1', 'system-id': system },
        timestamp: '2026-01-01T00:00:00Z',
        mark,
      })
      const squat = await t.json('POST', '/v1/logs', {
        token: attacker().token,
        body: [event(victim().id, 'squat')],
      })
      expect(squat.status).toBe(200)
      const real = await t.json('POST', '/v1/logs', {
        token: victim().token,
        body: [event(victim().id, 'real')],
      })
      expect(real.status).toBe(200)
      // A retry of the real event is still a duplicate.
      await t.json('POST', '/v1/logs', { token: victim().token, body: [event(victim().id, 'real')] })

      const victims = await t.json<Search>('GET', `/v1/decisions?system=${victim().id}`)
      expect(victims.body.result.items.map((d) => d.mark)).toEqual(['real'])
      const attackers = await t.json<Search>('GET', `/v1/decisions?system=${attacker().id}`)
      expect(attackers.body.result.items.map((d) => [d.mark, d.system_id])).toEqual([
        ['squat', attacker().id],
      ])
      const one = await t.json<{ result: { mark: string } }>(
        'GET',
        `/v1/decisions/dec-0001?system=${victim().id}`,
      )
      expect(one.body.result.mark).toBe('real')
    })
  })
}

/**
 * Decision logs through the real processes: agents post to `regent relay` (started from the
 * relay config the service generates) while `regent service` is down; once the service is back
 * on the same address, every decision is stored there exactly once (the service dedupes by
 * decision_id) with its numbers intact.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import type { DecisionLogsStatus } from '../../relay/decision-logs/index.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'
import { bigReqId, decisionId, gzipChunks, makeEvents, postAll } from '../support/logs-agent.js'

const ADMIN = 'e2e-admin-token-logs-0123456789'
const auth = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' }
const AGENTS = ['agent-a', 'agent-b', 'agent-c', 'agent-d']
const PER_AGENT = 2_500

describe('decision logs from agents through regent relay to regent service', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-e2e-logs-service-'))
  let service: RegentProcess | undefined
  let relay: RegentProcess | undefined

  afterAll(async () => {
    await relay?.stop()
    await service?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  const startService = (addr: string) =>
    startRegent(['service', '--addr', addr, '--data-dir', join(dir, 'service')], {
      REGENT_ADMIN_TOKEN: ADMIN,
    })

  async function storedCount(url: string): Promise<number> {
    const text = await (await request(`${url}/metrics`)).body.text()
    const match = /regent_service_decisions_received_total\{outcome="stored"\} (\d+)/.exec(text)
    return match ? Number(match[1]) : 0
  }

  it('holds 10,000 decisions while the service is down and delivers each once, numbers intact', async () => {
    service = await startService('127.0.0.1:0')
    const serviceAddr = service.url.replace(/^http:\/\//, '')
    const created = await request(`${service.url}/v1/systems`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'logs', type: 'custom' }),
    })
    expect(created.statusCode).toBe(200)
    const systemId = ((await created.body.json()) as { result: { id: string } }).result.id
    const asset = await request(`${service.url}/v1/systems/${systemId}/assets/relay-config`, {
      headers: auth,
    })
    expect(asset.statusCode).toBe(200)
    const config = parse(await asset.body.text()) as { relay: Record<string, unknown> }
    // Larger batches than OPA's 32 KiB: the regent service takes them.
    config.relay.decision_logs = {
      upload: { max_batch_bytes: 256 * 1024 },
      retry: { min_delay_ms: 50, max_delay_ms: 500 },
    }
    const configFile = join(dir, 'relay.yaml')
    writeFileSync(configFile, stringify(config))
    expect(await service.stop()).toBe(0)
    service = undefined

    relay = await startRegent([
      'relay',
      '-c',
      configFile,
      '--addr',
      '127.0.0.1:0',
      '--data-dir',
      join(dir, 'relay'),
    ])
    const sent = AGENTS.map((agent) => makeEvents(agent, 0, PER_AGENT, 600))
    const refusals = await Promise.all(
      sent.map((events) => postAll(`${relay!.url}/v1/logs`, gzipChunks(events), 1)),
    )
    expect(refusals).toEqual([0, 0, 0, 0])
    const status = (await (await request(`${relay.url}/v1/relay/status`)).body.json()) as {
      decision_logs: DecisionLogsStatus
    }
    expect(status.decision_logs.buffer.events).toBe(AGENTS.length * PER_AGENT)
    expect(status.decision_logs.upload.url).toBe(`http://${serviceAddr}/v1/logs`)

    service = await startService(serviceAddr)
    const deadline = Date.now() + 60_000
    while ((await storedCount(service.url)) < AGENTS.length * PER_AGENT && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250))
    }
    expect(await storedCount(service.url)).toBe(AGENTS.length * PER_AGENT)
    // Numbers intact: the stored event is the one sent, req_id beyond 2^53 included.
    for (const [a, agent] of AGENTS.entries()) {
      for (const i of [0, 1234, PER_AGENT - 1]) {
        const res = await request(`${service.url}/v1/decisions/${decisionId(agent, i)}`, { headers: auth })
        const text = await res.body.text()
        expect(res.statusCode).toBe(200)
        expect(text).toContain(sent[a]![i]!.slice(0, -1))
        expect(text).toContain(`"req_id":${bigReqId(i)}`)
      }
    }
  }, 90_000)
})

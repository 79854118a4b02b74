/**
 * Hostile: poisoned decision batches. One bad event used to dead-letter thousands of good ones
 * (1 bad + 4,000 good: 100 stored, 3,900 dead-lettered), because the relay acknowledged events
 * the service refused and then retried and dead-lettered whole batches.
 *
 * Now: the relay refuses an invalid event at intake (400 naming the event and field, nothing of
 * the request stored), and whatever the upstream still refuses (events an older relay
 * acknowledged, or an upstream with rules of its own) is found by bisecting the batch: every good
 * event is delivered, only the refused ones are dead-lettered, each with the upstream's reason,
 * and redrive sends them back one by one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import { request } from 'undici'
import { afterAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { parseConfig } from '../../core/config.js'
import { createApp, startServer } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'
import {
  BUFFER_FILE_NAME,
  DecisionLogs,
  type DecisionLogsStatus,
  decisionLogsSectionSchema,
} from '../../relay/decision-logs/index.js'
import { DecisionBuffer } from '../../store/decision-buffer/index.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'
import { decisionId, gzipArray, gzipChunks, makeEvent, makeEvents, postAll } from '../support/logs-agent.js'
import { LogsUpstream } from '../support/logs-upstream.js'
import { runRegent } from '../support/run-cli.js'

const ADMIN = 'hostile-poison-admin-token-0123456789'
const auth = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' }
const GOOD = 4_000

/** Event i of agent a with a numeric decision_id: valid JSON, refused by the shared rules. */
const numericId = (i: number) =>
  makeEvent('a', i, 600).replace(`"decision_id":"${decisionId('a', i)}"`, `"decision_id":${i}`)

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

describe('poisoned decision batches through regent relay to regent service', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-hostile-poison-'))
  const storage = join(dir, 'relay')
  const configFile = join(dir, 'relay.yaml')
  let service: RegentProcess | undefined
  let relay: RegentProcess | undefined

  afterAll(async () => {
    await relay?.stop()
    await service?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  const storedCount = async () => {
    const text = await (await request(`${service!.url}/metrics`)).body.text()
    return Number(/regent_service_decisions_received_total\{outcome="stored"\} (\d+)/.exec(text)?.[1] ?? 0)
  }
  // While waiting, the relay's own status (cheap); the CLI once things settled.
  const relayLogs = async () => {
    const res = await request(`${relay!.url}/v1/relay/status`)
    return ((await res.body.json()) as { decision_logs: DecisionLogsStatus }).decision_logs
  }
  const logsStatus = async () => {
    const run = await runRegent(['relay', 'logs', 'status', '-c', configFile, '--format', 'json'])
    expect(run.stderr).toBe('')
    return JSON.parse(run.stdout) as {
      events: number
      dead_letter: {
        events: number
        latest: Array<{ id: number; events: number; status: number; reason: string }>
      }
    }
  }

  it('delivers all 4,000 good events and dead-letters only the bad one, with the service reason; redrive goes event by event', async () => {
    service = await startRegent(['service', '--addr', '127.0.0.1:0', '--data-dir', join(dir, 'service')], {
      REGENT_ADMIN_TOKEN: ADMIN,
    })
    const created = await request(`${service.url}/v1/systems`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'poison', type: 'custom' }),
    })
    const systemId = ((await created.body.json()) as { result: { id: string } }).result.id
    const asset = await request(`${service.url}/v1/systems/${systemId}/assets/relay-config`, {
      headers: auth,
    })
    const config = parse(await asset.body.text()) as { relay: Record<string, unknown> }
    config.relay.storage = { dir: storage }
    config.relay.decision_logs = {
      upload: { max_batch_bytes: 256 * 1024 },
      retry: { min_delay_ms: 50, max_delay_ms: 500 },
    }
    writeFileSync(configFile, stringify(config))

    // The buffer as a relay without intake validation left it: 4,000 good events acknowledged,
    // one bad one among them (a numeric decision_id, which the service refuses).
    mkdirSync(storage, { recursive: true })
    const good = makeEvents('a', 0, GOOD, 600)
    const poisoned = [...good.slice(0, 2_000), numericId(GOOD), ...good.slice(2_000)]
    const seeded = DecisionBuffer.open({
      path: join(storage, BUFFER_FILE_NAME),
      sync: 'normal',
      maxBytes: 1e9,
      overflow: 'backpressure',
      busyTimeoutMs: 1000,
      deadLetterMaxEvents: 100_000,
      deadLetterMaxBytes: 1e9,
    })
    seeded.append(poisoned.map((text) => ({ text, decisionId: null, timestamp: null, agentId: 'a' })))
    seeded.close()

    relay = await startRegent(['relay', '-c', configFile, '--addr', '127.0.0.1:0'])

    // The relay itself refuses a new bad event at intake, naming it, and stores nothing of that request.
    const refused = await request(`${relay.url}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipArray([...makeEvents('b', 0, 3, 300), numericId(GOOD + 1)]),
    })
    expect(refused.statusCode).toBe(400)
    expect(((await refused.body.json()) as { message: string }).message).toMatch(
      /event 3, field decision_id: decision_id must be a non-empty string of at most 256 characters \(got a number\)/,
    )

    await waitUntil('the 4,000 good events stored by the service', async () => (await storedCount()) >= GOOD)
    await waitUntil('the buffer drained', async () => (await relayLogs()).buffer.events === 0)
    expect(await storedCount()).toBe(GOOD)
    const status = await logsStatus()
    expect(status.dead_letter.events).toBe(1)
    const [dead] = status.dead_letter.latest
    expect(dead).toMatchObject({ events: 1, status: 400 })
    expect(dead!.reason).toMatch(
      /^upstream answered 400: .*event 0, field decision_id: decision_id must be a non-empty string/,
    )
    // Nothing of batch b reached the service.
    const b = await request(`${service.url}/v1/decisions/${decisionId('b', 0)}`, { headers: auth })
    expect(b.statusCode).toBe(404)
    await b.body.dump()

    // Redrive sends back that one event, alone; the service refuses it again, nothing else moves.
    const redrive = await runRegent(['relay', 'logs', 'redrive', '-c', configFile, String(dead!.id)])
    expect(redrive.code).toBe(0)
    await waitUntil('the redriven event refused again', async () => {
      const now = await relayLogs()
      return now.upload.dead_lettered_events === 2 && now.buffer.events === 0
    })
    const after = await logsStatus()
    expect(after.dead_letter.events).toBe(1)
    expect(after.dead_letter.latest[0]).toMatchObject({ events: 1, status: 400 })
    expect(after.dead_letter.latest[0]!.id).not.toBe(dead!.id)
    expect(await storedCount()).toBe(GOOD)
  }, 120_000)
})

describe('poisoned decision batches against an upstream that refuses chosen events', () => {
  it('delivers every good event once and in order; each refused event is dead-lettered alone with its reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-hostile-poison-up-'))
    const upstream = await LogsUpstream.start()
    const logger = createLogger({ level: 'silent' })
    const logs = DecisionLogs.start({
      config: parseConfig('retry: {min_delay_ms: 10, max_delay_ms: 100}', decisionLogsSectionSchema),
      storageDir: dir,
      registry: new Registry(),
      logger,
      upstream: { url: upstream.logsUrl },
    })
    try {
      const app = createApp({ errorStyle: 'opa', logger })
      logs.installRoutes(app)
      const events = makeEvents('a', 0, GOOD + 5, 600)
      const bad = new Set([0, 1, 1_999, 2_500, GOOD + 4].map((i) => decisionId('a', i)))
      upstream.refuseEvents((text) => {
        const id = /"decision_id":"([^"]+)"/.exec(text)![1]!
        return bad.has(id) ? `${id} refused by policy` : undefined
      })
      // As OPA sends them: 32 KiB gzip chunks, all acknowledged (the events are valid).
      const server = await startServer({
        fetch: app.fetch,
        host: '127.0.0.1',
        port: 0,
        logger,
        name: 'relay',
      })
      try {
        expect(await postAll(`${server.url}/v1/logs`, gzipChunks(events), 1)).toBe(0)
        await upstream.waitFor(() => logs.buffer.stats().events === 0, 60_000, 'the buffer drained')
      } finally {
        await server.stop()
      }
      const delivered = upstream.accepted()
      expect(delivered).toEqual(events.filter((e) => !bad.has(/"decision_id":"([^"]+)"/.exec(e)![1]!)))
      const dead = await logs.buffer.listDeadBatches()
      expect(dead).toHaveLength(5)
      expect(dead.every((d) => d.events === 1 && d.status === 400)).toBe(true)
      expect(dead.map((d) => /a-\d+/.exec(d.reason)![0]).sort()).toEqual([...bad].sort())
      expect(dead[0]!.reason).toBe(
        `upstream answered 400: event 0: ${decisionId('a', GOOD + 4)} refused by policy`,
      )
    } finally {
      await logs.stop()
      await upstream.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})

/**
 * A relay killed with SIGKILL ten times while agents post and it forwards 100,000 decisions:
 * none is lost. Half the kills land at random moments, half at the worst one (the upstream has
 * just received a batch the relay has not deleted yet), so duplicates happen and are removed by
 * decision_id as the service does.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gzipChunks, makeEvents, postLogs } from '../support/logs-agent.js'
import { type StartedChild, startTsChild } from '../support/logs-child.js'
import { LogsUpstream } from '../support/logs-upstream.js'

const RELAY = 'test/support/decision-logs-relay.ts'
const KILLS = 10
let dir: string
let relay: StartedChild<{ url: string }> | undefined
let upstream: LogsUpstream | undefined

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-e2e-kill-'))
})
afterEach(async () => {
  relay?.child.kill('SIGKILL')
  await relay?.exited
  await upstream?.close()
  rmSync(dir, { recursive: true, force: true })
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const idOf = (text: string) => /"decision_id":"([^"]+)"/.exec(text)![1]!

describe('decision logs under SIGKILL', () => {
  it('loses no decision when the relay is killed 10 times while forwarding 100,000', async () => {
    // Slow answers keep uploads in flight for most of the run.
    upstream = await LogsUpstream.start({ delayMs: 5 })
    const probe = await LogsUpstream.start()
    await probe.close()
    const port = String(probe.port)
    const env = {
      REGENT_DECISION_LOGS: 'buffer: {sync: normal}\nretry: {min_delay_ms: 20, max_delay_ms: 200}',
    }
    const start = async () => {
      relay = await startTsChild<{ url: string }>(RELAY, [join(dir, 'storage'), upstream!.logsUrl, port], {
        env,
      })
    }
    await start()
    const url = relay!.ready.url

    const agents = ['agent-a', 'agent-b', 'agent-c', 'agent-d']
    const sent = new Map<string, string>()
    const chunksByAgent = agents.map((agent) => {
      const events = makeEvents(agent, 0, 25_000, 500)
      for (const e of events) sent.set(idOf(e), e)
      return gzipChunks(events)
    })
    // Agents keep a chunk until the relay answers 2xx (connection refused or reset: try again).
    const deadline = Date.now() + 80_000
    const post = async (chunks: Buffer[]) => {
      for (const chunk of chunks) {
        for (;;) {
          const status = await postLogs(`${url}/v1/logs`, chunk).then(
            (r) => r.status,
            () => 0,
          )
          if (status === 204) break
          if (Date.now() > deadline) throw new Error('agents gave up')
          await sleep(25)
        }
      }
    }
    const posting = Promise.all(chunksByAgent.map(post))

    let kills = 0
    let killAtUpload = false
    const kill = async () => {
      relay!.child.kill('SIGKILL')
      await relay!.exited
      kills++
      await start()
    }
    while (kills < KILLS) {
      if (kills % 2 === 0) {
        await sleep(100 + Math.random() * 300)
        await kill()
      } else {
        // Kill as an upload arrives upstream: accepted there, not yet deleted by the relay.
        killAtUpload = false
        const arrived = new Promise<void>((resolve) => {
          upstream!.onUpload = () => {
            upstream!.onUpload = undefined
            killAtUpload = true
            resolve()
          }
        })
        await Promise.race([arrived, sleep(3000)])
        await kill()
      }
    }
    expect(killAtUpload).toBe(true)
    const t0 = Date.now()
    await posting
    const t1 = Date.now()
    // Count distinct decisions as uploads arrive, so polling stays cheap.
    const seen = new Set<string>()
    let scanned = 0
    await upstream.waitFor(
      () => {
        for (; scanned < upstream!.requests.length; scanned++) {
          const r = upstream!.requests[scanned]!
          if (typeof r.status === 'number' && r.status < 300) for (const e of r.events) seen.add(idOf(e))
        }
        return seen.size >= sent.size
      },
      60_000,
      'every decision upstream',
    )
    console.log('posting after kills', t1 - t0, 'ms; forwarding after posting', Date.now() - t1, 'ms')
    const received = upstream.accepted()
    const unique = new Map<string, string>()
    for (const text of received) {
      expect(text).toBe(sent.get(idOf(text)))
      unique.set(idOf(text), text)
    }
    expect(unique.size).toBe(100_000)
    console.log(
      `decision logs under SIGKILL: ${kills} kills, ${received.length - unique.size} duplicates removed by decision_id`,
    )
  }, 120_000)
})

/**
 * Hostile: runaway compile queries against a real `regent relay` process. Eight of them at once
 * (10^8-step comprehensions and a 10^7-element range, which the evaluation budget stops: the work
 * limit, the deadline, or as a last resort the worker's heap limit) must not take the relay's main
 * thread: /health/live answers within 100 ms throughout, bundle downloads and decision-log intake keep
 * answering, every runaway ends with an error within its deadline, and the relay stays alive with
 * its memory bounded by the workers' heap limits.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Agent, request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, metricValue, tempDir } from '../relay/helpers.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'
import { type FaultUpstream, makeBundle, startFaultUpstream } from '../support/fault-upstream.js'

const TIMEOUT_MS = 3000
/** The pool stops a worker this long past the deadline when the engine could not stop itself. */
const KILL_GRACE_MS = 1000
const MAX_HEAP_MB = 64
const RUNAWAYS = [
  // 10^8 elements collected.
  'input.x == count([1 | some a in numbers.range(1, 10000); some b in numbers.range(1, 10000)])',
  // One built-in call allocating 10^7 numbers: charged before it allocates.
  'input.x == count(numbers.range(1, 1e7))',
  // 10^8 steps that keep nothing.
  'input.x == count([1 | some a in numbers.range(1, 10000); some b in numbers.range(1, 10000); a + b < 0])',
]
const POLICY = 'package filters\n\ninclude if input.tickets.owner == input.user\n'

/** Peak resident memory of a process (VmHWM), in MiB. */
function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'))
  return Number(line?.split(/\s+/)[1] ?? 0) / 1024
}

describe('hostile: runaway compile queries', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  let upstream: FaultUpstream
  let relay: RegentProcess
  // Connections of their own, so that a probe never queues behind a runaway on the same socket.
  const probes = new Agent({ connections: 4 })
  const attackers = new Agent({ connections: 16 })

  beforeAll(async () => {
    dir = await tempDir('regent-hostile-compile-')
    upstream = await startFaultUpstream()
    upstream.setBundle(
      '/v1/bundles/authz',
      await makeBundle({ revision: 'r1', modules: { 'filters.rego': POLICY }, data: {} }),
      '"r1"',
    )
    const file = join(dir.dir, 'relay.yaml')
    writeFileSync(
      file,
      [
        `services: { up: { url: "${upstream.url}/v1" } }`,
        'bundles: { authz: {} }',
        'relay:',
        `  compile: { workers: 2, queue: 8, timeout_ms: ${TIMEOUT_MS}, max_heap_mb: ${MAX_HEAP_MB} }`,
        '',
      ].join('\n'),
    )
    relay = await startRegent([
      'relay',
      '-c',
      file,
      '--addr',
      '127.0.0.1:0',
      '--data-dir',
      join(dir.dir, 'data'),
    ])
    await eventually(
      async () => (await request(`${relay.url}/v1/bundles/authz`, { dispatcher: probes })).statusCode === 200,
      15_000,
      'the bundle',
    )
  }, 40_000)

  afterAll(async () => {
    await relay?.stop()
    await probes.close()
    await attackers.close()
    await upstream?.stop()
    await dir?.cleanup()
  })

  const compile = async (body: object, path = '/v1/compile') => {
    const res = await request(`${relay.url}${path}`, {
      method: 'POST',
      headers: { Accept: 'application/vnd.opa.sql.postgresql+json', 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      dispatcher: attackers,
    })
    return { status: res.statusCode, text: await res.body.text() }
  }

  const timed = async (fn: () => Promise<number>): Promise<{ status: number; ms: number }> => {
    const started = performance.now()
    const status = await fn()
    return { status, ms: performance.now() - started }
  }

  it('keeps health, bundles and decision-log intake answering while 8 runaway compiles run', async () => {
    // Warm the workers with one honest request: they start with the first compile.
    expect(
      await compile({ input: { user: 'bob' }, unknowns: ['input.tickets'] }, '/v1/compile/filters/include'),
    ).toEqual({
      status: 200,
      text: '{"result":{"query":"WHERE tickets.owner = E\'bob\'"}}\n',
    })

    const started = performance.now()
    const runaways = Array.from({ length: 8 }, (_, i) =>
      compile({ query: RUNAWAYS[i % RUNAWAYS.length], unknowns: ['input.x'] }).then((r) => ({
        ...r,
        ms: performance.now() - started,
      })),
    )
    let settled = false
    void Promise.allSettled(runaways).then(() => {
      settled = true
    })

    const health: number[] = []
    const bundles: Array<{ status: number; ms: number }> = []
    const logs: Array<{ status: number; ms: number }> = []
    // Probe for as long as the runaways run (bounded by their deadline and a margin).
    while (!settled && performance.now() - started < TIMEOUT_MS * 4 + 20_000) {
      const probe = await timed(async () => {
        const res = await request(`${relay.url}/health/live`, { dispatcher: probes })
        await res.body.dump()
        return res.statusCode
      })
      expect(probe.status).toBe(200)
      health.push(probe.ms)
      if (health.length % 5 === 0) {
        bundles.push(
          await timed(async () => {
            const res = await request(`${relay.url}/v1/bundles/authz`, { dispatcher: probes })
            await res.body.dump()
            return res.statusCode
          }),
        )
        logs.push(
          await timed(async () => {
            const res = await request(`${relay.url}/v1/logs`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify([{ decision_id: `d-${logs.length}`, path: 'authz/allow', result: true }]),
              dispatcher: probes,
            })
            await res.body.dump()
            return res.statusCode
          }),
        )
      }
      await new Promise((r) => setTimeout(r, 20))
    }

    const results = await Promise.all(runaways)
    // Every runaway ended with an error within its deadline (plus the grace before a worker is
    // stopped, plus a margin for a loaded machine); none was answered.
    for (const r of results) {
      expect(r.status).toBe(500)
      const body = JSON.parse(r.text)
      expect(body.code).toBe('internal_error')
      expect(['eval_cancel_error', 'eval_instruction_limit_error']).toContain(body.errors?.[0]?.code)
      expect(r.ms).toBeLessThan(TIMEOUT_MS + KILL_GRACE_MS + 3000)
    }

    // /health/live answered within 100 ms throughout: judged on the 90th percentile, since a loaded
    // machine can deschedule the test process itself for a moment; none took a second.
    const sorted = [...health].sort((a, b) => a - b)
    expect(health.length).toBeGreaterThanOrEqual(10)
    expect(sorted[Math.floor(sorted.length * 0.9)]).toBeLessThan(100)
    expect(sorted.at(-1)).toBeLessThan(1000)
    expect(bundles.length).toBeGreaterThan(0)
    expect(bundles.every((b) => b.status === 200 && b.ms < 1000)).toBe(true)
    expect(logs.every((l) => l.status === 204 && l.ms < 1000)).toBe(true)

    // Alive, still compiling, memory bounded by the workers' heaps (not the 1.27 GB of a range
    // held by the main thread).
    expect(relay.child.exitCode).toBeNull()
    expect(
      (await compile({ input: { user: 'eve' }, unknowns: ['input.tickets'] }, '/v1/compile/filters/include'))
        .status,
    ).toBe(200)
    const metrics = await (await request(`${relay.url}/metrics`, { dispatcher: probes })).body.text()
    expect(metricValue(metrics, 'regent_relay_compile_workers')).toBe(2)
    // (The pool's own deadline kill is covered in test/core/workers/task-pool.test.ts: here the
    // engine's budget usually stops the runaways first.)
    expect(peakRssMb(relay.child.pid!)).toBeLessThan(200 + 2 * (MAX_HEAP_MB + 100))
  }, 90_000)
})

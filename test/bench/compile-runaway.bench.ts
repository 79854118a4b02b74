/**
 * Compile throughput while runaway queries are in flight: one `regent relay` process (as a build
 * ships it when esbuild is at hand, else through tsx) with `relay.compile.workers: 2`, serving the
 * tickets policy. Honest compile requests (8 connections, at most 8 s or 5,000 requests per phase)
 * with 0, 1, 2 and again 0 runaway queries kept in flight (each one replaced as soon as the relay stops it
 * at its deadline), beside /health/live latency and the relay's resident memory in the same phase.
 * With 0 runaways the figure is the baseline; a runaway holds one worker until its deadline.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent, request } from 'undici'
import { bundleFromParts, writeBundle } from '../../core/bundle/index.js'
import { startFaultUpstream } from '../support/fault-upstream.js'
import { builtEntry } from './built.js'

const BIN = fileURLToPath(new URL('../../bin/regent.js', import.meta.url))
const SQL = 'application/vnd.opa.sql.postgresql+json'
const POLICY = `package filters

include if {
  "admin" in data.roles[input.user]
  input.tickets.tenant == input.tenant.id
}

include if {
  "reader" in data.roles[input.user]
  input.tickets.tenant == input.tenant.id
  input.users.name == input.user
}
`
const DATA = { roles: { alice: ['admin'], bob: ['reader'] } }
const BODY = '{"input": {"user": "bob", "tenant": {"id": 2}}, "unknowns": ["input.tickets", "input.users"]}'
const RUNAWAY = JSON.stringify({
  query:
    'input.x == count([1 | some a in numbers.range(1, 10000); some b in numbers.range(1, 10000); a + b < 0])',
  unknowns: ['input.x'],
})
const TIMEOUT_MS = 2000
const PHASE_MS = 8000
const PHASE_REQUESTS = 5000

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024)
}

async function startRelay(
  dir: string,
  upstreamUrl: string,
  script: string,
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort()
  const config = join(dir, 'relay.yaml')
  writeFileSync(
    config,
    [
      `services: { up: { url: "${upstreamUrl}/v1" } }`,
      'bundles:',
      '  tickets: { polling: { min_delay_seconds: 60, max_delay_seconds: 120 } }',
      'relay:',
      `  compile: { workers: 2, queue: 16, timeout_ms: ${TIMEOUT_MS} }`,
      '',
    ].join('\n'),
  )
  const child = spawn(
    process.execPath,
    [script, 'relay', '-c', config, '--addr', `127.0.0.1:${port}`, '--data-dir', join(dir, 'relay-data')],
    { stdio: 'ignore', env: { ...process.env, REGENT_LOG_LEVEL: 'error' } },
  )
  const url = `http://127.0.0.1:${port}`
  const end = Date.now() + 30_000
  while (Date.now() < end) {
    const ok = await request(`${url}/v1/compile/filters/include`, {
      method: 'POST',
      headers: { Accept: SQL },
      body: BODY,
    })
      .then((r) => r.body.text())
      .then((t) => t.includes('WHERE'))
      .catch(() => false)
    if (ok) return { url, child }
    await new Promise((r) => setTimeout(r, 100))
  }
  child.kill('SIGKILL')
  throw new Error('the relay did not serve the tickets bundle within 30 s')
}

/** One phase: honest requests with `runaways` runaway queries kept in flight. */
async function phase(url: string, pid: number, runaways: number, label?: string): Promise<void> {
  const agent = new Agent({ connections: 8 + runaways + 1 })
  let stop = false
  const statuses = new Map<number, number>()
  const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1)
  let runawayEnded = 0
  const keepRunaway = async () => {
    while (!stop) {
      const res = await request(`${url}/v1/compile`, {
        method: 'POST',
        headers: { Accept: SQL },
        body: RUNAWAY,
        dispatcher: agent,
      })
      await res.body.dump()
      runawayEnded++
    }
  }
  const runawayLoops = Array.from({ length: runaways }, keepRunaway)
  // Let the runaways reach their workers before measuring.
  await new Promise((r) => setTimeout(r, 300))

  const health: number[] = []
  let peakRss = 0
  const healthLoop = (async () => {
    while (!stop) {
      const t = performance.now()
      const res = await request(`${url}/health/live`, { dispatcher: agent })
      await res.body.dump()
      health.push(performance.now() - t)
      peakRss = Math.max(peakRss, rssMb(pid))
      await new Promise((r) => setTimeout(r, 50))
    }
  })()

  const samples: number[] = []
  let next = 0
  const started = performance.now()
  const deadline = started + PHASE_MS
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < PHASE_REQUESTS && performance.now() < deadline) {
        next++
        const t = performance.now()
        const res = await request(`${url}/v1/compile/filters/include`, {
          method: 'POST',
          headers: { Accept: SQL },
          body: BODY,
          dispatcher: agent,
        })
        await res.body.dump()
        count(res.statusCode)
        if (res.statusCode === 200) samples.push(performance.now() - t)
      }
    }),
  )
  const total = performance.now() - started
  stop = true
  await Promise.all([...runawayLoops, healthLoop])
  await agent.close()
  samples.sort((a, b) => a - b)
  health.sort((a, b) => a - b)
  const ms = (x: number) => `${x.toFixed(1)} ms`
  const answered = [...statuses].map(([s, n]) => `${s}×${n}`).join(' ')
  console.log(
    `   ${(label ?? `${runaways} runaway(s) in flight`).padEnd(26)} ${Math.round(
      (samples.length / total) * 1000,
    )
      .toString()
      .padStart(6)} ok req/s  p50 ${ms(percentile(samples, 0.5))}  p99 ${ms(percentile(samples, 0.99))}  ` +
      `[${answered}]  health p50 ${ms(percentile(health, 0.5))} p99 ${ms(percentile(health, 0.99))}  ` +
      `runaways stopped ${runawayEnded}  RSS peak ${peakRss} MB`,
  )
}

/** Prints the figures. */
export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'regent-compile-runaway-bench-'))
  const upstream = await startFaultUpstream()
  let relay: { url: string; child: ChildProcess } | undefined
  try {
    upstream.setBundle(
      '/v1/bundles/tickets',
      await writeBundle(
        bundleFromParts({ modules: { 'filters.rego': POLICY }, data: DATA, manifest: { revision: 't1' } }),
      ),
      '"t1"',
    )
    const built = builtEntry('cli/main.ts', 'regent.mjs')
    relay = await startRelay(dir, upstream.url, built ?? BIN)
    console.log(
      `compile throughput of one relay (${built ? 'as built' : 'source, tsx'}; 2 workers, deadline ${TIMEOUT_MS} ms), 8 connections, at most ${PHASE_MS / 1000} s per phase:`,
    )
    // The workers' code is compiled by V8 as it runs: one phase to warm them up (printed, not a
    // baseline), then the baseline (none in flight) before and after the runaways, so that
    // machine noise shows.
    await phase(relay.url, relay.child.pid!, 0, 'warm-up (none in flight)')
    for (const runaways of [0, 1, 2, 0]) await phase(relay.url, relay.child.pid!, runaways)
  } finally {
    if (relay) {
      relay.child.kill('SIGTERM')
      await new Promise((r) => relay!.child.once('exit', r))
    }
    await upstream.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Compile endpoint figures with real partial evaluation: the details' tickets example (user caesar,
 * tenant 2) compiled in process (partial evaluation alone, then the whole pipeline for PostgreSQL and
 * UCAST), how cost grows with the number of rules (10, 100, 1,000) and of unknown tables, and over HTTP
 * on 127.0.0.1: a bare Hono route answering fixed JSON in a process of its own (the baseline), the
 * compile routes in this process, and real `regent relay` processes serving the policy from a bundle
 * they pulled: one as a build ships it (bundled JavaScript) and one as a source checkout runs it
 * (TypeScript through tsx).
 * Each server process's CPU per request is read from /proc, by thread.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent, request } from 'undici'
import { EngineBackend } from '../../compile/backend.js'
import { CompileService } from '../../compile/compile.js'
import { compileRoutes } from '../../compile/route.js'
import { bundleFromParts, writeBundle } from '../../core/bundle/index.js'
import { startServer } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'
import { setTemplateMode } from '../../core/rego/eval/partial-template-cache.js'
import { parseModule, partialEvaluate } from '../../core/rego/index.js'
import { fromJS } from '../../core/rego/values/index.js'
import { startFaultUpstream } from '../support/fault-upstream.js'
import { builtEntry } from './built.js'

const BIN = fileURLToPath(new URL('../../bin/regent.js', import.meta.url))

/** The tickets example: roles from data, tenant and user from the input. */
const TICKETS_POLICY = `package filters

include if {
  "admin" in data.roles[input.user]
  input.tickets.tenant == input.tenant.id
}

include if {
  "reader" in data.roles[input.user]
  input.tickets.tenant == input.tenant.id
  input.users.name == input.user
}

include if {
  "resolver" in data.roles[input.user]
  input.tickets.tenant == input.tenant.id
  input.users.name == input.user
}

include if {
  "resolver" in data.roles[input.user]
  input.tickets.tenant == input.tenant.id
  input.tickets.assignee == null
  input.tickets.resolved == false
}
`
const TICKETS_DATA = { roles: { alice: ['admin'], bob: ['reader'], caesar: ['resolver'] } }
const BODY =
  '{"input": {"user": "caesar", "tenant": {"id": 2}}, "unknowns": ["input.tickets", "input.users"]}'
const SQL = 'application/vnd.opa.sql.postgresql+json'
const UCAST = 'application/vnd.opa.ucast.prisma+json'

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

function line(label: string, rate: number, unit: string, p50: string, p99: string): void {
  console.log(
    `   ${label.padEnd(60)} ${Math.round(rate).toString().padStart(8)} ${unit}  p50 ${p50}  p99 ${p99}`,
  )
}

/** p50 wall time and this process's CPU time (all threads, GC included) per call, in ms. */
interface LoopFigures {
  p50: number
  cpu: number
}

/** Runs `fn` up to `iterations` times (at most `maxMs`), single-threaded, one at a time. */
async function timeLoop(
  label: string,
  iterations: number,
  fn: () => unknown,
  maxMs = 10_000,
): Promise<LoopFigures> {
  const samples: number[] = []
  const started = performance.now()
  const cpu0 = process.cpuUsage()
  for (let i = 0; i < iterations && performance.now() - started < maxMs; i++) {
    const t = performance.now()
    await fn()
    samples.push(performance.now() - t)
  }
  const total = performance.now() - started
  const cpu = process.cpuUsage(cpu0)
  samples.sort((a, b) => a - b)
  const us = (x: number) => `${(x * 1000).toFixed(0)} µs`
  const cpuPerCall = (cpu.user + cpu.system) / 1000 / samples.length
  line(
    label,
    (samples.length / total) * 1000,
    'ops/s',
    us(percentile(samples, 0.5)),
    `${us(percentile(samples, 0.99))}  cpu ${us(cpuPerCall)}`,
  )
  return { p50: percentile(samples, 0.5), cpu: cpuPerCall }
}

/** 10,000 requests (at most 20 s) over `concurrency` keep-alive connections. */
async function httpLoop(
  label: string,
  url: string,
  headers: Record<string, string>,
  body: string,
  concurrency = 8,
  pid?: number,
): Promise<{ rate: number; p99: number; cpuUs?: number }> {
  const agent = new Agent({ connections: concurrency })
  const cpu0 = pid === undefined ? undefined : threadCpuMs(pid)
  const requests = 10_000
  const samples: number[] = []
  const deadline = performance.now() + 20_000
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests && performance.now() < deadline) {
        next++
        const t = performance.now()
        const res = await request(url, { method: 'POST', headers, body, dispatcher: agent })
        const text = await res.body.text()
        if (res.statusCode !== 200) throw new Error(`${label}: HTTP ${res.statusCode} ${text}`)
        samples.push(performance.now() - t)
      }
    }),
  )
  const total = performance.now() - started
  await agent.close()
  samples.sort((a, b) => a - b)
  const ms = (x: number) => `${x.toFixed(2)} ms`
  const rate = (samples.length / total) * 1000
  const p99 = percentile(samples, 0.99)
  line(`${label} (${concurrency} conn)`, rate, 'req/s', ms(percentile(samples, 0.5)), ms(p99))
  if (pid === undefined || cpu0 === undefined) return { rate, p99 }
  // The server's own CPU per request, by thread (/proc, 10 ms ticks): less skewed by the load.
  const cpu1 = threadCpuMs(pid)
  const perRequest = (name: string) =>
    (((cpu1.get(name) ?? 0) - (cpu0.get(name) ?? 0)) * 1000) / samples.length
  const names = [...cpu1.keys()].filter((name) => perRequest(name) >= 1)
  const cpuUs = names.reduce((sum, name) => sum + perRequest(name), 0)
  console.log(
    `      server CPU per request ${cpuUs.toFixed(0)} µs (${names
      .sort((a, b) => perRequest(b) - perRequest(a))
      .map((name) => `${name} ${perRequest(name).toFixed(0)}`)
      .join(', ')})`,
  )
  return { rate, p99, cpuUs }
}

/** CPU milliseconds used so far by each thread of `pid`, summed by thread name (`main` for the main thread). */
function threadCpuMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>()
  let tids: string[] = []
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return byName
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      // Worker threads (the relay's compile worker) and V8's helper threads are all named "node".
      const name =
        Number(tid) === pid
          ? 'main'
          : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/^node$/, 'workers')
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ')
      const ms = (Number(fields[11]) + Number(fields[12])) * 10 // utime + stime, clock ticks of 10 ms
      byName.set(name, (byName.get(name) ?? 0) + ms)
    } catch {
      // the thread ended meanwhile
    }
  }
  return byName
}

/**
 * The baseline: a bare Hono route answering fixed JSON through @hono/node-server, in a process
 * of its own as the relay is (in the bench process it would share the load generator's thread).
 */
async function startBareRoute(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort()
  const script = `
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
const app = new Hono()
app.post('/fixed', (c) => c.json({ result: { query: "WHERE tickets.tenant = E'2'" } }))
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: ${port} })`
  // Evaluated with the checkout as working directory, so 'hono' resolves from its node_modules.
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: 'ignore',
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
  })
  const url = `http://127.0.0.1:${port}`
  try {
    await waitUntil(
      async () => (await request(`${url}/fixed`, { method: 'POST', body: '{}' })).statusCode === 200,
      10_000,
      'the bare route',
    )
  } catch (err) {
    child.kill('SIGKILL')
    throw err
  }
  return { url, child }
}

/** 500 requests over 8 connections, not measured. */
async function warmUp(url: string, headers: Record<string, string>, body: string): Promise<void> {
  const agent = new Agent({ connections: 8 })
  let left = 500
  try {
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (left-- > 0) {
          const res = await request(url, { method: 'POST', headers, body, dispatcher: agent })
          await res.body.text()
        }
      }),
    )
  } finally {
    await agent.close()
  }
}

function backendOf(source: string, data: unknown = {}): EngineBackend {
  return new EngineBackend({
    modules: { 'filters.rego': parseModule(source, { file: 'filters.rego' }) },
    data,
  })
}

function compileOnce(service: CompileService, accept: string, bodyText: string) {
  return service.compile({
    path: 'filters/include',
    accept,
    contentType: 'application/json',
    bodyText,
    metrics: false,
  })
}

async function inProcess(): Promise<void> {
  console.log('in process, single-threaded, tickets example (caesar, tenant 2):')
  const backend = backendOf(TICKETS_POLICY, TICKETS_DATA)
  const input = fromJS({ user: 'caesar', tenant: { id: 2 } })
  await timeLoop('partial evaluation only', 20_000, () =>
    partialEvaluate(backend.policy(), 'data.filters.include', {
      input,
      unknowns: ['input.tickets', 'input.users'],
      nondeterministicBuiltins: true,
    }),
  )
  const service = new CompileService(backend)
  const sample = await compileOnce(service, SQL, BODY)
  console.log(`   (answer: ${JSON.stringify(sample.body)})`)
  await timeLoop('whole pipeline (decode … response), postgresql', 20_000, () =>
    compileOnce(service, SQL, BODY),
  )
  await timeLoop('whole pipeline, ucast prisma', 20_000, () => compileOnce(service, UCAST, BODY))
}

async function growth(): Promise<void> {
  console.log('growth with the number of rules (whole pipeline, postgresql; each rule one condition):')
  const figures: LoopFigures[] = []
  for (const n of [10, 100, 1000]) {
    const rules = Array.from(
      { length: n },
      (_, i) => `include if { input.tickets.a == ${i}; input.tickets.b != input.x }`,
    ).join('\n')
    const service = new CompileService(backendOf(`package filters\n${rules}\n`))
    // Each request asks for another user: no answer can be reused from an earlier request.
    const bodies = Array.from({ length: 997 }, (_, k) =>
      JSON.stringify({ input: { x: `user-${k}` }, unknowns: ['input.tickets'] }),
    )
    let k = 0
    const next = () => compileOnce(service, SQL, bodies[k++ % bodies.length] as string)
    await next()
    figures.push(await timeLoop(`${n} rules`, Math.max(50, Math.floor(20_000 / n)), next))
    if (n === 1000) {
      // The same requests answered by the evaluator alone, without residual templates.
      setTemplateMode('off')
      try {
        await timeLoop(`${n} rules, evaluator only (REGENT_PARTIAL_TEMPLATES=off)`, 200, next)
      } finally {
        setTemplateMode(undefined)
      }
    }
  }
  // Goal (issue 25): 10× the rules costs at most 10× the time; 1,000 rules at a p50 of 5 ms at most.
  // CPU time per call is beside the wall p50: on a loaded machine the wall clock also counts the
  // time this process waited for a core.
  const [f10, f100, f1000] = figures as [LoopFigures, LoopFigures, LoopFigures]
  const times = (a: number, b: number) => `${(b / a).toFixed(1)}×`
  console.log(
    `   10 → 100 rules: ${times(f10.p50, f100.p50)} p50, ${times(f10.cpu, f100.cpu)} cpu; 100 → 1,000 rules: ${times(f100.p50, f1000.p50)} p50, ${times(f100.cpu, f1000.cpu)} cpu (goal ≤ 10×); 1,000 rules p50 ${f1000.p50.toFixed(1)} ms (goal ≤ 5 ms)`,
  )
  console.log('growth with the number of unknown tables (one rule comparing a column of each):')
  for (const n of [1, 10, 50]) {
    const tables = Array.from({ length: n }, (_, i) => `t${i}`)
    const policy = `package filters\ninclude if {\n${tables.map((t) => `  input.${t}.owner == input.user`).join('\n')}\n}\n`
    const service = new CompileService(backendOf(policy))
    const body = JSON.stringify({ input: { user: 'bob' }, unknowns: tables.map((t) => `input.${t}`) })
    await compileOnce(service, SQL, body)
    await timeLoop(`${n} tables`, Math.max(50, Math.floor(10_000 / n)), () => compileOnce(service, SQL, body))
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    if (await check().catch(() => false)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** A `regent relay` process pulling the tickets bundle from a local upstream. */
async function startRelay(
  dir: string,
  upstreamUrl: string,
  script: string,
): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort()
  const config = join(dir, 'relay.yaml')
  writeFileSync(
    config,
    `services: { up: { url: "${upstreamUrl}/v1" } }\nbundles:\n  tickets: { polling: { min_delay_seconds: 60, max_delay_seconds: 120 } }\n`,
  )
  const child = spawn(
    process.execPath,
    // REGENT_BENCH_RELAY_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles the relays.
    [
      ...(process.env.REGENT_BENCH_RELAY_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      script,
      'relay',
      '-c',
      config,
      '--addr',
      `127.0.0.1:${port}`,
      '--data-dir',
      join(dir, 'relay-data'),
    ],
    { stdio: 'ignore', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } },
  )
  const url = `http://127.0.0.1:${port}`
  const ready = async () =>
    (
      await request(`${url}/v1/compile/filters/include`, {
        method: 'POST',
        headers: { Accept: SQL },
        body: BODY,
      })
    ).body
      .text()
      .then((t) => t.includes('WHERE'))
  try {
    await waitUntil(ready, 30_000, 'relay serving the tickets bundle')
  } catch (err) {
    child.kill('SIGKILL') // never leave a relay running behind a failed bench
    throw err
  }
  return { url, child }
}

async function overHttp(): Promise<void> {
  console.log(
    `over HTTP on 127.0.0.1 (10,000 requests each, at most 20 s; load average ${loadavg()[0]?.toFixed(2)}):`,
  )
  const logger = createLogger({ level: 'warn' })
  const bareServer = await startBareRoute()
  const routes = compileRoutes({ backend: backendOf(TICKETS_POLICY, TICKETS_DATA), logger })
  const compileServer = await startServer({
    fetch: routes.app.fetch,
    host: '127.0.0.1',
    port: 0,
    logger,
    name: 'bench-compile',
  })
  const dir = mkdtempSync(join(tmpdir(), 'regent-compile-bench-'))
  const upstream = await startFaultUpstream()
  const relays: Array<{ label: string; url: string; child: ChildProcess }> = []
  try {
    const bytes = await writeBundle(
      bundleFromParts({
        modules: { 'filters.rego': TICKETS_POLICY },
        data: TICKETS_DATA,
        manifest: { revision: 't1' },
      }),
    )
    upstream.setBundle('/v1/bundles/tickets', bytes, '"t1"')
    // The relay as a build ships it, and as a source checkout runs it (through tsx).
    // REGENT_BENCH_COMPILE_BASELINE (a regent.mjs built from an earlier commit, inside the
    // repository so Node finds the packages) compares two builds in the same run, in turns,
    // instead of the build beside the source checkout; this build then goes beside it, out of
    // the node_modules cache that other checkouts' benches share.
    const baseline = process.env.REGENT_BENCH_COMPILE_BASELINE
    const built = builtEntry(
      'cli/main.ts',
      'regent.mjs',
      ...(baseline ? [join(dirname(baseline), '..', 'bench-built')] : []),
    )
    const scripts: Array<readonly [string, string | undefined]> = baseline
      ? [
          ['regent relay process (baseline build)', baseline],
          ['regent relay process (as built)', built],
        ]
      : [
          ['regent relay process (as built)', built],
          ['regent relay process (source, tsx)', BIN],
        ]
    for (const [label, script] of scripts) {
      if (!script) continue
      const home = join(dir, String(relays.length))
      mkdirSync(home)
      relays.push({ label, ...(await startRelay(home, upstream.url, script)) })
    }
    const url = (base: string) => `${base}/v1/compile/filters/include`
    // Every server warms up alike before the first measured loop (a relay's compile worker starts,
    // and compiles its code, on the first requests): 500 requests over 8 connections each.
    await warmUp(`${bareServer.url}/fixed`, {}, '{}')
    await warmUp(url(compileServer.url), { Accept: SQL }, BODY)
    for (const relay of relays) await warmUp(url(relay.url), { Accept: SQL }, BODY)
    for (const concurrency of [1, 8]) {
      const bareFigures = await httpLoop(
        'bare Hono route, fixed JSON, own process (baseline)',
        `${bareServer.url}/fixed`,
        {},
        '{}',
        concurrency,
        bareServer.child.pid,
      )
      await httpLoop(
        'compile routes in the bench process, postgresql',
        url(compileServer.url),
        { Accept: SQL },
        BODY,
        concurrency,
      )
      for (const relay of relays) {
        const sql = await httpLoop(
          `${relay.label}, postgresql`,
          url(relay.url),
          { Accept: SQL },
          BODY,
          concurrency,
          relay.child.pid,
        )
        await httpLoop(`${relay.label}, ucast prisma`, url(relay.url), { Accept: UCAST }, BODY, concurrency)
        // Goal (issue 25), at 8 connections: the relay at ≥ 50% of the bare route, p99 ≤ 5 ms.
        const cpu =
          sql.cpuUs && bareFigures.cpuUs
            ? `; server CPU per request bare / relay ${((bareFigures.cpuUs / sql.cpuUs) * 100).toFixed(0)}%`
            : ''
        console.log(
          `   -> ${relay.label}, postgresql: ${((sql.rate / bareFigures.rate) * 100).toFixed(0)}% of the bare route, p99 ${sql.p99.toFixed(2)} ms (goal at 8 conn: ≥ 50%, p99 ≤ 5 ms)${cpu}`,
        )
      }
    }
  } finally {
    for (const child of [...relays.map((r) => r.child), bareServer.child]) {
      child.kill('SIGTERM')
      await new Promise((r) => child.once('exit', r))
    }
    await upstream.stop()
    await compileServer.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Prints the figures (REGENT_BENCH_COMPILE=http, comma-separated: process, growth, http, runs some). */
export async function run(): Promise<void> {
  const parts = new Set((process.env.REGENT_BENCH_COMPILE ?? 'process,growth,http').split(','))
  if (parts.has('process')) await inProcess()
  if (parts.has('growth')) await growth()
  if (parts.has('http')) await overHttp()
}

/**
 * The relay's idle memory as built (`npm run build` into dist/, the JavaScript the image ships),
 * one bundle configured and served, beside a bare node:http server started the same way in the
 * same run. A sidecar's idle RSS is paid once per agent, so this is the figure that scales with
 * the fleet (issue 25: goal ≤ 1.5× the bare server, no compile engine loaded while idle).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { makeBundle, startFaultUpstream } from '../support/fault-upstream.js'
import { ROOT } from '../support/logs-child.js'
import { buildDist, freePort, mb, rssKb, stopChild } from './bench-processes.js'

/** Time for the heap to settle after start (lazy compilation, first GC) before RSS is read. */
const SETTLE_MS = 3000
/**
 * RSS is read a second time once V8's memory reducer has run (it shrinks the heap about 8 s after
 * allocation slows down): the figure an idle sidecar has for the rest of its life.
 */
const REDUCED_MS = 15_000
const READY_TIMEOUT_MS = 30_000
/** Fresh relay and bare server pairs measured in one run. */
const RUNS = 3

async function statusOf(url: string): Promise<number> {
  try {
    const res = await request(url)
    await res.body.dump()
    return res.statusCode
  } catch {
    return 0
  }
}

async function waitFor(url: string, what: string): Promise<void> {
  const until = Date.now() + READY_TIMEOUT_MS
  while (Date.now() < until) {
    if ((await statusOf(url)) === 200) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${what} not ready within ${READY_TIMEOUT_MS} ms`)
}

async function startBare(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort()
  const script = `require('node:http').createServer((req, res) => { res.end('ok') }).listen(${port}, '127.0.0.1')`
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' })
  const url = `http://127.0.0.1:${port}/`
  await waitFor(url, 'bare node:http')
  return { child, url }
}

async function startBuiltRelay(dir: string, upstreamUrl: string, run: number | string, extraConfig = '') {
  const port = await freePort()
  const config = join(dir, `relay-${run}.yaml`)
  writeFileSync(
    config,
    `services: { up: { url: "${upstreamUrl}/v1" } }
bundles:
  main: { polling: { min_delay_seconds: 60, max_delay_seconds: 120 } }
${extraConfig}`,
  )
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'dist', 'cli', 'main.js'),
      'relay',
      '-c',
      config,
      '--addr',
      `127.0.0.1:${port}`,
      '--data-dir',
      join(dir, `data-${run}`),
    ],
    { stdio: 'ignore', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } },
  )
  const base = `http://127.0.0.1:${port}`
  await waitFor(`${base}/health/ready`, 'relay')
  await waitFor(`${base}/v1/bundles/main`, 'bundle served by the relay')
  return { child, base }
}

/** The relay's RSS after a first compile request, then after 200 more (settled each time). */
async function afterFirstCompile(relay: { base: string; child: ChildProcess }): Promise<string> {
  const compile = async () => {
    const res = await request(`${relay.base}/v1/compile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/vnd.opa.ucast.all+json' },
      body: JSON.stringify({ query: 'data.authz.allow == true', input: {}, unknowns: ['input.x'] }),
    })
    await res.body.dump()
    return res.statusCode
  }
  const status = await compile()
  await new Promise((r) => setTimeout(r, SETTLE_MS))
  const first = rssKb(relay.child.pid)
  for (let i = 0; i < 200; i++) await compile()
  await new Promise((r) => setTimeout(r, SETTLE_MS))
  return `${mb(first)} (HTTP ${status}), after 200 more ${mb(rssKb(relay.child.pid))}`
}

/** Prints the relay's idle RSS beside a bare node:http server's, before and after a first compile. */
export async function run(): Promise<void> {
  const buildMs = buildDist()
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js')))
    throw new Error('npm run build made no dist/cli/main.js')
  console.log(
    `   built dist/ in ${(buildMs / 1000).toFixed(1)} s; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  )
  const dir = mkdtempSync(join(tmpdir(), 'regent-relay-idle-'))
  const upstream = await startFaultUpstream()
  const children: ChildProcess[] = []
  try {
    upstream.setBundle('/v1/bundles/main', await makeBundle({ revision: 'idle-1' }), '"idle-1"')
    // Fresh processes each run: the figure is a start-up state, and one run can catch a GC midway.
    let relay: Awaited<ReturnType<typeof startBuiltRelay>> | undefined
    for (let run = 1; run <= RUNS; run++) {
      const bare = await startBare()
      children.push(bare.child)
      if (relay) await stopChild(relay.child)
      relay = await startBuiltRelay(dir, upstream.url, run)
      children.push(relay.child)
      await new Promise((r) => setTimeout(r, SETTLE_MS))
      const early = { bare: rssKb(bare.child.pid), relay: rssKb(relay.child.pid) }
      await new Promise((r) => setTimeout(r, REDUCED_MS - SETTLE_MS))
      const bareKb = rssKb(bare.child.pid)
      const relayKb = rssKb(relay.child.pid)
      await stopChild(bare.child)
      console.log(
        `   run ${run}: idle RSS, one bundle served, ${REDUCED_MS / 1000} s after start: relay ${mb(relayKb)}, bare node:http ${mb(bareKb)} (relay / bare ${(relayKb / bareKb).toFixed(2)}×, goal ≤ 1.50×); at ${SETTLE_MS / 1000} s: relay ${mb(early.relay)}, bare ${mb(early.bare)} (${(early.relay / early.bare).toFixed(2)}×)`,
      )
    }
    if (!relay) return
    // The first compile request loads the engine and starts the workers (and, with
    // relay.compile.main_thread, the main thread's own copy): what that costs, with and without it.
    console.log(`   after a first /v1/compile: relay ${await afterFirstCompile(relay)}`)
    await stopChild(relay.child)
    relay = await startBuiltRelay(
      dir,
      upstream.url,
      'workers-only',
      'relay: { compile: { main_thread: false } }',
    )
    children.push(relay.child)
    console.log(`   the same, relay.compile.main_thread false: relay ${await afterFirstCompile(relay)}`)
  } finally {
    for (const child of children) await stopChild(child)
    await upstream.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Relay memory with 10,000 long-polling agents (issue 25: goal ≤ 150 MB RSS), beside a bare
 * node:http server holding the same 10,000 requests open (the floor: sockets, parser and
 * request objects), both started the same way in the same run. The relay runs as built
 * (`dist/`, built here with the project's bundle build as the image is). The agents come from a load generator in a process of
 * its own (raw sockets, one request each, bounded in count and time), so its memory and CPU
 * are in neither figure. A promotion then wakes them all, and the RSS after is printed too.
 *
 * REGENT_BENCH_LONG_POLLS changes the number of agents (default 10,000); REGENT_BENCH_NODE_FLAGS
 * (e.g. `--max-semi-space-size=1`) is passed to both servers, to measure V8 heap settings.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { makeBundle, startFaultUpstream } from '../support/fault-upstream.js'
import { ROOT } from '../support/logs-child.js'
import { buildDist, freePort, mb, rssKb, stopChild } from './bench-processes.js'

const AGENTS = Number(process.env.REGENT_BENCH_LONG_POLLS ?? 10_000)
const HOLD_TIMEOUT_MS = 120_000
const SETTLE_MS = 3000
/**
 * RSS is read again after this much more holding, once V8's memory reducer has had its turn (it
 * runs some 8 s after allocation slows down, sometimes a round later: 12 s missed it in one run of
 * three, 30 s has not).
 */
const QUIET_MS = 30_000
const NODE_FLAGS = (process.env.REGENT_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)

/**
 * The load generator (plain JavaScript, run with `node -e`): opens `count` keep-alive sockets to
 * host:port in batches, sends one long poll on each, prints "sent" once all are written and
 * "answered N" each second after; exits after `limitMs` whatever happens.
 */
const GENERATOR = `
const net = require('node:net')
const [host, port, path, etag, count, limitMs] = process.argv.slice(1)
const total = Number(count)
let answered = 0
let open = 0
const request = 'GET ' + path + ' HTTP/1.1\\r\\nHost: ' + host + '\\r\\nIf-None-Match: ' + etag + '\\r\\nPrefer: modes=snapshot,delta;wait=100\\r\\n\\r\\n'
setTimeout(() => process.exit(2), Number(limitMs)).unref()
async function main() {
  for (let i = 0; i < total; i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, total - i) }, () => new Promise((resolve) => {
      const socket = net.connect(Number(port), host, () => { open++; socket.write(request); resolve() })
      let seen = false
      socket.on('data', () => { if (!seen) { seen = true; answered++ } })
      socket.on('error', () => resolve())
    })))
  }
  console.log('sent ' + open)
  setInterval(() => console.log('answered ' + answered), 1000)
}
main()
`

interface Agents {
  child: ChildProcess
  answered(): number
  sent: Promise<number>
}

function startAgents(base: string, path: string, etag: string): Agents {
  const { hostname, port } = new URL(base)
  const child = spawn(
    process.execPath,
    ['-e', GENERATOR, hostname, port, path, etag, String(AGENTS), String(HOLD_TIMEOUT_MS)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let answered = 0
  let resolveSent!: (n: number) => void
  const sent = new Promise<number>((resolve) => (resolveSent = resolve))
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    for (const line of text.split('\n')) {
      const [word, n] = line.split(' ')
      if (word === 'sent') resolveSent(Number(n))
      if (word === 'answered') answered = Number(n)
    }
  })
  return { child, answered: () => answered, sent }
}

async function until(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await Promise.resolve(check()).catch(() => false)) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** A bare node:http server that holds every request until its socket closes. */
async function startBare(): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort()
  const script = `let held = 0
require('node:http').createServer((req, res) => {
  if (req.url === '/held') { res.end(String(held)); return }
  held++; res.on('close', () => held--)
}).listen(${port}, '127.0.0.1')`
  const child = spawn(process.execPath, [...NODE_FLAGS, '-e', script], { stdio: 'ignore' })
  const base = `http://127.0.0.1:${port}`
  await until(async () => (await request(`${base}/held`)).statusCode === 200, 10_000, 'bare server')
  return { child, base }
}

async function heldByBare(base: string): Promise<number> {
  return Number(await (await request(`${base}/held`)).body.text())
}

async function metric(base: string, name: string): Promise<number> {
  const text = await (await request(`${base}/metrics`)).body.text()
  return Number(new RegExp(`^${name} ([\\d.e+]+)`, 'm').exec(text)?.[1] ?? Number.NaN)
}

/** Prints the relay's RSS holding AGENTS long polls beside a bare server holding as many. */
export async function run(): Promise<void> {
  // REGENT_BENCH_NO_BUILD=1 reuses an existing dist/ (repeated runs of one commit).
  if (process.env.REGENT_BENCH_NO_BUILD !== '1' || !existsSync(join(ROOT, 'dist', 'cli', 'main.js')))
    buildDist()
  const entry = join(ROOT, 'dist', 'cli', 'main.js')
  if (!existsSync(entry)) throw new Error('the build made no dist/cli/main.js')
  console.log(
    `   ${AGENTS} long polls${NODE_FLAGS.length ? ` (node ${NODE_FLAGS.join(' ')})` : ''}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  )
  const dir = mkdtempSync(join(tmpdir(), 'regent-long-poll-'))
  const upstream = await startFaultUpstream()
  const children: ChildProcess[] = []
  try {
    // The floor: a bare server holding the same requests.
    const bare = await startBare()
    children.push(bare.child)
    await new Promise((r) => setTimeout(r, SETTLE_MS))
    const bareIdle = rssKb(bare.child.pid)
    const bareAgents = startAgents(bare.base, '/v1/bundles/main', '"x"')
    children.push(bareAgents.child)
    const bareSent = await bareAgents.sent
    await until(async () => (await heldByBare(bare.base)) >= bareSent, HOLD_TIMEOUT_MS, 'bare server holding')
    await new Promise((r) => setTimeout(r, SETTLE_MS))
    const bareHeld = rssKb(bare.child.pid)
    await new Promise((r) => setTimeout(r, QUIET_MS))
    const bareHeldLater = rssKb(bare.child.pid)
    await stopChild(bareAgents.child)
    await stopChild(bare.child)

    upstream.setBundle('/v1/bundles/main', await makeBundle({ revision: 'lp-1' }), '"lp-1"')
    const port = await freePort()
    const config = join(dir, 'relay.yaml')
    writeFileSync(
      config,
      `services: { up: { url: "${upstream.url}/v1" } }
bundles:
  main: { polling: { min_delay_seconds: 1, max_delay_seconds: 1 } }
relay: { long_poll: { max_waiters: ${AGENTS * 2} } }
`,
    )
    const relay = spawn(
      process.execPath,
      [
        ...NODE_FLAGS,
        entry,
        'relay',
        '-c',
        config,
        '--addr',
        `127.0.0.1:${port}`,
        '--data-dir',
        join(dir, 'data'),
      ],
      { stdio: 'ignore', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } },
    )
    children.push(relay)
    const base = `http://127.0.0.1:${port}`
    await until(async () => (await request(`${base}/v1/bundles/main`)).statusCode === 200, 30_000, 'relay')
    await new Promise((r) => setTimeout(r, SETTLE_MS))
    const relayIdle = rssKb(relay.pid)
    const agents = startAgents(base, '/v1/bundles/main', '"lp-1"')
    children.push(agents.child)
    const sent = await agents.sent
    await until(
      async () => (await metric(base, 'regent_relay_long_poll_waiters')) >= sent,
      HOLD_TIMEOUT_MS,
      'relay holding',
    )
    await new Promise((r) => setTimeout(r, SETTLE_MS))
    const relayHeld = rssKb(relay.pid)
    const heapUsed = await metric(base, 'regent_relay_nodejs_heap_size_used_bytes')
    await new Promise((r) => setTimeout(r, QUIET_MS))
    const relayHeldLater = rssKb(relay.pid)
    console.log(
      `   bare node:http: idle ${mb(bareIdle)}, holding ${bareSent} requests ${mb(bareHeld)} (+${((bareHeld - bareIdle) / bareSent).toFixed(1)} KB each), ${mb(bareHeldLater)} after ${QUIET_MS / 1000} s more`,
    )
    console.log(
      `   regent relay:   idle ${mb(relayIdle)}, holding ${sent} long polls ${mb(relayHeld)} (+${((relayHeld - relayIdle) / sent).toFixed(1)} KB each; heap used ${(heapUsed / 1024 / 1024).toFixed(0)} MB); goal ≤ 150 MB; relay / bare ${(relayHeld / bareHeld).toFixed(2)}×; after ${QUIET_MS / 1000} s more: ${mb(relayHeldLater)} (${(relayHeldLater / bareHeldLater).toFixed(2)}×)`,
    )
    // Wake them all with a promotion, then read the RSS once the answers are out.
    upstream.setBundle('/v1/bundles/main', await makeBundle({ revision: 'lp-2' }), '"lp-2"')
    const woken = performance.now()
    await until(() => agents.answered() >= sent, HOLD_TIMEOUT_MS, 'every agent answered')
    console.log(
      `   promotion answered all ${sent} within ${((performance.now() - woken) / 1000).toFixed(1)} s (1 s upstream poll interval included); relay RSS after ${mb(rssKb(relay.pid))}`,
    )
  } finally {
    for (const child of children) await stopChild(child)
    await upstream.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Relay benchmark: requests per second for full GETs and for 304s of a 1 MB bundle, beside
 * nginx (Debian package, when installed) and a bare node:http server serving the same bytes;
 * 1,000 long-polling agents woken by one promotion; the relay's RSS.
 *
 * Every server runs in its own process on 127.0.0.1 and is driven by the same undici client
 * (this process), so the client's own cost is in every figure alike. All loops are bounded by
 * a request count and a time limit.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent, Pool, request } from 'undici'
import { makeBundle, startFaultUpstream } from '../support/fault-upstream.js'
import { ROOT } from '../support/logs-child.js'
import { builtEntry } from './built.js'

const BIN = fileURLToPath(new URL('../../bin/regent.js', import.meta.url))
const LOAD_MS = 1000
/** Rounds: each target runs once per round, so a change in the machine's load hits all alike. */
const ROUNDS = 3
const LOAD_MAX_REQUESTS = 200_000
const CONNECTIONS = 16
const AGENTS = 1000

interface Target {
  name: string
  url: string
  /** The ETag the server gives the file (for the 304 run). */
  etag: string
  stop(): Promise<void>
  pid?: number
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`timed out waiting for ${what}`)
}

async function statusOf(url: string): Promise<number> {
  const res = await request(url)
  await res.body.dump({ limit: Number.POSITIVE_INFINITY })
  return res.statusCode
}

async function headEtag(url: string): Promise<string> {
  const res = await request(url)
  await res.body.dump({ limit: Number.POSITIVE_INFINITY })
  return String(res.headers.etag ?? '')
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve()
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

/** Drives `url` with CONNECTIONS concurrent loops for LOAD_MS (or LOAD_MAX_REQUESTS). */
async function load(url: string, headers: Record<string, string>, expectStatus: number) {
  const origin = new URL(url)
  const pool = new Pool(origin.origin, { connections: CONNECTIONS, pipelining: 1 })
  const deadline = performance.now() + LOAD_MS
  let done = 0
  let wrong = 0
  const latencies: number[] = []
  const worker = async () => {
    while (performance.now() < deadline && done < LOAD_MAX_REQUESTS) {
      const started = performance.now()
      const res = await pool.request({ path: origin.pathname, method: 'GET', headers })
      for await (const _chunk of res.body) {
        // drain
      }
      if (res.statusCode !== expectStatus) wrong++
      latencies.push(performance.now() - started)
      done++
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: CONNECTIONS }, worker))
  const seconds = (performance.now() - started) / 1000
  await pool.close()
  latencies.sort((a, b) => a - b)
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0
  return { rps: done / seconds, p50: pct(0.5), p99: pct(0.99), wrong }
}

/** CPU milliseconds used so far by `pid` and its child processes (nginx's worker). */
function cpuMs(pid: number | undefined): number {
  if (!pid) return 0
  const own = (p: number) => {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')
      return (Number(fields[11]) + Number(fields[12])) * 10 // clock ticks of 10 ms
    } catch {
      return 0
    }
  }
  let children: number[] = []
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number)
  } catch {
    // no children file: count the process alone
  }
  return own(pid) + children.reduce((sum, child) => sum + own(child), 0)
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

function rssMb(pid: number | undefined): string {
  if (!pid) return 'n/a'
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  return `${(kb / 1024).toFixed(0)} MB`
}

async function startNginx(dir: string, file: string): Promise<Target | undefined> {
  let nginx: string
  try {
    nginx = execFileSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
  if (!nginx) return undefined
  const port = await freePort()
  const conf = join(dir, 'nginx.conf')
  writeFileSync(
    conf,
    `daemon off; worker_processes 1; pid ${dir}/nginx.pid; error_log ${dir}/nginx-error.log;
events { worker_connections 4096; }
http { access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000;
  client_body_temp_path ${dir}/nginx-tmp; proxy_temp_path ${dir}/nginx-tmp; fastcgi_temp_path ${dir}/nginx-tmp;
  uwsgi_temp_path ${dir}/nginx-tmp; scgi_temp_path ${dir}/nginx-tmp;
  server { listen 127.0.0.1:${port}; root ${dir}; location / { } } }
`,
  )
  const child = spawn(nginx, ['-c', conf, '-p', dir], { stdio: 'ignore' })
  const url = `http://127.0.0.1:${port}/${file}`
  await waitUntil(async () => (await statusOf(url)) === 200, 5000, 'nginx')
  return {
    name: 'nginx (1 worker)',
    url,
    etag: await headEtag(url),
    stop: () => stopChild(child),
    pid: child.pid,
  }
}

async function startBareNode(file: string): Promise<Target> {
  const port = await freePort()
  const script = `
const http = require('node:http')
const body = require('node:fs').readFileSync(process.argv[1])
const etag = '"bare"'
http.createServer((req, res) => {
  if (req.headers['if-none-match'] === etag) { res.writeHead(304, { ETag: etag }); res.end(); return }
  res.writeHead(200, { ETag: etag, 'Content-Type': 'application/gzip', 'Content-Length': body.length }); res.end(body)
}).listen(${port}, '127.0.0.1')`
  const child = spawn(process.execPath, ['-e', script, file], { stdio: 'ignore' })
  const url = `http://127.0.0.1:${port}/bundle.tar.gz`
  await waitUntil(async () => (await statusOf(url)) === 200, 5000, 'node:http')
  return { name: 'bare node:http', url, etag: '"bare"', stop: () => stopChild(child), pid: child.pid }
}

async function startRelayProcess(dir: string, upstreamUrl: string): Promise<Target> {
  const port = await freePort()
  const config = join(dir, 'relay.yaml')
  writeFileSync(
    config,
    `services: { up: { url: "${upstreamUrl}/v1" } }
bundles:
  bench: { polling: { min_delay_seconds: 60, max_delay_seconds: 120, long_polling_timeout_seconds: 60 } }
  small: { polling: { min_delay_seconds: 60, max_delay_seconds: 120, long_polling_timeout_seconds: 60 } }
relay: { long_poll: { max_waiters: ${AGENTS * 2} } }
`,
  )
  // As built (bundled by esbuild, see built.ts): tsx's per-closure helpers are not in the figures.
  const entry = builtEntry('cli/main.ts', 'regent.mjs', join(ROOT, 'tmp', 'bench-relay')) ?? BIN
  const child = spawn(
    process.execPath,
    [entry, 'relay', '-c', config, '--addr', `127.0.0.1:${port}`, '--data-dir', join(dir, 'relay-data')],
    // Per-request log lines are info; the figures are for the relay, not for its logging.
    { stdio: 'ignore', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } },
  )
  const base = `http://127.0.0.1:${port}`
  await waitUntil(
    async () => (await request(`${base}/health/ready`)).statusCode === 200,
    20_000,
    'relay ready',
  )
  const url = `${base}/v1/bundles/bench`
  return {
    name: 'regent relay',
    url,
    etag: await headEtag(url),
    stop: () => stopChild(child),
    pid: child.pid,
  }
}

/** 1,000 agents long-poll the relay; one promotion must wake them all. */
async function longPollWake(relay: Target, promote: () => void) {
  await waitUntil(async () => (await headEtag(relay.url)) !== '', 10_000, 'bundle served')
  const agent = new Agent({ connections: null, keepAliveTimeout: 60_000 })
  const woken: number[] = []
  const base = new URL(relay.url).origin
  const waiters = async () => {
    const text = await (await request(`${base}/metrics`)).body.text()
    return Number(/^regent_relay_long_poll_waiters (\d+)/m.exec(text)?.[1] ?? 0)
  }
  const polls = Array.from({ length: AGENTS }, () =>
    request(relay.url, {
      dispatcher: agent,
      headers: { 'If-None-Match': relay.etag, Prefer: 'modes=snapshot,delta;wait=60' },
      headersTimeout: 0,
    }).then(async (res) => {
      woken.push(performance.now())
      for await (const _chunk of res.body) {
        // drain
      }
      return res.statusCode
    }),
  )
  await waitUntil(async () => (await waiters()) >= AGENTS, 30_000, `${AGENTS} waiters`)
  const promotedAt = performance.now()
  promote()
  const codes = await Promise.all(polls)
  const bodiesDone = performance.now()
  await agent.close()
  woken.sort((a, b) => a - b)
  return {
    ok: codes.filter((c) => c === 200).length,
    firstMs: woken[0]! - promotedAt,
    lastMs: woken.at(-1)! - promotedAt,
    spreadMs: woken.at(-1)! - woken[0]!,
    bodiesMs: bodiesDone - promotedAt,
  }
}

/** Prints the relay's figures beside nginx and a bare node:http server. */
export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'regent-relay-bench-'))
  // nginx workers run as an unprivileged user when started by root: they must read the file.
  chmodSync(dir, 0o755)
  const upstream = await startFaultUpstream()
  const targets: Target[] = []
  try {
    // ~1 MB compressed: random hex does not compress below half, so make enough of it.
    const bytes = await makeBundle({
      revision: 'bench-1',
      data: { blob: randomBytes(1000 * 1024).toString('hex') },
    })
    writeFileSync(join(dir, 'bundle.tar.gz'), bytes)
    upstream.setBundle('/v1/bundles/bench', bytes, '"bench-1"')
    upstream.setBundle('/v1/bundles/small', await makeBundle({ revision: 'small-1' }), '"small-1"')
    console.log(
      `   bundle: ${(bytes.byteLength / 1024 / 1024).toFixed(2)} MB; ${CONNECTIONS} connections, ${LOAD_MS / 1000} s per run`,
    )

    const relay = await startRelayProcess(dir, upstream.url)
    targets.push(relay)
    console.log(`   relay RSS at start (idle, bundled as built): ${rssMb(relay.pid)}`)
    const nginx = await startNginx(dir, 'bundle.tar.gz')
    if (nginx) targets.push(nginx)
    else console.log('   nginx is not installed (apt-get install -y nginx): its baseline is skipped')
    targets.push(await startBareNode(join(dir, 'bundle.tar.gz')))

    // Warm-up (the client's JIT and each server's), then interleaved rounds; medians reported,
    // with each server's own CPU per request (from /proc), which the machine's load skews less.
    for (const target of targets) {
      await load(target.url, {}, 200)
      await load(target.url, { 'If-None-Match': target.etag }, 304)
    }
    const samples = new Map(
      targets.map((t) => [
        t.name,
        {
          full: [] as number[],
          nm: [] as number[],
          fullCpu: [] as number[],
          nmCpu: [] as number[],
          p99: [] as number[],
          nmP99: [] as number[],
          wrong: 0,
        },
      ]),
    )
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of targets) {
        const s = samples.get(target.name)!
        let cpu = cpuMs(target.pid)
        const full = await load(target.url, {}, 200)
        s.fullCpu.push(((cpuMs(target.pid) - cpu) * 1000) / Math.max(1, full.rps * (LOAD_MS / 1000)))
        cpu = cpuMs(target.pid)
        const nm = await load(target.url, { 'If-None-Match': target.etag }, 304)
        s.nmCpu.push(((cpuMs(target.pid) - cpu) * 1000) / Math.max(1, nm.rps * (LOAD_MS / 1000)))
        s.full.push(full.rps)
        s.nm.push(nm.rps)
        s.p99.push(full.p99)
        s.nmP99.push(nm.p99)
        s.wrong += full.wrong + nm.wrong
      }
    }
    const results = new Map<string, { full: number; notModified: number; fullCpu: number; nmCpu: number }>()
    for (const target of targets) {
      const s = samples.get(target.name)!
      const r = {
        full: median(s.full),
        notModified: median(s.nm),
        fullCpu: median(s.fullCpu),
        nmCpu: median(s.nmCpu),
      }
      results.set(target.name, r)
      console.log(
        `   ${target.name.padEnd(18)} full GET ${r.full.toFixed(0).padStart(6)} req/s (p99 ${median(s.p99).toFixed(1)} ms, server CPU ${r.fullCpu.toFixed(0)} µs/req)   304 ${r.notModified.toFixed(0).padStart(6)} req/s (p99 ${median(s.nmP99).toFixed(2)} ms, server CPU ${r.nmCpu.toFixed(1)} µs/req)${s.wrong ? `, ${s.wrong} wrong` : ''}`,
      )
    }
    console.log(
      `   (median of ${ROUNDS} interleaved ${LOAD_MS / 1000} s rounds; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
    )
    const mine = results.get('regent relay')!
    for (const base of ['nginx (1 worker)', 'bare node:http']) {
      const other = results.get(base)
      if (!other) continue
      console.log(
        `   relay / ${base}: full GET ${((mine.full / other.full) * 100).toFixed(0)}%, 304 ${((mine.notModified / other.notModified) * 100).toFixed(0)}%; ` +
          `by server CPU per request: full GET ${((other.fullCpu / mine.fullCpu) * 100).toFixed(0)}%, 304 ${((other.nmCpu / mine.nmCpu) * 100).toFixed(0)}%`,
      )
    }
    console.log(`   relay RSS after load: ${rssMb(relay.pid)}`)

    // Wake-up latency on a small bundle (the time is the relay's, not 1 GB of transfer), then
    // the same with the 1 MB bundle, where delivering 1,000 copies dominates.
    const smallUrl = relay.url.replace(/bench$/, 'small')
    const small = { ...relay, url: smallUrl, etag: await headEtag(smallUrl) }
    const smallNext = await makeBundle({ revision: 'small-2' })
    const quick = await longPollWake(small, () =>
      upstream.setBundle('/v1/bundles/small', smallNext, '"small-2"'),
    )
    console.log(
      `   ${AGENTS} long-polling agents, small bundle: ${quick.ok} got it; first woken ${quick.firstMs.toFixed(0)} ms after the upstream change (download + verify + promote), all within ${quick.spreadMs.toFixed(0)} ms of the first (last at ${quick.lastMs.toFixed(0)} ms)`,
    )
    const next = await makeBundle({
      revision: 'bench-2',
      data: { blob: randomBytes(1000 * 1024).toString('hex') },
    })
    const wake = await longPollWake(relay, () => upstream.setBundle('/v1/bundles/bench', next, '"bench-2"'))
    console.log(
      `   ${AGENTS} long-polling agents, 1 MB bundle: ${wake.ok} got it; first woken ${wake.firstMs.toFixed(0)} ms after the upstream change, last ${wake.lastMs.toFixed(0)} ms; all ${AGENTS} copies delivered after ${wake.bodiesMs.toFixed(0)} ms`,
    )
    console.log(`   relay RSS after the wake-up: ${rssMb(relay.pid)}`)
  } finally {
    for (const target of targets) await target.stop()
    await upstream.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

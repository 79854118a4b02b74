#!/usr/bin/env node
// `node bin/healthcheck.js [URL | /PATH]`: the image's HEALTHCHECK (and the Kubernetes exec
// probes of a relay that listens on the pod's loopback). Exits 0 when the regent server running
// in this container answers its health endpoint with 2xx, 1 otherwise, with one line saying why.
//
// Which server and which port: one image runs `service`, `relay` or `run -s`, each on its own
// port that a flag or the config file may change, so a fixed URL cannot be right for all. The
// check reads the command line of the regent server in its PID namespace (in a container, the
// main process) as the server itself does: `--addr`/`-a` first, then for the relay `relay.addr`
// of its `-c` file, then REGENT_LISTEN_HOST and the mode's default port (8181 service and
// `run -s`, 8282 relay). Liveness paths: `/health/live` (relay), `/health` (service, `run -s`).
// A `/PATH` argument replaces the path (e.g. `/health/ready`); a URL argument or REGENT_HEALTH_URL
// replaces everything. Plain JavaScript that loads nothing but `yaml`: it runs every few seconds.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'

const MODES = {
  service: { port: 8181, path: '/health' },
  relay: { port: 8282, path: '/health/live' },
  run: { port: 8181, path: '/health' },
}
const TIMEOUT_MS = Number(process.env.REGENT_HEALTH_TIMEOUT_MS) || 3000

function fail(message) {
  process.stderr.write(`regent healthcheck: ${message}\n`)
  process.exit(1)
}

/** The value of `--name VALUE` or `--name=VALUE` (any of `names`) in argv, else undefined. */
function flagValue(argv, names) {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (names.includes(arg)) return argv[i + 1]
    const eq = names.find((n) => n.startsWith('--') && arg.startsWith(`${n}=`))
    if (eq) return arg.slice(eq.length + 1)
  }
  return undefined
}

/** The regent server of this PID namespace: the lowest pid running `regent.js <mode>`. */
function findServer() {
  const pids = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .map(Number)
    .sort((a, b) => a - b)
  for (const pid of pids) {
    let argv
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    } catch {
      continue // gone, or not ours to read
    }
    const at = argv.findIndex((arg) => /(^|\/)regent(\.js)?$/.test(arg))
    const mode = argv[at + 1]
    const args = argv.slice(at + 2)
    if (at < 0 || !(mode in MODES)) continue
    if (mode === 'run' && !args.some((a) => a === '-s' || a === '--server')) continue
    return { pid, mode, args }
  }
  return undefined
}

/** The server's own environment (REGENT_LISTEN_HOST, `${VAR}`s of its config), when readable. */
function serverEnv(pid) {
  try {
    const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean)
    return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]))
  } catch {
    return process.env
  }
}

/** `${VAR}` and `${VAR:-default}` substituted as the server's config loader does. */
function substitute(text, env) {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_, name, dflt) => env[name] || dflt || '',
  )
}

/** `relay.addr` of the relay's config file, read relative to the relay's working folder. */
async function relayConfigAddr(server) {
  const file = flagValue(server.args, ['-c', '--config'])
  if (!file) return undefined
  let path = file
  if (!isAbsolute(file)) {
    try {
      path = join(readlinkSync(`/proc/${server.pid}/cwd`), file)
    } catch {}
  }
  const { parse } = await import('yaml')
  const addr = parse(readFileSync(path, 'utf8'))?.relay?.addr
  return typeof addr === 'string' ? substitute(addr, serverEnv(server.pid)) : undefined
}

/** Where to connect for a listen address: a wildcard host is reached on loopback. */
function connectUrl(addr, fallbackPort, path) {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(addr.trim())
  const host = match ? (match[1] ?? match[2]) : ''
  const port = match ? match[3] : fallbackPort
  const reach = host === '' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
  return `http://${reach.includes(':') ? `[${reach}]` : reach}:${port}${path}`
}

async function targetUrl(arg) {
  if (arg && /^https?:\/\//.test(arg)) return arg
  if (process.env.REGENT_HEALTH_URL) return process.env.REGENT_HEALTH_URL
  const server = findServer()
  if (!server) fail('no regent service, relay or run -s process found (set REGENT_HEALTH_URL)')
  const { port, path } = MODES[server.mode]
  const addr =
    flagValue(server.args, server.mode === 'run' ? ['-a', '--addr'] : ['--addr']) ??
    (server.mode === 'relay' ? await relayConfigAddr(server).catch(() => undefined) : undefined) ??
    `${serverEnv(server.pid).REGENT_LISTEN_HOST || '127.0.0.1'}:${port}`
  return connectUrl(addr, port, arg?.startsWith('/') ? arg : path)
}

const url = await targetUrl(process.argv[2])
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) })
  if (!response.ok) fail(`${url} answered ${response.status}`)
} catch (err) {
  fail(`${url}: ${err.cause?.code ?? err.message}`)
}

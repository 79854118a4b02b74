/**
 * `regent demo` (what `npm start` runs): the management service and the relay together on the
 * embedded default (SQLite under ./.regent/demo, loopback ports 8181 and 8282), a demo system
 * seeded with the tickets data-filter policy and its roles data, the relay started from the
 * relay-config the service generates for that system, and curl lines to try. Bundles are
 * signed with a key made on first start, so the relay verifies them as an agent would.
 * Ctrl-C stops both; a second start reuses the folder (database, token, key, relay cache).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Command } from 'commander'
import { request } from 'undici'
import { parseConfig } from '../../core/config.js'
import { stopOnSignals } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'
import { defaultDataDir } from '../../core/runtime-defaults.js'
import { makePrivateDir, writeNewPrivateFile } from '../../core/state-files.js'
import { relayConfigSchema, startRelay } from '../../relay/index.js'
import { TICKETS_FILTER_POLICY, TICKETS_ROLES } from '../../service/blueprints/builtin/data-filtering.js'
import { serviceSectionSchema, startService } from '../../service/index.js'
import { REGENT_VERSION } from '../version-info.js'
import { RELAY_EXTENSIONS } from './relay.js'

const SYSTEM_NAME = 'demo-tickets'

interface DemoOptions {
  dir: string
  serviceAddr: string
  relayAddr: string
}

/** Builds the `demo` command. */
export function demoCommand(): Command {
  return new Command('demo')
    .description('run the service and the relay together with a seeded demo system (what npm start runs)')
    .option('--dir <dir>', 'folder for everything the demo keeps', defaultDataDir('demo'))
    .option('--service-addr <host:port>', 'service listen address', '127.0.0.1:8181')
    .option('--relay-addr <host:port>', 'relay listen address', '127.0.0.1:8282')
    .action(async (options: DemoOptions) => {
      await runDemo(options)
    })
}

/** Reads a secret kept in the demo folder, creating it on first start. */
function keptSecret(path: string, make: () => string): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim()
  const value = make()
  writeNewPrivateFile(path, `${value}\n`)
  return value
}

async function runDemo(options: DemoOptions): Promise<void> {
  const dir = resolve(options.dir)
  // The demo folder holds the admin token and the signing key.
  makePrivateDir(dir)
  const logger = createLogger({ level: 'info' })
  const firstStart = !existsSync(join(dir, 'service', 'service.db'))
  if (!firstStart && !existsSync(join(dir, 'admin-token'))) {
    process.stderr.write(
      `regent demo: ${dir} has a database but no admin-token file; remove the folder to start over\n`,
    )
    process.exitCode = 1
    return
  }
  const adminToken = keptSecret(join(dir, 'admin-token'), () => randomBytes(24).toString('base64url'))
  const signingKeyFile = join(dir, 'signing-key.pem')
  keptSecret(signingKeyFile, () =>
    generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString(),
  )

  let service: Awaited<ReturnType<typeof startService>>
  try {
    service = await startService({
      config: serviceSectionSchema.parse({
        bundles: { signing: { key_file: signingKeyFile, key_id: 'demo' } },
      }),
      logger: logger.child({ part: 'service' }),
      addr: options.serviceAddr,
      dataDir: join(dir, 'service'),
      adminToken,
    })
  } catch (err) {
    process.stderr.write(
      `regent demo: the service cannot start: ${describeStartError(err, options.serviceAddr)}\n`,
    )
    process.exitCode = 1
    return
  }
  let relay: Awaited<ReturnType<typeof startRelay>> | undefined
  try {
    const systemId = await seedDemoSystem(service.url, adminToken)
    const yaml = await api(
      service.url,
      adminToken,
      'GET',
      `/v1/systems/${systemId}/assets/relay-config`,
      undefined,
      'text',
    )
    const config = parseConfig(yaml as string, relayConfigSchema, { env: {} })
    config.relay.storage.dir = join(dir, 'relay')
    relay = await startRelay({
      config,
      logger: logger.child({ part: 'relay' }),
      addr: options.relayAddr,
      version: REGENT_VERSION,
      extensions: RELAY_EXTENSIONS,
    })
    await waitUntilReady(relay.url)
    process.stdout.write(
      banner({ serviceUrl: service.url, relayUrl: relay.url, systemId, adminToken, dir, firstStart }),
    )
  } catch (err) {
    await relay?.stop()
    await service.stop()
    process.stderr.write(`regent demo: ${describeStartError(err, options.relayAddr)}\n`)
    process.exitCode = 1
    return
  }
  const running = relay
  stopOnSignals(logger, async () => {
    await running.stop()
    await service.stop()
  })
}

/** Waits (at most 15 s) for the relay's first verified bundle, so the printed curl lines work at once. */
async function waitUntilReady(relayUrl: string): Promise<void> {
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    const res = await request(`${relayUrl}/health/ready`).catch(() => undefined)
    await res?.body.dump()
    if (res?.statusCode === 200) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  process.stderr.write('regent demo: the relay has no verified bundle yet; see its log lines\n')
}

function describeStartError(err: unknown, addr: string): string {
  if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    return `${addr} is already in use (another regent demo running?); choose other ports with --service-addr/--relay-addr`
  }
  return (err as Error).message
}

/** The id of the demo system, created with its policy and data when it does not exist yet. */
async function seedDemoSystem(serviceUrl: string, token: string): Promise<string> {
  const found = (await api(
    serviceUrl,
    token,
    'GET',
    `/v1/systems?name=${encodeURIComponent(`^${SYSTEM_NAME}$`)}&compact=true`,
  )) as Array<{
    id: string
  }>
  if (found[0]) return found[0].id
  const created = (await api(serviceUrl, token, 'POST', '/v1/systems', {
    name: SYSTEM_NAME,
    type: 'custom',
  })) as {
    id: string
  }
  await api(serviceUrl, token, 'PUT', `/v1/policies/systems/${created.id}/filters`, {
    modules: { 'filters.rego': TICKETS_FILTER_POLICY },
  })
  await api(serviceUrl, token, 'PUT', `/v1/data/systems/${created.id}/roles`, TICKETS_ROLES)
  return created.id
}

async function api(
  base: string,
  token: string,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
  as: 'json' | 'text' = 'json',
): Promise<unknown> {
  const res = await request(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.body.text()
  if (res.statusCode >= 300)
    throw new Error(`${method} ${path} answered ${res.statusCode}: ${text.slice(0, 300)}`)
  return as === 'text' ? text : (JSON.parse(text) as { result?: unknown }).result
}

function banner(p: {
  serviceUrl: string
  relayUrl: string
  systemId: string
  adminToken: string
  dir: string
  firstStart: boolean
}): string {
  const bundle = `${p.relayUrl}/v1/bundles/systems/${p.systemId}`
  const admin = `-H "Authorization: Bearer ${p.adminToken}"`
  const event = JSON.stringify([
    {
      decision_id: 'demo-1',
      labels: { id: 'demo-agent' },
      path: 'filters/include',
      result: true,
      timestamp: new Date().toISOString(),
    },
  ])
  return `
regent demo is running (${p.firstStart ? 'seeded a new' : 'reusing the'} demo system in ${p.dir})
  service  ${p.serviceUrl}   (admin token: ${p.adminToken})
  relay    ${p.relayUrl}   (system ${p.systemId}, bundles signed with key "demo")

Try:
  # the system's bundle through the relay (byte for byte what the service built and signed)
  curl -s -o bundle.tar.gz -D - ${bundle} && tar tzf bundle.tar.gz
  # ask again with its ETag: 304; add  -H "Prefer: wait=30"  to long-poll for the next revision
  curl -s -o /dev/null -w '%{http_code}\\n' -H "If-None-Match: $(curl -sI ${bundle} | awk -F': ' 'tolower($1)=="etag"{print $2}' | tr -d '\\r')" ${bundle}
  # what the relay serves and how fresh it is
  curl -s ${p.relayUrl}/v1/relay/status
  # post a decision log as an OPA agent would
  curl -s -X POST ${p.relayUrl}/v1/logs -H 'Content-Type: application/json' -d '${event}'
  # change the roles data: the relay picks up the new revision at once (long poll)
  curl -s -X PUT ${p.serviceUrl}/v1/data/systems/${p.systemId}/roles ${admin} -d '{"alice":["admin"],"bob":["resolver"]}'
  # data filtering: which tickets may bob see? (a SQL WHERE clause for PostgreSQL)
  curl -s -X POST ${p.relayUrl}/v1/compile/filters/include -H 'Accept: application/vnd.opa.sql.postgresql+json' -d '{"input":{"user":"bob"}}'

Point an OPA agent at the relay with:  services: [{name: regent, url: ${p.relayUrl}/v1}]
Ctrl-C stops both.
`
}

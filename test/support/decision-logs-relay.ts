/**
 * A small real process for end-to-end tests of decision logs: intake, buffer and forwarder on
 * 127.0.0.1, nothing else of the relay (it starts in a fraction of the full relay's time, which
 * matters when a test kills and restarts it ten times).
 *
 * Usage: node --import tsx test/support/decision-logs-relay.ts STORAGE_DIR UPSTREAM_URL|- [PORT]
 * with `relay.decision_logs` as YAML in REGENT_DECISION_LOGS (optional). Prints one JSON line
 * `{"url": …}` on stdout once it listens; SIGTERM stops it gracefully.
 */
import { Registry } from 'prom-client'
import { parseConfig } from '../../core/config.js'
import { createApp, startServer, stopOnSignals } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'
import { DecisionLogs, decisionLogsSectionSchema } from '../../relay/decision-logs/index.js'

const [storageDir, upstreamUrl, port] = process.argv.slice(2)
if (!storageDir || !upstreamUrl) {
  process.stderr.write('usage: decision-logs-relay.ts STORAGE_DIR UPSTREAM_URL [PORT]\n')
  process.exit(2)
}
const logger = createLogger({
  level: (process.env.REGENT_LOG_LEVEL as 'info' | undefined) ?? 'warn',
  pretty: false,
})
const config = parseConfig(process.env.REGENT_DECISION_LOGS || '{}', decisionLogsSectionSchema)
const logs = DecisionLogs.start({
  config,
  storageDir,
  upstream: upstreamUrl === '-' ? undefined : { url: upstreamUrl },
  registry: new Registry(),
  logger,
})
const app = createApp({ errorStyle: 'opa', logger })
app.get('/v1/relay/status', (c) => c.json(logs.status()))
logs.installRoutes(app)
const server = await startServer({
  fetch: app.fetch,
  host: '127.0.0.1',
  port: Number(port ?? 0),
  logger,
  name: 'relay',
})
process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`)
stopOnSignals(logger, async () => {
  await server.stop()
  await logs.stop()
})

/**
 * A tiny regent HTTP server for shutdown tests: `GET /slow?ms=N` answers after N ms.
 * Prints its URL on stdout once listening; stops gracefully on SIGTERM/SIGINT.
 */
import { createApp, startServer, stopOnSignals } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'

const logger = createLogger({ level: 'silent' })
const app = createApp({ errorStyle: 'opa', logger })
app.get('/slow', async (c) => {
  await new Promise((resolve) => setTimeout(resolve, Number(c.req.query('ms') ?? 100)))
  return c.json({ done: true })
})
const server = await startServer({
  fetch: app.fetch,
  host: '127.0.0.1',
  port: 0,
  logger,
  name: 'slow',
  graceMs: 5000,
})
stopOnSignals(logger, () => server.stop())
process.stdout.write(`${server.url}\n`)

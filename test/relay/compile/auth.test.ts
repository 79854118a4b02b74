/**
 * `/v1/compile` takes the relay's `agent_auth` like every agent route: with bearer tokens, a
 * request without a valid token is refused before any query runs.
 */
import { Hono } from 'hono'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp, isLoopbackAddress } from '../../../core/http/index.js'
import { BundleCache } from '../../../plugins/bundle/bundle-cache.js'
import { LongPollWaiters } from '../../../plugins/bundle/waiters.js'
import { compileExtension } from '../../../relay/compile/extension.js'
import { loopbackOnly } from '../../../relay/compile/loopback-only.js'
import { type RunningRelay, warnIfOpenToTheNetwork } from '../../../relay/relay.js'
import type { RelayContext, RelayExtension } from '../../../relay/types.js'
import { relayConfig, startTestRelay, tempDir } from '../helpers.js'

let relay: RunningRelay | undefined
let cleanup: (() => Promise<void>) | undefined
let extension: RelayExtension | undefined
afterEach(async () => {
  await extension?.stop?.()
  extension = undefined
  await relay?.stop()
  await cleanup?.()
  relay = undefined
})

async function compile(token?: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${relay!.url}/v1/compile`, {
    method: 'POST',
    headers: {
      Accept: 'application/vnd.opa.ucast.all+json',
      'Content-Type': 'application/json',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query: 'data.filters.include', unknowns: ['input.tickets'] }),
  })
  return { status: res.status, body: await res.json() }
}

describe('relay /v1/compile with agent_auth', () => {
  it('refuses a request without a valid bearer token and answers one with it', async () => {
    const temp = await tempDir()
    cleanup = temp.cleanup
    const config = relayConfig(
      'relay:\n  agent_auth: {type: bearer, tokens: [s3cret]}\n  compile: {workers: 1}\n',
    )
    relay = await startTestRelay(config, temp.dir, { extensions: [compileExtension] })
    expect(await compile()).toEqual({
      status: 401,
      body: { code: 'unauthorized', message: 'missing or invalid bearer token (relay.agent_auth is bearer)' },
    })
    expect((await compile('wrong')).status).toBe(401)
    // Nothing ran: the workers start with the first request that gets through.
    expect(
      (await (
        await fetch(`${relay.url}/v1/relay/status`, { headers: { Authorization: 'Bearer s3cret' } })
      ).json()) as object,
    ).toMatchObject({
      compile: { workers: { workers: 0 } },
    })
    expect(await compile('s3cret')).toEqual({ status: 200, body: {} })
  })

  it('is open without agent_auth (the default, on loopback)', async () => {
    const temp = await tempDir()
    cleanup = temp.cleanup
    relay = await startTestRelay(relayConfig('relay:\n  compile: {workers: 1}\n'), temp.dir, {
      extensions: [compileExtension],
    })
    expect(await compile()).toEqual({ status: 200, body: {} })
  })
})

describe('relay /v1/compile without agent_auth', () => {
  /** The compile routes in process; `from` stands for the caller's socket address (none: in process). */
  function askFrom(authYaml: string) {
    const logger = pino({ level: 'silent' })
    const config = relayConfig(`relay:\n${authYaml}  compile: {workers: 1}\n`)
    const cache = new BundleCache(new LongPollWaiters(10), undefined, logger)
    extension = compileExtension({ cache, logger, config } as unknown as RelayContext)
    const app = createApp({ errorStyle: 'opa', logger })
    extension.routes?.(app, {} as RelayContext)
    return async (from?: string) => {
      const res = await app.request(
        '/v1/compile',
        {
          method: 'POST',
          headers: { Accept: 'application/vnd.opa.ucast.all+json', 'Content-Type': 'application/json' },
          body: JSON.stringify({ query: 'data.filters.include', unknowns: ['input.tickets'] }),
        },
        from === undefined ? undefined : { incoming: { socket: { remoteAddress: from } } },
      )
      return { status: res.status, body: await res.json() }
    }
  }

  it('refuses callers on other hosts, naming relay.agent_auth', async () => {
    const ask = askFrom('')
    expect(await ask('10.1.2.3')).toEqual({
      status: 403,
      body: {
        code: 'forbidden',
        message:
          '/v1/compile answers callers on other hosts only with relay.agent_auth (bearer or mtls) configured',
      },
    })
    expect((await ask('::ffff:192.168.1.9')).status).toBe(403)
    expect(await ask()).toEqual({ status: 200, body: {} })
  })

  it('leaves callers on other hosts to the bearer check when agent_auth is configured', async () => {
    // The bearer check itself sits on the relay's app (see above); here only the loopback gate.
    const ask = askFrom('  agent_auth: {type: bearer, tokens: [s3cret]}\n')
    expect((await ask('10.1.2.3')).status).not.toBe(403)
  })

  it('lets loopback callers through', async () => {
    const app = new Hono()
    app.use('*', loopbackOnly())
    app.get('/', (c) => c.text('ok'))
    const from = async (address: string) =>
      (await app.request('/', {}, { incoming: { socket: { remoteAddress: address } } })).status
    expect(await Promise.all(['127.0.0.1', '127.5.6.7', '::1', '::ffff:127.0.0.1'].map(from))).toEqual([
      200, 200, 200, 200,
    ])
    expect(['0.0.0.0', '10.0.0.1', '::', 'localhost', ''].some(isLoopbackAddress)).toBe(false)
  })
})

describe('relay listening beyond loopback without agent_auth', () => {
  it('is warned about at start, naming relay.agent_auth', () => {
    const lines: Array<{ msg: string }> = []
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => lines.push(JSON.parse(line) as { msg: string }) },
    )
    warnIfOpenToTheNetwork('127.0.0.1', 'none', logger)
    warnIfOpenToTheNetwork('::1', 'none', logger)
    warnIfOpenToTheNetwork('localhost', 'none', logger)
    warnIfOpenToTheNetwork('0.0.0.0', 'bearer', logger)
    warnIfOpenToTheNetwork('10.0.0.5', 'mtls', logger)
    expect(lines).toEqual([])
    warnIfOpenToTheNetwork('0.0.0.0', 'none', logger)
    expect(lines).toHaveLength(1)
    expect(lines[0]?.msg).toMatch(/without relay\.agent_auth.*\/v1\/compile answers loopback callers only/)
  })
})

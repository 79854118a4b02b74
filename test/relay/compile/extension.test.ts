import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../../core/http/index.js'
import { BundleCache } from '../../../plugins/bundle/bundle-cache.js'
import { LongPollWaiters } from '../../../plugins/bundle/waiters.js'
import { compileConfigSchema } from '../../../relay/compile/config.js'
import { compileExtension } from '../../../relay/compile/extension.js'
import type { RelayContext, RelayExtension } from '../../../relay/types.js'
import { filtersBundle, SQL, target } from './compile-fixtures.js'

const logger = pino({ level: 'silent' })

const running: RelayExtension[] = []
afterEach(async () => {
  for (const extension of running.splice(0)) await extension.stop?.()
})

function relay(compile: Record<string, unknown> = {}) {
  const cache = new BundleCache(new LongPollWaiters(10), undefined, logger)
  const config = { relay: { agent_auth: { type: 'none' }, compile: compileConfigSchema.parse(compile) } }
  const extension = compileExtension({ cache, logger, config } as unknown as RelayContext)
  running.push(extension)
  const app = createApp({ errorStyle: 'opa', logger })
  extension.routes?.(app, {} as RelayContext)
  const ask = async (input: unknown) => {
    const res = await app.request('/v1/compile/filters/include', {
      method: 'POST',
      headers: { Accept: SQL, 'Content-Type': 'application/json' },
      body: JSON.stringify({ input, unknowns: ['input.tickets'] }),
    })
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  }
  return { cache, extension, ask }
}

describe('relay compile extension', () => {
  it('compiles against the served bundle and follows promotions', async () => {
    const { cache, extension, ask } = relay()
    // Nothing served yet: no rule, so never.
    expect(await ask({ user: 'bob' })).toEqual({ status: 200, body: {} })
    await cache.promote(target, await filtersBundle('include if input.tickets.owner == input.user', 'r1'))
    expect(await ask({ user: 'bob' })).toEqual({
      status: 200,
      body: { result: { query: "WHERE tickets.owner = E'bob'" } },
    })
    await cache.promote(
      target,
      await filtersBundle('include if input.tickets.tenant == data.tenants[input.user]', 'r2', {
        tenants: { bob: 'acme' },
      }),
    )
    expect((await ask({ user: 'bob' })).body).toEqual({ result: { query: "WHERE tickets.tenant = E'acme'" } })
    expect(extension.status?.()).toMatchObject({ bundles: { authz: 'r2' }, modules: 1 })
  })

  it('answers the compile errors of a served bundle that does not compile', async () => {
    const { cache, ask } = relay()
    await cache.promote(target, await filtersBundle('include if x > 1', 'bad'))
    const r = await ask({})
    expect(r.status).toBe(400)
    expect(r.body.message).toBe('error(s) occurred while compiling module(s)')
  })

  it('reports a bundle whose modules do not parse and keeps answering with the error', async () => {
    const { cache, extension, ask } = relay()
    await cache.promote(target, await filtersBundle('include if {', 'broken'))
    const r = await ask({})
    expect(r.status).toBe(400)
    expect(String(extension.status?.().error)).toMatch(/unexpected eof/)
  })

  it('answers templated requests on the main thread once workers agreed, as the workers answer them', async () => {
    const lane = relay()
    const workersOnly = relay({ main_thread: false })
    const rules =
      'include if input.tickets.owner == input.user\ninclude if { input.tickets.public == true; input.guest == false }'
    for (const r of [lane, workersOnly]) await r.cache.promote(target, await filtersBundle(rules, 'r1'))
    const inputs = [
      { user: 'bob' },
      { user: 'eve', guest: false },
      { user: "o'neil", guest: true },
      { guest: 1 },
    ]
    const answered = () =>
      (lane.extension.status?.().main_thread as { answered: number } | undefined)?.answered
    // The main thread's copy loads with the first request; meanwhile the workers answer.
    const until = Date.now() + 20_000
    for (let i = 0; i < 20_000 && Date.now() < until && !((answered() ?? 0) >= 8); i++) {
      const input = inputs[i % inputs.length]
      expect(await lane.ask(input), JSON.stringify(input)).toEqual(await workersOnly.ask(input))
    }
    expect(answered()).toBeGreaterThanOrEqual(8)
    expect(lane.extension.status?.()).toMatchObject({ main_thread: { loaded: true, rejected: 0 } })
    expect(workersOnly.extension.status?.().main_thread).toBeUndefined()
    // A promotion reaches the main thread's answers too.
    await lane.cache.promote(target, await filtersBundle('include if input.tickets.team == input.user', 'r2'))
    expect((await lane.ask({ user: 'bob' })).body).toEqual({
      result: { query: "WHERE tickets.team = E'bob'" },
    })
  })
})

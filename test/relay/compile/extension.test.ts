import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../../../core/http/index.js'
import { BundleCache } from '../../../plugins/bundle/bundle-cache.js'
import { LongPollWaiters } from '../../../plugins/bundle/waiters.js'
import { compileExtension } from '../../../relay/compile/extension.js'
import type { RelayContext, RelayExtension } from '../../../relay/types.js'
import { filtersBundle, SQL, target } from './compile-fixtures.js'

const logger = pino({ level: 'silent' })

let running: RelayExtension | undefined
afterEach(async () => {
  await running?.stop?.()
  running = undefined
})

function relay() {
  const cache = new BundleCache(new LongPollWaiters(10), undefined, logger)
  const extension = compileExtension({ cache, logger } as unknown as RelayContext)
  running = extension
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
})

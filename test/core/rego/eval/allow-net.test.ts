/**
 * Capabilities `allow_net` through the evaluator: `http.send` and `net.lookup_ip_addr` refuse a
 * host that is not listed with an error naming it (also when an allowed host redirects to it),
 * and nothing reaches the refused host. As for every built-in error, the refusal stops the query
 * with strict built-in errors on and leaves the call undefined (the error recorded) with them off.
 * An awaited `http.send` counts against the deadline.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EngineBackend } from '../../../../compile/backend.js'
import { createBuiltinContext } from '../../../../core/rego/builtins/context.js'
import { compile, resolveBudget } from '../../../../core/rego/index.js'

let server: Server
let port = 0
const seen: string[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.headers.host} ${req.url}`)
    if (req.url === '/to-localhost') {
      res.writeHead(302, { Location: `http://localhost:${port}/secret` })
      res.end()
    } else if (req.url === '/slow') {
      setTimeout(() => res.end('late'), 3_000).unref()
    } else {
      res.end('secret')
    }
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  port = (server.address() as AddressInfo).port
})
afterAll(() => {
  server.closeAllConnections()
  return new Promise<void>((r) => server.close(() => r()))
})

const policy = compile({}, {})

/** The error a strict evaluation raises; the non-strict one must be undefined with that error recorded. */
async function failure(query: string, allowNet: readonly string[], deadlineMs?: number) {
  const ctx = () => createBuiltinContext({ allowNet, print: () => {} })
  const budget = deadlineMs ? { budget: resolveBudget({ timeoutMs: deadlineMs }) } : {}
  let raised: { code?: string; message?: string } | undefined
  try {
    await policy.query(query).eval({ ctx: ctx(), strictBuiltinErrors: true, ...budget })
  } catch (err) {
    raised = err as { code?: string; message?: string }
  }
  if (!raised) throw new Error(`${query} succeeded`)
  if (raised.code !== 'eval_cancel_error') {
    const run = await policy.query(query).eval({ ctx: ctx(), ...budget })
    expect(run.results).toEqual([])
    expect(run.builtinErrors.map((e) => e.message)).toEqual([raised.message])
  }
  return raised
}

describe('allow_net', () => {
  it('refuses http.send to a host not listed, naming it, before connecting', async () => {
    seen.length = 0
    const err = await failure(`x := http.send({"method": "get", "url": "http://127.0.0.1:${port}/secret"})`, [
      'example.com',
    ])
    expect(err).toMatchObject({ code: 'eval_builtin_error', message: 'http.send: unallowed host: 127.0.0.1' })
    expect(seen).toEqual([])
  })

  it('refuses a redirect from an allowed host to one that is not', async () => {
    seen.length = 0
    const err = await failure(
      `x := http.send({"method": "get", "url": "http://127.0.0.1:${port}/to-localhost", "enable_redirect": true})`,
      ['127.0.0.1'],
    )
    expect(err).toMatchObject({ message: 'http.send: unallowed host: localhost' })
    // Once per mode (strict, then not): never the refused host.
    expect(seen).toEqual([`127.0.0.1:${port} /to-localhost`, `127.0.0.1:${port} /to-localhost`])
  })

  it('lets an allowed host answer, host names compared without case', async () => {
    const ctx = createBuiltinContext({ allowNet: ['LOCALHOST', '127.0.0.1'], print: () => {} })
    const run = await policy
      .query(`x := http.send({"method": "get", "url": "http://localhost:${port}/secret"}).raw_body`)
      .eval({ ctx })
    expect(run.results[0]?.bindings.get('x')).toBe('secret')
  })

  it('refuses net.lookup_ip_addr of a name not listed', async () => {
    const err = await failure('x := net.lookup_ip_addr("localhost")', [])
    expect(err).toMatchObject({ message: 'net.lookup_ip_addr: unallowed host: localhost' })
  })

  it('is passed by the compile backend, and an empty list forbids the network', async () => {
    seen.length = 0
    const backend = new EngineBackend({ modules: {} }, { allowNet: [] })
    // The backend evaluates as OPA's compile API does, without strict built-in errors: undefined.
    await expect(
      backend.evaluate({
        query: `http.send({"method": "get", "url": "http://127.0.0.1:${port}/"})`,
        input: undefined,
      }),
    ).resolves.toBeUndefined()
    expect(seen).toEqual([])
  })

  it('stops waiting for http.send when the caller aborts', async () => {
    const ctx = createBuiltinContext({ allowNet: ['127.0.0.1'], print: () => {} })
    await expect(
      policy
        .query(`x := http.send({"method": "get", "url": "http://127.0.0.1:${port}/slow"})`)
        .eval({ ctx, signal: AbortSignal.timeout(100) }),
    ).rejects.toMatchObject({ code: 'eval_cancel_error' })
  })

  it('stops waiting for http.send at the deadline', async () => {
    const err = await failure(
      `x := http.send({"method": "get", "url": "http://127.0.0.1:${port}/slow"})`,
      ['127.0.0.1'],
      200,
    )
    expect(err.code).toBe('eval_cancel_error')
  })
})

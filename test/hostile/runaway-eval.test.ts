/**
 * Hostile: runaway and SSRF queries against the engine as the compile endpoint runs it
 * (compile/backend.ts `EngineBackend` with its default budget and an allow_net). Every runaway
 * form stops with OPA's budget error within the deadline and without taking the heap; every
 * attempt to reach a host off the allow-list is refused before connecting, redirects included.
 * The relay's worker pool and routes are tested with the relay; this is the engine underneath.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EngineBackend } from '../../compile/backend.js'
import { createBuiltinContext } from '../../core/rego/builtins/context.js'
import { compile, DEFAULT_EVALUATION_BUDGET, parseModule } from '../../core/rego/index.js'
import { parseJSON } from '../../core/rego/values/index.js'

const RUNAWAYS = [
  'input.x == count([1 | some a in numbers.range(1,10000); some b in numbers.range(1,10000)])',
  'input.x == count(numbers.range(1, 1e7))',
  'input.x == count(numbers.range_step(1, 1e15, 7))',
  'input.x == count([p | walk(numbers.range(1, 100000), [p, _]); walk(numbers.range(1, 100), _)])',
  // Known throughout, so partial evaluation runs it (an `every` whose body reads an unknown is
  // saved whole, as OPA saves it, and costs nothing).
  'every a in numbers.range(1, 5000) { every b in numbers.range(1, 5000) { a * b != 0 } }',
  'input.x == count({s | some i in numbers.range(1, 1e6); s := sprintf("%0200d", [i])})',
  'input.x == count(data.hostile.doubled)',
  'data.hostile.residuals',
]

const HOSTILE = `package hostile
import rego.v1

big := numbers.range(1, 4000)

doubled := a if {
  a0 := [sprintf("%d", [x]) | some x in numbers.range(1, 1000)]
  a1 := array.concat(a0, a0)
  a2 := array.concat(a1, a1)
  a3 := array.concat(a2, a2)
  a4 := array.concat(a3, a3)
  a5 := array.concat(a4, a4)
  a6 := array.concat(a5, a5)
  a7 := array.concat(a6, a6)
  a8 := array.concat(a7, a7)
  a9 := array.concat(a8, a8)
  a10 := array.concat(a9, a9)
  a11 := array.concat(a10, a10)
  a12 := array.concat(a11, a11)
  a13 := array.concat(a12, a12)
  a := array.concat(a13, a13)
}

residuals if {
  some a in big
  some b in big
  input.x == a + b
}
`

const request = (query: string) => ({
  query,
  input: {},
  unknowns: [
    {
      type: 'ref' as const,
      value: [
        { type: 'var' as const, value: 'input' },
        { type: 'string' as const, value: 'x' },
      ],
    },
  ],
  disableInlining: [],
  nondeterministicBuiltins: false,
})

describe('hostile: runaway evaluation', () => {
  const backend = new EngineBackend({
    modules: { 'hostile.rego': parseModule(HOSTILE, { file: 'hostile.rego' }) },
  })

  it.each(RUNAWAYS)('stops %s with a budget error, within the deadline', async (query) => {
    const started = Date.now()
    const err = await backend.partialEvaluate(request(query)).then(
      () => undefined,
      (e: unknown) => e as { code?: string },
    )
    expect(['eval_instruction_limit_error', 'eval_cancel_error']).toContain(err?.code)
    // Generous margin over the default 10 s deadline for a loaded machine; unbudgeted, these run
    // for minutes or end in a heap out-of-memory crash.
    expect(Date.now() - started).toBeLessThan(DEFAULT_EVALUATION_BUDGET.timeoutMs + 5_000)
  })

  it('keeps the heap bounded across all of them', async () => {
    const before = process.memoryUsage().heapUsed
    for (const query of RUNAWAYS.slice(0, 3)) await backend.partialEvaluate(request(query)).catch(() => {})
    // numbers.range(1, 1e7) alone took 1.27 GB of RSS before the budget; allow some garbage.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(192 * 1024 * 1024)
  })
})

describe('hostile: http.send off the allow-list (SSRF)', () => {
  let server: Server
  let port = 0
  const seen: string[] = []

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.headers.host}${req.url}`)
      if (req.url === '/hop') {
        res.writeHead(307, { Location: 'http://169.254.169.254/latest/meta-data/' })
        res.end()
      } else res.end('internal secret')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as AddressInfo).port
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  /** Evaluates with strict built-in errors, which raise the refusal instead of leaving it undefined. */
  const strictEval = (query: string, allowNet: string[]) =>
    compile({}, {})
      .query(query)
      .eval({
        input: parseJSON('{"x": 1}'),
        strictBuiltinErrors: true,
        ctx: createBuiltinContext({ allowNet, print: () => {} }),
      })

  const send = (url: string, extra = '') =>
    `input.x == http.send({"method": "get", "url": "${url}"${extra}}).raw_body`

  it.each([
    ['a loopback service', () => send(`http://127.0.0.1:${port}/`), '127.0.0.1'],
    ['cloud metadata', () => send('http://169.254.169.254/latest/meta-data/'), '169.254.169.254'],
    ['an IPv6 loopback', () => send(`http://[::1]:${port}/`), '::1'],
    ['localhost by name', () => send(`http://localhost:${port}/`), 'localhost'],
  ])('refuses %s when allow_net is empty, before connecting', async (_, query, host) => {
    seen.length = 0
    const closed = new EngineBackend({ modules: {} }, { allowNet: [] })
    // As OPA's compile and data APIs without strict built-in errors: the refused call is
    // undefined, so the residual is "never" and the answer undefined, and nothing is fetched.
    const residual = await closed.partialEvaluate({ ...request(query()), nondeterministicBuiltins: true })
    expect(residual.queries).toEqual([])
    await expect(closed.evaluate({ query: query(), input: { x: 1 } })).resolves.toBeUndefined()
    expect(seen).toEqual([])
    // The refusal, with the host, is what a strict evaluation raises.
    await expect(strictEval(query(), [])).rejects.toMatchObject({
      code: 'eval_builtin_error',
      message: `http.send: unallowed host: ${host}`,
    })
    expect(seen).toEqual([])
  })

  it('refuses a redirect from an allowed host to cloud metadata', async () => {
    seen.length = 0
    const open = new EngineBackend({ modules: {} }, { allowNet: ['127.0.0.1'] })
    await expect(
      open.evaluate({
        query: send(`http://127.0.0.1:${port}/hop`, ', "enable_redirect": true'),
        input: { x: 1 },
      }),
    ).resolves.toBeUndefined()
    expect(seen).toEqual([`127.0.0.1:${port}/hop`])
    await expect(
      strictEval(send(`http://127.0.0.1:${port}/hop`, ', "enable_redirect": true'), ['127.0.0.1']),
    ).rejects.toMatchObject({ message: 'http.send: unallowed host: 169.254.169.254' })
  })
})

/**
 * `regent run -s` under the evaluation budget: `--eval-timeout`, `--instruction-limit` and
 * `--capabilities` (allow_net) as settings, and a real server whose runaway queries and compile
 * requests answer OPA's 500 with the budget's `eval_*` error while the process stays up and
 * `/health` answers.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RunUsageError, runSettings } from '../../cli/commands/run.js'
import { builtinCapabilities } from '../../core/rego/builtins/registry.js'
import { DEFAULT_EVALUATION_BUDGET } from '../../core/rego/index.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'

type Flags = Parameters<typeof runSettings>[1]

const flags = (extra: Partial<Flags> = {}): Flags => ({
  server: true,
  addr: [],
  bundle: [],
  ignore: [],
  logLevel: 'info',
  shutdownGracePeriod: '10',
  maxErrors: '10',
  set: [],
  verificationKeyId: 'default',
  signingAlg: 'RS256',
  excludeFilesVerify: [],
  authentication: 'off',
  authorization: 'off',
  ...extra,
})

const POLICY = `package p
import rego.v1

range := numbers.range(1, 1e7)

loop := count([1 | some a in numbers.range(1, 10000); some b in numbers.range(1, 10000)])

fetched := http.send({"method": "get", "url": "http://127.0.0.1:9/"})
`

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'regent-run-budget-'))
  await writeFile(join(dir, 'p.rego'), POLICY)
  await writeFile(
    join(dir, 'caps.json'),
    JSON.stringify({ builtins: builtinCapabilities(), allow_net: ['example.com'] }),
  )
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('regent run -s budget flags', () => {
  it('defaults to the documented budget and every host', () => {
    const s = runSettings([], flags())
    expect(s.budget).toEqual(DEFAULT_EVALUATION_BUDGET)
    expect(s.allowNet).toBeUndefined()
  })

  it('reads --eval-timeout, --instruction-limit (0: none) and allow_net from --capabilities', () => {
    const s = runSettings(
      [],
      flags({ evalTimeout: '1500ms', instructionLimit: '0', capabilities: join(dir, 'caps.json') }),
    )
    expect(s.budget).toEqual({ timeoutMs: 1500, instructionLimit: 0 })
    expect(s.allowNet).toEqual(['example.com'])
  })

  it.each([
    [{ evalTimeout: 'soon' }, '--eval-timeout: expected a duration'],
    [{ instructionLimit: '-5' }, '--instruction-limit: expected a whole number'],
    [{ capabilities: '/no/such/caps.json' }, '--capabilities /no/such/caps.json: no such file'],
  ] as Array<[Partial<Flags>, string]>)('refuses %j naming the flag', (extra, message) => {
    expect(() => runSettings([], flags(extra))).toThrow(RunUsageError)
    expect(() => runSettings([], flags(extra))).toThrow(message)
  })
})

describe('regent run -s with runaway queries', () => {
  let server: RegentProcess

  beforeAll(async () => {
    server = await startRegent([
      'run',
      '-s',
      '-a',
      '127.0.0.1:0',
      '--eval-timeout',
      '2s',
      '--capabilities',
      join(dir, 'caps.json'),
      join(dir, 'p.rego'),
    ])
  }, 30_000)
  afterAll(async () => {
    await server?.stop()
  })

  const errorCode = async (res: Response) => {
    const body = (await res.json()) as { code: string; errors?: Array<{ code: string; message: string }> }
    return { status: res.status, code: body.code, error: body.errors?.[0] }
  }

  it('refuses a range the budget cannot cover before allocating it', async () => {
    const res = await fetch(`${server.url}/v1/data/p/range`)
    expect(await errorCode(res)).toMatchObject({
      status: 500,
      code: 'internal_error',
      error: { code: 'eval_instruction_limit_error' },
    })
  })

  it('stops the issue’s nested loop, in a data query, an ad-hoc query and a compile request', async () => {
    const budgetCodes = ['eval_instruction_limit_error', 'eval_cancel_error']
    const data = await errorCode(await fetch(`${server.url}/v1/data/p/loop`))
    expect(data.status).toBe(500)
    expect(budgetCodes).toContain(data.error?.code)
    const q = encodeURIComponent(
      'x := count([1 | some a in numbers.range(1,10000); some b in numbers.range(1,10000)])',
    )
    const query = await errorCode(await fetch(`${server.url}/v1/query?q=${q}`))
    expect(budgetCodes).toContain(query.error?.code)
    const compile = await fetch(`${server.url}/v1/compile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        query: 'input.x == count([1 | some a in numbers.range(1,10000); some b in numbers.range(1,10000)])',
        unknowns: ['input.x'],
      }),
    })
    expect(compile.status).toBeGreaterThanOrEqual(400)
    expect(JSON.stringify(await compile.json())).toMatch(/eval_instruction_limit_error|eval_cancel_error/)
    const health = await fetch(`${server.url}/health`)
    expect(health.status).toBe(200)
  })

  it('refuses http.send to a host the capabilities file does not allow, naming it', async () => {
    // As OPA's data API: an error only with ?strict-builtin-errors, else the rule is undefined.
    const strict = await errorCode(await fetch(`${server.url}/v1/data/p/fetched?strict-builtin-errors=true`))
    expect(strict).toMatchObject({ status: 500, error: { message: 'http.send: unallowed host: 127.0.0.1' } })
    const lenient = await fetch(`${server.url}/v1/data/p/fetched`)
    expect(lenient.status).toBe(200)
    expect(await lenient.json()).not.toHaveProperty('result')
  })
})

/**
 * Errors of asynchronous built-ins (http.send, net.lookup_ip_addr) follow OPA's rule for every
 * built-in (v1/topdown/eval.go evalBuiltin): with strict built-in errors off the call is undefined,
 * the error is recorded and the rest of the query goes on; with them on the query stops. Only
 * cancellation and the deadline stop the query in both modes (allow-net.test.ts).
 */
import { describe, expect, it } from 'vitest'
import { createBuiltinContext } from '../../../../core/rego/builtins/context.js'
import {
  compile,
  parseModule,
  partialEvaluate,
  EvalError as RegoEvalError,
} from '../../../../core/rego/index.js'
import { toJSONText } from '../../../../core/rego/values/index.js'

// Nothing listens on port 9 of the loopback; allow_net refuses it before any connection anyway.
const MODULE = `package p

default fetched := "fallback"

fetched := http.send({"method": "get", "url": "http://127.0.0.1:9/"}).status_code

addrs := net.lookup_ip_addr("localhost")

after := 1

soft := http.send({"method": "get", "url": "http://127.0.0.1:9/", "raise_error": false})
`
const policy = compile({ 'p.rego': parseModule(MODULE, { file: 'p.rego' }) }, {})
const closed = () => createBuiltinContext({ allowNet: [], print: () => {} })

describe('asynchronous built-in errors', () => {
  it('leave the call undefined and the query going when strict built-in errors are off', async () => {
    const run = await policy.query('data.p').eval({ ctx: closed() })
    const value = run.results[0]?.expressions[0]?.value
    expect(value === undefined ? undefined : toJSONText(value)).toBe(
      '{"after":1,"fetched":"fallback","soft":{"error":{"code":"eval_http_send_internal_error","message":"unallowed host: 127.0.0.1"},"status_code":0}}',
    )
    expect(run.builtinErrors.map((e) => `${e.code}: ${e.message}`).sort()).toEqual([
      'eval_builtin_error: http.send: unallowed host: 127.0.0.1',
      'eval_builtin_error: net.lookup_ip_addr: unallowed host: localhost',
    ])
  })

  it('stop the query at the first failing call when strict built-in errors are on', async () => {
    const err = await policy
      .query('data.p.fetched')
      .eval({ ctx: closed(), strictBuiltinErrors: true })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RegoEvalError)
    expect(err).toMatchObject({ code: 'eval_builtin_error', message: 'http.send: unallowed host: 127.0.0.1' })
    const lookup = await policy
      .query('data.p.addrs')
      .eval({ ctx: closed(), strictBuiltinErrors: true })
      .catch((e: unknown) => e)
    expect(lookup).toMatchObject({
      code: 'eval_builtin_error',
      message: 'net.lookup_ip_addr: unallowed host: localhost',
    })
  })

  it('fail a connection the same way: undefined, or raised with Go’s url.Error wording', async () => {
    const open = () => createBuiltinContext({ print: () => {} })
    const run = await policy.query('data.p.fetched').eval({ ctx: open() })
    expect(run.results[0]?.expressions[0]?.value).toBe('fallback')
    expect(run.builtinErrors[0]?.message).toMatch(/^http\.send: Get "http:\/\/127\.0\.0\.1:9\/": /)
    await expect(
      policy.query('data.p.fetched').eval({ ctx: open(), strictBuiltinErrors: true }),
    ).rejects.toMatchObject({
      code: 'eval_builtin_error',
      message: expect.stringMatching(/^http\.send: Get "/),
    })
  })

  it('make the call undefined in partial evaluation too', async () => {
    const src =
      'package q\n\ninclude if input.x == http.send({"method": "get", "url": "http://127.0.0.1:9/"}).body\n'
    const pe = compile({ 'q.rego': parseModule(src, { file: 'q.rego' }) }, {})
    const result = await partialEvaluate(pe, 'data.q.include', {
      unknowns: ['input'],
      nondeterministicBuiltins: true,
      ctx: closed(),
    })
    expect(result.queries).toEqual([])
  })
})

import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { ACCEPT_CHOICES } from '../../compile/accept.js'
import { compileRoutes } from '../../compile/route.js'
import type { CompileBackend } from '../../compile/types.js'
import { RegoError } from '../../core/rego/errors.js'
import { engineBackend } from './engine-backend.js'

const POLICY = {
  'filters.rego': `package filters

include if input.fruits.colour == input.fav
include if {
  input.admin == true
}

never if {
  input.fruits.colour == 1
  false
}
`,
}
const SQL = 'application/vnd.opa.sql.postgresql+json'

async function post(
  backend: CompileBackend,
  path: string,
  body: unknown,
  headers: Record<string, string> = { Accept: SQL },
): Promise<{ status: number; type: string | null; text: string; json: Record<string, unknown> }> {
  const { app } = compileRoutes({ backend })
  const init: RequestInit = { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers } }
  if (body !== undefined)
    init.body =
      typeof body === 'string' || body instanceof Uint8Array ? (body as string) : JSON.stringify(body)
  const res = await app.request(path, init)
  const text = await res.text()
  return { status: res.status, type: res.headers.get('Content-Type'), text, json: JSON.parse(text) }
}

const filters = '/v1/compile/filters/include'
const body = { input: { fav: 'green' }, unknowns: ['input.fruits'] }

describe('compile routes', () => {
  it('answers a WHERE clause with the Accept value as Content-Type and a trailing newline', async () => {
    const r = await post(engineBackend(POLICY), filters, body)
    expect(r.status).toBe(200)
    expect(r.type).toBe(SQL)
    expect(r.text).toBe(`{"result":{"query":"WHERE fruits.colour = E'green'"}}\n`)
  })

  it('hints at an input table that is neither given nor unknown, with the closest unknown', async () => {
    const typo = {
      'filters.rego': `package filters

include if input.fruit.cost < 10
include if input.fruits.colour == input.fav
include if input.frutis.colour == "red"
include if input.fav == "blue"
`,
    }
    const r = await post(engineBackend(typo), filters, body)
    expect(r.status).toBe(200)
    expect(r.json).toEqual({
      result: { query: "WHERE fruits.colour = E'green'" },
      hints: [
        {
          message: 'input.fruit.cost undefined, did you mean input.fruits.cost?',
          location: { file: 'filters.rego', row: 3, col: 12 },
        },
        {
          message: 'input.frutis.colour undefined, did you mean input.fruits.colour?',
          location: { file: 'filters.rego', row: 5, col: 12 },
        },
      ],
    })
    // No hint when every failing expression reads what the request gave (input.fav is "green").
    const clean = await post(engineBackend(POLICY), filters, body)
    expect(clean.json.hints).toBeUndefined()
  })

  it('answers unconditional allow and deny in each shape', async () => {
    const allow = { ...body, input: { admin: true } }
    expect((await post(engineBackend(POLICY), filters, allow)).json).toEqual({ result: { query: '' } })
    const ucast = { Accept: 'application/vnd.opa.ucast.all+json' }
    expect((await post(engineBackend(POLICY), filters, allow, ucast)).json).toEqual({
      result: { query: {} },
    })
    const deny = { unknowns: ['input.fruits'] }
    expect((await post(engineBackend(POLICY), '/v1/compile/filters/never', deny)).text).toBe('{}\n')
    const multi = { Accept: 'application/vnd.opa.multitarget+json' }
    const denyMulti = { ...deny, options: { targetDialects: ['sql+mysql'] } }
    expect((await post(engineBackend(POLICY), '/v1/compile/filters/never', denyMulti, multi)).json).toEqual({
      result: {},
    })
    expect((await post(engineBackend(POLICY), filters, body, multi)).json).toEqual({ result: {} })
  })

  it('renders each multitarget dialect once, UCAST with the first ucast tuple, checks for all', async () => {
    const headers = { Accept: 'application/vnd.styra.multitarget+json' }
    const options = {
      targetDialects: ['ucast+prisma', 'sql+sqlserver', 'ucast+all', 'sql+mysql'],
      targetSQLTableMappings: {
        prisma: { fruits: { $self: 'P' } },
        all: { fruits: { $self: 'A' } },
        sql: { fruits: { $self: 'S' } },
      },
    }
    const r = await post(engineBackend(POLICY), filters, { ...body, options }, headers)
    expect(r.type).toBe('application/vnd.styra.multitarget+json')
    expect(Object.keys(r.json.result as object)).toEqual(['ucast', 'mysql', 'sqlserver'])
    expect(r.json.result).toEqual({
      ucast: { query: { type: 'field', operator: 'eq', field: 'P.colour', value: 'green' } },
      mysql: { query: "WHERE S.colour = 'green'" },
      sqlserver: { query: "WHERE S.colour = N'green'" },
    })
    const linq = { ...body, input: {}, options: { targetDialects: ['ucast+linq', 'sql+sqlite'] } }
    const contains = { 'f.rego': 'package f\ninclude if contains(input.fruits.name, "x")\n' }
    const refused = await post(engineBackend(contains), '/v1/compile/f/include', linq, headers)
    expect(refused.status).toBe(400)
    expect((refused.json.errors as Array<{ message: string }>)[0]?.message).toBe(
      'invalid builtin `contains`: unsupported for UCAST (LINQ)\nunsupported for SQL (sqlite)',
    )
    const bad = await post(
      engineBackend(POLICY),
      filters,
      { ...body, options: { targetDialects: ['sql+oracle'] } },
      headers,
    )
    expect([bad.status, bad.json.message]).toEqual([
      400,
      'multi-target request: unsupported variant for sql: oracle',
    ])
  })

  it('attaches masks from the request mask rule, resolved in the filter package', async () => {
    const masks = { 'data.filters.masks': { fruits: { colour: { replace: { value: '***' } } } } }
    const options = { maskRule: 'masks', targetDialects: ['sql+postgresql', 'ucast+all'] }
    const maskRules = 'package filters\nmasks.fruits.colour.replace.value := "***" if input.fav\n'
    const r = await post(
      engineBackend({ ...POLICY, 'masks.rego': maskRules }),
      filters,
      { ...body, options },
      { Accept: 'application/vnd.opa.multitarget+json' },
    )
    expect(r.json.result).toEqual({
      ucast: {
        query: { type: 'field', operator: 'eq', field: 'fruits.colour', value: 'green' },
        masks: masks['data.filters.masks'],
      },
      postgresql: { query: "WHERE fruits.colour = E'green'", masks: masks['data.filters.masks'] },
    })
    const empty = await post(engineBackend({ ...POLICY, 'x.rego': 'package x\nm := {}\n' }), filters, {
      ...body,
      options: { maskRule: 'data.x.m' },
    })
    expect(empty.json).toEqual({ result: { query: "WHERE fruits.colour = E'green'" } })
    const wrong = await post(engineBackend({ ...POLICY, 'x.rego': 'package x\nm := "oops"\n' }), filters, {
      ...body,
      options: { maskRule: 'data.x.m' },
    })
    expect([wrong.status, wrong.json]).toEqual([
      500,
      { code: 'internal_error', message: 'convert masks: data.x.m is not an object' },
    ])
  })

  it('answers request errors in the reference order with OPA envelopes', async () => {
    const b = engineBackend(POLICY)
    const broken = await post(b, filters, Buffer.from('not gzip'), {
      Accept: SQL,
      'Content-Encoding': 'gzip',
    })
    expect([broken.status, broken.json.code]).toEqual([400, 'invalid_parameter'])
    expect(broken.json.message).toMatch(/^could not decompress the body: /)
    expect(broken.type).toBe('application/json')
    expect(broken.text.endsWith('}\n') && broken.text.includes('\n  "code"')).toBe(true)
    const decode = await post(b, filters, '{"input": ')
    expect(decode.json.message).toMatch(/^error\(s\) occurred while decoding request: /)
    const type = await post(b, filters, { unknowns: 'input.fruits' })
    expect(type.json.message).toMatch(/^error\(s\) occurred while decoding request: unknowns: /)
    const unknowns = await post(b, filters, { unknowns: ['input.fruits['] })
    expect(unknowns.json.message).toMatch(/^error\(s\) occurred while parsing unknowns: /)
    const mask = await post(b, filters, { ...body, options: { maskRule: 'data.x y' } })
    expect(mask.json.message).toMatch(/^error\(s\) occurred while parsing mask_rule name: /)
    const accept = await post(b, filters, body, {})
    expect([accept.status, accept.json.message]).toEqual([
      400,
      `Accept header: missing required header; ${ACCEPT_CHOICES}`,
    ])
    const wildcard = await post(b, filters, body, { Accept: '*/*' })
    expect([wildcard.status, wildcard.type]).toEqual([200, 'application/json'])
    expect(wildcard.json.result).toHaveProperty('queries')
    const html = await post(b, filters, body, { Accept: 'text/html' })
    expect([html.status, html.json.message]).toEqual([
      400,
      `Accept header: unsupported header: text/html; ${ACCEPT_CHOICES}`,
    ])
    // Bad annotations are reported before the Accept header is looked at.
    const annotated = {
      'f.rego': 'package f\n\n# METADATA\n# compile:\n#   unknowns: [inpu.x]\np if input.x.y == 1\n',
    }
    const first = await post(engineBackend(annotated), '/v1/compile/f/p', {}, {})
    expect(first.json).toEqual({
      code: 'evaluation_error',
      message: 'error(s) occurred while evaluating query',
      errors: [
        {
          code: 'invalid_unknown',
          message: 'unknowns must be prefixed with `input` or `data`: inpu.x',
          location: { file: 'f.rego', row: 3, col: 1 },
        },
      ],
    })
  })

  it('maps backend failures: static errors 400, others 500 with the stage', async () => {
    const real = engineBackend(POLICY)
    const failing = (err: Error): CompileBackend => ({
      modules: () => real.modules(),
      evaluate: (r) => real.evaluate(r),
      toAstJson: (r) => real.toAstJson(r),
      partialEvaluate: () => {
        throw err
      },
    })
    const rego = await post(
      failing(new RegoError('rego_type_error', 'bad types', { file: 'f.rego', row: 2, col: 3 })),
      filters,
      body,
    )
    expect([rego.status, rego.json]).toEqual([
      400,
      {
        code: 'invalid_parameter',
        message: 'error(s) occurred while compiling module(s)',
        errors: [
          { code: 'rego_type_error', message: 'bad types', location: { file: 'f.rego', row: 2, col: 3 } },
        ],
      },
    ])
    const boom = await post(failing(new Error('boom')), filters, body)
    expect([boom.status, boom.json]).toEqual([500, { code: 'internal_error', message: 'partial eval: boom' }])
    // A policy that does not compile is a static error of the real engine.
    const unsafe = await post(
      engineBackend({ 'f.rego': 'package f\ninclude if x > 1\n' }),
      '/v1/compile/f/include',
      body,
    )
    expect([unsafe.status, unsafe.json.message]).toEqual([400, 'error(s) occurred while compiling module(s)'])
    expect((unsafe.json.errors as Array<{ code: string }>)[0]?.code).toBe('rego_unsafe_var_error')
  })

  it('refuses a body that is not UTF-8 with 400 naming the byte, as the other intakes do', async () => {
    const bad = Buffer.concat([Buffer.from('{"input":{"fav":"gr'), Buffer.from([0xff]), Buffer.from('"}}')])
    const r = await post(engineBackend(POLICY), filters, new Uint8Array(bad))
    expect(r.status).toBe(400)
    expect(String(r.json.message)).toMatch(/not valid UTF-8 \(byte 19: 0xff\)/)
  })

  it('reads gzip, YAML, GET without a body and POST /v1/compile with a query', async () => {
    const b = engineBackend(POLICY)
    const gz = await post(b, filters, gzipSync(JSON.stringify(body)), {
      Accept: SQL,
      'Content-Encoding': 'gzip',
    })
    expect(gz.json).toEqual({ result: { query: "WHERE fruits.colour = E'green'" } })
    const yaml = await post(b, filters, 'input:\n  fav: green\nunknowns: [input.fruits]\n', {
      Accept: SQL,
      'Content-Type': 'application/x-yaml',
    })
    expect(yaml.json).toEqual(gz.json)
    // YAML integers keep every digit, as JSON numbers do.
    const big = await post(b, filters, 'input:\n  fav: 12345678901234567890\nunknowns: [input.fruits]\n', {
      Accept: SQL,
      'Content-Type': 'application/x-yaml',
    })
    expect(big.text).toContain("fruits.colour = E'12345678901234567890'")
    const byQuery = await post(b, '/v1/compile', { ...body, query: 'data.filters.include' })
    expect(byQuery.json).toEqual(gz.json)
    const noQuery = await post(b, '/v1/compile', body)
    expect([noQuery.status, noQuery.json.code]).toEqual([400, 'invalid_parameter'])
    const { app } = compileRoutes({ backend: b })
    const get = await app.request('/v1/compile/filters/include', { headers: { Accept: SQL } })
    // With all of input unknown, `input.fav` stays in the residual and is no column.
    expect(get.status).toBe(400)
    expect(JSON.stringify(await get.json())).toContain('eq: invalid ref operand: input.fav')
    // No unknowns anywhere: the spec's default [input].
    expect(b.calls.at(-1)?.unknowns.map((u) => u.value.map((t) => t.value))).toEqual([['input']])
    expect(b.calls[0]?.nondeterministicBuiltins).toBe(true)
  })

  it('keeps numbers exact, escapes <>& as Go does, pretty-prints and reports metrics on request', async () => {
    const b = engineBackend(POLICY)
    const ucast = { Accept: 'application/vnd.opa.ucast.minimal+json' }
    const r = await post(
      b,
      `${filters}?pretty&metrics`,
      '{"input": {"fav": 12345678901234567890.25}, "unknowns": ["input.fruits"]}',
      ucast,
    )
    expect(r.text).toContain('"value": 12345678901234567890.25\n')
    expect(r.text.startsWith('{\n  "result": {\n    "query": {\n      "type": "field",')).toBe(true)
    expect(Object.keys(r.json.metrics as object)).toEqual(
      expect.arrayContaining([
        'timer_rego_partial_eval_ns',
        'timer_compile_translate_queries_ns',
        'timer_server_handler_ns',
      ]),
    )
    const html = await post(b, filters, { input: { fav: '<a&b>' }, unknowns: ['input.fruits'] })
    expect(html.text).toBe(`{"result":{"query":"WHERE fruits.colour = E'\\u003ca\\u0026b\\u003e'"}}\n`)
  })

  it('caches annotation look-ups per path until the policies change', async () => {
    const annotated = {
      'f.rego':
        'package f\n\n# METADATA\n# compile:\n#   unknowns: [input.fruits]\np if input.fruits.x == 1\n',
    }
    const backend = engineBackend(annotated)
    let modules = backend.modules()
    const swapping: CompileBackend = {
      modules: () => modules,
      partialEvaluate: (r) => backend.partialEvaluate(r),
      evaluate: (r) => backend.evaluate(r),
      toAstJson: (r) => backend.toAstJson(r),
    }
    const { app, service } = compileRoutes({ backend: swapping })
    const ask = async () =>
      (await app.request('/v1/compile/f/p', { method: 'POST', headers: { Accept: SQL }, body: '{}' })).json()
    for (let i = 0; i < 3; i++) expect(await ask()).toEqual({ result: { query: "WHERE fruits.x = E'1'" } })
    expect(service.unknownsCache.stats).toEqual({ hits: 2, misses: 1 })
    modules = [...modules]
    await ask()
    expect(service.unknownsCache.stats).toEqual({ hits: 2, misses: 2 })
    // Request unknowns bypass the cache.
    await app.request('/v1/compile/f/p', {
      method: 'POST',
      headers: { Accept: SQL },
      body: '{"unknowns":["input.fruits"]}',
    })
    expect(service.unknownsCache.stats.misses + service.unknownsCache.stats.hits).toBe(4)
  })
})

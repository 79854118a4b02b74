/**
 * `regent run -s` as a real process on 127.0.0.1:0, loaded with a policy file, a data file (with a
 * 30-digit integer) and a tar.gz bundle built with core/bundle: every endpoint's success and error
 * paths, answered as OPA answers them.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleFromFiles, readBundleFiles, writeBundle } from '../../core/bundle/index.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'

const BIG = '123456789012345678901234567890'
const LONG_DECIMAL = '0.1000000000000000055511151231257827'

const POLICY = `package authz

default allow := false

allow if input.user == "alice"

echo := input

roles_of_alice contains role if {
  some role, members in data.roles
  "alice" in members
}

conflict := 1 if input.x
conflict := 2 if input.x

broken := to_number(input.s)
`

const FILTERS = `package filters

# METADATA
# scope: rule
# custom:
#   unknowns: [input.fruits]
include if input.fruits.colour == input.colour
`

const SYSTEM = `package system

main := {"allowed": input.user == "alice"}
`

let server: RegentProcess
let dir: string

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  json: any
}

async function call(
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await request(`${server.url}${path}`, {
    method: method as 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
  })
  const text = await res.body.text()
  let json: unknown
  try {
    json = text === '' ? undefined : JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.statusCode, headers: res.headers, text, json }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'regent-run-e2e-'))
  await writeFile(join(dir, 'authz.rego'), POLICY)
  await writeFile(join(dir, 'system.rego'), SYSTEM)
  await writeFile(join(dir, 'filters.rego'), FILTERS)
  await writeFile(join(dir, 'data.json'), `{"roles": {"admin": ["alice"], "dev": ["bob"]}, "big": ${BIG}}`)
  // The bundle: a module and data under the root "bundled", built and packed with core/bundle.
  const src = join(dir, 'bundle-src')
  await mkdir(join(src, 'bundled', 'limits'), { recursive: true })
  await writeFile(join(src, '.manifest'), JSON.stringify({ revision: 'rev-42', roots: ['bundled'] }))
  await writeFile(
    join(src, 'bundled', 'policy.rego'),
    'package bundled\n\nlimit := data.bundled.limits.max\n',
  )
  await writeFile(join(src, 'bundled', 'limits', 'data.json'), `{"max": ${BIG}}`)
  const tarball = join(dir, 'bundle.tar.gz')
  await writeFile(tarball, await writeBundle(bundleFromFiles(await readBundleFiles({ dir: src }))))
  server = await startRegent([
    'run',
    '-s',
    '-a',
    '127.0.0.1:0',
    '--shutdown-grace-period',
    '1',
    '-b',
    tarball,
    join(dir, 'authz.rego'),
    join(dir, 'system.rego'),
    join(dir, 'filters.rego'),
    join(dir, 'data.json'),
  ])
}, 30_000)

afterAll(async () => {
  await server?.kill()
  await rm(dir, { recursive: true, force: true })
})

describe('regent run -s: data API reads', () => {
  it('logs the bound address and answers the health check', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(server.logs.some((l) => l.msg === 'listening' && l.server === 'run')).toBe(true)
    expect((await call('GET', '/health')).json).toEqual({})
    expect((await call('GET', '/health?bundles')).status).toBe(200)
  })

  it('POST /v1/data evaluates with the input, and warns when the input key is missing', async () => {
    const yes = await call('POST', '/v1/data/authz/allow', '{"input": {"user": "alice"}}')
    expect(yes).toMatchObject({ status: 200, json: { result: true } })
    const no = await call('POST', '/v1/data/authz/allow', '{}')
    expect(no.json).toEqual({
      result: false,
      warning: { code: 'api_usage_warning', message: "'input' key missing from the request" },
    })
  })

  it('GET /v1/data reads base and virtual documents; undefined is {}', async () => {
    expect((await call('GET', '/v1/data/roles/admin/0')).json).toEqual({ result: 'alice' })
    expect((await call('GET', '/v1/data/authz/roles_of_alice')).json).toEqual({ result: ['admin'] })
    expect((await call('GET', '/v1/data/nothing/here')).json).toEqual({})
    const withInput = await call(
      'GET',
      `/v1/data/authz/allow?input=${encodeURIComponent('{"user":"alice"}')}`,
    )
    expect(withInput.json).toEqual({ result: true })
  })

  it('keeps big integers and long decimals exact on input and output', async () => {
    const res = await call('POST', '/v1/data/authz/echo', `{"input": {"n": ${BIG}, "d": ${LONG_DECIMAL}}}`)
    expect(res.text).toBe(`{"result":{"d":${LONG_DECIMAL},"n":${BIG}}}`)
    const yaml = await call('POST', '/v1/data/authz/echo', `input:\n  num: ${BIG}\n`, {
      'Content-Type': 'application/x-yaml',
    })
    // YAML goes through go-yaml v2 in OPA (sigs.k8s.io/yaml): an integer past 64 bits is a float64.
    expect(JSON.parse(yaml.text)).toEqual({ result: { num: Number(BIG) } })
    expect(yaml.text).not.toContain(BIG)
    expect((await call('GET', '/v1/data/big')).text).toBe(`{"result":${BIG}}`)
    expect((await call('GET', '/v1/data/bundled/limit')).text).toBe(`{"result":${BIG}}`)
  })

  it('pretty-prints with ?pretty and adds metrics and provenance when asked', async () => {
    const pretty = await call('GET', '/v1/data/roles?pretty')
    expect(pretty.text).toBe(
      '{\n  "result": {\n    "admin": [\n      "alice"\n    ],\n    "dev": [\n      "bob"\n    ]\n  }\n}\n',
    )
    const extra = await call('GET', '/v1/data/roles?metrics&provenance=true')
    expect(extra.json.metrics.timer_rego_query_eval_ns).toBeGreaterThan(0)
    expect(extra.json.metrics).toHaveProperty('counter_server_query_cache_hit')
    expect(extra.json.provenance.bundles).toEqual({ [join(dir, 'bundle.tar.gz')]: { revision: 'rev-42' } })
  })

  it('inflates gzip request bodies and refuses corrupt ones', async () => {
    const body = gzipSync('{"input": {"user": "alice"}}')
    const res = await call('POST', '/v1/data/authz/allow', body, { 'Content-Encoding': 'gzip' })
    expect(res.json).toEqual({ result: true })
    const bad = await call('POST', '/v1/data/authz/allow', 'not gzip', { 'Content-Encoding': 'gzip' })
    expect(bad.status).toBe(400)
    expect(bad.json.code).toBe('invalid_parameter')
    expect(bad.json.message).toMatch(/^could not decompress the body/)
  })

  it('gzips large responses for clients that accept it', async () => {
    const big = JSON.stringify({ input: { pad: 'x'.repeat(4096) } })
    const res = await request(`${server.url}/v1/data/authz/echo`, {
      method: 'POST',
      body: big,
      headers: { 'Accept-Encoding': 'gzip' },
    })
    expect(res.headers['content-encoding']).toBe('gzip')
    await res.body.arrayBuffer()
  })

  it('answers 400 for malformed input and a body past the limit with 413', async () => {
    const bad = await call('POST', '/v1/data/authz/allow', '{"input": ')
    expect(bad.status).toBe(400)
    expect(bad.json.message).toMatch(/^body contains malformed input document/)
    const badParam = await call('GET', '/v1/data/authz/allow?input=%7Bnope')
    expect(badParam.json.message).toMatch(/^parameter contains malformed input document/)
    const huge = await call('POST', '/v1/data/authz/allow', Buffer.alloc(9 * 1024 * 1024, 0x20))
    expect(huge.status).toBe(413)
  })

  it('reports evaluation errors as OPA does (500 with the eval error), built-in errors only when strict', async () => {
    const conflict = await call('POST', '/v1/data/authz/conflict', '{"input": {"x": true}}')
    expect(conflict.status).toBe(500)
    expect(conflict.json).toMatchObject({
      code: 'internal_error',
      message: 'error(s) occurred while evaluating query',
      errors: [{ code: 'eval_conflict_error', location: { file: join(dir, 'authz.rego'), row: 15 } }],
    })
    const lenient = await call('POST', '/v1/data/authz/broken', '{"input": {"s": "x"}}')
    expect(lenient.json).toEqual({})
    const strict = await call('POST', '/v1/data/authz/broken?strict-builtin-errors', '{"input": {"s": "x"}}')
    expect(strict.status).toBe(500)
    expect(strict.json.errors[0].code).toBe('eval_builtin_error')
  })

  it('refuses ?explain with a clear 400', async () => {
    const res = await call('GET', '/v1/data/roles?explain=full')
    expect(res.status).toBe(400)
    expect(res.json.message).toContain('explain=full is not supported')
  })
})

describe('regent run -s: v0 API and the default decision', () => {
  it('POST /v0/data takes the raw input and answers the raw value', async () => {
    const res = await call('POST', '/v0/data/authz/allow', '{"user": "alice"}')
    expect(res).toMatchObject({ status: 200, text: 'true' })
  })

  it('answers 404 undefined_document, saying whether rules exist', async () => {
    const missing = await call('POST', '/v0/data/nothing', '{}')
    expect(missing.status).toBe(404)
    expect(missing.json).toEqual({ code: 'undefined_document', message: 'document missing: data.nothing' })
    const undef = await call('POST', '/v0/data/authz/roles_of_alice/viewer', '{}')
    expect(undef.json.message).toBe('document undefined: data.authz.roles_of_alice.viewer')
  })

  it('POST / evaluates data.system.main', async () => {
    const res = await call('POST', '/', '{"user": "alice"}')
    expect(res.json).toEqual({ allowed: true })
  })
})

describe('regent run -s: query API', () => {
  it('GET and POST /v1/query answer the bindings of each solution', async () => {
    const get = await call('GET', `/v1/query?q=${encodeURIComponent('data.roles[name]')}`)
    expect(get.json).toEqual({ result: [{ name: 'admin' }, { name: 'dev' }] })
    const post = await call(
      'POST',
      '/v1/query',
      '{"query": "input.xs[i] > 1; _ = i", "input": {"xs": [1, 2, 3]}}',
    )
    expect(post.json).toEqual({ result: [{ i: 1 }, { i: 2 }] })
    const none = await call('POST', '/v1/query', '{"query": "x := input.missing"}')
    expect(none.json).toEqual({})
  })

  it('answers 400 for a missing q, a parse error and a compile error', async () => {
    expect((await call('GET', '/v1/query')).json).toEqual({
      code: 'invalid_parameter',
      message: "missing parameter 'q'",
    })
    const parse = await call('POST', '/v1/query', '{"query": "x := "}')
    expect(parse.status).toBe(400)
    expect(parse.json).toMatchObject({
      message: 'error(s) occurred while parsing query',
      errors: [{ code: 'rego_parse_error' }],
    })
    const compile = await call('POST', '/v1/query', '{"query": "x := y"}')
    expect(compile.json.message).toBe('error(s) occurred while compiling query')
    expect(compile.json.errors[0].code).toBe('rego_unsafe_var_error')
    const decode = await call('POST', '/v1/query', '[1]')
    expect(decode.json.message).toMatch(/^error\(s\) occurred while decoding request/)
  })
})

describe('regent run -s: policy API', () => {
  it('creates, reads, lists, replaces and deletes a policy', async () => {
    const put = await call('PUT', '/v1/policies/extra/p.rego', 'package extra\n\ngreeting := "hello"\n', {
      'Content-Type': 'text/plain',
    })
    expect(put).toMatchObject({ status: 200, json: {} })
    expect((await call('GET', '/v1/data/extra/greeting')).json).toEqual({ result: 'hello' })
    const one = await call('GET', '/v1/policies/extra/p.rego')
    expect(one.json.result).toMatchObject({
      id: 'extra/p.rego',
      raw: 'package extra\n\ngreeting := "hello"\n',
    })
    expect(one.json.result.ast.package.path[1]).toEqual({ type: 'string', value: 'extra' })
    const ids = (await call('GET', '/v1/policies')).json.result.map((p: { id: string }) => p.id)
    expect(ids).toContain('extra/p.rego')
    expect(ids).toContain(join(dir, 'bundle.tar.gz', 'bundled/policy.rego'))
    await call('PUT', '/v1/policies/extra/p.rego', 'package extra\n\ngreeting := "hi"\n')
    expect((await call('GET', '/v1/data/extra/greeting')).json).toEqual({ result: 'hi' })
    expect((await call('DELETE', '/v1/policies/extra/p.rego')).json).toEqual({})
    expect((await call('GET', '/v1/data/extra/greeting')).json).toEqual({})
    const gone = await call('GET', '/v1/policies/extra/p.rego')
    expect(gone.status).toBe(404)
    expect(gone.json).toEqual({
      code: 'resource_not_found',
      message: 'storage_not_found_error: policy id "extra/p.rego"',
    })
    expect((await call('DELETE', '/v1/policies/extra/p.rego')).status).toBe(404)
  })

  it('refuses a module with a syntax error (400, OPA error list) and keeps the old policies', async () => {
    const res = await call('PUT', '/v1/policies/broken.rego', 'package broken\n\nallow if {\n')
    expect(res.status).toBe(400)
    expect(res.json.code).toBe('invalid_parameter')
    expect(res.json.message).toBe('error(s) occurred while compiling module(s)')
    expect(res.json.errors[0]).toMatchObject({ code: 'rego_parse_error', location: { file: 'broken.rego' } })
    expect((await call('GET', '/v1/policies/broken.rego')).status).toBe(404)
    expect((await call('GET', '/v1/data/authz/allow')).json).toEqual({ result: false })
  })

  it('refuses compile errors, rules over base data and packages owned by a bundle', async () => {
    const unsafe = await call('PUT', '/v1/policies/u.rego', 'package u\n\np if x\n')
    expect(unsafe.json.errors[0].code).toBe('rego_unsafe_var_error')
    const conflict = await call('PUT', '/v1/policies/c.rego', 'package roles\n\nadmin := 1\n')
    expect(conflict.status).toBe(400)
    expect(conflict.json.errors[0]).toMatchObject({
      code: 'rego_compile_error',
      message: 'conflicting rule for data path roles/admin found',
    })
    const owned = await call('PUT', '/v1/policies/b.rego', 'package bundled.more\n\nx := 1\n')
    expect(owned.status).toBe(400)
    expect(owned.json.message).toBe(`path bundled/more is owned by bundle "${join(dir, 'bundle.tar.gz')}"`)
  })
})

describe('regent run -s: data API writes', () => {
  it('PUT, PATCH and DELETE base documents (204), visible to policies', async () => {
    expect((await call('PUT', '/v1/data/roles/ops', '["alice"]')).status).toBe(204)
    expect((await call('GET', '/v1/data/authz/roles_of_alice')).json).toEqual({ result: ['admin', 'ops'] })
    const patch = await call(
      'PATCH',
      '/v1/data/roles',
      JSON.stringify([
        { op: 'add', path: '/ops/-', value: 'carol' },
        { op: 'replace', path: '/dev/0', value: 'dave' },
        { op: 'remove', path: '/admin' },
      ]),
    )
    expect(patch.status).toBe(204)
    expect((await call('GET', '/v1/data/roles')).json).toEqual({
      result: { dev: ['dave'], ops: ['alice', 'carol'] },
    })
    expect((await call('DELETE', '/v1/data/roles/ops')).status).toBe(204)
    expect((await call('PUT', '/v1/data/deep/new/path', `{"n": ${BIG}}`)).status).toBe(204)
    expect((await call('GET', '/v1/data/deep')).text).toBe(`{"result":{"new":{"path":{"n":${BIG}}}}}`)
    expect((await call('PUT', '/v1/data/deep', '{}', { 'If-None-Match': '*' })).status).toBe(304)
  })

  it('answers OPA errors for bad writes, and applies none of a failed PATCH', async () => {
    const badOp = await call('PATCH', '/v1/data/roles', '[{"op": "move", "path": "/dev"}]')
    expect(badOp.json).toEqual({ code: 'invalid_parameter', message: 'bad patch operation: move' })
    const partial = await call(
      'PATCH',
      '/v1/data/roles',
      '[{"op": "add", "path": "/x", "value": 1}, {"op": "remove", "path": "/missing"}]',
    )
    expect(partial.status).toBe(404)
    expect(partial.json.message).toBe('storage_not_found_error: /roles/missing: document does not exist')
    expect((await call('GET', '/v1/data/roles/x')).json).toEqual({})
    expect((await call('DELETE', '/v1/data/not/there')).status).toBe(404)
    const rule = await call('PUT', '/v1/data/authz/allow', 'true')
    expect(rule.status).toBe(400)
    expect(rule.json.message).toContain('conflicting rule for data path authz/allow found')
    const owned = await call('PUT', '/v1/data/bundled/limits/max', '1')
    expect(owned.status).toBe(400)
    expect(owned.json.message).toMatch(/^path bundled\/limits\/max is owned by bundle/)
    const through = await call('PUT', '/v1/data/big/inner', '1')
    expect(through).toMatchObject({ status: 404, json: { code: 'resource_conflict' } })
    expect((await call('PUT', '/v1/data/x', '{nope')).status).toBe(400)
  })
})

describe('regent run -s: compile endpoint', () => {
  it('mounts /v1/compile over the served policies, following policy changes', async () => {
    const accept = { Accept: 'application/vnd.opa.sql.postgresql+json' }
    const first = await call('POST', '/v1/compile/filters/include', '{"input": {"colour": "red"}}', accept)
    expect(first.json).toEqual({ result: { query: "WHERE fruits.colour = E'red'" } })
    await call('PUT', '/v1/policies/filters2.rego', 'package filters\n\ninclude if input.fruits.price < 5\n')
    const second = await call('POST', '/v1/compile/filters/include', '{"input": {"colour": "red"}}', accept)
    expect(second.json.result.query).toContain('fruits.price')
    await call('DELETE', '/v1/policies/filters2.rego')
  })
})

describe('regent run -s: the rest', () => {
  it('GET /v1/config and /v1/status answer minimal documents', async () => {
    const config = await call('GET', '/v1/config')
    expect(config.json.result).toMatchObject({
      default_decision: '/system/main',
      labels: { version: expect.any(String) },
    })
    const status = await call('GET', '/v1/status')
    expect(status.json.result.bundles[join(dir, 'bundle.tar.gz')]).toMatchObject({
      active_revision: 'rev-42',
    })
  })

  it('evaluates custom health checks under data.system.health', async () => {
    const res = await call('GET', '/health/live')
    expect(res.status).toBe(500)
    expect(res.json).toEqual({ error: 'health check (data.system.health.live) was undefined' })
  })

  it('answers 404 in OPA shape for unknown routes and 405 for other methods on known ones', async () => {
    const unknown = await call('GET', '/v2/nothing')
    expect(unknown.status).toBe(404)
    expect(unknown.json).toMatchObject({ code: 'resource_not_found' })
    expect((await call('PUT', '/v1/query')).status).toBe(405)
  })

  it('stops on SIGTERM with exit code 0', async () => {
    expect(await server.stop()).toBe(0)
  })
})

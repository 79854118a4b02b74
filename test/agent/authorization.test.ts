/**
 * `--authentication token` and `--authorization basic` on a real listener: OPA's input to
 * `data.system.authz.allow` (path, method, params, canonical headers, body for data POSTs,
 * identity), OPA's 401 body on deny, the object form with `reason`, and 500 when the policy is
 * missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bearerIdentity, rfc2253 } from '../../agent/authn.js'
import { DEFAULT_AUTHORIZATION_DECISION } from '../../agent/authz.js'
import { startTestAgent, type TestAgent } from './support/start-agent.js'

const AUTHZ = `package system.authz

default allow := false

# The admin token may do anything.
allow if input.identity == "secret-admin"

# Anyone may read data.public, and POST to it with an input that says please.
allow if {
  input.method == "GET"
  input.path[0] == "v1"
  input.path[2] == "public"
}

allow if {
  input.method == "POST"
  input.path == ["v1", "data", "public"]
  input.body.input.word == "please"
  input.headers["X-Caller"] == ["tests"]
  input.params.pretty == ["true"]
}
`

describe('authorization basic with token authentication', () => {
  let agent: TestAgent
  let url: string
  beforeAll(async () => {
    agent = await startTestAgent({
      policies: { 'authz.rego': AUTHZ, 'public.rego': 'package public\n\nhello := "world"\n' },
      server: { authentication: 'token', authorizationDecision: DEFAULT_AUTHORIZATION_DECISION },
    })
    url = agent.urls[0] as string
  })
  afterAll(() => agent.stop())

  it('answers 401 with OPA’s error body when the policy says no', async () => {
    const res = await fetch(`${url}/v1/data/system`)
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({
      code: 'unauthorized',
      message: 'request rejected by administrative policy',
    })
    const wrong = await fetch(`${url}/v1/policies`, { headers: { Authorization: 'Bearer nope' } })
    expect(wrong.status).toBe(401)
  })

  it('lets the bearer token through as input.identity', async () => {
    const res = await fetch(`${url}/v1/policies`, { headers: { Authorization: 'bearer secret-admin' } })
    expect(res.status).toBe(200)
    expect(((await res.json()) as { result: unknown[] }).result).toHaveLength(2)
  })

  it('passes path, method, params, canonical headers and the parsed body', async () => {
    expect((await fetch(`${url}/v1/data/public/hello`)).status).toBe(200)
    const post = (word: string) =>
      fetch(`${url}/v1/data/public?pretty=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-caller': 'tests' },
        body: JSON.stringify({ input: { word } }),
      })
    const allowed = await post('please')
    expect(allowed.status).toBe(200)
    expect(await allowed.json()).toEqual({ result: { hello: 'world' } })
    expect((await post('now')).status).toBe(401)
  })

  it('refuses a body that does not parse with 400 before asking the policy', async () => {
    const res = await fetch(`${url}/v1/data/public`, { method: 'POST', body: '{"input":' })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { code: string }).code).toBe('invalid_parameter')
  })
})

describe('authorization decisions of other shapes', () => {
  it('takes {allowed, reason} objects and answers 500 when the decision is undefined', async () => {
    const agent = await startTestAgent({
      policies: {
        'authz.rego': `package system.authz

allow := {"allowed": false, "reason": "maintenance window"} if input.path[0] == "v1"
allow := {"allowed": true} if input.path == ["health"]
`,
      },
      server: { authorizationDecision: DEFAULT_AUTHORIZATION_DECISION },
    })
    try {
      const url = agent.urls[0] as string
      const denied = await fetch(`${url}/v1/data`)
      expect(denied.status).toBe(401)
      expect(await denied.json()).toEqual({ code: 'unauthorized', message: 'maintenance window' })
      expect((await fetch(`${url}/health`)).status).toBe(200)
      const undefinedDecision = await fetch(`${url}/metrics`)
      expect(undefinedDecision.status).toBe(500)
      expect(await undefinedDecision.json()).toEqual({
        code: 'internal_error',
        message: 'authorization policy missing or undefined',
      })
    } finally {
      await agent.stop()
    }
  })
})

describe('identities', () => {
  it('reads bearer tokens as OPA does', () => {
    expect(bearerIdentity('Bearer abc def')).toEqual({ identity: 'abc def' })
    expect(bearerIdentity('BEARER x')).toEqual({ identity: 'x' })
    expect(bearerIdentity('Basic dXNlcg==')).toEqual({})
    expect(bearerIdentity('Bearer')).toEqual({})
    expect(bearerIdentity(undefined)).toEqual({})
  })

  it('writes certificate subjects most specific first, as Go', () => {
    expect(rfc2253('C=US\nO=Acme, Inc.\nCN=svc')).toBe('CN=svc,O=Acme\\, Inc.,C=US')
  })
})

/**
 * The server flags of `regent run -s` through the real CLI: token authentication with basic
 * authorization and a diagnostic listener in one process, and refusals that exit 2 naming the flag.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'
import { runRegent } from '../support/run-cli.js'

const AUTHZ = `package system.authz

default allow := false

allow if input.identity == opa.runtime().env.AGENT_TOKEN
`

describe('regent run -s with authentication, authorization and a diagnostic address', () => {
  let dir: string
  let server: RegentProcess
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'regent-run-agent-'))
    await writeFile(join(dir, 'authz.rego'), AUTHZ)
    server = await startRegent(
      [
        'run',
        '-s',
        '-a',
        '127.0.0.1:0',
        '--authentication',
        'token',
        '--authorization',
        'basic',
        '--diagnostic-addr',
        '127.0.0.1:0',
        '--log-format',
        'json',
        '--shutdown-grace-period',
        '2',
        join(dir, 'authz.rego'),
      ],
      { AGENT_TOKEN: 'agent-secret' },
    )
  })
  afterAll(async () => {
    await server?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it('refuses requests without the token and serves those with it', async () => {
    const denied = await fetch(`${server.url}/v1/data`)
    expect(denied.status).toBe(401)
    expect(await denied.json()).toEqual({
      code: 'unauthorized',
      message: 'request rejected by administrative policy',
    })
    const allowed = await fetch(`${server.url}/v1/policies`, {
      headers: { Authorization: 'Bearer agent-secret' },
    })
    expect(allowed.status).toBe(200)
  })

  it('answers health and metrics on the diagnostic address without a token', async () => {
    const line = server.logs.find((l) => l.msg === 'listening' && l.server === 'diagnostic')
    expect(line).toBeDefined()
    const diagnostic = String(line?.addr)
    expect(diagnostic).not.toBe(server.url)
    expect((await fetch(`${diagnostic}/health`)).status).toBe(200)
    expect(await (await fetch(`${diagnostic}/metrics`)).text()).toContain('http_request_duration_seconds')
  })

  it('stops with exit 0 on SIGTERM', async () => {
    expect(await server.stop()).toBe(0)
  })
})

describe.concurrent('regent run -s refusals (exit 2)', () => {
  it.each([
    [['--authentication', 'tls'], '--authentication tls needs --tls-cert-file'],
    [
      ['--tls-cert-file', 'c.pem', '--tls-private-key-file', 'k.pem', '--tls-cipher-suites', 'TLS_NOPE'],
      'unknown cipher suite "TLS_NOPE"',
    ],
    [['--authorization', 'rbac'], "argument 'rbac' is invalid"],
  ])('%j', async (flags, message) => {
    const result = await runRegent(['run', '-s', '-a', '127.0.0.1:0', ...flags])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
  })
})

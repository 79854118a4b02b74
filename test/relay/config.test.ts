import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { ConfigError, parseConfig } from '../../core/config.js'
import { resolveTargets } from '../../plugins/bundle/targets.js'
import { relayConfigSchema } from '../../relay/config.js'

const parse = (text: string, env: NodeJS.ProcessEnv = {}) => parseConfig(text, relayConfigSchema, { env })

function problems(text: string): string[] {
  try {
    parse(text)
  } catch (err) {
    if (err instanceof ConfigError) return err.problems
    throw err
  }
  throw new Error('expected a ConfigError')
}

describe('relay config', () => {
  it('takes an OPA agent config unchanged, with unknown OPA keys ignored', () => {
    const config = parse(`
services:
  - name: styra
    url: https://example.test/v1
    credentials: { bearer: { token: secret } }
labels: { system-id: abc, system-type: envoy }
discovery: { name: discovery, prefix: /systems/abc }
bundles:
  authz:
    service: styra
    persist: true
    polling: { min_delay_seconds: 10, max_delay_seconds: 20, long_polling_timeout_seconds: 30 }
    signing: { keyid: global }
keys:
  global: { key: "-----BEGIN PUBLIC KEY-----\\nabc\\n-----END PUBLIC KEY-----" }
decision_logs: { service: styra, reporting: { min_delay_seconds: 1 } }
status: { service: styra }
persistence_directory: /var/lib/opa
default_decision: main/main
`)
    expect(Object.keys(config.services)).toEqual(['styra'])
    expect(config.services.styra?.credentials?.bearer?.scheme).toBe('Bearer')
    expect(config.services.styra?.response_header_timeout_seconds).toBe(10)
    expect(config.bundles.authz?.size_limit_bytes).toBe(1024 ** 3)
    expect(config.bundles.authz?.signing?.exclude_files).toEqual([])
    expect(config.keys.global?.algorithm).toBe('RS256')
    expect(config.relay.addr).toBe('127.0.0.1:8282')
    expect(config.relay.storage).toEqual({ dir: './.regent/relay', persistent: false })
    expect(config.relay.agent_auth).toEqual({ type: 'none' })
  })

  it('accepts services as a map keyed by name', () => {
    const config = parse('services: { up: { url: "http://127.0.0.1:1/v1" } }')
    expect(config.services.up?.url).toBe('http://127.0.0.1:1/v1')
  })

  it('names the key of each problem', () => {
    expect(problems('services: [{ url: "http://x" }]')).toEqual([
      'services.0.name: a service in a list needs a name',
    ])
    expect(problems('services: { a: { url: "not a url" } }')[0]).toMatch(
      /^services\.a\.url: expected an absolute URL/,
    )
    expect(problems('bundles: { b: { polling: { min_delay_seconds: 5 } } }')[0]).toMatch(
      /^bundles\.b\.polling: min_delay_seconds and max_delay_seconds must be set together/,
    )
    expect(
      problems('bundles: { b: { polling: { min_delay_seconds: 5, max_delay_seconds: 2 } } }')[0],
    ).toMatch(/max_delay_seconds must not be less than min_delay_seconds/)
    expect(problems('relay: { adr: "x" }')).toEqual(['relay.adr: unknown key'])
    expect(problems('relay: { addr: "nowhere" }')[0]).toMatch(/^relay\.addr: expected HOST:PORT/)
    expect(problems('relay: { agent_auth: { type: magic } }')[0]).toMatch(
      /^relay\.agent_auth\.type: expected type none, bearer or mtls/,
    )
  })

  it('substitutes environment variables in the relay section and the OPA part', () => {
    const config = parse(
      'services: { s: { url: "${UP}", credentials: { bearer: { token: "${TOKEN}" } } } }\nrelay: { storage: { dir: "${DIR:-/tmp/r}" } }',
      { UP: 'http://127.0.0.1:9/v1', TOKEN: 't0k' },
    )
    expect(config.services.s?.url).toBe('http://127.0.0.1:9/v1')
    expect(config.services.s?.credentials?.bearer?.token).toBe('t0k')
    expect(config.relay.storage.dir).toBe('/tmp/r')
  })

  it('configures bearer and mtls agent auth', () => {
    expect(parse('relay: { agent_auth: { type: bearer, tokens: [a, b] } }').relay.agent_auth).toEqual({
      type: 'bearer',
      tokens: ['a', 'b'],
    })
    expect(problems('relay: { agent_auth: { type: mtls, cert: c.pem } }')[0]).toMatch(
      /^relay\.agent_auth\.private_key/,
    )
  })

  it('accepts the example Kubernetes relay config', () => {
    const configMap = parseYaml(
      readFileSync(new URL('../../deploy/kubernetes/relay-config.yaml', import.meta.url), 'utf8'),
    ) as {
      data: Record<string, string>
    }
    const config = parse(configMap.data['relay.yaml']!)
    expect(config.relay.storage).toEqual({ dir: '/var/lib/regent/relay', persistent: false })
    expect(resolveTargets(config).map((t) => t.resource)).toEqual(['bundles/systems/REPLACE-WITH-SYSTEM-ID'])
  })
})

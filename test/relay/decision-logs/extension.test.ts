import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from '../../../core/config.js'
import { createLogger } from '../../../core/log.js'
import { readDecisionLogsConfig, resolveUpstream } from '../../../relay/decision-logs/index.js'
import { type RelayContext, relayConfigSchema, ServiceClient } from '../../../relay/index.js'

const logger = createLogger({ level: 'silent' })
let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-dl-extension-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** A relay context from a config file's text: only what the decision-log part reads. */
function contextOf(yaml: string, overrides: Partial<RelayContext> = {}): RelayContext {
  const config = parseConfig(yaml, relayConfigSchema)
  const services = new Map(
    Object.entries(config.services).map(([name, s]) => [name, new ServiceClient(name, s)]),
  )
  return {
    config,
    services,
    logger,
    dataDir: join(dir, 'storage'),
    persistent: true,
    ...overrides,
  } as RelayContext
}

describe('relay.decision_logs config', () => {
  it('fills every default', () => {
    const config = readDecisionLogsConfig(undefined)
    expect(config).toMatchObject({
      enabled: true,
      intake: { paths: ['/v1/logs'], parse_workers: 1 },
      buffer: { max_bytes: 1024 ** 3, overflow: 'backpressure', sync: 'full', integrity_check: 'quick' },
      upload: { max_batch_bytes: 32 * 1024, timeout_ms: 10_000 },
      retry: { min_delay_ms: 100, max_delay_ms: 60_000, max_client_error_attempts: 5 },
      dead_letter: { max_events: 100_000 },
    })
  })

  it('names each bad key under relay.decision_logs', () => {
    let error: unknown
    try {
      readDecisionLogsConfig({ buffer: { sync: 'sometimes', max_bytes: -1 }, upload: { colour: 'red' } })
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(ConfigError)
    const problems = (error as ConfigError).problems.join('\n')
    expect(problems).toMatch(/relay\.decision_logs\.buffer\.sync: expected full or normal/)
    expect(problems).toMatch(/relay\.decision_logs\.buffer\.max_bytes: expected a positive integer/)
    expect(problems).toMatch(/relay\.decision_logs\.upload\.colour: unknown key/)
  })
})

describe('resolveUpstream', () => {
  const services = `services:
  - name: first
    url: http://127.0.0.1:1/v1/
  - name: second
    url: http://127.0.0.1:2
`
  it('uploads to the first service at /logs by default, as OPA does', () => {
    const target = resolveUpstream(contextOf(services), readDecisionLogsConfig({}))
    expect(target?.url).toBe('http://127.0.0.1:1/v1/logs')
  })

  it("follows OPA's decision_logs section, then relay.decision_logs.upload over it", () => {
    const opa = `${services}decision_logs:\n  service: second\n  partition_name: east\n`
    expect(resolveUpstream(contextOf(opa), readDecisionLogsConfig({}))?.url).toBe(
      'http://127.0.0.1:2/logs/east',
    )
    const ours = readDecisionLogsConfig({ upload: { service: 'first', resource: '/v1/ingest' } })
    expect(resolveUpstream(contextOf(opa), ours)?.url).toBe('http://127.0.0.1:1/v1/v1/ingest')
  })

  it('has no upstream without services, and refuses an unknown service name', () => {
    expect(resolveUpstream(contextOf('{}'), readDecisionLogsConfig({}))).toBeUndefined()
    expect(() =>
      resolveUpstream(contextOf(services), readDecisionLogsConfig({ upload: { service: 'third' } })),
    ).toThrow(/no service named "third"/)
  })
})

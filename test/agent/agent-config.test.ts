/**
 * The agent configuration of `regent run -s -c`: overrides typed as OPA's strvals, the http(s)
 * bundle URL shorthand, validation errors naming the key, and the settings refused by name.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { agentConfigDocument, loadAgentConfig } from '../../agent/config/load-agent-config.js'
import { applyOverrides, OverrideError } from '../../agent/config/overrides.js'
import { ConfigError } from '../../core/config.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-agent-config-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function file(name: string, text: string): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn()
  } catch (err) {
    if (err instanceof ConfigError) return err.problems
    throw err
  }
  throw new Error('expected a ConfigError')
}

describe('--set and --set-file', () => {
  it('types values as OPA does and creates the objects on the way', () => {
    const config = applyOverrides({ labels: { a: 'x' } }, [
      { flag: '--set', text: 'decision_logs.reporting.min_delay_seconds=5' },
      { flag: '--set', text: 'decision_logs.console=true' },
      { flag: '--set', text: 'labels.b=007x' },
      { flag: '--set', text: 'bundles.b\\.c.signing.exclude_files={a.json,b}' },
      { flag: '--set', text: 'default_decision=/x/y=z' },
    ])
    expect(config).toEqual({
      labels: { a: 'x', b: '007x' },
      decision_logs: { reporting: { min_delay_seconds: 5 }, console: true },
      bundles: { 'b.c': { signing: { exclude_files: ['a.json', 'b'] } } },
      default_decision: '/x/y=z',
    })
  })

  it('sets the text of a file with --set-file, and names a bad override', () => {
    const key = file('key.pem', '-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----\n')
    expect(applyOverrides({}, [{ flag: '--set-file', text: `keys.k.key=${key}` }])).toEqual({
      keys: { k: { key: '-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----\n' } },
    })
    expect(() => applyOverrides({}, [{ flag: '--set', text: 'novalue' }])).toThrow(
      '--set novalue: expected key=value',
    )
    expect(() => applyOverrides({ labels: 'x' }, [{ flag: '--set', text: 'labels.a=b' }])).toThrow(
      OverrideError,
    )
    expect(() => applyOverrides({}, [{ flag: '--set-file', text: 'a=/nonexistent' }])).toThrow(
      'cannot read /nonexistent: ENOENT',
    )
  })
})

describe('loadAgentConfig', () => {
  it('reads a file, applies overrides, and turns bundle URLs into services and persisted bundles', () => {
    const path = file(
      'agent.yaml',
      'services:\n  - name: svc\n    url: https://svc.example/v1\n    credentials: {bearer: {token: "${AGENT_TOKEN}"}}\nlabels: {team: a}\n',
    )
    const config = loadAgentConfig({
      file: path,
      overrides: [{ flag: '--set', text: 'decision_logs.service=svc' }],
      bundleUrls: ['https://cdn.example:8443/bundles/app.tar.gz?v=2', 'http://other.example/b'],
      env: { AGENT_TOKEN: 'secret' },
    })
    expect(config.services.svc?.credentials?.bearer?.token).toBe('secret')
    expect(config.services.cli1?.url).toBe('https://cdn.example:8443')
    expect(config.services.cli2?.url).toBe('http://other.example')
    expect(config.bundles.cli1).toMatchObject({
      service: 'cli1',
      resource: '/bundles/app.tar.gz?v=2',
      persist: true,
    })
    expect(config.bundles.cli2).toMatchObject({ service: 'cli2', resource: '/b', persist: true })
    expect(config.decision_logs?.service).toBe('svc')
    expect(config.decision_logs?.reporting.upload_size_limit_bytes).toBe(32768)
    expect(config.labels).toEqual({ team: 'a' })
    expect(config.default_decision).toBe('/system/main')
  })

  it('keeps the document as given (overrides and environment applied, no defaults) for opa.runtime', () => {
    const path = file('runtime.yaml', 'labels: {team: "${TEAM}"}\nservices: {s: {url: https://s.example}}\n')
    const document = agentConfigDocument({
      file: path,
      overrides: [{ flag: '--set', text: 'default_decision=/x/y' }],
      bundleUrls: [],
      env: { TEAM: 'a' },
    })
    expect(document).toEqual({
      labels: { team: 'a' },
      services: { s: { url: 'https://s.example' } },
      default_decision: '/x/y',
    })
  })

  it('names the key of every invalid value', () => {
    const path = file(
      'bad.yaml',
      [
        'services: {s: {url: "not a url"}}',
        'bundles:',
        '  b: {polling: {min_delay_seconds: 10, max_delay_seconds: 5}, persist: "yes"}',
        'decision_logs: {reporting: {upload_size_limit_bytes: -1}}',
      ].join('\n'),
    )
    const problems = problemsOf(() => loadAgentConfig({ file: path, overrides: [], bundleUrls: [] }))
    expect(problems.join('\n')).toContain('services.s.url: expected an absolute URL')
    expect(problems.join('\n')).toContain(
      'bundles.b.polling: max_delay_seconds must not be less than min_delay_seconds',
    )
    expect(problems.join('\n')).toContain('bundles.b.persist: expected true or false')
    expect(problems.join('\n')).toContain(
      'decision_logs.reporting.upload_size_limit_bytes: expected a positive integer',
    )
  })

  it.each([
    ['plugins: {my_plugin: {}}', 'plugins.my_plugin: custom plugins'],
    [
      'services: {s: {url: "http://x"}}\ndecision_logs: {service: t}',
      'decision_logs.service: no service named "t"',
    ],
    ['services: {s: {url: "http://x"}}\nstatus: {service: t}', 'status.service: no service named "t"'],
    [
      'services: {s: {url: "http://x"}}\ndecision_logs: {mask_decision: /system/log/mask}',
      'decision_logs.mask_decision',
    ],
    ['decision_logs: {}', 'decision_logs: no services are configured'],
    [
      'services: {s: {url: "http://x", credentials: {oauth2: {token_url: "http://t"}}}}',
      'services.s.credentials.oauth2: not supported by regent run',
    ],
    [
      'services: {s: {url: "http://x"}}\nbundles: {b: {resource: "file:///b.tar.gz"}}',
      'bundles.b.resource: file://',
    ],
    ['services: {s: {url: "http://x"}}\nbundles: {b: {trigger: manual}}', 'bundles.b.trigger: manual needs'],
  ])('refuses %j by name', (yaml, message) => {
    const path = file('refused.yaml', yaml)
    expect(
      problemsOf(() => loadAgentConfig({ file: path, overrides: [], bundleUrls: [] })).join('\n'),
    ).toContain(message)
  })

  it('names a file it cannot read, and YAML that is not a mapping', () => {
    expect(
      problemsOf(() => loadAgentConfig({ file: join(dir, 'missing.yaml'), overrides: [], bundleUrls: [] })),
    ).toEqual(['cannot read the file: ENOENT'])
    const list = file('list.yaml', '- a\n- b\n')
    expect(problemsOf(() => loadAgentConfig({ file: list, overrides: [], bundleUrls: [] }))).toEqual([
      '(root): expected a mapping of keys',
    ])
  })
})

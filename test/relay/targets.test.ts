import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../core/config.js'
import { resolveTargets } from '../../plugins/bundle/targets.js'
import { relayConfigSchema } from '../../relay/config.js'

const targetsOf = (yaml: string) => resolveTargets(parseConfig(yaml, relayConfigSchema, { env: {} }))

describe('resolveTargets', () => {
  it('resolves resources and services as an OPA agent does', () => {
    const [discovery, authz, other] = targetsOf(`
services: { up: { url: "http://u/v1" } }
discovery: { name: discovery, prefix: /systems/abc }
bundles:
  authz: {}
  other: { resource: /custom/path/ , polling: { min_delay_seconds: 1, max_delay_seconds: 2, long_polling_timeout_seconds: 9 } }
`)
    expect(discovery).toMatchObject({
      kind: 'discovery',
      resource: 'systems/abc/discovery',
      service: 'up',
      required: true,
    })
    expect(authz).toMatchObject({
      kind: 'bundle',
      name: 'authz',
      resource: 'bundles/authz',
      minDelaySeconds: 60,
      maxDelaySeconds: 120,
    })
    expect(authz?.verification).toBeUndefined()
    expect(other).toMatchObject({
      resource: 'custom/path',
      minDelaySeconds: 1,
      maxDelaySeconds: 2,
      longPollingTimeoutSeconds: 9,
    })
  })

  it('uses discovery.resource when given and the legacy bundles/ prefix otherwise', () => {
    expect(
      targetsOf('services: { up: { url: "http://u" } }\ndiscovery: { resource: /systems/x/discovery }')[0]
        ?.resource,
    ).toBe('systems/x/discovery')
    expect(targetsOf('services: { up: { url: "http://u" } }\ndiscovery: { name: disco }')[0]?.resource).toBe(
      'bundles/disco',
    )
  })

  it('requires signatures only with a signing block, and always carries the global keys', () => {
    const [withSigning, keysOnly] = targetsOf(`
services: { up: { url: "http://u" } }
keys: { k1: { key: secret, algorithm: HS256, scope: write } }
bundles:
  a: { signing: { scope: read, exclude_files: [README.md] } }
  b: {}
`)
    expect(withSigning?.verification).toEqual({
      signatureRequired: true,
      config: {
        keys: { k1: { key: 'secret', algorithm: 'HS256', scope: 'write' } },
        keyId: undefined,
        scope: 'read',
        excludeFiles: ['README.md'],
      },
    })
    expect(keysOnly?.verification?.signatureRequired).toBe(false)
  })

  it('names the key when services are missing, ambiguous or unknown, or resources collide', () => {
    expect(() => targetsOf('bundles: { a: {} }')).toThrow('bundles.a: no services are configured')
    expect(() =>
      targetsOf('services: { x: { url: "http://x" }, y: { url: "http://y" } }\nbundles: { a: {} }'),
    ).toThrow('bundles.a.service: required when several services are configured (x, y)')
    expect(() => targetsOf('services: { x: { url: "http://x" } }\nbundles: { a: { service: z } }')).toThrow(
      'bundles.a.service: no service named "z" (services: x)',
    )
    expect(() =>
      targetsOf(
        'services: { x: { url: "http://x" } }\nbundles: { a: { resource: r }, b: { resource: /r/ } }',
      ),
    ).toThrow('bundles.b: resource "r" is also used by bundles.a')
    expect(() =>
      targetsOf('services: { x: { url: "http://x" } }\nbundles: { a: { resource: "file:///tmp/b.tar.gz" } }'),
    ).toThrow(/file:\/\/ bundles are local/)
  })
})

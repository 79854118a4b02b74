import { describe, expect, it } from 'vitest'
import {
  bundleRegistrySchema,
  expandPath,
  keyProblem,
  registryConfigOf,
} from '../../../service/registry/registry-config.js'

const s3 = { region: 'eu-west-1', bucket: 'my-bundles', access_keys: 'aws/keys' }

describe('bundle_registry config', () => {
  it('applies the documented defaults', () => {
    expect(bundleRegistrySchema.parse({ distribution_s3: s3 })).toEqual({
      distribution_s3: {
        ...s3,
        policy_path: 'systems/{system_id}/bundle.tar.gz',
        discovery_path: 'systems/{system_id}/discovery.tar.gz',
      },
      max_bundles: 100,
      max_deployed_bundles: 10,
      manual_deployment: false,
    })
  })

  it('expands the template variables', () => {
    const values = { system_id: 'abc', system_name: 'shop', system_type: 'envoy' }
    expect(expandPath('{system_type}/{system_name}/{system_id}.tar.gz', values)).toBe('envoy/shop/abc.tar.gz')
  })

  it('refuses object keys that S3 or a reader would misplace', () => {
    expect(keyProblem('a/b.tar.gz')).toBeUndefined()
    for (const key of ['', '/a', 'a//b', 'a/../b', 'a/./b', 'a\u0000b', 'x'.repeat(1025)]) {
      expect(keyProblem(key), JSON.stringify(key)).toBeDefined()
    }
  })

  it('reads a stored config, and treats null or an unparsable one as none', () => {
    expect(
      registryConfigOf(JSON.stringify({ bundle_registry: { distribution_s3: s3 } }))?.distribution_s3.bucket,
    ).toBe('my-bundles')
    expect(registryConfigOf(JSON.stringify({ bundle_registry: null }))).toBeUndefined()
    expect(registryConfigOf(JSON.stringify({}))).toBeUndefined()
    expect(registryConfigOf('{not json')).toBeUndefined()
  })
})

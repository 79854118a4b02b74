import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Bundle } from '../../core/bundle/index.js'
import { createLogger } from '../../core/log.js'
import { BundleBuilder, type BundleSigner, STATUS_BUILD_FAILED } from '../../service/bundle-builder.js'
import { BundleWatch } from '../../service/bundle-watch.js'
import { createServiceMetrics } from '../../service/metrics.js'
import { defaultModuleValidator } from '../../service/policy-validation.js'
import { createdBy, ServiceStore } from '../../store/service/index.js'

const actor = { by: 'test', through: 'api' }

describe('BundleBuilder failures', () => {
  let dir: string
  let store: ServiceStore
  let signing: 'ok' | 'broken'
  let builder: BundleBuilder
  const logs: string[] = []

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-builder-'))
    store = await ServiceStore.open({ url: join(dir, 'service.db') })
    signing = 'ok'
    const signer: BundleSigner = {
      publishedKey: { keyId: 'k', algorithm: 'HS256', key: 'secret' },
      async sign(bundle: Bundle) {
        if (signing === 'broken') throw new Error('the signing key is unreadable')
        return bundle
      },
    }
    const destination = new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk))
        done()
      },
    })
    builder = new BundleBuilder({
      store,
      watch: new BundleWatch({ readRevision: async () => undefined, recheckMs: null }),
      metrics: createServiceMetrics(),
      logger: createLogger({ level: 'debug', destination, pretty: false }),
      validateModule: defaultModuleValidator,
      signer,
    })
    await store.systems.insert({
      id: 's1',
      name: 'one',
      type: 'custom',
      config: '{}',
      status: 'Pending',
      status_errors: null,
      content_version: 0,
      ...createdBy(actor),
    })
  })
  afterEach(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const putPolicy = async (path: string, modules: Record<string, string>) => {
    await store.policies.upsert({
      path,
      system_id: 's1',
      modules: JSON.stringify(modules),
      ...createdBy(actor),
    })
    await store.systems.bumpContentVersion('s1')
    return builder.rebuild('s1')
  }

  it('keeps the last good bundle and names the error when signing fails (never Ready)', async () => {
    const good = await putPolicy('systems/s1/a', { 'a.rego': 'package a\n\nallow if input.x == 1\n' })
    expect(good?.status).toBe('Ready')
    const served = await store.bundles.revision('s1', 'policy')
    expect(served).toBe(good?.revision)

    signing = 'broken'
    const failed = await putPolicy('systems/s1/a', { 'a.rego': 'package a\n\nallow if input.x == 2\n' })
    expect(failed).toEqual({ status: STATUS_BUILD_FAILED, errors: [expect.stringMatching(/unreadable/)] })
    const system = await store.systems.get('s1')
    expect(system?.status).toBe(STATUS_BUILD_FAILED)
    expect(system?.status_errors).toMatch(/bundle build failed: the signing key is unreadable/)
    expect(await store.bundles.revision('s1', 'policy')).toBe(served)

    signing = 'ok'
    expect(
      (await putPolicy('systems/s1/a', { 'a.rego': 'package a\n\nallow if input.x == 3\n' }))?.status,
    ).toBe('Ready')
  })

  it('refuses to build a module set that does not compile, naming file, line and column', async () => {
    const good = await putPolicy('systems/s1/lib', { 'lib.rego': 'package lib\n\nok(x) if x > 1\n' })
    await putPolicy('systems/s1/main', {
      'main.rego': 'package main\n\nimport data.lib\n\nallow if lib.ok(input.n)\n',
    })
    const served = await store.bundles.revision('s1', 'policy')
    expect(served).not.toBe(good?.revision)
    // Deleting the library leaves main calling a function that no longer exists.
    await store.policies.delete('systems/s1/lib')
    await store.systems.bumpContentVersion('s1')
    const outcome = await builder.rebuild('s1')
    expect(outcome?.status).toBe(STATUS_BUILD_FAILED)
    expect(outcome?.errors[0]).toMatch(/^systems\/s1\/main\/main\.rego:5:\d+: rego_\w+_error: /)
    expect(await store.bundles.revision('s1', 'policy')).toBe(served)
  })
})

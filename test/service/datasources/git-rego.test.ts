/**
 * The `git/rego` category against real repositories (git, file:// remotes): a `.tar.gz` bundle
 * file's data lands in the system's bundle at the datasource's place, new commits are picked up,
 * and a tampered, oversized or path-escaping tarball fails the run with a clear status while the
 * last good data stays. SQLite and (when configured) PostgreSQL.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import { makeOrigin, type Origin, tempDir } from '../git/fixtures.js'
import { startTestService, type TestService } from '../harness.js'
import { goodBundle, rawTarball, tamperedBundle } from './bundle-tarballs.js'

// Small enough that the oversized cases stay small on disk.
const MAX_BYTES = 64 * 1024

interface Status {
  code: string
  message: string
  items: number | null
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`git/rego datasources on ${backend.name}`, () => {
    let t: TestService
    let root: string
    let origin: Origin

    const put = (name: string, config: Record<string, unknown>) =>
      t.json<{ result: Record<string, unknown>; message?: string }>(
        'PUT',
        `/v1/datasources/systems/app/${name}`,
        {
          body: {
            category: 'git/rego',
            url: `file://${origin.bare}`,
            reference: 'refs/heads/main',
            ...config,
          },
        },
      )
    const run = async (name: string) => {
      const res = await t.json<{ result: Status; message?: string }>(
        'POST',
        `/v1/datasources/systems/app/${name}`,
      )
      expect(res.status, res.body.message).toBe(200)
      return res.body.result
    }
    const systemBundle = async () =>
      readBundle(new Uint8Array(await (await t.call('GET', '/v1/bundles/systems/app')).arrayBuffer()))
    const bundleData = async () => (await systemBundle()).data as Record<string, unknown>

    beforeAll(async () => {
      root = tempDir()
      origin = makeOrigin(root, {
        'bundles/app.tar.gz': await goodBundle({ users: { alice: { role: 'admin' } }, regions: ['eu'] }),
        'bundle.tar.gz': await goodBundle({ flag: true }),
      })
      t = await startTestService(
        backend,
        `datasources: {scheduler_interval: 1h, max_bytes_per_run: ${MAX_BYTES}}`,
      )
      await t.json('PUT', '/v1/systems/app', {
        body: { name: 'app', type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
    })
    afterAll(async () => {
      await t?.close()
      rmSync(root, { recursive: true, force: true })
    })

    it("puts the bundle file's data at the datasource's place; its policies are not loaded", async () => {
      const res = await put('policy', { path: 'bundles/app.tar.gz' })
      expect(res.status, res.body.message).toBe(200)
      expect(res.body.result).toMatchObject({ timeout: '60s', rate_limit: 3, polling_interval: '30s' })
      expect(await run('policy')).toMatchObject({ code: 'ok', items: 2 })
      const bundle = await systemBundle()
      expect((bundle.data as Record<string, unknown>).policy).toEqual({
        users: { alice: { role: 'admin' } },
        regions: ['eu'],
      })
      expect(bundle.modules.map((m) => m.source).join('\n')).not.toContain('package authz')
    })

    it('reads bundle.tar.gz when path is not given, and picks up a new commit', async () => {
      expect((await put('default', {})).status).toBe(200)
      expect(await run('default')).toMatchObject({ code: 'ok' })
      expect((await bundleData()).default).toEqual({ flag: true })
      origin.push({ 'bundles/app.tar.gz': await goodBundle({ users: { bob: { role: 'viewer' } } }) })
      expect(await run('policy')).toMatchObject({ code: 'ok', items: 1 })
      expect((await bundleData()).policy).toEqual({ users: { bob: { role: 'viewer' } } })
    })

    it.each([
      [
        'a tampered tarball',
        () => tamperedBundle(),
        /^bundle error: bundles\/app\.tar\.gz: bundle_archive_invalid: /,
      ],
      [
        'an entry escaping the root',
        () => rawTarball({ '../../etc/data.json': '{"users": {"mallory": {}}}' }),
        /^bundle error: bundles\/app\.tar\.gz: bundle_entry_unsafe: bundle entry "..\/..\/etc\/data.json" has a \.\. segment/,
      ],
      [
        'a file inflating past the byte limit',
        () => rawTarball({ 'data.json': JSON.stringify({ pad: 'x'.repeat(2 * MAX_BYTES) }) }),
        /^bundle error: bundles\/app\.tar\.gz: bundle_size_limit: /,
      ],
      [
        'a tarball larger than the byte limit',
        async () => Buffer.from(Array.from({ length: 2 * MAX_BYTES }, (_, i) => (i * 7919) % 251)),
        new RegExp(
          `^size limit: bundles/app\\.tar\\.gz is ${2 * MAX_BYTES} bytes, more than ${MAX_BYTES} bytes`,
        ),
      ],
    ])('refuses %s and keeps the last good data', async (_what, tarball, message) => {
      origin.push({ 'bundles/app.tar.gz': await tarball() })
      const failed = await run('policy')
      expect(failed.code).toBe('error')
      expect(failed.message).toMatch(message)
      expect((await bundleData()).policy).toEqual({ users: { bob: { role: 'viewer' } } })
    })

    it('fails on a missing file or a folder, naming path', async () => {
      await put('missing', { path: 'nosuch.tar.gz' })
      expect((await run('missing')).message).toMatch(
        /^git error: path_not_found \(path\): nosuch\.tar\.gz is not in commit [0-9a-f]{40}$/,
      )
      await put('folder', { path: 'bundles' })
      expect((await run('folder')).message).toBe('config error: path: bundles is a tree, not a bundle file')
      await put('escape', { path: '../outside.tar.gz' })
      expect((await run('escape')).message).toBe(
        'config error: path: "../outside.tar.gz" has a . or .. segment',
      )
    })

    it('refuses unknown fields at PUT, naming them', async () => {
      const res = await put('bad', { path: 'bundle.tar.gz', policy_query: 'data.x' })
      expect(res.status).toBe(400)
      expect(res.body.message).toContain('policy_query')
    })
  })
}

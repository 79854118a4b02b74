/**
 * The `policy-library` category on SQLite and (when configured) PostgreSQL: a library's modules
 * land in the importing system's bundle at `libraries/<id>/…` and a system policy can call them;
 * a library change reaches the bundle without waiting a polling interval; a change that breaks
 * the system fails the run with the compiler's error and keeps the last good copy; DELETE of the
 * datasource takes the modules out of the bundle; ids and missing libraries are refused at PUT.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import { makeOrigin, tempDir } from '../git/fixtures.js'
import { startTestService, type TestService } from '../harness.js'

interface Status {
  code: string
  message: string
  items: number | null
}

const LIB_V1 = 'package libraries.common\n\nsplit_url(url) := split(trim(url, "/"), "/")\n'
const LIB_V2 = 'package libraries.common\n\nsplit_url(url) := split(trim(url, "/"), "/")\n\nversion := 2\n'
const BROKEN = 'package libraries.common\n\nrenamed(url) := split(url, "/")\n'
const SYSTEM_POLICY = 'package authz\n\nallow if data.libraries.common.split_url(input.path)[0] == "dogs"\n'

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`policy-library datasources on ${backend.name}`, () => {
    let t: TestService
    const DS = '/v1/datasources/systems/app/libraries/common'

    const run = async () => {
      const res = await t.json<{ result: Status; message?: string }>('POST', DS)
      expect(res.status, res.body.message).toBe(200)
      return res.body.result
    }
    const bundleModules = async (system = 'app') => {
      const bytes = new Uint8Array(await (await t.call('GET', `/v1/bundles/systems/${system}`)).arrayBuffer())
      const bundle = await readBundle(bytes)
      return Object.fromEntries(bundle.modules.map((m) => [m.path.replace(/^\//, ''), m.source]))
    }
    const putLibrary = (source: string) =>
      t.json<{ message?: string }>('PUT', '/v1/libraries/common', {
        body: { modules: { 'url.rego': source } },
      })

    beforeAll(async () => {
      t = await startTestService(
        backend,
        '{datasources: {scheduler_interval: 1h}, git: {poll_interval: "0"}}',
      )
      await t.json('PUT', '/v1/systems/app', {
        body: { name: 'app', type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
      expect((await putLibrary(LIB_V1)).status).toBe(200)
    })
    afterAll(async () => t?.close())

    it('refuses ids not of the form systems/<sys>/libraries/<lib> and libraries that do not exist', async () => {
      const wrongId = await t.json<{ message: string }>('PUT', '/v1/datasources/systems/app/common', {
        body: { category: 'policy-library' },
      })
      expect(wrongId.status).toBe(400)
      expect(wrongId.body.message).toContain(
        'a policy-library datasource is systems/<system>/libraries/<library>',
      )
      const workspace = await t.json('PUT', '/v1/datasources/libraries/common', {
        body: { category: 'policy-library' },
      })
      expect(workspace.status).toBe(400)
      const missing = await t.json<{ message: string }>(
        'PUT',
        '/v1/datasources/systems/app/libraries/nosuch',
        {
          body: { category: 'policy-library' },
        },
      )
      expect(missing.status).toBe(400)
      expect(missing.body.message).toContain('library "nosuch" does not exist')
      const extra = await t.json<{ message: string }>('PUT', DS, {
        body: { category: 'policy-library', url: 'https://example.com' },
      })
      expect(extra.status).toBe(400)
      expect(extra.body.message).toContain('unknown field url')
    })

    it('lets only a caller who may read the library import it', async () => {
      const created = await t.json('PUT', '/v1/tokens/app-owner', { body: { description: 'owns app' } })
      const owner = created.body.result as string
      const bind = (role: string, resource: { kind: string; id: string }) =>
        t.json('POST', '/v2/authz/rolebindings', {
          body: { resource_filter: resource, role_id: role, subjects: [{ kind: 'token', id: 'app-owner' }] },
        })
      expect((await bind('SystemOwner', { kind: 'system', id: 'app' })).status).toBe(200)
      const refused = await t.json<{ message: string }>('PUT', DS, {
        token: owner,
        body: { category: 'policy-library' },
      })
      expect(refused.status).toBe(403)
      expect(refused.body.message).toContain('may not libraries.read on library common')
      expect((await t.json('GET', DS)).status).toBe(404)
      expect((await bind('LibraryViewer', { kind: 'library', id: 'common' })).status).toBe(200)
      const allowed = await t.json('PUT', DS, { token: owner, body: { category: 'policy-library' } })
      expect(allowed.status).toBe(200)
    })

    it("copies the library's modules into the system's bundle, where the system's policies call them", async () => {
      const put = await t.json<{ result: Record<string, unknown>; message?: string }>('PUT', DS, {
        body: { category: 'policy-library' },
      })
      expect(put.status, put.body.message).toBe(200)
      expect(put.body.result).toMatchObject({
        polling_interval: '30s',
        enabled: true,
        resources: [
          {
            kind: 'policy',
            path: '/v1/policies/systems/app/libraries/common',
            system: 'app',
            library: '/v1/libraries/common',
          },
        ],
      })
      expect(await run()).toMatchObject({ code: 'ok', items: 1 })
      const policy = await t.json<{ message?: string }>('PUT', '/v1/policies/systems/app/rules', {
        body: { modules: { 'authz.rego': SYSTEM_POLICY } },
      })
      expect(policy.status, policy.body.message).toBe(200)
      const modules = await bundleModules()
      expect(modules['libraries/common/url.rego']).toBe(LIB_V1)
      expect(modules['rules/authz.rego']).toBe(SYSTEM_POLICY)
      const system = await t.json<{ result: { status: string } }>('GET', '/v1/systems/app')
      expect(system.body.result.status).toBe('Ready')
      // The copy is visible as the system's policy at the datasource's id, written by the datasource.
      const copy = await t.json<{ result: { metadata: { last_modified_by: string } } }>(
        'GET',
        '/v1/policies/systems/app/libraries/common',
      )
      expect(copy.body.result.metadata.last_modified_by).toBe('datasource:systems/app/libraries/common')
    })

    it('takes a library change into the bundle without waiting for the polling interval', async () => {
      expect((await putLibrary(LIB_V2)).status).toBe(200)
      // The library PUT starts the importing datasources' runs; bounded wait for the rebuild.
      const deadline = Date.now() + 10_000
      let modules = await bundleModules()
      while (modules['libraries/common/url.rego'] !== LIB_V2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        modules = await bundleModules()
      }
      expect(modules['libraries/common/url.rego']).toBe(LIB_V2)
    })

    it('fails a run whose modules break the system, keeping the last good copy', async () => {
      expect((await putLibrary(BROKEN)).status).toBe(200)
      const status = await run()
      expect(status.code).toBe('error')
      expect(status.message).toMatch(
        /^compile error: the library does not compile with system app's policies: systems\/app\/rules\/authz\.rego:3:\d+: rego_type_error: undefined function data\.libraries\.common\.split_url/,
      )
      expect((await bundleModules())['libraries/common/url.rego']).toBe(LIB_V2)
      const ds = await t.json<{ result: { status: Status } }>('GET', DS)
      expect(ds.body.result.status.code).toBe('error')
      expect((await putLibrary(LIB_V1)).status).toBe(200)
      expect(await run()).toMatchObject({ code: 'ok' })
      expect((await bundleModules())['libraries/common/url.rego']).toBe(LIB_V1)
    })

    it('refuses to delete an imported library; deleting the datasource takes its modules out', async () => {
      const refused = await t.json<{ message: string }>('DELETE', '/v1/libraries/common')
      expect(refused.status).toBe(409)
      expect(refused.body.message).toContain('imported by datasource systems/app/libraries/common')
      expect((await t.json('DELETE', '/v1/policies/systems/app/rules')).status).toBe(200)
      expect((await t.json('DELETE', DS)).status).toBe(200)
      const modules = await bundleModules()
      expect(Object.keys(modules).filter((path) => path.startsWith('libraries/'))).toEqual([])
      expect((await t.json('GET', '/v1/policies/systems/app/libraries/common')).status).toBe(404)
      expect((await t.json('DELETE', '/v1/libraries/common')).status).toBe(200)
    })

    it("imports a library into a system built from git: the copy joins the repository's modules", async () => {
      const root = tempDir()
      try {
        const origin = makeOrigin(root, { 'policies/authz.rego': SYSTEM_POLICY })
        origin.push({})
        expect((await putLibrary(LIB_V1)).status).toBe(200)
        const created = await t.json<{ result: { id: string }; message?: string }>('POST', '/v1/systems', {
          body: {
            name: 'gitapp',
            type: 'custom',
            source_control: {
              origin: {
                url: `file://${origin.bare}`,
                reference: 'main',
                commit: '',
                path: 'policies',
                credentials: '',
              },
            },
          },
        })
        expect(created.status, created.body.message).toBe(200)
        const id = created.body.result.id
        const status = async () =>
          (await t.json<{ result: { status: string } }>('GET', `/v1/systems/${id}`)).body.result.status
        // The repository's policy calls the library, which the system does not import yet.
        await t.json('POST', `/v1/systems/${id}/source-control/sync`)
        expect(await status()).toBe('BundleBuildFailed')
        const ds = `/v1/datasources/systems/${id}/libraries/common`
        expect((await t.json('PUT', ds, { body: { category: 'policy-library' } })).status).toBe(200)
        expect((await t.json<{ result: Status }>('POST', ds)).body.result).toMatchObject({ code: 'ok' })
        expect(await status()).toBe('Ready')
        const modules = await bundleModules(id)
        expect(modules['libraries/common/url.rego']).toBe(LIB_V1)
        expect(modules['authz.rego']).toBe(SYSTEM_POLICY)
      } finally {
        rmSync(root, { recursive: true, force: true })
      }
    })
  })
}

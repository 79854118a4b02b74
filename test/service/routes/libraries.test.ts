/**
 * `/v1/libraries` on SQLite and (when configured) PostgreSQL: create, read, list, replace and
 * delete a library; validation (ids, module names, parse errors and packages outside
 * `data.libraries.<id>`, all with module:line); create-only PUT; every change recorded in the
 * activity log; LibraryOwner / LibraryViewer bound on one library, WorkspaceViewer everywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ActivityData } from '../../../service/activity/record.js'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

interface Library {
  id: string
  description: string
  modules: Record<string, string>
  metadata: Record<string, string>
}

const HELPERS = 'package libraries.common\n\nsplit_url(url) := split(trim(url, "/"), "/")\n'
const CONSTANTS = 'package libraries.common.limits\n\nmax_items := 10\n'

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`/v1/libraries on ${backend.name}`, () => {
    let t: TestService
    const put = (
      id: string,
      body: unknown,
      options: { token?: string; headers?: Record<string, string> } = {},
    ) =>
      t.json<{ result: Library; message?: string; errors?: string[] }>('PUT', `/v1/libraries/${id}`, {
        body,
        ...options,
      })

    async function tokenWithRole(id: string, role: string, resource: { kind: string; id: string }) {
      const created = await t.json('PUT', `/v1/tokens/${id}`, { body: { description: role } })
      expect(created.status).toBe(200)
      const bound = await t.json('POST', '/v2/authz/rolebindings', {
        body: { resource_filter: resource, role_id: role, subjects: [{ kind: 'token', id }] },
      })
      expect(bound.status, JSON.stringify(bound.body)).toBe(200)
      return created.body.result as string
    }

    beforeAll(async () => {
      t = await startTestService(backend)
    })
    afterAll(async () => t?.close())

    it('stores a library and answers it with its metadata', async () => {
      const res = await put('common', {
        description: 'shared helpers',
        modules: { 'url.rego': HELPERS, 'limits/limits.rego': CONSTANTS },
      })
      expect(res.status, res.body.message).toBe(200)
      expect(res.body.result).toMatchObject({
        id: 'common',
        description: 'shared helpers',
        modules: { 'url.rego': HELPERS, 'limits/limits.rego': CONSTANTS },
        metadata: { created_by: 'admin', created_through: 'api', last_modified_by: 'admin' },
      })
      const got = await t.json<{ result: Library }>('GET', '/v1/libraries/common')
      expect(got.status).toBe(200)
      expect(got.body.result).toEqual(res.body.result)
      // A GET answer sent back unchanged is a valid PUT (metadata ignored, id matching).
      const again = await put('common', got.body.result)
      expect(again.status, again.body.message).toBe(200)
      expect(again.body.result.metadata.created_at).toBe(got.body.result.metadata.created_at)
    })

    it('lists libraries by id and deletes them', async () => {
      expect((await put('zeta', { modules: {} })).status).toBe(200)
      const list = await t.json<{ result: Library[] }>('GET', '/v1/libraries')
      expect(list.body.result.map((l) => l.id)).toEqual(['common', 'zeta'])
      expect((await t.json('DELETE', '/v1/libraries/zeta')).status).toBe(200)
      expect((await t.json('GET', '/v1/libraries/zeta')).status).toBe(404)
      expect((await t.json('DELETE', '/v1/libraries/zeta')).status).toBe(404)
    })

    it('creates only with If-None-Match: *', async () => {
      const res = await put('common', { modules: {} }, { headers: { 'If-None-Match': '*' } })
      expect(res.status).toBe(409)
      expect(
        (await t.json<{ result: Library }>('GET', '/v1/libraries/common')).body.result.modules,
      ).toHaveProperty('url.rego')
    })

    it('refuses bad ids, module names, parse errors and packages outside the namespace, naming module and line', async () => {
      const badId = await put('bad-id', { modules: {} })
      expect(badId.status).toBe(400)
      expect(badId.body.message).toContain('invalid library id "bad-id"')
      expect((await put('1abc', { modules: {} })).status).toBe(400)

      const parse = await put('broken', { modules: { 'a.rego': 'package libraries.broken\n\nallow if {\n' } })
      expect(parse.status).toBe(400)
      expect(parse.body.message).toMatch(/broken\/a\.rego:\d+:\d+: rego_parse_error/)

      const outside = await put('sneaky', {
        modules: {
          'ok.rego': 'package libraries.sneaky\n\nx := 1\n',
          'evil.rego': '# header\npackage authz\n\nallow := true\n',
        },
      })
      expect(outside.status).toBe(400)
      expect(outside.body.message).toContain(
        'sneaky/evil.rego:2: package authz is outside data.libraries.sneaky',
      )
      const otherLibrary = await put('sneaky', {
        modules: { 'a.rego': 'package libraries.common\n\ny := 1\n' },
      })
      expect(otherLibrary.status).toBe(400)
      expect(otherLibrary.body.message).toContain('is outside data.libraries.sneaky')

      const name = await put('named', { modules: { '../x.rego': 'package libraries.named\n' } })
      expect(name.status).toBe(400)
      expect(name.body.message).toContain('a module file name is a relative path ending in .rego')
      expect((await put('named', { modules: { 'x.json': 'package libraries.named\n' } })).status).toBe(400)

      const compile = await put('compiles', {
        modules: {
          'a.rego': 'package libraries.compiles\n\nf(x) := y if {\n\ty := data.libraries.common.nope(x)\n}\n',
        },
      })
      expect(compile.status).toBe(400)
      expect(compile.body.message).toMatch(/compiles\/a\.rego:4:\d+: rego_type_error: undefined function/)
      // A library may call another library's functions.
      const calls = await put('compiles', {
        modules: {
          'a.rego': 'package libraries.compiles\n\nparts := data.libraries.common.split_url("/a/b")\n',
        },
      })
      expect(calls.status, calls.body.message).toBe(200)

      // Hostile shapes: not an object, too many modules, a source that is not text.
      expect((await put('fields', [])).status).toBe(400)
      const many = Object.fromEntries(
        Array.from({ length: 1001 }, (_, i) => [`m${i}.rego`, 'package libraries.fields\n']),
      )
      const tooMany = await put('fields', { modules: many })
      expect(tooMany.status).toBe(400)
      expect(tooMany.body.message).toContain('at most 1000 modules')
      expect((await put('fields', { modules: { 'a.rego': 42 } })).status).toBe(400)
      const unknown = await put('fields', { modules: {}, owner: 'me' })
      expect(unknown.status).toBe(400)
      expect(unknown.body.message).toContain('unknown field owner')
      expect((await put('fields', { description: 'no modules' })).status).toBe(400)
      for (const id of ['broken', 'sneaky', 'named', 'fields'])
        expect((await t.json('GET', `/v1/libraries/${id}`)).status).toBe(404)
    })

    it('records every change in the activity log', async () => {
      const res = await t.call('PUT', '/v1/libraries/audited', {
        body: { modules: {} },
        headers: { 'X-Request-Id': 'lib-audit-1' },
      })
      expect(res.status).toBe(200)
      const del = await t.call('DELETE', '/v1/libraries/audited', {
        headers: { 'X-Request-Id': 'lib-audit-2' },
      })
      expect(del.status).toBe(200)
      for (const [id, method] of [
        ['lib-audit-1', 'PUT'],
        ['lib-audit-2', 'DELETE'],
      ] as const) {
        const record = await t.json<{ results: ActivityData }>('GET', `/v2/activity/${id}`)
        expect(record.status).toBe(200)
        expect(record.body.results.request).toMatchObject({ method, path: '/v1/libraries/audited' })
        expect(record.body.results.response.status_code).toBe(200)
      }
    })

    it('lets LibraryOwner manage its library only, LibraryViewer read it, WorkspaceViewer read all', async () => {
      expect((await put('other', { modules: {} })).status).toBe(200)
      const owner = await tokenWithRole('lib-owner', 'LibraryOwner', { kind: 'library', id: 'common' })
      const viewer = await tokenWithRole('lib-viewer', 'LibraryViewer', { kind: 'library', id: 'common' })
      const wsViewer = await tokenWithRole('ws-viewer', 'WorkspaceViewer', { kind: 'workspace', id: '' })
      const body = { modules: { 'url.rego': HELPERS } }

      expect((await put('common', body, { token: owner })).status).toBe(200)
      expect((await put('other', body, { token: owner })).status).toBe(403)
      expect((await t.json('GET', '/v1/libraries/other', { token: owner })).status).toBe(403)
      // The list answers the libraries the caller may read, nothing else.
      const own = await t.json<{ result: Library[] }>('GET', '/v1/libraries', { token: owner })
      expect(own.status).toBe(200)
      expect(own.body.result.map((l) => l.id)).toEqual(['common'])
      // An owner manages access to its library (v1 bindings under libraries/<id>).
      const binding = await t.json('PUT', '/v1/authz/rolebindings/libraries/common/readers', {
        token: owner,
        body: { role_name: 'viewer', subjects: ['someone@example.com'] },
      })
      expect(binding.status, JSON.stringify(binding.body)).toBe(200)
      expect(
        (
          await t.json('PUT', '/v1/authz/rolebindings/libraries/other/readers', {
            token: owner,
            body: { role_name: 'viewer', subjects: ['someone@example.com'] },
          })
        ).status,
      ).toBe(403)

      expect((await t.json('GET', '/v1/libraries/common', { token: viewer })).status).toBe(200)
      expect((await put('common', body, { token: viewer })).status).toBe(403)
      expect((await t.json('DELETE', '/v1/libraries/common', { token: viewer })).status).toBe(403)

      const all = await t.json<{ result: Library[] }>('GET', '/v1/libraries', { token: wsViewer })
      expect(all.status).toBe(200)
      expect(all.body.result.map((l) => l.id)).toContain('other')
      expect((await put('other', body, { token: wsViewer })).status).toBe(403)
      const nobody = await t.json('PUT', '/v1/tokens/lib-nobody', { body: { description: 'no role' } })
      const none = await t.json<{ result: Library[] }>('GET', '/v1/libraries', {
        token: nobody.body.result as string,
      })
      expect(none.status).toBe(200)
      expect(none.body.result).toEqual([])
    })

    it('refuses a binding on a library that does not exist, and drops bindings with the library', async () => {
      const missing = await t.json('POST', '/v2/authz/rolebindings', {
        body: {
          resource_filter: { kind: 'library', id: 'nosuch' },
          role_id: 'LibraryViewer',
          subjects: [{ kind: 'user', id: 'u' }],
        },
      })
      expect(missing.status).toBe(400)
      expect((missing.body as { message: string }).message).toContain('library "nosuch" does not exist')
      const token = await tokenWithRole('lib-temp', 'LibraryViewer', { kind: 'library', id: 'other' })
      expect((await t.json('GET', '/v1/libraries/other', { token })).status).toBe(200)
      expect((await t.json('DELETE', '/v1/libraries/other')).status).toBe(200)
      expect((await put('other', { modules: {} })).status).toBe(200)
      // Made again, the library starts with no access for the old binding's subjects.
      expect((await t.json('GET', '/v1/libraries/other', { token })).status).toBe(403)
    })
  })
}

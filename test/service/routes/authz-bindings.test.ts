/**
 * Role bindings through v1 and v2: one store, two views (what one writes the other reads),
 * validation, the v2 create/replace/subject semantics, roles, and inherit_roles on system create.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

interface V2Binding {
  id: string
  resource_filter: { kind: string; id: string }
  role_id: string
  subjects: Array<{ kind: string; id?: string; claim_config?: Record<string, string> }>
  metadata: Record<string, string>
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`role bindings v1 and v2 on ${backend.name}`, () => {
    let t: TestService
    beforeAll(async () => {
      t = await startTestService(backend)
      for (const name of ['s1', 's2']) {
        const res = await t.json('PUT', `/v1/systems/${name}`, {
          body: { name, type: 'custom' },
          headers: { 'If-None-Match': '*' },
        })
        expect(res.status).toBe(200)
      }
    })
    afterAll(async () => t?.close())

    it('shows a v1 write in v2 and a v2 write in v1', async () => {
      const put = await t.json<{ result: Record<string, unknown> }>(
        'PUT',
        '/v1/authz/rolebindings/systems/s1/owners',
        {
          body: {
            id: 'owners',
            role_name: 'owner',
            subjects: ['token:ci', 'alice@example.com'],
            description: 'owners',
          },
        },
      )
      expect(put.status).toBe(200)
      expect(put.body.result).toMatchObject({
        id: 'owners',
        role_name: 'owner',
        subjects: ['token:ci', 'user:alice@example.com'],
        metadata: { created_by: 'admin' },
      })
      const v2 = await t.json<{ rolebindings: V2Binding[] }>(
        'GET',
        '/v2/authz/rolebindings?resource_kind=system&resource_id=s1&role_id=SystemOwner',
      )
      expect(v2.body.rolebindings).toHaveLength(1)
      const binding = v2.body.rolebindings[0]!
      expect(binding).toMatchObject({
        resource_filter: { kind: 'system', id: 's1' },
        role_id: 'SystemOwner',
        subjects: [
          { kind: 'token', id: 'ci' },
          { kind: 'user', id: 'alice@example.com' },
        ],
      })

      // v2 adds a claim subject; v1 reads it under the same name.
      const added = await t.json<{ rolebinding: V2Binding }>(
        'PUT',
        `/v2/authz/rolebindings/${binding.id}/subjects`,
        {
          body: {
            subjects: [
              { kind: 'claim', claim_config: { identity_provider: 'corp', key: 'groups', value: 'ops' } },
            ],
          },
        },
      )
      expect(added.status).toBe(200)
      expect(added.body.rolebinding.subjects).toHaveLength(3)
      const v1 = await t.json<{ result: Record<string, unknown> }>(
        'GET',
        '/v1/authz/rolebindings/systems/s1/owners',
      )
      expect(v1.body.result.subjects).toEqual(['token:ci', 'user:alice@example.com', 'claim:corp/groups=ops'])

      // A binding made through v2 appears in v1's map, named by its id.
      const made = await t.json<{ rolebinding: V2Binding }>('POST', '/v2/authz/rolebindings', {
        body: {
          resource_filter: { kind: 'system', id: 's2' },
          role_id: 'SystemViewer',
          subjects: [{ kind: 'user', id: 'bob' }],
        },
      })
      expect(made.status).toBe(200)
      const all = await t.json<{ result: Record<string, Record<string, Array<Record<string, unknown>>>> }>(
        'GET',
        '/v1/authz/rolebindings',
      )
      expect(all.body.result.systems?.s2).toEqual([
        expect.objectContaining({
          id: made.body.rolebinding.id,
          role_name: 'viewer',
          subjects: ['user:bob'],
        }),
      ])
      expect(all.body.result.systems?.s1?.map((b) => b.id)).toEqual(['owners'])
      expect(all.body.result.workspace?.['']?.[0]).toMatchObject({
        role_name: 'administrator',
        subjects: ['token:admin'],
      })

      // Deleting through v1 removes it from v2.
      expect(
        (await t.json('DELETE', '/v1/authz/rolebindings/systems/s1/owners?recursive=false')).status,
      ).toBe(200)
      expect((await t.json('GET', `/v2/authz/rolebindings/${binding.id}`)).status).toBe(404)
    })

    it('replaces with an id, creates without, never updates under If-None-Match: *, and edits subjects', async () => {
      const body = {
        id: 'rb-1',
        resource_filter: { kind: 'system', id: 's1' },
        role_id: 'SystemEditor',
        subjects: [{ kind: 'user', id: 'u1' }],
      }
      expect((await t.json('POST', '/v2/authz/rolebindings', { body })).status).toBe(200)
      const conflict = await t.json('POST', '/v2/authz/rolebindings', {
        body: { ...body, role_id: 'SystemViewer' },
        headers: { 'If-None-Match': '*' },
      })
      expect(conflict.status).toBe(409)
      const replaced = await t.json<{ rolebinding: V2Binding }>('POST', '/v2/authz/rolebindings', {
        body: { ...body, role_id: 'SystemViewer', subjects: [{ kind: 'token', id: 't9' }] },
      })
      expect(replaced.body.rolebinding).toMatchObject({
        id: 'rb-1',
        role_id: 'SystemViewer',
        subjects: [{ kind: 'token', id: 't9' }],
      })
      const put = await t.json<{ rolebinding: V2Binding }>('PUT', '/v2/authz/rolebindings/rb-1/subjects', {
        body: {
          subjects: [
            { kind: 'user', id: 'u2' },
            { kind: 'token', id: 't9' },
          ],
        },
      })
      expect(put.body.rolebinding.subjects).toEqual([
        { kind: 'token', id: 't9' },
        { kind: 'user', id: 'u2' },
      ])
      const removed = await t.json<{ rolebinding: V2Binding }>(
        'DELETE',
        '/v2/authz/rolebindings/rb-1/subjects',
        {
          body: { subjects: [{ kind: 'token', id: 't9' }] },
        },
      )
      expect(removed.body.rolebinding.subjects).toEqual([{ kind: 'user', id: 'u2' }])
      const emptied = await t.json<{ rolebinding: V2Binding }>(
        'POST',
        '/v2/authz/rolebindings/rb-1/subjects',
        {
          body: { subjects: [] },
        },
      )
      expect(emptied.body.rolebinding.subjects).toEqual([])
      // An empty binding still exists (and grants nothing).
      expect((await t.json('GET', '/v2/authz/rolebindings/rb-1')).status).toBe(200)
      const bySubject = await t.json<{ rolebindings: V2Binding[] }>(
        'GET',
        '/v2/authz/rolebindings?subject_kind=user&subject_id=u2&subject_id=u1',
      )
      expect(bySubject.body.rolebindings.map((b) => b.id)).not.toContain('rb-1')
      expect((await t.json('DELETE', '/v2/authz/rolebindings/rb-1')).status).toBe(200)
      expect((await t.json('DELETE', '/v2/authz/rolebindings/rb-1')).status).toBe(404)
      expect(
        (await t.json('DELETE', '/v2/authz/rolebindings/rb-1', { headers: { 'If-Match': '*' } })).status,
      ).toBe(200)
    })

    it('refuses invalid bindings with 400 naming the field', async () => {
      const cases: Array<[unknown, RegExp]> = [
        [
          { resource_filter: { kind: 'system', id: 's1' }, role_id: 'Nope', subjects: [] },
          /role_id: unknown role "Nope"/,
        ],
        [
          { resource_filter: { kind: 'system', id: 'missing' }, role_id: 'SystemOwner', subjects: [] },
          /resource_filter\.id: system "missing" does not exist/,
        ],
        [
          { resource_filter: { kind: 'workspace', id: '' }, role_id: 'SystemOwner', subjects: [] },
          /role_id: role SystemOwner applies to system/,
        ],
        [
          { resource_filter: { kind: 'stack', id: 'x' }, role_id: 'SystemOwner', subjects: [] },
          /resource_filter\.kind: unknown resource kind/,
        ],
        [
          {
            resource_filter: { kind: 'system', id: 's1' },
            role_id: 'SystemOwner',
            subjects: [{ kind: 'token' }],
          },
          /subjects\.0\.id: required/,
        ],
        [
          {
            resource_filter: { kind: 'system', id: 's1' },
            role_id: 'SystemOwner',
            subjects: [{ kind: 'claim' }],
          },
          /subjects\.0\.claim_config: required/,
        ],
        [
          {
            resource_filter: { kind: 'system', id: 's1' },
            role_id: 'SystemOwner',
            subjects: [{ kind: 'group', id: 'g' }],
          },
          /subjects\.0\.kind/,
        ],
        [{ resource_filter: { kind: 'system', id: 's1' }, subjects: [] }, /role_id/],
      ]
      for (const [body, message] of cases) {
        const res = await t.json('POST', '/v2/authz/rolebindings', { body })
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.message).toMatch(message)
      }
      const v1 = await t.json('PUT', '/v1/authz/rolebindings/systems/s1/x', {
        body: { role_name: 'emperor', subjects: [] },
      })
      expect(v1.status).toBe(400)
      expect(v1.body.message).toMatch(/role_name: unknown role "emperor"/)
      const badType = await t.json('GET', '/v1/authz/rolebindings/stacks/x/y')
      expect(badType.status).toBe(400)
      const badRecursive = await t.json('DELETE', '/v1/authz/rolebindings/systems/s1/x?recursive=maybe')
      expect(badRecursive.status).toBe(400)
    })

    it('lists roles in v1 and v2, v2 filtered by resource kind with inherit_roles', async () => {
      const v1 = await t.json<{ result: Array<{ name: string }> }>('GET', '/v1/authz/roles')
      expect(v1.body.result.map((r) => r.name)).toEqual(
        expect.arrayContaining(['owner', 'administrator', 'viewer']),
      )
      const v2 = await t.json<{
        roles: Array<{ id: string; resource_kind: string; inherit_roles: unknown[] }>
      }>('GET', '/v2/authz/roles?resource_kind=workspace')
      expect(v2.body.roles.every((r) => r.resource_kind === 'workspace')).toBe(true)
      expect(v2.body.roles.find((r) => r.id === 'WorkspaceSystemCreator')?.inherit_roles).toEqual([
        { action: 'create', resource_kind: 'system', role: 'SystemOwner' },
      ])
    })

    it('makes the creator of a system its owner through WorkspaceSystemCreator', async () => {
      const secret = (await t.json('PUT', '/v1/tokens/creator', { body: {} })).body.result as string
      await t.json('POST', '/v2/authz/rolebindings', {
        body: {
          resource_filter: { kind: 'workspace', id: '' },
          role_id: 'WorkspaceSystemCreator',
          subjects: [{ kind: 'token', id: 'creator' }],
        },
      })
      const created = await t.json<{ result: { id: string } }>('POST', '/v1/systems', {
        token: secret,
        body: { name: 'made-by-creator', type: 'custom' },
      })
      expect(created.status).toBe(200)
      const id = created.body.result.id
      const owners = await t.json<{ rolebindings: V2Binding[] }>(
        'GET',
        `/v2/authz/rolebindings?resource_id=${id}&role_id=SystemOwner`,
      )
      expect(owners.body.rolebindings.map((b) => b.subjects)).toEqual([[{ kind: 'token', id: 'creator' }]])
      // ...so it may now change that system, and still not another.
      expect(
        (await t.json('PUT', `/v1/systems/${id}`, { token: secret, body: { description: 'mine' } })).status,
      ).toBe(200)
      expect(
        (await t.json('PUT', '/v1/systems/s1', { token: secret, body: { description: 'x' } })).status,
      ).toBe(403)
      // Deleting the system deletes its bindings.
      expect((await t.json('DELETE', `/v1/systems/${id}`, { token: secret })).status).toBe(200)
      const after = await t.json<{ rolebindings: V2Binding[] }>(
        'GET',
        `/v2/authz/rolebindings?resource_id=${id}`,
      )
      expect(after.body.rolebindings).toEqual([])
    })

    it('keeps allow_path_patterns (and the description) when an update omits them', async () => {
      await t.json('PUT', '/v1/tokens/narrow', {
        body: { description: 'narrow', allow_path_patterns: ['/v1/systems.*'] },
      })
      const updated = await t.json('PUT', '/v1/tokens/narrow', { body: { ttl: '24h' } })
      expect(updated.status).toBe(200)
      const got = await t.json<{ result: Record<string, unknown> }>('GET', '/v1/tokens/narrow')
      expect(got.body.result).toMatchObject({ allow_path_patterns: ['/v1/systems.*'], description: 'narrow' })
      await t.json('PUT', '/v1/tokens/narrow', { body: { allow_path_patterns: [] } })
      const cleared = await t.json<{ result: Record<string, unknown> }>('GET', '/v1/tokens/narrow')
      expect(cleared.body.result.allow_path_patterns).toEqual([])
    })

    it('lets WorkspaceTokenRefresher only regenerate tokens that belong to no system', async () => {
      const secret = (await t.json('PUT', '/v1/tokens/refresher', { body: {} })).body.result as string
      await t.json('POST', '/v2/authz/rolebindings', {
        body: {
          resource_filter: { kind: 'workspace', id: '' },
          role_id: 'WorkspaceTokenRefresher',
          subjects: [{ kind: 'token', id: 'refresher' }],
        },
      })
      await t.json('PUT', '/v1/tokens/ci-job', { body: { description: 'ci' } })
      const regenerated = await t.json('PUT', '/v1/tokens/ci-job', {
        token: secret,
        body: { regenerate: true },
      })
      expect(regenerated.status).toBe(200)
      expect(regenerated.body.result).toMatch(/^[\w-]{40,}$/)
      for (const [path, body] of [
        ['/v1/tokens/ci-job', { description: 'changed' }],
        ['/v1/tokens/ci-job', { regenerate: true, allow_path_patterns: [] }],
        ['/v1/tokens/brand-new', { regenerate: true }],
        ['/v1/tokens/system-agent-s1', { regenerate: true }],
      ] as const) {
        expect(
          (await t.json('PUT', path, { token: secret, body })).status,
          `${path} ${JSON.stringify(body)}`,
        ).toBe(403)
      }
      expect((await t.json('DELETE', '/v1/tokens/ci-job', { token: secret })).status).toBe(403)
    })

    it('takes a deleted token out of its bindings and keeps the last administrator', async () => {
      const secret = (await t.json('PUT', '/v1/tokens/temp-admin', { body: {} })).body.result as string
      const bound = await t.json<{ rolebinding: V2Binding }>('POST', '/v2/authz/rolebindings', {
        body: {
          resource_filter: { kind: 'workspace', id: '' },
          role_id: 'WorkspaceAdministrator',
          subjects: [{ kind: 'token', id: 'temp-admin' }],
        },
      })
      expect((await t.json('GET', '/v1/tokens', { token: secret })).status).toBe(200)
      expect((await t.json('DELETE', '/v1/tokens/temp-admin')).status).toBe(200)
      const after = await t.json<{ rolebinding: V2Binding }>(
        'GET',
        `/v2/authz/rolebindings/${bound.body.rolebinding.id}`,
      )
      expect(after.body.rolebinding.subjects).toEqual([])
      const last = await t.json('DELETE', '/v1/tokens/admin')
      expect(last.status).toBe(409)
    })
  })
}

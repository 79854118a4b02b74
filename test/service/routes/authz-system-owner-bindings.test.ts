/**
 * v2 role bindings managed by a system's owner, on SQLite and PostgreSQL: SystemOwner on one
 * system creates, replaces, reads, edits and deletes v2 bindings on that system (as v1 lets it),
 * and is refused (403) on bindings of other systems and of the workspace, including a replace
 * that would move a workspace binding onto its system. The permission check answers the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

const binding = (id: string, filter: { kind: string; id: string }, role = 'SystemViewer') => ({
  id,
  resource_filter: filter,
  role_id: role,
  subjects: [{ kind: 'user', id: 'bob' }],
})
const MINE = { kind: 'system', id: 'mine' }
const THEIRS = { kind: 'system', id: 'theirs' }
const WORKSPACE = { kind: 'workspace', id: '' }

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`v2 bindings by a system owner on ${backend.name}`, () => {
    let t: TestService
    let owner: string
    beforeAll(async () => {
      t = await startTestService(backend)
      for (const name of ['mine', 'theirs']) {
        const res = await t.json('PUT', `/v1/systems/${name}`, {
          body: { name, type: 'custom' },
          headers: { 'If-None-Match': '*' },
        })
        expect(res.status).toBe(200)
      }
      owner = (await t.json('PUT', '/v1/tokens/owner', { body: {} })).body.result as string
      // Granted through v1, as an owner of `mine`.
      const granted = await t.json('PUT', '/v1/authz/rolebindings/systems/mine/owners', {
        body: { role_name: 'owner', subjects: ['token:owner'] },
      })
      expect(granted.status).toBe(200)
      for (const [id, filter] of [
        ['on-theirs', THEIRS],
        ['on-workspace', WORKSPACE],
      ] as const) {
        const res = await t.json('POST', '/v2/authz/rolebindings', {
          body: binding(id, filter, filter.kind === 'workspace' ? 'WorkspaceViewer' : 'SystemViewer'),
        })
        expect(res.status).toBe(200)
      }
    })
    afterAll(async () => t?.close())

    it('manages v2 bindings on its own system, seen through v1 too', async () => {
      const created = await t.json<{ rolebinding: { id: string } }>('POST', '/v2/authz/rolebindings', {
        token: owner,
        body: binding('mine-viewers', MINE),
      })
      expect(created.status).toBe(200)
      const v1 = await t.json('GET', '/v1/authz/rolebindings/systems/mine/mine-viewers')
      expect(v1.status).toBe(200)
      expect(v1.body.result).toMatchObject({ role_name: 'viewer', subjects: ['user:bob'] })
      const replaced = await t.json('POST', '/v2/authz/rolebindings', {
        token: owner,
        body: binding('mine-viewers', MINE, 'SystemEditor'),
      })
      expect(replaced.status).toBe(200)
      expect((await t.json('GET', '/v2/authz/rolebindings/mine-viewers', { token: owner })).status).toBe(200)
      const added = await t.json<{ rolebinding: { subjects: unknown[] } }>(
        'PUT',
        '/v2/authz/rolebindings/mine-viewers/subjects',
        { token: owner, body: { subjects: [{ kind: 'user', id: 'carol' }] } },
      )
      expect(added.status).toBe(200)
      expect(added.body.rolebinding.subjects).toHaveLength(2)
      const deleted = await t.json('DELETE', '/v2/authz/rolebindings/mine-viewers', { token: owner })
      expect(deleted.status).toBe(200)
      expect((await t.json('GET', '/v2/authz/rolebindings/mine-viewers')).status).toBe(404)
    })

    it('is refused on bindings of other systems and of the workspace', async () => {
      const attempts: Array<[string, string, unknown?]> = [
        ['POST', '/v2/authz/rolebindings', binding('new-on-theirs', THEIRS)],
        ['POST', '/v2/authz/rolebindings', binding('new-on-workspace', WORKSPACE, 'WorkspaceViewer')],
        // No resource_filter that names a system: a workspace binding.
        ['POST', '/v2/authz/rolebindings', { role_id: 'SystemViewer', subjects: [] }],
        // Moving a workspace binding onto its system replaces the workspace binding: refused.
        ['POST', '/v2/authz/rolebindings', binding('on-workspace', MINE)],
        ['POST', '/v2/authz/rolebindings', binding('on-theirs', MINE)],
        ['GET', '/v2/authz/rolebindings/on-theirs'],
        ['DELETE', '/v2/authz/rolebindings/on-workspace'],
        ['DELETE', '/v2/authz/rolebindings/on-theirs'],
        ['PUT', '/v2/authz/rolebindings/on-theirs/subjects', { subjects: [{ kind: 'token', id: 'owner' }] }],
        [
          'POST',
          '/v2/authz/rolebindings/on-workspace/subjects',
          { subjects: [{ kind: 'token', id: 'owner' }] },
        ],
        // The whole list stays a workspace read.
        ['GET', '/v2/authz/rolebindings'],
      ]
      for (const [method, path, body] of attempts) {
        const res = await t.json(method, path, { token: owner, ...(body !== undefined ? { body } : {}) })
        expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(403)
        expect(res.body.message).toMatch(/token owner may not authz\.(write|read) on/)
      }
      // Nothing changed.
      const theirs = await t.json<{ rolebinding: { resource_filter: unknown; subjects: unknown[] } }>(
        'GET',
        '/v2/authz/rolebindings/on-theirs',
      )
      expect(theirs.body.rolebinding.subjects).toEqual([{ kind: 'user', id: 'bob' }])
      const ws = await t.json<{ rolebinding: { resource_filter: { kind: string } } }>(
        'GET',
        '/v2/authz/rolebindings/on-workspace',
      )
      expect(ws.body.rolebinding.resource_filter.kind).toBe('workspace')
      expect((await t.json('GET', '/v2/authz/rolebindings/new-on-theirs')).status).toBe(404)
    })

    it('gets the same answers from the permission check', async () => {
      const checks = [
        { operation: 'POST', path: '/v2/authz/rolebindings', body: binding('x', MINE), allowed: true },
        { operation: 'POST', path: '/v2/authz/rolebindings', body: binding('x', THEIRS), allowed: false },
        {
          operation: 'POST',
          path: '/v2/authz/rolebindings',
          body: binding('on-workspace', MINE),
          allowed: false,
        },
        { operation: 'POST', path: '/v2/authz/rolebindings', allowed: false },
        { operation: 'DELETE', path: '/v2/authz/rolebindings/on-theirs', allowed: false },
        { operation: 'GET', path: '/v2/authz/rolebindings/on-workspace', allowed: false },
      ]
      const granted = await t.json('POST', '/v2/authz/rolebindings', {
        token: owner,
        body: binding('mine-check', MINE),
      })
      expect(granted.status).toBe(200)
      checks.push({ operation: 'DELETE', path: '/v2/authz/rolebindings/mine-check', allowed: true })
      const res = await t.json<{ result: Array<{ allowed: boolean; eval_error: boolean }> }>(
        'POST',
        '/v1/authz/evaluation',
        {
          token: owner,
          body: checks.map(({ allowed: _, ...check }) => check),
        },
      )
      expect(res.status).toBe(200)
      expect(res.body.result.map((r) => r.allowed)).toEqual(checks.map((c) => c.allowed))
      expect(res.body.result.every((r) => !r.eval_error)).toBe(true)
    })
  })
}

/**
 * `GET /v1/systems` lists what the caller may read: every system for a workspace reader, the
 * bound systems for a system's viewer, none for a caller without any role (200 with an empty
 * list, as `GET /v1/libraries`), and a system's own page stays refused to the others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`the systems list per caller on ${backend.name}`, () => {
    let t: TestService
    const tokens: Record<string, string> = {}

    beforeAll(async () => {
      t = await startTestService(backend)
      for (const name of ['a', 'b', 'c']) {
        const res = await t.json('PUT', `/v1/systems/${name}`, {
          body: { name, type: 'custom' },
          headers: { 'If-None-Match': '*' },
        })
        expect(res.status).toBe(200)
      }
      for (const id of ['viewer-of-b', 'nobody', 'workspace-viewer']) {
        const made = await t.json<{ result: string }>('PUT', `/v1/tokens/${id}`, {
          body: { description: id },
        })
        expect(made.status).toBe(200)
        tokens[id] = made.body.result
      }
      const bind = async (type: string, resource: string, name: string, role: string, token: string) => {
        const res = await t.json('PUT', `/v1/authz/rolebindings/${type}/${resource}/${name}`, {
          body: { role_name: role, subjects: [`token:${token}`] },
        })
        expect(res.status, JSON.stringify(res.body)).toBe(200)
      }
      await bind('systems', 'b', 'viewers', 'viewer', 'viewer-of-b')
      await bind('workspace', 'workspace', 'viewers', 'viewer', 'workspace-viewer')
    })
    afterAll(async () => t?.close())

    const names = async (token: string) => {
      const res = await t.json<{ result: Array<{ name: string }> }>('GET', '/v1/systems', { token })
      expect(res.status).toBe(200)
      return res.body.result.map((s) => s.name).sort()
    }

    it('filters the list by systems.read', async () => {
      expect(await names(tokens['workspace-viewer']!)).toEqual(['a', 'b', 'c'])
      expect(await names(tokens['viewer-of-b']!)).toEqual(['b'])
      expect(await names(tokens.nobody!)).toEqual([])
    })

    it('still refuses a system the caller may not read', async () => {
      expect((await t.json('GET', '/v1/systems/a', { token: tokens['viewer-of-b']! })).status).toBe(403)
      expect((await t.json('GET', '/v1/systems/b', { token: tokens['viewer-of-b']! })).status).toBe(200)
    })
  })
}
